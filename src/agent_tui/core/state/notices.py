"""Notices shown once per user (``first_time``): the fact that they were shown is kept in the
data directory, so a warning about this machine (no sandbox here) does not repeat every launch.
The status bar still shows the state every time; only the explanation is said once."""

from __future__ import annotations

import json
import logging

from agent_tui.core.state.nofollow import write_state
from agent_tui.core.state.paths import data_dir

FILE = "notices.json"
log = logging.getLogger(__name__)


def first_time(key: str) -> bool:
    """True the first time ``key`` is asked about (and remembered from then on). Blocking; a
    data directory that cannot be written means the notice shows again next time."""
    path = data_dir() / FILE
    try:
        seen = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(seen, list):
            seen = []
    except (OSError, ValueError):
        seen = []
    if key in seen:
        return False
    try:  # no link below the data directory followed (it may be inside the workspace)
        write_state(path, data_dir(), json.dumps([*seen, key][-200:], indent=1).encode("utf-8"))
    except (OSError, ValueError) as exc:
        log.warning("could not remember the notice %s: %s", key, exc)
    return True
