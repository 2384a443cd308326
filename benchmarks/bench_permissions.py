"""Benchmark of the permission decision for shell commands (issue: "a 1 MB command is decided
in ≤ 100 ms").

    PYTHONPATH=src python benchmarks/bench_permissions.py            # ~30 s
    PYTHONPATH=src python benchmarks/bench_permissions.py --old      # also the old lexer

Measures ``PermissionPipeline.judge`` — parse with tree-sitter-bash, walk, every rule check —
with a realistic rule set (15 allow rules, rm/curl/.env deny rules), median of N runs:

- the first decision of a process (tree-sitter imported and the grammar loaded);
- typical commands (the 66 everyday commands of the red-team suite), per command;
- 1 MB commands of four shapes: dense syntax (``ls -la | grep x && …``), one 1 MB word, a 1 MB
  heredoc (a model writing a file), 100,000 short commands;
- with ``--old``: the hand-written lexer this replaced (git show b151782:…/shell.py), on the
  typical commands and on 100 / 200 / 400 KB, to show how it grew (its analysis alone, not a
  whole decision).
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

ALLOW = [
    "git status:*",
    "git diff:*",
    "git log:*",
    "ls:*",
    "cat:*",
    "head:*",
    "echo:*",
    "grep:*",
    "find:*",
    "wc:*",
    "npm test:*",
    "pytest:*",
    "make:*",
    "sort:*",
    "tail:*",
]
DENY = ["run_shell(rm:*)", "run_shell(curl:*)", "read_file(.env)"]


def median_ms(fn, runs: int) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), max(times)


def first_decision_ms() -> float:
    code = (
        "import time, tempfile; from pathlib import Path; t = time.perf_counter();"
        "from agent_tui.core.permissions import PermissionPipeline;"
        "from agent_tui.core.tools.builtin import default_registry;"
        "p = PermissionPipeline(Path(tempfile.mkdtemp()));"
        "p.judge(default_registry().get('run_shell'), {'command': 'git status && ls'});"
        "print((time.perf_counter() - t) * 1000)"
    )
    env = {"PYTHONPATH": str(ROOT / "src")}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    return float(out.stdout.strip())


def old_lexer():  # type: ignore[no-untyped-def]
    source = subprocess.run(
        ["git", "show", "b151782:src/agent_tui/core/permissions/shell.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    path = Path(tempfile.mkdtemp()) / "old_shell.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("old_shell", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["old_shell"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--old", action="store_true", help="also time the old hand lexer")
    args = parser.parse_args()

    from tests.core.permissions.red_team.test_everyday import EVERYDAY

    from agent_tui.core.permissions import Mode, PermissionPipeline, Rule, RuleSet
    from agent_tui.core.tools.builtin import default_registry

    workspace = Path(tempfile.mkdtemp())
    (workspace / "src").mkdir()
    (workspace / ".env").write_text("TOKEN=x\n")
    rules = RuleSet(
        allow=[Rule.parse(f"run_shell({r})") for r in ALLOW],
        deny=[Rule.parse(r) for r in DENY],
    )
    pipeline = PermissionPipeline(workspace, rules, Mode.DEFAULT)
    tool = default_registry().get("run_shell")
    assert tool is not None

    def judge(command: str) -> str:
        return pipeline.judge(tool, {"command": command}).kind

    rows: list[tuple[str, str]] = []
    rows.append(
        (
            "first decision of a process (imports + grammar)",
            f"{statistics.median(first_decision_ms() for _ in range(5)):.1f} ms",
        )
    )
    per_command = []
    for command in EVERYDAY:
        judge(command)
        per_command.append(median_ms(lambda c=command: judge(c), args.runs)[0])
    rows.append(
        (
            f"typical command ({len(EVERYDAY)} everyday commands), median",
            f"{statistics.median(per_command):.2f} ms",
        )
    )
    rows.append(("typical command, slowest of them", f"{max(per_command):.2f} ms"))
    big = {
        "1 MB of dense syntax (ls -la | grep x && …)": "ls -la | grep x && " * 55_000,
        "1 MB word (echo aaaa…)": "echo " + "a" * 1_000_000,
        "1 MB heredoc (cat > notes.md <<'EOF' …)": "cat > notes.md <<'EOF'\n"
        + "Some text for the notes, with $(no) expansion and `quotes`.\n" * 17_000
        + "EOF",
        "1 MB of short commands (echo hi; × 110,000)": "echo hi; " * 110_000,
    }
    for label, command in big.items():
        kind = judge(command)
        median, worst = median_ms(lambda c=command: judge(c), args.runs)
        rows.append(
            (
                f"{label} [{len(command) / 1e6:.2f} MB → {kind}]",
                f"{median:.1f} ms (max {worst:.1f})",
            )
        )
    if args.old:
        old = old_lexer()
        times = [median_ms(lambda c=c: old.analyse(c), args.runs)[0] for c in EVERYDAY]
        rows.append(("old lexer: typical command, median", f"{statistics.median(times):.3f} ms"))
        for size in (100_000, 200_000, 400_000):
            dense = ("ls -la | grep x && " * (size // 18))[:size]
            word = "echo " + "a" * size
            rows.append(
                (
                    f"old lexer: {size // 1000} KB of dense syntax",
                    f"{median_ms(lambda c=dense: old.analyse(c), 3)[0]:.0f} ms",
                )
            )
            rows.append(
                (
                    f"old lexer: {size // 1000} KB word",
                    f"{median_ms(lambda c=word: old.analyse(c), 3)[0]:.0f} ms",
                )
            )
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        print(f"{label:<{width}}  {value:>22}")


if __name__ == "__main__":
    main()
