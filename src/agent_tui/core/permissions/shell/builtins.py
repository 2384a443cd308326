"""Builtins whose words bash reads its own way: the declaration builtins and ``cd``.

**Declarations** (``declare``, ``typeset``, ``local``, ``export``, ``readonly``) take
``NAME=VALUE`` arguments, and bash judges the name *after* quote removal: ``declare -x
NODE"_OPTIONS"=--require=./evil.js`` sets ``NODE_OPTIONS``, and so do ``export
'NODE_OPTIONS'=x``, ``export NODE\\_OPTIONS=x`` and ``export "PATH+=:./bin"`` (``+=``
appends). tree-sitter cuts such a word into a ``variable_name`` (``NODE``) and what follows
it (``"_OPTIONS"=…``), so the pieces that touch (no blank between them) are put back together
into the one word bash sees before its name is judged. The same builtins run as a command
(``builtin export PATH=./bin``, ``command declare …``, ``\\export …``: no declaration node)
are read the same way. (A leading assignment with a quoted name, ``NODE"_OPTIONS"=x node``, is
no assignment to bash: it runs a program named ``NODE_OPTIONS=x``.)

**cd**: ``cd -`` (and ``cd -- -``, ``cd -P -``) goes to ``$OLDPWD``, and ``pushd +N`` / ``-N``
or a bare ``pushd`` to a place on the directory stack: where, the analysis cannot tell, so
the target is known only at run time (later relative writes resolve as unknown). ``cd`` alone
goes home (``~``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.core.permissions.shell.model import DYN, Assignment, Word
from agent_tui.core.permissions.shell.varnames import declaration_flag

if TYPE_CHECKING:
    from agent_tui.core.permissions.shell.expand import Node
    from agent_tui.core.permissions.shell.walking import Walker

DECLARATIONS = frozenset({"declare", "typeset", "local", "export", "readonly"})
CD_FLAGS = frozenset("LPe@")
UNKNOWN_DIRECTORY = Word(DYN, "$OLDPWD")


def declaration_statement(w: Walker, node: Node) -> None:
    """A ``declaration_command`` node: its assignments, with each word's pieces joined as
    bash reads them."""
    keyword = node.children[0].type if node.child_count else "declare"
    groups: list[list[Node]] = []
    for child in node.named_children:
        if groups and groups[-1][-1].end_byte == child.start_byte:
            groups[-1].append(child)  # no blank between them: one word to bash
        else:
            groups.append([child])
    words: list[Word] = []
    for group in groups:
        if len(group) == 1:
            child = group[0]
            if child.type == "variable_assignment":
                w.assignment(child, keyword)
            elif child.type == "variable_name":
                w.a.assignments.append(Assignment(w.text(child), None, keyword))
            else:
                words.extend(w.word(child))
            continue
        joined = _joined(w, group, keyword)
        if joined is not None:
            words.append(joined)
    declared_words(w, keyword, words)


def _joined(w: Walker, group: list[Node], keyword: str) -> Word | None:
    """The one word bash makes of touching pieces (``NODE`` + ``"_OPTIONS"=x``); None (and the
    command opaque) when a piece is not a plain word."""
    texts: list[str] = []
    raws: list[str] = []
    glob = False
    for child in group:
        raw = w.text(child)
        raws.append(raw)
        if child.type == "variable_name":
            texts.append(raw)
            continue
        if child.type == "variable_assignment":
            w.a.note_opaque(f"{keyword} with an argument the analysis cannot read ({raw[:40]})")
            return None
        pieces = w.word(child)
        if len(pieces) != 1:
            w.a.note_opaque(f"{keyword} with an argument the analysis cannot read ({raw[:40]})")
            return None
        texts.append(pieces[0].text)
        glob = glob or pieces[0].glob
    return Word("".join(texts), "".join(raws), glob=glob)


def declared_words(w: Walker, keyword: str, words: list[Word]) -> None:
    """The arguments of a declaration builtin (flags, ``NAME``, ``NAME=VALUE``,
    ``NAME+=VALUE``) as bash reads them after expansion."""
    for word in words:
        declaration_flag(w, keyword, word)
        if not word.literal:
            w.a.note_opaque(f"{keyword} with a run-time argument ({word.shown})")
        elif not word.text.startswith(("-", "+")):
            name, eq, value = word.text.partition("=")
            if eq:
                name = name.removesuffix("+")  # NAME+=VALUE appends to NAME
            w.a.assignments.append(Assignment(name, Word(value, value) if eq else None, keyword))


def declaration_command(w: Walker, base: str, args: list[Word]) -> None:
    """A declaration builtin run as a command (``builtin export …``, ``command declare …``,
    ``'export' …``): the words are the expanded arguments."""
    declared_words(w, base, args)


def cd_target(base: str, args: list[Word]) -> Word | None:
    """Where ``cd`` / ``pushd`` with ``args`` goes: a word (``~`` for home), a word known
    only at run time (``$OLDPWD``, the directory stack), or None (``pushd -n``: nowhere)."""
    index = 0
    while index < len(args):
        word = args[index]
        text = word.text
        if not word.literal:
            return word
        if text == "--":
            index += 1
            break
        if base == "pushd" and len(text) > 1 and text[0] in "+-" and text[1:].isdigit():
            return UNKNOWN_DIRECTORY  # a rotation of the directory stack
        if base == "pushd" and text == "-n":
            return None
        if len(text) > 1 and text[0] == "-" and set(text[1:]) <= CD_FLAGS:
            index += 1
            continue
        break
    rest = args[index:]
    if not rest:
        return UNKNOWN_DIRECTORY if base == "pushd" else Word("~", "~")
    if rest[0].text == "-":
        return UNKNOWN_DIRECTORY  # $OLDPWD
    return rest[0]
