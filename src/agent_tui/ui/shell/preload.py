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

The classes are those the screens' modules and every ``agent_tui.ui`` module imported by then
define or use — the screens' parts (the server detail's rows, its stderr tail), the chat's and
the lane's cards that mount with the first reply or call — and the Textual classes of their
modules, followed from module to module (the tabs' underline); ones parsed already (mounted)
are skipped. Then, given the agent's tools, their input schemas are made (``ready_schemas``):
the MCP panel's first open estimated the tools array's cost with pydantic's schema of each
built-in tool (a fifth of that open's CPU); the first request needs them too.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import logging
import sys
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

from textual.app import App
from textual.css.model import RuleSet
from textual.css.parse import parse
from textual.dom import DOMNode

if TYPE_CHECKING:
    from pydantic import BaseModel

    from agent_tui.core.tools.registry import ToolRegistry

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


def preload(
    app: App[Any], registry: ToolRegistry | None = None, then: Callable[[], object] | None = None
) -> None:
    """Import the screens and warm the CSS parse of their widgets, then make the schemas of
    ``registry``'s tools, in a thread (idempotent: a second call finds it all done); ``then``
    is called on the event loop once all of it is done."""

    def work() -> int:
        parsed = ready_screens(app)
        if registry is not None:
            ready_schemas(registry)
        if then is not None:
            with contextlib.suppress(RuntimeError):  # the app is closing
                app.call_from_thread(then)
        return parsed

    app.run_worker(work, thread=True, group="preload", exit_on_error=False)


def ready_schemas(registry: ToolRegistry) -> int:
    """The JSON schema of each tool's input model (``schema_text``, made once per class):
    what the MCP panel's cost line (``Disclosure.estimate``) and the first request build the
    tools array from (~1 ms of pydantic a model, a dozen built-in ones); returns how many."""
    from agent_tui.core.tools.schema import schema_text

    try:
        tools = registry.tools()
    except Exception:  # changed meanwhile (a server's tools): made when needed, as before
        return 0
    made = 0
    for tool in tools:
        if tool.input_schema is None:
            with contextlib.suppress(Exception):  # the request reports it, as before
                schema_text(cast("type[BaseModel]", tool.input_model))
                made += 1
    return made


def ready_screens(app: App[Any]) -> int:
    """The worker (a thread): import ``MODULES``, parse their widgets' default CSS, and hand
    the rules to the event loop for the parse cache; returns how many sources were parsed."""
    stylesheet = app.stylesheet
    variables = stylesheet._variables
    tokens = stylesheet._variable_tokens
    cache = stylesheet._parse_cache
    parsed: dict[CacheKey, list[RuleSet]] = {}
    modules: list[ModuleType] = []
    for name in MODULES:
        try:
            modules.append(importlib.import_module(name))
        except Exception:  # an optional dependency missing: that screen says so when opened
            log.exception("preloading %s failed", name)
    for node_class in _node_classes(modules):
        for key in _default_css_keys(node_class):
            if key not in parsed and key not in cache:  # not parsed yet (mounted ones are)
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


def _node_classes(modules: list[ModuleType]) -> set[type[DOMNode]]:
    """The DOM node classes ``modules`` and the ``agent_tui.ui`` modules imported by now
    define or use (the screens' parts, the chat's and the lane's widgets that mount with a
    first reply or call), and those of the Textual modules of them and their bases, and of
    those modules' own classes (the parts a Textual widget composes: a footer's keys, the
    tabs' underline)."""
    found: set[type[DOMNode]] = set()
    ours = [
        m
        for m in list(sys.modules.values())
        if isinstance(m, ModuleType) and m.__name__.startswith("agent_tui.ui.")
    ]
    for module in [*modules, *ours]:
        found.update(_classes_in(module))
    homes: set[ModuleType] = set()
    fresh = found
    while fresh:
        new_homes = {
            home
            for value in fresh
            for base in value.__mro__
            if (home := inspect.getmodule(base)) is not None
            and home.__name__.startswith("textual.")
            and home not in homes
        }
        homes |= new_homes
        fresh = {value for home in new_homes for value in _classes_in(home)} - found
        found |= fresh
    return found


def _classes_in(module: ModuleType) -> set[type[DOMNode]]:
    return {
        v for v in list(vars(module).values()) if isinstance(v, type) and issubclass(v, DOMNode)
    }


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
