from __future__ import annotations

import asyncio
import os
import shlex
import signal
import sys
from pathlib import Path

import pytest

from agent_tui.core.tools.base import ProgressUpdate, ToolContext
from agent_tui.core.tools.builtin import run_shell
from agent_tui.core.tools.builtin.run_shell import TOOL, RunShellInput
from agent_tui.core.tools.config import ShellSettings
from agent_tui.core.tools.errors import ToolFailure


class Recorder:
    """A progress callback that remembers every update."""

    def __init__(self) -> None:
        self.updates: list[ProgressUpdate] = []

    def __call__(self, update: ProgressUpdate) -> None:
        self.updates.append(update)

    @property
    def lines(self) -> list[str]:
        return [line for update in self.updates for line in update.lines]


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def real_tmp(tmp_path: Path) -> str:
    return os.path.realpath(tmp_path)


@pytest.fixture
def shell_ctx(tmp_path: Path, recorder: Recorder) -> ToolContext:
    return ToolContext(cwd=tmp_path, progress=recorder)


async def run(ctx: ToolContext, command: str, timeout: float = 30.0):  # type: ignore[no-untyped-def]
    return await TOOL.call(RunShellInput(command=command, timeout=timeout), ctx)


def kill_quietly(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


async def test_success_has_output_and_exit_code_footer(shell_ctx: ToolContext) -> None:
    out = await run(shell_ctx, "echo hello")
    assert out.content == "hello\n[exit code 0]"
    assert out.is_error is False
    assert out.data["exit_code"] == 0
    assert out.data["command"] == "echo hello"


async def test_non_zero_exit_is_an_error_result_with_output(shell_ctx: ToolContext) -> None:
    out = await run(shell_ctx, "echo failing >&2; exit 3")
    assert out.content == "failing\n[exit code 3]"
    assert out.is_error is True
    assert out.data == {"exit_code": 3, "command": "echo failing >&2; exit 3", "cwd": "."}


async def test_killed_by_signal_is_reported(shell_ctx: ToolContext) -> None:
    out = await run(shell_ctx, "kill -9 $$")
    assert out.content == "(no output)\n[killed by signal SIGKILL (exit code -9)]"
    assert out.is_error is True


async def test_stdout_and_stderr_are_merged_in_order(shell_ctx: ToolContext) -> None:
    out = await run(shell_ctx, "echo out1; echo err1 >&2; echo out2; echo err2 >&2")
    assert out.content == "out1\nerr1\nout2\nerr2\n[exit code 0]"


async def test_empty_output(shell_ctx: ToolContext) -> None:
    out = await run(shell_ctx, "true")
    assert out.content == "(no output)\n[exit code 0]"


async def test_runs_in_cwd_without_stdin_and_with_child_env(
    shell_ctx: ToolContext, real_tmp: str
) -> None:
    out = await run(shell_ctx, 'pwd; cat; echo "$PAGER $GIT_PAGER $TERM"')
    assert out.content == f"{real_tmp}\ncat cat dumb\n[exit code 0]"


async def test_a_200k_line_without_newline_is_captured_whole(shell_ctx: ToolContext) -> None:
    out = await run(shell_ctx, "head -c 200000 /dev/zero | tr '\\0' x")
    assert out.content == "x" * 200_000 + "\n[exit code 0]"


async def test_progress_lines_are_reported_in_order_and_batched(
    shell_ctx: ToolContext, recorder: Recorder
) -> None:
    await run(shell_ctx, "seq 1 2000")
    assert recorder.lines == [str(i) for i in range(1, 2001)]
    assert len(recorder.updates) < 100


async def test_progress_streams_while_the_command_runs(
    shell_ctx: ToolContext, recorder: Recorder, tmp_path: Path, wait
) -> None:
    command = "echo first; while [ ! -e go ]; do sleep 0.02; done; echo second"
    task = asyncio.ensure_future(run(shell_ctx, command))
    await wait(lambda: "first" in recorder.lines, what="the first line as progress")
    assert not task.done()
    (tmp_path / "go").touch()
    out = await task
    assert out.content == "first\nsecond\n[exit code 0]"
    assert recorder.lines == ["first", "second"]


async def test_timeout_kills_the_process_group_and_keeps_the_whole_output(
    shell_ctx: ToolContext, wait, gone
) -> None:
    """Issue 38: the output of a timed-out command was cut to its last 50 lines; now the
    failure holds all of it (the budget spills it whole, ``test_timeout_spill``)."""
    with pytest.raises(ToolFailure) as failure:
        await run(shell_ctx, "seq 1 100; sleep 30 & echo $!; wait", timeout=2)
    info = failure.value.info
    assert info.code == "timeout"
    *lines, footer = info.message.split("\n")
    assert footer == failure.value.footer
    assert "within 2 s" in footer
    assert lines[:100] == [str(n) for n in range(1, 101)]  # every line, from the first
    raw = failure.value.raw
    assert raw is not None
    assert raw.read().startswith(b"1\n2\n3\n")
    pid = int(lines[-1])
    try:
        await wait(lambda: gone(pid), what=f"background child {pid} to die")
    finally:
        kill_quietly(pid)


async def test_cancellation_kills_the_process_group(
    shell_ctx: ToolContext, recorder: Recorder, wait, gone
) -> None:
    task = asyncio.ensure_future(run(shell_ctx, "sleep 30 & echo $!; wait"))
    await wait(lambda: bool(recorder.lines), what="the child's pid")
    pid = int(recorder.lines[0])
    assert not gone(pid)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    try:
        await wait(lambda: gone(pid), what=f"child {pid} to die after cancellation")
    finally:
        kill_quietly(pid)


async def test_a_background_job_does_not_hold_the_call(shell_ctx: ToolContext) -> None:
    out = await run(shell_ctx, "sleep 30 > /dev/null 2>&1 & echo $!", timeout=20)
    pid = int(out.content.split("\n")[0])
    kill_quietly(pid)
    assert out.content.endswith("[exit code 0]")


async def test_timeout_and_command_are_validated() -> None:
    with pytest.raises(ValueError, match="600"):
        RunShellInput(command="true", timeout=601)
    with pytest.raises(ValueError, match="at least 1 character"):
        RunShellInput(command="")
    assert RunShellInput(command="true").timeout == 120


async def test_runaway_output_keeps_head_and_tail(
    shell_ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run_shell, "MAX_OUTPUT_BYTES", 64)
    monkeypatch.setattr(run_shell, "TAIL_BYTES", 64)
    out = await run(shell_ctx, "seq 1 100000")
    assert out.content.startswith("1\n2\n3\n")
    assert "bytes of output omitted" in out.content
    assert out.content.endswith("\n99999\n100000\n[exit code 0]")
    assert len(out.content) < 400
    assert out.raw is not None  # what a spill would hold: the same, without the footer
    assert out.raw.read().decode() == out.content.removesuffix("[exit code 0]")


async def test_large_output_is_kept_whole_through_the_spool_file(
    shell_ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run_shell, "SPOOL_BYTES", 1024)  # most of it goes through the disk
    out = await run(shell_ctx, "seq 1 200000")
    expected = "\n".join(str(i) for i in range(1, 200001))
    assert out.content == f"{expected}\n[exit code 0]"


async def test_crlf_and_invalid_bytes_are_kept(shell_ctx: ToolContext) -> None:
    out = await run(shell_ctx, "printf 'a\\r\\nb\\r\\n\\xff\\n'")
    assert out.content == "a\r\nb\r\n\ufffd\n[exit code 0]"
    # the exact bytes go with the text, for a spill: no U+FFFD, the last CR and LF, no footer
    assert out.raw is not None
    assert out.raw.read() == b"a\r\nb\r\n\xff\n"
    assert out.footer == "[exit code 0]"


async def test_the_raw_bytes_of_a_big_output_stay_in_the_spool_file(
    shell_ctx: ToolContext, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(run_shell, "SPOOL_BYTES", 1024)
    out = await run(shell_ctx, "seq 1 200000 | tee copy.txt; exit 3")
    assert out.raw is not None
    assert out.raw.size == (tmp_path / "copy.txt").stat().st_size
    assert out.raw.read() == (tmp_path / "copy.txt").read_bytes()
    assert out.footer == "[exit code 3]"
    assert out.content.endswith("\n200000\n[exit code 3]")
    out.raw.close()
    assert out.raw.closed


async def test_the_model_reads_output_without_escape_codes(
    shell_ctx: ToolContext, recorder: Recorder
) -> None:
    command = r"printf '\033[31m\033[1mFAIL\033[22m\033[39m x\r\n\033]8;;https://e.x\033\\link\033]8;;\033\\\n'"
    out = await run(shell_ctx, command)
    assert out.content == "FAIL x\r\nlink\n[exit code 0]"
    assert recorder.lines == ["FAIL x", "link"]  # the card's live lines too
    assert out.raw is not None
    assert out.raw.read() == (
        b"\x1b[31m\x1b[1mFAIL\x1b[22m\x1b[39m x\r\n\x1b]8;;https://e.x\x1b\\link\x1b]8;;\x1b\\\n"
    )


_COLOUR = 'echo "${NO_COLOR-unset} ${FORCE_COLOR-unset} ${CLICOLOR-unset} ${CLICOLOR_FORCE-unset}"'


async def test_commands_are_told_not_to_colour_unless_the_settings_allow_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORCE_COLOR", "3")  # what a user's own shell may export
    monkeypatch.setenv("CLICOLOR_FORCE", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("CLICOLOR", raising=False)
    out = await run(ToolContext(cwd=tmp_path), _COLOUR)
    assert out.content == "1 0 0 unset\n[exit code 0]"
    coloured = ToolContext(cwd=tmp_path, shell=ShellSettings(color=True))
    out = await run(coloured, _COLOUR)
    assert out.content == "unset 3 unset 1\n[exit code 0]"


async def test_a_test_runner_forced_to_colour_by_the_users_env_does_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")  # pytest colours a pipe when this is set…
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("PY_COLORS", raising=False)
    (tmp_path / "test_x.py").write_text("def test_a():\n    assert 1 == 2\n")
    pytest_ = f"PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 {shlex.quote(sys.executable)} -m pytest"
    command = f"{pytest_} -q -p no:cacheprovider test_x.py"
    plain = await run(ToolContext(cwd=tmp_path), command)
    assert plain.raw is not None
    assert b"\x1b[" not in plain.raw.read()  # …unless NO_COLOR is set, which it reads first
    assert "E       assert 1 == 2" in plain.content
    coloured = await run(ToolContext(cwd=tmp_path, shell=ShellSettings(color=True)), command)
    assert coloured.raw is not None
    assert b"\x1b[" in coloured.raw.read()  # the spill keeps the colours…
    assert "\x1b" not in coloured.content  # …the model never reads them
    assert "E       assert 1 == 2" in coloured.content


async def test_sigterm_ignored_is_killed_after_the_grace(
    shell_ctx: ToolContext, monkeypatch: pytest.MonkeyPatch, wait, gone
) -> None:
    monkeypatch.setattr(run_shell, "KILL_GRACE", 0.2)
    with pytest.raises(ToolFailure) as failure:
        await run(shell_ctx, "trap '' TERM; sleep 30 & echo $!; wait", timeout=1.5)
    pid = int(failure.value.info.message.split("\n")[-2])  # the line before the footer
    try:
        await wait(lambda: gone(pid), what=f"SIGTERM-immune child {pid} to be SIGKILLed")
    finally:
        kill_quietly(pid)


async def test_a_failing_progress_listener_does_not_break_the_command(tmp_path: Path) -> None:
    def broken(update: ProgressUpdate) -> None:
        raise RuntimeError("listener bug")

    out = await run(ToolContext(cwd=tmp_path, progress=broken), "seq 1 3")
    assert out.content == "1\n2\n3\n[exit code 0]"
