"""Shared test setup: every test gets private data/config dirs and no real model keys."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

_MODEL_ENV = (
    "AGENT_API_KEY",
    "AGENT_BASE_URL",
    "AGENT_MODEL",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
)


@pytest.fixture(autouse=True)
def _isolated_env(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path_factory.mktemp("agent-home")
    monkeypatch.setenv("AGENT_TUI_DATA_DIR", str(home / "data"))
    monkeypatch.setenv("AGENT_TUI_CONFIG_DIR", str(home / "config"))
    monkeypatch.setenv("AGENT_DEMO_DELAY", "0")
    for name in _MODEL_ENV:
        monkeypatch.delenv(name, raising=False)


_REAL_GATE = {"on": False}


@pytest.fixture(scope="session", autouse=True)
def _trusted_projects() -> Iterator[None]:
    """The tests' own project files are trusted (tests of the MCP manager or the rules need
    their servers and rules; session-wide, so fixtures of any scope see it), except in tests
    about trust itself (``@pytest.mark.real_trust``: the gate as users get it). Processes a
    test starts have the real gate: ``tests.trusting.trust_everything`` trusts for them."""
    from agent_tui.core.trust import ProjectTrust, TrustItem

    real = ProjectTrust.allows

    def allows(self: ProjectTrust, item: TrustItem) -> bool:
        if _REAL_GATE["on"] or self.__dict__.get("real_gate"):
            return real(self, item)
        return True

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ProjectTrust, "allows", allows)
        yield


@pytest.fixture(autouse=True)
def _real_trust(request: pytest.FixtureRequest) -> Iterator[None]:
    _REAL_GATE["on"] = request.node.get_closest_marker("real_trust") is not None
    yield
    _REAL_GATE["on"] = False


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A project directory for the agent to work in."""
    root = tmp_path / "project"
    root.mkdir()
    return root
