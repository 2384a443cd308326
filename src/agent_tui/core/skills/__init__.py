"""Agent Skills: folders holding a ``SKILL.md`` (front matter ``name``, ``description``,
optionally ``allowed-tools``; the body is the skill's instructions) and the files beside it.

``skill_file`` reads one folder; ``discovery`` finds them in the project's ``.agent-tui/skills/``
and ``.claude/skills/``, the user's ``<config dir>/skills/`` and ``~/.claude/skills/`` (a
project's skills only once trusted: ``core.state.trust``); ``catalog`` writes the cold prompt's
part — every skill's name and description, shortened to fit a budget, never dropped; ``tool``
is the ``skill`` tool that loads one on demand (its body and the paths of its files, which the
model reads with ``read_file`` and runs with ``run_shell``, judged like any other call);
``commands`` makes ``/skills`` and ``/NAME`` of them.

May import ``core.state``, ``core.text``, ``core.tools``, ``core.commands`` (the front matter
reader, ``Command``); the agent and the front ends import it, ``core.commands`` does not.
"""

from agent_tui.core.skills.catalog import prompt_section
from agent_tui.core.skills.commands import LIST, LOAD, invocation_prompt, listing, skill_commands
from agent_tui.core.skills.discovery import Location, SkillSet, locations
from agent_tui.core.skills.skill_file import Skill, read_skill
from agent_tui.core.skills.tool import NAME, install

__all__ = [
    "LIST",
    "LOAD",
    "NAME",
    "Location",
    "Skill",
    "SkillSet",
    "install",
    "invocation_prompt",
    "listing",
    "locations",
    "prompt_section",
    "read_skill",
    "skill_commands",
]
