"""The ``task`` tool end to end with scripted models: the child's report reaches the parent, a
read-only child cannot write, its calls are forwarded typed with the parent call's id, two
tasks run at once, Esc cancels the child with the parent, named agents and broken files."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.conversation.replay import transcript_events
from agent_tui.core.conversation.session import session_usage
from agent_tui.core.events import (
    Event,
    ToolErrorEvent,
    ToolProgress,
    ToolRejected,
    ToolResult,
    ToolUse,
    TurnEnd,
)
from agent_tui.core.permissions import Approval, ApprovalRequest, SimplePolicy
from agent_tui.core.permissions.setup import build_pipeline
from agent_tui.core.providers.base import Completion, ModelRequest
from agent_tui.core.subagents import load_agents
from agent_tui.core.tools.base import Tool, ToolContext, ToolInput, ToolMeta, ToolOutput
from agent_tui.core.tools.builtin import default_registry
from tests.core.subagents.helpers import Routed, call, make_agent, reply, step

WAIT = 30.0


def task(call_id: str, prompt: str, agent: str | None = None) -> Any:
    extra = {"agent": agent} if agent else {}
    return call("task", call_id, description="look around", prompt=prompt, **extra)


async def run(agent: Any, prompt: str = "go", **kw: Any) -> list[Event]:
    async def collect() -> list[Event]:
        return [e async for e in agent.run(prompt, **kw)]

    return await asyncio.wait_for(collect(), WAIT)


def children(events: list[Event]) -> list[Event]:
    return [e for e in events if getattr(e, "parent_call_id", None)]


async def test_report_reaches_the_parent(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("the answer is 42\n")
    provider = Routed(
        [step(reply("Delegating.", task("t1", "find the answer"))), step(reply("It is 42."))],
        {
            "find the answer": [
                step(reply("", call("read_file", "c1", path="notes.txt"))),
                step(reply("REPORT: notes.txt line 1 says 42")),
            ]
        },
    )
    agent = make_agent(provider, tmp_path)
    events = await run(agent)
    assert isinstance(events[-1], TurnEnd)
    assert events[-1].reason == "completed"
    # the child: a fresh context (its prompt as its only message), read-only tools, no task
    child_requests = [r for who, r in provider.requests if who != "parent"]
    first = child_requests[0]
    assert [m.role for m in first.messages] == ["user"]
    assert "subagent" in first.system
    assert "general" in first.system
    assert "read_file" in first.tools
    assert "task" not in first.tools
    assert "write_file" not in first.tools
    assert "run_shell" not in first.tools
    # only its last message comes back, as the task's result, in the parent's next request
    last_parent = [r for who, r in provider.requests if who == "parent"][-1]
    tool_messages = [m for m in last_parent.messages if m.role == "tool"]
    assert [m.content for m in tool_messages] == ["REPORT: notes.txt line 1 says 42"]
    assert "the answer is 42" not in last_parent.messages[-1].content
    # the child's events are forwarded, typed with the parent call's id
    forwarded = children(events)
    uses = [e for e in forwarded if isinstance(e, ToolUse)]
    assert [(u.name, u.parent_call_id, u.agent) for u in uses] == [("read_file", "t1", "general")]
    assert any(isinstance(e, ToolResult) and e.id == "c1" for e in forwarded)
    result = next(e for e in events if isinstance(e, ToolResult) and e.id == "t1")
    assert result.parent_call_id is None
    assert result.subagent is not None
    assert result.subagent.agent == "general"
    assert result.subagent.requests == 2
    assert [(c.name, c.outcome) for c in result.subagent.calls] == [("read_file", "ok")]
    assert result.subagent.usage.input_tokens == 200  # two child requests of 100
    assert result.summary == "1 call · 220 tokens"
    # the session's tokens count the child's too, live and from the transcript
    assert agent.usage.input_tokens == 400
    assert session_usage(agent.messages) == agent.usage
    # resume parity: the transcript tells the same child calls again, before the result
    replayed = list(transcript_events(agent.messages))
    kinds = [(e.type, getattr(e, "id", None), getattr(e, "parent_call_id", None)) for e in replayed]
    assert ("tool_use", "c1", "t1") in kinds
    assert kinds.index(("tool_result", "c1", "t1")) < kinds.index(("tool_result", "t1", None))


async def test_a_read_only_child_cannot_write(tmp_path: Path) -> None:
    canary = tmp_path / "canary.txt"
    canary.write_text("untouched\n")
    provider = Routed(
        [step(reply("", task("t1", "overwrite it"))), step(reply("ok"))],
        {
            "overwrite it": [
                step(reply("", call("write_file", "w1", path="canary.txt", content="pwned"))),
                step(reply("could not write")),
            ]
        },
    )
    agent = make_agent(provider, tmp_path, policy=SimplePolicy(["*"]))  # even allow-all
    events = await run(agent)
    refused = [e for e in children(events) if isinstance(e, ToolErrorEvent)]
    assert [(e.id, e.code) for e in refused] == [("w1", "unknown_tool")]
    assert canary.read_text() == "untouched\n"


async def test_a_project_agent_with_write_tools_still_asks_and_deny_rules_win(
    tmp_path: Path,
) -> None:
    agents = tmp_path / ".agent-tui" / "agents"
    agents.mkdir(parents=True)
    (agents / "writer.md").write_text(
        "---\nname: writer\ndescription: Writes files\ntools: read_file, write_file, edit_file\n"
        "---\nYou write files.\n"
    )
    canary = tmp_path / "canary.txt"
    canary.write_text("untouched\n")
    provider = Routed(
        [step(reply("", task("t1", "write it", agent="writer"))), step(reply("ok"))],
        {
            "write it": [
                step(reply("", call("write_file", "w1", path="canary.txt", content="pwned"))),
                step(
                    reply(
                        "",
                        call("edit_file", "e1", path="canary.txt", old_string="u", new_string="x"),
                    )
                ),
                step(reply("done")),
            ]
        },
    )
    asked: list[ApprovalRequest] = []

    async def asker(request: ApprovalRequest) -> Approval:
        asked.append(request)
        return Approval(allowed=False)

    policy = build_pipeline(tmp_path, deny=["edit_file"], persist_always=False).pipeline
    agent = make_agent(provider, tmp_path, policy=policy)
    events = await run(agent, asker=asker)
    # write_file: asked, through the parent's asker, marked with the subagent's name
    assert [(r.call.name, r.agent) for r in asked] == [("write_file", "writer")]
    rejected = [e for e in children(events) if isinstance(e, ToolRejected)]
    assert [(e.id, e.by) for e in rejected] == [("w1", "user")]
    # edit_file: denied by the user's rule, so the child is never given it
    child = next(r for who, r in provider.requests if who == "write it")
    assert "edit_file" not in child.tools
    assert "write_file" in child.tools
    errors = [e for e in children(events) if isinstance(e, ToolErrorEvent)]
    assert [(e.id, e.code) for e in errors] == [("e1", "unknown_tool")]
    assert canary.read_text() == "untouched\n"
    result = next(e for e in events if isinstance(e, ToolResult) and e.id == "t1")
    assert "edit_file (denied by a permission rule)" in result.content


async def test_two_tasks_run_in_parallel(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / "b.txt").write_text("b\n")
    b_asked = asyncio.Event()

    async def a_waits_for_b(_: ModelRequest) -> Completion:
        # A's first request waits for B's: run one after the other, this never returns
        await asyncio.wait_for(b_asked.wait(), WAIT)
        return reply("", call("read_file", "ra", path="a.txt"))

    async def b_first(_: ModelRequest) -> Completion:
        b_asked.set()
        return reply("", call("read_file", "rb", path="b.txt"))

    provider = Routed(
        [step(reply("", task("ta", "do a"), task("tb", "do b"))), step(reply("both done"))],
        {"do a": [a_waits_for_b, step(reply("A done"))], "do b": [b_first, step(reply("B done"))]},
    )
    agent = make_agent(provider, tmp_path)
    events = await run(agent)
    assert any(e.type == "tool_group" and e.ids == ["ta", "tb"] for e in events)
    order = [
        (e.type, getattr(e, "id", "")) for e in events if e.type in ("tool_use", "tool_result")
    ]
    # both children's calls started before either task finished: they overlapped
    first_task_done = min(order.index(("tool_result", "ta")), order.index(("tool_result", "tb")))
    assert order.index(("tool_use", "ra")) < first_task_done
    assert order.index(("tool_use", "rb")) < first_task_done
    results = {
        e.id: e.content for e in events if isinstance(e, ToolResult) and e.id in ("ta", "tb")
    }
    assert results == {"ta": "A done", "tb": "B done"}


class _Block(ToolInput):
    pass


async def test_interrupt_cancels_the_child_mid_tool(tmp_path: Path) -> None:
    started = asyncio.Event()
    cancelled = asyncio.Event()

    async def block(_: _Block, ctx: ToolContext) -> ToolOutput:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return ToolOutput(content="never")

    registry = default_registry()
    registry.register(
        Tool(
            name="block",
            description="waits forever",
            input_model=_Block,
            call=block,
            meta=ToolMeta(read_only=True, concurrency_safe=True),
        )
    )
    provider = Routed(
        [step(reply("", task("t1", "wait"))), step(reply("unreached"))],
        {"wait": [step(reply("", call("block", "b1"))), step(reply("unreached"))]},
    )
    agent = make_agent(provider, tmp_path, registry=registry)
    events: list[Event] = []

    async def consume() -> None:
        async for event in agent.run("go"):
            events.append(event)
            if (
                isinstance(event, ToolProgress)
                and event.id == "b1"
                and event.parent_call_id == "t1"
            ):
                agent.interrupt()

    await asyncio.wait_for(consume(), WAIT)
    assert started.is_set()
    assert cancelled.is_set()
    end = events[-1]
    assert isinstance(end, TurnEnd)
    assert end.reason == "interrupted"
    ends = {e.id: e for e in events if isinstance(e, ToolErrorEvent)}
    assert ends["t1"].code == "interrupted"
    # nothing of the child keeps running
    left = [t for t in asyncio.all_tasks() if "tool " in t.get_name() and not t.done()]
    assert left == []
    assert [m.role for m in agent.messages][-1] == "tool"


async def test_named_agent_from_the_project(tmp_path: Path) -> None:
    agents = tmp_path / ".agent-tui" / "agents"
    agents.mkdir(parents=True)
    (agents / "finder.md").write_text(
        "---\nname: finder\ndescription: Finds files by name\ntools:\n  - glob\n  - Read\n---\n"
        "You find files. Answer with paths only.\n"
    )
    provider = Routed(
        [step(reply("", task("t1", "find md", agent="finder"))), step(reply("ok"))],
        {"find md": [step(reply("finder report"))]},
    )
    agent = make_agent(provider, tmp_path)
    tool = agent.registry.get("task")
    assert tool is not None
    assert "- finder: Finds files by name [glob, read_file]" in tool.description
    events = await run(agent)
    child = next(r for who, r in provider.requests if who == "find md")
    assert "You find files. Answer with paths only." in child.system
    assert sorted(child.tools.names()) == ["glob", "read_file"]
    result = next(e for e in events if isinstance(e, ToolResult) and e.id == "t1")
    assert result.content == "finder report"
    assert result.subagent is not None
    assert result.subagent.agent == "finder"


async def test_unknown_agent_is_a_clear_error(tmp_path: Path) -> None:
    provider = Routed([step(reply("", task("t1", "x", agent="nobody"))), step(reply("ok"))], {})
    events = await run(make_agent(provider, tmp_path))
    error = next(e for e in events if isinstance(e, ToolErrorEvent) and e.id == "t1")
    assert "no agent named 'nobody'" in error.message
    assert "general" in error.next_step


def test_broken_agent_files_are_reported_not_fatal(tmp_path: Path) -> None:
    project = tmp_path / ".claude" / "agents"
    project.mkdir(parents=True)
    (project / "ok.md").write_text("---\nname: ok\ndescription: fine\n---\nbody\n")
    (project / "nofront.md").write_text("just text\n")
    (project / "open.md").write_text("---\nname: open\n")
    (project / "badname.md").write_text("---\nname: bad name!\n---\n")
    (project / "binary.md").write_bytes(b"\xff\xfe\x00bad")
    user = tmp_path / "user" / "agents"
    user.mkdir(parents=True)
    (user / "mine.md").write_text("---\ndescription: user agent\ntools: [read_file, grep]\n---\n")
    catalog = load_agents(tmp_path, user_dir=tmp_path / "user")
    assert sorted(catalog.agents) == ["mine", "ok"]
    assert catalog.agents["mine"].tools == ("read_file", "grep")
    assert catalog.agents["mine"].scope == "user"
    assert catalog.agents["ok"].scope == "project"
    text = "\n".join(catalog.problems)
    for name in ("nofront.md", "open.md", "badname.md", "binary.md"):
        assert name in text
    assert "no front matter" in text
    assert "not closed" in text
    assert "not UTF-8" in text


@pytest.mark.parametrize("agent", [None, "writer"])
async def test_task_is_concurrency_safe_only_for_read_only_children(
    tmp_path: Path, agent: str | None
) -> None:
    agents = tmp_path / ".agent-tui" / "agents"
    agents.mkdir(parents=True)
    (agents / "writer.md").write_text("---\nname: writer\ntools: write_file\n---\n")
    built = make_agent(Routed([], {}), tmp_path)
    from agent_tui.core.executor import plan_calls

    plans = plan_calls(built.registry, [task("t1", "p", agent=agent)])
    assert plans[0].concurrency_safe is (agent is None)


async def test_what_a_writing_child_changes_is_in_the_parent_turns_checkpoint(
    tmp_path: Path,
) -> None:
    from agent_tui.core.conversation.session_store import SessionStore
    from agent_tui.core.settings import Settings

    work = tmp_path / "work"
    agents = work / ".agent-tui" / "agents"
    agents.mkdir(parents=True)
    (agents / "writer.md").write_text("---\nname: writer\ntools: write_file, run_shell\n---\n")
    (work / "a.txt").write_text("one\n")
    provider = Routed(
        [step(reply("", task("t1", "write", agent="writer"))), step(reply("ok"))],
        {
            "write": [
                step(reply("", call("write_file", "w1", path="a.txt", content="two\n"))),
                step(reply("", call("run_shell", "s1", command="echo made > b.txt"))),
                step(reply("wrote")),
            ]
        },
    )
    store = SessionStore(tmp_path / "data" / "sessions")
    from agent_tui.core.agent.agent import Agent

    agent = Agent(
        provider,
        default_registry(),
        work,
        policy=SimplePolicy(["write_file", "run_shell"]),  # the user allowed them
        session=store.new(work, "routed"),
        sessions=store,
        settings=Settings.model_validate({"sandbox": {"mode": "off"}}),
        system="test",
    )
    from agent_tui.core.subagents import install

    install(agent, load_agents(work, user_dir=tmp_path / "user"))
    await run(agent)
    await agent.settle()
    assert (work / "a.txt").read_text() == "two\n"
    assert (work / "b.txt").read_text() == "made\n"
    turns = agent.turns()
    assert len(turns) == 1
    assert sorted(turns[0].files) == ["a.txt", "b.txt"]  # b.txt: by its run_shell, kept too
    assert turns[0].outside == 0
    report = await agent.rewind(turns[0].id, "code")
    assert report.files is not None
    assert "a.txt" in report.files.restored
    assert report.files.deleted == ["b.txt"]
    assert (work / "a.txt").read_text() == "one\n"
    assert not (work / "b.txt").exists()


async def test_an_agent_model_spec_runs_the_child_on_that_model(tmp_path: Path) -> None:
    import json

    script = tmp_path / "child.json"
    script.write_text(json.dumps({"turns": [{"text": "from the other model"}]}))
    agents = tmp_path / ".agent-tui" / "agents"
    agents.mkdir(parents=True)
    mine = tmp_path / "user" / "agents"  # a script model: the user's own files only
    mine.mkdir(parents=True)
    (mine / "other.md").write_text(f"---\nname: other\nmodel: script:{script}\n---\n")
    (agents / "alias.md").write_text("---\nname: alias\nmodel: haiku\n---\n")
    catalog = load_agents(tmp_path, user_dir=tmp_path / "user")
    assert any(
        "alias.md" in p and "'haiku' is a Claude Code model name" in p for p in catalog.problems
    )
    provider = Routed([step(reply("", task("t1", "x", agent="other"))), step(reply("ok"))], {})
    events = await run(make_agent(provider, tmp_path, catalog=catalog))
    result = next(e for e in events if isinstance(e, ToolResult) and e.id == "t1")
    assert result.content == "from the other model"
    assert [who for who, _ in provider.requests] == ["parent", "parent"]


async def test_a_users_pre_tool_use_hook_blocks_a_childs_call_too(tmp_path: Path) -> None:
    """A subagent is no way around the user's hooks: the PreToolUse hook that blocks a read in
    the parent blocks the same read in the child (the hook script really runs)."""
    import json
    import stat

    from agent_tui.core.hooks import load_hooks
    from agent_tui.core.settings import user_settings_path
    from agent_tui.core.state.trust import ProjectTrust

    (tmp_path / "secret.txt").write_text("CANARY-7731\n")
    hook = tmp_path / "block.sh"
    hook.write_text("#!/bin/sh\ncat >> \"$0.seen\"; echo 'no reading secrets' >&2; exit 2\n")
    hook.chmod(hook.stat().st_mode | stat.S_IEXEC)
    settings = user_settings_path()
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "read_file", "command": str(hook)}]}})
    )
    provider = Routed(
        [step(reply("", task("t1", "read the secret"))), step(reply("ok"))],
        {
            "read the secret": [
                step(reply("", call("read_file", "r1", path="secret.txt"))),
                step(reply("could not read")),
            ]
        },
    )
    agent = make_agent(provider, tmp_path, policy=SimplePolicy(["*"]))
    agent.executor.hooks = load_hooks(tmp_path, ProjectTrust(tmp_path))
    events = await run(agent)
    blocked = [e for e in children(events) if isinstance(e, ToolRejected)]
    assert [(e.id, e.by) for e in blocked] == [("r1", "hook")]
    assert "no reading secrets" in blocked[0].reason
    seen = Path(str(hook) + ".seen").read_text()  # noqa: ASYNC240
    assert '"tool_name": "Read"' in seen  # Claude Code's name; the matcher is ours
    results = [e for e in events if isinstance(e, ToolResult)]
    assert all("CANARY-7731" not in str(e.model_dump()) for e in results)
