"""``jq`` (1.6/1.7): its options, and its program read token by token.

A jq program cannot run commands or write files; what it can reach is the environment
(``env``, ``$ENV``: where secrets such as API keys live) and other files (``import``,
``include`` and ``modulemeta`` read modules and data files from the library path). Those make
the command not understood; everything else in a program is data processing. The lexer knows
jq's strings (with ``\\(…)`` interpolations, code again), comments, ``$variables``, ``.fields``
(``.env`` is a field, not the environment) and ``@formats``; a character it has no token for
makes the program unsure.

Options: ``-f``/``--from-file`` makes the first operand the program's file (not read: not
understood); ``--rawfile``/``--slurpfile NAME FILE`` read FILE; ``--arg``/``--argjson`` take two
words; ``--args``/``--jsonargs`` turn later operands into arguments; ``--run-tests`` runs a
test file. Options may come anywhere before ``--``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agent_tui.core.permissions.shell.model import SimpleCommand, Word
from agent_tui.core.permissions.shell.option_table import operand_reads

if TYPE_CHECKING:
    from agent_tui.core.permissions.shell.walking import Walker

FLAGS = frozenset(
    [
        "-n",
        "--null-input",
        "-R",
        "--raw-input",
        "-s",
        "--slurp",
        "-c",
        "--compact-output",
        "-r",
        "--raw-output",
        "-j",
        "--join-output",
        "-a",
        "--ascii-output",
        "-S",
        "--sort-keys",
        "-C",
        "--color-output",
        "-M",
        "--monochrome-output",
        "--tab",
        "-e",
        "--exit-status",
        "--seq",
        "--stream",
        "--stream-errors",
        "--unbuffered",
        "-h",
        "--help",
        "-V",
        "--version",
        "--build-configuration",
        "--raw-output0",
        "--debug-dump-disasm",
        "--debug-trace",
        "-0",
        "--nul-output",
        "-b",
        "--binary",
    ]
)
SHORT_FLAGS = frozenset(name[1] for name in FLAGS if len(name) == 2)
ONE_VALUE = frozenset({"--indent", "-L", "--library-path"})
TWO_VALUES = frozenset({"--arg", "--argjson", "--slurpfile", "--rawfile"})
_TOKEN = re.compile(
    r"""(?P<space>\s+)|(?P<comment>\#[^\n]*)|(?P<var>\$[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*)
    |(?P<field>\.[A-Za-z_][A-Za-z0-9_]*)|(?P<ident>[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*)
    |(?P<format>@[A-Za-z0-9_]+)|(?P<number>[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?|\.[0-9]+)
    |(?P<op>\?//|//=|\|=|\+=|-=|\*=|/=|%=|==|!=|<=|>=|\.\.|//|[.\[\]{}()|,:;=<>+\-*/%?])""",
    re.X,
)
MAX_PROGRAM = 200_000
"""Characters read at most: a longer program is not understood (bounded time)."""
READS_FILES = frozenset({"import", "include", "modulemeta", "get_search_list"})


def scan_jq(source: str) -> tuple[list[str], str | None]:
    """(what the program reaches outside its input, why it is unsure or None)."""
    found: list[str] = []
    if len(source) > MAX_PROGRAM:
        return found, f"a program longer than {MAX_PROGRAM:,} characters"
    try:
        _scan(source, 0, found, top=True)
    except ValueError as exc:
        return found, str(exc)
    return found, None


def _scan(source: str, i: int, found: list[str], top: bool) -> int:
    """Scan from ``i``; inside an interpolation, stop at its closing ``)``."""
    depth = 0
    previous = ""
    while i < len(source):
        ch = source[i]
        if ch == '"':
            i = _string(source, i + 1, found)
            previous = "string"
            continue
        match = _TOKEN.match(source, i)
        if match is None:
            raise ValueError(f"a character jq has no token for ({ch!r})")
        kind = match.lastgroup or ""
        text = match.group()
        i = match.end()
        if kind in ("space", "comment"):
            continue
        if kind == "op" and text == "(":
            depth += 1
        elif kind == "op" and text == ")":
            if depth == 0 and not top:
                return i
            depth -= 1
        if kind == "var" and text == "$ENV":
            found.append("$ENV, the environment")
        elif kind == "ident" and text == "env" and previous != "def":
            found.append("env, the environment")
        elif kind == "ident" and text in READS_FILES:
            found.append(f"{text}, which reads modules or data files")
        previous = text if kind == "ident" else kind
    if not top:
        raise ValueError("an unclosed \\( in a string")
    return i


def _string(source: str, i: int, found: list[str]) -> int:
    while i < len(source):
        ch = source[i]
        if ch == '"':
            return i + 1
        if ch == "\\":
            if source.startswith("(", i + 1):
                i = _scan(source, i + 2, found, top=False)
                continue
            i += 2
            continue
        i += 1
    raise ValueError("an unterminated string")


def judge_jq(w: Walker, command: SimpleCommand, base: str) -> bool:
    a = w.a
    args = command.words[1:]
    positionals: list[Word] = []
    from_file = args_mode = False
    done = False
    i = 0
    while i < len(args):
        word = args[i]
        text = word.text
        if done or not text.startswith("-") or text == "-":
            positionals.append(word)
            i += 1
            continue
        if text == "--":
            done = True
            i += 1
            continue
        if not word.literal:
            a.note_opaque(f"jq: the option {word.raw or word.shown!r} is known only when it runs")
            i += 1
            continue
        if text in ("-f", "--from-file"):
            from_file = True
        elif text in ("--args", "--jsonargs"):
            args_mode = True
        elif text in ONE_VALUE:
            i += 1
        elif text.startswith("-L") and len(text) > 2:
            pass
        elif text in TWO_VALUES:
            if text in ("--slurpfile", "--rawfile") and i + 2 < len(args):
                operand_reads(w, command, [args[i + 2]], base)
            i += 2
        elif text == "--run-tests":
            a.note_opaque("jq: --run-tests runs the tests of a file the analysis does not read")
        elif text not in FLAGS and not (
            len(text) > 2 and text[1] != "-" and all(c in SHORT_FLAGS for c in text[1:])
        ):
            a.note_opaque(
                f"jq: {text} is not among the options the analysis knows for jq (only those in "
                "its table are allowed under a rule)"
            )
        i += 1
    if not positionals:
        return True
    program, rest = positionals[0], positionals[1:]
    if from_file:
        operand_reads(w, command, [program], base)
        a.note_opaque(f"jq: -f {program.shown} reads the jq program from a file, not read here")
    elif not program.literal:
        a.note_opaque(f"jq: a program known only when the command runs ({program.raw[:40]})")
    else:
        a.texts.append(program.text)
        reached, unsure = scan_jq(program.text)
        if unsure is not None:
            a.note_opaque(f"jq: a program the analysis cannot read surely ({unsure})")
        for what in reached:
            a.note_opaque(
                f"jq: the program uses {what}; the environment may hold secrets such as API "
                "keys (pass what you need with --arg NAME VALUE)"
                if "environment" in what
                else f"jq: the program uses {what}"
            )
    if not args_mode:
        operand_reads(w, command, rest, base)
    return True
