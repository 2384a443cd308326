"""What the demo model says and does for each kind of request: plans of steps.

A plan is a list of steps, one per model request: some text and the tool calls to make. A
step's text or calls may depend on the tool results so far (the demo reads them back).
"""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agent_tui.core.transcript import Message

Calls = list[tuple[str, dict[str, Any]]]
TOUR_DIR = ".agent-tour"  # not .agent-tui/: that is a protected path (it configures us)
TOUR_FILE = f"{TOUR_DIR}/hello.py"
PY = shlex.quote(sys.executable)

TOUR_SOURCE = '''"""Written by the agent-tui demo tour."""


def greet(name: str) -> str:
    return f"Hello, {name}!"


if __name__ == "__main__":
    print(greet("world"))
'''


@dataclass
class Step:
    text: str | Callable[[list[Message]], str] = ""
    calls: Calls | Callable[[list[Message]], Calls] = field(default_factory=list)

    def render_text(self, results: list[Message]) -> str:
        return self.text(results) if callable(self.text) else self.text

    def render_calls(self, results: list[Message]) -> Calls:
        return self.calls(results) if callable(self.calls) else self.calls


HELP = """I'm the **offline demo model** of agent-tui: no API key, no network, fully \
deterministic. I understand a few plain requests:

| ask | what I do |
|---|---|
| `tour` | a guided walk: parallel reads, an edit that needs your approval, a large output |
| `read README.md` | `read_file` with numbered lines |
| `list src` | `list_dir` |
| `find *.py` | `glob` |
| `search TODO in src` | `grep` (a Python regex) |
| `run git status` | `run_shell` (asks for approval) |
| `replace "old" with "new" in notes.txt` | `read_file`, then `edit_file` (asks, shows a diff) |
| `write notes.txt: some text` | `write_file` (asks) |

To use a real model, set `AGENT_API_KEY` (and `AGENT_BASE_URL`, `AGENT_MODEL`) for any \
OpenAI-compatible endpoint, or `ANTHROPIC_API_KEY`, then restart — or pass `--model`."""


def _first_line(results: list[Message]) -> str:
    if not results:
        return "nothing came back"
    last = results[-1]
    line = next((ln for ln in last.content.splitlines() if ln.strip()), "(empty)")
    return ("failed: " if last.is_error else "") + line.strip()[:160]


def _done(what: str) -> Step:
    def text(results: list[Message]) -> str:
        if results and results[-1].is_error:
            return (
                f"That did not work ({_first_line(results)}). The card in the lane has the "
                "full error, including what to try next."
            )
        return f"{what} — the full output is on the card in the lane (Enter expands it)."

    return Step(text=text)


def _single(intro: str, name: str, arguments: dict[str, Any], outro: str) -> list[Step]:
    return [Step(text=intro, calls=[(name, arguments)]), _done(outro)]


def _found_markdown(results: list[Message]) -> str | None:
    for message in results:
        if message.name == "glob" and not message.is_error:
            for line in message.content.splitlines():
                if line.strip().lower().endswith(".md"):
                    return line.strip()
    return None


def _tour() -> list[Step]:
    def read_step(results: list[Message]) -> Calls:
        return [("read_file", {"path": _found_markdown(results) or TOUR_FILE, "limit": 40})]

    def after_group(results: list[Message]) -> str:
        found = sum(
            1
            for m in results
            if m.name == "glob" and not m.is_error
            for line in m.content.splitlines()
            if line.strip().endswith((".md", ".py"))
        )
        return (
            f"All three finished together (I see {found} Markdown/Python file(s) at the top "
            f"level). **Writing** changes your disk, so the next call — creating "
            f"`{TOUR_FILE}` — waits for your approval. Allow it to continue the tour "
            "(deny it and I'll stop there)."
        )

    log_cmd = (
        f'{PY} -c "for i in range(1, 4001): '
        "print(f'{i:5d} INFO compiled module_{i}.py in {i % 97} ms')\""
    )
    return [
        Step(
            text="# Welcome to agent-tui\n\nI'm the **offline demo model**: everything here "
            "is real (real files, real commands) except me. First, three **read-only** calls "
            "that are safe to run together — they form one *parallel group* in the lane.",
            calls=[
                ("list_dir", {"path": "."}),
                ("glob", {"pattern": "*.md"}),
                ("glob", {"pattern": "*.py"}),
            ],
        ),
        Step(
            text=after_group,
            calls=[("write_file", {"path": TOUR_FILE, "content": TOUR_SOURCE})],
        ),
        Step(
            text="Now **reading**: `read_file` returns numbered lines and a footer telling "
            "where to continue, so long files are paged rather than dumped.",
            calls=read_step,
        ),
        Step(
            text="An **edit**: `edit_file` replaces one exact, unique string and returns a "
            "diff. It also needs your approval.",
            calls=[
                (
                    "edit_file",
                    {
                        "path": TOUR_FILE,
                        "old_string": 'print(greet("world"))',
                        "new_string": 'print(greet("agent-tui"))',
                    },
                )
            ],
        ),
        Step(
            text="Running it with `run_shell` (commands ask first, too):",
            calls=[("run_shell", {"command": f"{PY} {TOUR_FILE}"})],
        ),
        Step(
            text="Last, a command with a **large output** (4,000 lines). Nothing is lost: "
            "the full text is kept and the model reads an excerpt with a pointer to the rest.",
            calls=[("run_shell", {"command": log_cmd})],
        ),
        Step(
            text="That's the tour. What you saw: a parallel group, approvals, a diff, live "
            "output and a large result — every call a card with its state.\n\n"
            "- **Esc** interrupts a turn; the transcript stays consistent.\n"
            f"- `{TOUR_DIR}/` holds the file I wrote; delete it whenever you like.\n"
            "- Type `help` to see what else I understand, or set `AGENT_API_KEY` "
            "for a real model."
        ),
    ]


_QUOTED = r"""(?:"([^"]*)"|'([^']*)'|(\S+))"""
_REPLACE = re.compile(
    rf"^(?:replace|change)\s+{_QUOTED}\s+(?:with|to|by)\s+{_QUOTED}\s+in\s+(\S+)$",
    re.I | re.S,
)
_WRITE = re.compile(r"^(?:write|create)\s+(\S+?)\s*(?::|with)\s*(.*)$", re.I | re.S)
_SEARCH = re.compile(rf"^(?:search|grep)\s+(?:for\s+)?{_QUOTED}(?:\s+in\s+(\S+))?$", re.I | re.S)


def _pick(match: re.Match[str], start: int) -> str:
    return next(g for g in match.groups()[start : start + 3] if g is not None)


def plan_for(prompt: str) -> list[Step]:
    """The plan for a user prompt (``help`` when nothing matches)."""
    text = prompt.strip()
    word, _, rest = text.partition(" ")
    verb = word.lower().rstrip(":")
    rest = rest.strip()
    if verb in {"tour", "demo"}:
        return _tour()
    if verb in {"read", "show", "open", "cat"} and rest:
        path = rest.strip("`'\"")
        return _single(f"Reading `{path}`.", "read_file", {"path": path}, f"Read `{path}`")
    if verb in {"list", "ls"}:
        path = rest.strip("`'\"") or "."
        return _single(f"Listing `{path}`.", "list_dir", {"path": path}, f"Listed `{path}`")
    if verb in {"find", "glob"} and rest:
        return _single(f"Looking for `{rest}`.", "glob", {"pattern": rest}, "Search done")
    if verb in {"run", "$", "exec"} and rest:
        return _single(f"Running `{rest}`.", "run_shell", {"command": rest}, "The command ran")
    if match := _SEARCH.match(text):
        args: dict[str, Any] = {"pattern": _pick(match, 0)}
        if match.group(4):
            args["path"] = match.group(4)
        return _single(f"Searching for `{args['pattern']}`.", "grep", args, "Search done")
    if match := _REPLACE.match(text):
        old, new, path = _pick(match, 0), _pick(match, 3), match.group(7)
        return [
            Step(
                text=f"I'll read `{path}` first (edits require a fresh read).",
                calls=[("read_file", {"path": path})],
            ),
            Step(
                text=f"Replacing `{old}` with `{new}`.",
                calls=[("edit_file", {"path": path, "old_string": old, "new_string": new})],
            ),
            _done(f"Edited `{path}`"),
        ]
    if match := _WRITE.match(text):
        path, content = match.group(1), match.group(2)
        return _single(
            f"Writing `{path}`.",
            "write_file",
            {"path": path, "content": content + "\n"},
            f"Wrote `{path}`",
        )
    greeting = "" if verb == "help" else f"I can't handle “{text[:60]}” offline.\n\n"
    return [Step(text=greeting + HELP)]
