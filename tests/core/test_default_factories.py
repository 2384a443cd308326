"""No pydantic model of the core starts a field with ``default_factory=list`` (issue 45):
building its schema asks ``inspect.signature(list)``, which tokenizes the builtin's text
signature (~0.3 ms a field, ~6 ms the first). ``core.empty.empty_list`` is the same default."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from agent_tui.core.empty import empty_list

SRC = Path(__file__).resolve().parents[2] / "src"


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def test_no_core_model_field_defaults_to_the_builtin_list() -> None:
    """Every core module imported (in a child: the suite's own process stays as it was)."""
    probe = (
        "import importlib, pkgutil, sys\n"
        "from pydantic import BaseModel\n"
        "import agent_tui.core\n"
        "for info in pkgutil.walk_packages(agent_tui.core.__path__, 'agent_tui.core.'):\n"
        "    if not info.name.endswith('_main'):\n"
        "        importlib.import_module(info.name)\n"
        "def subclasses(cls):\n"
        "    for sub in cls.__subclasses__():\n"
        "        yield sub\n"
        "        yield from subclasses(sub)\n"
        "models = {m for m in subclasses(BaseModel) if m.__module__.startswith('agent_tui.core')}\n"
        "bad = [f'{m.__module__}.{m.__qualname__}.{name}' for m in models\n"
        "       for name, info in m.model_fields.items() if info.default_factory is list]\n"
        "print(len(models), ','.join(sorted(bad)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], env=_env(), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    count, _, bad = done.stdout.strip().partition(" ")
    assert int(count) > 50
    assert bad == ""


def test_the_default_is_a_new_empty_list_each_time() -> None:
    from agent_tui.core.sandbox import SandboxSettings

    first, second = SandboxSettings(), SandboxSettings()
    assert first.allow_write == []
    assert second.allow_write == []
    first.allow_write.append("/x")
    assert second.allow_write == []
    assert SandboxSettings().allow_write == []
    assert empty_list() is not empty_list()
    assert "default" not in SandboxSettings.model_json_schema()["properties"]["allow_write"]


def test_a_start_never_parses_the_text_signature_of_a_builtin(workspace: Path) -> None:
    """A headless demo turn builds its models without tokenizing a builtin's signature."""
    probe = (
        "import inspect, runpy, sys\n"
        "seen = []\n"
        "parse = inspect._signature_fromstr\n"
        "def spy(cls, obj, s, *a, **k):\n"
        "    seen.append(repr(obj))\n"
        "    return parse(cls, obj, s, *a, **k)\n"
        "inspect._signature_fromstr = spy\n"
        "sys.argv = ['agent-tui', '-p', 'hello', '--model', 'demo']\n"
        "try:\n    runpy.run_module('agent_tui', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "sys.__stderr__.write('\\nSEEN ' + ','.join(seen))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=workspace,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.rpartition("\nSEEN ")[2] == ""
