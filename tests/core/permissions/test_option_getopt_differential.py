"""Differential test: the option tables' reader against glibc's own ``getopt_long`` (method 10).

Every GNU program in the tables reads its arguments with ``getopt_long``; ``option_table.parse``
claims to read them the same way. A tiny C program (compiled here, skipped without a C
compiler) runs the real ``getopt_long`` with a given option set on given arguments and prints
what it found, in order: each option with its value, then the operands as permuted. For
generated option sets (flags, required and optional values, short and long) and argument lists
(clusters, attached and separate values, ``--opt=value``, ``--``, ``-``, options after operands,
values that look like options), both must agree: the same options with the same values, the
same operands; and where getopt reports an error, the table's reader reports a problem. The one
intended difference: an abbreviated long option, which getopt resolves and the reader refuses.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agent_tui.core.permissions.shell.model import Word
from agent_tui.core.permissions.shell.option_table import Arg, Opt, Table, parse

HARNESS = r"""
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* argv: SHORTS LONGS(name=0|1|2,...) -- ARGS...  Prints one line per option, then operands. */
int main(int argc, char **argv) {
    const char *shorts = argv[1];
    char *spec = strdup(argv[2]);
    struct option longs[64];
    int n = 0;
    for (char *tok = strtok(spec, ","); tok && n < 63; tok = strtok(NULL, ",")) {
        char *eq = strchr(tok, '=');
        *eq = 0;
        longs[n].name = tok;
        longs[n].has_arg = atoi(eq + 1);
        longs[n].flag = NULL;
        longs[n].val = 1000 + n;
        n++;
    }
    memset(&longs[n], 0, sizeof longs[n]);
    char optstring[256];
    snprintf(optstring, sizeof optstring, ":%s", shorts);
    int count = argc - 3;
    char **args = argv + 3;
    args[0] = "prog";
    opterr = 0;
    int c, index;
    while ((c = getopt_long(count, args, optstring, longs, &index)) != -1) {
        if (c == '?') { printf("E unknown\n"); continue; }
        if (c == ':') { printf("E missing\n"); continue; }
        if (c >= 1000) {
            const char *given = args[optind - 1];
            printf("L %s %s%s\n", longs[c - 1000].name, optarg ? "=" : "-", optarg ? optarg : "");
            (void) given;
        } else {
            printf("S %c %s%s\n", c, optarg ? "=" : "-", optarg ? optarg : "");
        }
    }
    for (int i = optind; i < count; i++) printf("A %s\n", args[i]);
    return 0;
}
"""

CC = shutil.which("cc") or shutil.which("gcc")
pytestmark = pytest.mark.skipif(CC is None, reason="needs a C compiler to build the getopt harness")


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("getopt")
    source = base / "harness.c"
    source.write_text(HARNESS)
    binary = base / "harness"
    assert CC is not None
    done = subprocess.run([CC, "-O0", "-o", str(binary), str(source)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"the harness does not build here: {done.stderr[-300:]!r}")
    return binary


LETTERS = "abcdefgo"
NAMES = ["out", "output", "color", "file", "files", "verbose", "zero", "in-place"]
KINDS = {0: Arg.NONE, 1: Arg.REQUIRED, 2: Arg.OPTIONAL}


ARITY = st.integers(0, 2)
SHORTS = st.sets(st.sampled_from(LETTERS), min_size=1)
LONGS = st.sets(st.sampled_from(NAMES), min_size=1)
"""Built once, not at every draw (the same strategies draw the same values)."""


@st.composite
def option_set(draw: st.DrawFn) -> tuple[dict[str, int], dict[str, int]]:
    # sorted: a set's order follows the hash seed, and derandomized runs should draw alike
    shorts = {c: draw(ARITY) for c in sorted(draw(SHORTS))}
    longs = {n: draw(ARITY) for n in sorted(draw(LONGS))}
    return shorts, longs


ARGS = st.lists(
    st.one_of(
        st.sampled_from(["--", "-", "x", "file", "-x", "--nope", "=v", "-o-", "--out", "--file"]),
        st.builds(
            lambda cs: "-" + "".join(cs), st.lists(st.sampled_from(LETTERS), min_size=1, max_size=3)
        ),
        st.builds(
            lambda n, v: f"--{n}={v}", st.sampled_from(NAMES), st.sampled_from(["v", "", "-q"])
        ),
        st.builds(lambda n: f"--{n}", st.sampled_from(NAMES)),
        st.builds(
            lambda c, v: f"-{c}{v}", st.sampled_from(LETTERS), st.sampled_from(["v", "1", "-"])
        ),
    ),
    max_size=7,
)


def _table(shorts: dict[str, int], longs: dict[str, int]) -> Table:
    opts = {f"-{c}": Opt(KINDS[k]) for c, k in shorts.items()}
    opts |= {f"--{n}": Opt(KINDS[k]) for n, k in longs.items()}
    return Table("prog", opts)


def _getopt(
    binary: Path, shorts: dict[str, int], longs: dict[str, int], args: list[str]
) -> list[str]:
    optstring = "".join(c + {0: "", 1: ":", 2: "::"}[k] for c, k in shorts.items())
    spec = ",".join(f"{n}={k}" for n, k in longs.items())
    done = subprocess.run(
        [str(binary), optstring, spec, "prog", *args],
        capture_output=True,
        text=True,
        env={"LC_ALL": "C"},
        timeout=10,
    )
    return done.stdout.splitlines()


def _mine(
    shorts: dict[str, int], longs: dict[str, int], args: list[str]
) -> tuple[list[str], list[str]]:
    parsed = parse([Word(a, a) for a in args], _table(shorts, longs))
    lines = []
    for used in parsed.used:
        value = "-" if used.value is None else "=" + used.value.text
        kind = "L" if used.name.startswith("--") else "S"
        lines.append(f"{kind} {used.name.lstrip('-')} {value}")
    lines += [f"A {w.text}" for w in parsed.operands]
    return lines, parsed.problems


def _abbreviations(problems: list[str], longs: dict[str, int]) -> bool:
    """The reader refused an abbreviation (``--out`` for ``--output``), which getopt reads: the
    command is refused whole (fail closed), so what the reader says of the words after it —
    ``--out --color=v``: getopt takes ``--color=v`` as the output's value, the reader, not
    knowing ``--out``, as ``--color`` given a value — is moot."""
    names = [p.split(" is not among", 1)[0] for p in problems if " is not among" in p]
    return any(
        name.startswith("--") and any(n.startswith(name[2:]) for n in longs) for name in names
    )


@settings(
    max_examples=int(os.environ.get("GETOPT_DIFF_EXAMPLES", "500")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    derandomize=True,
)
@given(option_set(), ARGS)
@example(  # an abbreviation taking the next word as its value (CI, 2026-12-07)
    options=({"a": 0}, {"color": 0, "output": 1, "file": 0}), args=["--out", "--color=v"]
)
def test_the_table_reader_reads_arguments_as_getopt_long(
    harness: Path, options: tuple[dict[str, int], dict[str, int]], args: list[str]
) -> None:
    shorts, longs = options
    theirs = _getopt(harness, shorts, longs, args)
    mine, problems = _mine(shorts, longs, args)
    where = f"\noptions: {shorts} {longs}\nargs: {args}\ngetopt: {theirs}\nmine: {mine}"
    if problems and _abbreviations(problems, longs):
        return  # the one intended difference
    if any(line.startswith("E ") for line in theirs):
        assert problems, "getopt refused the arguments, the reader did not" + where
        return
    assert not problems, "the reader refused what getopt reads" + where
    assert mine == theirs, "different readings" + where
