"""``agent-tui init`` with the demo model: a starter AGENTS.md from the layout, no model call,
never overwriting without --force."""

from __future__ import annotations

import json
from pathlib import Path

from tests.test_cli_headless import run_cli


def test_init_writes_a_starter_from_the_layout_and_keeps_it(workspace: Path) -> None:
    (workspace / ".git").mkdir()
    (workspace / "README.md").write_text("# Frobnicator\n\nIt frobs.\n")
    (workspace / "package.json").write_text(json.dumps({"scripts": {"test": "vitest"}}))
    (workspace / "Makefile").write_text("build:\n\tnpm run build\n")
    for name in ("src", "tests", "node_modules", ".github"):
        (workspace / name).mkdir()

    done = run_cli("init", cwd=workspace)

    assert done.returncode == 0, done.stderr
    target = workspace / "AGENTS.md"
    assert f"Wrote {target}" in done.stdout
    assert "from the project layout" in done.stdout
    text = target.read_text()
    assert text.startswith("# AGENTS.md — Frobnicator\n")
    for line in ("- `src/`", "- `tests/`", "- Test: `npm test`", "- Build: `make build`"):
        assert line in text
    assert "JavaScript/TypeScript" in text
    assert "node_modules" not in text
    assert ".github" not in text

    target.write_text("mine\n")
    again = run_cli("init", cwd=workspace)
    assert again.returncode == 1
    assert "already exists" in again.stderr
    assert "--force" in again.stderr
    assert target.read_text() == "mine\n"

    forced = run_cli("init", "--force", cwd=workspace)
    assert forced.returncode == 0, forced.stderr
    assert target.read_text() == text


def test_an_existing_claude_md_is_not_shadowed_without_force(workspace: Path) -> None:
    (workspace / "CLAUDE.md").write_text("claude rules\n")
    done = run_cli("init", cwd=workspace)
    assert done.returncode == 1
    assert "CLAUDE.md already exists" in done.stderr
    assert not (workspace / "AGENTS.md").exists()


def test_the_session_start_and_usage_events_carry_memory_and_context(workspace: Path) -> None:
    (workspace / "AGENTS.md").write_text("Always answer in French.\n")
    script = workspace / "s.json"
    script.write_text(
        json.dumps({"turns": [{"text": "ok", "usage": {"input_tokens": 900, "output_tokens": 7}}]})
    )
    settings = workspace / ".agent-tui" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"model": {"context_window": 10_000}}))
    done = run_cli(
        "-p", "hi", "--model", f"script:{script}", "--output-format", "stream-json", cwd=workspace
    )
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    start = events[0]
    assert start["memory"] == [
        {
            "path": "AGENTS.md",
            "abs_path": str(workspace / "AGENTS.md"),
            "bytes": 25,
            "truncated": False,
            "scope": "project",
        }
    ]
    assert start["context_window"] == 10_000
    (usage,) = [e for e in events if e["type"] == "usage"]
    assert usage["context_tokens"] == 907
    assert usage["context_window"] == 10_000
    assert usage["percent"] == 9
    assert usage["estimated"] is False
