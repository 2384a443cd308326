"""Options are only ever their full names: a prefix is an error, not another option."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.cli.main import main


@pytest.mark.parametrize(
    ("argv", "unrecognised"),
    [
        (["--mode", "plan"], "--mode"),  # was taken as --model plan: an unknown model
        (["--perm", "plan", "-p", "hi"], "--perm"),  # was --permission-mode plan
        (["mcp", "list", "--conn"], "--conn"),  # a subcommand's options too
        (["permissions", "check", "--mod", "plan", "read_file"], "--mod"),
        (["init", "--forc"], "--forc"),
    ],
)
def test_an_abbreviated_option_is_refused_with_what_was_not_understood(
    argv: list[str],
    unrecognised: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # in a directory of its own: taken for the full option, "init --forc" writes AGENTS.md
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "unrecognized arguments" in err, err
    assert unrecognised in err, err
    assert list(tmp_path.iterdir()) == []  # nothing ran


def test_the_full_option_still_works(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--permission-mode", "plan", "--version"])
    assert exit_.value.code == 0
    assert "agent-tui" in capsys.readouterr().out
