"""What mounting needs besides the widgets: MCP servers started in the background, and a
garbage collector tuned for a long-lived process."""

from __future__ import annotations

import gc

from agent_tui.core.agent import Agent


async def start_tool_sources(agent: Agent) -> None:
    """Start connecting MCP servers at launch, in the background: the app and the built-in
    tools are usable at once, and the first request waits only for servers still starting."""
    for source in agent.tool_sources:
        start = getattr(source, "start", None)
        if start is not None:
            await start()


def quiet_gc() -> None:
    """Keep garbage-collector pauses short: what start-up built lives as long as the app, so it
    is left out of every later collection (``freeze_heap``), and full collections — whose pause
    grows with the number of live objects — run a fifth as often."""
    freeze_heap()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, 50)


def freeze_heap() -> None:
    """Leave what is alive now out of every later collection (``gc.freeze``, O(1)): after
    start-up, and after a resumed session's earlier turns are read — 500 turns are some
    270,000 objects, and each full collection walked them all (250–300 ms on this 2-core
    machine, measured with ``gc.callbacks`` in ``bench_sessions``). Nothing is collected
    first: the replay ran with the collector off, so a young collection would walk all it
    made (~150 ms); what is frozen and dies later is still freed by its reference count, only
    a cycle among frozen objects waits for ``thaw_heap``."""
    gc.freeze()


def thaw_heap() -> None:
    """Undo ``freeze_heap`` when what was frozen may be garbage now (the views of a session no
    longer shown, an app that ended): it goes back to the collector (``refreeze`` frees its
    cycles and freezes the rest again)."""
    gc.unfreeze()


def refreeze() -> None:
    """A full collection (what ``thaw_heap`` gave back that died is freed), then what lives
    is frozen again. One pause of a full collection (~100 ms for a 500-turn session's heap)."""
    gc.collect()
    gc.freeze()
