"""The garbage collector around a headless start (``cli.collector``, issue 45): paused while
the core is built, what was built frozen for the run, and all of it given back after — a
caller in the same process (these tests) finds the collector as it was."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.cli import collector
from agent_tui.cli.main import main


@pytest.fixture
def collecting() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    gc.unfreeze()
    if not was:
        gc.disable()


def test_paused_then_frozen_then_released(collecting: None) -> None:
    made: list[object] = []
    with collector.paused():
        assert not gc.isenabled()
        made.append(object())
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0  # what was made is out of the collector's way
    collector.release()
    assert gc.get_freeze_count() == 0


def test_a_disabled_collector_stays_disabled(collecting: None) -> None:
    gc.disable()
    with collector.paused():
        pass
    assert not gc.isenabled()
    collector.release()
    gc.enable()


def test_a_failure_inside_still_lets_it_run_again(collecting: None) -> None:
    with pytest.raises(RuntimeError), collector.paused():
        raise RuntimeError("the build failed")
    assert gc.isenabled()
    collector.release()


def test_a_headless_run_leaves_the_collector_as_it_found_it(
    collecting: None,
    workspace: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AGENT_DEMO_DELAY", "0")
    code = main(["--cwd", str(workspace), "-p", "hello", "--model", "demo"])
    assert code == 0
    assert "offline demo model" in capsys.readouterr().out
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0


def test_a_start_that_fails_leaves_it_too(collecting: None, workspace: Path) -> None:
    code = main(["--cwd", str(workspace), "-p", "hello", "--model", "nosuchprovider:x"])
    assert code != 0
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0


def test_the_final_collection_is_skipped_once(collecting: None) -> None:
    """Registered once, however many runs a process makes."""
    import atexit

    collector.skip_final_collection()
    before = atexit._ncallbacks()
    collector.skip_final_collection()
    assert atexit._ncallbacks() == before
