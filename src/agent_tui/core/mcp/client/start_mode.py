"""When MCP servers start: ``lazy`` (the default) or ``eager``.

Set for every server in a settings file's ``mcp`` section, ``{"mcp": {"start": "eager"}}``
(user, project, then local file; the most specific wins), or per server in ``.mcp.json`` with
``"start": "eager"`` / ``"start": "lazy"`` on its entry, which wins over the settings.

A lazy server never holds up a model request: it is left unstarted at launch when its tool list
is cached (``tool_cache``) and all its tools are deferred (``core.disclosure``), and the manager
starts it on the first call of one of its tools; otherwise it starts at launch in the
background, its cached tools (if any) standing in until it lists its own, and a request goes out
without waiting for it (its tools join the first request after it connects). A headless run
waits for the lazy servers whose tools are not cached yet (``McpManager.wait_uncached``), each
bounded by its ``startup_timeout``. An eager server starts at launch and every request waits
until it has connected or failed (bounded the same way). A lazy server is never started for
being lazy when it is not trusted or turned off: it is started only as an eager one would be.

A value other than ``eager`` or ``lazy`` is a problem (file, what is wrong) and ignored.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from agent_tui.core.settings import read_json_object, settings_paths

StartMode = Literal["eager", "lazy"]
MODES: tuple[StartMode, ...] = ("eager", "lazy")
KEY = "start"
DEFAULT: StartMode = "lazy"
"""Without ``mcp.start`` in any settings file (issue 45: the first reply never waits)."""


def load_start_mode(
    cwd: Path, paths: Sequence[Path] | None = None
) -> tuple[StartMode, list[tuple[Path, str]]]:
    """(the ``mcp.start`` of the settings files ``paths``, problems as (file, what))."""
    mode: StartMode = DEFAULT
    problems: list[tuple[Path, str]] = []
    for file in paths if paths is not None else settings_paths(cwd):
        raw, _text, _problem = read_json_object(file)
        if raw is None:
            continue  # a broken settings file is reported by the settings loader
        section = raw.get("mcp")
        if not isinstance(section, dict) or KEY not in section:
            continue
        value = section[KEY]
        if value == "eager" or value == "lazy":
            mode = value
        else:
            problems.append(
                (file, f'"mcp.start" must be "eager" or "lazy", not {value!r}; ignored')
            )
    return mode, problems


__all__ = ["DEFAULT", "MODES", "StartMode", "load_start_mode"]
