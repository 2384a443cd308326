"""A Claude Code command file's shell lines and ``@`` references, headless, as a user runs it:
each ``!`…` `` line is a ``run_shell`` call judged by the real permission pipeline and run
in the sandbox; what is allowed is inlined, what is not is a note (and nothing happened)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from agent_tui.core.events import parse_event
from tests.test_cli_commands import _script, run_cli

STATUS = """---
description: Summarise the state of the repository
argument-hint: [focus]
allowed-tools: Bash(git status:*), Bash(git branch:*)
---
## Context

- Branch: !`git branch --show-current`
- Listing: !`ls`
- Planted: !`touch planted.txt`
- Denied: !`cat canary.txt`
- Kept as text: \\!`touch escaped.txt`

```!
echo fenced-one
echo fenced-two
```

Summarise with focus $0; the notes are in @notes.md.
"""


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def _events(done: subprocess.CompletedProcess[bytes]) -> list[object]:
    return [parse_event(line) for line in done.stdout.decode().splitlines() if line.strip()]


def test_shell_lines_run_under_the_rules_and_refusals_are_notes(workspace: Path) -> None:
    _git(workspace, "init", "-q", "-b", "trunk")
    (workspace / "canary.txt").write_text("CANARY-SECRET\n")
    (workspace / "notes.md").write_text("NOTES-BODY\n")
    commands = workspace / ".claude" / "commands" / "ops"
    commands.mkdir(parents=True)
    (commands / "status.md").write_text(STATUS)
    done = run_cli(
        "-p", "/status errors", "--model", _script(workspace),
        "--output-format", "stream-json", "--deny", "run_shell(cat:*)",
        "--allow", "run_shell(git branch:*),run_shell(ls),run_shell(echo:*),run_shell(cat:*)",
        cwd=workspace,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    user = next(e for e in _events(done) if getattr(e, "type", "") == "user_message")
    text = str(getattr(user, "text", ""))
    assert "- Branch: trunk" in text  # ran (read-only: allowed), output inlined
    assert "canary.txt" in text
    assert "notes.md" in text
    assert "fenced-one\nfenced-two" in text
    assert "[shell line `touch planted.txt` not run: refused:" in text
    assert "[shell line `cat canary.txt` not run: refused:" in text
    assert "CANARY-SECRET" not in text
    assert "Kept as text: !`touch escaped.txt`" in text
    assert "Summarise with focus errors" in text
    assert not (workspace / "planted.txt").exists()
    assert not (workspace / "escaped.txt").exists()
    stderr = done.stderr.decode()
    assert "!`touch planted.txt`: refused:" in stderr
    assert "allowed-tools (Bash(git status:*), Bash(git branch:*)) is not applied" in stderr
    # the @ reference is attached as a typed @mention is
    mentions = getattr(user, "mentions", [])
    assert [(m.kind, m.path, m.attached) for m in mentions] == [("file", "notes.md", True)]
