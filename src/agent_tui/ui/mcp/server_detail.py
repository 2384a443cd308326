"""The selected server in full: status (and why it failed or is off, wrapped, never cut; when it
reconnects by itself), transport and command or URL, protocol version, server name and version,
time to connect, tool count by disclosure mark, the configuration file, notes, and the tail of
its stderr."""

from __future__ import annotations

from collections import Counter

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content

from agent_tui.core.mcp.client.overview import ServerRow
from agent_tui.ui.common.format import format_elapsed, plural, shorten_home
from agent_tui.ui.mcp.fact_row import FactRow
from agent_tui.ui.mcp.look import STATUS_GLYPH, STATUS_STYLE, lazy_line, status_word
from agent_tui.ui.mcp.stderr_tail import StderrTail

FACTS = (
    ("status", "status"),
    ("reason", "reason"),
    ("transport", "transport"),
    ("target", "command"),
    ("protocol", "protocol"),
    ("server", "server"),
    ("tools", "tools"),
    ("config", "config"),
    ("notes", "notes"),
    ("hint", ""),
)


def _tools(row: ServerRow) -> str:
    if row.state.status != "connected" and not row.tools:
        return ""
    marks: Counter[str] = Counter(tool.mark.kind for tool in row.tools)
    order = ("direct", "promoted", "unmasked", "deferred", "hidden")
    parts = [f"{marks[kind]} {kind}" for kind in order if marks[kind]]
    head = plural(len(row.tools), "tool")
    return f"{head} · {', '.join(parts)}" if parts else head


def _status(row: ServerRow) -> Content:
    state = row.state
    word = status_word(state)
    if state.status == "connected" and state.connect_seconds is not None:
        return word + Content.styled(
            f"  in {format_elapsed(state.connect_seconds)}", "$foreground-muted"
        )
    if state.status == "connecting":
        return word + Content.styled("  …", "$foreground-muted")
    if state.status == "lazy":
        return Content.styled(f"{STATUS_GLYPH['lazy']} {lazy_line(state)}", STATUS_STYLE["lazy"])
    if state.reconnect is not None:
        return word + Content.styled(f"  {state.reconnect.describe()}", "$warning")
    return word


def _hint(row: ServerRow) -> str:
    """What the user can do about the state, when it needs something."""
    state = row.state
    if state.status == "disabled":
        if state.disabled_by == "command":
            return ""
        if state.disabled_by == "untrusted":
            return "d trusts this command and starts it (remembered for this folder)"
        return "d enables it"
    if row.problems:
        return "fix its entry (o opens the file); the change applies as soon as it is saved"
    if state.auth_required and state.grant is not None:
        return f"a gets a new token with its {state.grant} grant (no browser), then reconnects"
    if state.auth_required:
        return "a signs in (opens the browser; the URL is also shown), then reconnects"
    if state.reconnect is not None:
        return "it reconnects by itself (a call to one of its tools tries at once); r: now"
    if state.status == "failed":
        return "r reconnects (after fixing the cause); the stderr tail below may say more"
    if state.status == "lazy":
        return (
            "starts on the first call of one of its tools (its tools are from the cache); "
            "r starts it now, with its resources and prompts"
        )
    if state.disabled_in_file and state.status in ("connected", "connecting"):
        return 'enabled for this session: its entry says "disabled": true'
    return ""


class ServerDetail(Vertical):
    DEFAULT_CSS = """
    ServerDetail {
        height: 1fr;
        border: round $panel-lighten-2;
        border-title-color: $foreground;
        border-title-style: bold;
        padding: 0 1;
        & > #facts { height: 1fr; scrollbar-size-vertical: 1; }
        & > #facts:focus { background-tint: transparent; }
        & #fact-reason { color: $error; }
        & #fact-reason.-off { color: $foreground; }
        & #fact-hint { color: $foreground-muted; text-style: italic; }
        & #fact-notes { color: $warning; }
        & > #stderr { margin-top: 0; }
        & > #none { color: $foreground-muted; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.row: ServerRow | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="facts"):
            for key, label in FACTS:
                yield FactRow(label, id=f"fact-{key}")
        yield StderrTail(id="stderr")

    def show(self, row: ServerRow | None) -> None:
        if row == self.row and self.row is not None:
            return
        self.row = row
        facts = {key: self.query_one(f"#fact-{key}", FactRow) for key, _ in FACTS}
        if row is None:
            self.border_title = ""
            for fact in facts.values():
                fact.set(None)
            self.query_one(StderrTail).show(())
            return
        state = row.state
        self.border_title = state.name
        facts["status"].set(_status(row))
        facts["reason"].relabel("why" if state.status == "disabled" else "reason")
        facts["reason"].set_class(state.status == "disabled", "-off")
        facts["reason"].set(state.reason if state.status in ("failed", "disabled") else None)
        facts["transport"].set(state.transport)
        facts["target"].relabel("url" if state.transport == "http" else "command")
        facts["target"].set(state.target)
        facts["protocol"].set(state.protocol_version)
        facts["server"].set(state.server_info)
        facts["tools"].set(_tools(row))
        facts["config"].set(shorten_home(state.source) if state.source else None)
        facts["notes"].set("\n".join(state.notes) if state.notes else None)
        facts["hint"].set(_hint(row))
        self.query_one(StderrTail).show(state.stderr_tail)
