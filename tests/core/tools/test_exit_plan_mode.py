"""Plan mode's hand-off through the real loop: ``exit_plan_mode`` is offered in plan mode only,
an approval switches the mode (and the next write runs, or asks, as that mode says) and seeds
the plan list, feedback keeps plan mode (the next write is still refused), nobody to ask
(headless, a subagent) never leaves plan mode, and outside plan mode the call is an error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.core.helpers import collect, of_type, write_script

from agent_tui.core.agent.agent import Agent
from agent_tui.core.conversation.replay import transcript_events
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.disclosure import Disclosure
from agent_tui.core.disclosure.marks import request_filters
from agent_tui.core.permissions import Mode
from agent_tui.core.permissions.setup import build_pipeline
from agent_tui.core.plan import steps_from_markdown
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.tools.plan_gate import PlanVerdict

PLAN = """\
# Split the parser

Context:
- `parse()` is 400 lines
- tests live in `tests/`

1. Move `tokenize()` to **lexer.py**
2. Import it from parser.py
   - keep the old name as an alias
3. Run the tests

```
1. not a step
```
"""


def _agent(cwd: Path, turns: list[dict[str, Any]], mode: str = "plan", **kw: Any) -> Agent:
    provider = ScriptProvider(write_script(cwd / f"script-{id(turns)}.json", turns))
    policy = build_pipeline(cwd, mode=mode).pipeline
    return Agent(provider, default_registry(), cwd, policy=policy, system="test", **kw)


def _propose(name: str = "exit_plan_mode", **extra: Any) -> list[dict[str, Any]]:
    write = {"path": "made.txt", "content": "x\n"}
    return [
        {"text": "Here is my plan.", "tool_calls": [
            {"id": "x", "name": name, "arguments": {"plan": PLAN, **extra}}]},
        {"tool_calls": [{"id": "w", "name": "write_file", "arguments": write}]},
        {"text": "done"},
    ]  # fmt: skip


def _reviewer(verdict: PlanVerdict, seen: list[str]) -> Any:
    async def review(plan: str) -> PlanVerdict:
        seen.append(plan)
        return verdict

    return review


def test_the_steps_are_the_outer_numbered_items() -> None:
    steps = [s.content for s in steps_from_markdown(PLAN)]
    assert steps == [
        "Move `tokenize()` to **lexer.py**",
        "Import it from parser.py",
        "Run the tests",
    ]
    assert all(s.status == "pending" for s in steps_from_markdown(PLAN))
    bullets = "Plan:\n- [ ] read it\n  - detail\n* [x] change it\n"
    assert [s.content for s in steps_from_markdown(bullets)] == ["read it", "change it"]
    assert steps_from_markdown("Just do it.") == []
    assert len(steps_from_markdown("\n".join(f"{n}. s{n}" for n in range(1, 80)))) == 50


def test_it_is_offered_in_plan_mode_only(tmp_path: Path) -> None:
    agent = _agent(tmp_path, [{"text": "hi"}], disclosure=None)
    disclosure = Disclosure(agent.registry)
    policy = agent.policy

    def offered() -> set[str]:
        return {t.name for t in disclosure.exposed(**request_filters(policy, agent.registry))}

    assert "exit_plan_mode" in offered()
    assert "write_file" not in offered()
    for mode in (Mode.DEFAULT, Mode.ACCEPT_EDITS, Mode.BYPASS):
        policy.set_mode(mode)
        assert "exit_plan_mode" not in offered()
        assert "write_file" in offered()


async def test_approve_into_accept_edits_switches_and_seeds_the_plan(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    agent = _agent(tmp_path, _propose(), session=store.new(tmp_path, "script"), sessions=store)
    seen: list[str] = []
    switched: list[Mode] = []

    def switch(mode: Mode) -> None:
        switched.append(mode)
        agent.policy.set_mode(mode)

    agent.executor.plan_review.attach(
        _reviewer(PlanVerdict(approved=True, mode="accept-edits"), seen), switch
    )
    events = await collect(agent, "split the parser")
    assert seen == [PLAN.strip()]
    assert switched == [Mode.ACCEPT_EDITS]
    assert agent.policy.mode is Mode.ACCEPT_EDITS
    result = next(e for e in of_type(events, "tool_result") if e.id == "x")
    assert "approved your plan" in result.content
    assert "accept-edits" in result.content
    assert "3 steps" in result.content
    plans = of_type(events, "plan")
    assert [(s.content, s.status) for s in plans[0].steps] == [
        ("Move `tokenize()` to **lexer.py**", "pending"),
        ("Import it from parser.py", "pending"),
        ("Run the tests", "pending"),
    ]
    # accept-edits: the write in the workspace ran without asking
    assert (tmp_path / "made.txt").read_text() == "x\n"
    assert agent.plan is not None
    assert agent.plan.steps == plans[0].steps
    # a resumed session shows the same plan, from the same record
    assert agent.session is not None
    resumed = _agent(tmp_path, [{"text": "hi"}], sessions=store)
    await resumed.resume(agent.session.path)
    assert resumed.plan == agent.plan
    replayed = [e for e in transcript_events(resumed.history()) if e.type == "plan"]
    assert [e.steps for e in replayed] == [plans[0].steps]
    await agent.close()
    await resumed.close()


async def test_approve_into_default_then_the_write_asks(tmp_path: Path) -> None:
    agent = _agent(tmp_path, _propose("ExitPlanMode", allowedPrompts=[{"prompt": "x"}]))
    agent.executor.plan_review.attach(_reviewer(PlanVerdict(approved=True, mode="default"), []))
    events = await collect(agent, "go")
    assert agent.policy.mode is Mode.DEFAULT  # the policy's own switch: no front end's given
    result = next(e for e in of_type(events, "tool_result") if e.id == "x")
    assert "now default" in result.content
    # default mode asks before the write; headless (no asker) that is a rejection
    rejected = of_type(events, "tool_rejected")
    assert [r.name for r in rejected] == ["write_file"]
    assert not (tmp_path / "made.txt").exists()


async def test_feedback_keeps_plan_mode_and_reaches_the_model(tmp_path: Path) -> None:
    agent = _agent(tmp_path, _propose())
    verdict = PlanVerdict(approved=False, feedback="  keep tokenize() where it is  ")
    agent.executor.plan_review.attach(_reviewer(verdict, []))
    events = await collect(agent, "go")
    assert agent.policy.mode is Mode.PLAN
    result = next(e for e in of_type(events, "tool_result") if e.id == "x")
    assert "keep tokenize() where it is" in result.content
    assert "stays plan" in result.content
    assert not of_type(events, "plan")
    rejected = of_type(events, "tool_rejected")
    assert rejected
    assert rejected[0].by == "plan"
    assert not (tmp_path / "made.txt").exists()


async def test_an_approval_to_bypass_is_no_approval(tmp_path: Path) -> None:
    agent = _agent(tmp_path, _propose())
    agent.executor.plan_review.attach(_reviewer(PlanVerdict(approved=True, mode="bypass"), []))
    await collect(agent, "go")
    assert agent.policy.mode is Mode.PLAN
    assert not (tmp_path / "made.txt").exists()


async def test_nobody_to_ask_never_leaves_plan_mode(tmp_path: Path) -> None:
    agent = _agent(tmp_path, _propose())  # no reviewer attached: a headless run
    events = await collect(agent, "go")
    assert agent.policy.mode is Mode.PLAN
    result = next(e for e in of_type(events, "tool_result") if e.id == "x")
    assert "nobody can approve" in result.content
    assert not of_type(events, "plan")
    assert not (tmp_path / "made.txt").exists()


async def test_outside_plan_mode_the_call_is_a_clear_error(tmp_path: Path) -> None:
    agent = _agent(tmp_path, [*_propose()[:1], {"text": "ok"}], mode="accept-edits")
    seen: list[str] = []
    agent.executor.plan_review.attach(_reviewer(PlanVerdict(approved=True, mode="default"), seen))
    events = await collect(agent, "go")
    errors = of_type(events, "tool_error")
    assert [e.code for e in errors] == ["not_in_plan_mode"]
    assert "only for plan mode" in errors[0].message
    assert seen == []  # nobody was asked
    assert agent.policy.mode is Mode.ACCEPT_EDITS


def test_headless_prints_the_plan_and_stays_in_plan_mode(tmp_path: Path) -> None:
    """``agent-tui -p --permission-mode plan``: the plan goes to stdout whole, the write that
    follows is refused by plan mode, and the run ends normally."""
    from tests.test_cli_headless import run_cli

    script = write_script(tmp_path / "script.json", _propose())
    done = run_cli("-p", "go", "--model", f"script:{script}", "--permission-mode", "plan",
                   cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "2. Import it from parser.py" in done.stdout
    assert "nobody can approve" in done.stderr
    assert "write_file rejected" in done.stderr
    assert not (tmp_path / "made.txt").exists()


def test_the_card_names_the_plan_by_its_first_line() -> None:
    from agent_tui.core.text.call_summary import summarize_input

    assert summarize_input({"plan": PLAN}) == "Split the parser"
    assert summarize_input({"plan": "\n  Do it: step one\n1. a"}) == "Do it: step one"


async def test_without_disclosure_it_is_in_the_request_in_plan_mode_only(tmp_path: Path) -> None:
    from agent_tui.core.disclosure.marks import plain_tools

    agent = _agent(tmp_path, [{"text": "hi"}])
    assert "exit_plan_mode" in plain_tools(agent.registry, agent.policy)
    agent.policy.set_mode(Mode.DEFAULT)
    assert "exit_plan_mode" not in plain_tools(agent.registry, agent.policy)
    assert "exit_plan_mode" not in plain_tools(agent.registry, None)


def test_it_does_not_count_toward_the_deferral_threshold(tmp_path: Path) -> None:
    """Ten tools in all with it, nine without: an MCP tool beside the built-ins stays direct
    (the threshold is 10), as before the tool existed."""
    from agent_tui.core.disclosure.state import counted

    registry = default_registry()
    assert counted(registry.tools()) == len(registry) - 1
