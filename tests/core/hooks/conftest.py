"""The hooks' red-team lab (``lab``): a fake HOME, a workspace with a canary."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.core.hooks.lab import Lab, make_lab


@pytest.fixture
def lab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Lab:
    return make_lab(tmp_path, monkeypatch)
