"""A starter ``AGENTS.md`` for a project (``agent-tui init``, ``/init``).

``survey`` looks at the repository's layout — top-level directories, the build files it knows
(pyproject.toml, package.json, Cargo.toml, go.mod, Makefile, …), the languages they imply, the
test command when one is discoverable, the README's title — without running anything.
``starter_text`` turns that into a file without a model; with a real model,
``write_starter_memory`` makes one request that asks the model to write the file from the same
survey (no tools: the model sees only the survey). An existing ``AGENTS.md`` (or a
``CLAUDE.md``, which a new ``AGENTS.md`` would take the place of) is never overwritten without
``force``.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.core.providers.base import Completion, ModelRequest, Provider, ProviderError
from agent_tui.core.tools.registry import ToolRegistry
from agent_tui.core.transcript import Message
from agent_tui.core.workspace.memory import MEMORY_NAMES, repository_root

BUILD_FILES: dict[str, str] = {
    "pyproject.toml": "Python",
    "setup.py": "Python",
    "requirements.txt": "Python",
    "package.json": "JavaScript/TypeScript",
    "tsconfig.json": "TypeScript",
    "Cargo.toml": "Rust",
    "go.mod": "Go",
    "pom.xml": "Java",
    "build.gradle": "Java/Kotlin",
    "build.gradle.kts": "Kotlin",
    "Gemfile": "Ruby",
    "composer.json": "PHP",
    "CMakeLists.txt": "C/C++",
    "Makefile": "",
    "justfile": "",
    "Dockerfile": "",
}
"""Files the survey recognises at the top level, and the language each implies ("" none)."""
SKIPPED_DIRS = {".git", "node_modules", "__pycache__", ".venv", "venv", "target", "dist"}
MAX_DIRS = 30


@dataclass
class ProjectSurvey:
    root: Path
    name: str
    title: str | None = None
    dirs: list[str] = field(default_factory=list)
    build_files: list[str] = field(default_factory=list)
    languages: list[str] = field(default_factory=list)
    test_command: str | None = None
    build_command: str | None = None

    def summary(self) -> str:
        """The survey as plain lines (what the model is given)."""
        lines = [f"Project directory name: {self.name}"]
        if self.title:
            lines.append(f"README title: {self.title}")
        if self.languages:
            lines.append(f"Languages: {', '.join(self.languages)}")
        if self.build_files:
            lines.append(f"Build files: {', '.join(self.build_files)}")
        if self.dirs:
            lines.append(f"Top-level directories: {', '.join(self.dirs)}")
        if self.build_command:
            lines.append(f"Build command: {self.build_command}")
        if self.test_command:
            lines.append(f"Test command: {self.test_command}")
        return "\n".join(lines)


def _readme_title(root: Path) -> str | None:
    for name in ("README.md", "README.rst", "README.txt", "README"):
        try:
            with (root / name).open(encoding="utf-8", errors="replace") as handle:
                head = handle.read(4096)
        except OSError:
            continue
        for line in head.splitlines():
            text = line.strip().lstrip("#").strip()
            if text:
                return text[:120]
    return None


def _makefile_targets(path: Path) -> set[str]:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")[:65536]
    except OSError:
        return set()
    return set(re.findall(r"^([A-Za-z][\w-]*)\s*:(?!=)", text, re.MULTILINE))


def _python_test_command(root: Path) -> str | None:
    try:
        data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        data = {}
    tool = data.get("tool")
    tools: dict[str, object] = tool if isinstance(tool, dict) else {}
    if "pytest" in tools or (root / "pytest.ini").exists() or (root / "tests").is_dir():
        return "python -m pytest"
    return None


def _package_scripts(root: Path) -> dict[str, str]:
    try:
        data = json.loads((root / "package.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}
    scripts = data.get("scripts") if isinstance(data, dict) else None
    return (
        {k: v for k, v in scripts.items() if isinstance(v, str)}
        if isinstance(scripts, dict)
        else {}
    )


def survey(cwd: Path) -> ProjectSurvey:
    """What the layout of the project at ``cwd`` says (nothing is run)."""
    root = cwd
    result = ProjectSurvey(root=root, name=root.name or str(root), title=_readme_title(root))
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        entries = []
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            if entry.name not in SKIPPED_DIRS and not entry.name.startswith("."):
                result.dirs.append(entry.name + "/")
        elif entry.name in BUILD_FILES:
            result.build_files.append(entry.name)
            language = BUILD_FILES[entry.name]
            if language and language not in result.languages:
                result.languages.append(language)
    del result.dirs[MAX_DIRS:]
    targets = _makefile_targets(root / "Makefile") if "Makefile" in result.build_files else set()
    scripts = _package_scripts(root) if "package.json" in result.build_files else {}
    if "test" in targets:
        result.test_command = "make test"
    elif "test" in scripts:
        result.test_command = "npm test"
    elif "Cargo.toml" in result.build_files:
        result.test_command = "cargo test"
    elif "go.mod" in result.build_files:
        result.test_command = "go test ./..."
    elif "pyproject.toml" in result.build_files or "setup.py" in result.build_files:
        result.test_command = _python_test_command(root)
    if "build" in targets:
        result.build_command = "make build"
    elif "build" in scripts:
        result.build_command = "npm run build"
    elif "Cargo.toml" in result.build_files:
        result.build_command = "cargo build"
    elif "go.mod" in result.build_files:
        result.build_command = "go build ./..."
    return result


def starter_text(found: ProjectSurvey) -> str:
    """A starter ``AGENTS.md`` from the survey alone (no model)."""
    title = found.title or found.name
    out = [
        f"# AGENTS.md — {title}",
        "",
        "Instructions for coding agents working in this repository (agent-tui, Codex, Claude "
        "Code and others read this file). Keep it short and true; edit it as the project "
        "changes.",
        "",
        "## Project",
        "",
    ]
    if found.languages:
        out.append(f"- Languages: {', '.join(found.languages)}.")
    if found.build_files:
        out.append(f"- Build files: {', '.join(f'`{b}`' for b in found.build_files)}.")
    if not found.languages and not found.build_files:
        out.append("- (Describe what this project is and how it is built.)")
    out += ["", "## Layout", ""]
    out += [f"- `{d}` — (what is here)" for d in found.dirs] or ["- (the main directories)"]
    out += ["", "## Commands", ""]
    if found.build_command:
        out.append(f"- Build: `{found.build_command}`")
    out.append(
        f"- Test: `{found.test_command}`" if found.test_command else "- Test: (how to run them)"
    )
    out += [
        "",
        "## Conventions",
        "",
        "- Read the code around a change before making it; follow the existing style.",
        "- Run the tests that cover what you changed before saying it is done.",
        "",
    ]
    return "\n".join(out)


INIT_SYSTEM = (
    "You write AGENTS.md files: short, accurate instructions for coding agents working in a "
    "repository (its purpose, layout, build and test commands, conventions). Answer with the "
    "file's Markdown only, no preamble and no code fence around it. Do not invent commands or "
    "facts that the survey does not support; write a clear placeholder instead."
)


def init_prompt(found: ProjectSurvey) -> str:
    return (
        "Write an AGENTS.md for this repository from this survey of its layout:\n\n"
        f"{found.summary()}\n\nAbout 20 to 60 lines."
    )


def _unfenced(text: str) -> str:
    match = re.fullmatch(r"\s*```[\w-]*\n(.*?)\n```\s*", text, re.DOTALL)
    return (match.group(1) if match else text).strip() + "\n"


@dataclass(frozen=True)
class InitResult:
    """What ``write_starter_memory`` did: ``written`` False when a file was in the way (and
    ``message`` says which, and that ``force`` overwrites it)."""

    path: Path
    written: bool
    used_model: bool
    message: str
    text: str = ""


async def ask_model(provider: Provider, found: ProjectSurvey) -> str:
    """One request (no tools) asking ``provider`` for the file. ``ProviderError`` on failure
    or an empty answer."""
    request = ModelRequest(
        system=INIT_SYSTEM, messages=[Message.user(init_prompt(found))], tools=ToolRegistry()
    )
    completion: Completion | None = None
    async for item in provider.stream(request):
        if isinstance(item, Completion):
            completion = item
    if completion is None or not completion.text.strip():
        raise ProviderError(f"{provider.name}: the model wrote nothing")
    return _unfenced(completion.text)


async def write_starter_memory(
    cwd: Path, provider: Provider | None = None, *, force: bool = False
) -> InitResult:
    """Write ``cwd/AGENTS.md``: from the survey alone with no provider or the demo, else from
    one request to ``provider``. Refuses (``written=False``) when ``AGENTS.md`` or ``CLAUDE.md``
    exists, unless ``force``. ``ProviderError`` when the model request fails (nothing is
    written); ``OSError`` when the file cannot be written."""
    from agent_tui.core.tools.builtin.atomic import atomic_write

    target = cwd / MEMORY_NAMES[0]
    if not force:
        for name in MEMORY_NAMES:
            existing = cwd / name
            if existing.exists() or existing.is_symlink():
                why = (
                    ""
                    if name == MEMORY_NAMES[0]
                    else f" (a new {MEMORY_NAMES[0]} would be read as well as it)"
                )
                return InitResult(
                    target,
                    False,
                    False,
                    f"{existing} already exists{why}; nothing written (--force overwrites "
                    f"{MEMORY_NAMES[0]})",
                )
    found = await asyncio.to_thread(survey, cwd)
    use_model = provider is not None and provider.kind not in ("demo",)
    if use_model:
        assert provider is not None
        text = await ask_model(provider, found)
    else:
        text = starter_text(found)
    if target.is_symlink():  # --force replaces the link, never writes through it
        target.unlink()
    await asyncio.to_thread(atomic_write, target, text.encode("utf-8"))
    how = f"written by {provider.name}" if use_model and provider else "from the project layout"
    root = repository_root(cwd)
    where = f" (repository {root})" if root is not None and root != cwd else ""
    return InitResult(
        target,
        True,
        use_model,
        f"Wrote {target}{where}: {len(text.splitlines())} lines, {how}. Edit it to fit; it "
        "is read at the start of every session here.",
        text,
    )
