"""``awk``, ``gawk``, ``mawk``, ``nawk``: their options and what the program does.

Options (gawk 5's ``getopt_long`` table, mawk 1.3.4's list; neither rearranges its arguments:
the first operand is the program unless ``-f``/``-e`` gave one). ``-v x=1``, ``-F :``, ``-F:``
and ``--`` only move where the program is. A program from a file (``-f``, ``-E``, ``-i``) is
not read: not understood. ``-l``/``--load`` and ``@load`` load machine code. gawk's
``-d``/``-o``/``-p`` write a file (``awkvars.out``, ``awkprof.out`` by default). For ``awk`` and
``nawk`` — gawk, mawk or another awk, depending on the machine — only what means the same in
all of them is allowed; gawk's ``--sandbox`` (which turns off ``system``, pipes and
redirections) is honoured for ``gawk`` only (mawk refuses ``-S``; other awks ignore it).

The program is scanned by ``awk_program``: a command it runs (``system``, ``print | cmd``,
``cmd | getline``) given as one string literal is analysed as the shell code it is (``/bin/sh
-c``), each command needing its own rule; one built at run time is unseen code; files it writes
are writes; ``ENVIRON`` asks (the environment holds secrets).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agent_tui.core.permissions.shell.awk_program import AwkProgram, scan
from agent_tui.core.permissions.shell.model import (
    CHOSEN_AT_RUN_TIME,
    DYN,
    FileWrite,
    SimpleCommand,
    Word,
)
from agent_tui.core.permissions.shell.option_table import (
    Arg,
    Kind,
    Table,
    check,
    operand_reads,
    options,
    row,
)

if TYPE_CHECKING:
    from agent_tui.core.permissions.shell.walking import Walker

_PROGRAM_FILE = "reads its awk program from a file, which the analysis does not read"
GAWK = Table(
    "gawk",
    options(
        flags="-b --characters-as-bytes -c --traditional -C --copyright -g --gen-pot -h --help "
        "-I --trace -M --bignum -N --use-lc-numeric -n --non-decimal-data -O --optimize -P "
        "--posix -r --re-interval -s --no-optimize -S --sandbox -t --lint-old -V --version "
        "--nostalgia -k --csv",
        values="-F --field-separator -v --assign -e --source",
        optional="-L --lint",
        rows=(
            row("-f --file -E --exec", Kind.OPAQUE, _PROGRAM_FILE),
            row("-i --include", Kind.OPAQUE, "includes awk code from a file"),
            row("-l --load", Kind.RUNS, "loads a shared library (machine code) into gawk"),
            row("-D --debug", Kind.OPAQUE, "runs gawk's debugger (its commands)", Arg.OPTIONAL),
            row("-T --persist", Kind.OPAQUE, "keeps gawk's memory in a file", Arg.OPTIONAL),
            row(
                "-d --dump-variables",
                Kind.WRITE,
                "writes the program's variables to a file",
                Arg.OPTIONAL,
                "awkvars.out",
            ),
            row(
                "-o --pretty-print -p --profile",
                Kind.WRITE,
                "writes the program (and its profile) to a file",
                Arg.OPTIONAL,
                "awkprof.out",
            ),
        ),
    ),
    permute=False,
)
MAWK = Table(
    "mawk",
    options(
        values="-F -v",
        rows=(
            row("-f", Kind.OPAQUE, _PROGRAM_FILE),
            row("-W", Kind.SAFE, "an implementation option (checked apart)"),
        ),
    ),
    permute=False,
)
AWK = Table(
    "awk",
    options(
        values="-F -v",
        rows=(
            row("-f", Kind.OPAQUE, _PROGRAM_FILE),
            row("-W", Kind.SAFE, "an implementation option (checked apart)"),
        ),
    ),
    permute=False,
)
MAWK_W = frozenset({"version", "dump", "help", "usage", "interactive", "posix_space"})
MAWK_W_VALUED = re.compile(r"(random|sprintf)=[0-9]+")
AWK_W = frozenset({"version", "help", "usage"})
"""``-W`` words that mean the same to gawk (``--version``…; others are ignored with a
warning) and mawk."""
TABLES = {"gawk": GAWK, "mawk": MAWK, "awk": AWK, "nawk": AWK}


def judge_awk(w: Walker, command: SimpleCommand, base: str) -> bool:
    a = w.a
    table = TABLES.get(base, AWK)
    args = _gawk_w(command.words[1:]) if table is GAWK else command.words[1:]
    parsed = check(w, command, table, args=args, kinds=False)
    sources: list[Word] = []
    from_file = False
    sandbox = False
    for used in parsed.used:
        value = used.value
        if used.name == "-W" and value is not None:
            _w_option(w, base, value)
        elif used.name in ("-e", "--source") and value is not None:
            sources.append(value)
        elif used.name in ("-S", "--sandbox"):
            sandbox = table is GAWK
        elif used.opt.kind is not Kind.SAFE:
            if used.name in ("-f", "--file", "-E", "--exec", "-i", "--include"):
                from_file |= used.name not in ("-i", "--include")  # -i adds a library only
                if value is not None and value.text != "-":
                    operand_reads(w, command, [value], base)
                a.note_code(f"{base} {used.name} (a program file)", "")
            _option(w, base, used.name, used.opt.kind, used.opt.why, used.opt.default, value)
    operands = parsed.operands
    if not sources and not from_file:
        if not operands:
            return True
        sources, operands = [operands[0]], operands[1:]
    if sources:
        _program(w, base, sources, sandbox)
    files = [word for word in operands if not _assignment(word)]
    operand_reads(w, command, files, base)
    return True


def _gawk_w(args: list[Word]) -> list[Word]:
    """gawk reads ``-W name[=value]`` (and ``-Wname``) as ``--name[=value]``."""
    out: list[Word] = []
    i = 0
    while i < len(args):
        text = args[i].text
        if text == "--" or not text.startswith("-"):
            out.extend(args[i:])
            break
        if text == "-W" and i + 1 < len(args):
            long = "--" + args[i + 1].text
            out.append(Word(long, long))
            i += 2
            continue
        if text.startswith("-W") and len(text) > 2:
            out.append(Word("--" + text[2:], "--" + text[2:]))
        else:
            out.append(args[i])
        i += 1
    return out


def _w_option(w: Walker, base: str, value: Word) -> None:
    allowed = AWK_W if base in ("awk", "nawk") else MAWK_W
    text = value.text
    if text in allowed or (base == "mawk" and MAWK_W_VALUED.fullmatch(text)):
        return
    if text.startswith("e") and "exec".startswith(text.split("=")[0]):
        w.a.note_code(f"{base} -W exec (a program file)", "")
    w.a.note_opaque(
        f"{base}: -W {value.shown} is not among the -W options the analysis knows for {base} "
        f"(only {', '.join(sorted(allowed))}; -W exec reads the program from a file)"
    )


def _option(
    w: Walker, base: str, name: str, kind: Kind, why: str, default: str | None, value: Word | None
) -> None:
    a = w.a
    shown = name + (f" {value.shown}" if value is not None else "")
    if kind is Kind.WRITE:
        target = value if value is not None and value.text else Word(default or DYN, default or "")
        if target.text not in ("-", "/dev/stdout", "/dev/stderr"):
            a.writes.append(FileWrite(target, f"{base} {name}"))
    elif kind is Kind.RUNS:
        a.note_unseen(f"{base}: {shown} {why}")
    else:
        a.note_opaque(f"{base}: {shown} {why}")


def _assignment(word: Word) -> bool:
    """``var=value`` operands set a variable; they are not files."""
    return bool(re.match(r"[A-Za-z_][A-Za-z0-9_]*=", word.text))


def _program(w: Walker, base: str, sources: list[Word], sandbox: bool) -> None:
    a = w.a
    for word in sources:
        a.texts.append(word.text)
        if not word.literal:
            a.note_unseen(f"{base}: a program known only when the command runs")
            return
    text = "\n".join(word.text for word in sources)
    if any(word.text.endswith("\\") for word in sources[:-1]):
        a.note_opaque(f"{base}: a program text ending in a backslash, joined to the next one")
        return
    program = scan(text)
    if program.unsure is not None:
        a.note_opaque(f"{base}: a program the analysis cannot read surely ({program.unsure})")
        a.note_code(f"the {base} program", text)
        return
    _facts(w, base, program, sandbox, text)


def _facts(w: Walker, base: str, program: AwkProgram, sandbox: bool, text: str) -> None:
    a = w.a
    for what in program.opaque:
        if what.startswith("@include") or what.startswith("a network"):
            a.note_opaque(f"{base}: the program uses {what}")
    if program.environment:
        a.note_opaque(
            f"{base}: the program reads ENVIRON, the environment, which may hold secrets such "
            "as API keys (print the variable you need with printenv NAME instead)"
        )
    if program.argv:
        a.unknown_reads.append(
            (f"{base}: the program sets ARGV (files chosen when it runs)", CHOSEN_AT_RUN_TIME)
        )
    if sandbox:  # gawk --sandbox: system, pipes and redirections fail when reached
        return
    for command in program.commands:
        if command is None:
            reason = next((o for o in program.opaque if not o.startswith("@include")), None)
            a.note_unseen(
                f"{base}: the program runs a command built when it runs"
                + (f" ({reason})" if reason else " (system or a pipe with a computed command)")
            )
            a.note_code(f"the {base} program", text)
        elif "$'" in command or '$"' in command:
            a.note_unseen(f"{base}: the program runs {command!r} in sh, which reads $'…' apart")
        else:
            a.texts.append(command)
            w.shell_code(Word(command, command), f"{base} (system or a pipe)")
    for target, how in program.writes:
        word = Word(target, target) if target is not None else Word(DYN, "")
        shown = how if target is not None else f"{how} to a file named when it runs"
        a.writes.append(FileWrite(word, f"{base}: {shown}"))
    for source in program.reads:
        if source is None:
            a.unknown_reads.append(
                (f"{base}: getline < a file named when it runs", CHOSEN_AT_RUN_TIME)
            )
        else:
            a.reads.append(Word(source, source))
