"""When MCP servers start: ``eager`` (at launch, the default) or ``lazy``.

Set for every server in a settings file's ``mcp`` section, ``{"mcp": {"start": "lazy"}}``
(user, project, then local file; the most specific wins), or per server in ``.mcp.json`` with
``"start": "lazy"`` / ``"start": "eager"`` on its entry, which wins over the settings. A lazy
server is left unstarted at launch when its tool list is cached (``tool_cache``) and all its
tools are deferred (``core.disclosure``); the manager starts it on the first call of one of
its tools. A lazy server is never started for being lazy when it is not trusted or turned
off: it is started only as an eager one would be.

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


def load_start_mode(
    cwd: Path, paths: Sequence[Path] | None = None
) -> tuple[StartMode, list[tuple[Path, str]]]:
    """(the ``mcp.start`` of the settings files ``paths``, problems as (file, what))."""
    mode: StartMode = "eager"
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


__all__ = ["MODES", "StartMode", "load_start_mode"]
