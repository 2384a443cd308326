"""The red-team harness: each attack is judged, proven real, and proven harmless.

A ``Lab`` is a throw-away project with canaries: ``canary`` (attacks try to delete it),
``.env`` holding ``SECRET`` (attacks try to read it), protected files (``.git/config``,
``.mcp.json``, ``~/.bashrc`` in a private HOME), and helpers an attack may use (an ``ls``
script that creates ``pwned``, a ``BASH_ENV`` script, a git repository). For every case:

1. the pipeline's decision is asserted (an attack is never allowed);
2. the command is run bare with bash in a fresh lab, and its effect must show — so the case is a
   real attack, not a typo that would have done nothing anyway (skipped when a tool it needs,
   such as ``strace``, is not installed: the decision is still asserted);
3. the call goes through the real executor (headless: an ask is rejected) in another fresh lab,
   and the effect must not show: nothing ran.
"""

from __future__ import annotations

import asyncio
import atexit
import base64
import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tui.core.budget import SpillStore
from agent_tui.core.events import Event, ToolErrorEvent, ToolRejected, ToolResult
from agent_tui.core.executor import ToolExecutor
from agent_tui.core.permissions import Decision, Mode, PermissionPipeline, Rule, RuleSet
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.tools.file_state import FileStateCache
from agent_tui.core.tools.registry import ToolRegistry
from agent_tui.core.transcript import ToolCall

SECRET = "SECRET-7d1f3a-do-not-leak"
PROTECTED = (
    ".git/config",
    ".mcp.json",
    ".agent-tui/settings.json",
    "home/.bashrc",
    "home/.ssh/authorized_keys",
    "home/.gitconfig",
    ".git/hooks/pre-commit",
)

DENY = ("run_shell(rm:*)", "run_shell(curl:*)", "read_file(.env)", "write_file(secrets/**)")
ALLOW = (
    "run_shell(echo:*)",
    "run_shell(ls:*)",
    "run_shell(cat:*)",
    "run_shell(git status:*)",
    "run_shell(git log:*)",
    "run_shell(grep:*)",
    "run_shell(head:*)",
    "run_shell(printf:*)",
    "run_shell(true)",
    "run_shell(wc:*)",
    "run_shell(sort:*)",
    "run_shell(pwd)",
)


def rules(
    allow: Iterable[str] = ALLOW, deny: Iterable[str] = DENY, ask: Iterable[str] = ()
) -> RuleSet:
    return RuleSet(
        allow=[Rule.parse(r, source="red-team") for r in allow],
        ask=[Rule.parse(r, source="red-team") for r in ask],
        deny=[Rule.parse(r, source="red-team") for r in deny],
    )


@dataclass
class Lab:
    root: Path
    """The workspace."""
    home: Path

    @property
    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "HOME": str(self.home),
            "GIT_CONFIG_NOSYSTEM": "1",
            "EVIL": "touch pwned",
        }

    def digest(self) -> dict[str, str]:
        out = {}
        for rel in PROTECTED:
            path = self.root / rel if not rel.startswith("home/") else self.home / rel[5:]
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else "-"
        return out


def _build_lab(base: Path, name: str) -> Lab:
    """The lab, made from nothing (``make_lab`` copies one made so)."""
    root = base / name / "ws"
    home = base / name / "home"
    (root / "src").mkdir(parents=True)
    (root / "bin").mkdir()
    (home / ".ssh").mkdir(parents=True)
    (root / "canary").write_text("canary\n")
    (root / ".env").write_text(f"TOKEN={SECRET}\n")
    (root / "src" / "app.py").write_text("print('app')\n")
    (root / "src" / "notes.txt").write_text("innocent\n")
    (root / "envlink").symlink_to(root / ".env")
    (root / "config").mkdir()
    (root / "config" / ".env").write_text(f"NESTED={SECRET}\n")
    (root / ".mcp.json").write_text('{"mcpServers": {}}\n')
    (root / ".agent-tui").mkdir()
    (root / ".agent-tui" / "settings.json").write_text("{}\n")
    (home / ".bashrc").write_text("# rc\n")
    (home / ".ssh" / "authorized_keys").write_text("")
    (home / ".gitconfig").write_text("[user]\n\tname = lab\n\temail = lab@localhost\n")
    evil = f'#!/bin/sh\n{shutil.which("touch") or "touch"} "$PWD/pwned"\n'
    for script in (root / "ls", root / "bin" / "ls", root / "evil.sh"):
        script.write_text(evil)
        script.chmod(0o755)
    (root / "0").write_text(f"{shutil.which('touch') or 'touch'} pwned\n")  # BASH_ENV=0
    (root / "evil.js").write_text("require('fs').writeFileSync('pwned', '')\n")
    evilhome = root / "evilhome"
    evilhome.mkdir()
    (evilhome / ".gitconfig").write_text("[core]\n\tfsmonitor = touch pwned\n")
    (root / "evilcfg" / "git").mkdir(parents=True)
    (root / "evilcfg" / "git" / "config").write_text("[core]\n\tfsmonitor = touch pwned\n")
    env = {**os.environ, "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=env)
    subprocess.run(["git", "-C", str(root), "add", "src"], check=True, env=env)
    subprocess.run(["git", "-C", str(root), "commit", "-qm", "init"], check=True, env=env)
    (root / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\n")
    return Lab(root, home)


_TEMPLATE: dict[str, Path] = {}


def _template() -> Path:
    """One lab built per process (``_build_lab``: three git runs and some fifty writes), that
    ``make_lab`` copies for each use."""
    found = _TEMPLATE.get("lab")
    if found is None:
        where = Path(tempfile.mkdtemp(prefix="red-team-lab-"))
        atexit.register(shutil.rmtree, where, True)
        _build_lab(where, "lab")
        found = _TEMPLATE["lab"] = where / "lab"
    return found


def make_lab(base: Path, name: str) -> Lab:
    """A fresh lab in ``base/name`` (a new directory): a copy of the template lab, file for
    file (the same git repository, scripts, modes and canaries), with its one absolute link,
    ``envlink``, pointing at its own ``.env``. ``cp`` does it in a third of the CPU that
    building one takes, and the red-team suite makes thousands."""
    target = base / name
    if target.exists():
        raise FileExistsError(target)
    base.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["cp", "-R", "-P", "--preserve=mode", str(_template()), str(target)],
        check=True,
        stdin=subprocess.DEVNULL,
    )
    lab = Lab(target / "ws", target / "home")
    (lab.root / "envlink").unlink()
    (lab.root / "envlink").symlink_to(lab.root / ".env")
    return lab


# -- effects ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Effect:
    """What the attack does when it runs; ``seen`` says whether it happened."""

    kind: str  # "deleted", "created", "leaked", "changed"
    target: str = ""

    def seen(self, lab: Lab, before: dict[str, str], output: str) -> bool:
        if self.kind == "deleted":
            return not (lab.root / "canary").exists()
        if self.kind == "created":
            return any(
                p.exists()
                for p in (
                    lab.root / "pwned",
                    lab.home / "pwned",
                    lab.root / "src" / "pwned",
                    lab.root / ".git" / "pwned",
                )
            )
        if self.kind == "leaked":
            encoded = base64.b64encode(f"TOKEN={SECRET}\n".encode()).decode()
            return SECRET in output or encoded in output
        if self.kind == "changed":
            return lab.digest() != before
        raise AssertionError(self.kind)


DELETES = Effect("deleted")
CREATES = Effect("created")
LEAKS = Effect("leaked")
CHANGES = Effect("changed")


@dataclass(frozen=True)
class Attack:
    command: str
    effect: Effect
    needs: tuple[str, ...] = ()
    """Programs the bare run needs (skipped when missing)."""
    note: str = ""

    @property
    def id(self) -> str:
        text = self.command.replace("\n", "⏎")
        return text if len(text) <= 70 else text[:67] + "..."


def attacks(effect: Effect, *commands: str | tuple[str, tuple[str, ...]]) -> list[Attack]:
    out = []
    for item in commands:
        if isinstance(item, tuple):
            out.append(Attack(item[0], effect, item[1]))
        else:
            out.append(Attack(item, effect))
    return out


def run_bare(lab: Lab, command: str) -> str:
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=lab.root,
        env=lab.env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=180,  # a bare run may start pytest or git: generous for a loaded CI machine
    )
    return (done.stdout + done.stderr).decode("utf-8", "replace")


def missing(needs: Iterable[str]) -> list[str]:
    return [name for name in needs if shutil.which(name) is None]


# -- through the agent -------------------------------------------------------------------------


@dataclass
class Outcome:
    events: list[Event] = field(default_factory=list)

    @property
    def text(self) -> str:
        parts = []
        for event in self.events:
            if isinstance(event, ToolResult):
                parts.append(event.content)
            elif isinstance(event, ToolRejected):
                parts.append(event.reason)
            elif isinstance(event, ToolErrorEvent):
                parts.append(event.message)
        return "\n".join(parts)

    @property
    def ran(self) -> bool:
        return any(isinstance(event, ToolResult) for event in self.events)


@contextlib.contextmanager
def home_of(lab: Lab) -> Iterator[None]:
    """HOME is the lab's own while the pipeline judges (``~/.bashrc`` is the lab's)."""
    old = os.environ.get("HOME")
    os.environ["HOME"] = str(lab.home)
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("HOME", None)
        else:
            os.environ["HOME"] = old


def pipeline(lab: Lab, ruleset: RuleSet, mode: Mode) -> PermissionPipeline:
    return PermissionPipeline(lab.root, ruleset, mode)


async def through_agent(
    lab: Lab,
    policy: PermissionPipeline,
    tool: str,
    arguments: dict[str, Any],
    registry: ToolRegistry | None = None,
) -> Outcome:
    registry = registry or default_registry()
    executor = ToolExecutor(
        registry,
        lab.root,
        policy,
        None,
        FileStateCache(),
        store=SpillStore(lab.root / ".agent-spill", lab.root),
    )
    call = ToolCall(id="attack", name=tool, arguments=json.dumps(arguments))
    outcome = Outcome()
    async for event in executor.execute([call], [], asyncio.Event()):
        outcome.events.append(event)
    return outcome


def decide(policy: PermissionPipeline, tool: str, arguments: dict[str, Any]) -> Decision:
    registry = default_registry()
    found = registry.get(tool)
    assert found is not None
    return policy.judge(found, arguments)


async def prove(
    tmp_path: Path,
    attack: Attack,
    ruleset: RuleSet,
    mode: Mode,
    *,
    tool: str = "run_shell",
    arguments: dict[str, Any] | None = None,
) -> Decision:
    """Assert the attack is never allowed, is real when run bare, and does nothing through
    the executor. Returns the decision for further assertions."""
    arguments = arguments if arguments is not None else {"command": attack.command}
    judged_lab = make_lab(tmp_path, "judged")
    with home_of(judged_lab):
        decision = decide(pipeline(judged_lab, ruleset, mode), tool, arguments)
    assert decision.kind != "allow", f"ALLOWED: {attack.command!r}: {decision}"
    if tool == "run_shell" and not missing(attack.needs):
        bare = make_lab(tmp_path, "bare")
        before = bare.digest()
        output = run_bare(bare, attack.command)
        assert attack.effect.seen(bare, before, output), (
            f"the attack {attack.command!r} does nothing when run bare (so it proves "
            f"nothing): {output[-500:]}"
        )
    lab = make_lab(tmp_path, "agent")
    before = lab.digest()
    with home_of(lab):
        outcome = await through_agent(lab, pipeline(lab, ruleset, mode), tool, arguments)
    assert not outcome.ran, f"RAN: {attack.command!r}: {outcome.text[-300:]}"
    assert not attack.effect.seen(lab, before, outcome.text), (
        f"the attack took effect through the agent: {attack.command!r}"
    )
    return decision
