"""Fixtures for the built-in tool tests: a context rooted in tmp_path and a direct caller."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.tools.base import Tool, ToolContext, ToolOutput

Call = Callable[..., Awaitable[ToolOutput]]


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(cwd=tmp_path)


@pytest.fixture
def call(ctx: ToolContext) -> Callable[[Tool[Any]], Call]:
    """``await call(TOOL)(arg=...)``: validate the arguments and run the handler directly."""

    def bind(tool: Tool[Any]) -> Call:
        async def run(**arguments: Any) -> ToolOutput:
            return await tool.call(tool.input_model.model_validate(arguments), ctx)

        return run

    return bind


async def wait_until(
    condition: Callable[[], bool], timeout: float = 10.0, what: str = "condition"
) -> None:
    """Wait for ``condition`` under a deadline (polling; never a fixed sleep in a test)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.01)


def pid_gone(pid: int) -> bool:
    """True once ``pid`` no longer runs (a zombie awaiting its reaper counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[0] == "Z"


@pytest.fixture
def wait() -> Callable[..., Awaitable[None]]:
    return wait_until


@pytest.fixture
def gone() -> Callable[[int], bool]:
    return pid_gone
