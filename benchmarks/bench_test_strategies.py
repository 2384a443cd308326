"""What the fuzz tests' Hypothesis grammars cost to generate their examples, and whether two
checkouts generate the same ones (the differential fuzz tests of tests/core/permissions: bash,
sed, awk, getopt_long).

Run from the repository root, against another checkout (a worktree of the commit before)::

    git worktree add --detach /tmp/before <commit>
    PYTHONPATH=src:. python benchmarks/bench_test_strategies.py --against /tmp/before

Each grammar generates its test's ``max_examples`` (derandomized, no database, as the tests do;
``PYTHONHASHSEED=0`` so set iteration is the same in every process) in a fresh process per side,
the two sides alternately, ``--rounds`` times. Nothing runs bash, sed or awk: only generation is
measured. Per grammar it prints the median CPU seconds of each side and whether the two sides'
examples are identical, example for example. The machine's load average is printed: on a loaded
machine compare the CPU figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

GRAMMARS = {
    "bash": ("tests.core.permissions.red_team.test_differential", "commands()", 600),
    "sed": ("tests.core.permissions.red_team.test_sed_differential", "scripts()", 400),
    "awk": (
        "tests.core.permissions.red_team.test_awk_differential",
        "st.tuples(program(), st.sampled_from(['gawk', 'mawk']))",
        300,
    ),
    "getopt": (
        "tests.core.permissions.test_option_getopt_differential",
        "st.tuples(option_set(), ARGS)",
        500,
    ),
}

CHILD = """
import importlib, sys, time
root, name, expr, count, out = sys.argv[1:6]
sys.path[:0] = [root + "/src", root]
from hypothesis import HealthCheck, given, settings
module = importlib.import_module(name)
assert module.__file__.startswith(root), module.__file__
seen = []
@settings(max_examples=int(count), deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(eval(expr, vars(module)))
def record(value):
    seen.append(repr(value))
start = time.process_time()
record()
print(time.process_time() - start)
open(out, "w").write("\\n\\0".join(seen))
"""


def generate(root: Path, grammar: str, out: Path) -> float:
    name, expr, count = GRAMMARS[grammar]
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(root), name, expr, str(count), str(out)],
        capture_output=True,
        text=True,
        env=env,
        cwd=out.parent,  # Hypothesis keeps its constants cache here, not in a checkout
        check=True,
    )
    return float(done.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", type=Path, required=True, help="the other checkout")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--only", choices=sorted(GRAMMARS), action="append")
    args = parser.parse_args()
    here = Path(__file__).resolve().parents[1]
    sides = {"against": args.against.resolve(), "this": here}
    print(f"load average {os.getloadavg()[0]:.1f} (start)")
    with tempfile.TemporaryDirectory(prefix="bench-strategies-") as scratch:
        work = Path(scratch)
        for grammar in args.only or GRAMMARS:
            seconds: dict[str, list[float]] = {side: [] for side in sides}
            for _ in range(args.rounds):
                for side, root in sides.items():
                    seconds[side].append(generate(root, grammar, work / f"{grammar}.{side}"))
            same = len({(work / f"{grammar}.{side}").read_text() for side in sides}) == 1
            old, new = (statistics.median(seconds[side]) for side in sides)
            print(
                f"{grammar:7} {GRAMMARS[grammar][2]:4} examples: against {old:6.2f} s CPU, "
                f"this {new:6.2f} s ({new / old:.2f}x); examples identical: {same}"
            )
    print(f"load average {os.getloadavg()[0]:.1f} (end)")


if __name__ == "__main__":
    main()
