"""Claude Code's field names (``file_path``) are judged exactly as ours (``path``): the alias is
applied before validation, so the permission rules judge the translated call. A protected file
or a denied read named through ``file_path`` is refused as through ``path``, through the real
executor, and the canaries show nothing happened."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.events import ToolRejected
from agent_tui.core.permissions import Mode, Step
from tests.core.permissions.red_team.harness import (
    CHANGES,
    LEAKS,
    SECRET,
    home_of,
    make_lab,
    pipeline,
    rules,
    through_agent,
)

BROAD = ("write_file", "edit_file(**)", "read_file")


def _rejection(events: list[Any]) -> ToolRejected:
    found = [event for event in events if isinstance(event, ToolRejected)]
    assert found, f"not rejected by the permission check: {events}"
    return found[0]


@pytest.mark.parametrize("mode", [Mode.ACCEPT_EDITS, Mode.BYPASS], ids=["accept-edits", "bypass"])
@pytest.mark.parametrize("field", ["path", "file_path"])
@pytest.mark.parametrize("target", [".agent-tui/settings.json", ".git/config", ".mcp.json"])
async def test_writing_a_protected_file_by_file_path_is_refused_as_by_path(
    tmp_path: Path, target: str, field: str, mode: Mode
) -> None:
    lab = make_lab(tmp_path, "lab")
    before = lab.digest()
    arguments = {field: target, "content": "[core]\n\tfsmonitor = touch pwned\n"}
    with home_of(lab):
        outcome = await through_agent(
            lab, pipeline(lab, rules(allow=BROAD, deny=()), mode), "write_file", arguments
        )
    assert not outcome.ran, outcome.text
    assert not CHANGES.seen(lab, before, outcome.text)
    rejected = _rejection(outcome.events)
    assert rejected.step == Step.PROTECTED.value, rejected
    assert "protected" in rejected.reason


@pytest.mark.parametrize("field", ["path", "file_path"])
@pytest.mark.parametrize("target", [".env", "./.env", "config/../.env"])
async def test_reading_a_denied_file_by_file_path_is_refused_as_by_path(
    tmp_path: Path, target: str, field: str
) -> None:
    lab = make_lab(tmp_path, "lab")
    with home_of(lab):
        outcome = await through_agent(
            lab,
            pipeline(lab, rules(allow=BROAD), Mode.BYPASS),
            "read_file",
            {field: target},
        )
    assert not outcome.ran, outcome.text
    assert not LEAKS.seen(lab, {}, outcome.text)
    assert SECRET not in outcome.text
    rejected = _rejection(outcome.events)
    assert rejected.by == "rule", rejected
    assert rejected.rule == "read_file(.env)", rejected


async def test_file_path_reads_an_allowed_file(tmp_path: Path) -> None:
    """The control: the alias works (so the refusals above are the rules', not a schema
    error's)."""
    lab = make_lab(tmp_path, "lab")
    with home_of(lab):
        outcome = await through_agent(
            lab,
            pipeline(lab, rules(), Mode.DEFAULT),
            "read_file",
            {"file_path": "src/notes.txt"},
        )
    assert outcome.ran, outcome.text
    assert "innocent" in outcome.text
