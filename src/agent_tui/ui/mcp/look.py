"""How the MCP panel draws a status, a disclosure mark, an access level and a permission: glyphs,
theme styles and the fixed-width tool line (plain functions; no widget here)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.content import Content

from agent_tui.core.mcp.client.adapter import ToolInfo
from agent_tui.core.mcp.client.overview import McpOverview, ServerRow, ToolRow
from agent_tui.core.mcp.client.state import ServerState
from agent_tui.core.mcp.config.spec import ConfigProblem
from agent_tui.ui.common.format import plural

STATUS_GLYPH = {
    "connected": "●",
    "connecting": "◌",
    "failed": "✗",
    "disabled": "○",
    "stopped": "■",
    "lazy": "◇",
}
STATUS_STYLE = {
    "connected": "$success",
    "connecting": "$warning",
    "failed": "$error",
    "disabled": "$foreground-muted",
    "stopped": "$foreground-muted",
    "lazy": "$primary",
}
MARK_STYLE = {
    "direct": "$foreground",
    "promoted": "$primary",
    "unmasked": "$accent",
    "deferred": "$foreground-muted",
    "hidden": "$warning",
}
PERMISSION_STYLE = {"allow": "$success", "ask": "$warning", "deny": "$error"}


def status_glyph(status: str) -> Content:
    return Content.styled(STATUS_GLYPH.get(status, "?"), STATUS_STYLE.get(status, ""))


def status_word(state: ServerState) -> Content:
    """``● connected`` in the status's colour."""
    style = STATUS_STYLE.get(state.status, "")
    return Content.styled(f"{STATUS_GLYPH.get(state.status, '?')} {state.status}", style)


def list_summary(row: ServerRow) -> str:
    """What the server list says after a name: its tool count, or its status."""
    state = row.state
    if state.status == "connected":
        return plural(state.tool_count, "tool")
    if state.status == "connecting":
        return "connecting…"
    if state.status == "lazy":
        return f"lazy · {state.tool_count} cached"
    if state.reconnect is not None:  # a server that went away, tried again by itself
        seconds = state.reconnect.seconds
        return "reconnecting…" if seconds is None else f"retry in {seconds} s"
    return state.status


def lazy_line(state: ServerState) -> str:
    """``lazy · not started · 16 cached tools``: a lazy server that was not started."""
    return f"lazy · not started · {plural(state.tool_count, 'cached tool')}"


def list_label(row: ServerRow, width: int) -> Content:
    """One line of the server list: glyph, name, and a summary on the right."""
    right = list_summary(row)
    style = (
        "$foreground-muted"
        if row.state.status == "connected"
        else STATUS_STYLE.get(row.state.status, "")
    )
    room = max(4, width - len(right) - 1)
    left = Content.assemble(status_glyph(row.state.status), " ", (row.name, "bold"))
    return left.truncate(room, ellipsis=True, pad=True) + Content.styled(f" {right}", style)


def access(info: ToolInfo) -> tuple[str, str]:
    """(label, style): what the server says the tool does to the world."""
    if info.read_only:
        return "read-only", "$success"
    if info.destructive:
        return "destructive", "$error"
    return "writes", "$warning"


def permission_label(row: ToolRow) -> tuple[str, str]:
    """(``allow · read-only``, style) — the deciding step in a few words."""
    if row.permission is None:
        return "—", "$foreground-muted"
    kind, basis, rule = row.permission.kind, row.permission.basis, row.permission.rule
    if rule is not None and str(rule) == row.name:  # the row already names the tool
        basis = "its own rule"
    return f"{kind} · {basis}", PERMISSION_STYLE.get(kind, "")


@dataclass(frozen=True)
class Columns:
    """Cell widths of the tool list (each followed by a gap of ``GAP``)."""

    name: int
    mark: int
    access: int
    permission: int
    description: int

    GAP = 2


HEADERS = ("Tool", "Disclosure", "Access", "Permission", "Description")


def columns_for(rows: tuple[ToolRow, ...], width: int) -> Columns:
    """Widths that fit ``width`` cells: names and permissions as wide as they need (within
    limits), the description gets the rest."""
    name = min(max([len(r.name) for r in rows] + [len(HEADERS[0])]), 48)
    mark = len("disclosure")
    acc = len("destructive")
    permission = min(max([len(permission_label(r)[0]) for r in rows] + [len(HEADERS[3])]), 32)
    fixed = name + mark + acc + permission + 4 * Columns.GAP
    description = width - fixed
    if description < 12:  # narrow: shrink the name and permission columns first
        short = 12 - description
        cut_name = min(short, max(0, name - 24))
        cut_permission = min(short - cut_name, max(0, permission - 14))
        name, permission = name - cut_name, permission - cut_permission
        description = max(0, width - (name + mark + acc + permission + 4 * Columns.GAP))
    return Columns(name, mark, acc, permission, description)


def _cell(text: str | Content, width: int, style: str = "") -> Content:
    content = Content.styled(text, style) if isinstance(text, str) else text
    return content.truncate(width, ellipsis=True, pad=True)


def header_line(columns: Columns) -> Content:
    gap = " " * Columns.GAP
    widths = (columns.name, columns.mark, columns.access, columns.permission, columns.description)
    cells = [_cell(h, w, "bold $foreground-muted") for h, w in zip(HEADERS, widths, strict=True)]
    return Content(gap).join(c for c, w in zip(cells, widths, strict=True) if w > 0)


def tool_line(row: ToolRow, columns: Columns) -> Content:
    """One row of the tool list, exactly as wide as the columns."""
    gap = " " * Columns.GAP
    acc, acc_style = access(row.info)
    permission, permission_style = permission_label(row)
    description = " ".join(row.info.description.split())
    cells = [
        _cell(row.name, columns.name, "bold"),
        _cell(row.mark.kind, columns.mark, MARK_STYLE.get(row.mark.kind, "")),
        _cell(acc, columns.access, acc_style),
        _cell(permission, columns.permission, permission_style),
    ]
    if columns.description > 0:
        cells.append(_cell(description, columns.description, "$foreground-muted"))
    return Content(gap).join(cells)


def mark_fact(row: ToolRow) -> Content:
    """``deferred — why`` (the mark in its colour)."""
    style = f"bold {MARK_STYLE.get(row.mark.kind, '')}"
    return Content.assemble((row.mark.kind, style), f" — {row.mark.why}")


def permission_fact(row: ToolRow) -> Content | None:
    """``ask — reason`` (the decision in its colour); None without a policy."""
    if row.permission is None:
        return None
    kind = row.permission.kind
    return Content.assemble(
        (kind, f"bold {PERMISSION_STYLE.get(kind, '')}"), f" — {row.permission.reason}"
    )


def summary(overview: McpOverview) -> str:
    """The panel's title line: each configuration file that cannot be used and what became of
    its servers, then the servers by status — from the same overview as the body."""
    states = [s.state.status for s in overview.servers]
    counts = [
        f"{states.count(s)} {s}"
        for s in ("connected", "connecting", "lazy", "failed", "disabled", "stopped")
        if states.count(s)
    ]
    broken = [broken_title(p) for p in overview.problems if p.unread]
    return " · ".join([*broken, *(counts or ["no servers"])])


def broken_title(problem: ConfigProblem) -> str:
    """``.mcp.json is broken: its 2 servers kept as before`` (``ConfigProblem.kept``)."""
    name = problem.path.name
    if not problem.kept:
        return f"{name} is broken: nothing loaded from it"
    count = len(problem.kept)
    return f"{name} is broken: its {count} server{'s' if count != 1 else ''} kept as before"
