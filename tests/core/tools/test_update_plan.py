"""update_plan through the real loop: a scripted model keeps a plan, the loop emits typed
``plan`` events, the agent keeps the current plan, and a resumed session replays the same."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.core.helpers import collect, of_type, write_script

from agent_tui.core.agent.agent import Agent
from agent_tui.core.conversation.replay import transcript_events
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.events import PlanEvent, parse_event
from agent_tui.core.permissions import SimplePolicy
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.tools.builtin import default_registry


def _plan(*steps: tuple[str, str], explanation: str = "") -> dict[str, Any]:
    args: dict[str, Any] = {"plan": [{"content": c, "status": s} for c, s in steps]}
    if explanation:
        args["explanation"] = explanation
    return args


TURNS: list[dict[str, Any]] = [
    {
        "text": "Planning.",
        "tool_calls": [
            {
                "id": "p1",
                "name": "update_plan",
                "arguments": _plan(
                    ("read", "in_progress"), ("edit", "pending"), ("test", "pending")
                ),
            }
        ],
    },
    {
        "text": "Two running is wrong.",
        "tool_calls": [
            {
                "id": "bad",
                "name": "update_plan",
                "arguments": _plan(("read", "in_progress"), ("edit", "in_progress")),
            }
        ],
    },
    {
        "text": "Progress.",
        "tool_calls": [
            {
                "id": "p2",
                "name": "todo_write",
                "arguments": _plan(
                    ("read", "completed"),
                    ("edit", "in_progress"),
                    ("test", "pending"),
                    explanation="read done",
                ),
            }
        ],
    },
    {"text": "Done."},
]


def _agent(cwd: Path, store: SessionStore) -> Agent:
    script = write_script(cwd / "script.json", TURNS)
    return Agent(
        ScriptProvider(script),
        default_registry(),
        cwd,
        policy=SimplePolicy(),
        session=store.new(cwd, "script"),
        sessions=store,
        system="test",
    )


async def test_a_scripted_model_keeps_a_plan_and_resume_replays_it(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    agent = _agent(tmp_path, store)
    events = await collect(agent, "go")
    assert not of_type(events, "permission_request")  # read-only: never asks
    plans: list[PlanEvent] = of_type(events, "plan")
    assert [p.id for p in plans] == ["p1", "p2"]
    assert [(s.content, s.status) for s in plans[1].steps] == [
        ("read", "completed"),
        ("edit", "in_progress"),
        ("test", "pending"),
    ]
    assert plans[1].explanation == "read done"
    # each plan event follows its call's result
    kinds = [(e.type, getattr(e, "id", None)) for e in events]
    assert kinds.index(("plan", "p1")) == kinds.index(("tool_result", "p1")) + 1
    # two steps in progress: a clear schema error, and no plan event
    error = next(e for e in of_type(events, "tool_error") if e.id == "bad")
    assert error.code == "invalid_arguments"
    assert any("at most one step can be in_progress" in d for d in error.details), error.details
    result = next(e for e in of_type(events, "tool_result") if e.id == "p2")
    assert result.summary == "1/3 done · edit"
    assert agent.plan is not None
    assert agent.plan.steps == plans[1].steps
    # the events round-trip through stream-json
    assert parse_event(plans[1].to_json()) == plans[1]

    assert agent.session is not None
    resumed = _agent(tmp_path, store)
    await resumed.resume(agent.session.path)
    assert resumed.plan == agent.plan
    replayed = [e for e in transcript_events(resumed.history()) if isinstance(e, PlanEvent)]
    assert replayed == plans
    await agent.close()
    await resumed.close()


async def test_a_new_session_has_no_plan(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    agent = _agent(tmp_path, store)
    await collect(agent, "go")
    assert agent.plan is not None
    await agent.new_session()
    assert agent.plan is None
    await agent.close()


def test_headless_stream_json_emits_the_plan(tmp_path: Path) -> None:
    from tests.test_cli_headless import run_cli

    script = write_script(tmp_path / "script.json", TURNS)
    done = run_cli("-p", "go", "--model", f"script:{script}", "--output-format", "stream-json",
                   cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    plans = [e for e in map(parse_event, done.stdout.splitlines()) if isinstance(e, PlanEvent)]
    assert [(p.id, p.done, len(p.steps)) for p in plans] == [("p1", 0, 3), ("p2", 1, 3)]
    text = run_cli("-p", "go", "--model", f"script:{script}", cwd=tmp_path)
    assert "☰ plan 1/3 · edit" in text.stderr
