"""How an MCP server's name becomes the subject of rules: the ``<segment>`` of
``mcp__<segment>__<tool>`` tool names and of ``mcp__<segment>__*`` / ``mcp__<segment>`` rules.

The name is NFKC-normalised (``ｅｖ`` is ``ev``), every character outside ``[A-Za-z0-9_-]``
becomes ``_``, runs of ``_`` collapse to one and ``_`` is trimmed at both ends, so a rule can
always tell where the server part ends. Different names can give one segment (``ev.1`` and
``ev_1``): the configuration refuses such servers (``core.mcp.config.server_names``), so that a rule
matches exactly one server. Lives in the permissions layer because both the tool names
(``core.mcp.client.naming``) and the rules of calls that act on a server (the pipeline's
``acts_on_server``) are built from it.
"""

from __future__ import annotations

import re
import unicodedata

PREFIX = "mcp__"
DELIMITER = "__"
MAX_SEGMENT = 40
"""The longest segment a server may have: ``mcp__<segment>__`` plus a tool name and a hash
suffix must fit the 64 characters of a tool name without cutting into the server part."""
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_RUNS = re.compile(r"_{2,}")


def segment_of(server: str) -> str:
    """The server part of tool names and rules; empty when nothing usable is left."""
    text = unicodedata.normalize("NFKC", server)
    return _RUNS.sub("_", _UNSAFE.sub("_", text)).strip("_")


def server_segment(server: str) -> str:
    """``segment_of``, with ``server`` standing in for a name with nothing usable (such a
    server is refused by the configuration; the fallback keeps names well-formed)."""
    return segment_of(server) or "server"


def server_prefix(server: str) -> str:
    """``mcp__<segment>__``: what every tool of ``server`` starts with."""
    return f"{PREFIX}{server_segment(server)}{DELIMITER}"


def clash_key(server: str) -> str:
    """Servers with the same key are refused together: the same segment, letter case ignored
    (``EV`` and ``ev`` would be told apart by rules, but not by people or every model API)."""
    return segment_of(server).casefold()


def name_problem(server: str) -> str | None:
    """Why ``server`` cannot name a server whose tools rules can tell apart (None: it can)."""
    text = unicodedata.normalize("NFKC", server)
    foreign = sorted({c for c in text if not c.isascii()})
    if foreign:
        shown = ", ".join(repr(c) for c in foreign[:5])
        return (
            f"the name {server!r} has characters that cannot be part of tool names ({shown}): "
            f"its tools would be named {server_prefix(server)}…, which is not what the name "
            "shows (a look-alike of another name, perhaps); rename it with ASCII letters, "
            "digits, '-' or '_'"
        )
    segment = segment_of(server)
    if not segment:
        return (
            f"the name {server!r} has no letter or digit, so it cannot become part of tool "
            "names (mcp__NAME__tool) and rules; rename it with ASCII letters, digits, '-' or '_'"
        )
    if len(segment) > MAX_SEGMENT:
        return (
            f"the name {server!r} is too long ({len(segment)} characters as "
            f"{PREFIX}{segment}{DELIMITER}): its tools' names (at most 64 characters) would "
            f"have to cut into it; use at most {MAX_SEGMENT} characters"
        )
    return None


def rule_problem(tool: str) -> str | None:
    """Why a rule's tool part ``mcp__…`` can never match (None: it can): tool names hold only
    ``[A-Za-z0-9_-]`` and their server part is a segment (no ``_`` at its ends), so a rule
    written otherwise names no tool — a deny rule that denies nothing."""
    if not tool.startswith(PREFIX) or tool == "mcp__*":
        return None
    body = tool[len(PREFIX) :]
    star = body.endswith(DELIMITER + "*")
    core = body[: -len(DELIMITER + "*")] if star else body
    server, sep, rest = core.partition(DELIMITER)
    if server == segment_of(server) and not _UNSAFE.search(rest):
        return None
    fixed = server_segment(server) + (sep + _UNSAFE.sub("_", rest) if sep else "")
    suggestion = f"{PREFIX}{fixed}{DELIMITER + '*' if star else ''}"
    return (
        f"MCP tool names hold only letters, digits, '-' and '_', and name the server "
        f"{server!r} as {server_prefix(server)} (see `agent-tui mcp list`), so this rule "
        f"would match nothing: write {suggestion}"
    )


def covers(rule_tool: str, name: str) -> bool:
    """Whether a rule's tool part ``mcp__<server>…`` covers the tool ``name``
    (``mcp__<segment>__<tool>``): ``mcp__<server>`` and ``mcp__<server>__*`` every tool of
    the server, ``mcp__<server>__<tool>`` that one. The server part is compared ignoring
    letter case — servers whose names differ only by case are refused together
    (``clash_key``), so ``mcp__EV__*`` can only mean the server ``ev`` and must not silently
    match nothing; the tool part is compared exactly (a server may have ``Search`` and
    ``search``)."""
    if not (rule_tool.startswith(PREFIX) and name.startswith(PREFIX)):
        return False
    if rule_tool == f"{PREFIX}*":
        return True
    rule_server, rule_sep, rule_rest = rule_tool[len(PREFIX) :].partition(DELIMITER)
    server, sep, rest = name[len(PREFIX) :].partition(DELIMITER)
    if not sep or rule_server.casefold() != server.casefold():
        return False
    return not rule_sep or rule_rest in ("*", rest)
