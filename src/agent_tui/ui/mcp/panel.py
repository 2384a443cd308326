"""The MCP panel: every configured server with its status, and the tools of the selected one.

Left, the servers (status glyph, name, tool count); right, the selected server in full (why it
failed or is off, transport, protocol, server, time to connect, config file, stderr tail).
Below, the selected server's sections (``]``/``[`` or 1-4 switch them; the hidden ones are
built when first shown, not with the panel):

- **Tools**, with their disclosure marks, access and permission (hidden ones with the reason);
  Enter opens a tool's input schema;
- **Resources** and resource templates (``resource_list``): Enter previews a resource (read in
  a worker, ``resource_dialog``) or puts a template's ``@server:uri`` mention into the prompt;
  m mentions the highlighted one;
- **Prompts** (``prompt_list``), each as its slash command with its arguments; Enter puts the
  command into the prompt;
- **Server log** (``server_log_view``): what it logged, newest at the bottom; l sets the next
  log level (``logging/setLevel``), or says why it cannot.

Then the cost of the tools array and the configuration problems (file and reason). With
no server configured it says which files are read and how to add one.

Keys: r reconnects the selected server, d disables or enables it (remembered for the project),
a signs in to an HTTP server that uses OAuth (``core.mcp.auth.oauth``: the browser opens, the URL is
shown and copied; on success the server reconnects),
o opens its configuration file in ``$VISUAL``/``$EDITOR`` with the app suspended (else shows
the path and copies it to the clipboard), tab moves between the servers and the tools, Enter
on a tool shows its input schema, q, Esc or ctrl+g closes.

Live: the panel listens to the manager (status changes, tool list changes, configuration
reloads; bursts coalesced) and refreshes once a second for what changes without an event (the
stderr tail, tools unmasked by search_tool, the permission mode). Nothing is redrawn unless
what it shows changed, and the selection stays on the same server and tool by name.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shlex
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual import on
from textual.app import ComposeResult, SuspendNotSupported
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Header, OptionList, Static, TabbedContent, TabPane

from agent_tui.core.mcp.client.overview import McpOverview, ServerRow
from agent_tui.ui.common.clipboard import copy
from agent_tui.ui.common.format import shorten_home
from agent_tui.ui.common.steady_footer import SteadyFooter
from agent_tui.ui.common.styled_once import StyledOnce
from agent_tui.ui.mcp.empty_state import EmptyState
from agent_tui.ui.mcp.look import summary
from agent_tui.ui.mcp.problems_block import ProblemsBlock
from agent_tui.ui.mcp.prompt_list import PromptList
from agent_tui.ui.mcp.resource_dialog import ResourceDialog
from agent_tui.ui.mcp.resource_list import ResourceList, mention
from agent_tui.ui.mcp.schema_dialog import SchemaDialog
from agent_tui.ui.mcp.section_list import SectionList
from agent_tui.ui.mcp.server_detail import ServerDetail
from agent_tui.ui.mcp.server_list import ServerList
from agent_tui.ui.mcp.server_log_view import ServerLogView
from agent_tui.ui.mcp.source import ManagerSource, PanelSource
from agent_tui.ui.mcp.tool_summary import ToolSummary
from agent_tui.ui.mcp.tool_table import ToolTable

log = logging.getLogger(__name__)
COALESCE_SECONDS = 0.05
"""Changes reported within this long are drawn once."""
REFRESH_SECONDS = 1.0
"""How often the panel looks for changes that come without an event."""
SECTIONS = ("tools", "resources", "prompts", "log")
"""The tabs under the server, in order (``tab-<name>``; 1-4 and ]/[ go to them)."""
TITLES = {"tools": "Tools", "resources": "Resources", "prompts": "Prompts", "log": "Server log"}
LATER = {"resources": ResourceList, "prompts": PromptList, "log": ServerLogView}
"""The sections not in the panel's first frame: each is built when it is first shown."""


class NoRows:
    """A section not mounted yet: no rows to focus, nothing selected."""

    selected = None

    def focus_rows(self) -> bool:
        return False


class McpPanel(StyledOnce, Screen[None]):
    DEFAULT_CSS = """
    McpPanel {
        layout: vertical;
        & > #top { height: 40%; min-height: 10; max-height: 20; }
        & #servers { width: 34; max-width: 40%; }
        & > #cost { height: auto; padding: 0 2; background: $panel; color: $foreground; }
        & > #sections { height: 1fr; }
        & > #sections > ContentSwitcher { height: 1fr; }
        & > #sections TabPane { height: 1fr; padding: 0; }
        &.-empty > #top, &.-empty > #sections, &.-empty > #cost {
            display: none;
        }
        &.-empty > #empty { display: block; }
    }
    """

    BINDINGS = [
        Binding("r", "reconnect", "Reconnect", id="mcp.reconnect"),
        Binding("d", "disable_server", "Disable/enable", id="mcp.toggle"),
        Binding("a", "sign_in", "Sign in", show=False, id="mcp.sign_in"),
        Binding("o", "open_config", "Open config", id="mcp.open_config"),
        Binding("l", "log_level", "Log level", id="mcp.log_level"),
        Binding("right_square_bracket", "section(1)", "Next section", id="mcp.section.next"),
        Binding("left_square_bracket", "section(-1)", show=False, id="mcp.section.back"),
        Binding("1", "go_section('tools')", show=False, id="mcp.section.tools"),
        Binding("2", "go_section('resources')", show=False, id="mcp.section.resources"),
        Binding("3", "go_section('prompts')", show=False, id="mcp.section.prompts"),
        Binding("4", "go_section('log')", show=False, id="mcp.section.log"),
        Binding("m", "mention", show=False, id="mcp.mention"),
        Binding("tab", "switch_focus", "Servers/section", id="mcp.focus"),
        Binding("shift+tab", "switch_focus", show=False, id="mcp.focus.back"),
        Binding("escape", "close", "Close", id="mcp.close"),
        Binding("q", "close", "Close", show=False, id="mcp.quit"),
        Binding("ctrl+g", "close", "Close", show=False, id="mcp.toggle_panel"),
        Binding("ctrl+l", "nothing", show=False, id="mcp.no_clear"),  # not the chat's clear
    ]

    def __init__(self, source: PanelSource) -> None:
        super().__init__()
        self.source = source
        self.overview = McpOverview()
        self.title = "MCP servers"
        self._drawn = False
        self._pending = False
        self._unsubscribe: Callable[[], None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @classmethod
    def for_agent(cls, agent: Any) -> McpPanel:
        return cls(ManagerSource.of_agent(agent))

    def compose(self) -> ComposeResult:
        yield Header(icon="◆")
        with Horizontal(id="top"):
            yield ServerList(id="servers")
            yield ServerDetail(id="detail")
        with TabbedContent(id="sections", initial="tab-tools"):
            with TabPane(TITLES["tools"], id="tab-tools"):
                yield ToolTable(id="tools")
                yield ToolSummary(id="tool-summary")
            for name in LATER:  # hidden: built on their first show (``_build_section``)
                yield TabPane(TITLES[name], id=f"tab-{name}")
        yield Static(id="cost")
        yield EmptyState(id="empty")
        yield ProblemsBlock(id="problems")
        yield SteadyFooter()

    # -- life cycle -------------------------------------------------------------------------

    def on_mount(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._unsubscribe = self.source.subscribe(self._changed)
        self.refresh_data()
        self.set_interval(REFRESH_SECONDS, self.refresh_data, name="mcp panel refresh")
        self.query_one(ServerList).focus()

    def on_unmount(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def _changed(self) -> None:
        """A listener of the source: may be called on another thread, often in bursts."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._schedule()
        else:
            loop.call_soon_threadsafe(self._schedule)

    def _schedule(self) -> None:
        if not self._pending and self.is_attached:
            self._pending = True
            self.set_timer(COALESCE_SECONDS, self._flush)

    def _flush(self) -> None:
        self._pending = False
        self.refresh_data()

    def refresh_data(self) -> None:
        """Rebuild the overview; redraw what changed."""
        overview = self.source.overview()
        if overview == self.overview and self._drawn:
            return
        self.overview = overview
        self._drawn = True
        self._draw()

    # -- drawing ----------------------------------------------------------------------------

    def _draw(self) -> None:
        overview = self.overview
        empty = not overview.servers
        self.set_class(empty, "-empty")
        self.query_one(ServerList).show(overview.servers)
        self._show_selected()
        self.query_one("#cost", Static).update(overview.cost_line)
        self.query_one(ProblemsBlock).show(overview.problems)
        if empty:
            broken = [p.path for p in overview.problems if p.unread]
            self.query_one(EmptyState).show(overview.files, overview.project_file, broken)
        self.sub_title = summary(overview)

    def _show_selected(self) -> None:
        row = self.selected_server
        self.query_one(ServerDetail).show(row)
        tools = self.query_one(ToolTable)
        tools.show(row)
        self.query_one(ToolSummary).show(tools.selected)
        for section in self.query(SectionList):
            section.show(row)
        state = row.state if row is not None else None
        counts = {
            "tools": len(row.tools) if row is not None else 0,
            "resources": len(state.resources) if state is not None else 0,
            "prompts": len(row.prompts) if row is not None else 0,
            "log": len(state.log) if state is not None else 0,
        }
        tabs = self.query_one(TabbedContent)
        for name in SECTIONS:
            label = f"{TITLES[name]} {counts[name]}" if counts[name] else TITLES[name]
            tab = tabs.get_tab(f"tab-{name}")
            if str(tab.label) != label:
                tab.label = label

    @property
    def selected_server(self) -> ServerRow | None:
        return self.overview.server(self.query_one(ServerList).selected)

    @on(OptionList.OptionHighlighted, "#servers")
    def _server_highlighted(self) -> None:
        self._show_selected()

    @on(OptionList.OptionSelected, "#servers")
    def _server_chosen(self) -> None:
        self._section_widget(self.section).focus_rows()

    @on(TabbedContent.TabActivated, "#sections")
    async def _tab_shown(self, event: TabbedContent.TabActivated) -> None:
        await self._build_section(str(event.pane.id).removeprefix("tab-"))

    async def _build_section(self, name: str) -> None:
        """Mount a hidden section on its first show, showing the selected server."""
        if name in LATER and not self.query(f"#{name}"):
            section = LATER[name](id=name)
            await self.query_one(f"#tab-{name}", TabPane).mount(section)
            section.show(self.selected_server)

    @on(ToolTable.Highlighted)
    def _tool_highlighted(self, event: ToolTable.Highlighted) -> None:
        self.query_one(ToolSummary).show(event.tool)

    @on(ToolTable.Opened)
    def _tool_opened(self, event: ToolTable.Opened) -> None:
        self.app.push_screen(SchemaDialog(event.tool))

    @on(SectionList.Opened, "#resources")
    def _resource_opened(self, event: SectionList.Opened) -> None:
        item = event.item
        if item.template:
            self.to_prompt(mention(item), what="the template's mention (fill in its placeholders)")
            return
        server = event.server.name

        def done(outcome: str | None) -> None:
            if outcome == "mention":
                self.to_prompt(mention(item), what="the mention")

        reader = lambda: self.source.read_resource(server, item.uri)  # noqa: E731
        self.app.push_screen(ResourceDialog(item, reader), done)

    @on(SectionList.Opened, "#prompts")
    def _prompt_opened(self, event: SectionList.Opened) -> None:
        self.to_prompt(f"/{event.item.command} ", what="the command", start=True)

    def to_prompt(self, text: str, *, what: str, start: bool = False) -> None:
        """Put ``text`` into the chat's prompt and close the panel (a slash command only into
        an empty prompt: it must start it; otherwise it is copied)."""
        prompt = getattr(getattr(self.app, "main", None), "prompt", None)
        if prompt is None or (start and prompt.text.strip()):
            why = "the prompt is not empty" if prompt is not None else "there is no prompt"
            copy(self.app, text.strip(), f"{text.strip()}\nCopied to the clipboard ({why})")
            return
        if start:
            prompt.load_text(text)
        else:
            before = prompt.get_text_range((0, 0), prompt.cursor_location)
            prompt.insert(("" if not before or before.endswith(" ") else " ") + text + " ")
        self.dismiss(None)
        prompt.focus()
        self.app.notify(f"Put {what} into the prompt: {text.strip()}", title="MCP")

    # -- actions ----------------------------------------------------------------------------

    def action_close(self) -> None:
        self.dismiss(None)

    def action_nothing(self) -> None:
        """Keys of the main screen that mean nothing here."""

    @property
    def section(self) -> str:
        active = self.query_one(TabbedContent).active
        return active.removeprefix("tab-") if active else "tools"

    def action_switch_focus(self) -> None:
        servers = self.query_one(ServerList)
        if servers.has_focus:
            section = self.section
            if not self._section_widget(section).focus_rows():
                self.notify(f"The selected server has nothing in {TITLES[section]} to go to.")
        else:
            servers.focus()

    async def action_go_section(self, name: str) -> None:
        tabs = self.query_one(TabbedContent)
        had_focus = not self.query_one(ServerList).has_focus
        await self._build_section(name)
        tabs.active = f"tab-{name}"
        # in the sections, stay there: the new one's rows, else the server list
        if had_focus and not self._section_widget(name).focus_rows():
            self.query_one(ServerList).focus()

    def _section_widget(self, name: str) -> ToolTable | SectionList | NoRows:
        if name == "tools":
            return self.query_one(ToolTable)
        # not built yet (a tab clicked a moment ago, ``_build_section``): nothing to go to
        return next(iter(self.query(f"#{name}").results(SectionList)), NoRows())

    async def action_section(self, step: int) -> None:
        index = SECTIONS.index(self.section)
        await self.action_go_section(SECTIONS[(index + step) % len(SECTIONS)])

    def action_mention(self) -> None:
        if self.section != "resources":
            self.notify("m mentions a resource: go to Resources first (2).")
            return
        resources = next(iter(self.query(ResourceList)), None)  # built on its first show
        item = resources.selected if resources is not None else None
        if item is None:
            self.notify("The selected server has no resource to mention.", severity="warning")
            return
        self.to_prompt(mention(item), what="the mention")

    def action_log_level(self) -> None:
        row = self._require_server()
        if row is None:
            return
        state = row.state
        if state.status != "connected":
            self.notify(f"{row.name} is {state.status}: no log level to set.", severity="warning")
            return
        if not state.can_log:
            self.notify(
                f"{row.name} did not declare logging (no logging capability): it takes no log "
                "level.",
                severity="warning",
            )
            return
        self._run(lambda: self.source.cycle_level(row.name), f"set the log level of {row.name}")

    def action_reconnect(self) -> None:
        row = self._require_server()
        if row is None:
            return
        state = row.state
        if state.status == "disabled":
            self.notify(f"{row.name} is disabled: d enables it.", severity="warning")
            return
        if row.problems:
            where = shorten_home(row.problems[0].path)
            self.notify(
                f"{row.name} cannot start: its entry in {where} is broken (see the reason). "
                "Fix it there (o opens the file); the change applies as soon as it is saved.",
                severity="warning",
            )
            return
        self._run(lambda: self.source.reconnect(row.name), f"reconnect {row.name}")

    def action_disable_server(self) -> None:
        row = self._require_server()
        if row is None:
            return
        if row.state.disabled_by == "command":
            self.notify(f"{row.name} is not started by this command.")
            return
        self._run(lambda: self.source.toggle(row.name), f"disable or enable {row.name}")

    def action_sign_in(self) -> None:
        row = self._require_server()
        if row is None:
            return
        state = row.state
        if not state.can_sign_in:
            why = (
                "it is a stdio server"
                if state.transport != "http"
                else 'its entry has its own Authorization header or "oauth": false'
            )
            self.notify(f"{row.name} has no sign-in: {why}.", severity="warning")
            return
        if state.disabled_by == "untrusted":
            self.notify(f"{row.name} is not trusted yet: d trusts it first.", severity="warning")
            return
        name = row.name

        def show(url: str) -> None:
            note = (
                f"Opening the browser to sign in to {name}; if it does not open, visit:\n{url}\n"
                "The URL is copied to the clipboard"
            )
            copy(self.app, url, note, title="Sign in", timeout=60)

        self._run(lambda: self.source.sign_in(name, show), f"sign in to {name}")

    def action_open_config(self) -> None:
        path = self.config_file()
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
        if editor and self._edit(editor, path):
            self._run(self.source.reload, "reload the MCP configuration", quiet=True)
            return
        exists = "" if path.exists() else " (it does not exist yet)"
        how = "" if editor else "\nSet $VISUAL or $EDITOR to open it from here."
        copy(
            self.app,
            str(path),
            f"{path}{exists}{how}\nThe path is copied to the clipboard",
            title="Configuration file",
            timeout=12,
        )

    def config_file(self) -> Path:
        """The file ``o`` opens: the selected server's, else the first one with a problem,
        else the project's ``.mcp.json``."""
        row = self.selected_server
        if row is not None and row.state.source:
            return Path(row.state.source)
        if self.overview.problems:
            return self.overview.problems[0].path
        if self.overview.project_file is not None:
            return self.overview.project_file
        return self.overview.files[-1] if self.overview.files else Path(".mcp.json")

    def _edit(self, editor: str, path: Path) -> bool:
        """Open ``path`` in ``editor`` with the app suspended; False when it cannot be."""
        try:
            command = [*shlex.split(editor), str(path)]
        except ValueError:
            return False
        try:
            with self.app.suspend():
                done = subprocess.run(command, check=False)
        except (SuspendNotSupported, RuntimeError):  # no terminal to hand over (tests, web)
            return False
        except OSError as exc:
            self.notify(f"Could not run {editor!r}: {exc}", severity="error")
            return False
        if done.returncode != 0:
            self.notify(f"{editor} exited with status {done.returncode}.", severity="warning")
        return True

    def _require_server(self) -> ServerRow | None:
        row = self.selected_server
        if row is None:
            self.notify("No server is selected.", severity="warning")
        return row

    def _run(self, act: Callable[[], Awaitable[Any]], what: str, *, quiet: bool = False) -> None:
        """Run ``act`` in an app worker (it outlives the panel); notify what it says."""

        async def work() -> None:
            try:
                said = await act()
            except Exception as exc:
                log.exception("MCP panel: %s failed", what)
                self.app.notify(f"Could not {what}: {exc}", severity="error")
                return
            if isinstance(said, str) and said and not quiet:
                self.app.notify(said, title="MCP")

        self.app.run_worker(work(), group="mcp-panel", exit_on_error=False)
