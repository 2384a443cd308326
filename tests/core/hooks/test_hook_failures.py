"""Red team, issue 37: a ``PreToolUse`` hook that cannot run blocks its call, with the reason.

"Cannot run": not found (127), not executable (126), a crash (another exit code), killed by a
signal, a timeout, an answer that cannot be read. Each case first runs the call bare to prove it
destroys the canary; with the failing guard the canary survives and the reason says which hook,
what happened, and which file to fix. Other events report a failure and go on (``PostToolUse``
cannot un-run its call) unless ``"onFailure": "block"`` says otherwise; ``"onFailure":
"ignore"`` lets a ``PreToolUse`` hook's call go on.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_tui.core.hooks import load_hooks
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.settings import user_settings_path
from agent_tui.core.state.trust import ProjectTrust
from tests.core.hooks.lab import CANARY, MODES, Lab, of_type, script, shell_call

RM = f"rm -f {CANARY}"


def _failing(lab: Lab) -> dict[str, tuple[str, str]]:
    """Hooks that cannot answer: command -> what the reason must say."""
    missing = lab.config / "guard.sh"  # never written
    unexecutable = lab.config / "plain.sh"
    unexecutable.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    crash = script(
        lab.config / "crash.py", "import json, sys\n1 / 0\n", shebang="#!/usr/bin/env python3"
    )
    killed = script(lab.config / "killed.sh", "cat >/dev/null; kill -9 $$\n")
    hung = script(lab.config / "hung.sh", "exec sleep 30\n")
    return {
        "missing": (str(missing), "could not run (exit 127: not found"),
        "not-executable": (str(unexecutable), "could not run (exit 126: not executable"),
        "crash": (str(crash), "failed (exit 1: ZeroDivisionError: division by zero"),
        "exit-1": ("cat >/dev/null; echo 'denied, I think' >&2; exit 1", "failed (exit 1: denied"),
        "killed": (str(killed), "SIGKILL)"),
        "timeout": (str(hung), "did not finish within 0.5 s"),
        "bad-json": ("echo '{\"hookSpecificOutput\": {'", "gave an answer that is not valid JSON"),
        "unknown-word": (
            'echo \'{"hookSpecificOutput": {"permissionDecision": "alow"}}\'',
            "gave an unknown \"permissionDecision\": 'alow'",
        ),
        "unknown-decision": ('echo \'{"decision": "blocked"}\'', 'gave an unknown "decision"'),
        "not-an-object": (
            'echo \'{"hookSpecificOutput": ["deny"]}\'',
            '"hookSpecificOutput" that is not an object',
        ),
        "cut-json": (
            'python3 -c \'print("{\\"reason\\": \\"" + "x" * 70000 + "\\"}")\'',
            "(it was cut: more than 64 KiB)",
        ),
    }


KINDS = [
    "missing",
    "not-executable",
    "crash",
    "exit-1",
    "killed",
    "timeout",
    "bad-json",
    "unknown-word",
    "unknown-decision",
    "not-an-object",
    "cut-json",
]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("mode", MODES)
async def test_a_pre_tool_use_hook_that_cannot_answer_blocks_its_call(
    lab: Lab, mode: str, kind: str
) -> None:
    command, said = _failing(lab)[kind]
    if kind == "missing":  # bare: without the hook, the call destroys the canary
        await lab.run(shell_call(RM), None, mode)
        assert not lab.canary.exists()
        lab.canary.write_text("alive\n", encoding="utf-8")
    hook = {"matcher": "run_shell", "command": command, "timeout": 0.5 if kind == "timeout" else 30}
    events = await lab.run(shell_call(RM), lab.hooks({"PreToolUse": [hook]}), mode)
    assert lab.canary.read_text() == "alive\n"
    [rejected] = of_type(events, "tool_rejected")
    assert rejected.by == "hook"
    assert said in rejected.reason
    assert "the call was blocked (nothing ran)" in rejected.reason
    assert "fix the hook or remove it from ~/.config/agent-tui/settings.json" in rejected.reason
    [shown] = of_type(events, "hook")
    assert shown.outcome == ("timeout" if kind == "timeout" else "error")
    assert shown.message in rejected.reason
    assert of_type(events, "turn_end")[0].reason == "completed"


async def test_the_reason_reads_well(lab: Lab) -> None:
    hooks = lab.hooks({"PreToolUse": [{"command": "~/.config/agent-tui/guard.sh"}]})
    events = await lab.run(shell_call(RM), hooks, "off")
    reason = of_type(events, "tool_rejected")[0].reason
    assert reason.startswith(
        "Rejected by hook: the PreToolUse hook `~/.config/agent-tui/guard.sh` could not run "
        "(exit 127: not found: "
    )
    assert reason.endswith(
        "the call was blocked (nothing ran); fix the hook or remove it from "
        "~/.config/agent-tui/settings.json"
    )


async def test_one_failing_guard_among_good_ones_still_blocks(lab: Lab) -> None:
    ok = script(lab.config / "ok.sh", "cat >/dev/null; exit 0\n")
    section = {"PreToolUse": [{"command": str(ok)}, {"command": str(lab.config / "gone.sh")}]}
    events = await lab.run(shell_call(RM), lab.hooks(section), "off")
    assert lab.canary.read_text() == "alive\n"
    assert [e.outcome for e in of_type(events, "hook")] == ["ok", "error"]


async def test_a_failing_guard_beats_an_allow_from_another_hook(lab: Lab) -> None:
    allow = {"hookSpecificOutput": {"permissionDecision": "allow"}}
    section = {
        "PreToolUse": [
            {"command": f"cat >/dev/null; echo '{json.dumps(allow)}'"},
            {"command": "cat >/dev/null; exit 3"},
        ]
    }
    events = await lab.run(shell_call(RM), lab.hooks(section), "off")
    assert lab.canary.read_text() == "alive\n"
    assert "failed (exit 3" in of_type(events, "tool_rejected")[0].reason


@pytest.mark.parametrize("mode", MODES)
async def test_on_failure_ignore_lets_the_call_go_on_and_says_so(lab: Lab, mode: str) -> None:
    hook = {"command": str(lab.config / "gone.sh"), "onFailure": "ignore"}
    events = await lab.run(shell_call(RM), lab.hooks({"PreToolUse": [hook]}), mode)
    assert not lab.canary.exists()  # the user chose so for this hook
    [shown] = of_type(events, "hook")
    assert shown.outcome == "error"
    assert 'it was ignored ("onFailure": "ignore")' in shown.message


async def test_a_post_tool_use_hook_that_fails_is_reported(lab: Lab) -> None:
    hooks = lab.hooks({"PostToolUse": [{"command": "cat >/dev/null; exit 127"}]})
    events = await lab.run(shell_call("echo ran > out.txt"), hooks, "off")
    assert (lab.work / "out.txt").read_text() == "ran\n"
    [shown] = of_type(events, "hook")
    assert shown.outcome == "error"
    assert "the call had already run and its result stands" in shown.message
    assert not of_type(events, "tool_rejected")


async def test_a_user_prompt_hook_blocks_only_when_told(lab: Lab) -> None:
    for on_failure, sent in ((None, True), ("block", False)):
        hook: dict[str, Any] = {"command": "cat >/dev/null; kill -9 $$"}
        if on_failure:
            hook["onFailure"] = on_failure
        agent = lab.agent([{"text": "ok"}], lab.hooks({"UserPromptSubmit": [hook]}), "off")
        try:
            events = [e async for e in agent.run("hello")]
        finally:
            await agent.close()
        provider = agent.provider
        assert isinstance(provider, ScriptProvider)
        assert bool(provider.requests) is sent, on_failure
        [shown] = of_type(events, "hook")
        expected = "the prompt was not sent" if not sent else "it was ignored"
        assert expected in shown.message


def test_on_failure_is_checked(lab: Lab) -> None:
    path = user_settings_path()
    section = {
        "PreToolUse": [{"command": "x", "onFailure": "maybe"}],
        "Stop": [{"command": "y", "onFailure": "block"}],
        "PreCompact": [{"command": "z", "onFailure": "block"}],
    }
    path.write_text(json.dumps({"hooks": section}), encoding="utf-8")
    hooks = load_hooks(lab.work, ProjectTrust(lab.work))
    assert [s.command for s in hooks.specs] == ["y", "z"]
    assert [s.failure_policy for s in hooks.specs] == ["ignore", "block"]
    assert any('onFailure must be "block" or "ignore"' in p for p in hooks.problems)
    assert any('"block" has no effect on Stop' in p for p in hooks.problems)


def test_every_failure_kind_is_tried(lab: Lab) -> None:
    assert sorted(KINDS) == sorted(_failing(lab))
