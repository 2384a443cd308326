"""Background jobs with real processes: a ``python3 -m http.server`` on 127.0.0.1 started with
``run_in_background``, its output polled, a request served and logged, killed, and gone."""

from __future__ import annotations

import asyncio
import re
import secrets
import urllib.request
from pathlib import Path

import pytest

from agent_tui.core.jobs import JobManager, JobState
from agent_tui.core.sandbox import SandboxSettings, SessionSandbox
from agent_tui.core.sandbox.bubblewrap import Bubblewrap
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.builtin import run_shell, shell_kill, shell_output
from agent_tui.core.tools.errors import ToolFailure
from tests.core.jobs.helpers import (
    PORT,
    job_context,
    pids_with,
    port_open,
    server_command,
    until,
)

PROBLEM = Bubblewrap().problem()


async def start(ctx: ToolContext, command: str) -> str:
    out = await run_shell.TOOL.call(
        run_shell.RunShellInput(command=command, run_in_background=True), ctx
    )
    assert not out.is_error
    return str(out.data["job_id"])


async def output(ctx: ToolContext, job_id: str, filter: str | None = None) -> str:
    inp = shell_output.ShellOutputInput(id=job_id, filter=filter)
    return (await shell_output.TOOL.call(inp, ctx)).content


def jobs(ctx: ToolContext) -> JobManager:
    assert ctx.jobs is not None
    return ctx.jobs


async def serve_kill_and_gone(ctx: ToolContext, tmp_path: Path) -> None:
    marker = f"srv-{secrets.token_hex(4)}"
    job_id = await start(ctx, server_command(marker))
    seen: list[str] = []

    async def port_said() -> int | None:
        seen.append(await output(ctx, job_id))
        found = PORT.search("".join(seen))
        return int(found.group(1)) if found else None

    port = await until(port_said)
    assert "[job 1: running for" in seen[-1] or "[job 1: running for" in "".join(seen)
    body = await asyncio.to_thread(
        lambda: urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5).status
    )
    assert body == 200
    logged = await until(lambda: _later(output(ctx, job_id, filter=r"GET / ")))
    assert "GET / HTTP" in logged
    assert "(no matching lines)" not in logged
    assert pids_with(marker)
    killed = await shell_kill.TOOL.call(shell_kill.JobInput(id=job_id), ctx)
    assert "was killed" in killed.content
    info = jobs(ctx).get(job_id).info()
    assert info.state is JobState.KILLED
    assert not pids_with(marker)
    assert not port_open(port)
    # nothing lost: the whole output is in the job's spill file, committed
    log = (tmp_path / info.log).read_text()
    assert f"port {port}" in log
    assert "GET / HTTP" in log
    assert jobs(ctx).take_notes() == []  # the model killed it: nothing to tell


async def _later(read: object) -> str | None:
    text = await read  # type: ignore[misc]
    return text if "GET / " in text else None


async def test_a_server_starts_is_polled_killed_and_gone(tmp_path: Path) -> None:
    ctx = job_context(tmp_path)
    await serve_kill_and_gone(ctx, tmp_path)


@pytest.mark.skipif(PROBLEM is not None, reason=f"no sandbox here: {PROBLEM}")
async def test_a_sandboxed_server_too(tmp_path: Path) -> None:
    box = SessionSandbox(SandboxSettings(mode="required", network="on"), tmp_path)  # type: ignore[call-arg]
    ctx = job_context(tmp_path, box)
    await serve_kill_and_gone(ctx, tmp_path)


@pytest.mark.skipif(PROBLEM is not None, reason=f"no sandbox here: {PROBLEM}")
async def test_a_server_in_a_sandbox_without_network_is_said_to_be_unreachable(
    tmp_path: Path,
) -> None:
    """Without network the sandbox has a network of its own: the server listens there, out
    of the user's reach and of every later command's. The model is told so at the start,
    and it is true."""
    box = SessionSandbox(SandboxSettings(mode="required", network="off"), tmp_path)  # type: ignore[call-arg]
    ctx = job_context(tmp_path, box)
    marker = f"srv-{secrets.token_hex(4)}"
    started = await run_shell.TOOL.call(
        run_shell.RunShellInput(command=server_command(marker), run_in_background=True), ctx
    )
    assert "listens inside that sandbox only" in started.content
    assert '"sandbox": {"network": "on"}' in started.content
    job_id = str(started.data["job_id"])
    seen: list[str] = []

    async def port_said() -> int | None:
        seen.append(await output(ctx, job_id))
        found = PORT.search("".join(seen))
        return int(found.group(1)) if found else None

    port = await until(port_said)
    assert not port_open(port)  # listening, but not here
    await shell_kill.TOOL.call(shell_kill.JobInput(id=job_id), ctx)
    assert not pids_with(marker)


async def test_output_is_read_once_and_the_end_noted(tmp_path: Path) -> None:
    ctx = job_context(tmp_path)
    job_id = await start(ctx, "for i in 1 2 3; do echo line$i; done; sleep 0.3; echo last; exit 3")
    job = jobs(ctx).get(job_id)
    await asyncio.wait_for(job.done.wait(), 20)
    notes = jobs(ctx).take_notes()
    assert [(n.id, n.exit_code, n.unread_lines) for n in notes] == [("1", 3, 4)]
    assert jobs(ctx).take_notes() == []  # once
    first = await output(ctx, job_id)
    assert first.startswith("line1\nline2\nline3\nlast\n[job 1: exited 3 after")
    assert "[whole output:" in first
    assert (await output(ctx, job_id)).startswith("(no new output)")


async def test_big_output_is_kept_whole(tmp_path: Path) -> None:
    """Far past Codex's 128 KiB: every byte in the file, and every line read."""
    ctx = job_context(tmp_path)
    job_id = await start(ctx, "seq 1 200000")
    job = jobs(ctx).get(job_id)
    await asyncio.wait_for(job.done.wait(), 30)
    info = job.info()
    assert info.bytes > 1_000_000
    assert info.lines == 200000
    text = await output(ctx, job_id)
    assert text.splitlines()[199999] == "200000"
    log = (tmp_path / info.log).read_bytes()
    assert log == "".join(f"{i}\n" for i in range(1, 200001)).encode()


async def test_unknown_ids_are_a_clear_error(tmp_path: Path) -> None:
    ctx = job_context(tmp_path)
    with pytest.raises(ToolFailure, match=re.escape("no background job '7'")):
        await output(ctx, "7")
    with pytest.raises(ToolFailure, match="no background job"):
        await shell_kill.TOOL.call(shell_kill.JobInput(id="7"), ctx)
    other = job_context(tmp_path / "other") if (tmp_path / "other").mkdir() is None else None
    assert other is not None
    await start(other, "sleep 30")  # another session's job 1 is not ours
    with pytest.raises(ToolFailure, match="no background job '1'"):
        await output(ctx, "1")
    await jobs(other).aclose()


async def test_closing_kills_every_job(tmp_path: Path) -> None:
    ctx = job_context(tmp_path)
    marker = f"sleeper-{secrets.token_hex(4)}"
    for _ in range(2):
        await start(ctx, f"exec -a {marker} sleep 300")
    await until(lambda: _async(len(pids_with(marker)) >= 2))
    await jobs(ctx).aclose()
    assert not pids_with(marker)
    assert all(info.state is JobState.KILLED for info in jobs(ctx).infos())


async def _async(value: bool) -> bool:
    return value


def test_a_job_call_reads_as_its_job() -> None:
    """The lane and the chat say ``shell_output job 1``, not a JSON object."""
    from agent_tui.core.text.call_summary import summarize_input

    assert summarize_input({"id": "1"}) == "job 1"
    assert summarize_input({"id": 2, "filter": "GET /"}) == "job 2 · /GET //"


async def test_a_quiet_job_is_not_a_leftover_for_cleanup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cleanup removes temporary spill files an hour old; a server quiet for longer keeps its
    files fresh, and its whole output is still saved when it ends."""
    import os
    import time

    from agent_tui.core.budget.cleanup import collect_spills
    from agent_tui.core.jobs import job as job_module

    monkeypatch.setattr(job_module, "FRESHEN_SECONDS", 0.1)
    ctx = job_context(tmp_path)
    gate = tmp_path / "go"
    job_id = await start(ctx, f"echo early; while [ ! -e {gate} ]; do sleep 0.05; done; echo late")
    job = jobs(ctx).get(job_id)
    store = jobs(ctx).store
    temps = [p for p in store.root.rglob(".tmp-*")]
    assert len(temps) == 2  # the data and its index, being written
    hours_ago = time.time() - 7200
    for path in temps:
        os.utime(path, (hours_ago, hours_ago))
    await until(lambda: _async(all(p.stat().st_mtime > hours_ago + 3600 for p in temps)))
    await asyncio.to_thread(collect_spills, store, [], [], grace=0.0)
    assert all(p.exists() for p in temps)
    gate.touch()
    await asyncio.wait_for(job.done.wait(), 20)
    assert (tmp_path / job.info().log).read_text() == "early\nlate\n"


async def test_a_filter_that_backtracks_ends_in_an_error_and_the_loop_runs_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The model's filter runs off the event loop under grep's time limit: a catastrophic
    pattern ends the call with regex_timeout, the loop kept ticking meanwhile, and the output
    is still unread (the next plain read returns it)."""
    monkeypatch.setattr(shell_output, "MATCH_SECONDS", 0.5)
    ctx = job_context(tmp_path)
    job_id = await start(ctx, "python3 -c \"print('a' * 40 + '!'); print('ok')\"")
    job = jobs(ctx).get(job_id)
    await until(lambda: _later_value(not job.info().running))
    ticks = 0
    done = False

    async def tick() -> None:
        nonlocal ticks
        while not done:
            ticks += 1
            await asyncio.sleep(0.01)

    ticker = asyncio.create_task(tick())
    try:
        inp = shell_output.ShellOutputInput(id=job_id, filter=r"(a|a)+$")
        with pytest.raises(ToolFailure, match=r"took more than 0\.5 s to match") as failure:
            await shell_output.TOOL.call(inp, ctx)
    finally:
        done = True
        await ticker
    assert failure.value.info.code == "regex_timeout"
    assert ticks >= 5  # the loop ran while the pattern backtracked
    assert "a!\nok" in await output(ctx, job_id)


async def _later_value(value: bool) -> bool | None:
    return value or None
