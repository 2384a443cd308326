"""End to end: a real session with a real spill (``agent-tui -p`` with a script model and a
real shell), exported by ``agent-tui export`` as Markdown and JSON; what the model saw is
there, the spill file is named, and it holds the whole output."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from tests.test_cli_headless import run_cli

ROWS = 6_000
PROGRAM = "import sys; sys.stdout.write(''.join(f'row {i} of many\\n' for i in range(6000)))"
COMMAND = f"{shlex.quote(sys.executable)} -c {shlex.quote(PROGRAM)}"


def _session_with_a_spill(cwd: Path) -> None:
    call = {"id": "big", "name": "run_shell", "arguments": {"command": COMMAND}}
    table = "| a | b |\n|---|---|\n| 1 | 2 |"
    turns = [{"text": "Printing ```fenced``` rows.", "tool_calls": [call]}, {"text": table}]
    script = cwd / "script.json"
    script.write_text(json.dumps({"turns": turns}))
    done = run_cli("-p", "print the rows", "--model", f"script:{script}", "--allow", "run_shell",
                   cwd=cwd)  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_markdown_export_has_the_call_what_the_model_saw_and_the_spill(workspace: Path) -> None:
    _session_with_a_spill(workspace)
    done = run_cli("export", "-o", "report.md", cwd=workspace)
    assert done.returncode == 0, done.stderr
    written = Path(done.stdout.strip())
    assert written == (workspace / "report.md").resolve()
    text = written.read_text()
    assert "## Prompt 1" in text
    assert "print the rows" in text
    assert "### Answer" in text
    assert "Printing ```fenced``` rows." in text
    assert "### Tool call: run_shell (`big`)" in text
    assert json.dumps(COMMAND) in text  # the input as the model sent it
    assert "Output the model saw:" in text
    assert "row 0 of many" in text
    assert "row 3000 of many" not in text  # bounded as the model saw it, not the whole
    [line] = [x for x in text.splitlines() if x.startswith("Whole output spilled to `")]
    spill = Path(line.split("`")[1])
    assert spill.is_absolute()
    assert spill.is_file()
    assert spill.read_text() == "".join(f"row {i} of many\n" for i in range(ROWS))
    assert "| a | b |" in text  # the final answer


def test_json_export_is_the_documented_shape(workspace: Path) -> None:
    _session_with_a_spill(workspace)
    done = run_cli("export", "--format", "json", "-o", "-", cwd=workspace)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert (doc["format"], doc["version"]) == ("agent-tui-export", 1)
    assert doc["session"]["cwd"] == str(workspace.resolve())
    assert Path(doc["session"]["file"]).is_file()
    kinds = [e["kind"] for e in doc["entries"]]
    assert kinds == ["prompt", "answer", "tool_call", "answer"]
    call = doc["entries"][2]
    assert call["input"] == {"command": COMMAND}
    assert call["outcome"] == "ok"
    assert call["spill"]["lines"] == ROWS
    assert Path(call["spill"]["abs_path"]).is_file()
    assert call["spill"]["path"] in call["output"]  # the pointer the model read


def test_no_file_named_makes_a_new_one_and_never_overwrites(workspace: Path) -> None:
    _session_with_a_spill(workspace)
    first = run_cli("export", cwd=workspace)
    second = run_cli("export", "--format", "json", cwd=workspace)
    third = run_cli("export", cwd=workspace)
    paths = [Path(d.stdout.strip()) for d in (first, second, third)]
    assert all(d.returncode == 0 for d in (first, second, third))
    assert len(set(paths)) == 3
    assert all(p.parent == workspace.resolve() and p.is_file() for p in paths)
    assert paths[1].suffix == ".json"
    assert json.loads(paths[1].read_text())["version"] == 1


def test_an_unwritable_path_is_a_clear_error_and_nothing_is_written(workspace: Path) -> None:
    _session_with_a_spill(workspace)
    (workspace / "afile").write_text("keep")
    done = run_cli("export", "-o", "afile/out.md", cwd=workspace)
    assert done.returncode == 1
    assert "nothing exported" in done.stderr
    assert "afile" in done.stderr
    assert (workspace / "afile").read_text() == "keep"
    missing = run_cli("export", "nosuchid", cwd=workspace)
    assert missing.returncode == 1
    assert "no session 'nosuchid'" in missing.stderr
