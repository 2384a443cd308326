"""One rule, one server: MCP server names that would share a tool prefix are refused.

A server's tools are ``mcp__<segment>__<tool>`` and rules name it by that segment
(``permissions.mcp_names``). Different names can give one segment — ``ev.1`` and ``ev_1`` are
both ``mcp__ev_1__`` — and then ``--allow 'mcp__ev_1__*'`` written for one would run the
other's tools. So, once the files are read (``load.load_config``):

- a name with no usable character, with characters outside ASCII (after NFKC: ``ｅｖ`` is
  ``ev``; a Cyrillic ``е`` is refused), or too long to keep whole in tool names, is a broken
  entry (``mcp_names.name_problem``);
- servers of the same origin whose segments are equal, letter case ignored (``clash_key``),
  are all refused — none is started, each is listed with the reason;
- a project server (``.mcp.json``) that clashes with one of the user's own servers (the same
  name included) is refused, and the user's server stays: a repository cannot take over the
  name the user's rules and habits were written for, nor switch the user's server off. (Before,
  a project entry of the same name replaced the user's whole.)

Refusing is fail-closed: a refused server's tools never enter the registry, so no rule can
reach them; renaming one of the servers in its file makes both start.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.core.permissions.mcp_names import clash_key, server_prefix

if TYPE_CHECKING:
    from agent_tui.core.mcp.config.spec import ServerSpec


@dataclass(frozen=True)
class Entry:
    """One server as read, before the names are settled."""

    spec: ServerSpec
    name: str
    source: Path | None
    project: bool


@dataclass(frozen=True)
class Refusal:
    name: str
    source: Path | None
    message: str
    listed: bool
    """The refused entry stays in the server list (False: the user's server of the same name
    holds that place; only the problem shows it)."""


def settle(entries: Sequence[Entry], usable: set[str]) -> tuple[list[Entry], list[Refusal]]:
    """The entries that stay (in order: for a name given twice by one origin, the later
    file's, as before) and the refusals. ``usable``: the names whose clash key means
    something (the others are broken for their name already and clash with nothing)."""
    last: dict[tuple[bool, str], Entry] = {}
    for entry in entries:  # a later file of the same origin replaces an entry whole
        last.pop((entry.project, entry.name), None)
        last[(entry.project, entry.name)] = entry
    groups: dict[str, list[Entry]] = {}
    for entry in last.values():
        if entry.name in usable:
            groups.setdefault(clash_key(entry.name), []).append(entry)
    refused: list[Refusal] = []
    dropped: set[tuple[bool, str]] = set()
    for group in groups.values():
        mine = [e for e in group if not e.project]
        theirs = [e for e in group if e.project]
        if mine and theirs:
            for entry in theirs:
                refused.append(_shadowed(entry, mine))
                if any(m.name == entry.name for m in mine):
                    dropped.add((True, entry.name))
            group = mine
        if len(group) > 1:
            refused += [_clash(entry, group) for entry in group]
    kept = [e for key, e in last.items() if key not in dropped]
    return kept, refused


def refuse(spec: ServerSpec, message: str) -> ServerSpec:
    """A copy of ``spec`` marked broken with ``message`` (a copy: a spec kept from the last
    good read is compared with the new one, and a change stops its server)."""
    return dataclasses.replace(spec, error=message)


def _names(entries: Sequence[Entry]) -> str:
    quoted = [repr(e.name) for e in sorted(entries, key=lambda e: e.name)]
    return ", ".join(quoted[:-1]) + f" and {quoted[-1]}" if len(quoted) > 1 else quoted[0]


def _prefixes(entries: Sequence[Entry]) -> str:
    found = sorted({server_prefix(e.name) for e in entries})
    if len(found) == 1:
        return f"{'both' if len(entries) == 2 else 'all'} become {found[0]}"
    return f"become {', '.join(found)}, which differ only by letter case"


def _clash(entry: Entry, group: Sequence[Entry]) -> Refusal:
    files = sorted({str(e.source) for e in group if e.source is not None})
    where = " or ".join(files) if files else "their configuration"
    which = "one of them" if len(group) == 2 else "all but one of them"
    message = (
        f"servers {_names(group)} {_prefixes(group)} (the names of their tools, and rules "
        f"such as {server_prefix(entry.name)}*): none of them is started, so that a rule "
        f"written for one cannot run another's tools; rename {which} in {where}"
    )
    return Refusal(entry.name, entry.source, message, listed=True)


def _shadowed(entry: Entry, mine: Sequence[Entry]) -> Refusal:
    own = mine[0]
    where = f" (in {own.source})" if own.source is not None else ""
    if own.name == entry.name:
        how = f"has the name of your own server {own.name!r}{where}"
    else:
        how = f"becomes {server_prefix(entry.name)}, like your own server {own.name!r}{where}"
    message = (
        f"the project's server {entry.name!r} {how}: the project's entry is not used (yours "
        f"is), so that your rules and trust for {own.name!r} cannot reach another server; "
        f"rename it in {entry.source}"
    )
    return Refusal(entry.name, entry.source, message, listed=own.name != entry.name)


__all__ = ["Entry", "Refusal", "refuse", "settle"]
