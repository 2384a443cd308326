"""Skills in the TUI: ``/skills`` lists them, the slash menu offers ``/NAME``, and invoking one
sends the model the skill loaded plus the user's request."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.agent.agent import Agent
from agent_tui.core.permissions import SimplePolicy
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.skills import SkillSet, install
from agent_tui.core.state.paths import config_dir
from agent_tui.core.tools.builtin import default_registry
from agent_tui.ui.chat import Notice
from tests.core.helpers import write_script
from tests.core.skills.helpers import write_skill

from .helpers import SIZE, make_app, submit, wait_for, wait_idle


@pytest.fixture(autouse=True)
def _no_real_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))


def skilled_agent(cwd: Path) -> Agent:
    write_skill(
        cwd / ".claude" / "skills",
        "pdf-tools",
        "Extract tables and text from PDF files.",
        "# PDF tools\nRun scripts/extract.py on the file.\n",
        files={"scripts/extract.py": "print('tables')\n"},
    )
    write_skill(config_dir() / "skills", "release-notes", "Write release notes from git log.")
    skills = SkillSet.for_workspace(cwd, None)
    registry = default_registry()
    install(registry, skills)
    provider = ScriptProvider(write_script(cwd / "script.json", [{"text": "on it"}]))
    return Agent(provider, registry, cwd, policy=SimplePolicy(), skills=skills)


async def test_skills_lists_them_and_a_skill_command_reaches_the_model(tmp_path: Path) -> None:
    app = make_app(skilled_agent(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "/skills")
        notices = lambda: [n.text for n in app.main.chat.query(Notice)]  # noqa: E731
        await wait_for(pilot, lambda: any(t.startswith("Skills (2") for t in notices()), "list")
        text = next(t for t in notices() if t.startswith("Skills (2"))
        assert "pdf-tools" in text
        assert ".claude/skills" in text
        assert "release-notes" in text
        assert "user config" in text

        prompt = app.main.prompt
        prompt.focus()
        prompt.insert("/pdf")
        await wait_for(pilot, lambda: prompt.menu.is_open, "the menu")
        chosen = prompt.menu.selected
        assert chosen is not None
        assert (chosen.label, chosen.source) == ("/pdf-tools", "skill: .claude/skills")
        prompt.load_text("")
        await submit(pilot, "/pdf-tools get the tables out of q3.pdf")
        await wait_for(pilot, lambda: len(app.agent.messages) >= 1, "the prompt to be sent")
        await wait_idle(pilot)
        sent = app.agent.messages[0].content
        assert isinstance(sent, str)
        assert "# PDF tools\nRun scripts/extract.py on the file." in sent
        assert "- .claude/skills/pdf-tools/scripts/extract.py" in sent
        assert sent.endswith("get the tables out of q3.pdf")


@pytest.mark.real_trust
async def test_the_trust_dialog_offers_a_project_skill_and_t_adds_it(tmp_path: Path) -> None:
    from agent_tui.core.providers.demo import DemoProvider
    from agent_tui.core.state.trust import ProjectTrust
    from agent_tui.ui.shell.trust_dialog import TrustDialog

    from .helpers import wait_armed

    repo = tmp_path / "repo"
    write_skill(repo / ".claude" / "skills", "pdf-tools", "Extract tables from PDF files.")
    trust = ProjectTrust(repo)
    skills = SkillSet.for_workspace(repo, trust)
    registry = default_registry()
    install(registry, skills)
    agent = Agent(DemoProvider(), registry, repo, skills=skills, trust=trust)
    assert "pdf-tools" not in agent.system
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await wait_armed(pilot, TrustDialog, "the trust prompt")
        shown = str(dialog.query_one("#items").query_one("Static").render())
        assert "offer the skill pdf-tools" in shown
        await pilot.press("t")
        await wait_for(pilot, lambda: "- pdf-tools: Extract tables" in agent.system, "the skill")
