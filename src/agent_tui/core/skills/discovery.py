"""Where skills come from, and the session's set of them.

Strongest first (the first folder naming a skill wins; a shadowed one is reported): the
project's ``.agent-tui/skills/`` and ``.claude/skills/``, the user's ``<config dir>/skills/``
and ``~/.claude/skills/``. Each skill is a direct subfolder holding ``SKILL.md``.

A project's skill is repository data that would enter the model's context as instructions, so
it is offered only once the user trusted it as it is (``TrustItem`` of kind ``skill``, keyed by
the file's hash: a changed ``SKILL.md`` asks again); until then it is left out of the catalog
and the ``skill`` tool, and it is in ``ProjectTrust.pending`` for the trust dialog and
``agent-tui trust``. A project's skill folder or ``SKILL.md`` that is a link leading out of its
skills directory is skipped (a repository's skill is its own files); the user's own skills
need no trust and may be links (a dotfiles checkout).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from agent_tui.core.skills.skill_file import FILE, NAME, Skill, SkillError, read_skill
from agent_tui.core.state.paths import Location as Location
from agent_tui.core.state.paths import extension_dirs
from agent_tui.core.state.trust import ProjectTrust, TrustItem

MAX_SKILLS = 1000
"""Skill folders read per location at most (the rest are reported)."""
PROJECT_SOURCES = frozenset({"project", "claude"})
SHOWN = {
    "project": ".agent-tui/skills",
    "claude": ".claude/skills",
    "user": "user config",
    "~/.claude": "~/.claude/skills",
}


def locations(cwd: Path, config: Path, home: Path | None) -> list[Location]:
    """The skill directories, strongest first (``extension_dirs``)."""
    return extension_dirs("skills", cwd, config, home)


def trust_item(skill: Skill) -> TrustItem:
    return TrustItem(
        "skill", skill.path, skill.name, skill.description, f"{skill.path}|{skill.digest}"
    )


class SkillSet:
    """The skills of a session: those found, minus a project's untrusted ones. ``problems``
    names each folder that was skipped and why. Loading reads files: call it off the event
    loop (at start-up, or in a thread)."""

    def __init__(self, dirs: Sequence[Location], trust: ProjectTrust | None = None) -> None:
        self.dirs = list(dirs)
        self.trust = trust
        """None: no gate (tests, ``mcp serve``); else a project's skill waits for trust."""
        self.skills: list[Skill] = []
        self.untrusted: list[Skill] = []
        self.problems: list[str] = []
        self.load()

    @classmethod
    def for_workspace(
        cls,
        cwd: Path,
        trust: ProjectTrust | None,
        *,
        config: Path | None = None,
        home: Path | None = None,
    ) -> SkillSet:
        from agent_tui.core.state.paths import config_dir

        if home is None:
            try:
                home = Path.home()
            except RuntimeError:
                home = None
        return cls(locations(cwd, config or config_dir(), home), trust)

    def load(self) -> None:
        """(Re)read every location."""
        skills: dict[str, Skill] = {}
        untrusted: list[Skill] = []
        problems: list[str] = []
        for location in self.dirs:
            for skill in _read_location(location, problems):
                winner = skills.get(skill.name)
                if winner is not None:
                    problems.append(
                        f"skill {skill.name} of {skill.path} is shadowed by {winner.path}"
                    )
                    continue
                if (
                    location.source in PROJECT_SOURCES
                    and self.trust is not None
                    and not self.trust.allows(trust_item(skill))
                ):
                    untrusted.append(skill)
                    continue
                skills[skill.name] = skill
        self.skills = sorted(skills.values(), key=lambda s: s.name)
        self.untrusted = untrusted
        self.problems = problems

    def trusted(self, items: Iterable[TrustItem]) -> bool:
        """The user trusted ``items``: offer the project skills among them. True when the set
        changed (the cold prompt must be rebuilt)."""
        if not any(item.kind == "skill" for item in items):
            return False
        before = [s.name for s in self.skills]
        self.load()
        return [s.name for s in self.skills] != before

    def find(self, name: str) -> Skill | None:
        wanted = name.strip().lstrip("/")
        for skill in self.skills:
            if skill.name == wanted:
                return skill
        lowered = wanted.lower()
        return next((s for s in self.skills if s.name.lower() == lowered), None)

    def names(self) -> list[str]:
        return [skill.name for skill in self.skills]


def _inside(path: Path, root: Path) -> bool:
    """``path`` and its folder, links resolved, are still under ``root``."""
    try:
        real_root = root.resolve()
        return path.resolve().is_relative_to(real_root) and path.parent.resolve().is_relative_to(
            real_root
        )
    except OSError:
        return False


def _read_location(location: Location, problems: list[str]) -> list[Skill]:
    root = location.path
    if not root.is_dir():
        return []
    try:
        entries = sorted(root.iterdir(), key=lambda p: p.name)
    except OSError as exc:
        problems.append(f"skills of {root} not read: {exc.strerror or exc}")
        return []
    found: list[Skill] = []
    for folder in entries:
        if folder.name.startswith(".") or not (folder / FILE).is_file():
            continue
        if len(found) >= MAX_SKILLS:
            problems.append(f"{root}: more than {MAX_SKILLS} skills; the rest are skipped")
            break
        if not NAME.match(folder.name):
            problems.append(
                f"skill {folder / FILE} is skipped: {folder.name!r} is not a skill name"
            )
            continue
        if location.source in PROJECT_SOURCES and not _inside(folder / FILE, root):
            problems.append(
                f"skill {folder / FILE} is skipped: it links outside {root} (a repository's "
                "skill must be its own files)"
            )
            continue
        try:
            skill = read_skill(folder, location.source)
        except SkillError as exc:
            problems.append(f"skill {folder / FILE} is skipped: {exc}")
            continue
        if skill.given_name:
            problems.append(
                f"skill {folder / FILE}: its name {skill.given_name!r} is not a skill name "
                f"(letters, digits, . _ -); it goes by its folder's name, {skill.name!r}"
            )
        found.append(skill)
    return found
