"""What the TUI needs before its core exists: the first frame's look (model, mode, cwd, theme)
worked out from the command line and a glance at the user's settings, and the contract of the
``boot`` callable that builds the core in a worker (``AgentApp(boot=…)``).

Nothing here imports the core's models, providers or pydantic: ``tests/ui/test_controls.py``
checks that importing ``ui.app`` (which imports this) leaves them out, so the first paint
cannot slow down silently.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.theme import Theme

from agent_tui.core.state.model_spec import spec_name
from agent_tui.core.state.paths import config_dir
from agent_tui.ui.common.format import model_label, shorten_home

if TYPE_CHECKING:
    from importlib.abc import Traversable

    from agent_tui.core.agent.agent import Agent
    from agent_tui.core.events import SessionStart

log = logging.getLogger(__name__)

DEFAULT_THEME = "agent-dark"


class BootFailed(Exception):
    """The core cannot be built (a bad model spec, a session not found, bad permission
    rules): the app ends, and ``cli.main`` prints ``agent-tui: <message>`` and exits with
    ``code``, as it does for a headless run."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


@dataclass
class Booted:
    """What ``boot`` returns: the agent and the session it starts."""

    agent: Agent
    start: SessionStart


Boot = Callable[[], Booted]
"""Builds the core; runs in a thread (it imports the core and reads files); raises
``BootFailed`` when the run cannot start."""


async def build(boot: Boot) -> Booted:
    """Run ``boot`` in a thread (its imports and files would hold up the frames). Any other
    failure than ``BootFailed`` is a bug, not the user's input: logged, and raised as a
    ``BootFailed`` that says so (nothing hidden)."""
    try:
        return await asyncio.to_thread(boot)
    except BootFailed:
        raise
    except Exception as exc:
        log.exception("start-up failed")
        raise BootFailed(f"start-up failed: {type(exc).__name__}: {exc}", 1) from exc


@dataclass(frozen=True)
class FirstLook:
    """What the status bar shows on the first frame, before the core is built."""

    model: str
    """The model's label (``model_label`` of the name the provider will have)."""
    demo: bool
    mode: str
    """The permission mode when the command line gives it; else empty until the core knows
    it (the settings decide, and which of their files count depends on the project's trust)."""
    cwd: str
    theme: str | None = None
    """The theme the user's settings name (``ui.theme``), if any."""


def first_look(model: str | None, mode: str | None, cwd: Path) -> FirstLook:
    """The first frame's look for ``--model model`` and ``--permission-mode mode`` in ``cwd``:
    the model as the provider will name it (``core.state.model_spec``: string work on the spec and
    the environment, no provider built)."""
    name = spec_name(model, cwd=cwd)
    return FirstLook(
        model=model_label(name),
        demo=name == "demo",
        mode=mode or "",
        cwd=shorten_home(cwd),
        theme=_chosen_theme(config_dir() / "settings.json"),
    )


def _chosen_theme(path: Path) -> str | None:
    """``ui.theme`` of the settings file ``path`` (None when it is missing or unreadable: the
    settings are read and checked properly once the core is built)."""
    try:
        data: Any = json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    ui = data.get("ui") if isinstance(data, dict) else None
    theme = ui.get("theme") if isinstance(ui, dict) else None
    return theme if isinstance(theme, str) else None


def themes_dir() -> Traversable | None:
    """Where the shipped themes are: inside the package, else the repository checkout. An
    installed package's directory is read as such: ``importlib.resources`` (and the
    ``zipfile`` its readers import, ~10 ms before the first frame) only for a package read
    from an archive."""
    here = Path(__file__).resolve()
    if here.is_file():
        packaged: Traversable = here.parents[2] / "themes"
    else:
        from importlib import resources

        packaged = resources.files("agent_tui") / "themes"
    if packaged.is_dir():
        return packaged
    checkout = here.parents[4] / "themes"
    return checkout if checkout.is_dir() else None


def paint_theme(app: App[Any], chosen: str | None) -> None:
    """Select the theme for the first frame (call it before the app runs): ``chosen`` if it is
    one of the shipped themes, else the default one. The shipped files are read as plain JSON
    (the tests check them); ``themes.install_themes`` registers them properly, with the user's
    own, once the core is built."""
    directory = themes_dir()
    if directory is None:
        return
    wanted = chosen or DEFAULT_THEME
    for name in (wanted, DEFAULT_THEME):
        entry = directory / f"{name}.json"
        try:
            theme = Theme(**json.loads(entry.read_text("utf-8")))
        except (OSError, ValueError, TypeError):
            continue
        app.register_theme(theme)
        _select(app, theme)
        return


def _select(app: App[Any], theme: Theme) -> None:
    """``app.theme = theme.name``, without the restyle that queues before the app runs: Textual
    re-parses the whole stylesheet in it (``refresh_css``), then parses it all again as the
    first screen mounts (~15 ms of the first frame). What the watcher does besides, done here:
    the theme's classes and the stylesheet's variables (nothing is styled or subscribed yet).
    A running app, or a theme dark where the current one is light or the other way round (the
    filter of ANSI colours changes too), takes Textual's way."""
    if app.is_running or theme.dark != app.current_theme.dark:
        app.theme = theme.name
        return
    app.set_reactive(App.theme, theme.name)
    classes = {name: False for name in app.classes if name.startswith("-theme-")}
    classes |= {
        f"-theme-{theme.name}": True,
        "-dark-mode": theme.dark,
        "-light-mode": not theme.dark,
    }
    app.update_classes(classes, update=False)
    app.stylesheet.set_variables(app.get_css_variables())
