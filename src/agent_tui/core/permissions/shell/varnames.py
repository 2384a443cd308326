"""Variable names that bash evaluates: a subscript in a name is arithmetic, and arithmetic runs
code.

Bash expands an array subscript like a double-quoted string (``$(…)``, backquotes, ``${…}``)
and then evaluates it as arithmetic, where a variable's *value* is evaluated again as an
expression. So a name such as ``a[$(rm x)]`` — or ``a[b]`` with ``b='c[$(rm x)]'`` — runs code
wherever bash takes a variable name. Each was run against real bash with a canary
(``tests/core/permissions/red_team/test_subscripts.py``):

- names a builtin assigns: ``printf -v``, ``read``, ``declare``/``typeset``/``local``
  ``'a[…]'=x``, ``mapfile``/``readarray``, ``getopts``, ``read -a``;
- names it looks up: ``unset``, ``test -v`` / ``[ -v`` / ``[[ -v``, ``wait -p``, and the
  ``{NAME}>file`` redirection;
- array literals: ``a=([SUB]=x)``;
- assignments to the variables bash keeps as integers (``RANDOM``, ``OPTIND``…): any
  assignment to them, by any of the builtins above or a ``for`` loop, is arithmetic;
- ``declare -i`` (later assignments become arithmetic) and ``declare -n`` (a name reference:
  every later use evaluates the referenced name).

A name is understood when it is a plain identifier or a subscript that is a literal integer
(``a[3]``). Anything else is opaque, and the ``$(…)`` inside a subscript bash would expand is
parsed and walked like any command substitution, so a deny rule still sees the commands.
"""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING

from agent_tui.core.permissions.shell.model import DYN, Assignment, Word
from agent_tui.core.permissions.shell.parse import parse

if TYPE_CHECKING:
    from agent_tui.core.permissions.shell.expand import Node
    from agent_tui.core.permissions.shell.walking import Walker

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
SUBSCRIPTED = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\[(.*)\]\Z", re.S)
INTEGER = re.compile(r"-?[0-9]+\Z")

ARITHMETIC_VARIABLES = frozenset(
    [
        "BASHPID",
        "EUID",
        "HISTCMD",
        "LINENO",
        "OPTIND",
        "PPID",
        "RANDOM",
        "SECONDS",
        "SRANDOM",
        "UID",
    ]
)
"""Variables bash creates with the integer attribute (``env -i bash -c 'declare -i'``) or
assigns through arithmetic (``SECONDS``, ``LINENO``): a value given to one is evaluated as an
expression. The red-team test derives the list from the running bash and checks it."""

ATTRIBUTE_CODE = {
    "i": "later assignments to its variables are arithmetic, which can run code",
    "n": "a name reference: each later use evaluates the name it refers to",
}
"""``declare`` flags that make a variable evaluate what it is given."""


def check_names(w: Walker) -> None:
    """After the walk: every variable name the command gives bash (assigned or looked up) and
    every assignment to an integer variable, judged as above."""
    a = w.a
    index = 0
    while index < len(a.assignments):  # judging a subscript can find more (nested code)
        assignment = a.assignments[index]
        index += 1
        if assignment.how == "env":  # env NAME=VALUE: an environment entry, not evaluated
            continue
        name = _name(w, Word(assignment.name, assignment.name), assignment.how)
        if name in ARITHMETIC_VARIABLES:
            value = assignment.value
            if value is None or not INTEGER.match(value.text):
                shown = value.shown if value is not None else "…"
                how = _WHO.get(assignment.how, assignment.how)
                a.note_opaque(
                    f"an assignment of {shown[:40]!r} to {name} ({how}): bash evaluates what "
                    f"{name} is given as arithmetic, which can run code"
                )
    index = 0
    while index < len(a.named_variables):
        word, who = a.named_variables[index]
        index += 1
        _name(w, word, who)


def _name(w: Walker, word: Word, who: str) -> str | None:
    """The variable ``word`` names (its subscript judged), or None when it names none the
    analysis can tell."""
    text = word.text
    if who in ("declare", "typeset", "local", "export", "readonly"):
        text = text.removesuffix("+")  # declare a+=x
    if DYN in text or (word.glob and not SUBSCRIPTED.match(text)):
        how = _WHO.get(who, who)
        w.a.note_opaque(f"{how} with a variable named at run time ({word.shown[:60]})")
        return None
    if IDENTIFIER.match(text):
        return text
    found = SUBSCRIPTED.match(text)
    if found is None:  # bash refuses it ("not a valid identifier"): nothing is evaluated
        return None
    if not found.group(2).isdecimal() or not found.group(2).isascii():
        subscript_code(w, found.group(2), f"the name {text[:60]} ({_WHO.get(who, who)})")
    return found.group(1)


_WHO = {
    "printf": "printf -v",
    "statement": "an assignment",
    "prefix": "an assignment",
    "loop": "a for loop",
}


def subscript_code(w: Walker, text: str, where: str) -> None:
    """A subscript bash evaluates: opaque, and the commands its ``$(…)`` would run are walked
    (parsed as the arithmetic bash evaluates it)."""
    a = w.a
    a.note_opaque(
        f"the subscript [{text[:60]}] of {where}: bash evaluates it as arithmetic, which can "
        "run code (use a plain name or a literal index such as a[0])"
    )
    if not ("$" in text or "`" in text):
        return  # a[b]: b's value is evaluated in turn, but holds no command the text shows
    if w.depth >= w.max_depth:
        a.note_unseen(f"{where}: code nested too deeply to follow")
        return
    source = f": $(( {text} ))".encode("utf-8", "surrogateescape")
    parsed = parse(source)
    if parsed.cut or parsed.root.has_error:
        a.note_unseen(f"{where}: a subscript the parser cannot read, whose code bash runs")
        return
    walker = w.deeper(source)
    for statement in parsed.root.named_children:
        for child in statement.named_children:
            if child.type != "command_name":
                walker.word(child)


def declaration_flag(w: Walker, keyword: str, flag: Word) -> None:
    """``declare -i`` / ``-n`` (also ``local``, ``typeset``): opaque."""
    if keyword not in ("declare", "typeset", "local") or not flag.text.startswith("-"):
        return
    for letter, why in ATTRIBUTE_CODE.items():
        if letter in flag.text[1:]:
            w.a.note_opaque(f"{keyword} -{letter} ({why})")


def array_element(w: Walker, element: Word) -> None:
    """``a=([SUB]=value)``: the subscript is arithmetic for an indexed array (and a key the
    analysis cannot tell apart for an associative one)."""
    if not element.raw.startswith("["):
        return
    found = re.match(r"\[(.*?)\]\+?=", element.text, re.S)
    if found is None:
        return
    subscript = found.group(1)
    if subscript.isdecimal() and subscript.isascii():
        return
    if DYN in subscript:  # its substitutions were walked with the word
        w.a.note_opaque(
            f"the array subscript [{subscript.replace(DYN, '…')[:60]}] in an array literal: "
            "bash evaluates it as arithmetic, which can run code"
        )
        return
    subscript_code(w, subscript, f"an array literal's element {element.text[:60]}")


def builtin_names(w: Walker, base: str, args: list[Word]) -> None:
    """The names ``unset``, ``test -v``/``[ -v`` and ``wait -p`` look up (when run as
    commands; ``unset`` and ``[ … ]`` statements are met by the walker)."""
    if base == "unset":
        if any(word.text.startswith("-") and "f" in word.text for word in args):
            return
        for word in args:
            if not word.text.startswith("-"):
                w.a.named_variables.append((word, "unset"))
        return
    if base in ("test", "["):
        for index, word in enumerate(args[:-1]):
            if word.text in ("-v", "-R"):
                w.a.named_variables.append((args[index + 1], f"{base} {word.text}"))
        return
    if base == "wait":
        for index, word in enumerate(args):
            if word.text == "-p" and index + 1 < len(args):
                w.a.named_variables.append((args[index + 1], "wait -p"))
            elif word.text.startswith("-") and "p" in word.text:
                rest = word.text.split("p", 1)[1]
                value = rest or (args[index + 1].text if index + 1 < len(args) else "")
                w.a.named_variables.append((Word(value, value), "wait -p"))


def arithmetic_words(w: Walker, words: list[Word], who: str) -> None:
    """``let EXPR…``: each argument is arithmetic (opaque); commands bash would expand in it
    are walked."""
    w.a.note_opaque(f"{who} (its arithmetic can run code)")
    for word in words:
        if word.literal and ("$" in word.text or "`" in word.text):
            subscript_code(w, word.text, f"the expression {word.text[:40]} ({who})")


REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})


def fd_variables(w: Walker, node: Node) -> None:
    """``{NAME}>file``: a ``{…}`` word right before a redirection (no space) is a variable
    bash assigns the new descriptor to, and a subscript in it is arithmetic. tree-sitter reads
    it as an argument; it is noted here as an assignment (the word stays an argument: more
    words never make a rule allow more)."""
    children = node.named_children
    if node.type == "redirected_statement":
        body = node.child_by_field_name("body")
        redirect = next((c for c in children if c.type in REDIRECTS), None)
        if body is None or body.type != "command" or redirect is None:
            return
        words = [c for c in body.named_children if c.type != "command_name"]
        if words and words[-1].end_byte == redirect.start_byte:
            _fd_variable(w, words[-1])
        return
    for before, child in itertools.pairwise(children):
        if (
            child.type in REDIRECTS
            and before.type not in REDIRECTS
            and before.type != "command_name"
            and before.end_byte == child.start_byte
        ):
            _fd_variable(w, before)


def _fd_variable(w: Walker, node: Node) -> None:
    text = w.text(node)
    if len(text) < 3 or not text.startswith("{") or not text.endswith("}"):
        return
    name = text[1:-1]
    if any(c in name for c in "$`\\'\""):
        name = DYN
    w.a.assignments.append(Assignment(name, Word(DYN, ""), "{NAME}> redirection"))


def unset_names(w: Walker, node: Node) -> None:
    """``unset`` met as a statement: its words (tree-sitter splits ``a[$(x)]`` into a name and
    the rest; adjacent pieces are one word again) are looked-up names unless ``-f``."""
    groups: list[list[Node]] = []
    for child in node.named_children:
        if groups and groups[-1][-1].end_byte == child.start_byte:
            groups[-1].append(child)
        else:
            groups.append([child])
    words: list[Word] = []
    for group in groups:
        texts: list[str] = []
        glob = False
        for child in group:
            if child.type == "variable_name":
                w.visit(child)
                texts.append(w.text(child))
                continue
            pieces = w.word(child)
            texts.append(" ".join(piece.text for piece in pieces))
            glob = glob or any(piece.glob for piece in pieces)
        raw = w.src[group[0].start_byte : group[-1].end_byte].decode("utf-8", "surrogateescape")
        words.append(Word("".join(texts), raw, glob))
    builtin_names(w, "unset", words)
