"""``/skills`` and ``/NAME`` headless, and how skills sit among the other commands."""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.agent.agent import Agent
from agent_tui.core.commands import CommandRegistry, Invocation
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.skills import SkillSet, install, skill_commands
from agent_tui.core.tools.builtin import default_registry
from agent_tui.headless.commands import Done, Resolved, resolve
from tests.core.helpers import write_script
from tests.core.skills.helpers import write_skill


def agent_with_skills(cwd: Path) -> Agent:
    skills = SkillSet.for_workspace(cwd, None, home=cwd.parent / "home")
    registry = default_registry()
    install(registry, skills)
    provider = ScriptProvider(write_script(cwd.parent / "s.json", [{"text": "ok"}]))
    return Agent(provider, registry, cwd, skills=skills)


async def test_headless_skills_list_and_invocation(workspace: Path) -> None:
    write_skill(
        workspace / ".claude/skills",
        "pdf-tools",
        "Extract tables from PDF files.",
        "Use awk '{print $1}' on the text.\n",  # $1 is the skill's, not an argument
    )
    (workspace / ".claude/skills/broken").mkdir()
    (workspace / ".claude/skills/broken/SKILL.md").write_text("no front matter\n")
    agent = agent_with_skills(workspace)
    listed = await resolve(agent, "/skills")
    assert isinstance(listed, Done)
    assert listed.code == 0
    assert "pdf-tools  .claude/skills  Extract tables from PDF files." in listed.text
    assert "broken/SKILL.md is skipped: it does not start with a front matter" in listed.text
    sent = await resolve(agent, "/pdf-tools report.pdf $20")
    assert isinstance(sent, Resolved)
    assert "Use awk '{print $1}' on the text." in sent.prompt
    assert sent.prompt.endswith("report.pdf $20")


def test_a_command_file_or_builtin_of_the_same_name_wins(workspace: Path) -> None:
    write_skill(workspace / ".claude/skills", "review", "Reviews code (a skill).")
    write_skill(workspace / ".claude/skills", "help", "A skill named help.")
    (workspace / ".claude/commands").mkdir(parents=True)
    (workspace / ".claude/commands/review.md").write_text("Review it.\n")
    skills = SkillSet.for_workspace(workspace, None, home=workspace.parent / "home")
    registry = CommandRegistry.for_workspace(
        workspace, home=workspace.parent / "home", skills=lambda: skill_commands(skills)
    )
    review = registry.parse("/review x")
    assert isinstance(review, Invocation)
    assert review.command.kind == "custom"
    helped = registry.parse("/help")
    assert isinstance(helped, Invocation)
    assert helped.command.action == "help"
    assert [c.name for c in registry.skills()] == []


def test_claude_codes_skill_name_and_field_map_to_ours() -> None:
    from agent_tui.core.claude.names import claude_input, claude_name, our_input, ours

    assert ours("Skill") == "skill"
    assert claude_name("skill") == "Skill"
    assert claude_input("skill", {"name": "pdf-tools"}) == {"skill": "pdf-tools"}
    assert our_input("skill", {"skill": "pdf-tools"}) == {"name": "pdf-tools"}
