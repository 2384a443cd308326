"""The syntax tree of a command → ``ShellAnalysis`` facts: statements, commands, redirections.

Every node type has a handler, and a node the walker has no handler for makes the command
opaque: nothing is understood by omission. Words and expansions are read by ``expand``'s
``WordReader`` (the base class); command and process substitutions are walked like the
command itself, so the commands inside them count everywhere. The meaning of
each simple command (wrappers, shells, writers…) is ``commands.add_simple``'s business: the
walker imports the handlers, and they see it only as ``walking.Walker`` (never importing
this module back).
"""

from __future__ import annotations

from typing import Any

from agent_tui.core.permissions.shell.builtins import declaration_statement
from agent_tui.core.permissions.shell.commands import add_simple, nested_code
from agent_tui.core.permissions.shell.coverage import skipped
from agent_tui.core.permissions.shell.expand import (
    MAX_NODES,
    Budget,
    Node,
    WordReader,
    describe_kind,
    field_of,
    parse_error,
)
from agent_tui.core.permissions.shell.model import (
    DYN,
    Assignment,
    Layer,
    ShellAnalysis,
    Word,
)
from agent_tui.core.permissions.shell.parse import parse
from agent_tui.core.permissions.shell.redirection import Redirection, record_redirections
from agent_tui.core.permissions.shell.varnames import (
    array_element,
    fd_variables,
    unset_names,
)

MAX_DEPTH = 12
"""Nested ``bash -c`` / ``eval`` levels followed."""
MAX_NESTING = 200
"""Syntax nesting followed (``$($($(…)))``, deep ``if``s) before the command is opaque."""

STATEMENTS = frozenset(
    {
        "program",
        "list",
        "pipeline",
        "redirected_statement",
        "command",
        "variable_assignment",
        "variable_assignments",
        "declaration_command",
        "unset_command",
        "negated_command",
        "subshell",
        "compound_statement",
        "if_statement",
        "elif_clause",
        "else_clause",
        "while_statement",
        "for_statement",
        "c_style_for_statement",
        "case_statement",
        "case_item",
        "function_definition",
        "test_command",
        "do_group",
    }
)


class TreeWalker(WordReader):
    """The walker of one piece of code (``walking.Walker`` is what its handlers see)."""

    max_depth = MAX_DEPTH

    def __init__(
        self,
        analysis: ShellAnalysis,
        source: bytes,
        depth: int,
        budget: Budget,
        in_substitution: bool = False,
    ) -> None:
        self.a = analysis
        self.src = source
        self.depth = depth
        self.budget = budget
        self.in_substitution = in_substitution
        self.nesting = 0

    # -- entry --------------------------------------------------------------------------------

    def run(self, root: Node) -> None:
        if root.has_error:
            self.a.note_opaque(parse_error(root, self.src))
        problem = skipped(root, self.src, MAX_NODES)
        if problem is not None:
            self.a.note_opaque(problem)
        self.statement(root)

    # -- statements ---------------------------------------------------------------------------

    def statement(self, node: Node, stdin: str | None = None) -> None:
        if not self.visit(node):
            return
        self.nesting += 1
        try:
            if self.nesting > MAX_NESTING:
                self.a.note_opaque("commands nested too deeply to analyse")
                return
            self._statement(node, stdin)
        finally:
            self.nesting -= 1

    def _statement(self, node: Node, stdin: str | None) -> None:
        kind = node.type
        if kind in (
            "program",
            "list",
            "subshell",
            "do_group",
            "else_clause",
            "elif_clause",
            "if_statement",
            "while_statement",
            "case_item",
        ):
            self.children(node, stdin)
        elif kind == "pipeline":
            first = True
            stdout_only = not any(c.type == "|&" for c in node.children)  # |& feeds stderr too
            previous: list[Any] = []
            for child in node.named_children:
                start = len(self.a.commands)
                self.statement_or_word(child, stdin if first else "pipe")
                stage = self.a.commands[start:]
                for command in stage if not first and stdout_only else ():
                    if command.stdin == "pipe" and command.fed_by is None:
                        command.fed_by = previous
                previous = stage
                first = False
        elif kind == "compound_statement":
            if node.child_count and node.children[0].type == "((":
                self.arithmetic_children(node, "an arithmetic command (( … ))")
            else:
                self.children(node, stdin)
        elif kind == "redirected_statement":
            self.redirected(node, stdin)
        elif kind == "command":
            self.command(node, stdin, [])
        elif kind == "variable_assignment":
            self.assignment(node, "statement")
        elif kind == "variable_assignments":
            for child in node.named_children:
                self.statement(child)
        elif kind == "declaration_command":
            self.declaration(node)
        elif kind == "unset_command":
            unset_names(self, node)
        elif kind == "negated_command":
            self.children(node, stdin)
        elif kind == "for_statement":
            self.for_statement(node)
        elif kind == "c_style_for_statement":
            self.a.note_opaque("a C-style for loop (its arithmetic can run code)")
            self.children(node, None)
        elif kind == "case_statement":
            self.children(node, None)
        elif kind == "function_definition":
            name = node.child_by_field_name("name")
            if name is not None:
                self.a.functions.add(self.text(name))
            self.children(node, None)
        elif kind == "test_command":
            self.test(node)
        elif kind == "comment":
            self.comment(node)
        else:
            self.a.note_opaque(f"{describe_kind(kind)}, which the analysis does not understand")

    def children(self, node: Node, stdin: str | None) -> None:
        for child in node.named_children:
            if self.budget.exhausted:
                return
            self.statement_or_word(child, stdin)

    def statement_or_word(self, node: Node, stdin: str | None) -> None:
        kind = node.type
        if kind in STATEMENTS or kind == "comment":
            self.statement(node, stdin)
        elif kind == "variable_name":
            self.visit(node)
        elif kind in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
            self.a.note_opaque("a redirection in a place the analysis does not follow")
        elif kind in ("extglob_pattern", "regex"):
            self.visit(node)
            self.a.texts.append(self.text(node))
        else:
            self.word(node)

    def comment(self, node: Node) -> None:
        if self.in_substitution:
            self.a.note_opaque("a # comment inside a substitution")

    def redirected(self, node: Node, stdin: str | None) -> None:
        fd_variables(self, node)
        body = node.child_by_field_name("body")
        redirections: list[Redirection] = []
        later: list[Node] = []
        for child in node.named_children:
            if child is body or (body is not None and child.id == body.id):
                continue
            if child.type in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
                redirections.append(self.redirect(child, later))
            else:
                self.statement_or_word(child, stdin)
        body_stdin = stdin
        for r in redirections:
            if r.op in ("<<", "<<-"):
                body_stdin = "heredoc"
            elif r.op == "<<<":
                body_stdin = "herestring"
            elif r.op in ("<", "<&"):
                body_stdin = "file"
        if body is None:
            self.redirect_only(redirections)
        elif body.type == "command":
            self.command(body, body_stdin, redirections)
        else:
            if any(r.extra for r in redirections):  # `a && b > f c`: c is b's argument
                self.a.note_opaque(
                    "words after a redirection that the parser attached to a whole list"
                )
            record_redirections(self.a, redirections)
            self.statement(body, body_stdin)
        for statement, piped in later:  # what tree-sitter hangs inside a heredoc redirect
            self.statement(statement, "pipe" if piped else None)

    def simple(
        self,
        words: list[Word],
        layers: tuple[Layer, ...],
        *,
        extra_args: bool = False,
    ) -> None:
        """A command found inside another one's arguments (``find -exec``, ``git`` aliases):
        judged like any simple command."""
        add_simple(self, words, [], None, layers, extra_args=extra_args)

    def shell_code(self, code: Word, how: str) -> None:
        """Code a command hands to a shell (``git rebase -x``…): analysed like the command."""
        nested_code(self, code, how)

    def nested(self, code: str) -> bool:
        """Analyse shell code given to a shell or ``eval`` into the same analysis, one level
        deeper; False when it is nested too deeply to follow."""
        if self.depth >= MAX_DEPTH:
            return False
        analyse_into(self.a, code, self.depth + 1, self.budget, in_substitution=True)
        return True

    def deeper(self, source: bytes) -> TreeWalker:
        """A walker over ``source`` one level deeper, into the same analysis and budget."""
        return TreeWalker(self.a, source, self.depth + 1, self.budget, in_substitution=True)

    def redirect_only(self, redirections: list[Redirection]) -> None:
        record_redirections(self.a, redirections)
        for r in redirections:
            if r.extra:
                add_simple(self, r.extra, [], None)

    # -- redirections ---------------------------------------------------------------------------

    def redirect(self, node: Node, later: list[Any]) -> Redirection:
        self.visit(node)
        op = ""
        target: Word | None = None
        extra: list[Word] = []
        for child in node.children:
            kind = child.type
            if not child.is_named:
                if kind in ("&&", "||", "|", "|&", ";", "&"):
                    continue
                op = op or kind
                continue
            field_name = field_of(node, child)
            if kind == "file_descriptor":
                continue
            if kind == "heredoc_start":
                delimiter = self.text(child)
                self.a.texts.append(delimiter)
                if any(c in delimiter for c in ";&|()<> \t"):
                    self.a.note_opaque(
                        f"a heredoc delimiter the parser read with an operator ({delimiter!r})"
                    )
                continue
            if kind == "heredoc_body":
                self.heredoc_body(node, child)
                continue
            if kind == "heredoc_end":
                continue
            if node.type == "heredoc_redirect" and kind in ("file_redirect", "herestring_redirect"):
                inner = self.redirect(child, later)
                record_redirections(self.a, [inner])
                continue
            if node.type == "heredoc_redirect" and (kind in STATEMENTS):
                if kind == "pipeline":
                    for piped in child.named_children:
                        later.append((piped, True))
                else:
                    later.append((child, field_name != "right"))
                continue
            words = self.word(child)
            if node.type == "heredoc_redirect":
                self.a.note_opaque(
                    "words after a heredoc that the parser did not place (bash may run them)"
                )
            if target is None and words:
                target, rest = words[0], words[1:]
                extra.extend(rest)
            else:
                extra.extend(words)
        return Redirection(op, target, extra)

    def heredoc_body(self, redirect: Node, body: Node) -> None:
        start = next((c for c in redirect.children if c.type == "heredoc_start"), None)
        quoted = start is not None and any(q in self.text(start) for q in "'\"\\")
        self.a.texts.append(self.text(body))
        if quoted:
            return
        if not body.named_children:  # tree-sitter found no expansion: there must be none
            self.leftover(self.text(body), body)
        for child in body.named_children:
            self.segments(child, quoted=True)

    # -- commands -----------------------------------------------------------------------------

    def command(self, node: Node, stdin: str | None, redirections: list[Redirection]) -> None:
        fd_variables(self, node)
        words: list[Word] = []
        assignments: list[Assignment] = []
        redirections = list(redirections)
        for child in node.named_children:
            kind = child.type
            if kind == "variable_assignment":
                if words:
                    words.extend(self.word(child))  # an argument that looks like one
                else:
                    assignment = self.assignment(child, "prefix", record=False)
                    if assignment is not None:
                        assignments.append(assignment)
            elif kind == "command_name":
                self.visit(child)
                for part in child.named_children:
                    words.extend(self.word(part))
            elif kind in ("file_redirect", "herestring_redirect", "heredoc_redirect"):
                later: list[Any] = []
                redirection = self.redirect(child, later)
                redirections.append(redirection)
                if redirection.op in ("<<", "<<-"):
                    stdin = "heredoc"
                elif redirection.op == "<<<":
                    stdin = "herestring"
                elif redirection.op == "<":
                    stdin = "file"
                if later:
                    self.a.note_opaque("a heredoc inside a command's words")
            elif kind == "subshell":
                self.a.note_opaque("a subshell in a command's words")
                self.statement(child)
            else:
                words.extend(self.word(child))
        record_redirections(self.a, redirections)
        for r in redirections:
            words.extend(r.extra)
        self.a.assignments.extend(assignments)
        if not words:
            return
        add_simple(self, words, assignments, stdin)

    def assignment(self, node: Node, how: str, record: bool = True) -> Assignment | None:
        self.visit(node)
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        if name_node is None:
            self.a.note_opaque("an assignment the analysis cannot read")
            return None
        if name_node.type == "subscript":
            self.subscript(name_node)
            name = self.text(name_node.child_by_field_name("name") or name_node)
        else:
            name = self.text(name_node)
        value: Word | None = None
        if value_node is not None:
            if value_node.type == "array":
                texts: list[str] = []
                for element in value_node.named_children:
                    elements = self.word(element)
                    for each in elements:
                        array_element(self, each)
                    texts.extend(w.text for w in elements)
                value = Word(" ".join(texts), self.text(value_node))
            else:
                value = _join(self.word(value_node), self.text(value_node))
        elif any(c.type in ("=", "+=") for c in node.children):
            value = Word("", "")
        assignment = Assignment(name, value, how)
        if record:
            self.a.assignments.append(assignment)
        return assignment

    def declaration(self, node: Node) -> None:
        declaration_statement(self, node)  # words joined as bash reads them (``builtins``)

    def for_statement(self, node: Node) -> None:
        variable = node.child_by_field_name("variable")
        name = self.text(variable) if variable is not None else ""
        if variable is not None:
            self.a.assignments.append(Assignment(name, Word(DYN, ""), "loop"))
        values: list[Word] = []
        for child in node.named_children:
            if variable is not None and child.id == variable.id:
                continue
            if field_of(node, child) == "value":
                values.extend(self.word(child))
            else:
                self.statement_or_word(child, None)
        if name and not any(v.raw == "" for v in values):
            self.a.loop_values.setdefault(name, []).extend(values)

    # -- words ------------------------------------------------------------------------------------

    def substitution(self, node: Node) -> None:
        """``$(…)``, backticks, ``<(…)``, ``>(…)``: their commands run too."""
        raw = self.text(node)
        if raw.startswith("`") and "\\" in raw:
            self.a.note_opaque("backquotes with backslashes (bash re-reads their text)")
        inner = TreeWalker(self.a, self.src, self.depth, self.budget, in_substitution=True)
        inner.nesting = self.nesting
        children = node.named_children
        if children and all(c.type == "file_redirect" for c in children):  # $(<file)
            later: list[Any] = []
            record_redirections(inner.a, [inner.redirect(c, later) for c in children])
            return
        for child in children:
            inner.statement_or_word(child, None)


def _join(words: list[Word], raw: str) -> Word:
    if len(words) == 1:
        return words[0]
    return Word(" ".join(w.text for w in words), raw, glob=any(w.glob for w in words))


def analyse_into(
    analysis: ShellAnalysis, code: str, depth: int, budget: Budget, in_substitution: bool = False
) -> None:
    """Add the facts of ``code`` (a whole command or nested shell code) to ``analysis``."""
    source = code.encode("utf-8", "surrogateescape")
    parsed = parse(source)
    if parsed.cut:  # only a prefix was parsed: walking it would tell nothing reliable
        analysis.too_large = True
        analysis.note_opaque(f"a command too long to analyse in time ({len(source):,} bytes)")
        return
    TreeWalker(analysis, source, depth, budget, in_substitution).run(parsed.root)
