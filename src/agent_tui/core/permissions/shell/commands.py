"""The meaning of one simple command: wrappers unwrapped, shell code followed, reads noted.

``add_simple`` is called by the walker for every simple command it meets. It looks through
wrappers (table in ``wrappers``) to the command they run, follows the code given to shells
(``bash -c``, ``eval``, ``trap``) by analysing it like the command itself, notes the code given
to other interpreters, and hands writers and readers (``tee``, ``cp``, ``grep -r``…) to
``files``. Whatever it cannot follow makes the analysis opaque.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from agent_tui.core.permissions.shell import files, tables
from agent_tui.core.permissions.shell.builtins import (
    DECLARATIONS,
    cd_target,
    declaration_command,
)
from agent_tui.core.permissions.shell.model import (
    DYN,
    Assignment,
    FileWrite,
    Layer,
    SimpleCommand,
    Word,
)
from agent_tui.core.permissions.shell.options import scan
from agent_tui.core.permissions.shell.programs import (
    INLINE_CODE_OPTIONS,
    OTHER_SHELLS,
    RESERVED,
    SHELLS,
    interpreter_family,
)
from agent_tui.core.permissions.shell.varnames import arithmetic_words, builtin_names
from agent_tui.core.permissions.shell.wrappers import RUNNERS, WRAPPERS, WrapperSpec, extra_set

if TYPE_CHECKING:
    from agent_tui.core.permissions.shell.walking import Walker

NOT_WRAPPED = frozenset({"time", "coproc"})
"""Reserved words tree-sitter reads as command names and we read as wrappers."""


def basename(text: str) -> str:
    return os.path.basename(text.rstrip("/")) or text


def add_simple(
    w: Walker,
    words: list[Word],
    assignments: list[Assignment],
    stdin: str | None,
    layers: tuple[Layer, ...] = (),
    *,
    extra_args: bool = False,
    guessed: bool = False,
) -> None:
    a = w.a
    name = words[0]
    if not name.literal:
        why = "a glob" if name.glob and DYN not in name.text else "known only at run time"
        a.note_opaque(f"a command name that is {why} ({name.raw[:60]})")
        a.commands.append(SimpleCommand(words, assignments, list(layers), extra_args, stdin))
        files.note_reads(a, words[1:], "")
        return
    base = basename(name.text)
    if name.raw in RESERVED and name.raw not in NOT_WRAPPED:
        a.note_opaque(f"the reserved word {name.raw!r} used as a command (the parse is unsure)")
    if base == "coproc":
        a.note_opaque("coproc (it runs its command in ways the analysis does not follow)")
    spec = WRAPPERS.get(base)
    skip = 1
    if spec is None and len(words) > 1:
        spec = RUNNERS.get((base, words[1].text))
        skip = 2
    if spec is not None:
        _unwrap(w, spec, words, skip, assignments, stdin, layers, extra_args, guessed)
        return
    command = SimpleCommand(words, assignments, list(layers), extra_args, stdin, guessed=guessed)
    a.commands.append(command)
    _meaning(w, command, base)


# -- wrappers -----------------------------------------------------------------------------------


def _unwrap(
    w: Walker,
    spec: WrapperSpec,
    words: list[Word],
    skip: int,
    assignments: list[Assignment],
    stdin: str | None,
    layers: tuple[Layer, ...],
    extra_args: bool,
    guessed: bool,
) -> None:
    a = w.a
    name = " ".join(word.text for word in words[:skip])
    args = words[skip:]
    env: list[Assignment] = []
    replace: list[str] = []
    no_command = False
    joins = spec.joins
    if spec.lenient:
        i = 0
        while i < len(args) and args[i].literal and args[i].text.startswith("-"):
            text = args[i].text
            if text == "--":
                i += 1
                break
            flag, eq, inline = text.partition("=")
            clustered = _clustered_code(text, spec.code)  # script -qc CODE, su -lc CODE
            if clustered is not None:
                flag, eq, inline = clustered
            if flag in spec.code:
                code = Word(inline, inline) if eq else (args[i + 1] if i + 1 < len(args) else None)
                if code is not None:
                    nested_code(w, code, f"{name} {flag}")
                a.note_unseen(
                    f"{name} {flag} runs its code in a shell the analysis cannot "
                    "follow (as another user or with other startup files)"
                )
                i += 1 if eq else 2
                continue
            i += 1
        guessed = True
    else:
        known = spec.flags | spec.valued | spec.no_command | extra_set(spec, "opaque")
        known |= extra_set(spec, "argv") | spec.replace
        valued = spec.valued | spec.writes | spec.code | spec.env
        found = scan(args, valued, flags=known | valued, stop_at_operand=True)
        for unknown in found.unknown:
            if spec.digits and unknown[1:].isdigit():
                continue
            a.note_opaque(
                f"{name}'s option {unknown} is not in the analysis' wrapper table, so it cannot "
                "tell which command runs"
            )
            guessed = True
        for option in found.options:
            value = option.value
            if option.name in spec.no_command:
                no_command = True
            if option.name in extra_set(spec, "opaque"):
                a.note_opaque(f"{name} {option.name}")
            if option.name in extra_set(spec, "argv"):
                joins = False
            if option.name in spec.replace:
                replace.append(value.text if value is not None and option.name != "-i" else "{}")
            if value is None:
                continue
            if option.name in spec.writes:
                a.writes.append(FileWrite(value, f"{name} {option.name}"))
            if option.name in spec.code:
                nested_code(w, value, f"{name} {option.name}")
                a.note_opaque(f"{name} {option.name} (it splits its string itself)")
            if option.name in spec.env:
                var, _, val = value.text.partition("=")
                env.append(Assignment(var, Word(val or DYN, val), "env"))
        i = found.end
        positional = spec.positional
        while positional and i < len(args):
            if spec.positional_writes:
                a.writes.append(FileWrite(args[i], f"{name}'s lock file"))
            i += 1
            positional -= 1
        if (
            spec.after_positional_code
            and i < len(args)
            and args[i].text in spec.after_positional_code
        ):
            if i + 1 < len(args):
                nested_code(w, args[i + 1], f"{name} {args[i].text}")
            a.commands.append(
                SimpleCommand(list(words), assignments, [*layers], stdin=stdin, runs_code=True)
            )
            return
        if spec.assignments:  # env: any operand with a "=" before the command is NAME=VALUE
            while i < len(args) and "=" in args[i].text.lstrip("="):
                var, _, value_text = args[i].text.partition("=")
                assigned = Word(value_text, value_text) if args[i].literal else Word(DYN, "")
                env.append(Assignment(var, assigned, "env"))
                i += 1
    a.assignments.extend(env)
    inner = args[i:]
    layer = Layer(tuple(words[: skip + i]), spec.transparent and not spec.lenient)
    if no_command or (not inner and spec.default is None):
        command = SimpleCommand(list(words), assignments + env, list(layers), extra_args, stdin)
        a.commands.append(command)
        return
    if not inner:
        if spec.default == "shell":
            a.note_unseen(f"{name} starts an interactive shell")
            a.commands.append(SimpleCommand(list(words), assignments, list(layers), stdin=stdin))
            return
        inner = [Word(spec.default or "", spec.default or "")]
    if replace:
        inner = [_replaced(word, replace) for word in inner]
    if joins:
        joined = " ".join(word.text for word in inner)
        nested_code(w, Word(joined, joined), f"{name} (it runs its arguments with sh -c)")
        a.commands.append(
            SimpleCommand(list(words), assignments + env, list(layers), stdin=stdin, runs_code=True)
        )
        return
    add_simple(
        w,
        inner,
        assignments + env,
        stdin,
        (*layers, layer),
        extra_args=extra_args or spec.appends_args,
        guessed=guessed,
    )


def _clustered_code(text: str, code: frozenset[str]) -> tuple[str, str, str] | None:
    """``-qc`` (short flags grouped, the last one taking shell code: the next word) or
    ``-qcCODE`` (the code attached), as ``(flag, "=" or "", attached code)``; None when
    ``text`` groups no code option."""
    if text.startswith("--") or len(text) < 3 or not text.startswith("-"):
        return None
    for index, letter in enumerate(text[1:], start=1):
        if f"-{letter}" in code:
            rest = text[index + 1 :]
            return f"-{letter}", "=" if rest else "", rest
    return None


def _replaced(word: Word, tokens: list[str]) -> Word:
    text = word.text
    for token in tokens:
        if token and token in text:
            text = text.replace(token, DYN)
    return word if text == word.text else Word(text, word.raw, word.glob)


# -- shell code ---------------------------------------------------------------------------------


def nested_code(w: Walker, code: Word, how: str) -> None:
    """Code given to a shell: analysed like the command itself when it is known."""
    a = w.a
    if not code.literal:
        a.note_unseen(f"{how} with code known only at run time ({code.shown[:60]})")
        return
    a.texts.append(code.text)
    if not w.nested(code.text):
        a.texts.pop()
        a.note_unseen(f"{how}: shell code nested too deeply to follow")


def _meaning(w: Walker, command: SimpleCommand, base: str) -> None:
    a = w.a
    words = command.words
    args = words[1:]
    if base in SHELLS:
        _shell(w, command, base)
        return
    if base in OTHER_SHELLS:
        if args or command.stdin:
            a.note_unseen(
                f"{base} runs code in its own language, which the analysis does not parse"
            )
        return
    if base == "eval":
        command.runs_code = True
        code = " ".join(word.text for word in args)
        literal = all(word.literal for word in args)
        nested_code(w, Word(code if literal else code + DYN, code), "eval")
        return
    if base in ("source", "."):
        target = args[0].shown if args else "?"
        a.note_unseen(f"{base} runs the script {target}")
        files.note_reads(a, args, base)
        return
    if base == "trap":
        if args and not args[0].text.startswith("-") and args[0].text:
            nested_code(w, args[0], "trap")
        return
    if base == "alias":
        for word in args:
            _, eq, value = word.text.partition("=")
            if eq:
                nested_code(w, Word(value, value), "alias")
        a.note_opaque("alias (it changes what later command names run)")
        return
    if base in ("hash", "enable", "bind", "complete", "compgen", "fc", "history", "shopt"):
        if base != "hash" or any(word.text.startswith("-p") for word in args):
            a.note_opaque(f"{base} (it changes how later commands run)")
        return
    if base == "let":
        arithmetic_words(w, args, "let")
        return
    if base in ("read", "mapfile", "readarray", "printf", "getopts"):
        _builtin_assignments(w, base, args)
        return
    if base in ("unset", "test", "[", "wait"):
        builtin_names(w, base, args)
    if base in ("cd", "pushd"):
        went = cd_target(base, args)  # cd - is $OLDPWD: known only at run time
        a.cd_targets.extend([went] if went is not None else [])
        return
    if base in DECLARATIONS:  # builtin export …, command declare …
        declaration_command(w, base, args)
        return
    if tables.judge(w, command, base):  # a program with an option table: it says it all
        return
    family = interpreter_family(base)
    if family is not None and base not in ("make", "cmake"):
        _interpreter(w, command, family)
    files.command_files(w, command, base)


def _shell(w: Walker, command: SimpleCommand, base: str) -> None:
    a = w.a
    args = command.words[1:]
    code_flag = reads_stdin = False
    i = 0
    while i < len(args):
        word = args[i]
        text = word.text
        if not word.literal:
            a.note_unseen(f"{base} with an argument known only at run time ({word.shown[:40]})")
            return
        if text in ("--", "-"):
            i += 1
            break
        if text.startswith("--"):
            if text in ("--login", "--rcfile", "--init-file"):
                a.note_unseen(f"{base} {text} (it runs startup files)")
                i += 1 + (text != "--login")
                continue
            if text not in (
                "--norc",
                "--noprofile",
                "--posix",
                "--restricted",
                "--verbose",
                "--noediting",
                "--version",
                "--help",
            ):
                a.note_opaque(f"{base}'s option {text}")
            i += 1
            continue
        if text[0] in "-+" and len(text) > 1:
            consumes = 0
            for letter in text[1:]:
                if letter == "c":
                    code_flag = True
                elif letter in "il":
                    a.note_unseen(f"{base} -{letter} (it runs startup files)")
                elif letter == "s":
                    reads_stdin = True
                elif letter in "oO":
                    consumes += 1
                elif letter not in "abeEfhkmnptuvxBCHPT":
                    a.note_opaque(f"{base}'s option -{letter}")
            i += 1 + consumes
            continue
        break
    rest = args[i:]
    if code_flag:
        command.runs_code = True
        if not rest:
            a.note_opaque(f"{base} -c without code")
            return
        if base != "bash" and ("$'" in rest[0].text or '$"' in rest[0].text):
            a.note_unseen(
                f"{base} -c with $'…' quoting, which {base} (often dash) reads "
                "differently from bash"
            )
            return
        nested_code(w, rest[0], f"{base} -c")
        return
    if rest and not reads_stdin:
        a.note_unseen(f"{base} runs the script {rest[0].shown}")
        files.note_reads(a, rest[:1], base)
    elif command.stdin or reads_stdin:
        a.note_unseen(f"{base} runs the code on its standard input ({command.stdin or 'stdin'})")


def _interpreter(w: Walker, command: SimpleCommand, family: str) -> None:
    """Code handed to a non-shell interpreter is noted for the mention checks."""
    a = w.a
    args = command.words[1:]
    inline = INLINE_CODE_OPTIONS.get(family, frozenset())
    for index, word in enumerate(args):
        text = word.text
        code: Word | None = None
        if text in inline and index + 1 < len(args):
            code = args[index + 1]
        elif family in ("perl", "ruby") and re.fullmatch(r"-[a-zA-Z]*[eE]", text):
            code = args[index + 1] if index + 1 < len(args) else None
        elif family == "python" and text.startswith("-c") and len(text) > 2:
            code = Word(text[2:], text)
        elif "=" in text and text.split("=", 1)[0] in inline:
            value = text.split("=", 1)[1]
            code = Word(value, value)
        if code is not None:
            if code.literal:
                a.note_code(f"{command.words[0].text} {text.split('=', 1)[0]}", code.text)
            else:
                a.note_unseen(f"{command.words[0].text} runs code known only at run time")
            return
    if command.stdin and not any(not word.text.startswith("-") for word in args):
        a.note_code(f"{command.words[0].text} (code from its {command.stdin})", "")


def _builtin_assignments(w: Walker, base: str, args: list[Word]) -> None:
    a = w.a
    if base == "printf":
        for index, word in enumerate(args):
            if word.text == "-v" and index + 1 < len(args):
                a.assignments.append(Assignment(args[index + 1].text, Word(DYN, ""), "printf"))
            elif word.text.startswith("-v") and len(word.text) > 2:
                a.assignments.append(Assignment(word.text[2:], Word(DYN, ""), "printf"))
        return
    valued = {
        "read": "-a -d -i -n -N -p -t -u",
        "mapfile": "-d -n -O -s -u -C -c",
        "readarray": "-d -n -O -s -u -C -c",
        "getopts": "",
    }[base]
    found = scan(args, frozenset(valued.split()))
    for option in found.options:
        if option.name == "-C" and option.value is not None:
            nested_code(w, option.value, f"{base} -C")
        if option.name == "-a" and option.value is not None:
            a.assignments.append(Assignment(option.value.text, Word(DYN, ""), base))
    names = found.operands[1:] if base == "getopts" else found.operands
    for word in names:
        if not word.literal:
            a.note_opaque(f"{base} into a variable named at run time")
        else:
            a.assignments.append(Assignment(word.text, Word(DYN, ""), base))
    if base == "read" and not names and not any(o.name == "-a" for o in found.options):
        a.assignments.append(Assignment("REPLY", Word(DYN, ""), base))
