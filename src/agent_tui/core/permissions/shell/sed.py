"""``sed``: its options (GNU sed 4.9's ``getopt_long`` table) and what its script does.

Scripts are read by ``sed_script`` in the order sed compiles them: every ``-e`` /
``--expression`` where it stands among the options (``--sandbox`` applies to those after it),
then, when there is none and no ``-f``, the first operand. A script from a file (``-f``,
``--file``) is not read: the command is not understood. What the script does becomes facts:
``w`` files are writes, ``r`` files reads, ``e`` and ``s///e`` run shell code the analysis does
not follow. ``-i`` / ``--in-place`` writes every input file, and its backup when a suffix is
given (a ``*`` in the suffix is the file's name: ``-i'bak/*'`` writes ``bak/FILE``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.core.permissions.shell.model import DYN, FileWrite, SimpleCommand, Word
from agent_tui.core.permissions.shell.option_table import (
    Arg,
    Kind,
    Table,
    check,
    operand_reads,
    options,
    row,
)
from agent_tui.core.permissions.shell.sed_script import parse_sed

if TYPE_CHECKING:
    from agent_tui.core.permissions.shell.walking import Walker

SED = Table(
    "sed",
    options(
        flags="-n --quiet --silent -s --separate -u --unbuffered -z --null-data "
        "--zero-terminated -E -r --regexp-extended -b --binary --posix --sandbox --debug "
        "--follow-symlinks --help --version",
        values="-l --line-length -e --expression",
        rows=(
            row("-f --file", Kind.OPAQUE, "reads the sed script from a file"),
            row("-i --in-place", Kind.WRITE, "edits its input files", Arg.OPTIONAL),
        ),
    ),
)


def judge_sed(w: Walker, command: SimpleCommand, base: str) -> bool:
    a = w.a
    parsed = check(w, command, SED, kinds=False)
    scripts: list[tuple[Word, bool]] = []
    sandbox = False
    from_file = False
    in_place: list[Word | None] = []
    posix = False
    for used in parsed.used:
        if used.name == "--sandbox":
            sandbox = True
        elif used.name == "--posix":
            posix = True
        elif used.name in ("-e", "--expression") and used.value is not None:
            scripts.append((used.value, sandbox))
        elif used.name in ("-f", "--file") and used.value is not None:
            from_file = True
            if used.value.text != "-":
                operand_reads(w, command, [used.value], "sed")
            a.note_opaque(
                f"sed: -f {used.value.shown} reads its script from a file, which the analysis "
                "does not read (give the script with -e instead)"
            )
        elif used.name in ("-i", "--in-place"):
            in_place.append(used.value)
    operands = parsed.operands
    if not scripts and not from_file:
        if not operands:
            return True
        scripts, operands = [(operands[0], sandbox)], operands[1:]
    _script(w, scripts, posix)
    operand_reads(w, command, operands, "sed")
    if in_place:
        _in_place(w, command, operands, in_place[-1])
    return True


def _script(w: Walker, scripts: list[tuple[Word, bool]], posix: bool) -> None:
    a = w.a
    for word, _ in scripts:
        a.texts.append(word.text)
        if not word.literal:
            a.note_opaque(
                f"sed: a script known only when the command runs ({word.raw or word.shown})"
            )
            return
    program = parse_sed([(word.text, sandbox) for word, sandbox in scripts], posix=posix)
    if program.unsure is not None:
        a.note_opaque(f"sed: a script the analysis cannot read surely ({program.unsure})")
        return
    if program.error is not None:
        a.note_opaque(
            f"sed: a script sed would refuse ({program.error}); what it does is not judged"
        )
    for name, how in program.writes:
        if name not in ("/dev/stdout", "/dev/stderr"):
            a.writes.append(FileWrite(Word(name, name), f"sed: {how}"))
    for name, _how in program.reads:
        if name != "/dev/stdin":
            a.reads.append(Word(name, name))
    for text, how in program.runs:
        shown = f" ({text.strip()[:60]})" if text.strip() else ""
        a.note_unseen(f"sed: {how} runs a shell command{shown}, which the analysis does not follow")


def _in_place(w: Walker, command: SimpleCommand, files: list[Word], suffix: Word | None) -> None:
    a = w.a
    if command.extra_args:
        a.writes.append(FileWrite(Word(DYN, ""), "sed -i (files read at run time)"))
    for word in files:
        if word.text == "-":
            continue
        a.writes.append(FileWrite(word, "sed -i"))
        if suffix is None or not suffix.text:
            continue
        pattern = suffix.text if "*" in suffix.text else "*" + suffix.text
        backup = pattern.replace("*", word.text)
        a.writes.append(FileWrite(Word(backup, backup, word.glob), "sed -i's backup"))
