"""The walker as a command's handler sees it: the one thing every handler is handed.

``walker.TreeWalker`` walks the syntax tree and hands each simple command to its meaning
(``commands.add_simple``, which dispatches to ``builtins``, ``files``, ``git``, the option
tables, ``sed``/``awk``/``jq``/``find``…). Those handlers read words and record facts through
this ``Walker`` protocol and never import the walker module, so the dependency goes one way:
``walker`` → handlers → ``walking`` → ``expand``/``model`` (the word and fact types).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from agent_tui.core.permissions.shell.expand import Budget, Node
    from agent_tui.core.permissions.shell.model import Assignment, Layer, ShellAnalysis, Word

__all__ = ["Walker"]


class Walker(Protocol):
    """What a handler may read and do while one command is judged."""

    @property
    def a(self) -> ShellAnalysis:
        """The analysis the facts go into."""

    @property
    def src(self) -> bytes:
        """The source the nodes being walked point into."""

    @property
    def depth(self) -> int:
        """Nested ``bash -c`` / ``eval`` levels above this code."""

    @property
    def max_depth(self) -> int:
        """The nesting past which code is not followed."""

    @property
    def budget(self) -> Budget:
        """The syntax nodes the whole analysis may still visit."""

    def visit(self, node: Node) -> bool:
        """Count ``node`` against the budget; False (and opaque) when it cannot be read."""

    def text(self, node: Node) -> str:
        """The source text of ``node``."""

    def word(self, node: Node) -> list[Word]:
        """The words ``node`` expands to, as bash reads them."""

    def assignment(self, node: Node, how: str, record: bool = True) -> Assignment | None:
        """A ``NAME=value`` node, recorded as ``how`` (unless ``record`` is False)."""

    def simple(
        self, words: list[Word], layers: tuple[Layer, ...], *, extra_args: bool = False
    ) -> None:
        """A command found inside another one's arguments: judged like any simple command."""

    def shell_code(self, code: Word, how: str) -> None:
        """Code a command hands to a shell: analysed like the command."""

    def nested(self, code: str) -> bool:
        """Analyse shell code one level deeper; False when nested too deeply to follow."""

    def deeper(self, source: bytes) -> Walker:
        """A walker over ``source`` (code bash evaluates in place, such as a subscript's
        arithmetic) one level deeper, into the same analysis and budget."""
