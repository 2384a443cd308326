"""The CSS parses of the UI tests' apps, shared within a test process.

Every app parses the default CSS of each widget class it mounts into its own stylesheet's
parse cache: the same few hundred sources, the same variables (the default theme), parsed
again by each of the ~1,000 apps a worker starts — a fifth of an app's start-up CPU
(``benchmarks/bench_test_apps.py``). ``SharedParseStylesheet`` is the app's stylesheet
(``AppendingStylesheet``, as shipped) whose ``_parse_rules`` first looks in a process-wide
table keyed by everything the parse depends on: the CSS, where it was read from, whether it is
default CSS, its tie breaker, its scope and the stylesheet's variables (a theme of its own gets
its own parses). A parse is deterministic in those, and Textual treats the ``RuleSet`` lists it
returns as read-only (its own cache hands the same lists to every later parse of the
stylesheet), so an app styles exactly as with a parse of its own. Each app's own parse cache
is still filled, so what the tests read of it (the preload's tests) is as before; a source that
fails to parse is not shared (it raises each time, as before).
"""

from __future__ import annotations

from typing import Any

from textual.css.model import RuleSet
from textual.css.types import CSSLocation

from agent_tui.ui.shell.appending_stylesheet import AppendingStylesheet

_SHARED: dict[tuple[Any, ...], list[RuleSet]] = {}
_LIMIT = 4096
"""At most this many parses kept (a few hundred sources per theme in practice)."""


class SharedParseStylesheet(AppendingStylesheet):
    """``AppendingStylesheet`` whose parses come from, and go to, the process-wide table."""

    def _parse_rules(
        self,
        css: str,
        read_from: CSSLocation,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[RuleSet]:
        own = (css, read_from, is_default_rules, tie_breaker, scope)
        if own in self._parse_cache:
            return self._parse_cache[own]
        key = (*own, tuple(self._variables.items()))
        rules = _SHARED.get(key)
        if rules is None:
            rules = super()._parse_rules(css, read_from, is_default_rules, tie_breaker, scope)
            if len(_SHARED) < _LIMIT:
                _SHARED[key] = rules
        else:
            self._parse_cache[own] = rules
        return rules


def share_parses(stylesheet: AppendingStylesheet) -> None:
    """Make ``stylesheet`` (an app's, before anything is parsed) take its parses from the
    process-wide table."""
    if type(stylesheet) is not AppendingStylesheet:
        raise TypeError(f"expected the app's AppendingStylesheet, got {type(stylesheet)}")
    stylesheet.__class__ = SharedParseStylesheet
