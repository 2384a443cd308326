"""The log file as a user meets it: ``/help`` says where it is, ``--debug`` writes more, and a
run whose log cannot be written goes on (a real ``agent-tui`` process)."""

from __future__ import annotations

import os
from pathlib import Path

from tests.test_cli_headless import run_cli


def test_help_names_the_log_and_debug_writes_more(tmp_path: Path) -> None:
    done = run_cli("-p", "/help", "--debug", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    log = Path(os.environ["AGENT_TUI_DATA_DIR"]) / "log" / "agent-tui.log"
    assert f"Log: {log} (with --debug)" in done.stdout
    assert "started" in log.read_text()
    assert "with --debug" in log.read_text()


def test_a_log_dir_that_cannot_be_made_does_not_stop_the_run(tmp_path: Path) -> None:
    blocker = Path(os.environ["AGENT_TUI_DATA_DIR"]) / "log"
    blocker.parent.mkdir(parents=True, exist_ok=True)
    blocker.write_text("a file where the log dir would be\n")
    done = run_cli("-p", "/help", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"Log: no log file: {blocker} is not usable (" in done.stdout
    assert done.stderr == ""


def test_a_subcommands_warnings_go_to_the_log_not_the_terminal(
    tmp_path: Path, monkeypatch, capsys
) -> None:  # type: ignore[no-untyped-def]
    """``agent-tui mcp|permissions|trust|init|sandbox`` log as the TUI does: a warning one of
    them logs (a server whose tool list failed, say) lands in the log file; stderr stays the
    command's own."""
    import logging

    from agent_tui.cli import main as cli_main
    from agent_tui.cli import sandbox

    def status(argv: list[str]) -> int:
        logging.getLogger("agent_tui.cli.sandbox").warning("probe: something went wrong")
        return 0

    monkeypatch.setattr(sandbox, "main", status)
    assert cli_main.main(["sandbox", "status"]) == 0
    assert capsys.readouterr().err == ""
    log = Path(os.environ["AGENT_TUI_DATA_DIR"]) / "log" / "agent-tui.log"
    assert "probe: something went wrong" in log.read_text()
