"""Spill retention whatever the data dir (issue 38, item 6), with real ``agent-tui`` runs.

A session saved in data dir A points to a spill of the workspace; a run with data dir B in the
same workspace ends and cleans up. B cannot see A's sessions: only the reference record A
left beside the spills (``.agent-spill/.refs/``) tells it the spill is still needed. B's
grace period is set to 0 in B's own settings, and the spill is aged past the default hour too,
so nothing but the record keeps it."""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.core.agent_state.helpers import SRC, run_cli, script, shell_call

LINES = 30_000
"""``seq 30000``: about 169,000 characters, over the 50,000 per-result cap: spilled."""
TWO_HOURS_AGO = time.time() - 7200


@dataclass
class Lab:
    workspace: Path
    root: Path

    def env(self, data: str, *, grace: float | None = None) -> dict[str, str]:
        """A run with data dir ``data`` (and config dir of the same name): its sessions are
        its own; ``grace``: its ``budget.spill_grace_seconds``."""
        config = self.root / f"config-{data}"
        config.mkdir(exist_ok=True)
        if grace is not None:
            settings = {"budget": {"spill_grace_seconds": grace}}
            (config / "settings.json").write_text(json.dumps(settings))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENT_TUI_", "XDG_"))}
        env.update(
            AGENT_TUI_DATA_DIR=str(self.root / f"data-{data}"),
            AGENT_TUI_CONFIG_DIR=str(config),
            PYTHONPATH=str(SRC),
            PYTHONDONTWRITEBYTECODE="1",
        )
        return env

    def sessions(self, data: str) -> list[Path]:
        return sorted((self.root / f"data-{data}" / "sessions").glob("*.jsonl"))

    def run(self, data: str, *args: str, turns: list[dict[str, Any]], grace: float | None = None):
        model = script(self.root / f"script-{data}-{time.monotonic_ns()}.json", turns)
        done = run_cli(
            *args, "--model", model, "--allow", "run_shell", "--output-format", "stream-json",
            cwd=self.workspace, env=self.env(data, grace=grace),
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]

    def spill_in_a(self) -> Path:
        """Session A runs a command whose output is spilled; the spill is aged two hours."""
        events = self.run("A", "-p", "count", turns=[
            {"tool_calls": [shell_call(f"seq {LINES}")]}, {"text": "counted"},
        ])  # fmt: skip
        spills = [e for e in events if e["type"] == "spill"]
        assert len(spills) == 1, events
        path = Path(spills[0]["abs_path"])
        assert path.is_file()
        os.utime(path, (TWO_HOURS_AGO, TWO_HOURS_AGO))
        return path

    def b_ends(self, grace: float = 0) -> None:
        """Session B (another data dir) runs a turn in the same workspace and ends."""
        self.run("B", "-p", "hello", turns=[{"text": "hi"}], grace=grace)


@pytest.fixture
def lab(tmp_path: Path) -> Lab:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    return Lab(workspace, tmp_path)


def read_back(lab: Lab, spill: Path) -> dict[str, Any]:
    """``--continue`` with data dir A: the model pages the spill with read_file."""
    shown = spill.relative_to(lab.workspace).as_posix()
    call = {"id": "r1", "name": "read_file",
            "arguments": {"path": shown, "offset": LINES - 2, "limit": 3}}  # fmt: skip
    events = lab.run("A", "--continue", "-p", "show the end", turns=[
        {"tool_calls": [call]}, {"text": "read"},
    ])  # fmt: skip
    results = [e for e in events if e["type"] in ("tool_result", "tool_error")]
    assert len(results) == 1, events
    return results[0]


def test_a_spill_of_another_data_dirs_session_survives_its_cleanup(lab: Lab) -> None:
    spill = lab.spill_in_a()
    lab.b_ends(grace=0)
    assert spill.is_file(), "B's cleanup deleted a spill A's saved session points to"
    result = read_back(lab, spill)
    assert result["type"] == "tool_result", result
    assert not result["is_error"], result
    assert f"{LINES - 1}\t{LINES - 1}\n" in result["content"]
    assert f"{LINES}\t{LINES}" in result["content"]


def test_with_its_session_deleted_the_spill_goes_after_the_grace_period(lab: Lab) -> None:
    spill = lab.spill_in_a()
    [session] = lab.sessions("A")
    session.unlink()  # the user forgets session A: nothing can resume it
    lab.b_ends(grace=3 * 3600)  # the spill is two hours old: inside this grace, kept
    assert spill.is_file()
    lab.b_ends(grace=0)
    assert not spill.exists()
    assert not (spill.parent / ".index" / f"{spill.name}.idx").exists()
    refs = spill.parent / ".refs"
    assert [p.name for p in refs.iterdir() if not p.name.startswith(".")] == []  # record gone


def test_an_unreadable_reference_record_keeps_every_spill(lab: Lab) -> None:
    spill = lab.spill_in_a()
    [session] = lab.sessions("A")
    session.unlink()  # were the record readable, the spill would go
    refs = spill.parent / ".refs"
    records = [p for p in refs.iterdir() if p.suffix == ".json"]
    assert len(records) == 1, list(refs.iterdir())  # (on the old code: no record at all)
    records[0].write_bytes(b'{"version": 1, "session": "/x", "na')  # damaged
    lab.b_ends(grace=0)
    assert spill.is_file(), "a record that cannot be read may name this spill: keep it"


def test_a_session_resumed_in_its_own_data_dir_keeps_its_record(lab: Lab) -> None:
    """The record follows the session: a resumed session's record still names the spills
    its file points to, so B keeps them after A ran again."""
    spill = lab.spill_in_a()
    lab.run("A", "--continue", "-p", "more", turns=[{"text": "ok"}])
    lab.b_ends(grace=0)
    assert spill.is_file()
