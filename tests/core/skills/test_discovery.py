"""Finding skills: the four locations, Claude Code's front matter shapes, broken files."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.skills import SkillSet, locations
from tests.core.skills.helpers import write_skill


def test_every_location_is_read_and_the_project_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")  # ~/.claude of the home given
    cwd, config, home = tmp_path / "p", tmp_path / "config", tmp_path / "home"
    write_skill(cwd / ".agent-tui/skills", "ours", "Our own skill.")
    write_skill(cwd / ".claude/skills", "pdf-tools", "Project PDF tools.")
    write_skill(config / "skills", "notes", "User notes skill.")
    write_skill(home / ".claude/skills", "pdf-tools", "The user's PDF tools.")
    write_skill(home / ".claude/skills", "commit", "Writes commits.")
    found = SkillSet(locations(cwd, config, home))
    assert [(s.name, s.source) for s in found.skills] == [
        ("commit", "~/.claude"),
        ("notes", "user"),
        ("ours", "project"),
        ("pdf-tools", "claude"),
    ]
    assert found.find("pdf-tools").description == "Project PDF tools."  # type: ignore[union-attr]
    assert len(found.problems) == 1
    assert "shadowed" in found.problems[0]


def test_claude_code_front_matter_shapes_are_read(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    (root / "folded").mkdir(parents=True)
    (root / "folded/SKILL.md").write_text(
        "---\n"
        "name: folded\n"
        "description: >\n"
        "  Fill PDF forms and\n"
        "  extract their fields.\n"
        "license: Complete terms in LICENSE.txt\n"
        "metadata:\n"
        "  version: 1.2\n"
        "  tags: [pdf, forms]\n"
        "allowed-tools:\n"
        "  - Bash(python:*)\n"
        "  - Read\n"
        "---\n"
        "# Folded\nSteps.\n",
        encoding="utf-8",
    )
    (root / "plain").mkdir()
    (root / "plain/SKILL.md").write_text(
        "---\nname: plain\ndescription: A description that goes on\n  over two lines.\n"
        "allowed-tools: Read, Grep, Bash(git log:*)\n---\nBody.\n",
        encoding="utf-8",
    )
    (root / "nameless").mkdir()
    (root / "nameless/SKILL.md").write_text(
        '---\ndescription: "Named by its folder"\n---\nBody.\n', encoding="utf-8"
    )
    found = SkillSet([_user(root)])
    assert found.problems == []
    by_name = {s.name: s for s in found.skills}
    assert by_name["folded"].description == "Fill PDF forms and extract their fields."
    assert by_name["folded"].allowed_tools == ("Bash(python:*)", "Read")
    assert by_name["folded"].body.startswith("# Folded")
    assert by_name["plain"].description == "A description that goes on over two lines."
    assert by_name["plain"].allowed_tools == ("Read", "Grep", "Bash(git log:*)")
    assert by_name["nameless"].description == "Named by its folder"


def test_broken_skill_files_are_reported_and_the_others_load(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "good", "A good skill.")
    cases = {
        "no-front-matter": "# Just a body\n",
        "unclosed": "---\nname: unclosed\ndescription: never closed\n",
        "no-description": "---\nname: no-description\n---\nBody\n",
        "bad-line": "---\nname: bad-line\nthis is not yaml\ndescription: x\n---\nBody\n",
        "bad-name": "---\nname: ../../etc\ndescription: x\n---\nBody\n",
    }
    for name, text in cases.items():
        (root / name).mkdir()
        (root / name / "SKILL.md").write_text(text, encoding="utf-8")
    (root / "binary").mkdir()
    (root / "binary/SKILL.md").write_bytes(b"---\nname: binary\xff\n---\n")
    found = SkillSet([_user(root)])
    assert found.names() == ["bad-name", "good"]  # its name is words: its folder names it
    problems = "\n".join(found.problems)
    assert len(found.problems) == 6, problems
    for name, why in [
        ("no-front-matter", "does not start with a front matter"),
        ("unclosed", "never closed"),
        ("no-description", "no description"),
        ("bad-line", "line 3: not `key: value`"),
        ("bad-name", "is not a skill name"),
        ("binary", "not UTF-8"),
    ]:
        line = next(p for p in found.problems if f"/{name}/SKILL.md" in p)
        assert why in line, line


def test_files_beside_skill_md_are_listed_without_hidden_or_escaping_links(
    tmp_path: Path,
) -> None:
    root = tmp_path / "skills"
    folder = write_skill(
        root,
        "pdf-tools",
        "PDF tools.",
        files={"reference.md": "ref", "scripts/extract.py": "print(1)", ".cache/x": "x"},
    )
    secret = tmp_path / "secret.txt"
    secret.write_text("secret")
    (folder / "leak.txt").symlink_to(secret)
    skill = SkillSet([_user(root)]).find("pdf-tools")
    assert skill is not None
    assert skill.files() == (["reference.md", "scripts/extract.py"], 0)


def _user(root: Path):  # type: ignore[no-untyped-def]
    from agent_tui.core.skills import Location

    return Location(root, "user")
