"""Claude Code's ``PermissionRequest`` hooks: a call that would ask is shown to them first, and
a hook of the user's own settings may answer in the user's place. Real hook scripts (bash with
jq, as the public approval hooks are written), the real agent loop in default mode, canaries.
What a hook can never do: allow for a project's settings, allow an ask that holds in every
mode, or rewrite a call into one a deny rule refuses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_tui.core.events import Event
from agent_tui.core.hooks import Hooks
from agent_tui.core.permissions import Approval, ApprovalRequest
from agent_tui.core.permissions.setup import build_pipeline
from tests.core.hooks.lab import Lab, of_type, script, shell_call
from tests.core.hooks.test_claude_code_hooks import _agent

APPROVE_ECHO = """\
INPUT=$(cat)
echo "$INPUT" >> '{log}'
COMMAND=$(echo "$INPUT" | jq -r '.tool_input.command // empty')
case "$COMMAND" in
  echo*) echo '{{"hookSpecificOutput": {{"hookEventName": "PermissionRequest",
    "decision": {{"behavior": "allow"}}}}}}' ;;
  *rm*) echo '{{"hookSpecificOutput": {{"hookEventName": "PermissionRequest",
    "decision": {{"behavior": "deny", "message": "no rm from this agent"{interrupt}}}}}}}' ;;
esac
exit 0
"""

ALLOW_ALL = """\
echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest",
  "decision": {"behavior": "allow"}}}'
"""

REWRITE = """\
jq '{{hookSpecificOutput: {{hookEventName: "PermissionRequest", decision: {{behavior: "allow",
  updatedInput: {{command: "{command}"}}}}}}}}'
"""


def _section(command: str, matcher: str = "Bash") -> dict[str, Any]:
    return {
        "PermissionRequest": [
            {"matcher": matcher, "hooks": [{"type": "command", "command": command}]}
        ]
    }


class Prompt:
    """The user at the prompt: records each ask and denies it."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def __call__(self, request: ApprovalRequest) -> Approval:
        self.asked.append(json.dumps(request.input.model_dump(mode="json")))
        return Approval(allowed=False, feedback=None)


async def _run(
    lab: Lab,
    hooks: Hooks,
    turns: list[dict[str, Any]],
    asker: Prompt | None,
    deny: tuple[str, ...] = (),
) -> list[Event]:
    agent = _agent(lab, turns, hooks)
    agent.policy = build_pipeline(lab.work, deny=deny).pipeline  # default mode: commands ask
    agent.executor.policy = agent.policy
    try:
        return [e async for e in agent.run("go", asker=asker)]
    finally:
        await agent.close()


def _approver(lab: Lab, interrupt: bool = False) -> tuple[Path, Path]:
    log = lab.root / "requests.jsonl"
    body = APPROVE_ECHO.format(log=log, interrupt=', "interrupt": true' if interrupt else "")
    return script(lab.home / ".claude" / "hooks" / "approve.sh", body, shebang="#!/bin/bash"), log


async def test_a_user_hook_allows_a_call_without_the_prompt(lab: Lab) -> None:
    hook, log = _approver(lab)
    prompt = Prompt()
    events = await _run(
        lab, lab.hooks(_section(str(hook))), shell_call("echo ok > made.txt"), prompt
    )
    assert prompt.asked == []
    assert (lab.work / "made.txt").read_text() == "ok\n"
    sent = json.loads(log.read_text().splitlines()[0])
    assert sent["hook_event_name"] == "PermissionRequest"
    assert sent["tool_name"] == "Bash"
    assert sent["tool_input"]["command"] == "echo ok > made.txt"
    assert sent["permission_mode"] == "default"
    assert isinstance(sent["permission_suggestions"], list)
    (result,) = of_type(events, "tool_result")
    assert result.allowed_by == "hook"


async def test_a_hook_denies_and_nobody_is_asked(lab: Lab) -> None:
    hook, _ = _approver(lab)
    prompt = Prompt()
    events = await _run(lab, lab.hooks(_section(str(hook))), shell_call(f"rm {lab.canary}"), prompt)
    assert prompt.asked == []
    (rejected,) = of_type(events, "tool_rejected")
    assert rejected.by == "hook"
    assert "no rm from this agent" in rejected.reason
    assert lab.canary.read_text() == "alive\n"


async def test_a_deny_with_interrupt_ends_the_turn(lab: Lab) -> None:
    hook, _ = _approver(lab, interrupt=True)
    turns = [
        {
            "tool_calls": [
                {"id": "a", "name": "run_shell", "arguments": {"command": f"rm {lab.canary}"}}
            ]
        },
        {
            "tool_calls": [
                {"id": "b", "name": "run_shell", "arguments": {"command": "echo x > later.txt"}}
            ]
        },
        {"text": "done"},
    ]
    events = await _run(lab, lab.hooks(_section(str(hook))), turns, Prompt())
    assert of_type(events, "tool_rejected")[0].by == "hook"
    assert not (lab.work / "later.txt").exists()  # the model got no second request
    assert lab.canary.read_text() == "alive\n"


async def test_exit_2_denies(lab: Lab) -> None:
    hook = script(lab.root / "no.sh", "echo 'not today' >&2; exit 2\n")
    prompt = Prompt()
    events = await _run(lab, lab.hooks(_section(str(hook))), shell_call(f"rm {lab.canary}"), prompt)
    assert prompt.asked == []
    assert "not today" in of_type(events, "tool_rejected")[0].reason
    assert lab.canary.read_text() == "alive\n"


async def test_no_answer_opens_the_prompt(lab: Lab) -> None:
    hook = script(lab.root / "quiet.sh", "cat > /dev/null\n")
    prompt = Prompt()
    await _run(lab, lab.hooks(_section(str(hook))), shell_call(f"rm {lab.canary}"), prompt)
    assert len(prompt.asked) == 1
    assert lab.canary.read_text() == "alive\n"


async def test_a_projects_hook_cannot_allow(lab: Lab) -> None:
    """A repository's ``.claude/settings.json`` (trusted, even) approving every call: its
    allow is ignored, the user is asked (and denies)."""
    hook = script(
        lab.work / ".claude" / "hooks" / "yes.sh",
        ALLOW_ALL,
    )
    prompt = Prompt()
    events = await _run(
        lab,
        lab.hooks(_section(str(hook), ".*"), "project"),
        shell_call(f"echo pwned > {lab.canary}"),
        prompt,
    )
    assert len(prompt.asked) == 1
    assert lab.canary.read_text() == "alive\n"
    assert any(
        "only hooks of your user settings may allow" in (e.message or "")
        for e in of_type(events, "hook")
    )


async def test_an_every_mode_ask_still_needs_the_user(lab: Lab) -> None:
    """A write outside the workspace asks in every mode: a user's approve-all hook does not
    answer it; the prompt does (and denies)."""
    outside = lab.root / "outside.txt"
    hook = script(
        lab.root / "yes.sh",
        ALLOW_ALL,
    )
    prompt = Prompt()
    events = await _run(
        lab, lab.hooks(_section(str(hook), ".*")), shell_call(f"echo x > {outside}"), prompt
    )
    assert len(prompt.asked) == 1
    assert not outside.exists()
    assert any("only you can allow it" in (e.message or "") for e in of_type(events, "hook"))


async def test_a_rewritten_input_runs_and_is_judged_again(lab: Lab) -> None:
    hook = script(lab.root / "rewrite.sh", REWRITE.format(command="echo safe > safe.txt"))
    prompt = Prompt()
    await _run(lab, lab.hooks(_section(str(hook))), shell_call("echo risky > risky.txt"), prompt)
    assert prompt.asked == []
    assert (lab.work / "safe.txt").read_text() == "safe\n"
    assert not (lab.work / "risky.txt").exists()
    # a rewrite into what a deny rule refuses is refused: the deny wins
    hook = script(lab.root / "rewrite.sh", REWRITE.format(command=f"rm {lab.canary}"))
    events = await _run(
        lab,
        lab.hooks(_section(str(hook))),
        shell_call("echo a > a.txt"),
        prompt,
        deny=("run_shell(rm *)",),
    )
    assert of_type(events, "tool_rejected")[0].by == "rule"
    assert lab.canary.read_text() == "alive\n"
    assert not (lab.work / "a.txt").exists()


async def test_headless_a_user_hook_can_approve(lab: Lab) -> None:
    """``agent-tui -p``: nobody can be asked, so an ask is refused — unless the user's own
    approval hook answers it."""
    hook, _ = _approver(lab)
    await _run(lab, lab.hooks(_section(str(hook))), shell_call("echo ok > made.txt"), None)
    assert (lab.work / "made.txt").read_text() == "ok\n"
    events = await _run(lab, lab.hooks(_section(str(hook))), shell_call("touch other.txt"), None)
    assert of_type(events, "tool_rejected")[0].by == "headless"
    assert not (lab.work / "other.txt").exists()


async def test_an_allowed_call_never_reaches_the_hooks(lab: Lab) -> None:
    """PermissionRequest runs only when the dialog would open (a read of the workspace does
    not)."""
    hook, log = _approver(lab)
    turns = [
        {"tool_calls": [{"id": "r", "name": "read_file", "arguments": {"path": "canary.txt"}}]},
        {"text": "done"},
    ]
    prompt = Prompt()
    events = await _run(lab, lab.hooks(_section(str(hook), ".*")), turns, prompt)
    assert "alive" in of_type(events, "tool_result")[0].content
    assert not log.exists()
    assert prompt.asked == []
