"""Check-then-use races through the real executor: a thread swaps a symlink 300 times while
the agent reads and writes through it. The pipeline judges the resolved path; the tool opens
exactly that path (never following a link swapped in after the decision), so a denied file is
never returned and a file outside the workspace is never written. (The tool-level race tests
are in tests/core/tools/test_path_races.py.)"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from agent_tui.core.permissions import Mode
from tests.core.permissions.red_team.harness import (
    SECRET,
    home_of,
    make_lab,
    pipeline,
    rules,
    through_agent,
)

SWAPS = 300


class Swapper:
    """Flips ``link`` between two targets as fast as it can, for as long as the calls run and
    at least ``SWAPS`` times (``done`` is set once it has)."""

    def __init__(self, link: Path, first: Path, second: Path) -> None:
        self.link, self.targets = link, (first, second)
        self.done = threading.Event()
        self.stop = threading.Event()
        self.swaps = 0
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        temp = self.link.with_name(self.link.name + ".swap")
        while not self.stop.is_set() or self.swaps < SWAPS:
            target = self.targets[self.swaps % 2]
            if temp.is_symlink():
                temp.unlink()
            temp.symlink_to(target)
            os.replace(temp, self.link)
            self.swaps += 1
            if self.swaps >= SWAPS:
                self.done.set()

    def __enter__(self) -> Swapper:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        self.thread.join(timeout=60)


async def test_read_file_through_a_swapped_link_never_returns_the_denied_file(
    tmp_path: Path,
) -> None:
    lab = make_lab(tmp_path, "race-read")
    (lab.root / "allowed.txt").write_text("allowed\n")
    link = lab.root / "link"
    link.symlink_to(lab.root / "allowed.txt")
    policy = pipeline(lab, rules(allow=()), Mode.BYPASS)
    calls = 0
    with home_of(lab), Swapper(link, lab.root / ".env", lab.root / "allowed.txt") as swapper:
        while not swapper.done.is_set() or calls < 40:
            outcome = await through_agent(lab, policy, "read_file", {"path": "link"})
            assert SECRET not in outcome.text, outcome.text
            calls += 1
    assert swapper.swaps >= SWAPS


async def test_grep_through_a_swapped_link_never_returns_the_denied_file(tmp_path: Path) -> None:
    lab = make_lab(tmp_path, "race-grep")
    (lab.root / "allowed.txt").write_text("TOKEN=harmless\n")
    link = lab.root / "src" / "link"
    link.symlink_to(lab.root / "allowed.txt")
    policy = pipeline(lab, rules(allow=()), Mode.BYPASS)
    calls = 0
    with home_of(lab), Swapper(link, lab.root / ".env", lab.root / "allowed.txt") as swapper:
        while not swapper.done.is_set() or calls < 40:
            for args in (
                {"pattern": "TOKEN", "path": "src"},
                {"pattern": "TOKEN", "path": "src/link"},
            ):
                outcome = await through_agent(lab, policy, "grep", args)
                assert SECRET not in outcome.text, outcome.text
            calls += 1


async def test_write_file_through_a_swapped_link_never_writes_outside(tmp_path: Path) -> None:
    """accept-edits allows writes inside the workspace; the link flips to a file outside."""
    lab = make_lab(tmp_path, "race-write")
    outside = tmp_path / "outside-canary"
    outside.write_text("untouched\n")
    before = outside.stat().st_mtime_ns
    (lab.root / "inside.txt").write_text("inside\n")
    link = lab.root / "link"
    link.symlink_to(lab.root / "inside.txt")
    policy = pipeline(lab, rules(allow=(), deny=()), Mode.ACCEPT_EDITS)
    calls = 0
    with home_of(lab), Swapper(link, outside, lab.root / "inside.txt") as swapper:
        while not swapper.done.is_set() or calls < 40:
            await through_agent(lab, policy, "write_file", {"path": "link", "content": "pwned\n"})
            calls += 1
    assert outside.read_text() == "untouched\n"
    assert outside.stat().st_mtime_ns == before


async def test_a_swapped_parent_directory_never_writes_outside(tmp_path: Path) -> None:
    lab = make_lab(tmp_path, "race-dir")
    outside = tmp_path / "outside-dir"
    outside.mkdir()
    (lab.root / "real").mkdir()
    link = lab.root / "dir"
    link.symlink_to(lab.root / "real")
    policy = pipeline(lab, rules(allow=(), deny=()), Mode.ACCEPT_EDITS)
    calls = 0
    with home_of(lab), Swapper(link, outside, lab.root / "real") as swapper:
        while not swapper.done.is_set() or calls < 40:
            await through_agent(
                lab, policy, "write_file", {"path": "dir/new.txt", "content": "pwned\n"}
            )
            calls += 1
    assert list(outside.iterdir()) == []
