"""Custom commands: Markdown files whose body is a prompt for the model.

Where they come from, strongest first: the project's ``.agent-tui/commands/``, the project's
``.claude/commands/`` (Claude Code's), the user's ``<config dir>/commands/`` and
``~/.claude/commands/``. ``review.md`` is ``/review``; ``git/commit.md`` is ``/git:commit`` and
also ``/commit`` (its ``short`` name) unless that name is taken: by a built-in, by a file
named ``commit.md`` at the top of any location, or by an earlier subfolder file (strongest
location first, then path order); the loser keeps its full name and the choice is reported.
Front matter (``frontmatter``) may give ``description``, ``argument-hint`` (text or a list),
``allowed-tools`` and ``model``; other keys (``hooks:``, ``disable-model-invocation``…) are
named once in the problems and the file still loads. The arguments go into the body as
``arguments`` says (Claude Code's dialect for Claude Code's files, ours for ours).

A file that cannot be used (not UTF-8, over ``MAX_BYTES``, bad front matter, a key it uses
given as a nested map, a name that is not a command name, a link leading out of its
directory) is reported and skipped; the others load. A project's files are repository data:
they only ever become a prompt the user chose to send, and their shell lines
(``shell_lines``) only run as calls the permission rules judge. ``allowed-tools`` and
``model`` apply to the turn the command starts (``grants``: a project's ``allowed-tools``
only once trusted). A project's file that names a ``script:PATH`` model (a local file that
would script the model) is skipped.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.core.commands.arguments import CLAUDE_SOURCES, substitute
from agent_tui.core.commands.frontmatter import FrontMatterError, Nested, split, split_top
from agent_tui.core.state.model_spec import names_script
from agent_tui.core.state.paths import Location as Location
from agent_tui.core.state.paths import extension_dirs

MAX_BYTES = 256 * 1024
"""A command file larger than this is refused (a prompt, not a data dump)."""
MAX_FILES = 500
"""Files read per directory at most (the rest are reported)."""
MAX_DEPTH = 4
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
COLON_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*(?::[A-Za-z0-9][A-Za-z0-9_.-]*)+$")
"""A file named with Claude Code's old folder form (``svelte:a11y.md``, as command suites
ship them): it answers to that name as written, wherever it lies."""
FIELDS = ("description", "argument-hint", "allowed-tools", "model")
PROJECT_SOURCES = frozenset({"project", "claude"})
"""Locations a repository ships (``locations``): their files may not name a script model."""


@dataclass(frozen=True)
class CustomCommand:
    name: str
    path: Path
    source: str
    body: str
    description: str = ""
    argument_hint: str = ""
    allowed_tools: tuple[str, ...] = ()
    model: str = ""
    short: str = ""
    """The name without its folders (``commit`` of ``git:commit``), when it is this
    command's: ``/commit`` runs it too. Empty for a file at the top of its location."""

    @property
    def claude(self) -> bool:
        """A Claude Code file (``.claude/commands/``, ``~/.claude/commands/``)."""
        return self.source in CLAUDE_SOURCES

    def render(self, arguments: str) -> str:
        """The prompt for ``/name arguments``."""
        return substitute(self.body.strip("\n"), arguments, claude=self.claude)


def locations(cwd: Path, config: Path, home: Path | None) -> list[Location]:
    """The command directories, strongest first (``extension_dirs``)."""
    return extension_dirs("commands", cwd, config, home)


@dataclass
class Loaded:
    commands: list[CustomCommand] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def load(dirs: Iterable[Location], reserved: Iterable[str] = ()) -> Loaded:
    """Every usable command file of ``dirs``; the first directory naming a command wins (a
    shadowed one is reported). Broken files are reported and skipped. A command in a
    subfolder also gets its short name unless ``reserved`` (the built-ins) or another
    command has it (see the module docstring)."""
    loaded = Loaded()
    by_name: dict[str, CustomCommand] = {}
    for location in dirs:
        for name, path, problem in _files(location.path):
            if problem is not None:
                loaded.problems.append(problem)
                continue
            command = _read(name, path, location.source, loaded.problems)
            if command is None:
                continue
            winner = by_name.get(name)
            if winner is not None:
                loaded.problems.append(
                    f"command /{name} of {path} is shadowed by {winner.path} ({winner.source})"
                )
                continue
            by_name[name] = command
            loaded.commands.append(command)
    loaded.commands = _with_short_names(loaded.commands, set(reserved), loaded.problems)
    loaded.commands.sort(key=lambda c: c.name)
    return loaded


def _with_short_names(
    commands: list[CustomCommand], reserved: set[str], problems: list[str]
) -> list[CustomCommand]:
    """``commands`` (in load order: strongest location first, then path order) with the
    short names they win."""
    taken = reserved | {c.name for c in commands}
    owner: dict[str, CustomCommand] = {}
    out: list[CustomCommand] = []
    for command in commands:
        short = command.name.rsplit(":", 1)[-1]
        if short == command.name:
            out.append(command)
            continue
        if short in owner:
            problems.append(
                f"/{short} runs /{owner[short].name} ({owner[short].path}); /{command.name} "
                f"({command.path}) keeps only its full name"
            )
        elif short in taken:
            holder = "a built-in" if short in reserved else "a command file of that name"
            problems.append(
                f"/{short} is {holder}; /{command.name} ({command.path}) keeps only its full name"
            )
        else:
            owner[short] = command
            command = CustomCommand(**{**command.__dict__, "short": short})
        out.append(command)
    return out


def _files(root: Path) -> list[tuple[str, Path, str | None]]:
    """(command name, file, problem) of the ``*.md`` files below ``root``, sorted."""
    if not root.is_dir():
        return []
    try:
        real_root = root.resolve()
    except OSError:
        return []
    found: list[tuple[str, Path, str | None]] = []
    count = 0
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        depth = len(here.relative_to(root).parts)
        dirnames[:] = (
            sorted(d for d in dirnames if not d.startswith(".")) if depth < MAX_DEPTH else []
        )
        for filename in sorted(filenames):
            if not filename.endswith(".md"):
                continue
            path = here / filename
            count += 1
            if count > MAX_FILES:
                found.append(
                    ("", path, f"{root}: more than {MAX_FILES} command files; the rest are skipped")
                )
                return found
            parts = [*path.relative_to(root).parent.parts, filename[: -len(".md")]]
            if COLON_NAME.match(parts[-1]) and all(NAME.match(p) for p in parts[:-1]):
                parts = [parts[-1]]  # svelte/svelte:a11y.md is /svelte:a11y
                bad = None
            else:
                bad = next((p for p in parts if not NAME.match(p)), None)
            if bad is not None:
                found.append(
                    (
                        "",
                        path,
                        f"command file {path} is skipped: {bad!r} is not a command name "
                        "(letters, digits, . _ -)",
                    )
                )
                continue
            try:
                inside = path.resolve().is_relative_to(real_root)
            except OSError:
                inside = False
            if not inside:
                found.append(("", path, f"command file {path} is skipped: it links outside {root}"))
                continue
            found.append((":".join(parts), path, None))
    return found


def _read(name: str, path: Path, source: str, problems: list[str]) -> CustomCommand | None:
    def skip(why: str) -> None:
        problems.append(f"command file {path} is skipped: {why}")

    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            skip(f"it is {size:,} bytes (at most {MAX_BYTES:,})")
            return None
        with path.open("rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        skip(f"cannot read it: {exc.strerror or exc}")
        return None
    if len(raw) > MAX_BYTES:
        skip(f"it is over {MAX_BYTES:,} bytes")
        return None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        skip(f"it is not UTF-8 text (byte {exc.start})")
        return None
    if "\x00" in text:
        skip("it holds NUL bytes (not a text file)")
        return None
    try:
        fields, body = split(text)
    except FrontMatterError as exc:
        skip(f"bad front matter: {exc}")
        return None
    values: dict[str, str] = {}
    tools: tuple[str, ...] = ()
    ignored: list[str] = []
    for key, value in fields.items():
        if key not in FIELDS:
            ignored.append(key)
        elif isinstance(value, Nested):
            skip(f"bad front matter: {key} (line {value.line}) is a nested map, not text")
            return None
        elif key == "allowed-tools":
            items = value if isinstance(value, list) else split_top(value)
            tools = tuple(items)
        elif key == "argument-hint" and isinstance(value, list):
            values[key] = " ".join(f"[{' '.join(item.split())}]" for item in value)
        elif isinstance(value, list):
            skip(f"bad front matter: {key} is a list, not text")
            return None
        else:
            values[key] = " ".join(value.split())
    if not body.strip():
        skip("its body is empty (the body is the prompt)")
        return None
    if ignored:
        problems.append(
            f"command file {path}: front matter not applied here: {', '.join(ignored)} "
            "(the command loads without it)"
        )
    model = values.get("model", "")
    if model and source in PROJECT_SOURCES and names_script(model):
        skip(
            f"model {model!r} names a script, which a project's command file may not (the "
            "repository would script the model's answers and tool calls); copy the file to "
            "your own commands directory if you trust it"
        )
        return None
    return CustomCommand(
        name=name,
        path=path,
        source=source,
        body=body,
        description=values.get("description", "") or _first_line(body),
        argument_hint=values.get("argument-hint", ""),
        allowed_tools=tools,
        model=model,
    )


def _first_line(body: str) -> str:
    line = next((ln.strip() for ln in body.splitlines() if ln.strip()), "")
    line = line.lstrip("#").strip()
    return line if len(line) <= 80 else line[:79] + "…"
