"""The core must stay UI-free: importing any core module never loads textual or rich.

The subprocesses also block ``httpx`` and ``httpcore``: the project uses httpx2 alone (whose
command-line entry point, with rich, is imported only when it runs), so nothing may need them.
"""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import agent_tui.core


def _core_modules() -> list[str]:
    names = ["agent_tui.core"]
    for info in pkgutil.walk_packages(agent_tui.core.__path__, "agent_tui.core."):
        names.append(info.name)
    return sorted(names)


def test_core_modules_exist() -> None:
    modules = _core_modules()
    assert "agent_tui.core.agent.agent" in modules
    assert "agent_tui.core.tools.registry" in modules


def test_no_core_module_imports_textual_or_rich() -> None:
    code = (
        "import importlib, sys\n"
        "sys.modules['httpx'] = sys.modules['httpcore'] = None\n"
        f"for name in {_core_modules()!r}:\n"
        "    importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))\n"
        "print(','.join(bad))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "", f"core pulled in UI modules: {done.stdout.strip()}"


def test_headless_path_does_not_import_textual() -> None:
    code = (
        "import sys\n"
        "sys.modules['httpx'] = sys.modules['httpcore'] = None\n"
        "import agent_tui.headless.run, agent_tui.cli.main\n"
        "print(','.join(m for m in sys.modules if m.split('.')[0] in ('textual','rich')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == ""
