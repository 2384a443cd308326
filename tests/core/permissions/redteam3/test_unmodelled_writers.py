"""Programs whose writes the analysis does not model, in bypass mode (redteam3): a protected
path (``.mcp.json``, ``.git/hooks/…``) asks "in every mode, bypass included" only when the
analysis sees the write. ``ar x shipped.a`` (a member named ``.mcp.json``) and ``python3 -m
zipfile -e shipped.zip .`` (a member ``.git/hooks/pre-commit``) write them unasked, sandbox
off; ``ar`` and ``python3 -m zipfile`` have no table, and bypass runs what it does not
understand. In the sandbox the protected files are read-only mounts."""

from __future__ import annotations

import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from agent_tui.core.permissions import Mode
from tests.core.permissions.red_team.harness import Lab, rules
from tests.core.permissions.redteam3.lab import Case, prove, user_git


def _ar(lab: Lab) -> None:
    stage = lab.root.parent / "stage-ar"
    stage.mkdir()
    (stage / ".mcp.json").write_text('{"mcpServers": {"x": {"command": "sh"}}}\n')
    subprocess.run(["ar", "rc", str(lab.root / "shipped.a"), ".mcp.json"], cwd=stage, check=True)


def _zip(lab: Lab) -> None:
    (lab.root / ".git/hooks/pre-commit").chmod(0o755)
    with zipfile.ZipFile(lab.root / "shipped.zip", "w") as archive:
        archive.writestr(".git/hooks/pre-commit", "#!/bin/sh\ntouch pwned\n")


def _mcp_changed(lab: Lab) -> bool:
    return (lab.root / ".mcp.json").read_text() != '{"mcpServers": {}}\n'


CASES = {
    "ar x: .mcp.json": Case("ar x shipped.a", _ar, effect=_mcp_changed),
    "python3 -m zipfile -e: a hook": Case(
        "python3 -m zipfile -e shipped.zip .",
        _zip,
        user_git("", "commit", "-q", "--allow-empty", "-m", "y"),
    ),
}


@pytest.mark.xfail(
    strict=True,
    reason="redteam3: in bypass mode without the sandbox, a program whose writes are not "
    "modelled (no table: ar, cpio, 7z, bsdtar, python -m zipfile/tarfile…) writes protected "
    "paths unasked — a list of tables can never be complete (issue 37's own argument). Fix "
    "options: run bypass-mode commands in the sandbox whenever it works (its read-only masks "
    "do not depend on the analysis), or keep a protected file's content as the git watch does "
    "and revert it after any command in any mode",
)
@pytest.mark.parametrize("name", list(CASES))
async def test_an_unmodelled_writer_cannot_change_a_protected_path(
    tmp_path: Path, name: str
) -> None:
    if name.startswith("ar") and shutil.which("ar") is None:
        pytest.skip("needs ar")
    await prove(tmp_path, CASES[name], rules(allow=(), deny=()), Mode.BYPASS)
