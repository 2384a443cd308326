"""Realistic test-runner logs for the compression tests (vitest and pytest shapes)."""

from __future__ import annotations


def vitest_log(files: int = 12, tests_per_file: int = 30, failing: tuple[int, ...] = (3, 7)) -> str:
    """A vitest run: many passing lines, two failures with stack traces, a summary."""
    out = [" RUN  v1.6.0 /home/dev/project", ""]
    for f in range(files):
        name = f"src/module_{f}.test.ts"
        for t in range(tests_per_file):
            out.append(f"   ✓ {name} > suite {f} > handles case {t} {t % 7 + 1}ms")
        if f in failing:
            out += [
                f"   × {name} > suite {f} > rejects bad input 3ms",
                f"     → expected 'ok' to be 'fail' // Object.is equality (module {f})",
            ]
        if f in failing:
            out.append(f" ❯ {name} ({tests_per_file + 1} tests | 1 failed) {40 + f}ms")
        else:
            out.append(f" ✓ {name} ({tests_per_file} tests) {40 + f}ms")
    for f in failing:
        out += [
            "",
            f" FAIL  src/module_{f}.test.ts > suite {f} > rejects bad input",
            f"AssertionError: expected 'ok' to be 'fail' // Object.is equality (module {f})",
            "",
            "- Expected",
            "+ Received",
            "",
            "- fail",
            "+ ok",
            "",
            f"    at /home/dev/project/src/module_{f}.test.ts:{20 + f}:17",
            "    at processTicksAndRejections (node:internal/process/task_queues:95:5)",
            "    at runTest (node_modules/@vitest/runner/dist/index.js:781:11)",
            "",
            "⎯" * 40,
        ]
    out += [
        "",
        f" Test Files  {len(failing)} failed | {files - len(failing)} passed ({files})",
        f"      Tests  {len(failing)} failed | {files * tests_per_file} passed",
        "   Start at  10:42:17",
        "   Duration  3.21s (transform 410ms, setup 0ms, collect 1.20s, tests 2.01s)",
        "",
        "[exit code 1]",
    ]
    return "\n".join(out)


def pytest_log(passing: int = 300) -> str:
    """A pytest -v run with one failure (assertion + traceback) and the summary lines."""
    out = [
        "============================= test session starts ==============================",
        "platform linux -- Python 3.11.7, pytest-8.2.0, pluggy-1.5.0",
        "collected 301 items",
        "",
    ]
    for i in range(passing):
        out.append(
            f"tests/test_mod.py::test_case_{i} PASSED                 [{i * 100 // 301:>3}%]"
        )
    out += [
        "tests/test_mod.py::test_parse FAILED                              [100%]",
        "",
        "=================================== FAILURES ===================================",
        "__________________________________ test_parse __________________________________",
        "",
        "    def test_parse():",
        ">       assert parse('1,2') == [1, 2, 3]",
        "E       assert [1, 2] == [1, 2, 3]",
        "E         Right contains one more item: 3",
        "",
        "tests/test_mod.py:12: AssertionError",
        "=========================== short test summary info ============================",
        "FAILED tests/test_mod.py::test_parse - assert [1, 2] == [1, 2, 3]",
        "======================== 1 failed, 300 passed in 1.52s =========================",
        "[exit code 1]",
    ]
    return "\n".join(out)


def python_traceback_log(noise: int = 100) -> str:
    """A script log: noise, then an uncaught exception with a full traceback."""
    out = [f"processing item {i} ok" for i in range(noise)]
    out += [
        "Traceback (most recent call last):",
        '  File "/app/main.py", line 41, in <module>',
        "    main()",
        '  File "/app/main.py", line 37, in main',
        "    handle(item)",
        '  File "/app/handlers.py", line 12, in handle',
        "    return table[item.key]",
        "KeyError: 'missing'",
        "[exit code 1]",
    ]
    return "\n".join(out)
