"""Fixtures of the checkpoint tests: a session store in the test's directory, and the sandbox
modes a command runs in (``required`` skipped, saying why, where bubblewrap cannot run)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.sandbox.bubblewrap import Bubblewrap


def _sandbox_modes() -> list[Any]:
    problem = Bubblewrap().problem()
    return [
        "off",
        pytest.param(
            "required", marks=pytest.mark.skipif(problem is not None, reason=f"{problem}")
        ),
    ]


@pytest.fixture(params=_sandbox_modes())
def sandbox(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    return SessionStore(tmp_path / "data" / "sessions")
