"""The cold prompt's skills part: every skill named, within 1% of the context window."""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.conversation.context import estimate_tokens
from agent_tui.core.skills import SkillSet, prompt_section
from agent_tui.core.skills.discovery import Location
from agent_tui.core.skills.skill_file import Skill
from tests.core.skills.helpers import generated

WINDOW_128K = 128_000


def skills_of(root: Path) -> SkillSet:
    return SkillSet([Location(root, "user")])


def test_100_skills_fit_in_one_percent_of_a_128k_window_and_none_is_dropped(
    tmp_path: Path,
) -> None:
    names = generated(tmp_path / "skills", 100)
    found = skills_of(tmp_path / "skills")
    assert found.problems == []
    whole = sum(estimate_tokens(f"- {s.name}: {s.description}\n") for s in found.skills)
    assert whole > 2 * WINDOW_128K // 100  # the descriptions as written would not fit
    text = prompt_section(found.skills, WINDOW_128K)
    tokens = estimate_tokens(text)
    assert tokens <= WINDOW_128K // 100, tokens
    for name in names:
        assert f"\n- {name}: " in text  # listed, with (a part of) its description
    assert text.count("…") == 100  # each shortened, none dropped
    print(f"100 skills: {tokens} tokens of {WINDOW_128K // 100} (descriptions: {whole})")


def test_20_skills_measured_short_descriptions_stay_whole(tmp_path: Path) -> None:
    generated(tmp_path / "skills", 18)
    from tests.core.skills.helpers import write_skill

    write_skill(tmp_path / "skills", "a-short", "Formats SQL.")
    write_skill(tmp_path / "skills", "b-short", "Writes release notes from git log.")
    found = skills_of(tmp_path / "skills")
    assert len(found.skills) == 20
    text = prompt_section(found.skills, WINDOW_128K)
    assert estimate_tokens(text) <= WINDOW_128K // 100
    assert "- a-short: Formats SQL.\n" in text
    assert "- b-short: Writes release notes from git log.\n" in text
    assert all(f"- {s.name}: " in text for s in found.skills)


def test_names_alone_over_budget_still_lists_every_skill(tmp_path: Path) -> None:
    skills = [
        Skill(f"tool-{i:04d}", "Does a thing to a file.", tmp_path / f"{i}/SKILL.md", "user", "")
        for i in range(300)
    ]
    text = prompt_section(skills, 8_000)  # 80 tokens: not even the names fit
    assert all(f"- tool-{i:04d}\n" in text for i in range(300))


def test_no_skills_no_part() -> None:
    assert prompt_section([], WINDOW_128K) == ""


def test_wide_characters_are_counted_as_the_estimate_counts_them(tmp_path: Path) -> None:
    skills = [
        Skill(
            f"s{i}", "把扫描的文档转成可搜索的文本并检查版面" * 5, tmp_path / "SKILL.md", "user", ""
        )
        for i in range(100)
    ]
    text = prompt_section(skills, WINDOW_128K)
    assert estimate_tokens(text) <= WINDOW_128K // 100
    assert all(f"- s{i}: " in text for i in range(100))
