"""Differential tests: the awk program scanner and the awk options against gawk and mawk.

Every program here runs its statements unconditionally (in ``BEGIN``, ``if (1)``), so what the
real awk does is what the program can do: run in a jail (bubblewrap: only the lab directory is
writable) with a ``PATH`` holding only a shim ``evil`` that leaves a marker, an input file
``in1`` holding a marker line, and a marker in the environment. Then, for gawk and for mawk:

- **soundness** — a file awk created is among the scanner's writes (or the scanner has a write
  to a file named at run time); the shim ran only if the scanner found a command; ``in1``'s
  marker was printed only if the scanner found a read (or ``ARGV``); the environment's marker
  only if it found ``ENVIRON``;
- **precision** — when awk succeeded, every file the scanner says is written was created, and
  a literal command it found ran.

Programs come from a grammar (print/printf with ``>``, ``>>``, ``|``, ``|&`` at the statement's
level or comparisons inside parentheses; ``system``; ``cmd | getline``; ``getline < file``;
divisions and regex literals holding ``>``, ``|``, ``/``; strings holding ``system(``;
comments; line continuations) and a hand-written list. Commands are also checked whole,
options included (``-v x=1``, ``-F :``, ``-F:``, ``--``, ``-e``): a command the analysis
allows under ``run_shell(awk:*)`` creates nothing and runs nothing.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_tui.core.permissions import PermissionPipeline, Rule, RuleSet
from agent_tui.core.permissions.shell.awk_program import AwkProgram, scan
from agent_tui.core.tools.builtin import default_registry
from tests.core.permissions.red_team.jail import Jail

BWRAP = shutil.which("bwrap")
AWKS = {name: shutil.which(name) for name in ("gawk", "mawk")}
IN_MARK = "IN1-MARKER-93c1"
ENV_MARK = "ENV-MARKER-5d2e"


def _bwrap_works() -> bool:
    if BWRAP is None:
        return False
    done = subprocess.run(
        [BWRAP, "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-all", "true"],
        capture_output=True,
    )
    return done.returncode == 0


pytestmark = pytest.mark.skipif(
    not _bwrap_works(),
    reason="needs a working bwrap: a program may write any path, and the lab confines awk",
)


def _awk(name: str) -> str:
    path = AWKS[name]
    if path is None:
        pytest.skip(f"{name} is not installed (apt-get install -y {name})")
    return path


@dataclass
class Outcome:
    rc: int
    output: str
    created: set[str]
    ran: bool


class AwkLab:
    def __init__(self, base: Path) -> None:
        self.base = base
        self.shims = base / "shims"
        self.shims.mkdir()
        shim = self.shims / "evil"
        shim.write_text('#!/bin/sh\n: > "$AWK_DIFF_MARK"\necho shim-output\n')
        shim.chmod(0o755)
        assert BWRAP is not None
        self.jail = Jail(BWRAP, base)
        """Where awk runs: one bwrap for the lab, in which only the lab is writable."""

    def run(self, argv: list[str]) -> Outcome:
        root = Path(tempfile.mkdtemp(dir=self.base, prefix="run-"))
        try:
            work = root / "w"
            work.mkdir()
            (work / "in1").write_text(f"{IN_MARK}\n")
            env = {
                "PATH": str(self.shims),
                "LC_ALL": "C.UTF-8",
                "AWK_DIFF_MARK": str(root / "mark"),
                "SECRET_FOR_TEST": ENV_MARK,
            }
            try:
                done = self.jail.run([*argv], work, env, None, 10, errors="replace")
                rc, output = done.returncode, done.stdout + done.stderr
            except subprocess.TimeoutExpired:
                rc, output = -1, ""
            created = {p.name for p in work.iterdir()} - {"in1"}
            return Outcome(rc, output, created, (root / "mark").exists())
        finally:
            shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AwkLab]:
    made = AwkLab(tmp_path_factory.mktemp("awk-differential"))
    yield made
    made.jail.close()


def check(lab: AwkLab, awk: str, source: str, stats: Counter[str] | None = None) -> AwkProgram:
    program = scan(source)
    out = lab.run([_awk(awk), source])
    where = f"\n{awk} program: {source!r}\nscanner: {program}\n{awk}: rc={out.rc} {out.output!r}"
    if stats is not None:
        stats["unsure" if program.unsure else ("ok" if out.rc == 0 else "awk failed")] += 1
    if program.unsure is not None:
        return program
    literal_writes = {name for name, _ in program.writes if name is not None}
    dynamic_write = any(name is None for name, _ in program.writes)
    if not dynamic_write:
        assert out.created <= literal_writes, "awk wrote a file the scanner missed" + where
    if out.ran:
        assert program.commands, "awk ran a command the scanner missed" + where
    if IN_MARK in out.output:
        assert program.reads or program.argv, "awk read in1, the scanner missed it" + where
    if ENV_MARK in out.output:
        assert program.environment, "awk printed the environment, the scanner missed it" + where
    if out.rc == 0:
        expected = {n for n in literal_writes if "/" not in n}
        assert expected <= out.created, "the scanner saw a write awk did not do" + where
        if "evil" in program.commands:
            assert out.ran, "the scanner saw a command awk did not run" + where
    return program


# -- hand-written ----------------------------------------------------------------------------------

PROGRAMS = [
    'BEGIN { print "x" }',
    'BEGIN { print "x" > "o1" }',
    'BEGIN { print "x" >> "o1" }',
    'BEGIN { printf "%s\\n", "x" > "o1" }',
    'BEGIN { printf("%s\\n", "x") > "o1" }',
    'BEGIN { print("x") > "o1" }',
    'BEGIN { print ("a" > "b") }',
    'BEGIN { print "a", ("b" > "c") }',
    'BEGIN { x = "a" > "b"; print x }',
    'BEGIN { if ("a" > "b") print "y" }',
    'BEGIN { if (1) print "y" > "o2" }',
    'BEGIN { f = "o3"; print "x" > f }',
    'BEGIN { print "x" > "o" "4" }',
    'BEGIN { print "x" > ("o" "5") }',
    'BEGIN { print "x",\n "y" > "o1" }',
    'BEGIN { print "x" \\\n > "o1" }',
    'BEGIN { print "x"\n "y" > "o1" }',
    'BEGIN { print "x" > "/dev/stderr" }',
    'BEGIN { print "x" > "/dev/stdout" }',
    'BEGIN { system("evil") }',
    'BEGIN { system ("evil") }',
    'BEGIN { x = system("evil"); print x }',
    'BEGIN { c = "evil"; system(c) }',
    'BEGIN { system("ev" "il") }',
    'BEGIN { print "x" | "evil" }',
    'BEGIN { print "x" | "cat"; close("cat") }',
    'BEGIN { "evil" | getline v; print v }',
    'BEGIN { while (("evil" | getline line) > 0) print line }',
    'BEGIN { c = "evil"; c | getline; print }',
    'BEGIN { ("ev" "il") | getline v; print v }',
    'BEGIN { getline v < "in1"; print v }',
    'BEGIN { while ((getline l < "in1") > 0) print l }',
    'BEGIN { f = "in1"; getline v < f; print v }',
    'BEGIN { print ENVIRON["SECRET_FOR_TEST"] }',
    'BEGIN { for (k in ENVIRON) if (k == "SECRET_FOR_TEST") print ENVIRON[k] }',
    'BEGIN { ARGV[1] = "in1"; ARGC = 2 } { print }',
    "BEGIN { print 1 / 2 / 3 }",
    "BEGIN { a = 4; b = 2; print a / b / 1 }",
    'BEGIN { print "x" ~ /a>b/ }',
    'BEGIN { print "a/b" ~ /[/]/ }',
    'BEGIN { print "a|b" ~ /a|b/ }',
    'BEGIN { s = "system(\\"evil\\")"; print s }',
    'BEGIN { # system("evil")\n print "x" }',
    'BEGIN { print "x" # > "o1"\n }',
    'BEGIN { print "x" > "o1"; print "y" >> "o1" }',
    'BEGIN { print "x" > "o1"; system("evil") }',
    "function f(x) { return x > 1 } BEGIN { print f(2) }",
    'function f(x) { print x > "o1" } BEGIN { f(2) }',
    'BEGIN { n = split("a b", arr); print n > "o1" }',
    'BEGIN { print length("ab") / 2 }',
    "BEGIN { x = 1; x /= 2; print x }",
    'BEGIN { print !("a" > "b") }',
    'BEGIN { print 1 > 2 ? "o1" : "o2" }',
    'BEGIN { printf "%d", 1 > "o1" }',
    'BEGIN { print > "o1" }',
    'BEGIN { getline; print "x" > "o1" }',
]


@pytest.mark.parametrize("awk", ["gawk", "mawk"])
@pytest.mark.parametrize("source", PROGRAMS, ids=lambda s: s[:50])
def test_programs_agree_with_awk(lab: AwkLab, awk: str, source: str) -> None:
    check(lab, awk, source)


def test_the_lab_sees_what_awk_does(lab: AwkLab) -> None:
    out = lab.run([_awk("gawk"), 'BEGIN { print "x" > "o1"; system("evil") }'])
    assert out.created == {"o1"}
    assert out.ran
    out = lab.run([_awk("gawk"), 'BEGIN { while ((getline l < "in1") > 0) print l }'])
    assert IN_MARK in out.output


# -- generated -------------------------------------------------------------------------------

# The grammar builds each strategy once, not at every draw (Hypothesis validates a strategy it
# has not drawn from before; see test_differential.py): the programs are the same, one for one.
_ints = cache(st.integers)
_pick = cache(st.sampled_from)
_lists = cache(st.lists)

ATOMS = _pick(
    ('"a"', '"b"', "1", "2", "x", '"o1"', '"a>b"', '"a|b"', '"system(\\"evil\\")"', "$0", "NR")
)


@cache
@st.composite
def expression(draw: st.DrawFn, depth: int = 0) -> str:
    if depth >= 2 or draw(_ints(0, 3)) == 0:
        return draw(ATOMS)
    kind = draw(_ints(0, 7))
    left = draw(expression(depth + 1))
    right = draw(expression(depth + 1))
    if kind == 0:
        return f"({left} > {right})"
    if kind == 1:
        return f"{left} / {right}"
    if kind == 2:
        return f"{left} {right}"
    if kind == 3:
        return f"({left} ~ /{draw(_pick(('a>b', '[/]', 'a|b', 'x/'[:1], '#')))}/)"
    if kind == 4:
        return f"length({left})"
    if kind == 5:
        return f"({left} < {right})"
    if kind == 6:
        return f"({left} == {right})"
    return f"({left} != {right})"


REDIRECTS = _pick(
    ('> "o1"', '>> "o2"', '> ("o" "3")', "> f", '| "evil"', '| "cat"', '> "/dev/stderr"',
     '> "o" "4"', "| c")
)  # fmt: skip


@cache
@st.composite
def statement(draw: st.DrawFn) -> str:
    kind = draw(_ints(0, 9))
    if kind <= 2:
        words = ", ".join(draw(_lists(expression(), min_size=0, max_size=2)))
        keyword = draw(_pick(("print", "print", "printf")))
        if keyword == "printf":
            words = '"%s\\n"' + (", " + words if words else "")
        redirect = draw(REDIRECTS) if draw(st.booleans()) else ""
        return f"{keyword} {words} {redirect}".rstrip()
    if kind == 3:
        return draw(_pick(('system("evil")', "system(c)", 'system("cat /dev/null")')))
    if kind == 4:
        return draw(_pick(('"evil" | getline v', "c | getline v", '"cat in1" | getline v')))
    if kind == 5:
        return draw(_pick(('getline v < "in1"; print v', "getline v < g; print v")))
    if kind == 6:
        return f"y = {draw(expression())}"
    if kind == 7:
        return f"if (1) {draw(statement())}"
    if kind == 8:
        return draw(_pick(('print ENVIRON["SECRET_FOR_TEST"]', '# system("evil")\n')))
    return f"{draw(expression())}"


@cache
@st.composite
def program(draw: st.DrawFn) -> str:
    statements = draw(_lists(statement(), min_size=1, max_size=4))
    seps = [draw(_pick(("; ", "\n", ";\n"))) for _ in statements]
    body = "".join(s + sep for s, sep in zip(statements, seps, strict=True))
    return 'BEGIN { x = 1; f = "o5"; c = "evil"; g = "in1"\n' + body + "}"


STATS: Counter[str] = Counter()


@pytest.mark.timeout(900)  # hundreds of real runs on a shared machine
@settings(
    max_examples=int(os.environ.get("AWK_DIFF_EXAMPLES", "300")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    derandomize=True,
)
@given(program(), st.sampled_from(["gawk", "mawk"]))
def test_generated_programs_agree_with_awk(lab: AwkLab, source: str, awk: str) -> None:
    check(lab, awk, source, STATS)


def test_the_scanner_is_rarely_unsure() -> None:
    """Run after the fuzz test (same module): the scanner read nearly every generated program."""
    if not STATS:
        pytest.skip("the fuzz test did not run in this session")
    total = sum(STATS.values())
    assert STATS["unsure"] <= total // 20, STATS


# -- whole commands, options included -------------------------------------------------------

COMMANDS = [
    "awk '{print $1}' in1",
    "awk -F: '{print $1}' in1",
    "awk -F : '{print $1}' in1",
    "awk -v x=1 '{print x}' in1",
    "awk -vx=1 '{print x}' in1",
    "awk -- '{print}' in1",
    "awk -v x=1 -F: -- 'BEGIN{print x}'",
    "awk -v 'x=BEGIN{system(\"evil\")}' '{print x}' in1",
    "awk -F 'BEGIN{system(\"evil\")}' '{print}' in1",
    "awk -v x=1 'BEGIN{system(\"evil\")}'",
    "awk -F: 'BEGIN{print 1 > \"o1\"}'",
    "awk -F : 'BEGIN{print 1 > \"o1\"}'",
    "gawk -e 'BEGIN{system(\"evil\")}'",
    "gawk -e 'BEGIN{x=1}' -e 'BEGIN{print x > \"o1\"}'",
    "gawk -d 'BEGIN{x=1}'",
    "gawk -dvars.out 'BEGIN{x=1}'",
    "gawk -o 'BEGIN{x=1}'",
    "gawk --profile=prof.out 'BEGIN{x=1}'",
    "gawk -W dump-variables 'BEGIN{x=1}'",
    "gawk --sandbox 'BEGIN{system(\"evil\")}'",
    "gawk -S 'BEGIN{print 1 > \"o1\"}'",
    "mawk -W version",
    "mawk -W interactive '{print}' in1",
    "awk 'BEGIN{print ENVIRON[\"SECRET_FOR_TEST\"]}'",
    "awk '{print}' x=1 in1",
]


@pytest.mark.parametrize("awk", ["gawk", "mawk"])
@pytest.mark.parametrize("command", COMMANDS)
def test_commands_allowed_under_awk_rules_do_nothing_else(
    lab: AwkLab, tmp_path: Path, command: str, awk: str
) -> None:
    """``awk`` may be either: each command runs under both (``gawk``/``mawk`` under theirs)."""
    argv = shlex.split(command)
    if argv[0] != "awk" and argv[0] != awk:
        pytest.skip(f"a {argv[0]} command")
    rules = RuleSet(allow=[Rule.parse(f"run_shell({n}:*)") for n in ("awk", "gawk", "mawk")])
    pipeline = PermissionPipeline(tmp_path, rules)
    tool = default_registry().get("run_shell")
    assert tool is not None
    decision = pipeline.judge(tool, {"command": command})
    argv[0] = _awk(awk)
    out = lab.run(argv)
    if decision.kind == "allow":
        assert not out.created, f"allowed, yet {command!r} created {out.created}"
        assert not out.ran, f"allowed, yet {command!r} ran a command"
        assert ENV_MARK not in out.output, f"allowed, yet {command!r} printed the environment"
