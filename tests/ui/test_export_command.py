"""``/export`` in the TUI: a turn whose shell output was spilled, exported to a new file in the
working directory (the chat says where), to a named JSON file, and to a path that cannot be
written (an error in the chat; nothing else changes)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from agent_tui.ui.chat import ErrorBlock, Notice
from tests.ui.helpers import make_agent, make_app, submit, wait_for, wait_idle

PROGRAM = "import sys; sys.stdout.write(''.join(f'line {i}\\n' for i in range(8000)))"
COMMAND = f"{shlex.quote(sys.executable)} -c {shlex.quote(PROGRAM)}"


def _files(where: Path) -> set[Path]:
    return set(where.iterdir())


def _read(path: Path) -> str:
    return path.read_text()


def _turns() -> list[dict[str, object]]:
    call = {"id": "big", "name": "run_shell", "arguments": {"command": COMMAND}}
    return [{"text": "Running.", "tool_calls": [call]}, {"text": "Done: 8000 lines."}]


async def test_export_writes_the_turn_with_its_spill_and_says_where(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, _turns(), allow=("run_shell",))
    app = make_app(agent)
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "count the lines")
        await wait_idle(pilot)
        before = _files(tmp_path)
        await submit(pilot, "/export")

        def said() -> list[str]:
            return [n.text for n in app.main.chat.query(Notice) if "Exported" in n.text]

        await wait_for(pilot, said, "the export notice")
        [made] = _files(tmp_path) - before
        assert made.suffix == ".md"
        assert made.name.startswith("agent-tui-")
        assert str(made.name) in said()[0]
        text = made.read_text()
        assert "count the lines" in text
        assert "### Tool call: run_shell (`big`)" in text
        assert "Done: 8000 lines." in text
        [line] = [x for x in text.splitlines() if x.startswith("Whole output spilled to `")]
        spill = Path(line.split("`")[1])
        assert _read(spill) == "".join(f"line {i}\n" for i in range(8000))

        await submit(pilot, "/export out/share.json")
        await wait_for(pilot, lambda: len(said()) == 2, "the second export notice")
        doc = json.loads((tmp_path / "out" / "share.json").read_text())
        assert [e["kind"] for e in doc["entries"]] == ["prompt", "answer", "tool_call", "answer"]

        (tmp_path / "afile").write_text("keep")
        await submit(pilot, "/export afile/x.md")
        await wait_for(pilot, lambda: list(app.main.chat.query(ErrorBlock)), "the export error")
        assert (tmp_path / "afile").read_text() == "keep"
