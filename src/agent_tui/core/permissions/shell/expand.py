"""Words and expansions of the syntax tree, read as bash reads them (the base of ``TreeWalker``).

A word's value comes from its parts: quotes removed, ``$'…'`` decoded, braces expanded, globs
noted (``words``); run-time parts are ``DYN``. Expansions are checked for the forms that can run
code — ``${x@P}``, ``${!x}``, arithmetic on variables (``$((x))``, ``[[ $x -eq 1 ]]``, array
subscripts, substring offsets) — which make the command opaque; the commands inside
substitutions are walked by ``TreeWalker.substitution``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from agent_tui.core.permissions.shell.model import DYN, ShellAnalysis, Word
from agent_tui.core.permissions.shell.words import (
    Segment,
    decode_ansi_c,
    double_quoted,
    make_words,
    unquoted_segments,
)

Node = Any
MAX_NODES = 60_000
"""Nodes one analysis visits at most (a 1 MB heredoc is a handful; a 1 MB command line of
dense syntax is hundreds of thousands): past it the command is opaque."""

_UNPARSED = re.compile(r"(?<!\\)(?:`|\$\(|\$\{|\$\[)")

ARITHMETIC_OK = frozenset(
    {
        "number",
        "binary_expression",
        "unary_expression",
        "parenthesized_expression",
        "ternary_expression",
        "postfix_expression",
    }
)

ARITH_TEST_OPS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})

SAFE_EXPANSION_OPS = frozenset(
    {
        ":-",
        "-",
        ":+",
        "+",
        ":?",
        "?",
        "#",
        "##",
        "%",
        "%%",
        "/",
        "//",
        "/#",
        "/%",
        "^",
        "^^",
        ",",
        ",,",
        ":=",
        "=",
    }
)

SAFE_TRANSFORMS = frozenset({"Q", "U", "u", "L", "a"})


@dataclass
class Budget:
    nodes: int = 0
    exhausted: bool = False


class WordReader:
    """Reads words and expansions; ``TreeWalker`` adds statements, commands and redirections."""

    a: ShellAnalysis
    src: bytes
    budget: Budget
    nesting: int

    def substitution(self, node: Node) -> None:
        """``$(…)`` and friends: their commands are walked (``TreeWalker``)."""
        raise NotImplementedError

    def visit(self, node: Node) -> bool:
        self.budget.nodes += 1
        if self.budget.nodes > MAX_NODES:
            if not self.budget.exhausted:
                self.budget.exhausted = True
                self.a.too_large = True
                self.a.note_opaque("a command too large to analyse (over 60,000 syntax nodes)")
            return False
        if node.type == "ERROR" or node.is_missing:
            self.a.note_opaque(parse_error(node, self.src))
            return False
        return True

    def text(self, node: Node) -> str:
        return self.src[node.start_byte : node.end_byte].decode("utf-8", "surrogateescape")

    def test(self, node: Node) -> None:
        double = node.child_count > 0 and node.children[0].type == "[["
        if not double:  # [ … ] is the test builtin: its operands are plain words
            for child in node.named_children:
                self.test_part(child, arithmetic_checked=False)
            return
        for child in node.named_children:
            self.test_part(child, arithmetic_checked=True)

    def test_part(self, node: Node, *, arithmetic_checked: bool) -> None:
        if not self.visit(node):
            return
        kind = node.type
        if kind in ("binary_expression", "unary_expression", "parenthesized_expression"):
            operator = node.child_by_field_name("operator")
            if (
                arithmetic_checked
                and operator is not None
                and self.text(operator) in ARITH_TEST_OPS
                and any(c.type != "number" for c in node.named_children if c.id != operator.id)
            ):
                self.a.note_opaque(
                    f"an arithmetic comparison on run-time values in [[ … ]] "
                    f"({self.text(node)[:60]}): bash evaluates it as code"
                )
            looks_up = (
                kind == "unary_expression"
                and operator is not None
                and self.text(operator) in ("-v", "-R")
            )
            for child in node.named_children:
                if operator is not None and child.id == operator.id:
                    continue
                if looks_up and operator is not None:  # [ -v NAME ]: a subscript is arithmetic
                    for word in self.word(child):
                        self.a.named_variables.append((word, f"the test {self.text(operator)}"))
                    continue
                self.test_part(child, arithmetic_checked=arithmetic_checked)
        elif kind in ("test_operator", "regex", "extglob_pattern"):
            self.a.texts.append(self.text(node))
        else:
            self.word(node)

    def arithmetic_children(self, node: Node, what: str) -> None:
        for child in node.named_children:
            self.arithmetic(child, what)

    def arithmetic(self, node: Node, what: str) -> None:
        if not self.visit(node):
            return
        kind = node.type
        if kind == "number":
            return
        if kind in ARITHMETIC_OK:
            for child in node.named_children:
                self.arithmetic(child, what)
            return
        if kind in ("command_substitution", "process_substitution"):
            self.substitution(node)
        elif kind in ("simple_expansion", "expansion") or kind == "string":
            self.segments(node, quoted=True)
        else:  # a subscript, an assignment…: the commands of substitutions inside still count
            for child in node.named_children:
                self.arithmetic(child, what)
        self.a.note_opaque(
            f"{what} on run-time values ({self.text(node)[:60]}): bash evaluates variables "
            "there as code"
        )

    def word(self, node: Node) -> list[Word]:
        """The words one argument node becomes (several after brace expansion)."""
        if not self.visit(node):
            return [Word(DYN, self.text(node))]
        segments = self.segments(node, quoted=False)
        raw = self.text(node)
        words = make_words(segments, raw)
        for word in words:
            if DYN not in word.text:
                self.a.texts.append(word.text)
        return words

    def segments(self, node: Node, quoted: bool) -> list[Segment]:
        kind = node.type
        if kind == "word":
            text = self.text(node)
            self.leftover(text, node)
            if not quoted and "\n" in text.replace("\\\n", ""):
                self.a.note_opaque(
                    f"a word with a line break in it ({text[:40]!r}): bash starts a new command "
                    "there"
                )
            return [(text, True)] if quoted else unquoted_segments(text)
        if kind == "number":
            return [(self.text(node), quoted)]
        if kind == "raw_string":
            return [(self.text(node)[1:-1], True)]
        if kind == "ansi_c_string":
            raw = self.text(node)
            if _ansi_c_end(raw) != len(raw) - 1:
                self.a.note_opaque(f"a $'…' string read differently by bash ({raw[:40]!r})")
            return [(decode_ansi_c(raw[2:-1]), True)]
        if kind in ("string", "translated_string"):
            return self.string(node)
        if kind == "concatenation":
            out: list[Segment] = []
            last_end = node.start_byte
            for child in node.children:
                if child.start_byte != last_end:
                    self.a.note_opaque(f"a word the analysis cannot read ({self.text(node)[:60]})")
                last_end = child.end_byte
                if not self.visit(child):
                    out.append((DYN, True))
                    continue
                out.extend(self.segments(child, quoted))
            return out
        if kind == "simple_expansion":
            return [(DYN, quoted)]
        if kind == "expansion":
            self.expansion(node)
            return [(DYN, quoted)]
        if kind in ("command_substitution", "process_substitution"):
            self.substitution(node)
            return [(DYN, quoted)]
        if kind == "arithmetic_expansion":
            self.arithmetic_children(node, "an arithmetic expansion $(( … ))")
            return [(DYN, quoted)]
        if kind == "brace_expression":
            text = self.text(node)
            return [(text, quoted)]
        if kind in ("extglob_pattern", "regex", "string_content", "heredoc_content"):
            self.leftover(self.text(node), node)
            return [(self.text(node), quoted)]
        if kind == "variable_assignment":  # `cmd a=b` — a plain word to the command
            return [(self.text(node), True)] if self._plain(node) else self._dynamic_word(node)
        self.a.note_opaque(
            f"{describe_kind(kind)} in a word, which the analysis does not understand"
        )
        return [(DYN, quoted)]

    def leftover(self, text: str, node: Node) -> None:
        """Text the parser took as literal that bash would still expand (a backquote inside
        ``${…}`` or a heredoc, which tree-sitter-bash leaves as text): opaque."""
        if ("`" in text or "$" in text) and _UNPARSED.search(text):
            self.a.note_opaque(
                f"an expansion the parser left unread ({text[:60]!r}): bash would run it"
            )

    def _plain(self, node: Node) -> bool:
        return all(c.type in ("variable_name", "=", "word", "number") for c in node.children)

    def _dynamic_word(self, node: Node) -> list[Segment]:
        for child in node.named_children:
            self.segments(child, True)
        return [(DYN, True)]

    def string(self, node: Node) -> list[Segment]:
        """``"…"`` (or ``$"…"``): its tokens, and the text between them that no token covers
        (tree-sitter leaves line breaks out of ``string_content``), which is the string's
        too."""
        if node.type == "translated_string":
            inner = [c for c in node.named_children if c.type == "string"]
            return self.string(inner[0]) if inner else [("", True)]
        out: list[Segment] = []
        position, end = node.start_byte + 1, node.end_byte - 1  # inside the quotes
        for child in node.named_children:
            if child.start_byte > position:
                out.append((double_quoted(self._bytes(position, child.start_byte)), True))
            position = child.end_byte
            if not self.visit(child):
                out.append((DYN, True))
                continue
            if child.type == "string_content":
                self.leftover(self.text(child), child)
                out.append((double_quoted(self.text(child)), True))
            elif child.type == "string":
                out.extend(self.string(child))
            else:
                out.extend(self.segments(child, quoted=True))
        if end > position:
            out.append((double_quoted(self._bytes(position, end)), True))
        return out or [("", True)]

    def _bytes(self, start: int, end: int) -> str:
        return self.src[start:end].decode("utf-8", "surrogateescape")

    def expansion(self, node: Node) -> None:
        """``${…}``: the forms that can run code are opaque; defaults are walked."""
        operators = [self.text(c) for c in node.children if field_of(node, c) == "operator"]
        body = self.text(node)
        if operators[:1] == ["!"] or body.startswith("${!"):
            self.a.note_opaque(f"an indirect expansion {body[:60]} (its target can run code)")
        if "@" in operators:
            transform = [op for op in operators if op != "@"]
            if not transform or transform[0] not in SAFE_TRANSFORMS:
                self.a.note_opaque(f"the expansion {body[:60]} (it can run code)")
        for op in operators:
            if op in ("@", "!") or op in SAFE_EXPANSION_OPS or op in SAFE_TRANSFORMS:
                continue
            if op == ":":
                self.a.note_opaque(
                    f"a substring expansion {body[:60]} (its offsets are arithmetic)"
                )
            elif op not in ("#",):
                self.a.note_opaque(f"the expansion operator {op} in {body[:60]}")
        for child in node.named_children:
            kind = child.type
            if field_of(node, child) == "operator":
                continue
            if kind in ("variable_name", "special_variable_name"):
                self.visit(child)
            elif kind == "subscript":
                self.subscript(child)
            elif kind in ("number",):
                self.visit(child)
            elif kind in ARITHMETIC_OK:
                self.arithmetic(child, "an arithmetic offset in ${…}")
            else:
                self.segments(child, quoted=True)

    def subscript(self, node: Node) -> None:
        self.visit(node)
        index = node.child_by_field_name("index")
        if index is None:
            return
        text = self.text(index)
        if index.type == "number" or text in ("@", "*"):
            return
        if index.type == "word" and text.replace("_", "a").isalnum() and not text[0].isdigit():
            self.a.note_opaque(f"an array subscript [{text}] (evaluated as arithmetic)")
            return
        self.segments(index, quoted=True)
        self.a.note_opaque(
            f"an array subscript [{text[:60]}] (evaluated as arithmetic, can run code)"
        )


def field_of(parent: Node, child: Node) -> str | None:
    for index, candidate in enumerate(parent.children):
        if candidate.id == child.id:
            name: str | None = parent.field_name_for_child(index)
            return name
    return None


def _ansi_c_end(raw: str) -> int:
    """Where bash ends the ``$'…'`` string that starts ``raw``: the first quote not escaped
    by a backslash (each ``\\x`` is one unit)."""
    index = 2
    while index < len(raw):
        if raw[index] == "\\":
            index += 2
            continue
        if raw[index] == "'":
            return index
        index += 1
    return -1


def parse_error(node: Node, source: bytes) -> str:
    error = _first_error(node)
    if error is None:
        return "a command that does not parse as bash"
    start = error.start_byte
    snippet = source[max(0, start - 10) : start + 20].decode("utf-8", "replace")
    return f"a command that does not parse as bash (near {snippet!r})"


def _first_error(node: Node) -> Node | None:
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "ERROR" or current.is_missing:
            return current
        if current.has_error:
            stack.extend(reversed(current.children))
    return None


def describe_kind(kind: str) -> str:
    return {
        "process_substitution": "a process substitution",
        "heredoc_redirect": "a heredoc",
    }.get(kind, f"the construct '{kind.replace('_', ' ')}'")
