"""The system prompt sent with every model request: the fixed instructions, then the project
memory (``core.workspace.memory``) in its stable order, then the skills' catalog
(``core.skills``). Nothing in it changes between turns (no clock, no counters), so the prompt
prefix stays cache-stable for the whole session."""

from __future__ import annotations

import platform
from pathlib import Path

from agent_tui.core.text.utf8 import clean_text

_TEMPLATE = """You are agent-tui, a coding agent working in the user's terminal.
Use the dedicated tools to work with files: read_file to read (it pages with offset/limit),
edit_file for precise literal replacements, write_file to create or overwrite files,
list_dir, glob and grep to explore. Use run_shell for everything else (tests, git, builds).
Look at the real files before acting; do not guess their contents.
When a tool returns an error, read its code and next_step and follow them.
Keep answers short and concrete; use Markdown.

Working directory: {cwd}
Platform: {platform}
"""


def system_prompt(cwd: Path, memory: str = "", skills: str = "") -> str:
    """The prompt for a session in ``cwd`` (a directory name that is not valid UTF-8 shows
    its bytes as ``\\xNN``: the prompt is sent as UTF-8). ``memory``: the memory section
    (``ProjectMemory.system_text()``), appended after the fixed part; ``skills``: the skills'
    catalog (``core.skills.prompt_section``), last."""
    text = _TEMPLATE.format(cwd=cwd, platform=f"{platform.system()} {platform.machine()}")
    if memory:
        text += "\n" + memory
    if skills:
        text += "\n" + skills
    return clean_text(text)
