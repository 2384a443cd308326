"""The collector's tuning (``ui.shell.heap``), on the interpreter's real collector: what
survives a full collection is frozen, frozen cycles that die are freed at a turn's end once the
frozen heap grew enough, and ``release`` undoes it all."""

from __future__ import annotations

import gc
import platform
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.ui.shell import heap


class Node:
    """An object in a reference cycle (only the cyclic collector frees it)."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def tuned() -> Iterator[None]:
    before = gc.get_threshold()
    heap.release()
    gc.collect()
    heap.quiet()
    try:
        yield
    finally:
        heap.release()
        gc.collect()
    assert gc.get_threshold() == before
    assert heap._after_collection not in gc.callbacks


def _cycles(count: int) -> tuple[list[Node], list[weakref.ref[Node]]]:
    nodes = [Node() for _ in range(count)]
    return nodes, [weakref.ref(n) for n in nodes]


def test_survivors_of_a_full_collection_are_frozen(tuned: None) -> None:
    assert gc.get_threshold()[2] == heap.MIDDLE_PER_FULL
    frozen = gc.get_freeze_count()
    kept, _ = _cycles(5_000)
    gc.collect()  # a full collection: its survivors (the 5,000 kept nodes) are frozen
    assert gc.get_freeze_count() >= frozen + 5_000
    young = {id(o) for o in gc.get_objects()}
    assert not any(id(n) in young for n in kept)  # out of the collector's sight


def test_dead_frozen_cycles_are_freed_at_a_turns_end_once_grown(
    tuned: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(heap, "REFREEZE_GROWTH", 3_000)
    nodes, refs = _cycles(5_000)
    gc.collect()  # frozen with the survivors
    del nodes
    gc.collect()
    assert all(r() is not None for r in refs)  # frozen cycles: the collector cannot see them
    heap.settle()  # grown by ~15,000 blocks >= 3,000: all collected, then frozen again
    assert all(r() is None for r in refs)
    settled = gc.get_freeze_count()
    heap.settle()  # not grown since: nothing to do
    assert gc.get_freeze_count() == settled


def test_a_small_growth_waits(tuned: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(heap, "REFREEZE_GROWTH", 1_000_000)
    nodes, refs = _cycles(1_000)
    gc.collect()
    del nodes
    heap.settle()  # below the growth: no full collection of everything at this turn's end
    assert all(r() is not None for r in refs)
    heap.thaw()  # the session's views replaced: given back, freed by the next collection
    gc.collect()
    assert all(r() is None for r in refs)


def test_release_unfreezes_everything(tuned: None) -> None:
    nodes, refs = _cycles(1_000)
    gc.collect()
    assert gc.get_freeze_count() > 0
    del nodes
    heap.release()
    assert gc.get_freeze_count() == 0
    gc.collect()
    assert all(r() is None for r in refs)


def test_a_sessions_own_content_is_not_growth(tuned: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """What ``freeze`` freezes (a resumed session's turns) is live content: the next turn's
    end must not collect the whole heap for it (a 300 ms pause after a 500-turn resume)."""
    monkeypatch.setattr(heap, "REFREEZE_GROWTH", 10_000)  # blocks: a node and its weakref ~3
    session, _ = _cycles(5_000)  # ~15,000 blocks: past the growth, were they counted
    heap.freeze()
    dead, refs = _cycles(1_000)
    gc.collect()  # survivors frozen: ~3,000 blocks more, below the growth
    del dead
    heap.settle()
    assert all(r() is not None for r in refs)  # no full collection of everything
    assert len(session) == 5_000


def _anon_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1])
    raise AssertionError("no RssAnon")


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_trim_gives_freed_pages_back() -> None:
    """Blocks freed below one still in use stay resident until ``trim`` (30 MB of them)."""
    heap.one_arena()  # this thread's arena is the main one either way: it only limits others
    blocks = [bytes(64 * 1024 - 64) + bytes([n % 256]) for n in range(480)]
    kept = bytes(70_000)  # above them: malloc cannot shrink its heap past it by itself
    resident = _anon_kb()
    del blocks
    heap.trim()
    assert _anon_kb() < resident - 15_000
    assert len(kept) == 70_000
