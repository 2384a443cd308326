"""The wheel a user installs carries the package, its data (the tools' stored schemas) and the
shipped themes (non-editable install)."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(ROOT),
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
        ],
        check=True,
        timeout=300,
        capture_output=True,
    )
    (built,) = out.glob("agent_tui-*.whl")
    return built


def test_wheel_contains_package_themes_and_entry_point(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert "agent_tui/cli/main.py" in names
    assert "agent_tui/ui/app.tcss" in names
    assert "agent_tui/themes/agent-dark.json" in names
    assert "agent_tui/core/tools/stored_schemas.json" in names  # else every start builds them
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "agent-tui = agent_tui.cli.main:main" in text


def test_installed_wheel_loads_its_themes_without_the_checkout(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
        timeout=300,
        capture_output=True,
    )
    code = (
        "import agent_tui, agent_tui.ui.shell.themes as t\n"
        "print(agent_tui.__file__)\n"
        "print(str(t.themes_dir()))\n"
        "print(','.join(sorted(th.name for th in t.load_themes())))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(target)
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    module_file, theme_dir, names = done.stdout.splitlines()
    assert module_file.startswith(str(target))
    assert theme_dir.startswith(str(target))
    assert "agent-dark" in names.split(",")
