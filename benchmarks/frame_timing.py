"""``bench_ui.py --stream-only --frames``: the event loop's long callbacks while a reply streams,
and what their CPU time went to (the screen's layout, its reflow and paint, the reply's Markdown
rendering, the collector). Installed in the benchmark's child, before the app starts."""

from __future__ import annotations

import asyncio
import time

Row = tuple[str, str]


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))] if ordered else 0.0


FRAME_PARTS = {
    "layout": ("textual.screen", "Screen", "_refresh_layout"),
    "reflow": ("textual._compositor", "Compositor", "reflow"),
    "paint": ("textual._compositor", "Compositor", "render_update"),
    "markdown": ("agent_tui.ui.chat.assistant_reply", None, "render"),
}
"""``--frames``: what each long callback's CPU time is split into (a layout holds its reflow
and its paint; Markdown is counted wherever it runs)."""


def time_frames(longer: float = 0.033) -> list[dict[str, float]]:
    """From now on, every event-loop callback longer than ``longer`` seconds (wall): its wall
    and CPU milliseconds and the CPU of each of ``FRAME_PARTS`` and of the collector in it."""
    import gc
    import importlib

    found: list[dict[str, float]] = []
    current: dict[str, float] = {}
    run = asyncio.events.Handle._run

    def timed_run(handle: asyncio.events.Handle) -> None:
        current.clear()
        started, cpu = time.perf_counter(), time.thread_time()
        run(handle)
        wall = time.perf_counter() - started
        if wall > longer:
            found.append({"wall": wall * 1000, "cpu": (time.thread_time() - cpu) * 1000, **current})

    def timing(name: str, function: object) -> object:
        def timed(*args: object, **kwargs: object) -> object:
            cpu = time.thread_time()
            try:
                return function(*args, **kwargs)  # type: ignore[operator]
            finally:
                current[name] = current.get(name, 0.0) + (time.thread_time() - cpu) * 1000

        return timed

    for name, (module, owner, attribute) in FRAME_PARTS.items():
        target = importlib.import_module(module)
        target = getattr(target, owner) if owner else target
        setattr(target, attribute, timing(name, getattr(target, attribute)))
    collecting = [0.0]

    def collector(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collecting[0] = time.thread_time()
        else:
            current["gc"] = current.get("gc", 0.0) + (time.thread_time() - collecting[0]) * 1000

    gc.callbacks.append(collector)
    asyncio.events.Handle._run = timed_run  # type: ignore[method-assign]
    return found


def frame_rows(frames: list[dict[str, float]]) -> list[Row]:
    """``--frames``: the long callbacks' count, and each part's median and 90th percentile."""
    rows: list[Row] = [("callbacks over 33 ms (wall)", f"{len(frames)}")]
    for part in ["wall", "cpu", *FRAME_PARTS, "gc"]:
        values = [f.get(part, 0.0) for f in frames]
        spread = f"{_percentile(values, 0.5):,.1f} / {_percentile(values, 0.9):,.1f} ms"
        rows.append((f"  {part}: median / 90th percentile", spread))
    return rows
