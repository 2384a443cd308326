"""The app's stylesheet, parsed by appending when CSS sources are only added.

Each time a widget class mounts for the first time, Textual adds its default CSS to the app's
stylesheet and marks the whole stylesheet for a new parse: on the next style, ``parse`` goes
over every source again (~430 once the MCP panel is open; each one a parse-cache look-up
and a check of its rules for errors) and ``rules_map`` is rebuilt from all the rules. Opening
a screen whose widgets mount in several batches did that once a batch: eleven times on the MCP
panel's first open, four on the permission prompt's (~10 ms of CPU;
``benchmarks/bench_screens.py --profile``).

When the sources since the last parse were all new ones added at the end (what mounting
does), the rules of a full parse are the previous rules followed by the new sources' rules,
in the same order: that is what ``AppendingStylesheet`` builds, parsing only the new sources,
and it extends the previous ``rules_map`` with them. Anything else — a source replaced or
given another tie breaker, a CSS file read, new variables, the sources swapped — takes
Textual's full parse, as before. The rules, their order and so what is styled and how are
the same either way.
"""

from __future__ import annotations

from itertools import islice
from pathlib import PurePath

from textual.css.model import RuleSet
from textual.css.stylesheet import CssSource, Stylesheet, StylesheetErrors, StylesheetParseError
from textual.css.types import CSSLocation


class AppendingStylesheet(Stylesheet):
    """A ``Stylesheet`` whose ``parse`` only parses the sources added since the last one."""

    def __init__(self, *, variables: dict[str, str] | None = None) -> None:
        super().__init__(variables=variables)
        self._parsed: tuple[dict[CSSLocation, CssSource], int] | None = None
        """The ``source`` dict the rules were parsed from and how many of its entries (the
        first ones) they hold; None: the next parse is a full one."""
        self._ends: list[int] = []
        """Where each of those sources' rules end in ``_rules``."""
        self._retied: set[CSSLocation] = set()
        """Sources given a lower tie breaker since (the same CSS met as a base class's):
        Textual's next parse makes their rules again with it, and so does this one."""
        self._kept_map: tuple[list[RuleSet], dict[str, list[RuleSet]]] | None = None
        """The rules and their ``rules_map`` before a source was added (``add_source`` drops
        the map): extended rather than rebuilt by an appending parse."""

    @classmethod
    def taking_over(cls, stylesheet: Stylesheet) -> AppendingStylesheet:
        """A stylesheet with ``stylesheet``'s variables, in place of that one before anything
        is read into it (``App.__init__``'s: the variables of the theme)."""
        if stylesheet.source:
            raise ValueError("the stylesheet has sources already")
        return cls(variables=stylesheet._variables)

    def add_source(
        self,
        css: str,
        read_from: CSSLocation | None = None,
        is_default_css: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> None:
        where = read_from if read_from is not None else ("", str(hash(css)))
        before = self.source.get(where)
        if self._rules_map is not None:
            self._kept_map = (self._rules, self._rules_map)
        super().add_source(css, where, is_default_css, tie_breaker, scope)
        after = self.source.get(where)
        if before is not None and after != before:
            if after is not None and after.content == before.content:
                self._retied.add(where)
            else:
                self._parsed = None  # other CSS in its place: parse it all

    def read(self, filename: str | PurePath) -> None:
        self._parsed = None
        super().read(filename)

    def set_variables(self, variables: dict[str, str]) -> None:
        self._parsed = None
        super().set_variables(variables)

    def reparse(self) -> None:
        self._parsed = None
        super().reparse()  # its rules come from a fresh stylesheet: the next parse is whole

    def parse(self) -> None:
        """Textual's ``Stylesheet.parse``, from the first source not parsed yet when only
        sources were added (and tie breakers lowered) since the last parse."""
        parsed = self._parsed
        appending = (
            parsed is not None and parsed[0] is self.source and parsed[1] <= len(self.source)
        )
        start = parsed[1] if parsed is not None and appending else 0
        previous = self._rules if appending else []
        rules = list(previous)
        ends = list(self._ends) if appending else []
        swapped: dict[int, RuleSet] | None = {}
        if appending and self._retied:
            swapped = self._retie(rules, ends, start)
            if swapped is None:  # not as expected: parse it all
                appending, start, previous, rules, ends, swapped = False, 0, [], [], [], {}
        for read_from, (css, is_default_rules, tie_breaker, scope) in islice(
            self.source.items(), start, None
        ):
            if css not in self._invalid_css:
                rules.extend(
                    self._parsed_rules(read_from, css, is_default_rules, tie_breaker, scope)
                )
            ends.append(len(rules))
        kept, self._kept_map = self._kept_map, None
        self._rules = rules
        self._ends = ends
        self._retied.clear()
        self._require_parse = False
        self._parsed = (self.source, len(self.source))
        if appending and kept is not None and kept[0] is previous:
            self._rules_map = _extended(kept[1], swapped or {}, rules[len(previous) :])
        else:
            self._rules_map = None

    def _parsed_rules(
        self, read_from: CSSLocation, css: str, is_default: bool, tie_breaker: int, scope: str
    ) -> list[RuleSet]:
        """One source's rules, failing as ``Stylesheet.parse`` does."""
        try:
            css_rules = self._parse_rules(
                css,
                read_from=read_from,
                is_default_rules=is_default,
                tie_breaker=tie_breaker,
                scope=scope,
            )
        except Exception:
            self._invalid_css.add(css)
            raise
        if any(rule.errors for rule in css_rules):
            self._invalid_css.add(css)
            raise StylesheetParseError(StylesheetErrors(css_rules))
        return css_rules

    def _retie(
        self, rules: list[RuleSet], ends: list[int], start: int
    ) -> dict[int, RuleSet] | None:
        """Remake in ``rules`` the rules of the parsed sources given a lower tie breaker; the
        new rule for each old one's id (None if one made another number of rules)."""
        swapped: dict[int, RuleSet] = {}
        places = {where: index for index, where in enumerate(islice(self.source, start))}
        for where in self._retied:
            index = places.get(where)
            if index is None:
                continue  # not parsed yet: it will be, with its tie breaker
            low, high = ends[index - 1] if index else 0, ends[index]
            if low == high:
                continue  # it had failed: skipped, as Textual's parse skips it
            css, is_default_rules, tie_breaker, scope = self.source[where]
            fresh = self._parsed_rules(where, css, is_default_rules, tie_breaker, scope)
            if len(fresh) != high - low:  # the same CSS makes as many rules
                return None
            swapped.update((id(old), new) for old, new in zip(rules[low:high], fresh, strict=True))
            rules[low:high] = fresh
        return swapped


def _extended(
    rules_map: dict[str, list[RuleSet]], swapped: dict[int, RuleSet], added: list[RuleSet]
) -> dict[str, list[RuleSet]]:
    """``rules_map`` with its rules ``swapped`` and the ``added`` ones appended (a new dict;
    the lists it changes are new too)."""
    extended = dict(rules_map)
    if swapped:
        names = {name for rule in swapped.values() for name in rule.selector_names}
        for name in names:
            extended[name] = [swapped.get(id(rule), rule) for rule in extended.get(name, ())]
    extra: dict[str, list[RuleSet]] = {}
    for rule in added:
        for name in rule.selector_names:
            extra.setdefault(name, []).append(rule)
    for name, rules in extra.items():
        extended[name] = [*extended.get(name, ()), *rules]
    return extended
