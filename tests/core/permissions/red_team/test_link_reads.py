"""Read-deny through links and hard links (issue 37 follow-ups, point 3).

A ``read_file`` deny rule that names a symbolic link (``secret-link``), or a path through a
linked folder (``private/**`` with ``private -> store``), matched nothing in the file tools:
they judged only where the path resolves. And a hard link to ``.env`` (shipped next to it in a
tarball) is the same file under a name no rule matches, for the file tools and the sandbox
alike. Each attack shows the secret bare (no rule, the tool or command run as it is), and
through the real executor (file tools, and shell commands with the sandbox off) or the real
sandbox (bubblewrap) the secret stays out of every output.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import tarfile
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.budget import SpillStore
from agent_tui.core.events import ToolErrorEvent, ToolRejected, ToolResult
from agent_tui.core.executor import ToolExecutor
from agent_tui.core.permissions import Mode, PermissionPipeline, Rule, RuleSet
from agent_tui.core.permissions.read_guard import RuleReadGuard
from agent_tui.core.sandbox import SandboxSettings, SessionSandbox, hard_links, walk
from agent_tui.core.sandbox.bubblewrap import Bubblewrap
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.builtin import default_registry, run_shell
from agent_tui.core.tools.file_state import FileStateCache
from agent_tui.core.transcript import ToolCall

SECRET = "LINKED-SECRET-41c9"
DENY = (
    "read_file(.env)",
    "read_file(secret-link)",
    "read_file(private/**)",
    "read_file(secrets/**)",
)
PROBLEM = Bubblewrap().problem()


def make_ws(base: Path, name: str) -> Path:
    """A workspace with secrets behind links: ``secret-link -> vault/token``, ``private ->
    store`` (``store/key``), ``alias -> private``, ``deep/a/b -> ../../private``, and hard
    links ``notes/copy.txt`` (to ``.env``, unpacked from a tarball as a repository might ship
    it) and ``docs/k.txt`` (to ``secrets/api.key``)."""
    ws = base / name
    ws.mkdir(parents=True)
    packed = base / f"{name}-shipped"
    (packed / "notes").mkdir(parents=True)
    (packed / ".env").write_text(f"TOKEN={SECRET}\n")
    os.link(packed / ".env", packed / "notes" / "copy.txt")
    with tarfile.open(base / f"{name}.tar", "w") as archive:  # a hard link member
        archive.add(packed / ".env", ".env")
        archive.add(packed / "notes" / "copy.txt", "notes/copy.txt")
    subprocess.run(["tar", "xf", str(base / f"{name}.tar")], cwd=ws, check=True)
    assert (ws / "notes" / "copy.txt").stat().st_nlink == 2
    for directory in ("vault", "store", "secrets", "docs", "deep/a", "plain"):
        (ws / directory).mkdir(parents=True)
    (ws / "vault" / "token").write_text(f"VAULT={SECRET}\n")
    (ws / "secret-link").symlink_to("vault/token")
    (ws / "store" / "key").write_text(f"KEY={SECRET}\n")
    (ws / "private").symlink_to("store")
    (ws / "alias").symlink_to("private")
    (ws / "deep" / "a" / "b").symlink_to("../../private")
    (ws / "secrets" / "api.key").write_text(f"API={SECRET}\n")
    os.link(ws / "secrets" / "api.key", ws / "docs" / "k.txt")
    (ws / "plain" / "a.txt").write_text("shared content\n")  # everyday hard links (pnpm…)
    os.link(ws / "plain" / "a.txt", ws / "plain" / "b.txt")
    return ws


def _rules(allow: tuple[str, ...] = ()) -> RuleSet:
    return RuleSet(
        allow=[Rule.parse(r) for r in allow], deny=[Rule.parse(r) for r in DENY]
    )  # fmt: skip


async def _through(ws: Path, policy: PermissionPipeline, tool: str, args: dict[str, Any]) -> str:
    executor = ToolExecutor(
        default_registry(),
        ws,
        policy,
        None,
        FileStateCache(),
        store=SpillStore(ws / ".agent-spill", ws),
    )
    call = ToolCall(id="t", name=tool, arguments=json.dumps(args))
    texts: list[str] = []
    async for event in executor.execute([call], [], asyncio.Event()):
        if isinstance(event, ToolResult):
            texts.append(event.content)
        elif isinstance(event, ToolRejected):
            texts.append(event.reason)
        elif isinstance(event, ToolErrorEvent):
            texts.append(event.message)
    return "\n".join(texts)


FILE_TOOL_ATTACKS: list[tuple[str, dict[str, Any]]] = [
    # the examples
    ("read_file", {"path": "secret-link"}),  # the rule names the link
    ("read_file", {"path": "vault/token"}),  # ... and the file it leads to
    ("read_file", {"path": "private/key"}),  # a path through a linked folder
    ("read_file", {"path": "store/key"}),  # ... and the real one
    ("grep", {"pattern": "SECRET", "path": "private"}),
    ("grep", {"pattern": "SECRET", "path": "."}),
    ("read_file", {"path": "notes/copy.txt"}),  # a hard link to .env
    ("grep", {"pattern": "SECRET", "path": "notes"}),
    # variants of our own
    ("read_file", {"path": "alias/key"}),  # a link to a link to the folder
    ("read_file", {"path": "deep/a/b/key"}),  # a relative link deeper down
    ("read_file", {"path": "docs/k.txt"}),  # a hard link into a denied directory
    ("grep", {"pattern": "SECRET", "path": "docs", "glob": "*.txt"}),
]


@pytest.mark.parametrize(("tool", "arguments"), FILE_TOOL_ATTACKS, ids=str)
@pytest.mark.parametrize("mode", [Mode.DEFAULT, Mode.BYPASS], ids=["default", "bypass"])
async def test_file_tools_withhold_what_links_lead_to(
    tmp_path: Path, tool: str, arguments: dict[str, Any], mode: Mode
) -> None:
    bare = make_ws(tmp_path, "bare")
    leaked = await _through(bare, PermissionPipeline(bare, RuleSet(), Mode.BYPASS), tool, arguments)
    assert SECRET in leaked, f"no secret bare: the case proves nothing: {leaked[-300:]}"
    ws = make_ws(tmp_path, "ws")
    out = await _through(ws, PermissionPipeline(ws, _rules(), mode), tool, arguments)
    assert SECRET not in out, out[-500:]


@pytest.mark.parametrize(
    ("path", "rule"),
    [
        ("secret-link", "read_file(secret-link)"),
        ("private/key", "read_file(private/**)"),
        ("alias/key", "read_file(private/**)"),
        ("deep/a/b/key", "read_file(private/**)"),
    ],
)
def test_the_pipeline_denies_by_every_name(tmp_path: Path, path: str, rule: str) -> None:
    """Deny rules match the path as written and each link on the way, not only the real one."""
    ws = make_ws(tmp_path, "ws")
    tool = default_registry().get("read_file")
    assert tool is not None
    decision = PermissionPipeline(ws, _rules(), Mode.BYPASS).judge(tool, {"path": path})
    assert decision.kind == "deny", decision
    assert rule in decision.reason


def test_an_allow_rule_does_not_follow_a_links_name(tmp_path: Path) -> None:
    """``write_file(public/**)`` must not allow a write through ``public -> ../outside``."""
    ws = make_ws(tmp_path, "ws")
    (tmp_path / "outside").mkdir()
    (ws / "public").symlink_to(tmp_path / "outside")
    rules = RuleSet(allow=[Rule.parse("write_file(public/**)")])
    tool = default_registry().get("write_file")
    assert tool is not None
    decision = PermissionPipeline(ws, rules, Mode.DEFAULT).judge(
        tool, {"path": "public/x", "content": "x"}
    )
    assert decision.kind == "ask", decision


# -- shell commands, sandbox off: the read check -------------------------------------------------

SHELL_ATTACKS = [
    "cat private/key",
    "cat vault/token",
    "cat notes/copy.txt",
    "grep -r SECRET notes",
    "cat alias/key",  # own variants
    "head -c 200 deep/a/b/key",
    "cat docs/k.txt",
]


@pytest.mark.parametrize("command", SHELL_ATTACKS)
async def test_shell_reads_through_links_ask(tmp_path: Path, command: str) -> None:
    bare = make_ws(tmp_path, "bare")
    done = await asyncio.to_thread(
        subprocess.run, ["bash", "-c", command], cwd=bare, capture_output=True, text=True
    )
    assert SECRET in done.stdout
    ws = make_ws(tmp_path, "ws")
    allow = ("run_shell(cat:*)", "run_shell(grep:*)", "run_shell(head:*)")
    policy = PermissionPipeline(ws, _rules(allow), Mode.DEFAULT)
    tool = default_registry().get("run_shell")
    assert tool is not None
    decision = policy.judge(tool, {"command": command})
    assert decision.kind == "ask", decision
    assert decision.every_mode
    out = await _through(ws, policy, "run_shell", {"command": command})
    assert SECRET not in out


# -- the sandbox masks hard links too ------------------------------------------------------------

SANDBOX_ATTACKS = [
    "cat notes/copy.txt",
    "grep -r SECRET notes docs",
    "cat docs/k.txt",  # own variants
    "cp notes/copy.txt /tmp/c && cat /tmp/c",
    "ln .env mine 2>/dev/null; cat mine",
]


@pytest.mark.skipif(PROBLEM is not None, reason=f"no sandbox here: {PROBLEM}")
@pytest.mark.parametrize("command", SANDBOX_ATTACKS)
async def test_the_sandbox_masks_a_hard_link_to_a_protected_file(
    tmp_path: Path, command: str
) -> None:
    bare = make_ws(tmp_path, "bare")
    done = await asyncio.to_thread(
        subprocess.run, ["bash", "-c", command], cwd=bare, capture_output=True, text=True
    )
    assert SECRET in done.stdout
    ws = make_ws(tmp_path, "ws")
    guard = RuleReadGuard(_rules(), ws)
    ctx = ToolContext(cwd=ws, sandbox=SessionSandbox(SandboxSettings(), ws), reads=guard)
    out = await run_shell.TOOL.call(run_shell.RunShellInput(command=command + "; echo done"), ctx)
    assert "done" in out.content  # it ran
    assert SECRET not in out.content


# -- everyday hard links stay readable --------------------------------------------------------


@pytest.mark.skipif(PROBLEM is not None, reason=f"no sandbox here: {PROBLEM}")
async def test_other_hard_links_stay_readable(tmp_path: Path) -> None:
    ws = make_ws(tmp_path, "ws")
    out = await _through(
        ws, PermissionPipeline(ws, _rules(), Mode.DEFAULT), "read_file", {"path": "plain/b.txt"}
    )
    assert "shared content" in out
    guard = RuleReadGuard(_rules(), ws)
    ctx = ToolContext(cwd=ws, sandbox=SessionSandbox(SandboxSettings(), ws), reads=guard)
    shell = await run_shell.TOOL.call(run_shell.RunShellInput(command="cat plain/b.txt"), ctx)
    assert "shared content" in shell.content


def test_too_many_protected_files_hide_every_hard_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the identities of the protected files cannot all be read, every file with other
    names is withheld (fail closed), and reported so."""
    monkeypatch.setattr(hard_links, "MAX_ENTRIES", 2)
    walk.forget()
    ws = make_ws(tmp_path, "ws")
    for index in range(3):
        (ws / "secrets" / f"more{index}").write_text("x\n")
    rules = RuleSet(deny=[Rule.parse("read_file(secrets)")])  # the directory, hidden whole
    guard = RuleReadGuard(rules, ws)
    hidden = guard.hidden().paths
    assert ws / "secrets" in hidden
    assert ws / "docs" / "k.txt" in hidden
    assert ws / "plain" / "b.txt" in hidden  # cannot be ruled out
    why = guard.withheld(ws / "plain" / "b.txt")
    assert why is not None
    assert "too many" in why


def test_a_named_link_message_says_why(tmp_path: Path) -> None:
    ws = make_ws(tmp_path, "ws")
    guard = RuleReadGuard(_rules(), ws)
    why = guard.withheld(ws / "store" / "key")
    assert why is not None
    assert "read_file(private/**)" in why
    assert "link" in why
    why = guard.withheld(ws / "notes" / "copy.txt")
    assert why is not None
    assert "hard link" in why
    assert "read_file(.env)" in why
