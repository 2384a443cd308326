"""Lazy package exports (``core.lazy``): a package names its exports without importing them."""

from __future__ import annotations

import subprocess
import sys

import pytest

from agent_tui.core import lazy


def test_a_name_is_imported_when_asked_for_and_then_kept() -> None:
    code = (
        "import sys\n"
        "import agent_tui.core.commands as commands\n"
        "before = 'agent_tui.core.commands.completer' in sys.modules\n"
        "from agent_tui.core.commands import SlashCompleter\n"
        "after = 'agent_tui.core.commands.completer' in sys.modules\n"
        "kept = 'SlashCompleter' in vars(commands)\n"
        "print(before, after, kept, SlashCompleter.__module__)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.split() == ["False", "True", "True", "agent_tui.core.commands.completer"]


def test_an_unknown_name_is_an_attribute_error() -> None:
    import agent_tui.core.mentions as mentions

    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        _ = mentions.Nothing
    with pytest.raises(ImportError):
        from agent_tui.core.mentions import Nothing  # noqa: F401


def test_a_name_a_submodule_would_shadow_is_refused() -> None:
    with pytest.raises(ValueError, match="shadowed"):
        lazy.exports("agent_tui.core.budget", {"excerpt": "excerpt"})
