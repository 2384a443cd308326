"""grep and glob on a checkout with an ignored build/ of 11,500 files (issue 18: "grep 'class
\\w+Error' returned 200 hits, the cap, none from src/"): the tools as they are, with
``include_ignored=true``, and the tools of an older revision (which had no ignore support).

    PYTHONPATH=src python benchmarks/bench_ignore.py                 # this tree only
    PYTHONPATH=src python benchmarks/bench_ignore.py --old b48a9b8   # and that revision

The generated repository: ``src/`` with 400 Python files (one ``class …Error`` in every
tenth), ``build/`` with 11,500 generated files (each with a ``class …Error``), ``.gitignore``
with ``build/``, ``*.log`` and 20 more common lines, a nested ``.gitignore`` in ``src/``. Each
variant runs in its own interpreter (the old revision from a ``git archive`` of it), one timed
call after a warm-up, the variants interleaved, median of ``--runs`` rounds; page cache warm.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

GITIGNORE = """\
build/
*.log
*.pyc
__pycache__/
.env
.env.*
!.env.example
dist/
*.egg-info/
.coverage
htmlcov/
.tox/
*.so
*.o
[Bb]in/
[Oo]bj/
*.swp
*~
.DS_Store
/coverage.xml
docs/_build/
node_modules/
"""

RUNNER = textwrap.dedent(
    """
    import asyncio, json, statistics, sys, time
    from pathlib import Path
    from agent_tui.core.tools.base import ToolContext
    from agent_tui.core.tools.builtin import glob_tool, grep_tool

    repo, runs, extra = Path(sys.argv[1]), int(sys.argv[2]), json.loads(sys.argv[3])
    ctx = ToolContext(cwd=repo)

    async def call(tool, **args):
        return await tool.call(tool.input_model.model_validate({**args, **extra}), ctx)

    def measure(tool, **args):
        asyncio.run(call(tool, **args))  # warm-up
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            out = asyncio.run(call(tool, **args))
            times.append(time.perf_counter() - started)
        # all the times, for the caller's median over interleaved processes
        lines = [l for l in out.content.split("\\n") if not l.startswith("[")]
        return {
            "ms": [t * 1000 for t in times],
            "results": len(lines),
            "from_src": sum(l.startswith("src/") for l in lines),
            "footer": out.content.rsplit("\\n", 1)[-1][:160],
        }

    print(json.dumps({
        "grep": measure(grep_tool.TOOL, pattern=r"class \\w+Error"),
        "grep, only in src/": measure(grep_tool.TOOL, pattern=r"class Mod\\d+Error"),
        "glob": measure(glob_tool.TOOL, pattern="**/*.py"),
    }))
    """
)


def make_repo(root: Path) -> None:
    (root / ".git" / "info").mkdir(parents=True)
    (root / ".gitignore").write_text(GITIGNORE)
    for i in range(400):
        path = root / "src" / f"pkg{i % 20}" / f"mod{i}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        body = "".join(f"def f{k}(x):\n    return x + {k}\n" for k in range(30))
        if i % 10 == 0:
            body += f"class Mod{i}Error(Exception):\n    pass\n"
        path.write_text(body)
    (root / "src" / ".gitignore").write_text("*.tmp\n")
    for i in range(11_500):
        path = root / "build" / f"lib{i % 50}" / f"gen{i}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# generated\nclass Gen{i}Error(Exception):\n    pass\n")


def run(src: Path, repo: Path, runs: int, extra: dict[str, object]) -> dict[str, dict[str, object]]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    out = subprocess.run(
        [sys.executable, "-c", RUNNER, str(repo), str(runs), json.dumps(extra)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, dict[str, object]] = json.loads(out.stdout)
    return result


def old_tree(rev: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "src"], capture_output=True, check=True
    ).stdout
    tar = into / "old.tar"
    tar.write_bytes(archive)
    with tarfile.open(tar) as t:
        t.extractall(into / "old", filter="data")
    return into / "old" / "src"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--old", help="a revision to compare with (before ignore support)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        make_repo(repo)
        variants: list[tuple[str, Path, dict[str, object]]] = []
        if args.old:
            variants.append((f"{args.old} (no ignore support)", old_tree(args.old, Path(tmp)), {}))
        variants.append(("this tree, default", ROOT / "src", {}))
        variants.append(("this tree, include_ignored", ROOT / "src", {"include_ignored": True}))
        # Interleaved: each round runs every variant once, in its own process (on a busy
        # machine the order of long sequential runs showed in the figures).
        results: dict[str, dict[str, dict[str, object]]] = {}
        for _ in range(args.runs):
            for name, src, extra in variants:
                result = run(src, repo, 1, extra)
                for tool, r in result.items():
                    kept = results.setdefault(name, {}).setdefault(tool, {**r, "ms": []})
                    kept["ms"] += r["ms"]  # type: ignore[operator]
        print("| variant | tool | median | results | from src/ |")
        print("|---|---|---:|---:|---:|")
        footers = []
        for name, tools in results.items():
            for tool, r in tools.items():
                ms = statistics.median(r["ms"])  # type: ignore[arg-type]
                print(f"| {name} | {tool} | {ms:,.0f} ms | {r['results']} | {r['from_src']} |")
                footers.append(f"{name}, {tool}: {r['footer']}")
        print()
        print("\n".join(footers))


if __name__ == "__main__":
    main()
