"""Each xdist worker compiles its share of a cold checkout, not all of it.

On a fresh clone (CI) nothing is compiled yet: every worker, collecting the whole suite at the
same moment, rewrote the asserts of every test module and compiled every agent_tui module it
imported — the same work once per worker (collecting in one process: 36 s of CPU cold, 13 s
warm). Before collecting, each worker now walks the files in its own rotation
(worker ``k`` of ``n`` starts ``k/n`` of the way in) and writes what is not there yet: the
compiled sources (``compileall``: an up-to-date file is skipped) and the assert-rewritten test
modules (pytest's own rewriting, written as its import hook writes them); what another worker
already wrote it only checks. Then collection imports from the cache as on a warm checkout.

Only speed is at stake: whatever this does not write (a newer pytest without these helpers, a
read-only tree, an error), the import hooks compile at import, as before. The modules imported
and the code run are the same either way. Measured (2026-12-07, load ~10, a cold checkout,
``-n 2``, every test deselected): 24.8 + 25.2 s of worker CPU before, 20.4 + 20.4 s after.
"""

from __future__ import annotations

import compileall
import contextlib
import sys
from pathlib import Path

import pytest


def _rotated(paths: list[Path], index: int, count: int) -> list[Path]:
    start = len(paths) * index // max(count, 1)
    return paths[start:] + paths[:start]


def _rewrite(config: pytest.Config, files: list[Path]) -> None:
    from _pytest.assertion import rewrite  # pytest's own rewriting and pyc format

    state = config.stash[rewrite.assertstate_key]
    for path in files:
        cache_dir = rewrite.get_cache_dir(path)
        pyc = cache_dir / (path.name[:-3] + rewrite.PYC_TAIL)
        if rewrite._read_pyc(path, pyc) is not None:
            continue  # written already (by this worker's last run or by another worker)
        if not rewrite.try_makedirs(cache_dir):
            return
        stat, code = rewrite._rewrite_test(path, config)
        rewrite._write_pyc(state, code, stat, pyc)


def warm(config: pytest.Config, root: Path) -> None:
    """This worker's share first (see the module's doc); the rest is checked, not redone."""
    worker = getattr(config, "workerinput", None)
    if worker is None or sys.dont_write_bytecode:
        return
    index = int(str(worker.get("workerid", "gw0")).removeprefix("gw") or 0)
    count = int(worker.get("workercount", 1))
    if count < 2:
        return
    sources = sorted((root / "src" / "agent_tui").rglob("*.py"))
    tests = sorted(
        path
        for path in (root / "tests").rglob("*.py")
        if path.name.startswith("test_") or path.name == "conftest.py"
    )
    with contextlib.suppress(Exception):
        for path in _rotated(sources, index, count):
            compileall.compile_file(str(path), quiet=2)
    with contextlib.suppress(Exception):
        _rewrite(config, _rotated(tests, index, count))
