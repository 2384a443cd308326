"""An awk program scanned for what it does besides reading its input and printing.

Not a full awk parser: a lexer that reads the program as gawk and mawk tokenize it (strings,
regex literals — a ``/`` starts one where an operand is expected, not after one —, comments,
``\\``-newline continuations), then a scan of the tokens for every construct that reaches
outside: ``system(…)``, ``print … | cmd`` and ``cmd | getline`` (also ``|&``), ``print … > file``
and ``>> file`` (a ``>`` at the print statement's own level; inside parentheses it compares),
``getline < file``, ``ENVIRON`` (the environment, where secrets live), ``ARGV``/``ARGC`` (files
chosen at run time), gawk's ``@include``, ``@load`` and indirect calls ``@name(…)``. A command or
file given as one plain string literal is known (``system("sort x")``); anything else is known
only at run time. Whatever the scan cannot place surely (a ``/`` after the ``)`` of an ``if``,
a character awk has no token for, an unterminated string) makes the program ``unsure``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

DYNAMIC = None
"""A command or file named by an expression: known only at run time."""

KEYWORDS = frozenset(
    [
        "BEGIN",
        "END",
        "BEGINFILE",
        "ENDFILE",
        "function",
        "func",
        "if",
        "else",
        "while",
        "for",
        "do",
        "break",
        "continue",
        "next",
        "nextfile",
        "exit",
        "return",
        "delete",
        "in",
        "getline",
        "print",
        "printf",
        "switch",
        "case",
        "default",
    ]
)
_REGEX_AFTER_KEYWORD = frozenset(["print", "printf", "return", "in", "case", "do", "else"])
_OPERATORS = (
    "**=", "**", "^=", "*=", "/=", "%=", "+=", "-=", "==", "<=", ">=", "!=", "!~", "++", "--",
    "&&", "||", ">>", "|&", "|", "<", ">", "!", "~", "?", ":", ",", ";", "{", "}", "(", ")",
    "[", "]", "$", "+", "-", "*", "%", "^", "=", "/",
)  # fmt: skip
_OPERAND_END = frozenset({"NAME", "NUMBER", "STRING", "REGEX"})
_SIMPLE_ESCAPES = {"\\": "\\", '"': '"', "/": "/", "n": "\n", "t": "\t", "r": "\r"}
_NUMBER = re.compile(r"0[xX][0-9a-fA-F]+|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)?")
_OPERATOR = re.compile("|".join(re.escape(o) for o in _OPERATORS))
MAX_PROGRAM = 100_000
"""Characters scanned at most: a longer program is not understood (bounded time)."""
SPECIAL_OUTPUTS = frozenset({"/dev/stdout", "/dev/stderr", "/dev/null", "/dev/fd/1", "/dev/fd/2"})
SPECIAL_INPUTS = frozenset({"-", "/dev/stdin", "/dev/fd/0"})


@dataclass(frozen=True)
class Token:
    kind: str  # NAME KEYWORD NUMBER STRING REGEX OP NEWLINE AT
    text: str
    call: bool = False
    """A name written right before ``(`` (a function call)."""


@dataclass
class AwkProgram:
    commands: list[str | None] = field(default_factory=list)
    """Shell commands it runs (``system``, pipes); None: known only at run time."""
    writes: list[tuple[str | None, str]] = field(default_factory=list)
    """(file, how): ``print > file``, ``>>``; None: known only at run time."""
    reads: list[str | None] = field(default_factory=list)
    """Files ``getline < file`` reads."""
    environment: bool = False
    """It reads ``ENVIRON``."""
    argv: bool = False
    """It uses ``ARGV``/``ARGC``: the files it reads may be chosen at run time."""
    opaque: list[str] = field(default_factory=list)
    """What it does that the analysis does not follow (``@include``, ``@load``…)."""
    unsure: str | None = None


class _Unsure(Exception):
    pass


def tokenize(source: str) -> list[Token]:
    out: list[Token] = []
    i = 0
    n = len(source)
    parens: list[str] = []  # the keyword (or "") before each open parenthesis
    closed_control = False  # the last token closed the parenthesis of if/while/for
    while i < n:
        ch = source[i]
        if ch in " \t":
            i += 1
            continue
        if ch == "\\" and source.startswith("\n", i + 1):
            i += 2
            continue
        if ch == "\\" and source.startswith("\r\n", i + 1):
            raise _Unsure("a carriage return")
        if ch == "#":
            while i < n and source[i] != "\n":
                i += 1
            continue
        if ch == "\n":
            out.append(Token("NEWLINE", "\n"))
            i += 1
            closed_control = False
            continue
        if ch == '"':
            end = _string_end(source, i)
            out.append(Token("STRING", source[i:end]))
            i = end
            closed_control = False
            continue
        if ch == "/" and _regex_allowed(out, closed_control):
            end = _regex_end(source, i)
            out.append(Token("REGEX", source[i:end]))
            i = end
            closed_control = False
            continue
        if ch == "/" and closed_control:
            raise _Unsure("a `/` right after the `)` of an if, while or for")
        if ch == "@":
            out.append(Token("AT", "@"))
            i += 1
            continue
        match = _NAME.match(source, i)
        if match:
            word = match.group()
            i = match.end()
            call = source.startswith("(", i)
            out.append(Token("KEYWORD" if word in KEYWORDS else "NAME", word, call))
            closed_control = False
            continue
        match = _NUMBER.match(source, i)
        if match:
            out.append(Token("NUMBER", match.group()))
            i = match.end()
            closed_control = False
            continue
        found = _OPERATOR.match(source, i)
        if found is None:
            raise _Unsure(f"a character awk has no token for ({ch!r})")
        op = found.group()
        closed_control = False
        if op == "(":
            before = out[-1] if out else None
            parens.append(before.text if before is not None and before.kind == "KEYWORD" else "")
        elif op == ")":
            opener = parens.pop() if parens else ""
            closed_control = opener in ("if", "while", "for")
        out.append(Token("OP", op))
        i += len(op)
    return out


def _regex_allowed(before: list[Token], closed_control: bool) -> bool:
    if closed_control:
        return False  # decided by the caller: unsure
    if not before:
        return True
    last = before[-1]
    if last.kind in _OPERAND_END:
        return False
    if last.kind == "KEYWORD":
        if last.text == "getline":
            raise _Unsure("a `/` right after getline")
        return last.text in _REGEX_AFTER_KEYWORD
    return not (last.kind == "OP" and last.text in (")", "]", "++", "--"))


def _string_end(source: str, start: int) -> int:
    i = start + 1
    while i < len(source):
        ch = source[i]
        if ch == "\\":
            i += 2
            continue
        if ch == '"':
            return i + 1
        if ch == "\n":
            break
        i += 1
    raise _Unsure("an unterminated string")


def _regex_end(source: str, start: int) -> int:
    i = start + 1
    while i < len(source):
        ch = source[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "\n":
            break
        if ch == "/":
            return i + 1
        if ch == "[":
            i = _bracket_end(source, i)
            continue
        i += 1
    raise _Unsure("an unterminated regular expression")


def _bracket_end(source: str, start: int) -> int:
    """Past the ``]`` of a bracket expression (a ``/`` inside does not end the regex)."""
    i = start + 1
    if source.startswith("^", i):
        i += 1
    if source.startswith("]", i):
        i += 1
    while i < len(source):
        ch = source[i]
        if ch == "\n":
            break
        if ch == "[" and source[i + 1 : i + 2] in (":", ".", "="):
            close = source.find(source[i + 1] + "]", i + 2)
            if close < 0:
                break
            i = close + 2
            continue
        if ch == "\\":
            raise _Unsure("a backslash in a bracket expression (gawk and mawk read it apart)")
        if ch == "]":
            return i + 1
        i += 1
    raise _Unsure("an unterminated bracket expression")


def string_value(token: Token) -> str | None:
    """The value of a string literal with plain escapes; None when an escape's meaning
    differs between awks (octal, ``\\x``, unknown ones)."""
    body = token.text[1:-1]
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\":
            nxt = body[i + 1 : i + 2]
            if nxt not in _SIMPLE_ESCAPES:
                return None
            out.append(_SIMPLE_ESCAPES[nxt])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


# -- the scan -------------------------------------------------------------------------------------

_ENDS = frozenset({";", "}"})


def _end_of_statement(tokens: list[Token], i: int, depth0: int) -> int:
    """Index of the token that ends the simple statement starting at ``i`` (a newline not
    continued, ``;`` or ``}`` at its own level, or the end)."""
    depth = depth0
    while i < len(tokens):
        token = tokens[i]
        if token.kind == "OP" and token.text in ("(", "["):
            depth += 1
        elif token.kind == "OP" and token.text in (")", "]"):
            depth -= 1
            if depth < depth0:
                return i
        elif depth == depth0 and (
            (token.kind == "OP" and token.text in _ENDS) or token.kind == "NEWLINE"
        ):
            if token.kind == "NEWLINE" and i and tokens[i - 1].text in (",", "&&", "||"):
                i += 1
                continue
            return i
        i += 1
    return i


def _literal(tokens: list[Token]) -> str | None:
    if len(tokens) == 1 and tokens[0].kind == "STRING":
        return string_value(tokens[0])
    return DYNAMIC


def scan(source: str) -> AwkProgram:
    """What ``source`` does; never raises."""
    program = AwkProgram()
    try:
        if len(source) > MAX_PROGRAM:
            raise _Unsure(f"a program longer than {MAX_PROGRAM:,} characters")
        if any("\udc80" <= c <= "\udcff" for c in source) or "\r" in source:
            raise _Unsure("bytes awk may read differently (not UTF-8, or a carriage return)")
        _scan(tokenize(source), program)
    except _Unsure as exc:
        program.unsure = str(exc)
    return program


def _scan(tokens: list[Token], program: AwkProgram) -> None:
    depth = 0
    print_end = -1  # index where the current print statement ends
    print_depth = 0
    print_word = "print"
    redirected = False
    for i, token in enumerate(tokens):
        text = token.text
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if token.kind == "OP" and text in ("(", "["):
            depth += 1
        elif token.kind == "OP" and text in (")", "]"):
            depth -= 1
        if token.kind == "KEYWORD" and text in ("print", "printf") and i > print_end:
            print_end = _end_of_statement(tokens, i + 1, depth)
            print_depth = depth
            print_word = text
            redirected = False
        in_print = i < print_end
        if token.kind == "OP" and text in (">", ">>", "|", "|&"):
            if in_print and depth == print_depth:
                if redirected:
                    raise _Unsure("a print with two redirections")
                redirected = True
                target = _literal(tokens[i + 1 : print_end])
                if text in (">", ">>"):
                    if target not in SPECIAL_OUTPUTS:
                        _output(program, target, f"{print_word} {text}")
                else:
                    program.commands.append(target)
            elif text in ("|", "|&"):
                if nxt is None or nxt.text != "getline":
                    raise _Unsure(f"a `{text}` that is neither a print's nor a getline's pipe")
                program.commands.append(_command_before(tokens, i))
        elif token.kind == "KEYWORD" and text == "getline":
            _getline(tokens, i, program)
        elif token.kind == "NAME" and text == "system":
            program.commands.append(_call_argument(tokens, i))
        elif token.kind == "NAME" and text in ("ENVIRON", "SYMTAB"):
            program.environment = True  # gawk's SYMTAB reaches every variable by name
            program.argv |= text == "SYMTAB"
        elif token.kind == "NAME" and text in ("ARGV", "ARGC"):
            program.argv = True
        elif token.kind == "AT":
            _directive(tokens, i, program)


def _output(program: AwkProgram, target: str | None, how: str) -> None:
    if target is not None and target.startswith(("/inet/", "/inet4/", "/inet6/")):
        program.opaque.append(f"a network connection ({target})")
        return
    program.writes.append((target, how))


def _command_before(tokens: list[Token], bar: int) -> str | None:
    """The command of ``"cmd" | getline``: a string right before the bar, itself right after
    what cannot join it into a longer expression."""
    if bar == 0 or tokens[bar - 1].kind != "STRING":
        return DYNAMIC
    before = tokens[bar - 2] if bar >= 2 else None
    if before is None or before.kind == "NEWLINE":
        return string_value(tokens[bar - 1])
    if before.kind == "OP" and before.text in ("(", ";", "{", "}", ",", "=", "&&", "||"):
        return string_value(tokens[bar - 1])
    return DYNAMIC


def _call_argument(tokens: list[Token], at: int) -> str | None:
    """``system("literal")``: one string between the parentheses; anything else is computed."""
    if at + 1 >= len(tokens) or tokens[at + 1].text != "(":
        raise _Unsure("`system` not followed by `(`")
    if at + 3 < len(tokens) and tokens[at + 3].text == ")":
        return _literal(tokens[at + 2 : at + 3])
    return DYNAMIC


def _getline(tokens: list[Token], at: int, program: AwkProgram) -> None:
    j = at + 1
    if j < len(tokens) and tokens[j].kind == "NAME":
        j += 1
        if j < len(tokens) and tokens[j].text == "[":
            depth = 0
            while j < len(tokens):
                depth += {"[": 1, "]": -1}.get(tokens[j].text, 0)
                j += 1
                if depth == 0:
                    break
    elif j < len(tokens) and tokens[j].text == "$":
        j += 2
    if j < len(tokens) and tokens[j].text == "<":
        after = tokens[j + 2] if j + 2 < len(tokens) else None
        ends = after is None or after.kind == "NEWLINE" or after.text in (";", "}", ")")
        target = _literal(tokens[j + 1 : j + 2]) if ends else DYNAMIC
        if target is not None and target.startswith(("/inet/", "/inet4/", "/inet6/")):
            program.opaque.append(f"a network connection ({target})")
        elif target not in SPECIAL_INPUTS:
            program.reads.append(target)


def _directive(tokens: list[Token], at: int, program: AwkProgram) -> None:
    nxt = tokens[at + 1] if at + 1 < len(tokens) else None
    if nxt is None or nxt.kind not in ("NAME", "KEYWORD"):
        raise _Unsure("an `@` awk does not read as a directive or an indirect call")
    if nxt.text == "namespace":
        return
    if nxt.text == "include":
        program.opaque.append("@include (it reads awk code from another file)")
    elif nxt.text == "load":
        program.commands.append(DYNAMIC)
        program.opaque.append("@load (it loads a shared library: machine code)")
    elif nxt.call:
        program.commands.append(DYNAMIC)
        program.opaque.append(f"@{nxt.text}(…), an indirect call (it may call system)")
    else:
        raise _Unsure(f"@{nxt.text}, a directive the analysis does not know")
