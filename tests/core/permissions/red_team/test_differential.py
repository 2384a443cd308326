"""Differential fuzzing: the shell analysis against real bash.

The fear: tree-sitter-bash and bash disagree, so the analysis "sees" only allowed commands
while bash runs something else. Here every program a command may name is a *shim* in a
private ``PATH`` (nothing else is on it): each shim records its name and arguments, then exits.
``echo2 lsx catx printx failx`` are allowed by the rules (``run_shell(echo2:*)``…); ``evil rmx
touchx lsxevil`` are not, and they also leave a marker file.

The property, for every command (hand-written, or built by a Hypothesis grammar of tricky
bash — quoting, substitutions, compound commands, heredocs, comments, nested ``bash -c`` —
well-formed or slightly broken): ``analyse`` never raises and the decision is one of
allow/ask/deny; when the pipeline *allows* it, bash runs it and

1. no forbidden shim ran (no such record, no marker file);
2. every shim that ran is a command the analysis listed, with the same arguments whenever the
   analysis knew all of them.

An ask or a deny is never checked (failing closed is fine), only counted.

Known bugs (``KNOWN_BUGS``): each has its example as a strict-xfail case in
``test_tricky_commands``. The fuzz test excuses a failure (and counts it) only when the failing
command has that bug's construct; any other failure is raised. When a bug is fixed its case
passes, strict xfail turns that into a failure, and the entry goes.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import select
import shlex
import shutil
import signal
import subprocess
import tempfile
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agent_tui.core.permissions import PermissionPipeline, Rule, RuleSet
from agent_tui.core.permissions.shell import ShellAnalysis, analyse
from agent_tui.core.tools.builtin import default_registry

ALLOWED = ("echo2", "lsx", "catx", "printx", "failx")
"""Shims the rules allow. ``printx`` prints its arguments (so ``$(printx evil)`` can build a
command name); ``failx`` exits 1 (for ``||``, ``if`` and ``while`` conditions)."""
FORBIDDEN = ("evil", "rmx", "touchx", "lsxevil")
"""Shims no rule allows: running one under an allow decision is a bypass. ``lsxevil`` starts
with an allowed name, for spellings that could split it in two."""
NAMES = ALLOWED + FORBIDDEN
KINDS = frozenset({"allow", "ask", "deny"})

BASH = shutil.which("bash") or "/bin/bash"
SH_IS_DASH = os.path.basename(os.path.realpath("/bin/sh")) == "dash"
RUN_SECONDS = 20
"""Only a safety net: no generated command loops (no ``while`` condition can succeed forever,
function nesting is bounded by ``FUNCNEST``); nothing is decided by how long a run takes."""

LOG_VAR = "AGENT_TUI_DIFF_LOG"
MARK_VAR = "AGENT_TUI_DIFF_MARK"

SHIM = """#!/bin/sh
set -C
n=0
until {{ printf '%s\\0' {name} "$@" > "${log}/$$.$n"; }} 2>/dev/null; do
  n=$((n + 1))
  [ "$n" -lt 100 ] || break
done
{extra}exit {status}
"""
"""One record per run: a file of NUL-terminated fields (name, then each argument), created
with noclobber so concurrent runs (``&``, pipelines) never share one."""

WORKSPACE_FILES = ("evil", "echo2", "x.txt", "a b", "sub/inner.txt")
"""Plain (non-executable) files in the working directory, so globs have something to match
(``e?il`` expands to ``evil``, which PATH then finds as the forbidden shim)."""


@dataclass(frozen=True)
class Call:
    name: str
    args: tuple[str, ...]

    def __str__(self) -> str:
        return shlex.join([self.name, *self.args])


@dataclass
class Run:
    calls: list[Call]
    marks: list[str]
    output: str
    timed_out: bool


class Lab:
    """The shim directory, a template working directory, and the pipeline under test."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.shims = base / "shims"
        self.shims.mkdir()
        for name in NAMES:
            extra = ""
            if name == "printx":
                extra = "printf '%s\\n' \"$*\"\n"
            if name in FORBIDDEN:
                extra = f': >> "${{{MARK_VAR}}}/{name}"\n'
            shim = self.shims / name
            shim.write_text(
                SHIM.format(
                    name=name,
                    log="{" + LOG_VAR + "}",
                    extra=extra,
                    status=1 if name == "failx" else 0,
                )
            )
            shim.chmod(0o755)
        self.workspace = base / "workspace"
        self.workspace.mkdir()
        for rel in WORKSPACE_FILES:
            (self.workspace / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.workspace / rel).write_text("data\n")
        self.pipeline = PermissionPipeline(
            self.workspace, RuleSet(allow=[Rule.parse(f"run_shell({n}:*)") for n in ALLOWED])
        )
        tool = default_registry().get("run_shell")
        assert tool is not None
        self.tool = tool
        self.home = os.path.expanduser("~")

    def judge(self, command: str) -> str:
        return self.pipeline.judge(self.tool, {"command": command}).kind

    def run(self, command: str) -> Run:
        """``env -i PATH=<shims> … bash -c COMMAND`` in a fresh copy of the workspace; returns
        once bash *and everything it started* (``&`` jobs included) have exited."""
        root = Path(tempfile.mkdtemp(dir=self.base, prefix="run-"))
        cwd, log, mark = root / "cwd", root / "log", root / "mark"
        shutil.copytree(self.workspace, cwd)
        log.mkdir()
        mark.mkdir()
        out = root / "output"
        env = {
            "PATH": str(self.shims),
            LOG_VAR: str(log),
            MARK_VAR: str(mark),
            "HOME": self.home,  # so ~ means the same to bash and to the analysis
            "FUNCNEST": "40",
        }
        # Every process bash starts inherits the write end of this pipe: EOF on the read end
        # means all of them have exited, background jobs included.
        read_end, write_end = os.pipe()
        held = fcntl.fcntl(write_end, fcntl.F_DUPFD, 100)
        os.close(write_end)
        timed_out = False
        with out.open("wb") as sink:
            try:
                proc = subprocess.Popen(
                    [BASH, "-c", command],
                    cwd=cwd,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=sink,
                    stderr=subprocess.STDOUT,
                    pass_fds=(held,),
                    start_new_session=True,
                )
            finally:
                os.close(held)
            try:
                ready, _, _ = select.select([read_end], [], [], RUN_SECONDS)
                while ready and os.read(read_end, 4096):
                    ready, _, _ = select.select([read_end], [], [], RUN_SECONDS)
                if not ready:
                    timed_out = True
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=RUN_SECONDS)
            finally:
                os.close(read_end)
                if proc.poll() is None:
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
        calls = []
        for entry in sorted(log.iterdir()):
            fields = entry.read_bytes().decode("utf-8", "surrogateescape").split("\0")
            if fields and fields[-1] == "":
                fields.pop()
            if fields:
                calls.append(Call(fields[0], tuple(fields[1:])))
        marks = sorted(p.name for p in mark.iterdir())
        output = out.read_bytes().decode("utf-8", "replace")
        shutil.rmtree(root, ignore_errors=True)
        return Run(calls, marks, output, timed_out)


def unexplained(analysis: ShellAnalysis, calls: list[Call]) -> list[str]:
    """The calls bash made that the analysis did not list (by program name; by arguments too
    when the analysis knew every argument of every command of that name)."""
    problems = []
    for call in calls:
        candidates = [
            c
            for c in analysis.commands
            if c.words and c.words[0].literal and os.path.basename(c.words[0].text) == call.name
        ]
        if not candidates:
            problems.append(f"bash ran `{call}`, a program the analysis did not list")
            continue
        exact = [c for c in candidates if not c.extra_args and all(w.literal for w in c.words)]
        if len(exact) < len(candidates):
            continue  # some command of that name has run-time arguments: any may come
        if any(tuple(c.argv[1:]) == call.args for c in exact):
            continue
        listed = "; ".join(shlex.join(c.argv) for c in exact)
        problems.append(f"bash ran `{call}`, the analysis listed only `{listed}`")
    return problems


def describe(command: str, analysis: ShellAnalysis, run: Run) -> str:
    return (
        f"\ncommand: {command!r}\n"
        f"bash ran: {[str(c) for c in run.calls]} (markers: {run.marks}, "
        f"timed out: {run.timed_out})\n"
        f"analysis saw: {[shlex.join(c.argv) for c in analysis.commands]} "
        f"(opaque: {analysis.opaque})\n"
        f"bash output: {run.output[-400:]!r}"
    )


# -- known bugs ------------------------------------------------------------------------------


@dataclass(frozen=True)
class KnownBug:
    """A disagreement between the analysis and bash that this test found and that is not
    fixed yet. Its example is a strict-xfail case; the fuzz test excuses a failure only when
    the command has the bug's construct (``signature``, an over-approximation)."""

    example: str
    reason: str
    signature: re.Pattern[str]
    hides_programs: bool
    """It can hide a whole program (a bypass of allow rules), not only arguments."""
    fails_here: bool = True


FIXED: list[tuple[str, str, str]] = [
    # Disagreements this test found and the analysis now handles, kept as regressions:
    # (name, command, what went wrong before the fix).
    (
        "heredoc-then-semicolon",
        "catx <<EOF; evil\n$(lsx)\nEOF\n",
        "BYPASS: `catx <<EOF; evil` + a body with a substitution + a newline after EOF: tree-"
        "sitter makes `evil` a word of the heredoc redirect (argument: word), the walker takes "
        "it for the redirect's target: bash runs evil, the analysis lists catx, lsx",
    ),
    (
        "continuation-in-word",
        "lsx\\\nevil a",
        "BYPASS: backslash-newline inside a word: bash removes it before splitting words (runs "
        "`lsxevil a`), tree-sitter splits the word there (analysis: `lsx evil a`)",
    ),
    (
        "newline-then-backslash",
        "lsx\n\\evil",
        "BYPASS: a newline right before a backslash-escaped word: tree-sitter makes "
        "`<newline>\\evil` one more argument of the command before it (analysis: `lsx "
        "'<newline>evil'`), bash runs a new command, evil",
    ),
    (
        "carriage-return-then-hash",
        "echo2 a\r# ; evil",
        "BYPASS: a carriage return: tree-sitter takes it for a blank, so a `#` after it starts "
        "a comment; to bash it is a word character (`a<CR>#` is a word), and `; evil` runs",
    ),
    (
        "dash-ansi-c",
        "/bin/sh -c 'echo2 $'\"'\"'\\'\"'\"';evil;#'\"'\"''",
        "BYPASS: /bin/sh is dash, and the analysis reads `sh -c` code as bash: bash takes "
        "$'\\';evil;#' for one ANSI-C string, dash (no $'...') runs evil",
    ),
    (
        "ansi-c-ending-in-backslash",
        "echo2 $'a\\\\' ; evil #'",
        "BYPASS: an ANSI-C string whose text ends in an escaped backslash ($'a\\\\'): tree-"
        "sitter's token runs on to the next quote, so `$'a\\\\' ; evil #'` is one word to the "
        "analysis, while bash ends the string and runs evil",
    ),
    (
        "heredoc-blank-before-substitution",
        "echo2 <<F\nabc\n $(evil) $(lsx)\nF\n",
        "BYPASS: in a heredoc body, tree-sitter leaves ` $(evil)` (after a line's leading "
        "blank) unparsed, and the walker checks for unread text only when the body has no "
        "parsed expansion at all: bash runs evil, the analysis lists lsx, echo2",
    ),
    (
        "words-after-a-list-redirect",
        "lsx && echo2 >/dev/null b",
        "MISMATCH: the last command of a list or pipeline with a redirection then words: tree-"
        "sitter hangs the redirection (with the words) on the whole list, the walker drops "
        "those words: bash runs `echo2 b`, the analysis lists `echo2` (a read rule misses `true"
        " && cat 2>/dev/null .env`)",
    ),
    (
        "escaped-blank-starts-word",
        "lsx \\ x",
        "MISMATCH: a word starting with an escaped blank: tree-sitter drops the `\\ ` (analysis:"
        " `lsx x`, bash: `lsx ' x'`)",
    ),
    (
        "carriage-return-in-word",
        "lsx a\r\necho2",
        "MISMATCH: a carriage return ends a word for tree-sitter, not for bash (analysis: `lsx "
        "a`, bash: `lsx 'a<CR>'`)",
    ),
    (
        "empty-brace-word",
        "echo2 {,y} a",
        "MISMATCH: brace expansion to an empty unquoted word: bash drops the word (runs `echo2 "
        "y a`), the analysis keeps it (`echo2 '' y a`)",
    ),
    (
        "newline-in-double-quotes",
        'echo2 "a\nb"',
        'MISMATCH: a newline inside "..." is dropped from the word: tree-sitter splits the '
        "string_content there and the walker joins the pieces (bash: a<newline>b, analysis: ab)",
    ),
]

KNOWN_BUGS: dict[str, KnownBug] = {}


def known_bug(command: str, *, bypass: bool) -> str | None:
    """The known bug a failing command may have run into, or None (then it is a new one)."""
    for name, bug in KNOWN_BUGS.items():
        if bug.fails_here and (bug.hides_programs or not bypass) and bug.signature.search(command):
            return name
    return None


def xfail_known(name: str) -> pytest.MarkDecorator:
    bug = KNOWN_BUGS[name]
    return pytest.mark.xfail(bug.fails_here, strict=True, reason=bug.reason, raises=AssertionError)


# -- the property ----------------------------------------------------------------------------


def check(
    lab: Lab, command: str, stats: Counter[str] | None = None, *, excuse_known: bool = False
) -> str:
    """The property for one command; returns the decision. With ``excuse_known``, a failure
    the command's construct explains by a known bug is counted (``known …``), not raised."""
    analysis = analyse(command)  # never raises
    kind = lab.judge(command)
    assert kind in KINDS, (command, kind)
    if stats is not None:
        stats[kind] += 1
    if kind != "allow":
        return kind
    assert analysis.understood, f"allowed but not understood: {command!r} {analysis.opaque}"
    run = lab.run(command)
    forbidden = [c for c in run.calls if c.name not in ALLOWED]
    problems = unexplained(analysis, run.calls)
    if not forbidden and not run.marks and not problems:
        return kind
    bypass = bool(forbidden or run.marks)
    name = known_bug(command, bypass=bypass) if excuse_known else None
    if name is not None:
        if stats is not None:
            stats[f"known {name}"] += 1
        return kind
    if bypass:
        raise AssertionError(
            "BYPASS: allowed, yet a forbidden program ran" + describe(command, analysis, run)
        )
    raise AssertionError("MISMATCH: " + "; ".join(problems) + describe(command, analysis, run))


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Lab:
    return Lab(tmp_path_factory.mktemp("differential"))


# -- the harness sees what bash runs ---------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("evil a 'b c'", ["evil a 'b c'"]),
        ("echo2 x & evil y >/dev/null 2>&1", ["echo2 x", "evil y"]),
        ("e?il", ["evil"]),
        ("echo2 $'a\\nb' | catx", ["catx", "echo2 'a\nb'"]),
        ("$(printx rmx) -f", ["printx rmx", "rmx -f"]),
        ("failx || touchx; ls; sh -c evil", ["failx", "touchx"]),
    ],
)
def test_the_harness_sees_what_bash_runs(lab: Lab, command: str, expected: list[str]) -> None:
    """The shims record every run, background jobs included; nothing else is on PATH."""
    run = lab.run(command)
    assert sorted(str(c) for c in run.calls) == sorted(expected), run
    assert run.marks == sorted({c.name for c in run.calls if c.name in FORBIDDEN})


def test_known_bug_signatures_are_narrow() -> None:
    """Each signature matches its example, and plain commands match none."""
    for name, bug in KNOWN_BUGS.items():
        assert bug.signature.search(bug.example), name
    assert known_bug("echo2 a; evil", bypass=True) is None


# -- hand-written tricky commands ------------------------------------------------------------

TRICKY = [
    # quoting that could put the analysis out of step with bash
    "echo2 $'\\'' ; evil ; echo2 $'\\''",
    "echo2 $'a\\'b' ; lsx",
    "echo2 $'\\';evil;#'",
    "echo2 'a\\' ; evil ; echo2 'b'",
    'echo2 "a\\"; evil; \\"b"',
    "echo2 a\\;evil",
    "echo2 \\\nevil",
    "lsx \\\n x \\\n",
    "echo2 '$(evil)' \"\\$(evil)\" \\`evil\\`",
    "echo2 {#;evil",
    # comments
    "echo2 $(lsx # )\nevil\n)",
    "echo2 hi # ; evil\nlsx",
    "echo2 a#b; lsx #c\n",
    "echo2 $(catx <<'E'\n)\nE\n)",
    # substitutions
    "echo2 ${x:-`evil`}",
    "echo2 ${x:-$(evil)} ${x:-`lsx`}",
    'echo2 "${x:-$(printx ")")}"',
    "echo2 $(( 1 + 2 )) <(lsx) >(catx)",
    # heredocs
    "catx <<EOF\n$(evil)\nEOF",
    "catx <<'EOF'\n$(evil)\n`evil`\nEOF",
    "catx <<EOF\n${x:-`evil`}\nEOF",
    "catx <<\\EOF | lsx\n$(evil)\nEOF\necho2 done",
    "catx <<-EOF\n\t$(rmx)\n\tEOF",
    "catx <<EOF; evil\nbody\nEOF",
    "catx <<EOF && evil\n$(lsx)\nEOF\n",
    "catx <<EOF | lsx\n$(lsx)\nEOF\n",
    "catx <<A <<B\na\nA\n$(evil)\nB",
    "echo2 <<F\n$(lsx)\n $(evil)\nF\n",
    # names that are not what they seem
    "{evil,arg}",
    "echo2 {evil,arg}",
    "{echo2,evil}",
    "ev{il,x}",
    "$'\\x65vil' a",
    "e''vil",
    "x=evil; $x",
    "echo2() { evil; }; echo2",
    # redirections
    "lsx; echo2 >/dev/null b",
    "echo2 2>&1 >/dev/null b <<<w",
    # compound commands and nested shells
    "if failx; then evil; else echo2 no; fi",
    "for v in a b; do echo2 $v; done; case a in b) evil;; esac",
    "while failx; do evil; done",
    "{ echo2 a; lsx; } 2>&1 | catx",
    "(echo2 a) && (lsx) || evil",
    "/bin/bash -c 'echo2 a; lsx'",
    "/bin/bash -c \"echo2 \\$'\\\\';evil;#'\"",
    "eval 'echo2 x; evil'",
    "command echo2 x; command evil",
    *(pytest.param(command, id=name) for name, command, _ in FIXED),
    # found by a longer random run: a line break just before the closing quote was dropped
    pytest.param('echo2 "\n evil \n" "\n evil \n"', id="newline-before-closing-quote"),
    *(
        pytest.param(bug.example, marks=xfail_known(name), id=name)
        for name, bug in KNOWN_BUGS.items()
    ),
]


@pytest.mark.parametrize("command", TRICKY)
def test_tricky_commands(lab: Lab, command: str) -> None:
    check(lab, command)


# -- the grammar -----------------------------------------------------------------------------

PAYLOADS = (
    ";evil;",
    " && evil ",
    " | rmx",
    ") evil (",
    " # evil",
    "\\",
    "\n evil \n",
    "$(evil)",
    "`touchx`",
    "'",
    '"',
    "}",
    "a b",
    "*",
    "~",
    "",
)
WORDS = (
    "a",
    "-n",
    "x.txt",
    "--",
    "a=b",
    "evil",
    "rmx",
    "{a,b}",
    "{1..3}",
    "x{,y}",
    "e?il",
    "*",
    "~",
    "~/x",
    "a#b",
    "#c",
    "{#",
    "$HOME",
    "$((1+2))",
    "$(<x.txt)",
    "\\$\\(evil\\)",
    "$'a\\\\'",
    "$'\\\\'",
    "'$(evil)'",
    "$v_evil",
    "${u:-a b}",
    "${#u}",
    "$[1+2]",
    '"$(lsx)"',
    "<<<$(lsx)",
    "a\\\nb",
    "x'y'\\\nz",
)
REDIRECTIONS = (
    ">/dev/null",
    "2>/dev/null",
    "2>&1",
    "&>/dev/null",
    "</dev/null",
    "<<<word",
    "<<< $(lsx)",
    ">|/dev/null",
    "1>&2",
)
OPERATORS = ("; ", " && ", " || ", " | ", " & ", "\n", " |& ", ";", "\r\n")
DAMAGE = "'\"`(){};&|#\\\n$"

# The grammar builds each strategy once, not at every draw: Hypothesis validates a strategy it
# has not drawn from before, and building and validating the grammar's strategies anew at every
# draw cost two thirds of this file's CPU time. A strategy built with the same arguments draws
# the same values from the same choices: the examples are the same, command for command.
_ints = cache(st.integers)
_pick = cache(st.sampled_from)
_lists = cache(st.lists)


def term(code: str) -> str:
    """``code`` ended as a statement: a ``;`` unless it already ends in a newline or ``&``."""
    return code if code.endswith(("\n", "&")) else code + ";"


@cache
@st.composite
def program_name(draw: st.DrawFn, pool: tuple[str, ...] = ALLOWED) -> str:
    """A program name (one in ten forbidden), spelled in one of the ways bash allows; one in
    sixteen is only known at run time (a glob, a substitution, a variable)."""
    if pool == ALLOWED and draw(_ints(0, 9)) == 0:
        pool = FORBIDDEN
    name = draw(_pick(pool))
    cut = draw(_ints(1, len(name) - 1))
    head, tail = name[:cut], name[cut:]
    if draw(_ints(0, 15)) == 0:
        return draw(
            _pick(
                (
                    f"{name[:-1]}?",
                    f"{name[0]}*",
                    f"$(printx {name})",
                    f"`printx {name}`",
                    f"${{u:-{name}}}",
                    f"${{u:-$'{name}'}}",
                    f"$v_{name}",
                )
            )
        )
    if draw(st.booleans()):
        return name
    return draw(
        _pick(
            (
                f"'{name}'",
                f'"{name}"',
                f"{head}\\{tail}",
                f"\\{name}",
                f"$'{name}'",
                f"$'\\x{ord(name[0]):02x}{name[1:]}'",
                f"{head}''{tail}",
                f'{head}"{tail}"',
                draw(_pick((f"{{{name},x}}", f"{{x,{name}}}"))),
                f"{head}{{{tail},q}}",
                f"{head}\\\n{tail}",
            )
        )
    )


@cache
@st.composite
def quoted(draw: st.DrawFn) -> str:
    """A quoted argument holding shell syntax; usually quoted right, sometimes not."""
    payload = draw(_pick(PAYLOADS))
    text = draw(_pick(("a", "", "x y"))) + payload + draw(_pick(("", "b")))
    style = draw(_ints(0, 15))
    if style <= 3:
        return shlex.quote(text)
    if style <= 6:
        return '"' + "".join("\\" + c if c in '"\\$`' else c for c in text) + '"'
    if style <= 9:
        return "$'" + "".join("\\" + c if c in "'\\" else c for c in text) + "'"
    if style <= 11:
        return "".join(c if c.isalnum() else "\\" + c for c in text)
    if style == 12:
        return "$'\\'" + text.replace("'", "\\'") + "'"  # a value starting with a quote
    if style == 13:
        return "'" + text + "'"  # not escaped: broken when the payload has a quote
    if style == 14:
        return '"' + text + '"'
    return "$'" + text + "'"


def substitution(draw: st.DrawFn, depth: int) -> str:
    inner = draw(command_list(depth + 1))
    form = draw(
        _pick(
            (
                "$({})",
                '"$({})"',
                "`{}`",
                "${{u:-$({})}}",
                "${{u:-`{}`}}",
                '"${{u:-$({})}}"',
                "<({})",
                ">({})",
                "$({} # )\n)",
                "$(( 1 + $({}) ))",
            )
        )
    )
    if "`" in form:
        inner = inner.replace("`", "")
    return form.format(inner)


@cache
@st.composite
def argument(draw: st.DrawFn, depth: int) -> str:
    kind = draw(_ints(0, 8 if depth < 2 else 6))
    if kind <= 2:
        return draw(_pick(WORDS))
    if kind <= 6:
        return draw(quoted())
    return substitution(draw, depth)


@cache
@st.composite
def simple(draw: st.DrawFn, depth: int) -> str:
    words = []
    if draw(_ints(0, 5)) == 0:
        words.append(draw(_pick(("A=1", "B='x y'", "C=$(lsx)", 'D="$(evil)"', "E=a\\;b"))))
    wrapper = draw(_pick(("",) * 8 + ("command ", "builtin ", "exec ", "time ")))
    words.append(wrapper + draw(program_name()))
    words.extend(draw(_lists(argument(depth), max_size=2)))
    redirections = draw(_lists(_pick(REDIRECTIONS), max_size=2))
    if len(redirections) == 2 and redirections[1].startswith("<<<"):
        redirections.reverse()  # a herestring after a redirection does not parse (see below)
    words.extend(redirections)
    if draw(_ints(0, 7)) == 0:  # bash takes words after a redirection as arguments
        words.append(draw(argument(depth)))
    return " ".join(words)


@cache
def heredoc_line(depth: int) -> st.SearchStrategy[str]:
    """A line of a heredoc's body: text, or a substitution of a command list."""
    inner = command_list(depth + 1)
    return st.one_of(
        _pick(("text", "EOF ", " EOF", "EOF2", "\\$(evil)", "$x", "'", ")")),
        st.builds(lambda c: f"$({c})", inner),
        st.builds(lambda c: " $(" + c + ")", inner),
        st.builds(lambda c: "`" + c.replace("`", "") + "`", inner),
        st.builds(lambda c: f"${{u:-`{c.replace('`', '')}`}}", inner),
    )


@cache
@st.composite
def heredoc(draw: st.DrawFn, depth: int) -> str:
    start, end = draw(
        _pick(
            (
                ("<<EOF", "EOF"),
                ("<<'EOF'", "EOF"),
                ('<<"EOF"', "EOF"),
                ("<<\\EOF", "EOF"),
                ("<<-EOF", "\tEOF"),
                ("<<E\\OF", "EOF"),
                ("<< 'E F'", "E F"),
            )
        )
    )
    lines = []
    for _ in range(draw(_ints(1, 3))):
        line = draw(heredoc_line(depth))
        lines.append(("\t" if start.startswith("<<-") else "") + line)
    after = draw(
        _pick(("", "", "", "", " | lsx", " && echo2 ok", " | evil", " || evil", "; evil", " & rmx"))
    )
    name = draw(program_name())
    return f"{name} {start}{after}\n" + "\n".join(lines) + f"\n{end}\n"


@cache
@st.composite
def compound(draw: st.DrawFn, depth: int) -> str:
    body = command_list(depth + 1)
    kind = draw(_ints(0, 13))
    a, b = draw(body), draw(body)
    if kind == 0:
        return f"if {term(a)} then {term(b)} fi"
    if kind == 1:
        return f"if {term(a)} then {term(b)} else {term(draw(body))} fi"
    if kind == 2:
        words = " ".join(draw(_lists(argument(depth + 1), min_size=1, max_size=2)))
        return f"for v in {words}; do {term(a)} done"
    if kind == 3:  # the condition ends with failx: the loop ends
        return f"while {term(a)} failx; do {term(b)} done"
    if kind == 4:
        subject = draw(argument(depth + 1))
        end = draw(_pick((";;", ";;", ";&", ";;&")))
        return f"case {subject} in a|{subject}) {term(a)}{end[1:]} (*) {term(b)}; esac"
    if kind == 5:
        return f"{{ {term(a)} }}"
    if kind == 6:
        return f"( {a} )"
    if kind == 7:
        return f"fn() {{ {term(a)} }}; fn"
    if kind == 8:  # a function that shadows a program
        name = draw(program_name(("echo2", "lsx", "evil")))
        return f"{name}() {{ {term(a)} }}; {term(b)} {name} x"
    if kind == 9:
        return f"function fn {{ {term(a)} }}\nfn"
    if kind == 10:
        return f"! {a}"
    if kind == 11:
        return f"[[ -n {draw(argument(depth + 1))} ]] && {a}"
    if kind == 12:
        shell = draw(_pick(("/bin/bash -c", "eval", "/bin/bash -c", "/bin/sh -c")))
        return f"{shell} {shlex.quote(a)}"
    return f"{a} # {draw(_pick(PAYLOADS))}\n{b}"


@cache
@st.composite
def statement(draw: st.DrawFn, depth: int) -> str:
    choice = draw(_ints(0, 9 if depth < 2 else 5))
    if choice <= 5:
        return draw(simple(depth))
    if choice == 6:
        return draw(heredoc(depth))
    if choice == 7:
        return draw(_pick(("x=evil", "v_evil=evil", "v_lsx=lsx", "u=$(lsx)")))
    return draw(compound(depth))


@cache
@st.composite
def command_list(draw: st.DrawFn, depth: int = 0) -> str:
    parts = draw(_lists(statement(depth), min_size=1, max_size=(3, 2, 1)[min(depth, 2)]))
    out = parts[0]
    for part in parts[1:]:
        op = draw(_pick(OPERATORS))
        out = out + part if out.endswith("\n") else out + op + part
    if draw(_ints(0, 5 if depth == 0 else 11)) == 0:
        opening = draw(_pick((" # ", " # ", " #", "\r# ")))
        out += opening + draw(_pick(PAYLOADS)).replace("\n", " ") + "\n"
    return out


@cache
@st.composite
def commands(draw: st.DrawFn) -> str:
    """A command line from the grammar; one in ten is damaged a little."""
    code = draw(command_list())
    damage = draw(_ints(0, 19))
    if damage >= 2 or not code:
        return code
    at = draw(_ints(0, len(code) - 1))
    if damage == 0:
        return code[:at] + code[at + 1 :]
    return code[:at] + draw(_pick(DAMAGE)) + code[at:]


# -- the fuzz test ---------------------------------------------------------------------------

MAX_EXAMPLES = 600


@pytest.mark.timeout(600)  # hundreds of real bash runs: minutes on a loaded machine
def test_differential_fuzz(lab: Lab) -> None:
    """Allowed commands run nothing but allowed programs, and only those the analysis listed.
    Deterministic (derandomized, no example database). Failures a known bug explains are
    counted, not raised (each known bug has its own strict-xfail case)."""
    stats: Counter[str] = Counter()

    @settings(
        max_examples=MAX_EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(command=commands())
    @example(command="echo2 $(lsx # )\nevil\n)")
    @example(command="echo2 $'\\'' ; evil ; echo2 $'\\''")
    @example(command="catx <<EOF\n$(evil)\nEOF")
    @example(command="echo2 ${x:-`evil`}")
    @example(command="{evil,arg}")
    @example(command="echo2 {evil,arg} && lsx <<'E'\n$(evil)\nE\n")
    def prop(command: str) -> None:
        check(lab, command, stats, excuse_known=True)

    prop()
    print(f"\ndifferential fuzz: {sum(stats[k] for k in KINDS)} commands, {dict(stats)}")
    assert stats["allow"] >= MAX_EXAMPLES // 8, f"too few allowed commands to mean much: {stats}"
    assert stats["ask"] >= MAX_EXAMPLES // 5, f"too few asks: is the grammar too tame? {stats}"
