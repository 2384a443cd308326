"""Which commands need the network (a sandbox without it would make them fail, so they ask):
the subcommand is found past the options before it and their values."""

from __future__ import annotations

import pytest

from agent_tui.core.permissions.shell.programs import network_use


@pytest.mark.parametrize(
    ("command", "needs"),
    [
        ("git fetch", "git fetch"),
        ("git -C ../other fetch origin", "git fetch"),
        ("git -C fetch status", None),  # a directory named fetch
        ("git --git-dir=.git pull", "git pull"),
        ("git --git-dir .git pull", "git pull"),
        ("git -c http.proxy=x push", "git push"),
        ("git -C dir log", None),
        ("git status", None),
        ("go -C sub get ./...", "go get"),
        ("pip --proxy p install x", "pip install"),
        ("pip --cache-dir install list", None),  # a cache directory named install
        ("npm --prefix web install", "npm install"),
        ("npm --prefix install test", None),
        ("pnpm -C web add left-pad", "pnpm add"),
        ("yarn --cwd web add x", "yarn add"),
        ("uv --directory pkg sync", "uv sync"),
        ("poetry -C pkg install", "poetry install"),
        ("cargo +nightly install ripgrep", "cargo install"),
        ("cargo -C crate fetch", "cargo fetch"),
        ("cargo build", None),
        ("curl http://127.0.0.1/", "curl"),
        ("/usr/bin/ssh host", "ssh"),
        ("rsync -a src/ host:dst/", "rsync to another host"),
        ("rsync -a src/ dst/", None),
        ("ls -la", None),
    ],
)
def test_network_use(command: str, needs: str | None) -> None:
    assert network_use(command.split()) == needs
