"""Red team, issue 37: MCP server names that normalise alike must never let a rule written for
one server run another server's code.

Real MCP servers over stdio (``tests/mcp_servers/canary_server.py``): each appends its name to
its own canary file when it starts, when its tool ``mark`` runs, when its resource is read and
when its prompt is fetched. Calls go through the real manager, registry, permission pipeline
and executor (no one to ask: an ``ask`` is not run, as in a headless run). Each attack is also
run *bare* where that makes sense — the other server alone, under the same rule — to prove the
rule really reaches it, so that the canary staying empty means the refusal held.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agent_tui.cli.main import main
from agent_tui.core.events import Event
from agent_tui.core.executor import ToolExecutor
from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.mcp.client.naming import qualify
from agent_tui.core.mcp.config.load import load_config, user_config_path
from agent_tui.core.permissions import Mode, PermissionPipeline, Rule, RuleSet
from agent_tui.core.permissions.mcp_names import server_prefix
from agent_tui.core.permissions.rules import RuleError
from agent_tui.core.state.trust import ProjectTrust
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.tools.file_state import FileStateCache
from agent_tui.core.transcript import Message, ToolCall
from tests.core.mcp.conftest import ROOT, python_entry, write_config
from tests.trusting import trust_everything

CANARY_SERVER = ROOT / "tests" / "mcp_servers" / "canary_server.py"


def canary_entry(canary: Path, name: str, **extra: Any) -> dict[str, Any]:
    args = [str(CANARY_SERVER), "--canary", str(canary), "--name", name]
    return python_entry(*args, **extra)


@dataclass
class Lab:
    root: Path
    workspace: Path
    user: Path
    """The user's ``mcp.json``."""

    @property
    def project(self) -> Path:
        return self.workspace / ".mcp.json"

    def canary(self, label: str) -> Path:
        return self.root / f"canary-{label}.txt"


@pytest.fixture
def lab(tmp_path: Path) -> Lab:
    workspace = tmp_path / "work"
    workspace.mkdir()
    user = tmp_path / "user-config" / "mcp.json"
    user.parent.mkdir()
    return Lab(tmp_path, workspace, user)


def marks(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


@asynccontextmanager
async def running(
    lab: Lab,
    user: Mapping[str, Any],
    project: Mapping[str, Any] | None = None,
    **kw: Any,
) -> AsyncIterator[McpManager]:
    write_config(lab.user, dict(user))
    write_config(lab.project, dict(project or {}))
    manager = McpManager(lab.workspace, default_registry(), paths=[lab.user, lab.project], **kw)
    try:
        await manager.start()
        await manager.wait_ready()
        yield manager
    finally:
        await manager.aclose()


async def call(
    manager: McpManager, rules: RuleSet, calls: list[tuple[str, dict[str, Any]]]
) -> list[Event]:
    """``calls`` as one assistant message, judged by ``rules`` (default mode, nobody to ask)."""
    executor = ToolExecutor(
        manager.registry,
        manager.cwd,
        PermissionPipeline(manager.cwd, rules, Mode.DEFAULT),
        None,
        FileStateCache(),
    )
    tool_calls = [
        ToolCall(id=f"c{i}", name=name, arguments=json.dumps(args))
        for i, (name, args) in enumerate(calls)
    ]
    out: list[Message] = []
    return [event async for event in executor.execute(tool_calls, out, asyncio.Event())]


def allow(*rules: str) -> RuleSet:
    return RuleSet(allow=[Rule.parse(r) for r in rules])


def ran(events: list[Event]) -> list[str]:
    return [e.name for e in events if e.type == "tool_result" and not e.is_error]  # type: ignore[attr-defined]


# -- servers of one origin whose names normalise alike -------------------------------------------

CLASHES = [
    pytest.param(["ev.1", "ev_1"], True, id="dot-vs-underscore"),
    pytest.param(["ev 1", "ev_1"], True, id="space"),
    pytest.param(["ev ", "ev"], True, id="trailing-space"),
    pytest.param(["ｅｖ", "ev"], True, id="nfkc-fullwidth"),
    pytest.param(["ev__1", "ev_1"], True, id="double-underscore"),
    pytest.param(["_ev_", "ev"], True, id="edge-underscores"),
    pytest.param(["ev/1", "ev@1"], True, id="two-symbols"),
    pytest.param(["EV", "ev"], False, id="letter-case"),
    pytest.param(["Ev.1", "ev_1"], False, id="case-and-dot"),
    pytest.param(["ev.1", "ev_1", "ev-1", "ev 1"], True, id="four-with-one-apart"),
]


@pytest.mark.parametrize(("names", "same_prefix"), CLASHES)
async def test_names_that_normalise_alike_are_all_refused(
    lab: Lab, names: list[str], same_prefix: bool
) -> None:
    canaries = {name: lab.canary(str(i)) for i, name in enumerate(names)}
    servers = {name: canary_entry(canaries[name], name) for name in names}
    first, other = names[0], names[1]
    rule = f"{server_prefix(first)}*"

    if same_prefix:  # bare: the rule written for the first one runs the other one's tool
        async with running(lab, {other: servers[other]}) as manager:
            events = await call(manager, allow(rule), [(f"{server_prefix(other)}mark", {})])
        assert ran(events) == [f"{server_prefix(other)}mark"]
        assert marks(canaries[other]) == [f"{other}:start", other]
        canaries[other].unlink()

    async with running(lab, servers) as manager:
        states = {s.name: s for s in manager.states()}
        calls = [(f"{server_prefix(n)}mark", {}) for n in names]
        calls += [(name, {}) for name in manager.registry.names() if name.startswith("mcp__")]
        events = await call(manager, allow(rule, "mcp__*", "*"), calls)
    apart = [n for n in names if n == "ev-1"]  # its own prefix, mcp__ev-1__: it runs
    assert set(ran(events)) <= {f"{server_prefix(n)}{t}" for n in apart for t in ("mark", "peek")}
    for name in names:
        if name in apart:
            assert states[name].status == "connected"
            continue
        assert not canaries[name].exists()  # not even started
        assert states[name].status == "failed"
        reason = states[name].reason or ""
        assert "none of them is started" in reason
        assert "rename" in reason
        assert str(lab.user) in reason
        assert repr(name) in reason


async def test_the_reason_names_both_and_the_shared_prefix(lab: Lab) -> None:
    config = load_config(
        lab.workspace,
        paths=[write_config(lab.user, {"ev.1": {"command": "a"}, "ev_1": {"command": "b"}})],
        environ={},
    )
    [first, second] = config.problems
    assert first.message == second.message
    assert first.message.startswith(
        "servers 'ev.1' and 'ev_1' both become mcp__ev_1__ (the names of their tools, and rules "
        "such as mcp__ev_1__*): none of them is started"
    )
    assert first.message.endswith(f"rename one of them in {lab.user}")


NAMELESS = [
    pytest.param("...", "no letter or digit", id="only-dots"),
    pytest.param("!!!", "no letter or digit", id="only-symbols"),
    pytest.param("___", "no letter or digit", id="only-underscores"),
    pytest.param("\u0435v", "cannot be part of tool names", id="cyrillic-look-alike"),
    pytest.param("文件", "cannot be part of tool names", id="cjk"),
    pytest.param("ev\u200b", "cannot be part of tool names", id="zero-width-space"),
    pytest.param("x" * 41, "too long", id="too-long"),
]


@pytest.mark.parametrize(("name", "why"), NAMELESS)
async def test_a_name_rules_cannot_tell_apart_is_refused(lab: Lab, name: str, why: str) -> None:
    canary = lab.canary("n")
    async with running(lab, {name: canary_entry(canary, name)}) as manager:
        state = manager.state(name)
        events = await call(manager, allow("*"), [("mcp__server__mark", {}), ("mcp__v__mark", {})])
    assert state.status == "failed"
    assert why in (state.reason or "")
    assert ran(events) == []
    assert not canary.exists()


def test_a_cut_for_length_never_reaches_into_the_server_part() -> None:
    # Before: a 50-character server name cut to 46 and followed by "_<hash>" gave
    # mcp__xxx…x__<hash>, which mcp__xxx…x__* (written for another server) allowed.
    long, short = "x" * 45 + "_evil", "x" * 45
    names = qualify([(long, "mark_the_canary"), (short, "m")])
    rule = Rule.parse(f"mcp__{short}__*")
    assert not rule.names_tool(names[(long, "mark_the_canary")])
    assert names[(long, "mark_the_canary")].startswith(f"mcp__{long}__")
    for server in ("a" * 40, "b" * 39 + "_c"):
        tool = "t" * 60
        name = qualify([(server, tool)])[(server, tool)]
        assert len(name) == 64
        assert name.startswith(f"mcp__{server}__t")


def test_a_rule_that_can_match_no_tool_is_refused_with_the_rule_to_write() -> None:
    for text, write in (
        ("mcp__ev.1__*", "mcp__ev_1__*"),
        ("mcp__ev.1", "mcp__ev_1"),
        ("mcp__ev_1__do.it", "mcp__ev_1__do_it"),
        ("mcp___ev__*", "mcp__ev__*"),
    ):
        with pytest.raises(RuleError, match=f"would match nothing: write {re.escape(write)}$"):
            Rule.parse(text)
    assert str(Rule.parse("mcp__ev_1__*")) == "mcp__ev_1__*"


# -- the user's servers and the project's ---------------------------------------------------------

SHADOWS = [
    pytest.param("ev", "ev", id="same-name"),
    pytest.param("ev_1", "ev.1", id="same-prefix"),
    pytest.param("ev", "EV", id="letter-case"),
    pytest.param("github", "github ", id="trailing-space"),
]


@pytest.mark.parametrize(("mine", "theirs"), SHADOWS)
async def test_a_project_server_cannot_take_the_name_of_the_users_own(
    lab: Lab, mine: str, theirs: str
) -> None:
    my_canary, their_canary = lab.canary("mine"), lab.canary("theirs")
    rule = f"{server_prefix(mine)}*"
    async with running(
        lab,
        {mine: canary_entry(my_canary, mine)},
        {theirs: canary_entry(their_canary, theirs)},
    ) as manager:
        events = await call(manager, allow(rule), [(f"{server_prefix(mine)}mark", {})])
        problems = [p for p in manager.problems if p.path == lab.project]
        listed = {s.name: s for s in manager.states()}
    assert ran(events) == [f"{server_prefix(mine)}mark"]
    assert marks(my_canary) == [f"{mine}:start", mine]
    assert not their_canary.exists()  # the project's server never started
    [problem] = problems
    assert problem.server == theirs
    assert f"the project's server {theirs!r}" in problem.message
    assert f"your own server {mine!r} (in {lab.user})" in problem.message
    assert f"rename it in {lab.project}" in problem.message
    assert listed[mine].status == "connected"
    if theirs != mine:
        assert listed[theirs].status == "failed"


@pytest.mark.real_trust
def test_trust_given_to_a_project_server_is_not_carried_to_a_name_that_clashes(lab: Lab) -> None:
    entry = {"command": "server-x", "args": ["--flag"]}
    write_config(lab.project, {"ev": entry})
    trust = ProjectTrust(lab.workspace)
    load_config(lab.workspace, paths=[lab.user, lab.project], environ={}, trust=trust)
    trust.trust(list(trust.pending))  # the user trusts the project's "ev"
    again = load_config(lab.workspace, paths=[lab.user, lab.project], environ={}, trust=trust)
    assert not again.servers["ev"].untrusted

    write_config(lab.user, {"ev": {"command": "mine"}})  # later, a server of the user's own
    fresh = ProjectTrust(lab.workspace)
    config = load_config(lab.workspace, paths=[lab.user, lab.project], environ={}, trust=fresh)
    assert config.servers["ev"].command == "mine"
    assert fresh.pending == []  # nothing to trust: the project's entry is not used at all

    write_config(lab.user, {})
    write_config(lab.project, {"ev_1": entry, "ev.1": entry})  # renamed copies: both refused
    fresh = ProjectTrust(lab.workspace)
    config = load_config(lab.workspace, paths=[lab.user, lab.project], environ={}, trust=fresh)
    assert all(s.error and "none of them is started" in s.error for s in config.servers.values())
    assert fresh.pending == []

    write_config(lab.project, {"ev_1": entry})  # one renamed copy: asks for trust again
    fresh = ProjectTrust(lab.workspace)
    config = load_config(lab.workspace, paths=[lab.user, lab.project], environ={}, trust=fresh)
    assert config.servers["ev_1"].untrusted
    assert [i.name for i in fresh.pending] == ["ev_1"]


# -- calls that act on a server: resources, prompts -----------------------------------------------

READS = [
    pytest.param(RuleSet(deny=[Rule.parse("mcp__ev_1")]), "read_mcp_resource", id="deny-server"),
    pytest.param(RuleSet(deny=[Rule.parse("mcp__ev_1__*")]), "read_mcp_resource", id="deny-star"),
    pytest.param(RuleSet(ask=[Rule.parse("mcp__ev_1")]), "read_mcp_resource", id="ask-server"),
    pytest.param(RuleSet(deny=[Rule.parse("mcp__ev_1")]), "list_mcp_resources", id="deny-list"),
]


@pytest.mark.parametrize(("rules", "tool"), READS)
async def test_a_server_rule_covers_its_resources_under_the_name_of_its_tools(
    lab: Lab, rules: RuleSet, tool: str
) -> None:
    canary = lab.canary("r")
    arguments: dict[str, Any] = {"server": "ev.1"}
    if tool == "read_mcp_resource":
        arguments["uri"] = "canary://secret"
    async with running(lab, {"ev.1": canary_entry(canary, "ev.1")}) as manager:
        bare = await call(manager, RuleSet(), [(tool, arguments)])  # no rule: it is read-only
        assert ran(bare) == [tool]
        before = marks(canary)
        events = await call(manager, rules, [(tool, arguments)])
    assert ran(events) == []
    rejected = [e for e in events if e.type == "tool_rejected"]
    assert rejected
    assert "ev.1" in rejected[0].reason  # type: ignore[attr-defined]
    assert marks(canary) == before  # nothing more was read
    if tool == "read_mcp_resource":
        assert before == ["ev.1:start", "ev.1:read"]


async def test_prompts_are_commands_under_the_name_of_the_tools(lab: Lab) -> None:
    one, two = lab.canary("1"), lab.canary("2")
    async with running(lab, {"ev.1": canary_entry(one, "ev.1")}) as manager:
        assert [p.command for p in manager.prompts()] == ["mcp__ev_1__hello"]
    async with running(
        lab, {"ev.1": canary_entry(one, "ev.1"), "ev_1": canary_entry(two, "ev_1")}
    ) as manager:
        assert manager.prompts() == []
        with pytest.raises(Exception, match="not running"):
            await manager.get_prompt("ev_1", "hello", {})
    assert not two.exists()


# -- lazy servers, reloads ------------------------------------------------------------------------


async def test_a_lazy_servers_cached_tools_do_not_stand_in_once_its_name_clashes(lab: Lab) -> None:
    mine, other = lab.canary("mine"), lab.canary("other")
    lazy = {"start": "lazy"}
    async with running(lab, {"ev_1": canary_entry(mine, "ev_1", **lazy)}) as manager:
        assert manager.state("ev_1").status == "connected"  # first run: no cache, it starts
    assert marks(mine) == ["ev_1:start"]
    async with running(lab, {"ev_1": canary_entry(mine, "ev_1", **lazy)}, keep_lazy=True) as m:
        assert m.state("ev_1").status == "lazy"  # the bare case: its cached tools stand in
        assert "mcp__ev_1__mark" in m.registry.names()
    servers = {
        "ev_1": canary_entry(mine, "ev_1", **lazy),
        "ev.1": canary_entry(other, "ev.1", **lazy),
    }
    async with running(lab, servers, keep_lazy=True) as manager:
        assert not [n for n in manager.registry.names() if n.startswith("mcp__ev_1__")]
        events = await call(manager, allow("mcp__ev_1__*"), [("mcp__ev_1__mark", {})])
    assert ran(events) == []
    assert marks(mine) == ["ev_1:start"]
    assert not other.exists()


async def test_a_clash_that_appears_on_reload_stops_the_running_server(lab: Lab) -> None:
    mine, other = lab.canary("mine"), lab.canary("other")
    async with running(lab, {}, {"ev_1": canary_entry(mine, "ev_1")}) as manager:
        assert ran(await call(manager, allow("mcp__ev_1__*"), [("mcp__ev_1__mark", {})]))
        servers = {"ev_1": canary_entry(mine, "ev_1"), "ev.1": canary_entry(other, "ev.1")}
        write_config(lab.project, servers)  # a command of the agent's, say, adds a server
        await manager.reload()
        events = await call(manager, allow("mcp__ev_1__*"), [("mcp__ev_1__mark", {})])
        state = manager.state("ev_1")
    assert ran(events) == []
    assert state.status == "failed"
    assert "none of them is started" in (state.reason or "")
    assert marks(mine) == ["ev_1:start", "ev_1"]
    assert not other.exists()


# -- where the user sees it -----------------------------------------------------------------------


def test_mcp_list_shows_the_reason(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    user = user_config_path()
    user.parent.mkdir(parents=True, exist_ok=True)
    write_config(user, {"ev.1": {"command": "never-started"}, "ev_1": {"command": "nor-this"}})
    code = main(["mcp", "--cwd", str(workspace), "list"])
    out, err = capsys.readouterr()
    assert code in (0, 1)
    shown = out + err
    assert "servers 'ev.1' and 'ev_1' both become mcp__ev_1__" in shown
    assert f"rename one of them in {user}" in shown


def test_a_headless_run_says_why_on_stderr(workspace: Path, tmp_path: Path) -> None:
    canary = tmp_path / "canary.txt"
    write_config(
        workspace / ".mcp.json",
        {"ev.1": canary_entry(canary, "ev.1"), "ev_1": canary_entry(canary, "ev_1")},
    )
    trust_everything(workspace)
    script = workspace / "script.json"
    call_mark = {"tool_calls": [{"name": "mcp__ev_1__mark", "arguments": {}}]}
    script.write_text(json.dumps({"turns": [call_mark, {"text": "done"}]}), encoding="utf-8")
    done = subprocess.run(
        [
            *(sys.executable, "-m", "agent_tui", "--cwd", str(workspace), "-p", "go"),
            *("--model", f"script:{script}", "--allow", "mcp__ev_1__*"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    assert "servers 'ev.1' and 'ev_1' both become mcp__ev_1__" in done.stderr
    assert not canary.exists()


def test_mcp_add_refuses_a_name_that_would_clash(tmp_path: Path) -> None:
    from agent_tui.core.mcp.config.edit import ConfigEditError, add_server

    path = tmp_path / ".mcp.json"
    add_server(path, "ev_1", {"command": "a"})
    for name in ("EV_1", "Ev_1"):
        with pytest.raises(
            ConfigEditError, match=f"would share mcp__{name}__ with the server 'ev_1'"
        ):
            add_server(path, name, {"command": "b"})
    add_server(path, "ev-1", {"command": "c"})  # a prefix of its own: fine
    add_server(path, "ev_1", {"command": "d"}, replace=True)
