"""A spilled command output is the command's exact bytes: compared with the same bytes written
to a file by the shell itself (``tee``), then paged to the end as the model (read_file) and the
spill browser (``core.browse``) read it. The exit code stays with the model's excerpt, out of
the file; escape codes stay in the file, out of the model's text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_tui.core.agent.agent import Agent
from agent_tui.core.browse import open_reader, window_of, window_text
from agent_tui.core.budget import BudgetSettings, PendingResult, SpillStore, apply_budget
from agent_tui.core.budget.raw import RawOutput
from agent_tui.core.permissions import SimplePolicy
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.settings import Settings
from agent_tui.core.text.utf8 import escape_bytes
from agent_tui.core.tools import ToolContext, ToolRegistry
from agent_tui.core.tools.builtin import read_file, run_shell
from tests.core.budget.helpers import read_back
from tests.core.helpers import collect, of_type, write_script

FIXTURE = Path(__file__).parent / "fixtures" / "vitest-colour.log"
"""A real vitest 1.6 run with FORCE_COLOR=1: 360 passing tests, one failing with its diff."""


async def run_command(tmp_path: Path, command: str) -> tuple[Any, Any, Agent]:
    """Run ``command`` through the agent (real shell, real budget): (result, spill, agent)."""
    call = {"id": "c1", "name": "run_shell", "arguments": {"command": command}}
    script = write_script(tmp_path / "script.json", [{"tool_calls": [call]}, {"text": "done"}])
    registry = ToolRegistry([run_shell.TOOL, read_file.TOOL])
    policy = SimplePolicy(["run_shell"])
    agent = Agent(ScriptProvider(script), registry, tmp_path, policy=policy, settings=Settings())
    events = await collect(agent, "go")
    [result] = of_type(events, "tool_result")
    [spill] = of_type(events, "spill")
    return result, spill, agent


def bytes_of(path: Path | str) -> bytes:
    return Path(path).read_bytes()


def browsed(path: Path, shown: str, limit: int = 2000) -> str:
    """The whole file as the spill browser pages it: window after window to the end."""
    parts: list[str] = []
    with open_reader(path, shown) as reader:
        offset = 1
        while True:
            window = window_of(reader, shown, offset, limit)
            copied = window_text(reader, window)
            assert copied.complete
            parts.append(copied.text)
            if window.at_end:
                return "".join(parts)
            offset = window.last + 1


def excerpt_and_pointer(content: str) -> tuple[str, str]:
    body, pointer = content.rsplit("\n", 1)
    assert pointer.startswith(("[Output too large", "[Log compressed")), pointer
    return body, pointer


async def test_random_bytes_spill_byte_for_byte(tmp_path: Path) -> None:
    result, spill, _ = await run_command(tmp_path, "head -c 300000 /dev/urandom | tee random.bin")
    data = bytes_of(tmp_path / "random.bin")
    assert len(data) == 300_000
    path = Path(spill.abs_path)
    assert bytes_of(path) == data  # not 543 kB of U+FFFD as UTF-8
    assert spill.bytes == 300_000
    text = data.decode("utf-8", "surrogateescape")
    assert (result.spill.chars, result.spill.lines) == (len(text), spill.lines)
    body, _ = excerpt_and_pointer(result.content)
    assert body.endswith("\n[exit code 0]")  # for the model, beside the pointer
    assert result.facts.exit_code == 0  # and for the card
    # the model pages it to the end (a byte that is not UTF-8 shown as \xNN, as in any
    # file), as does the spill browser
    shown = escape_bytes(text)[0]
    assert await read_back(ToolContext(cwd=tmp_path), spill.path) == shown
    assert browsed(path, spill.path) == shown


async def test_crlf_output_keeps_its_last_cr(tmp_path: Path) -> None:
    result, spill, _ = await run_command(tmp_path, r"seq 1 20000 | sed 's/$/\r/' | tee crlf.txt")
    data = bytes_of(tmp_path / "crlf.txt")
    assert data.endswith(b"19999\r\n20000\r\n")
    path = Path(spill.abs_path)
    assert bytes_of(path) == data
    assert spill.lines == 20_000
    body, _ = excerpt_and_pointer(result.content)
    assert body.endswith("\n20000\n[exit code 0]")  # the model's text drops the last CRLF
    assert await read_back(ToolContext(cwd=tmp_path), spill.path) == data.decode()
    assert browsed(path, spill.path) == data.decode()


async def test_seq_300000_spills_300000_lines(tmp_path: Path) -> None:
    result, spill, _ = await run_command(tmp_path, "seq 300000 | tee seq.txt")
    data = bytes_of(tmp_path / "seq.txt")
    path = Path(spill.abs_path)
    assert bytes_of(path) == data  # no "[exit code 0]" line appended
    assert (spill.lines, spill.chars, spill.bytes) == (300_000, len(data), len(data))
    assert result.spill.lines == 300_000
    body, pointer = excerpt_and_pointer(result.content)
    assert f"({len(data):,} chars, 300,000 lines)" in pointer
    assert body.endswith("\n299999\n300000\n[exit code 0]")
    ctx = ToolContext(cwd=tmp_path)
    last = await read_file.TOOL.call(read_file.ReadFileInput(path=spill.path, offset=299_999), ctx)
    assert last.content.split("\n") == [
        "299999\t299999",
        "300000\t300000",
        "[lines 299999-300000 of 300000 — end of file]",
    ]
    assert await read_back(ctx, spill.path) == data.decode()
    assert browsed(path, spill.path) == data.decode()


async def test_a_coloured_failing_log_is_compressed_as_plain_text_and_spilled_coloured(
    tmp_path: Path,
) -> None:
    # in the workspace: the sandbox's /tmp is private, and a clean clone may live below /tmp
    (tmp_path / "run.log").write_bytes(FIXTURE.read_bytes())
    result, spill, _ = await run_command(tmp_path, "cat run.log; exit 1")
    assert spill.reason == "log_compression"
    assert bytes_of(spill.abs_path) == bytes_of(FIXTURE)  # colours and all
    body, pointer = excerpt_and_pointer(result.content)
    assert "\x1b" not in result.content
    kept = body.split("\n")
    for line in (
        " FAIL  src/module_17.test.js > module 17 > merges settings",
        "- Expected",
        "+ Received",
        "-     4,",
        "+     3,",
        '-   "c": "y",',
        '+   "c": "x",',
        "      Tests  1 failed | 360 passed (361)",
    ):
        assert line in kept, line
    assert kept[-1] == "[exit code 1]"
    assert pointer.startswith("[Log compressed from 402 to ")


def test_a_two_line_footer_stays_whole_with_the_excerpt_and_out_of_the_file(
    tmp_path: Path,
) -> None:
    """run_shell's footer may have a second line (what the sandbox blocked): an excerpt keeps
    both, right before the pointer; the spill holds only what the command wrote."""
    data = b"".join(b"step %d: writing /var/tmp/out/%d\n" % (n, n) for n in range(20_000))
    blocked = "[blocked by the sandbox: /var/tmp/out is outside what commands may write" + (
        " (the workspace and the temporary directory are writable); ask the user to add it"
        ' to sandbox.allow_write in their settings" if it must be written]'
    )
    footer = f"[exit code 1]\n{blocked}"
    content = data.decode().removesuffix("\n") + "\n" + footer
    store = SpillStore(Path(".agent-spill"), tmp_path, durable=False)
    for is_error in (True, False):
        raw = RawOutput(data)
        pending = PendingResult(
            "c", "run_shell", content, is_error=is_error, raw=raw, footer=footer
        )
        [result] = apply_budget([pending], BudgetSettings(), store)
        assert result.spill is not None
        assert result.spill.path.read_bytes() == data
        assert result.spill.lines == 20_000
        body, _ = excerpt_and_pointer(result.content)
        assert body.endswith(f"\n{footer}")
        assert len(result.content) < 3_000
        assert raw.closed  # the budget is done with it
