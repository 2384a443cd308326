"""The screens the user opens later, readied in the background once the app has painted.

Start-up imports none of the spill browser, the MCP panel or the permission prompt: they
cost nothing until used. Their first open then paid for the imports (~0.1–0.3 s on a busy
2-core machine: the screens' modules, Textual's tabs) and for parsing the
default CSS of every widget class it was the first to mount — a third to a half of the
first open (``benchmarks/bench_screens.py --profile``). ``preload`` does both in a worker
thread right after the first frame: the imports, and Textual's CSS parse of those classes,
whose rules the event loop then puts into the stylesheet's parse cache (under the keys
Textual computes when a widget of the class mounts, so that mount parses nothing; nothing is
added to the stylesheet itself, so what is styled and how does not change; the cache grows
past Textual's 64 entries to hold them). A failure only loses the head start.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import logging
from collections.abc import Callable
from types import ModuleType
from typing import Any

from textual.app import App
from textual.css.model import RuleSet
from textual.css.parse import parse
from textual.dom import DOMNode

log = logging.getLogger(__name__)

CacheKey = tuple[str, tuple[str, str], bool, int, str]

MODULES = (
    "agent_tui.ui.approval.screen",
    "agent_tui.ui.spills.browser",
    "agent_tui.ui.mcp.panel",
)
"""What the screens import on their first open, the prompt first (it may come soonest).
Not ``watchfiles``: the spill browser imports it in a thread of its own once open (``watch``),
and nothing else at idle needs it (the MCP configuration is polled, ``core.mcp.client.watch``)."""


def preload(app: App[Any], then: Callable[[], object] | None = None) -> None:
    """Import the screens and warm the CSS parse of their widgets, in a thread (idempotent:
    a second call finds it all done); ``then`` is called on the event loop once it is."""
    app.run_worker(
        lambda: ready_screens(app, then), thread=True, group="preload", exit_on_error=False
    )


def ready_screens(app: App[Any], then: Callable[[], object] | None = None) -> int:
    """The worker (a thread): import ``MODULES``, parse their widgets' default CSS, and hand
    the rules to the event loop for the parse cache (then call ``then`` there); returns how
    many sources were parsed."""
    stylesheet = app.stylesheet
    variables = stylesheet._variables
    tokens = stylesheet._variable_tokens
    parsed: dict[CacheKey, list[RuleSet]] = {}
    for name in MODULES:
        try:
            module = importlib.import_module(name)
        except Exception:  # an optional dependency missing: that screen says so when opened
            log.exception("preloading %s failed", name)
            continue
        for node_class in _node_classes(module):
            for key in _default_css_keys(node_class):
                if key not in parsed:
                    with contextlib.suppress(Exception):  # Textual reports it when it mounts
                        css, where, _, tie_breaker, scope = key
                        parsed[key] = list(
                            parse(
                                scope,
                                css,
                                where,
                                variable_tokens=tokens,
                                is_default_rules=True,
                                tie_breaker=tie_breaker,
                            )
                        )
    with contextlib.suppress(RuntimeError):  # the app is closing
        app.call_from_thread(_install, app, variables, parsed)
        if then is not None:
            app.call_from_thread(then)
    return len(parsed)


def _install(app: App[Any], variables: object, parsed: dict[CacheKey, list[RuleSet]]) -> None:
    """On the event loop: put ``parsed`` into the stylesheet's parse cache, unless the theme
    changed meanwhile (the rules hold the old variables' values then)."""
    stylesheet = app.stylesheet
    if stylesheet._variables is not variables:
        return
    cache = stylesheet._parse_cache
    cache.grow(len(cache) + len(parsed) + 64)  # Textual's 64 would evict what it parsed
    for key, rules in parsed.items():
        if key not in cache:
            cache[key] = rules


def _node_classes(module: ModuleType) -> set[type[DOMNode]]:
    """The DOM node classes ``module`` defines or uses, and those of the Textual modules of
    them and their bases (the parts a Textual widget composes, like a footer's keys)."""
    found: set[type[DOMNode]] = set()
    homes: set[ModuleType] = set()
    for value in list(vars(module).values()):
        if isinstance(value, type) and issubclass(value, DOMNode):
            found.add(value)
            for base in value.__mro__:
                home = inspect.getmodule(base)
                if home is not None and home.__name__.startswith("textual."):
                    homes.add(home)
    for home in homes:
        found.update(
            v for v in list(vars(home).values()) if isinstance(v, type) and issubclass(v, DOMNode)
        )
    return found


def _default_css_keys(node_class: type[DOMNode]) -> list[CacheKey]:
    """The parse-cache keys of ``node_class``'s default CSS (with its bases'), as
    ``DOMNode._get_default_css`` and ``Stylesheet._parse_rules`` make them for a widget of
    that class: (css, where, is default, tie breaker, scope)."""
    keys: list[CacheKey] = []
    for tie_breaker, base in enumerate(node_class._css_bases(node_class)):
        css: str = base.__dict__.get("DEFAULT_CSS", "")
        if not css:
            continue
        scoped: bool = base.__dict__.get("SCOPED_CSS", True)
        try:
            where = (inspect.getfile(base), f"{base.__name__}.DEFAULT_CSS")
        except (TypeError, OSError):
            where = ("", f"{base.__name__}.DEFAULT_CSS")
        keys.append((css, where, True, -tie_breaker, base._css_type_name if scoped else ""))
    return keys
