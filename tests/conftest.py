"""Shared test setup: every test gets private data/config dirs and no real model keys."""

from __future__ import annotations

import contextlib
import gc
import itertools
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

PYCACHE = Path(__file__).resolve().parents[1] / ".test-cache" / "pycache"
"""Compiled Python of this checkout, for the test processes and the programs they start."""

if os.environ.get("PYTHONDONTWRITEBYTECODE") and not os.environ.get("PYTHONPYCACHEPREFIX"):
    # The test processes too (the controller, each xdist worker) keep what they compile there:
    # every agent_tui module and every test module as pytest rewrites its asserts, which each
    # worker otherwise compiled anew in every run (~10 s of CPU apiece, half of collecting).
    sys.dont_write_bytecode = False
    sys.pycache_prefix = str(PYCACHE)


YOUNG_THRESHOLD = 7_000
"""Allocations of tracked objects between two young collections in the test processes (the
interpreter's default is 700). A worker's heap holds its ~6,000 collected tests and the
garbage of the apps before: every tenth middle collection walked all of it (a third of a
second each under load) — a fifth of a UI test file's time went to the collector
(``gc.callbacks``, tests/ui/test_app.py: 7.9 s of 36.8 s; 2.0 s of 27.3 s at this threshold,
the file 26% faster). Ten times fewer young collections make ten times fewer full ones; what
the tests prove does not change: the tests of memory and of the heap's tuning collect
explicitly (``gc.collect``) before they look, and ``heap.quiet``/``release`` keep and restore
whatever threshold they find. The programs the tests start keep the default."""

_young, _middle, _old = gc.get_threshold()
gc.set_threshold(max(_young, YOUNG_THRESHOLD), _middle, _old)


@pytest.fixture(scope="session", autouse=True)
def _share_bytecode() -> Iterator[None]:
    """Compile agent_tui once per checkout, not once per process the tests start.

    The suite starts hundreds of Python programs (the CLI, MCP servers, conformance clients).
    Where ``PYTHONDONTWRITEBYTECODE`` is set (so no ``__pycache__`` lands in the tree), each
    of them compiled every agent_tui module it imported from source, a quarter of a second of
    CPU apiece. They now write compiled files under ``.test-cache/pycache`` (ignored by git,
    outside the sources) and read them back; the first few compile the rest too (a prefix is
    read instead of every ``__pycache__``). The test processes themselves use it from the start
    (set when this file is loaded, before any test module is imported). A
    ``PYTHONPYCACHEPREFIX`` already set is kept."""
    if not os.environ.get("PYTHONDONTWRITEBYTECODE") or os.environ.get("PYTHONPYCACHEPREFIX"):
        yield
        return
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("PYTHONDONTWRITEBYTECODE")
        patch.setenv("PYTHONPYCACHEPREFIX", str(PYCACHE))
        yield


_MODEL_ENV = (
    "AGENT_API_KEY",
    "AGENT_BASE_URL",
    "AGENT_MODEL",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
)


_TEMP_NUMBERS: dict[str, Iterator[int]] = {}


def _fresh_dir(factory: pytest.TempPathFactory, name: str) -> Path:
    """A new directory ``NAME<n>`` in the session's base temporary directory (per xdist
    worker), as pytest makes them, but numbered by a counter: pytest finds the next number by
    listing every entry of that directory, and over a worker's ~6,000 tests (two directories
    each) the listing made the suite quadratic, minutes of CPU in all."""
    base = factory.getbasetemp()
    numbers = _TEMP_NUMBERS.setdefault(name, itertools.count())
    while True:
        path = base / f"{name}{next(numbers)}"
        try:
            path.mkdir(mode=0o700)
        except FileExistsError:  # ``x1`` then 1 is ``x11``, as ``x`` then 11
            continue
        return path


@pytest.fixture
def tmp_path(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Each test's own temporary directory, as pytest's (named after the test, kept after the
    run for a look), made in constant time (see ``_fresh_dir``)."""
    return _fresh_dir(tmp_path_factory, re.sub(r"\W", "_", request.node.name)[:30])


@pytest.fixture(autouse=True)
def _isolated_env(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = _fresh_dir(tmp_path_factory, "agent-home")
    monkeypatch.setenv("AGENT_TUI_DATA_DIR", str(home / "data"))
    monkeypatch.setenv("AGENT_TUI_CONFIG_DIR", str(home / "config"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / "claude"))  # not the real ~/.claude
    monkeypatch.setenv("AGENT_DEMO_DELAY", "0")
    for name in _MODEL_ENV:
        monkeypatch.delenv(name, raising=False)


_REAL_GATE = {"on": False}


@pytest.fixture(scope="session", autouse=True)
def _trusted_projects() -> Iterator[None]:
    """The tests' own project files are trusted (tests of the MCP manager or the rules need
    their servers and rules; session-wide, so fixtures of any scope see it), except in tests
    about trust itself (``@pytest.mark.real_trust``: the gate as users get it). Processes a
    test starts have the real gate: ``tests.trusting.trust_everything`` trusts for them."""
    from agent_tui.core.state.trust import ProjectTrust, TrustItem

    real = ProjectTrust.allows

    def allows(self: ProjectTrust, item: TrustItem) -> bool:
        if _REAL_GATE["on"] or self.__dict__.get("real_gate"):
            return real(self, item)
        return True

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ProjectTrust, "allows", allows)
        yield


@pytest.fixture(autouse=True)
def _real_trust(request: pytest.FixtureRequest) -> Iterator[None]:
    _REAL_GATE["on"] = request.node.get_closest_marker("real_trust") is not None
    yield
    _REAL_GATE["on"] = False


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A project directory for the agent to work in."""
    root = tmp_path / "project"
    root.mkdir()
    return root


_FILE_SECONDS: dict[str, float] = {}


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker more than there are cores. About a quarter of the suite's time
    is spent waiting — on real servers and subprocesses it starts, on idle timeouts it
    proves, on screens to paint — (measured: 2 workers kept 2 cores ~72% busy), so a third
    worker on 2 cores fills what they leave; the tests wait on conditions, never on time, so
    the extra contention changes how long they take, not what they prove."""
    return (os.cpu_count() or 1) + 1


def pytest_collection(session: pytest.Session) -> None:
    """On an xdist worker, this worker's share of a cold checkout is compiled before the
    collection imports it (``tests/prewarm.py``: the workers no longer each compile it all)."""
    from tests.prewarm import warm

    warm(session.config, Path(__file__).resolve().parents[1])


_PREFETCH: list[subprocess.Popen[bytes]] = []


def pytest_sessionstart(session: pytest.Session) -> None:
    """A whole run (no paths named: the suite's test paths) starts the npm installs of the MCP
    reference servers and the conformance suite in the background (``prefetch`` in
    tests/core/mcp/conftest.py): a fresh clone downloads them (Node 22 among them, ~4 minutes
    on a slow registry) while the other tests run, not while a worker waits in a fixture."""
    config = session.config
    if hasattr(config, "workerinput") or config.args_source == pytest.Config.ArgsSource.ARGS:
        return
    if shutil.which("npm") is None:
        return
    root = Path(__file__).resolve().parents[1]
    _PREFETCH.append(
        subprocess.Popen(
            [sys.executable, "-c", "from tests.core.mcp.conftest import prefetch; prefetch()"],
            cwd=root,
            env={**os.environ, "PYTHONPATH": str(root)},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    )


def pytest_sessionfinish(session: pytest.Session) -> None:
    """A prefetch still running when the run ends is not left behind (its install is not
    marked done, so the next run installs again)."""
    for process in _PREFETCH:
        if process.poll() is None:
            with contextlib.suppress(OSError):
                os.killpg(process.pid, 15)
        process.wait()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--file-durations",
        type=int,
        default=0,
        metavar="N",
        help="list the N test files that took longest (setup + call + teardown, summed)",
    )


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Sum each file's test time (on the controller under xdist: reports come back to it)."""
    path = report.nodeid.split("::", 1)[0]
    _FILE_SECONDS[path] = _FILE_SECONDS.get(path, 0.0) + report.duration


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    count = int(config.getoption("--file-durations") or 0)
    if count <= 0 or not _FILE_SECONDS:
        return
    total = sum(_FILE_SECONDS.values())
    terminalreporter.section(f"slowest {count} test files ({total:.0f} s in all)")
    ranked = sorted(_FILE_SECONDS.items(), key=lambda item: item[1], reverse=True)
    for path, seconds in ranked[:count]:
        terminalreporter.write_line(f"{seconds:8.1f}s {100 * seconds / total:5.1f}%  {path}")


@pytest.fixture
def tiny_disk() -> Iterator[Path]:
    """A 64 KiB tmpfs (root only, where mounting works)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    where = Path(tempfile.mkdtemp(prefix="tiny-disk-"))
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(where)], capture_output=True
    )
    if mounted.returncode != 0:
        where.rmdir()
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=False)
        with contextlib.suppress(OSError):
            where.rmdir()
