"""Named subagents: Markdown files with a front matter, read from the project and the user.

Where (a later one replaces an earlier one of the same name): Claude Code's user agents
(``~/.claude/agents/**/*.md``), the user's config dir ``agents/**/*.md``, then the project's
``.claude/agents/**/*.md``, then
``.agent-tui/agents/**/*.md`` — subfolders too (``.claude/agents/team/builder.md``, as Claude
Code reads them; the agent's name is its ``name`` field, else the file's stem). A file::

    ---
    name: reviewer
    description: Reviews a diff for bugs
    tools: read_file, grep, glob        # or a YAML list (- read_file)
    model: anthropic:claude-haiku-4-5   # optional; a provider spec
    ---
    You review code. ...                # the body: its system prompt

``model`` may also be a name the ``model.aliases`` setting maps to a spec (Claude Code's
``sonnet``, ``opus``, ``haiku``); ``inherit`` and an unmapped name run on the session's
model, the latter with a problem saying so (never a failure of the agent).

A project's file may not name a ``script:PATH`` model (a local file that would script the
subagent's every answer and tool call): it is skipped with a problem saying so; the user's own
files may.

Claude Code's tool names (``Read``, ``Grep``, ``Bash``…) are understood. A broken file (no
front matter, a bad name, unreadable) is a problem reported at start, never fatal. What a
project file's ``tools`` may do is limited by ``Subagents`` (``core.subagents.tool``): it only
picks among the session's tools, and every call is still judged by the user's permissions.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from agent_tui.core.commands.frontmatter import FrontMatterError, Nested, split
from agent_tui.core.state.model_spec import names_script
from agent_tui.core.state.paths import claude_home, config_dir

Scope = Literal["builtin", "user", "project"]
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
MAX_FILE_BYTES = 256 * 1024
MAX_FILES = 1000
"""Agent files read from one directory tree; past it the rest are skipped with a problem."""
CLAUDE_MODELS = frozenset({"sonnet", "opus", "haiku", "opusplan", "default"})
"""Claude Code's model aliases: without a ``model.aliases`` entry, the session's model."""
CLAUDE_NAMES = {
    "read": "read_file",
    "write": "write_file",
    "edit": "edit_file",
    "multiedit": "edit_file",
    "bash": "run_shell",
    "grep": "grep",
    "glob": "glob",
    "ls": "list_dir",
    "webfetch": "web_fetch",
    "todowrite": "update_plan",
}
"""Claude Code's tool names, lower-cased, and ours (``.claude/agents`` files use them)."""


@dataclass(frozen=True)
class AgentDefinition:
    """One subagent: its name, what it is for, its tools (None: the session's read-only
    tools), its model spec (None: the session's), its system prompt, and where it is from."""

    name: str
    description: str = ""
    tools: tuple[str, ...] | None = None
    model: str | None = None
    prompt: str = ""
    scope: Scope = "builtin"
    path: Path | None = None


GENERAL = AgentDefinition(
    name="general",
    description="Researches a question in the workspace with the read-only tools and reports.",
)
"""The agent a ``task`` call without ``agent`` runs."""


@dataclass
class AgentCatalog:
    agents: dict[str, AgentDefinition] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    """Broken files and ignored fields, one sentence each (shown at start)."""

    def get(self, name: str | None) -> AgentDefinition | None:
        if name is None or name == GENERAL.name:
            return self.agents.get(GENERAL.name, GENERAL)
        return self.agents.get(name)

    def names(self) -> list[str]:
        return sorted({GENERAL.name, *self.agents})


READ_KEYS = frozenset({"name", "description", "tools", "model"})
"""The front matter keys an agent file is read by."""


def agent_dirs(cwd: Path, user_dir: Path | None = None) -> list[tuple[Path, Scope]]:
    """The directories read, lowest precedence first: Claude Code's user agents
    (``~/.claude/agents``, or ``$CLAUDE_CONFIG_DIR/agents``), the user's own, then the
    project's."""
    try:
        home: Path | None = Path.home()
    except RuntimeError:
        home = None
    claude = claude_home(home)
    theirs: list[tuple[Path, Scope]] = [(claude / "agents", "user")] if claude else []
    return [
        *theirs,
        (folder_of_user(user_dir), "user"),
        (cwd / ".claude" / "agents", "project"),
        (cwd / ".agent-tui" / "agents", "project"),
    ]


def folder_of_user(user_dir: Path | None = None) -> Path:
    """The user's own agents directory."""
    return (user_dir if user_dir is not None else config_dir()) / "agents"


def load_agents(
    cwd: Path, user_dir: Path | None = None, models: Mapping[str, str] | None = None
) -> AgentCatalog:
    """Every agent file of the user and the project (``agent_dirs``); ``models`` maps the
    model names an agent may give to provider specs (the ``model.aliases`` setting)."""
    catalog = AgentCatalog()
    for folder, scope in agent_dirs(cwd, user_dir):
        files = agent_files(folder, catalog.problems)
        seen: dict[str, Path] = {}
        for path in files:
            found = parse_agent_file(path, scope)
            if isinstance(found, str):
                catalog.problems.append(f"agents: {found}")
                continue
            model = resolve_model(found, models or {}, catalog.problems)
            if model and scope == "project" and names_script(model):
                catalog.problems.append(
                    f"agents: {path}: model {model!r} names a script, which a project's file "
                    "may not: the repository would decide every answer and tool call of the "
                    "subagent. The agent was skipped; if you trust it, copy it to your own "
                    f"agents directory ({folder_of_user(user_dir)}), where script models are "
                    "allowed."
                )
                continue
            if found.name in seen:
                catalog.problems.append(
                    f"agents: {seen[found.name]} and {path} both define {found.name!r}; "
                    f"{path} is used."
                )
            seen[found.name] = path
            catalog.agents[found.name] = replace(found, model=model)
    return catalog


def agent_files(folder: Path, problems: list[str]) -> list[Path]:
    """The ``.md`` files in ``folder`` and its subfolders, in path order (a folder's own files
    before its subfolders'); links to folders are not followed (no loop, nothing outside)."""
    if not folder.is_dir():
        return []
    found: list[Path] = []

    def failed(exc: OSError) -> None:
        problems.append(f"agents: cannot list {exc.filename or folder}: {exc.strerror or exc}")

    for top, dirs, names in os.walk(folder, onerror=failed, followlinks=False):
        dirs.sort()
        for name in sorted(names):
            path = Path(top) / name
            if name.endswith(".md") and path.is_file():
                found.append(path)
        if len(found) > MAX_FILES:
            problems.append(
                f"agents: {folder} holds more than {MAX_FILES} agent files; the rest were skipped."
            )
            return found[:MAX_FILES]
    return found


def resolve_model(
    definition: AgentDefinition, models: Mapping[str, str], problems: list[str]
) -> str | None:
    """The provider spec ``definition`` runs on (None: the session's model), saying once in
    ``problems`` when a name it gives is not one (never failing the agent)."""
    model = definition.model
    if not model:
        return None
    key = model.strip().lower()
    if key == "inherit":
        return None
    if key in models:
        return models[key]
    if ":" in model or key == "demo":
        return model
    if key in CLAUDE_MODELS:
        problems.append(
            f"agents: {definition.path}: model {model!r} is a Claude Code model name and no "
            f"model.aliases setting maps it to a model here; {definition.name!r} runs on the "
            "session's model (to choose one: "
            f'"model": {{"aliases": {{"{key}": "anthropic:MODEL"}}}} in settings).'
        )
    else:
        problems.append(
            f"agents: {definition.path}: model {model!r} is not a provider spec (openai:MODEL, "
            f"anthropic:MODEL) nor a model.aliases name; {definition.name!r} runs on the "
            "session's model."
        )
    return None


def parse_agent_file(path: Path, scope: Scope) -> AgentDefinition | str:
    """The agent ``path`` defines, or what is wrong with it (one sentence naming the file)."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return f"{path} is larger than {MAX_FILE_BYTES // 1024} KB; it was skipped."
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return f"{path} is not UTF-8 text; it was skipped."
    except OSError as exc:
        return f"cannot read {path}: {exc.strerror or exc}; it was skipped."
    parsed = parse_front_matter(text)
    if isinstance(parsed, str):
        return f"{path}: {parsed}; it was skipped."
    fields, body = parsed
    name = fields.get("name", path.stem)
    if not isinstance(name, str) or not NAME.match(name):
        return (
            f"{path}: name {name!r} is not a valid agent name (letters, digits, '-', '_', '.'); "
            "it was skipped."
        )
    description = fields.get("description", "")
    if not isinstance(description, str):
        return f"{path}: description must be text; it was skipped."
    tools = fields.get("tools")
    names: tuple[str, ...] | None
    if tools is None or tools == "" or tools == "*":
        names = None
    elif isinstance(tools, str):
        names = tuple(t.strip() for t in tools.split(",") if t.strip())
    else:
        names = tuple(tools)
    if names is not None:
        names = tuple(dict.fromkeys(CLAUDE_NAMES.get(n.lower(), n) for n in names))
    model = fields.get("model")
    if model is not None and not isinstance(model, str):
        return f"{path}: model must be text; it was skipped."
    return AgentDefinition(
        name=name,
        description=" ".join(description.split()),
        tools=names,
        model=model or None,
        prompt=body.strip(),
        scope=scope,
        path=path,
    )


def parse_front_matter(text: str) -> tuple[dict[str, str | list[str]], str] | str:
    """The fields and the body of a Markdown file with a ``---`` front matter, read as
    command files are (``core.commands.frontmatter``: ``key: value``, ``[a, b]`` and
    ``- item`` lists, block scalars). A nested block under a key this file does not read (a
    Claude Code agent's ``hooks:`` map) is left out; under one it reads, it is a problem.
    A problem is returned as a sentence."""
    text = text.lstrip("\ufeff")
    if text.split("\n", 1)[0].strip() != "---":
        return "no front matter (the file must start with a line '---')"
    try:
        raw, body = split(text)
    except FrontMatterError as exc:
        return (
            "the front matter is not closed (no second '---' line)"
            if "never closed" in str(exc)
            else f"front matter {exc}"
        )
    fields: dict[str, str | list[str]] = {}
    for key, value in raw.items():
        key = key.lower()
        if isinstance(value, Nested):
            if key in READ_KEYS:
                return f"line {value.line} of the front matter: {key} must be text or a list"
            continue  # hooks:, permissions… of Claude Code: not read here
        fields[key] = value
    for name in ("name", "description", "model"):
        if fields.get(name) in ([], ""):
            del fields[name]
    return fields, body
