"""Skills as slash commands: ``/skills`` lists them, ``/NAME request`` invokes one.

Invoking a skill sends the model what the ``skill`` tool would have returned (``loaded_text``)
followed by the user's request, as one prompt: the model starts the turn with the skill loaded.
Each skill is a ``Command`` whose ``action`` is ``LOAD`` (the front ends run it); a command
file or a built-in of the same name wins (``CommandRegistry``).
"""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.commands.spec import Command
from agent_tui.core.skills.discovery import SHOWN, SkillSet
from agent_tui.core.skills.skill_file import Skill
from agent_tui.core.skills.tool import loaded_text

LOAD = "load_skill"
"""The action of a skill's command."""
LIST = "skills"
"""The action of ``/skills``."""
MENU_CHARS = 100


def skill_commands(skills: SkillSet | None) -> list[Command]:
    """A command per skill (none without skills)."""
    if skills is None:
        return []
    return [
        Command(
            skill.name,
            _short(skill.description),
            hint="[request]",
            headless=True,
            source=f"skill: {SHOWN.get(skill.source, skill.source)}",
            action=LOAD,
        )
        for skill in skills.skills
    ]


def invocation_prompt(skill: Skill, request: str, cwd: Path) -> str:
    """The prompt ``/NAME request`` sends. Blocking: it lists the skill's folder."""
    loaded = loaded_text(skill, cwd)
    request = request.strip()
    if not request:
        request = f"(The user invoked /{skill.name} without a request: follow the skill.)"
    return f"The user invoked the skill {skill.name}:\n\n{loaded}\n\n{request}"


def listing(skills: SkillSet | None) -> str:
    """``/skills``: each skill's name, where it is from and its description; then the project
    skills waiting for trust and the folders skipped."""
    if skills is None or not (skills.skills or skills.untrusted or skills.problems):
        return (
            "No skills. A skill is a folder with a SKILL.md in .claude/skills/ or "
            ".agent-tui/skills/ (the project's), or ~/.claude/skills/ or the config dir's "
            "skills/ (yours)."
        )
    lines = [f"Skills ({len(skills.skills)}; /NAME request invokes one):"]
    width = max((len(s.name) for s in skills.skills), default=0)
    where = max((len(SHOWN.get(s.source, s.source)) for s in skills.skills), default=0)
    for skill in skills.skills:
        shown = SHOWN.get(skill.source, skill.source)
        lines.append(
            f"  {skill.name.ljust(width)}  {shown.ljust(where)}  {_short(skill.description)}"
        )
    if skills.untrusted:
        lines.append("Not offered until you trust the project (agent-tui trust):")
        lines.extend(f"  {s.name}  {s.path}" for s in skills.untrusted)
    if skills.problems:
        lines.append("Skipped:")
        lines.extend(f"  {p}" for p in skills.problems)
    return "\n".join(lines)


def _short(text: str) -> str:
    return text if len(text) <= MENU_CHARS else text[: MENU_CHARS - 1].rstrip() + "…"
