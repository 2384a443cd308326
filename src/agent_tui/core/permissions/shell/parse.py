"""tree-sitter-bash, loaded on first use, with a bound on the work one command may cost.

The grammar is imported lazily (start-up time is a goal). Commands up to ``FULL_PARSE_BYTES``
are always parsed whole, so their analysis never depends on the machine's speed. A longer
command is parsed within ``PARSE_SECONDS``; if the parser is not done by then the input is cut
off there, the tree is marked as cut, and the command is opaque — decided by the cheap linear
checks instead (a few milliseconds for 1 MB). That keeps every decision under ~100 ms.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

FULL_PARSE_BYTES = 256 * 1024
PARSE_SECONDS = 0.05
CHUNK_BYTES = 16 * 1024


@lru_cache(maxsize=1)
def _parser() -> Any:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


@dataclass
class Parsed:
    root: Any
    """The tree's root node (``tree_sitter.Node``)."""
    source: bytes
    cut: bool
    """The parser ran out of time: only a prefix of the command was parsed."""


def parse(source: bytes) -> Parsed:
    parser = _parser()
    if len(source) <= FULL_PARSE_BYTES:
        return Parsed(parser.parse(source).root_node, source, False)
    deadline = time.perf_counter() + PARSE_SECONDS
    cut = False

    def read(offset: int, _point: Any) -> bytes:
        nonlocal cut
        if offset >= len(source):
            return b""
        if time.perf_counter() > deadline:
            cut = True
            return b""
        return source[offset : offset + CHUNK_BYTES]

    tree = parser.parse(read)
    return Parsed(tree.root_node, source, cut)
