"""The two-level budget over the tool results of one model request.

Any tool's output enters as a ``PendingResult`` (built-ins now, MCP results later). Before the
budget, a log (``settings.log_compression.tools``) is compressed; when that folds anything,
the full output is spilled so nothing is lost. Then (seed s04): candidates sorted largest
first; spill while a result exceeds ``per_result_chars`` or the turn exceeds
``per_turn_chars``; stop as soon as both hold. Results that limit themselves (read_file) are
never candidates, nor are results an excerpt would not make smaller.

What a spill holds is the output's exact bytes when the tool gave them (``raw``: what a
command wrote, without the footer the model reads), else its text; the pointer gives the size
of that file. A footer (run_shell's exit code and sandbox lines) is kept whole at the end of
every excerpt, right before the pointer.

``TurnBudget`` applies this incrementally, so results stream out as early as possible: a
result that must be spilled given the results known so far must also be spilled once all are
known (adding a result only raises the total every decision sees), so it is spilled at once;
a result small enough never to be a candidate is final at once; only a result that might stay
whole waits until the request's other results are in. ``apply_budget`` is the one-shot form.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Literal

from agent_tui.core.budget.config import BudgetSettings
from agent_tui.core.budget.excerpt import (
    Excerpt,
    Mode,
    compression_note,
    count_lines,
    excerpt,
    spill_pointer,
)
from agent_tui.core.budget.raw import RawOutput
from agent_tui.core.budget.store import SpillRecord, SpillStore

if TYPE_CHECKING:
    from agent_tui.core.budget.compress import Compressed

log = logging.getLogger(__name__)
SpillReason = Literal["budget", "log_compression"]


@dataclass
class PendingResult:
    """One finished call's output, before the budget.

    ``text`` is the full output (for a failed call, its error message); ``frame`` turns the
    text, or its excerpt, into what the model reads (e.g. the structured error JSON).
    ``raw`` is what a spill saves instead of ``text`` (``ToolOutput.raw``), ``footer`` the end
    of ``text`` that every excerpt keeps (``ToolOutput.footer``).
    """

    call_id: str
    tool: str
    text: str
    is_error: bool = False
    spillable: bool = True
    frame: Callable[[str], str] | None = None
    when: datetime = field(default_factory=lambda: datetime.now(UTC))
    summary: str = ""
    """The call's input in one line (``calls.call_summary``): kept with a spill of the output."""
    raw: RawOutput | None = None
    footer: str = ""

    @property
    def tail_lines(self) -> int:
        """Lines at the end that compression keeps as they are: the footer, or the last."""
        return self.footer.count("\n") + 1 if self.footer else 1


@dataclass
class BudgetedResult:
    call_id: str
    tool: str
    content: str
    """Exactly what the model reads."""
    is_error: bool
    spill: SpillRecord | None = None
    compressed: Compressed | None = None
    spilled_by_budget: bool = False


@dataclass(frozen=True)
class SpillNotice:
    record: SpillRecord
    reason: SpillReason


def plan_spills(
    sizes: Sequence[tuple[int, int | None]], per_result: int, per_turn: int
) -> set[int]:
    """Indexes to spill. ``sizes[i]`` is (full length, length once spilled or None if never)."""
    total = sum(full for full, _ in sizes)
    candidates = [
        i for i, (full, spilled) in enumerate(sizes) if spilled is not None and spilled < full
    ]
    candidates.sort(key=lambda i: -sizes[i][0])  # stable: ties keep request order
    chosen: set[int] = set()
    for i in candidates:
        full, spilled = sizes[i]
        if full <= per_result and total <= per_turn:
            break
        assert spilled is not None
        chosen.add(i)
        total -= full - spilled
    return chosen


class _Slot:
    def __init__(self, pending: PendingResult, body: str) -> None:
        self.pending = pending
        self.body = body
        self.note = ""
        self.record: SpillRecord | None = None
        self.compressed: Compressed | None = None
        self.content = ""
        self.full_size = 0
        self.spilled_size: int | None = None
        self.spilled = False

    def framed(self, text: str) -> str:
        return self.pending.frame(text) if self.pending.frame else text


class TurnBudget:
    """The budget of one model request whose results arrive one by one (in any order)."""

    def __init__(self, settings: BudgetSettings, store: SpillStore, size: int) -> None:
        self.settings = settings
        self.store = store
        self.slots: list[_Slot | None] = [None] * size
        self.complete = False
        self._next = 0

    # -- intake -----------------------------------------------------------------------------

    def add(self, index: int, pending: PendingResult) -> list[SpillNotice]:
        """Take result ``index``; return the spills this wrote. Blocking (writes files)."""
        slot = _Slot(pending, pending.text)
        notices = self._compress(slot)
        slot.content = slot.framed(slot.body + slot.note)
        slot.full_size = len(slot.content)
        slot.spilled_size = self._spilled_size(slot)
        self.slots[index] = slot
        if all(s is not None for s in self.slots):
            self.complete = True
        return notices + self._enforce()

    def finish(self) -> list[SpillNotice]:
        """No more results will come (all arrived, or the rest were abandoned)."""
        self.complete = True
        return self._enforce()

    def held(self, index: int) -> bool:
        """True while result ``index`` waits for the others to decide its fate."""
        slot = self.slots[index]
        return slot is not None and not self._final(slot)

    def pop_ready(self) -> list[tuple[int, BudgetedResult]]:
        """Final results, in request order, not returned before."""
        ready = []
        while self._next < len(self.slots):
            slot = self.slots[self._next]
            if slot is None and not self.complete:
                break
            if slot is not None:
                if not self._final(slot):
                    break
                ready.append((self._next, self._result(slot)))
            self._next += 1
        return ready

    # -- decisions --------------------------------------------------------------------------

    def _final(self, slot: _Slot) -> bool:
        return self.complete or slot.spilled or slot.spilled_size is None

    def _enforce(self) -> list[SpillNotice]:
        known = [s for s in self.slots if s is not None]
        sizes = [(s.full_size, s.spilled_size) for s in known]
        chosen = plan_spills(sizes, self.settings.per_result_chars, self.settings.per_turn_chars)
        notices = []
        for i in sorted(chosen):
            if not known[i].spilled:
                notices.extend(self._spill(known[i]))
        return notices

    def _compress(self, slot: _Slot) -> list[SpillNotice]:
        config, pending = self.settings.log_compression, slot.pending
        if not (config.enabled and pending.tool in config.tools and pending.spillable):
            return []
        if pending.frame is not None:
            return []
        from agent_tui.core.budget.compress import compress_log  # only for a log to compress

        result = compress_log(
            pending.text,
            min_lines=config.min_lines,
            context=config.context,
            min_savings=config.min_savings,
            tail_lines=pending.tail_lines,
        )
        if not result.compressed:
            return []
        try:
            record = self._save(pending)
        except OSError as exc:  # no spill, no folding: the plain budget still applies
            log.warning("could not spill %s output: %s", pending.tool, exc)
            return []
        slot.record, slot.compressed, slot.body = record, result, result.text
        slot.note = "\n" + self._note(slot, record.shown)
        return [SpillNotice(record, "log_compression")]

    def _save(self, pending: PendingResult) -> SpillRecord:
        """Spill the output: its exact bytes when the tool gave them, else its text."""
        if pending.raw is not None:
            chunks = pending.raw.chunks()
            return self.store.write_bytes(
                chunks, pending.tool, pending.call_id, pending.when, summary=pending.summary
            )
        return self.store.write(
            pending.text, pending.tool, pending.call_id, pending.when, summary=pending.summary
        )

    def _size(self, slot: _Slot) -> tuple[int, int]:
        """(chars, lines) of the spill file; before it is written, numbers at least as long
        (a raw output has no more characters than bytes, no more lines than its text)."""
        if slot.record is not None:
            return slot.record.chars, slot.record.lines
        pending = slot.pending
        chars = pending.raw.size if pending.raw is not None else len(pending.text)
        return chars, count_lines(pending.text)

    def _cut(self, slot: _Slot, text: str, *, line_numbers: bool = True) -> Excerpt:
        """The excerpt of ``text`` (head or tail by the outcome), its footer kept whole."""
        pending = slot.pending
        mode: Mode = "tail" if pending.is_error else "head"
        preview, footer = self.settings.preview_chars, pending.footer
        if not footer or not text.endswith(f"\n{footer}"):
            return excerpt(text, preview, mode, line_numbers=line_numbers)
        body = text[: -len(footer) - 1]
        size = max(preview // 2, preview - len(footer) - 1)
        cut = excerpt(body, size, mode, line_numbers=line_numbers)
        return replace(cut, text=f"{cut.text}\n{footer}")

    def _note(self, slot: _Slot, path: str) -> str:
        result = slot.compressed
        assert result is not None
        chars, lines = self._size(slot)
        return compression_note(
            path,
            chars,
            lines,
            slot.pending.tool,
            input_lines=result.input_lines,
            output_lines=result.output_lines,
            savings=result.savings,
        )

    def _spilled_content(self, slot: _Slot, path: str) -> str:
        pending = slot.pending
        if slot.compressed is not None:
            cut = self._cut(slot, slot.body, line_numbers=False)
            return slot.framed(f"{cut.text}\n{self._note(slot, path)}")
        cut = self._cut(slot, pending.text)
        chars, lines = self._size(slot)
        pointer = spill_pointer(
            path,
            chars,
            lines,
            pending.tool,
            first_omitted=cut.first_omitted_line or None,
        )
        return slot.framed(f"{cut.text}\n{pointer}")

    def _spilled_size(self, slot: _Slot) -> int | None:
        if not slot.pending.spillable or len(slot.content) <= self.settings.preview_chars:
            return None
        path = slot.record.shown if slot.record else self._provisional(slot)
        size = len(self._spilled_content(slot, path))
        return size if size < len(slot.content) else None

    def _provisional(self, slot: _Slot) -> str:
        p = slot.pending
        return self.store.provisional(p.tool, p.call_id, p.when)

    def _spill(self, slot: _Slot) -> list[SpillNotice]:
        pending, notices = slot.pending, []
        if slot.record is None:
            try:
                slot.record = self._save(pending)
            except OSError as exc:
                log.warning("could not spill %s output: %s", pending.tool, exc)
                slot.content = self._unsaved(slot, exc)
                slot.spilled = True
                return []
            notices.append(SpillNotice(slot.record, "budget"))
        slot.content = self._spilled_content(slot, slot.record.shown)
        slot.spilled = True
        return notices

    def _unsaved(self, slot: _Slot, exc: OSError) -> str:
        pending = slot.pending
        cut = self._cut(slot, pending.text)
        reason = exc.strerror or str(exc)
        return slot.framed(
            f"{cut.text}\n[Output too large for the context ({len(pending.text):,} chars); saving "
            f"the full output failed ({reason}), so only this excerpt exists. To see more, "
            "narrow the output (filter, head/tail, a smaller query).]"
        )

    def _result(self, slot: _Slot) -> BudgetedResult:
        pending = slot.pending
        if pending.raw is not None:  # final: it will not be spilled now
            pending.raw.close()
        return BudgetedResult(
            call_id=pending.call_id,
            tool=pending.tool,
            content=slot.content,
            is_error=pending.is_error,
            spill=slot.record,
            compressed=slot.compressed,
            spilled_by_budget=slot.spilled,
        )


def apply_budget(
    results: list[PendingResult], settings: BudgetSettings, store: SpillStore
) -> list[BudgetedResult]:
    """The budget over one request's results, all known: budgeted results in the same order."""
    budget = TurnBudget(settings, store, len(results))
    for i, pending in enumerate(results):
        budget.add(i, pending)
    budget.finish()
    return [result for _, result in budget.pop_ready()]
