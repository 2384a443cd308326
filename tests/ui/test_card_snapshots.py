"""Snapshots of the lane's render states, one tiny app per state: use (queued / waiting for
approval), progress (shell tail, MCP progress bar, spinner), result (outcome, edit diff,
spilled), rejected (by you, by a rule), error, interrupted, and the group card."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agent_tui.core.calls import ResultFacts
from agent_tui.core.events import (
    Event,
    PermissionRequest,
    ToolErrorEvent,
    ToolGroup,
    ToolProgress,
    ToolRejected,
    ToolResult,
)
from agent_tui.core.text.summary import changed, diff_stats

from .card_app import CardApp, spill, use

SnapCompare = Callable[..., bool]
CARD = (64, 8)

EDIT_DIFF = "\n".join(
    [
        "--- a/src/app.py",
        "+++ b/src/app.py",
        "@@ -1,4 +1,5 @@",
        "-def greet(name):",
        "-    return 'hi ' + name",
        "+def greet(name: str) -> str:",
        '+    """Say hello."""',
        "+    return f'Hello, {name}!'",
        " ",
        " print(greet('world'))",
    ]
)

STATES: dict[str, list[Event]] = {
    "queued": [use("c", "list_dir", path="src")],
    "approval": [
        use("c", "run_shell", command="rm -rf build"),
        PermissionRequest(id="c", name="run_shell", reason="run_shell runs commands"),
    ],
    "progress_shell": [
        use("c", "run_shell", command="pytest -q"),
        ToolProgress(
            id="c",
            name="run_shell",
            elapsed=3.2,
            tail=["tests/test_a.py ....", "tests/test_b.py ..F", "tests/test_c.py ..."],
        ),
    ],
    "progress_mcp": [
        use("c", "mcp__indexer__reindex", scope="src"),
        ToolProgress(
            id="c",
            name="mcp__indexer__reindex",
            elapsed=12.5,
            progress=3,
            total=10,
            message="indexing src/core",
        ),
    ],
    "progress_spinner": [
        use("c", "grep", pattern="TODO", path="src"),
        ToolProgress(id="c", name="grep", elapsed=0.0, message="started"),
    ],
    "result": [
        use("c", "read_file", path="README.md"),
        ToolResult(
            id="c",
            name="read_file",
            content="1\t# agent-tui",
            elapsed=0.004,
            summary="lines 1–40 of 40",
            facts=ResultFacts(first=1, last=40, total_lines=40),
        ),
    ],
    "result_edit": [
        use("c", "edit_file", path="src/app.py", old_string="a", new_string="b"),
        ToolResult(
            id="c",
            name="edit_file",
            content=f"Edited src/app.py: 1 replacement.\n{EDIT_DIFF}",
            elapsed=0.02,
            summary=changed(*diff_stats(EDIT_DIFF)),  # as edit_file words it
            facts=ResultFacts(added=diff_stats(EDIT_DIFF)[0], removed=diff_stats(EDIT_DIFF)[1]),
            data={"path": "src/app.py", "diff": EDIT_DIFF, "replacements": 1},
        ),
    ],
    "result_spilled": [
        use("c", "run_shell", command="make test"),
        ToolResult(
            id="c",
            name="run_shell",
            content="…\n[full output: .agent-spill/run_shell-c.log]",
            elapsed=41.0,
            summary="exit 0",
            facts=ResultFacts(exit_code=0),
            spill=spill(".agent-spill/run_shell-c.log", 12_000),
        ),
    ],
    "result_sandboxed": [
        use("c", "run_shell", command="pytest -q"),
        ToolResult(
            id="c",
            name="run_shell",
            content="12 passed\n[exit code 0]",
            elapsed=1.3,
            summary="exit 0",
            allowed_by="the sandbox",
            facts=ResultFacts(exit_code=0, sandboxed=True, network=False),
        ),
    ],
    "result_blocked_by_the_sandbox": [
        use("c", "run_shell", command="touch /var/tmp/x"),
        ToolResult(
            id="c",
            name="run_shell",
            content="touch: cannot touch '/var/tmp/x': Read-only file system\n[exit code 1]",
            elapsed=0.02,
            is_error=True,
            summary="exit 1",
            facts=ResultFacts(
                exit_code=1,
                sandboxed=True,
                network=False,
                blocked="blocked by the sandbox: /var/tmp/x is outside what commands may write "
                '(the workspace, /tmp and sandbox.allow_write); allow it with "sandbox": '
                '{"allow_write": ["/var/tmp"]} in your user settings',
            ),
        ),
    ],
    "rejected_by_you": [
        use("c", "write_file", path="config.toml", content="x = 1\n"),
        ToolRejected(
            id="c",
            name="write_file",
            reason="The user denied this call.",
            by="user",
            feedback="write to notes.md instead",
        ),
    ],
    "rejected_by_rule": [
        use("c", "run_shell", command="rm -rf /tmp/x"),
        ToolRejected(
            id="c",
            name="run_shell",
            reason="denied by the rule run_shell(rm:*) (from .agent-tui/settings.json)",
            by="rule",
            rule="run_shell(rm:*)",
        ),
    ],
    "error": [
        use("c", "read_file", path="nope.md"),
        ToolErrorEvent(
            id="c",
            name="read_file",
            code="not_found",
            message="nope.md does not exist.",
            details=["similar: note.md, notes.md"],
            next_step="Check the path with list_dir.",
        ),
    ],
    "interrupted": [
        use("c", "run_shell", command="sleep 60"),
        ToolErrorEvent(
            id="c",
            name="run_shell",
            code="interrupted",
            message="The user interrupted this call before it finished.",
            elapsed=4.2,
        ),
    ],
}


@pytest.mark.parametrize("state", list(STATES))
def test_card_state(snap_compare: SnapCompare, state: str) -> None:
    assert snap_compare(CardApp(STATES[state]), terminal_size=CARD)


def test_edit_result_expanded_shows_the_coloured_diff(snap_compare: SnapCompare) -> None:
    app = CardApp(STATES["result_edit"], expand=("c",))
    assert snap_compare(app, terminal_size=(64, 20))


def test_error_expanded_shows_details_and_next_step(snap_compare: SnapCompare) -> None:
    app = CardApp(STATES["error"], expand=("c",))
    assert snap_compare(app, terminal_size=(64, 14))


GROUP: list[Event] = [
    use("r1", "read_file", path="src/app.py"),
    use("r2", "read_file", path="src/cli.py"),
    use("r3", "read_file", path="README.md"),
    use("r4", "read_file", path="docs/missing.md"),
    ToolGroup(ids=["r1", "r2", "r3", "r4"]),
    ToolResult(
        id="r1",
        name="read_file",
        content="1\tx",
        elapsed=0.004,
        summary="lines 1–120 of 120",
        facts=ResultFacts(first=1, last=120, total_lines=120),
    ),
    ToolResult(
        id="r2",
        name="read_file",
        content="1\tx",
        elapsed=0.006,
        summary="lines 1–88 of 88",
        facts=ResultFacts(first=1, last=88, total_lines=88),
    ),
    ToolProgress(id="r3", name="read_file", elapsed=0.3, message="started"),
    ToolErrorEvent(
        id="r4", name="read_file", code="not_found", message="docs/missing.md does not exist."
    ),
]


def test_group_card(snap_compare: SnapCompare) -> None:
    assert snap_compare(CardApp(GROUP), terminal_size=(64, 10))


def test_group_card_folded_still_names_its_members(snap_compare: SnapCompare) -> None:
    assert snap_compare(CardApp(GROUP, fold=("r1",)), terminal_size=(64, 5))
