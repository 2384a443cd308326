"""What the demo model says and does for each kind of request: plans of steps.

A plan is a list of steps, one per model request: some text and the tool calls to make. A
step's text or calls may depend on the tool results so far (the demo reads them back). What it
says about the app itself — where a result is shown, who approves a call, which key interrupts
— comes from the ``Words`` of the front end it runs in (``WORDS``).
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agent_tui.core.providers.base import Frontend
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


@dataclass(frozen=True)
class Words:
    """What the demo says about the front end it runs in."""

    output: str
    """Where a call's full output is (after "Read `x` — ")."""
    error: str
    """Where a failed call's full error is (a sentence)."""
    group: str
    """What the parallel group is (after "they form one *parallel group* ")."""
    approval: str
    """That the next call (a write) must be approved, and what happens if it is not."""
    edit_approval: str
    shell_approval: str
    closing: str
    """The end of the tour: interrupting, where to go next (a list, its last line open)."""
    failures: str
    """Where to look when calls failed (after "did not succeed; ")."""
    help_note: str
    """Added to the help text."""
    refused: Callable[[str], str]
    """What to say when a call was refused, given the reason."""


def _tui_refused(reason: str) -> str:
    if reason.startswith("The user denied"):
        return "You denied that call, so I'll stop here. Nothing else was run."
    return "That call was refused — its card in the lane says why. I'll stop here; nothing "
    "else was run."


def _headless_refused(reason: str) -> str:
    return (
        "That call was refused — its `tool_rejected` event (the ⊘ line on stderr) says why "
        "and how to permit it. I'll stop here; nothing else was run."
    )


WORDS: dict[Frontend, Words] = {
    "tui": Words(
        output="the full output is on the card in the lane (Enter expands it)",
        error="The card in the lane has the full error, including what to try next.",
        group="in the lane",
        approval="waits for your approval. Allow it to continue the tour (deny it and I'll "
        "stop there).",
        edit_approval="It also needs your approval.",
        shell_approval="(commands ask first, too)",
        closing="- **Esc** interrupts a turn; the transcript stays consistent.\n"
        "- Type `help` to see what else I understand",
        failures="see the lane",
        help_note="",
        refused=_tui_refused,
    ),
    "headless": Words(
        output="this headless run shows a line per call on stderr; the full result is in "
        "the `tool_result` event (`--output-format json` or `stream-json`)",
        error="The full error, including what to try next, is in the `tool_error` or "
        "`tool_result` event (`--output-format json` or `stream-json`).",
        group="(one `tool_group` event)",
        approval="needs approval, and nobody can be asked in a headless run: it is refused "
        "unless an `--allow` rule or `--permission-mode accept-edits` permits it (the refusal "
        "names the rule), and then I stop there.",
        edit_approval="It needs approval too: here, an `--allow` rule or the permission mode.",
        shell_approval="(commands ask first too, so here only an `--allow` rule lets it run)",
        closing="- **Ctrl+C** interrupts a headless run (a second one kills it); the "
        "transcript stays consistent.\n- `agent-tui` without `-p` shows all of this in the "
        "TUI, with approval prompts and diffs.\n- `agent-tui -p help` shows what else I "
        "understand",
        failures="the ✗ lines on stderr (or the events of `--output-format stream-json`) say why",
        help_note="\n\nThis is a headless run (`-p`): nobody can be asked, so a call that asks "
        "is refused unless `--allow RULE` or `--permission-mode` permits it. `agent-tui` "
        "without `-p` opens the TUI.",
        refused=_headless_refused,
    ),
}


HELP = """I'm the **offline demo model** of agent-tui: no API key, no network, fully \
deterministic. I understand a few plain requests:

| ask | what I do |
|---|---|
| `tour` | a guided walk: parallel reads, an edit that needs approval, a large output |
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
    line = _error_message(last.content) if last.is_error else None
    if line is None:
        line = next((ln for ln in last.content.splitlines() if ln.strip()), "(empty)")
    return ("failed: " if last.is_error else "") + line.strip().rstrip(".")[:160]


def _error_message(content: str) -> str | None:
    """The ``error`` of a structured tool error (a JSON object, as the model reads it)."""
    try:
        payload = json.loads(content)
    except ValueError:
        return None
    error = payload.get("error") if isinstance(payload, dict) else None
    return error if isinstance(error, str) and error.strip() else None


def _done(what: str, words: Words) -> Step:
    def text(results: list[Message]) -> str:
        if results and results[-1].is_error:
            return f"That did not work ({_first_line(results)}). {words.error}"
        return f"{what} — {words.output}."

    return Step(text=text)


def _single(
    intro: str, name: str, arguments: dict[str, Any], outro: str, words: Words
) -> list[Step]:
    return [Step(text=intro, calls=[(name, arguments)]), _done(outro, words)]


def _found_markdown(results: list[Message]) -> str | None:
    for message in results:
        if message.name == "glob" and not message.is_error:
            for line in message.content.splitlines():
                if line.strip().lower().endswith(".md"):
                    return line.strip()
    return None


def _tour(words: Words) -> list[Step]:
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
            f"`{TOUR_FILE}` — {words.approval}"
        )

    log_cmd = (
        f'{PY} -c "for i in range(1, 4001): '
        "print(f'{i:5d} INFO compiled module_{i}.py in {i % 97} ms')\""
    )
    return [
        Step(
            text="# Welcome to agent-tui\n\nI'm the **offline demo model**: everything here "
            "is real (real files, real commands) except me. First, three **read-only** calls "
            f"that are safe to run together — they form one *parallel group* {words.group}.",
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
            f"diff. {words.edit_approval}",
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
            text=f"Running it with `run_shell` {words.shell_approval}:",
            calls=[("run_shell", {"command": f"{PY} {TOUR_FILE}"})],
        ),
        Step(
            text="Last, a command with a **large output** (4,000 lines). Nothing is lost: "
            "the full text is kept and the model reads an excerpt with a pointer to the rest.",
            calls=[("run_shell", {"command": log_cmd})],
        ),
        Step(
            text="That's the tour. What you saw: a parallel group, approvals, a diff, live "
            "output and a large result — every call with its state.\n\n"
            f"- `{TOUR_DIR}/` holds the file I wrote; delete it whenever you like.\n"
            f"{words.closing}, or set `AGENT_API_KEY` for a real model."
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


def plan_for(prompt: str, words: Words = WORDS["tui"]) -> list[Step]:
    """The plan for a user prompt (``help`` when nothing matches), worded for ``words``."""
    text = prompt.strip()
    word, _, rest = text.partition(" ")
    verb = word.lower().rstrip(":")
    rest = rest.strip()
    if verb in {"tour", "demo"}:
        return _tour(words)
    if verb in {"read", "show", "open", "cat"} and rest:
        path = rest.strip("`'\"")
        return _single(f"Reading `{path}`.", "read_file", {"path": path}, f"Read `{path}`", words)
    if verb in {"list", "ls"}:
        path = rest.strip("`'\"") or "."
        return _single(f"Listing `{path}`.", "list_dir", {"path": path}, f"Listed `{path}`", words)
    if verb in {"find", "glob"} and rest:
        return _single(f"Looking for `{rest}`.", "glob", {"pattern": rest}, "Search done", words)
    if verb in {"run", "$", "exec"} and rest:
        return _single(
            f"Running `{rest}`.", "run_shell", {"command": rest}, "The command ran", words
        )
    if match := _SEARCH.match(text):
        args: dict[str, Any] = {"pattern": _pick(match, 0)}
        if match.group(4):
            args["path"] = match.group(4)
        return _single(f"Searching for `{args['pattern']}`.", "grep", args, "Search done", words)
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
            _done(f"Edited `{path}`", words),
        ]
    if match := _WRITE.match(text):
        path, content = match.group(1), match.group(2)
        return _single(
            f"Writing `{path}`.",
            "write_file",
            {"path": path, "content": content + "\n"},
            f"Wrote `{path}`",
            words,
        )
    greeting = "" if verb == "help" else f"I can't handle “{text[:60]}” offline.\n\n"
    return [Step(text=greeting + HELP + words.help_note)]
