"""The two-level budget: invariants for any turn, and the seed's scenarios."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.core.budget import (
    BudgetSettings,
    PendingResult,
    SpillStore,
    TurnBudget,
    apply_budget,
    plan_spills,
)
from agent_tui.core.budget.excerpt import compression_note, pointer_in, spill_pointer

SMALL = BudgetSettings(per_result_chars=5_000, per_turn_chars=12_000, preview_chars=1_000)


def output(n: int, tag: str = "x") -> str:
    """``n`` characters of line-shaped output."""
    line = f"{tag} " + "." * 70 + "\n"
    return (line * (n // len(line) + 1))[:n]


def store_in(path: Path) -> SpillStore:
    return SpillStore(Path(".agent-spill"), path, durable=False)


# Sizes avoid the band where an excerpt plus pointer (< 1,700 chars) is about as long as the
# output itself, so "is a candidate" is simply "spillable and at least 2,500".
sizes = st.one_of(st.integers(0, 1_000), st.integers(2_500, 14_000))
turns = st.lists(
    st.tuples(sizes, st.booleans(), st.booleans()),  # size, spillable, failed
    min_size=1,
    max_size=7,
)


@settings(max_examples=120, deadline=None)
@given(turn=turns)
def test_budget_invariants_hold_for_any_turn(turn: list[tuple[int, bool, bool]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        pending = [
            PendingResult(f"c{i}", "fetch", output(n, f"r{i}"), is_error=failed, spillable=ok)
            for i, (n, ok, failed) in enumerate(turn)
        ]
        results = apply_budget(pending, SMALL, store_in(Path(tmp)))
        spilled = {i for i, r in enumerate(results) if r.spilled_by_budget}
        cap, total_cap = SMALL.per_result_chars, SMALL.per_turn_chars
        # 1. nothing over the cap unless it cannot be spilled
        for p, r in zip(pending, results, strict=True):
            assert len(r.content) <= cap or not p.spillable
        # 2. the total is within the budget whenever spilling every candidate would get there
        candidates = {i for i, p in enumerate(pending) if p.spillable and len(p.text) >= 2_500}
        floor = sum(len(p.text) for i, p in enumerate(pending) if i not in candidates)
        floor += 1_700 * len(candidates)
        if floor <= total_cap:
            assert sum(len(r.content) for r in results) <= total_cap
        # 3. the spilled ones are the largest (ties in request order), and no fewer would do
        order = sorted(candidates, key=lambda i: -len(pending[i].text))
        assert spilled <= candidates
        assert [i for i in order if i in spilled] == order[: len(spilled)]
        if spilled:
            last = order[len(spilled) - 1]
            one_fewer = [
                len(p.text) if i == last else len(r.content)
                for i, (p, r) in enumerate(zip(pending, results, strict=True))
            ]
            assert len(pending[last].text) > cap or sum(one_fewer) > total_cap
        # 4. every spill file is the full output, byte for byte
        for p, r in zip(pending, results, strict=True):
            if r.spill is not None:
                assert r.spill.path.read_bytes() == p.text.encode()


def test_plan_is_largest_first_and_stops_when_both_limits_hold() -> None:
    sizes = [(30_000, 2_100), (60_000, 2_100), (30_000, 2_100), (30_000, 2_100)]
    assert plan_spills(sizes, 50_000, 100_000) == {1}
    assert plan_spills([(40_000, 2_000)] * 3, 50_000, 100_000) == {0}
    assert plan_spills([(70_000, None), (60_000, 2_000)], 50_000, 100_000) == {1}
    assert plan_spills([(1_000, None)] * 3, 50_000, 100_000) == set()


def test_seed_scenario_one_a_2mb_output_becomes_an_excerpt_and_a_pointer(tmp_path: Path) -> None:
    text = "".join(
        f"row {n}: id={n * 7} name=user_{n} email=user_{n}@example.com status=active\n"
        for n in range(26_831)
    )
    assert len(text) > 2_000_000
    [result] = apply_budget(
        [PendingResult("c1", "run_shell", text)], BudgetSettings(), store_in(tmp_path)
    )
    assert result.spilled_by_budget
    assert result.spill is not None
    assert 2_000 < len(result.content) < 2_800
    assert result.content.startswith("row 0: id=0 ")
    assert result.spill.path.read_bytes() == text.encode()
    assert result.spill.path.parent == tmp_path / ".agent-spill"
    pointer = result.content.rsplit("\n", 1)[1]
    assert result.spill.shown in pointer  # where
    assert f"{len(text):,} chars, 26,831 lines" in pointer  # how big
    assert f'read_file(path="{result.spill.shown}", offset=' in pointer  # how to read
    assert "Do not re-run the command" in pointer
    marker = re.search(r"… \[([\d,]+) chars omitted: lines ([\d,]+)-([\d,]+)\] …", result.content)
    assert marker is not None
    first, last = (int(g.replace(",", "")) for g in marker.groups()[1:])
    kept = result.content.split(marker.group(0))
    lines = text.split("\n")
    assert kept[0].rstrip("\n").split("\n")[-1] == lines[first - 2]  # head ends right before
    assert kept[1].lstrip("\n").split("\n")[0] == lines[last]  # tail starts right after


def test_seed_scenario_two_only_the_60k_result_spills(tmp_path: Path) -> None:
    sizes = {"git log": 30_000, "grep -r": 30_000, "cat big": 60_000, "ls -R": 30_000}
    pending = [PendingResult(f"c{i}", "run_shell", output(n)) for i, n in enumerate(sizes.values())]
    results = apply_budget(pending, BudgetSettings(), store_in(tmp_path))
    assert [r.spilled_by_budget for r in results] == [False, False, True, False]
    assert [r.content for r in results[:2]] == [pending[0].text, pending[1].text]
    total = sum(len(r.content) for r in results)
    assert 90_000 < total <= 100_000  # 150,000 -> about 92,000
    assert len(list((tmp_path / ".agent-spill").glob("*.txt"))) == 1


def test_a_failure_keeps_the_tail_and_a_success_the_head(tmp_path: Path) -> None:
    text = "start of output\n" + output(60_000) + "FAILED: 3 tests\n[exit code 1]"
    ok, failed = apply_budget(
        [
            PendingResult("a", "fetch", text),  # not a log tool: not compressed
            PendingResult("b", "fetch", text, is_error=True),
        ],
        BudgetSettings(),
        store_in(tmp_path),
    )
    head_ok, _tail_ok = ok.content.split(" omitted: lines ")
    head_bad, tail_bad = failed.content.split(" omitted: lines ")
    assert len(head_ok) > 1_500
    assert "start of output" in head_ok
    assert len(tail_bad) > 1_500
    assert "FAILED: 3 tests\n[exit code 1]" in tail_bad
    assert len(head_bad) < 400
    assert "start of output" in head_bad


def test_read_file_output_is_never_spilled(tmp_path: Path) -> None:
    big = PendingResult("r", "read_file", output(90_000), spillable=False)
    other = PendingResult("s", "run_shell", output(20_000))
    read, shell = apply_budget([big, other], BudgetSettings(), store_in(tmp_path))
    assert read.content == big.text
    assert read.spill is None
    assert shell.spilled_by_budget  # the turn is over budget: the spillable one goes


def test_an_error_message_is_budgeted_inside_its_frame(tmp_path: Path) -> None:
    message = "The command did not finish. Last lines:\n" + output(80_000) + "boom"
    pending = PendingResult(
        "t", "run_shell", message, is_error=True, frame=lambda body: f"<error>{body}</error>"
    )
    [result] = apply_budget([pending], BudgetSettings(), store_in(tmp_path))
    assert result.content.startswith("<error>")
    assert result.content.endswith("</error>")
    assert "boom" in result.content
    assert len(result.content) < 3_000
    assert result.spill is not None
    assert result.spill.path.read_text() == message


def test_turn_budget_decides_early_what_it_can(tmp_path: Path) -> None:
    budget = TurnBudget(BudgetSettings(), store_in(tmp_path), 4)
    assert budget.add(0, PendingResult("a", "run_shell", "small")) == []
    assert [i for i, _ in budget.pop_ready()] == [0]  # never a candidate: out at once
    budget.add(1, PendingResult("b", "run_shell", output(30_000)))
    assert budget.held(1)
    assert budget.pop_ready() == []
    notices = budget.add(2, PendingResult("c", "run_shell", output(70_000)))
    assert [n.record.call_id for n in notices] == ["c"]  # over the cap: spilled at once
    assert budget.pop_ready() == []  # but 1 is still undecided and results keep their order
    budget.add(3, PendingResult("d", "run_shell", output(30_000)))
    ready = budget.pop_ready()  # all four known: the turn is decided
    assert [(i, r.spilled_by_budget) for i, r in ready] == [(1, False), (2, True), (3, False)]


def test_an_unwritable_spill_dir_degrades_to_a_marked_excerpt(tmp_path: Path) -> None:
    (tmp_path / ".agent-spill").write_text("a file where the directory should be")
    [result] = apply_budget(
        [PendingResult("c", "run_shell", output(80_000))], BudgetSettings(), store_in(tmp_path)
    )
    assert result.spill is None
    assert len(result.content) < 3_000
    assert "saving the full output failed" in result.content


def test_settings_keep_the_excerpt_inside_the_cap() -> None:
    with pytest.raises(ValueError, match="at most half"):
        BudgetSettings(per_result_chars=3_000, preview_chars=2_000)


def test_a_pointer_read_back_from_a_saved_result() -> None:
    path = ".agent-spill/20260105T142233Z-run_shell-call_2_1-7f3a.txt"
    text = "head\n" + spill_pointer(path, 12_345, 678, "run_shell", first_omitted=40)
    found = pointer_in(text)
    assert found is not None
    assert (found.path, found.chars, found.lines, found.reason) == (path, 12_345, 678, "budget")
    note = compression_note(
        "sub dir/20260105T142233Z-run_shell-c-7f3a.txt", 1_234_567, 6, "run_shell",
        input_lines=5, output_lines=2, savings=0.5,
    )  # fmt: skip
    found = pointer_in("ERROR x\n" + note)
    assert found is not None
    assert found.path == "sub dir/20260105T142233Z-run_shell-c-7f3a.txt"
    assert (found.chars, found.reason) == (1_234_567, "log_compression")
    assert pointer_in("no pointer here; The full output (3 chars, 1 lines) is elsewhere") is None
