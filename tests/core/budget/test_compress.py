"""Log compression: errors are never lost, noise folds, and nothing is lost overall."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.core.budget import BudgetSettings, PendingResult, SpillStore, apply_budget
from agent_tui.core.budget.compress import compress_log
from agent_tui.core.text.ansi import strip_escapes
from tests.core.budget.logs import pytest_log, python_traceback_log, vitest_log

OMITTED = re.compile(r"^… \[([\d,]+) lines omitted: (\d+)-(\d+)\]$")
FOLDED = re.compile(r"^(.*) \[×(\d+), lines (\d+)-(\d+)\]$")
FIXTURE = Path(__file__).parent / "fixtures" / "vitest-colour.log"
"""A real vitest 1.6 run with FORCE_COLOR=1: 360 passing tests, one failing with its diff."""
ERRORISH = re.compile(r"error|failed|failure|exception|traceback|\bFAIL\b|^E {2}", re.I)


def expand(compressed: str, original: str) -> list[str]:
    """Undo the folding with the original's lines: checks every marker's line numbers."""
    lines = original.split("\n")
    out: list[str] = []
    for row in compressed.split("\n"):
        if (m := OMITTED.match(row)) is not None:
            count, a, b = (int(g.replace(",", "")) for g in m.groups())
            assert b - a + 1 == count
            assert a == len(out) + 1
            out += lines[a - 1 : b]
        elif (m := FOLDED.match(row)) is not None and int(m.group(3)) == len(out) + 1:
            first, last = int(m.group(3)), int(m.group(4))
            assert lines[first - 1] == m.group(1)
            assert last - first + 1 == int(m.group(2))
            out += lines[first - 1 : last]
        else:
            assert row == lines[len(out)]
            out.append(row)
    return out


def test_seed_scenario_three_a_vitest_log_keeps_every_error_line() -> None:
    log = vitest_log()
    result = compress_log(log)
    assert result.compressed
    assert result.savings > 0.85
    assert result.output_lines < result.input_lines / 5
    kept = result.text.split("\n")
    for line in log.split("\n"):
        if ERRORISH.search(line):
            assert line in kept, line
    assert kept[-1] == "[exit code 1]"
    assert "      Tests  2 failed | 360 passed" in kept
    assert "    at runTest (node_modules/@vitest/runner/dist/index.js:781:11)" in kept
    assert expand(result.text, log) == log.split("\n")


def test_a_pytest_log_keeps_the_failure_and_the_summary() -> None:
    log = pytest_log()
    result = compress_log(log)
    assert result.compressed
    for needle in (
        "E       assert [1, 2] == [1, 2, 3]",
        ">       assert parse('1,2') == [1, 2, 3]",
        "FAILED tests/test_mod.py::test_parse - assert [1, 2] == [1, 2, 3]",
        "======================== 1 failed, 300 passed in 1.52s =========================",
    ):
        assert needle in result.text.split("\n")
    assert "test_case_100 PASSED" not in result.text


def test_a_coloured_log_keeps_its_assertion_diff_as_its_plain_text_does() -> None:
    """Escape codes hid the anchors (``\x1b[31m\x1b[1m\x1b[7m FAIL`` does not start with
    FAIL): the 402-line coloured log was cut to 18 lines without ``+ Received``."""
    coloured = FIXTURE.read_text(encoding="utf-8").removesuffix("\n") + "\n[exit code 1]"
    assert coloured.count("\x1b[") > 1000
    plain = strip_escapes(coloured)
    result, of_plain = compress_log(coloured), compress_log(plain)
    assert result.compressed
    assert result.text == of_plain.text  # the model reads plain text
    assert "\x1b" not in result.text
    kept = result.text.split("\n")
    diff = kept[kept.index("- Expected") :][:14]
    assert diff == [
        "- Expected",
        "+ Received",
        "",
        "  Object {",
        '    "a": 1,',
        '    "b": Array [',
        "      1,",
        "      2,",
        "-     4,",
        "+     3,",
        "    ],",
        '-   "c": "y",',
        '+   "c": "x",',
        "  }",
    ]
    assert " FAIL  src/module_17.test.js > module 17 > merges settings" in kept
    assert "      Tests  1 failed | 360 passed (361)" in kept
    assert kept[-1] == "[exit code 1]"
    assert expand(result.text, plain) == plain.split("\n")
    assert result.output_lines < 40


def test_a_jest_diff_is_kept_whole_up_to_its_blank_line() -> None:
    noise = [f"  ✓ case {n} ({n % 9} ms)" for n in range(200)]
    diff = [
        "  ● merge › keeps order",
        "",
        "    expect(received).toEqual(expected) // deep equality",
        "",
        "    - Expected  - 2",
        "    + Received  + 2",
        "",
        "      Array [",
        *[f"        {n}," for n in range(12)],
        "    -   12,",
        "    +   13,",
        "    -   14,",
        "    +   15,",
        "      ]",
        "",
    ]
    log = "\n".join([*noise, *diff, *noise, "Tests: 1 failed, 400 passed", "[exit code 1]"])
    kept = compress_log(log).text.split("\n")
    start = kept.index("    - Expected  - 2")
    assert kept[start : start + len(diff) - 5] == diff[4:-1]  # not folded: "0, [×12, …]"


def test_the_footer_lines_are_kept_as_they_are() -> None:
    lines = [f"[exit code {n}]" for n in range(2, 200)]  # near-duplicates of the footer
    footer = ["[exit code 1]", "[blocked by the sandbox: /var/tmp/x is outside what it may write]"]
    log = "\n".join(["ERROR: broke", *lines, *footer])
    result = compress_log(log, tail_lines=2)
    assert result.compressed
    assert result.text.endswith("\n" + "\n".join(footer))
    assert expand(result.text, log) == log.split("\n")


def test_a_traceback_is_kept_whole() -> None:
    log = python_traceback_log()
    result = compress_log(log)
    kept = result.text.split("\n")
    start = kept.index("Traceback (most recent call last):")
    assert kept[start:] == log.split("\n")[-9:]


def test_short_or_quiet_or_barely_smaller_logs_are_untouched() -> None:
    short = "error: x\n" + "noise\n" * 30
    assert not compress_log(short).compressed  # under 40 lines
    quiet = "\n".join(f"row {n} ok" for n in range(500))
    assert not compress_log(quiet).compressed  # no anchor: nothing worth keeping over the rest
    names = [chr(97 + n % 26) + chr(97 + n // 26) for n in range(200)]
    dense = "\n".join(f"warning: module {name} is deprecated" for name in names)
    result = compress_log(dense)  # all anchors, all different: folding saves nothing
    assert not result.compressed
    assert result.text == dense


def test_near_duplicates_fold_but_distinct_errors_do_not() -> None:
    lines = [f"noise {n}" for n in range(50)]
    lines += [f"WARN slow query took {n}ms at 0x{n * 4096:08x}" for n in range(30)]
    lines += [f"ERROR row {n} rejected" for n in range(5)]
    lines += ["ERROR disk full"] * 4
    lines += [f"noise {n}" for n in range(50)]
    log = "\n".join(lines)
    result = compress_log(log)
    kept = result.text.split("\n")
    assert "WARN slow query took 0ms at 0x00000000 [×30, lines 51-80]" in kept
    for n in range(5):
        assert f"ERROR row {n} rejected" in kept
    assert "ERROR disk full [×4, lines 86-89]" in kept
    assert expand(result.text, log) == lines


_noise = st.sampled_from(["downloading", "  compiling mod", "ok", "", "✓ passes", "progress 42%"])
_signal = st.sampled_from(["ERROR: bad", "test FAILED", "warning: old", "Traceback (most recent"])
_frame = st.sampled_from(["    at f (a.js:1:2)", '  File "a.py", line 3, in f', "    x = 1"])
_logs = st.lists(
    st.one_of(_noise, _noise, _noise, _signal, _frame, st.text(max_size=30)),
    min_size=0,
    max_size=300,
)


@settings(max_examples=150, deadline=None)
@given(lines=_logs)
def test_any_log_folds_reversibly_and_keeps_every_error_line(lines: list[str]) -> None:
    log = "\n".join(lines)
    result = compress_log(log)
    if not result.compressed:
        assert result.text == log
        return
    assert len(result.text) <= 0.85 * len(log)
    plain = strip_escapes(log)  # what is folded: the text without escape codes
    assert expand(result.text, plain) == plain.split("\n")
    kept = result.text.split("\n")
    for line in plain.split("\n"):
        if "ERROR" in line or "FAILED" in line:
            assert line in kept or any(k.startswith(line + " [×") for k in kept)


def test_a_compressed_log_is_spilled_whole_with_a_note(tmp_path: Path) -> None:
    log = vitest_log()
    store = SpillStore(Path(".agent-spill"), tmp_path, durable=False)
    [result] = apply_budget(
        [PendingResult("c", "run_shell", log, is_error=True)], BudgetSettings(), store
    )
    assert result.compressed is not None
    assert not result.spilled_by_budget
    assert result.spill is not None
    assert result.spill.path.read_text() == log
    body, note = result.content.rsplit("\n", 1)
    assert body == result.compressed.text
    assert note.startswith("[Log compressed from 415 to ")
    assert result.spill.shown in note
    assert "Do not re-run the command" in note


def test_compression_is_configurable(tmp_path: Path) -> None:
    log = vitest_log()
    store = SpillStore(Path(".agent-spill"), tmp_path, durable=False)
    off = BudgetSettings.model_validate({"log_compression": {"enabled": False}})
    [result] = apply_budget([PendingResult("c", "run_shell", log)], off, store)
    assert result.content == log
    assert result.spill is None
    other = BudgetSettings.model_validate({"log_compression": {"tools": ["make"]}})
    [result] = apply_budget([PendingResult("c", "make", log)], other, store)
    assert result.compressed is not None


def test_a_compressed_log_still_over_the_cap_is_excerpted_with_one_spill(tmp_path: Path) -> None:
    log = "\n".join(
        f"ERROR item {n} rejected: checksum {n * 7919:x} mismatch" for n in range(5_000)
    )
    log += "\n" + "\n".join(f"step {n} ok" for n in range(20_000)) + "\n[exit code 1]"
    store = SpillStore(Path(".agent-spill"), tmp_path, durable=False)
    [result] = apply_budget(
        [PendingResult("c", "run_shell", log, is_error=True)], BudgetSettings(), store
    )
    assert result.compressed is not None
    assert len(result.compressed.text) > 50_000  # errors are kept: still too big
    assert result.spilled_by_budget
    assert len(result.content) < 3_000
    assert result.content.rstrip("]").endswith("Do not re-run the command to see it.")
    assert "[exit code 1]" in result.content  # a failure keeps its tail
    assert [p.name for p in store.files()] == [result.spill.path.name]
    assert result.spill.path.read_text() == log
