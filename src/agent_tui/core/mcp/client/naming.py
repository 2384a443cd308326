"""Registered names of remote tools: ``mcp__<server>__<tool>``, safe and unique.

Names are restricted to ``[A-Za-z0-9_-]`` and 64 characters (what model APIs accept). When
sanitising or truncating makes a name collide with another, or it is too long, the name is cut
and a 12-hex-digit SHA-1 of the raw identity ``mcp__<server>__<tool>`` is appended (the Codex
scheme), so the same tool always gets the same name. Names are assigned in a deterministic
order: tools whose name needed no change first, then the rest, each sorted.

The server part is ``permissions.mcp_names.server_segment`` (NFKC, runs of ``_`` collapsed),
so ``mcp__<server>__*`` permission rules can always find where the server name ends; a cut for
length never reaches into it (the configuration refuses longer server names), so a tool of
one server can never take a name that starts like another server's.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

from agent_tui.core.permissions.mcp_names import DELIMITER, PREFIX, server_segment

MAX_NAME = 64
HASH_LEN = 12
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def sanitize(part: str) -> str:
    return _UNSAFE.sub("_", part) or "_"


def raw_identity(server: str, tool: str) -> str:
    return f"{PREFIX}{server}{DELIMITER}{tool}"


def hash_suffix(identity: str, salt: int = 0) -> str:
    text = identity if salt == 0 else f"{identity}#{salt}"
    return "_" + hashlib.sha1(text.encode("utf-8")).hexdigest()[:HASH_LEN]


def pretty_name(server: str, tool: str) -> str:
    return f"{PREFIX}{server_segment(server)}{DELIMITER}{sanitize(tool)}"


def qualify(
    tools: Iterable[tuple[str, str]], reserved: Iterable[str] = ()
) -> dict[tuple[str, str], str]:
    """A registered name for each ``(server, tool)``, none of them in ``reserved``."""
    pairs = sorted(set(tools))
    exact = [p for p in pairs if pretty_name(*p) == raw_identity(*p)]
    others = [p for p in pairs if pretty_name(*p) != raw_identity(*p)]
    used = set(reserved)
    names: dict[tuple[str, str], str] = {}
    for pair in [*exact, *others]:
        name = pretty_name(*pair)
        prefix = f"{PREFIX}{server_segment(pair[0])}{DELIMITER}"
        salt = 0
        too_long = len(name) > MAX_NAME
        while too_long or name in used:
            suffix = hash_suffix(raw_identity(*pair), salt)
            room = MAX_NAME - len(prefix) - len(suffix)  # only the tool part is ever cut
            name = prefix + sanitize(pair[1])[: max(room, 0)] + suffix
            salt += 1
            too_long = len(name) > MAX_NAME and room > 0
        used.add(name)
        names[pair] = name
    return names


def server_of(name: str, servers: Iterable[str]) -> str | None:
    """The server of ``servers`` whose tools are named like ``name`` (``mcp__<segment>__…``:
    the longest matching segment), or None."""
    found: tuple[str, int] | None = None
    for server in servers:
        prefix = f"{PREFIX}{server_segment(server)}{DELIMITER}"
        if name.startswith(prefix) and (found is None or len(prefix) > found[1]):
            found = (server, len(prefix))
    return found[0] if found is not None else None


__all__ = [
    "DELIMITER",
    "MAX_NAME",
    "PREFIX",
    "hash_suffix",
    "pretty_name",
    "qualify",
    "raw_identity",
    "sanitize",
    "server_of",
    "server_segment",
]
