"""The ``skill`` tool: load one skill on demand (progressive disclosure, seed s15).

The cold prompt lists each skill's name and description only (``catalog``); a call loads one:
its ``SKILL.md`` body, its whole description, and the paths of the files beside it, which the
model then reads with ``read_file`` and runs with ``run_shell`` — each of those calls judged by
the permission rules, the hooks and the sandbox like any other (a user skill's files lie outside
the workspace: reading them asks unless a rule allows it; nothing is special-cased). The tool
itself only reads the ``SKILL.md`` files the session's ``SkillSet`` found, so it is read-only.

Claude Code's ``Skill`` tool name and its input ``{"skill": …}`` are accepted too.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from pydantic import AliasChoices, Field

from agent_tui.core.calls import ResultFacts
from agent_tui.core.skills.discovery import SkillSet
from agent_tui.core.skills.skill_file import Skill
from agent_tui.core.text.summary import one_line, plural
from agent_tui.core.tools.base import Tool, ToolContext, ToolInput, ToolMeta, ToolOutput
from agent_tui.core.tools.errors import ToolFailure
from agent_tui.core.tools.registry import ToolRegistry

NAME = "skill"
ALIASES = ("Skill",)
DESCRIPTION = """\
Load a skill listed under "# Skills" in the system prompt: its instructions and the paths of \
its files. Call it before a task that matches a skill's description, then follow it; read its \
files with read_file and run its scripts with run_shell."""


class SkillInput(ToolInput):
    name: str = Field(
        validation_alias=AliasChoices("name", "skill", "command"),
        description="The skill's name, as listed.",
    )


def shown_path(path: Path, cwd: Path) -> str:
    """``path`` relative to ``cwd`` when inside it, else absolute."""
    try:
        return path.relative_to(cwd).as_posix()
    except ValueError:
        return str(path)


def loaded_text(skill: Skill, cwd: Path, listing: tuple[list[str], int] | None = None) -> str:
    """What loading ``skill`` gives the model (the tool's result, ``/skill-name``'s prompt).
    Blocking: it lists the skill's folder (unless given its ``Skill.files()``)."""
    files, more = listing if listing is not None else skill.files()
    folder = shown_path(skill.folder, cwd)
    parts = [
        f'<skill name="{skill.name}" folder="{folder}">',
        f"Description: {skill.description}",
    ]
    if skill.allowed_tools:
        parts.append(
            f"(allowed-tools {', '.join(skill.allowed_tools)}: not applied here — every call "
            "is judged by the user's permission rules, as any other)"
        )
    parts += ["", skill.body.strip("\n"), ""]
    if files:
        parts.append(
            f"Files of this skill (paths in the instructions are relative to {folder}/; read "
            "them with read_file, run its scripts with run_shell):"
        )
        parts += [f"- {shown_path(skill.folder / f, cwd)}" for f in files]
        if more:
            parts.append(f"- … and {more} more (list_dir {folder})")
    else:
        parts.append("This skill has no other files.")
    parts.append("</skill>")
    return "\n".join(parts)


def skill_tool(skills: SkillSet) -> Tool[SkillInput]:
    async def call(inp: SkillInput, ctx: ToolContext) -> ToolOutput:
        skill = skills.find(inp.name)
        if skill is None:
            known = ", ".join(skills.names()) or "none"
            raise ToolFailure(
                "not_found",
                f"There is no skill named {inp.name!r}.",
                f"Use one of the skills listed in the system prompt: {known}.",
            )
        files, more = await asyncio.to_thread(skill.files)
        text = loaded_text(skill, ctx.cwd, (files, more))
        return ToolOutput(
            text,
            data={"skill": skill.name, "path": str(skill.path), "source": skill.source},
            summary=one_line(f"{skill.name} · {plural(len(files) + more, 'file')}"),
            facts=ResultFacts(files=len(files) + more),
        )

    return Tool(
        name=NAME,
        description=DESCRIPTION,
        input_model=SkillInput,
        call=call,
        aliases=ALIASES,
        meta=ToolMeta(read_only=True, concurrency_safe=True),
        timeout=30.0,
    )


def install(registry: ToolRegistry, skills: SkillSet) -> bool:
    """Register ``skill`` (replacing an earlier one) when there are skills, or project skills
    that may be trusted later; False when there is nothing to offer (no tool, no prompt part)."""
    if NAME in registry:
        registry.unregister(NAME)
    if not skills.skills and not skills.untrusted:
        return False
    registry.register(skill_tool(skills))
    return True
