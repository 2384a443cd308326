"""Calling you back to the terminal: a notification when a turn ends or a call waits for your
approval while the terminal is not focused, and a mark in the terminal's title while it waits.

The terminal says whether it has the focus (focus reporting, ``CSI ? 1004 h``, which Textual
turns on; it becomes the app's ``app_focus``). A terminal that never reports focus counts as
focused: nothing is sent. How the notification is sent is the ``ui.notify`` setting
(``Notify``): OSC 9 (iTerm2, WezTerm, Ghostty, kitty), OSC 777 (foot, urxvt, Ghostty,
WezTerm, VTE with Fedora's patch), the bell, or nothing; ``auto`` picks one from the
environment (``resolve``). Inside tmux an OSC reaches the terminal only wrapped in tmux's DCS
passthrough, and only when the pane's ``allow-passthrough`` is on (probed once, ``tmux
display -p``); otherwise, and with ``auto``, tmux gets the bell, which it forwards and flags
in its status line. The title (OSC 2, the terminal's own pushed and popped around the run
where it keeps a stack) is ``agent-tui · <project>``, marked ``WAITING_MARK`` while a call
waits for approval or a turn ended unseen, until the terminal has the focus again.

Everything goes through the Textual driver's writer (``App._driver.write``: the frames and
these sequences come out in order, never interleaved). The ``Notification`` hooks are not
here: they run from the core (``permission_prompt``) and ``Turns`` (``idle_prompt``).
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:  # the first frame imports this module: the core is imported later
    from textual.app import App

    from agent_tui.core.settings import Notify

Signal = Literal["osc9", "osc777", "bell", "off"]

WAITING_MARK = "● "
"""Before the title while agent-tui waits for you."""
TITLE = "agent-tui"

_OSC9_TERMINALS = ("iterm.app", "wezterm", "ghostty")
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]+")


def resolve(setting: Notify, env: Mapping[str, str], passthrough: bool) -> Signal:
    """What a notification is sent as, for ``setting`` in a terminal described by ``env``
    (``passthrough``: inside tmux, the pane lets escape sequences through)."""
    if setting == "off":
        return "off"
    in_tmux = bool(env.get("TMUX"))
    if setting == "auto":
        if in_tmux:  # the terminal outside is unknown: tmux forwards a bell and flags it
            return "bell"
        program = env.get("TERM_PROGRAM", "").lower()
        term = env.get("TERM", "").lower()
        if program in _OSC9_TERMINALS or "kitty" in term or env.get("KITTY_WINDOW_ID"):
            return "osc9"
        if term.startswith(("foot", "rxvt-unicode")):
            return "osc777"
        return "bell"
    if setting != "bell" and in_tmux and not passthrough:
        return "bell"
    return setting


def clean(text: str, limit: int = 200) -> str:
    """``text`` safe inside an OSC: control characters out (an ESC or BEL would end the
    sequence early, and a terminal would run what follows), one line, at most ``limit``."""
    return _CONTROLS.sub(" ", text).strip()[:limit]


def sequence(signal: Signal, title: str, body: str, *, tmux: bool = False) -> str:
    """The bytes that send ``signal`` (``title`` and ``body``: what the notification says),
    wrapped for tmux's passthrough when ``tmux``."""
    if signal == "off":
        return ""
    if signal == "bell":
        return "\a"
    if signal == "osc9":
        osc = f"\x1b]9;{clean(f'{title}: {body}')}\a"
    else:  # OSC 777's fields are separated by ';'
        osc = f"\x1b]777;notify;{clean(title).replace(';', ',')};{clean(body)}\a"
    if tmux:  # tmux hands the inside of its DCS to the terminal, ESCs doubled
        return "\x1bPtmux;" + osc.replace("\x1b", "\x1b\x1b") + "\x1b\\"
    return osc


def title_sequence(title: str) -> str:
    """OSC 2: the terminal window's (or tmux pane's) title."""
    return f"\x1b]2;{clean(title)}\a"


PUSH_TITLE = "\x1b[22;0t"
"""XTWINOPS: keep the terminal's title on its stack (ignored where there is none)."""
POP_TITLE = "\x1b[23;0t"


async def tmux_passthrough(env: Mapping[str, str]) -> bool:
    """Whether tmux lets escape sequences through the pane (``allow-passthrough`` on, or
    ``all`` in tmux 3.4+); False when it cannot be told."""
    pane = env.get("TMUX_PANE", "")
    try:
        process = await asyncio.create_subprocess_exec(
            "tmux",
            "display-message",
            "-p",
            *(("-t", pane) if pane else ()),
            "#{allow-passthrough}",
            stdin=asyncio.subprocess.DEVNULL,
            env=dict(env),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
        out, _ = await asyncio.wait_for(process.communicate(), 5)
    except (OSError, TimeoutError):
        return False
    return out.decode(errors="replace").strip() in ("1", "on", "all")


class Attention:
    """The notifications and the title's mark of one app (``start`` once the settings are
    known; before, and in a headless run without a driver, nothing is written)."""

    def __init__(self, app: App[Any], env: Mapping[str, str] | None = None) -> None:
        self.app = app
        self.env = os.environ if env is None else env
        self.setting: Notify = "off"
        self.signal: Signal = "off"
        self.set_title = False
        self.project = ""
        self.asks = 0
        """Calls waiting for approval."""
        self.unseen = False
        """A turn ended while the terminal was not focused, and it has not been since."""
        self.sent: list[str] = []
        """What was sent, newest last (``osc9``, ``bell``…): for tests and ``/doctor``."""
        self._started = False

    @property
    def focused(self) -> bool:
        return bool(self.app.app_focus)

    @property
    def waiting(self) -> bool:
        """Agent-tui waits for you: the title is marked."""
        return self.asks > 0 or self.unseen

    def start(self, setting: Notify, *, title: bool, project: str) -> None:
        """Use ``setting`` (``ui.notify``) and, with ``title``, set the terminal's title (for
        ``project``); follow the terminal's focus. Again (a new session): the new settings."""
        self.setting, self.project = setting, project
        self.signal = resolve(setting, self.env, passthrough=False)
        if self.set_title and not title:
            self._write(POP_TITLE)
        elif title and not self.set_title:
            self._write(PUSH_TITLE)
        self.set_title = title
        self._show_title()
        if self._started:
            return
        self._started = True
        self.app.watch(self.app, "app_focus", self._focus_changed, init=False)
        if self.env.get("TMUX") and setting in ("osc9", "osc777"):
            self.app.run_worker(self._probe_tmux(), group="attention", exit_on_error=False)

    async def _probe_tmux(self) -> None:
        passthrough = await tmux_passthrough(self.env)
        self.signal = resolve(self.setting, self.env, passthrough=passthrough)

    def stop(self) -> None:
        """The app ends: the terminal's own title back (where it keeps a stack)."""
        if self.set_title:
            self._write(POP_TITLE)
            self.set_title = False

    def turn_ended(self, what: str = "the turn is done, waiting for your input") -> None:
        """A turn ended and nothing follows: unfocused, say so and mark the title."""
        if self.focused:
            return
        self.unseen = True
        self._send(what)
        self._show_title()

    def asks_changed(self, count: int) -> None:
        """``count`` calls now wait for approval; a new one, unfocused, is said."""
        more = count > self.asks
        self.asks = count
        if more and not self.focused:
            self._send("a call waits for your approval")
        self._show_title()

    def _focus_changed(self, focused: bool) -> None:
        if focused and self.unseen:
            self.unseen = False
            self._show_title()

    def _send(self, body: str) -> None:
        signal = self.signal
        tmux = bool(self.env.get("TMUX")) and signal in ("osc9", "osc777")
        if signal != "off" and self._write(sequence(signal, TITLE, body, tmux=tmux)):
            self.sent.append(signal)

    def title(self) -> str:
        """The title as it is now: ``agent-tui · project``, marked while it waits for you."""
        base = f"{TITLE} · {self.project}" if self.project else TITLE
        return f"{WAITING_MARK}{base}" if self.waiting else base

    def _show_title(self) -> None:
        if self.set_title:
            self._write(title_sequence(self.title()))

    def _write(self, data: str) -> bool:
        driver = self.app._driver
        if driver is None or not data:
            return False
        driver.write(data)
        return True
