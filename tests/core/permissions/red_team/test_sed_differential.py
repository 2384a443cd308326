"""Differential tests: the sed script parser against the real GNU sed (issue 37, method 10).

For every script — hand-written tricky ones, and hundreds built by a Hypothesis grammar of sed
(addresses with ``I``/``M`` flags, ``\\cREGEXc``, ``first~step``, ``addr,+N``, ``0,/re/``, ``!``;
``s`` with any delimiter, escaped delimiters and newlines, bracket expressions holding the
delimiter, every flag, ``w FILE``; ``y``; ``a``/``i``/``c`` texts with continuation lines;
``r R w W e``; blocks, labels, comments; the script split over several ``-e`` at random
points; random characters inserted) — what the parser says must agree with what sed does:

1. **which files it writes**: sed creates every ``w`` file when it reads the script, before any
   input: run ``sed -n -e … </dev/null`` in an empty directory and compare the files that
   appear with the parser's writes;
2. **whether it has ``e``, ``r`` or ``w`` at all**: ``sed --sandbox`` refuses exactly those
   (its message says so);
3. **whether sed accepts it**: a script sed refuses for its structure, the parser refuses too
   (and the reverse); a bad regular expression the parser does not check (it is not a regex
   compiler) — then the files sed created before stopping must be among the parser's writes;
4. **its commands**: ``sed --debug`` prints the compiled program, one command per line: each
   line ends the way the parser's command says (``r FILE``, ``wFILE``, ``e CMD``, the ``s``
   flags…);
5. **what runs**: run on three input lines with a ``PATH`` holding only a shim that leaves a
   marker: when the shim ran, the parser said the script runs commands.
"""

from __future__ import annotations

import contextlib
import os
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

from agent_tui.core.permissions.shell.sed_script import SANDBOXED, SedProgram, parse_sed
from tests.core.permissions.red_team.jail import Jail

SED = shutil.which("sed")
BWRAP = shutil.which("bwrap")


def _bwrap_works() -> bool:
    if BWRAP is None:
        return False
    done = subprocess.run(
        [BWRAP, "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-all", "true"],
        capture_output=True,
    )
    return done.returncode == 0


if not _bwrap_works():
    BWRAP = None


def _gnu_sed_49() -> bool:
    if SED is None:
        return False
    out = subprocess.run([SED, "--version"], capture_output=True, text=True).stdout
    return "(GNU sed) 4." in out.split("\n", 1)[0]


pytestmark = pytest.mark.skipif(
    not _gnu_sed_49(), reason="needs GNU sed 4.x (the parser models GNU sed 4.9)"
)

STRUCTURAL = (
    "unterminated",
    "unknown command",
    "unknown option to",
    "extra characters after command",
    "unmatched `{'",
    "unexpected `}'",
    "unexpected `,'",
    "missing command",
    "expected \\ after",
    "doesn't want any addresses",
    "comments don't accept",
    "multiple `!'s",
    "multiple `p'",
    "multiple `g'",
    "multiple number options",
    "may not be zero",
    "invalid usage of line address 0",
    "invalid usage of +N",
    "can't find label",
    "lacks a label",
    "missing filename",
    "command only uses one address",
    "delimiter character",
    "expected newer version of sed",
    SANDBOXED,
)
"""sed's messages about a script's structure: where the parser must agree. Others (a bad
regex, ``y`` strings of different lengths, ``v`` asking for a newer sed) it does not model."""


@dataclass
class Outcome:
    rc: int
    stderr: str
    created: set[str]
    sandbox_refused: bool
    sandbox_stderr: str
    dump: list[str] | None
    ran: bool


class SedLab:
    def __init__(self, base: Path) -> None:
        self.base = base
        self.shims = base / "shims"
        self.shims.mkdir()
        shim = self.shims / "evil"
        shim.write_text('#!/bin/sh\n: > "$SED_DIFF_MARK"\n')
        shim.chmod(0o755)
        self.jail = Jail(BWRAP, base) if BWRAP is not None else None
        """Where sed runs: one bwrap for the lab, in which only the lab is writable."""

    def run(self, scripts: list[str]) -> Outcome:
        args: list[str] = []
        for script in scripts:
            args += ["-e", script]
        root = Path(tempfile.mkdtemp(dir=self.base, prefix="run-"))
        try:
            env = {"PATH": str(self.shims), "LC_ALL": "C.UTF-8", "SED_DIFF_MARK": str(root / "m")}
            work = root / "w"
            work.mkdir()
            plain = self._sed(["-n", *args], work, env, "")
            created = {p.name for p in work.iterdir()}
            boxed = self._sed(["--sandbox", "-n", *args], root, env, "")
            dump = None
            if plain.returncode == 0:
                debug = self._sed(["--debug", "-n", *args], root, env, "")
                lines = debug.stdout.split("\n")
                if lines and lines[0] == "SED PROGRAM:":
                    dump = lines[1:]
            live = root / "live"
            live.mkdir()
            (live / "in1").write_text("data\n")
            if plain.returncode == 0:  # a script may loop (`:a;ba`): a short leash
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self._sed([*args], live, env, "one\ntwo\nthree\n", timeout=3)
            return Outcome(
                plain.returncode,
                plain.stderr,
                created,
                SANDBOXED in boxed.stderr,
                boxed.stderr,
                dump,
                (root / "m").exists(),
            )
        finally:
            shutil.rmtree(root, ignore_errors=True)

    def _sed(
        self, args: list[str], cwd: Path, env: dict[str, str], stdin: str, timeout: float = 20
    ) -> subprocess.CompletedProcess[str]:
        assert SED is not None
        if self.jail is not None:  # a generated `w /x` must not write outside the lab
            return self.jail.run([SED, *args], cwd, env, stdin, timeout)
        return subprocess.run(
            [SED, *args],
            cwd=cwd,
            env=env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def close(self) -> None:
        if self.jail is not None:
            self.jail.close()


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SedLab]:
    made = SedLab(tmp_path_factory.mktemp("sed-differential"))
    yield made
    made.close()


def structural(message: str) -> bool:
    return any(part in message for part in STRUCTURAL)


def check(lab: SedLab, scripts: list[str], stats: Counter[str] | None = None) -> SedProgram:
    program = parse_sed([(s, False) for s in scripts])
    out = lab.run(scripts)
    where = f"\nscripts: {scripts!r}\nparser: {program}\nsed: rc={out.rc} {out.stderr!r}"
    assert program.unsure is None, "the parser was unsure of a plain ASCII script" + where
    if stats is not None:
        stats["accepted" if out.rc == 0 else "refused"] += 1
    # files sed creates in its directory (an absolute name lands elsewhere, in the jail)
    written = {name for name in program.files_written if not name.startswith("/")}
    if program.error is not None:
        assert out.rc != 0, "the parser refused a script sed accepts" + where
        assert out.created <= written, "sed created a file the parser did not see" + where
        return program
    if out.rc != 0:
        assert not structural(out.stderr), "sed refused the structure, the parser did not" + where
        assert out.created <= written, "sed created a file the parser did not see" + where
        return program
    assert out.created == written, "files written differ" + where
    assert out.sandbox_refused == program.needs_sandbox_off, (
        f"--sandbox says e/r/w: {out.sandbox_refused}" + where + f"\n{out.sandbox_stderr!r}"
    )
    if out.ran:
        assert program.runs, "sed ran a command the parser did not see" + where
    newlines = ("\\\n", "\\n")  # sed --debug prints them as line breaks
    if out.dump is not None and not any(n in script for script in scripts for n in newlines):
        compare_dump(program, out.dump, where)
    return program


def compare_dump(program: SedProgram, dump: list[str], where: str) -> None:
    """Each command of the parser's program has its line in ``sed --debug``'s listing (texts of
    a/i/c/e span lines, so the listing is compared only without them)."""
    if program.texts or any(letter in "aic" for letter in program.commands):
        return
    lines = [line for line in dump if line.strip()]  # an escaped newline in a regex splits one
    letters = [c for c in program.commands]
    assert len(lines) == len(letters), f"sed --debug lists {len(lines)} commands" + where
    reads = list(program.reads)
    writes = list(program.writes)
    for line, letter in zip(lines, letters, strict=True):
        body = line.lstrip()
        if letter in "rR":
            name, _ = reads.pop(0)
            assert body.endswith(f"{letter} {name}"), (line, where)
        elif letter in "wW":
            name, how = writes.pop(0)
            assert "`s` command" not in how, (line, where)
            assert body.endswith(f"{letter}{name}"), (line, where)
        elif letter == "s":
            assert "s" in body, (line, where)
            if writes and "`s` command" in writes[0][1] and body.endswith("w" + writes[0][0]):
                writes.pop(0)
        elif letter == "e":
            assert body.rstrip() == "e" or " e" in body, (line, where)
        elif letter in "{}":
            assert body.endswith(letter), (line, where)
        elif letter in "=dDFgGhHnNpPzxlLqQ":
            assert letter in body, (line, where)
    assert not writes, ("writes sed --debug does not list", writes, where)
    assert not reads, ("reads sed --debug does not list", reads, where)


# -- hand-written cases -------------------------------------------------------------------------

TRICKY = [
    ["p"],
    ["1,20p"],
    ["s/a/b/g"],
    ["s|a|b|w o1"],
    ["s/a/b/w o1"],
    ["s,a,b,gw o1"],
    ["s/a/b/ g p w o1"],
    ["s/a/b/;s/c/d/w o2"],
    ["/x/I w o1"],
    ["/x/M w o1"],
    ["/x/IM e evil"],
    ["/x/I,/y/M e evil"],
    ["\\cxcw o1"],
    ["\\c\\cxc p"],
    ["\\,a\\,b, w o1"],
    ["s/[/]/X/w o1"],
    ["s/[/]w o1/y/"],
    ["s/a\\/w o2/b/"],
    ["s/a/b\\/w o2/"],
    ["s/a/b\\\nc/w o1"],
    ["s/a\\\n/b/"],
    ["s/[[:alpha:]/]/x/w o1"],
    ["s/[]/]/x/"],
    ["s/[^]/]/x/ w o1"],
    ["s/[[.].]]/x/w o1"],
    ["s/[[=/=]]/x/w o1"],
    ["s/a/b/e"],
    ["s/a/b/ep"],
    ["s/a/b/pe"],
    ["s/a/b/3w o1"],
    ["s/a/b/0"],
    ["s\\a\\b\\w o1"],
    ["s a b w o1"],
    ["sxaxbxw o1"],
    ["s;a;b;w o1"],
    ["s}a}b}w o1"],
    ["s{a{b{w o1"],
    ["s#a#b#w o1"],
    ["s/a/b/ # comment w o1"],
    ["s/a/b/}"],
    ["{s/a/b/}"],
    ["{s/a/b/w o1}"],
    ["{s/a/b/w o1\n}"],
    ["y/abc/xyz/"],
    ["y/a\\/b/x\\/y/"],
    ["y/a/b/;w o1"],
    ["a hello"],
    ["a\\\nhello"],
    ["a\\hello\\\nw o1"],
    ["a hello\\\nw o1"],
    ["a hello\nw o1"],
    ["1i\\", "w o1"],
    ["1i\\", "hello", "w o2"],
    ["a foo\\", "w o1"],
    ["c\\\n"],
    ["e"],
    ["e evil"],
    ["1e evil"],
    ["$!e evil"],
    ["e\\\nevil"],
    ["1!G;h;$!d"],
    [":a;N;$!ba;s/\\n/ /g"],
    [":a\nN\nba"],
    ["b end; :end"],
    ["b nowhere"],
    ["r in1"],
    ["R in1"],
    ["0r in1"],
    ["1r in1\np"],
    ["w o1;p"],
    ["w o1}"],
    ["W o1"],
    ["w /dev/stdout"],
    ["w /dev/stderr"],
    ["s/a/b/w /dev/stdout"],
    ["0,/x/w o1"],
    ["0,5p"],
    ["0p"],
    ["1~2w o1"],
    ["2~0p"],
    ["1,+3w o1"],
    ["1,~4w o1"],
    ["+3p"],
    ["~2p"],
    ["+0p"],
    ["$w o1"],
    ["$!N"],
    ["1!!p"],
    ["1,p"],
    ["#n\np"],
    ["# w o1\np"],
    ["1# comment"],
    ["v"],
    ["v 4.2\nw o1"],
    ["v 9.9"],
    ["q5"],
    ["q 5;w o1"],
    ["1,2q"],
    ["l 3"],
    ["L"],
    ["=;l;F;z"],
    ["p x"],
    ["}"],
    ["{p"],
    ["{", "p", "}"],
    ["{p};w o1"],
    ["!p"],
    ["1!{w o1\n}"],
    ["s/\\(/x/w o1"],
    ["s/a/\\1/w o1"],
    ["y/ab/x/;w o1"],
    ["w o1", "s/\\(/x/"],
    ["s/a/b/;w o1", "s/c"],
    ["s/x/y/;s/a/b/w o 3"],
    ["/a/,/b/{/c/!{s/d/e/w o1\n}}"],
    ["s/a/b/\r\np"],
    ["s/a/b/\rp"],
    ["1\n p"],
    ["\\\nxp"],
    ["s\nab\n"],
]


@pytest.mark.parametrize("scripts", TRICKY, ids=lambda s: repr(s)[:60])
def test_tricky_scripts_agree_with_sed(lab: SedLab, scripts: list[str]) -> None:
    check(lab, scripts)


def test_the_lab_sees_what_sed_does(lab: SedLab) -> None:
    """The oracles work: a w file appears, --sandbox refuses e/r/w, e runs the shim."""
    out = lab.run(["w o1"])
    assert out.created == {"o1"}
    assert out.sandbox_refused
    out = lab.run(["1e evil"])
    assert out.ran
    assert out.sandbox_refused
    assert not out.created
    out = lab.run(["p"])
    assert not out.ran
    assert not out.sandbox_refused
    assert out.created == set()


# -- generated scripts ---------------------------------------------------------------------------

# The grammar builds each strategy once, not at every draw: Hypothesis validates a strategy it
# has not drawn from before, and building and validating strategies anew at every draw was
# most of generating's CPU time. A strategy built with the same arguments draws the same values
# from the same choices: the scripts are the same, one for one.
_ints = cache(st.integers)
_pick = cache(st.sampled_from)
_lists = cache(st.lists)

NAMES = _pick(("o1", "o2", "o 3", "o1;p", "o1}", "in1", "/dev/stdout", "/dev/stderr"))
DELIMS = _pick(tuple("/|,#:@!x;} e\\[]w_.^$*+&1 "))
REGEX_CHARS = _pick(tuple("ab/|\\[]^:.=;}{ \nwe&1#x*"))


@cache
def _regex(delim: str) -> st.SearchStrategy[str]:
    piece = st.one_of(
        st.text(_pick(tuple("abc.*^$")), max_size=3),
        st.just("\\" + delim),
        st.just("[" + delim + "]"),
        st.just("[^" + delim + "]"),
        st.just("[[:alpha:]" + delim + "]"),
        st.just("[]" + delim + "]"),
        st.just("\\\n"),
        st.just("\\n"),
        st.just("\\\\"),
        REGEX_CHARS,
    )
    return _lists(piece, max_size=4).map("".join)


@cache
@st.composite
def substitution(draw: st.DrawFn) -> str:
    delim = draw(DELIMS)
    flags = draw(_lists(_pick(("g", "p", "i", "I", "m", "M", "e", "2", " ")), max_size=3))
    tail = "".join(flags)
    if draw(st.booleans()):
        tail += "w " + draw(NAMES)
    return "s" + delim + draw(_regex(delim)) + delim + draw(_regex(delim)) + delim + tail


@cache
@st.composite
def address(draw: st.DrawFn) -> str:
    def one() -> st.SearchStrategy[str]:
        delim = draw(_pick(tuple("/,|x#")))
        regex = draw(_regex(delim))
        flags = draw(_pick(("", "I", "M", "IM", " I")))
        form = ("/" + regex + "/") if delim == "/" else ("\\" + delim + regex + delim)
        return _pick(("1", "$", "0", "2~3", "0~4", "+2", "~3", form + flags))

    first = draw(one())
    if draw(st.booleans()):
        first += "," + draw(one())
    if draw(st.booleans()):
        first += draw(_pick(("!", " !", "! ")))
    return first


SIMPLE = _pick(
    (
        "p",
        "d",
        "=",
        "l",
        "l 3",
        "q",
        "q2",
        "Q",
        "n",
        "N",
        "x",
        "z",
        "F",
        "g",
        "G",
        "h",
        "H",
        "D",
        "P",
        "e",
        "e evil",
        ":a",
        "b a",
        "b",
        "t",
        "T a",
        "# w o1",
        "v",
        "y/ab/ba/",
        "y,a\\,,\\,a,",
    )
)


@cache
@st.composite
def command(draw: st.DrawFn, depth: int = 0) -> str:
    kind = draw(_ints(0, 9))
    if kind <= 2:
        body = draw(substitution())
    elif kind <= 4:
        body = draw(SIMPLE)
    elif kind == 5:
        letter = draw(_pick(("r", "R", "w", "W")))
        body = letter + draw(_pick(("", " ", "  "))) + draw(NAMES)
    elif kind == 6:
        letter = draw(_pick(("a", "i", "c")))
        text = draw(_pick(("hi", " hi", "\\\nhi", "hi\\\nw o1", "\\", "x\\", "w o2")))
        body = letter + draw(_pick(("", " ", "\\", "\\\n"))) + text
    elif kind == 7 and depth < 2:
        inner = draw(_lists(command(depth + 1), max_size=3))
        body = "{" + ";".join(inner) + draw(_pick(("}", ";}", "\n}", " }")))
    else:
        body = draw(substitution())
    prefix = draw(address()) if draw(st.booleans()) else ""
    return prefix + body


@cache
@st.composite
def scripts(draw: st.DrawFn) -> list[str]:
    commands = draw(_lists(command(), min_size=1, max_size=4))
    seps = [draw(_pick((";", "\n", " ; ", ";;", "", " "))) for _ in commands]
    text = "".join(c + s for c, s in zip(commands, seps, strict=True))
    for _ in range(draw(_ints(0, 2))):  # noise
        at = draw(_ints(0, len(text)))
        text = text[:at] + draw(_pick(tuple("\\\n;}{/|ew [] "))) + text[at:]
    cuts = sorted(draw(_lists(_ints(0, len(text)), max_size=2)))
    out: list[str] = []
    last = 0
    for cut in cuts:
        out.append(text[last:cut])
        last = cut
    out.append(text[last:])
    return out


STATS: Counter[str] = Counter()


@pytest.mark.timeout(900)  # hundreds of real runs on a shared machine
@settings(
    max_examples=int(os.environ.get("SED_DIFF_EXAMPLES", "400")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    derandomize=True,
)
@given(scripts())
def test_generated_scripts_agree_with_sed(lab: SedLab, generated: list[str]) -> None:
    check(lab, generated, STATS)


test_generated_scripts_agree_with_sed = pytest.mark.skipif(
    BWRAP is None,
    reason="needs a working bwrap: a generated script may name any path (`w /x`), and sed "
    "creates it; the lab confines sed to its own directory",
)(test_generated_scripts_agree_with_sed)


def test_the_generated_corpus_is_varied() -> None:
    """Run after the fuzz test (same module): both accepted and refused scripts were made."""
    if not STATS:
        pytest.skip("the fuzz test did not run in this session")
    assert STATS["accepted"] >= 50, STATS
    assert STATS["refused"] >= 20, STATS
