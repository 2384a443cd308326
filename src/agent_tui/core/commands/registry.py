"""The one command registry: built-ins, custom command files and MCP prompts, and parsing
what the user typed into an invocation.

``parse`` decides what a prompt is: ``/word args`` names a command (``Invocation``) or is an
unknown one (``Unknown``, with close matches; it never reaches the model); anything else is
``Plain`` text for the model — also ``//text`` (sent as ``/text``) and a path-like
``/usr/bin/x is slow`` (a second ``/`` in the first word).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from agent_tui.core.commands.custom import CustomCommand, Location, load, locations
from agent_tui.core.commands.mcp_prompts import McpPrompt
from agent_tui.core.commands.spec import BUILTINS, Command

WORD = re.compile(r"^[A-Za-z][A-Za-z0-9_.:-]*$")


@dataclass(frozen=True)
class Plain:
    """Text for the model, as it is to be sent."""

    text: str


@dataclass(frozen=True)
class Invocation:
    command: Command
    args: str
    """Everything after the command's name, stripped."""


@dataclass(frozen=True)
class Unknown:
    name: str
    close: tuple[str, ...] = ()

    @property
    def message(self) -> str:
        said = f"Unknown command /{self.name}"
        if self.close:
            said += " — did you mean " + ", ".join(f"/{c}" for c in self.close) + "?"
        return said + " (/help lists them; start with // to send a literal /)"


Parsed = Plain | Invocation | Unknown


def split_command(text: str) -> tuple[str, str] | None:
    """``(name, args)`` when ``text`` is shaped as a command, else None."""
    if not text.startswith("/") or text.startswith("//"):
        return None
    head, _, rest = text[1:].partition(" ")
    head, sep, tail = head.partition("\n")
    if sep:
        rest = tail + (" " + rest if rest else "")
    if not WORD.match(head):
        return None
    return head, rest.strip()


def custom_command(custom: CustomCommand) -> Command:
    return Command(
        custom.name,
        custom.description,
        hint=custom.argument_hint,
        headless=True,
        aliases=(custom.short,) if custom.short else (),
        source=custom.source,
        custom=custom,
    )


def prompt_command(prompt: McpPrompt) -> Command:
    return Command(
        prompt.command,
        prompt.description or f"the prompt {prompt.name!r} of the MCP server {prompt.server}",
        hint=prompt.hint,
        headless=True,
        source=f"mcp: {prompt.server}",
        mcp=prompt,
    )


class CommandRegistry:
    """Every command the prompt knows, strongest first: built-ins, custom files (project over
    user), skills (``core.skills.skill_commands``, given by the front end), MCP prompts.
    ``problems`` says which files were skipped and what was shadowed."""

    def __init__(
        self,
        builtins: Sequence[Command] = BUILTINS,
        *,
        prompts: Callable[[], Iterable[McpPrompt]] = tuple,
        skills: Callable[[], Iterable[Command]] = tuple,
    ) -> None:
        self.builtins = tuple(builtins)
        self._prompts = prompts
        self._skills = skills
        self.custom: tuple[Command, ...] = ()
        self.problems: list[str] = []
        self._names = {n for c in self.builtins for n in (c.name, *c.aliases)}

    @classmethod
    def for_workspace(
        cls,
        cwd: Path,
        *,
        config: Path | None = None,
        home: Path | None = None,
        prompts: Callable[[], Iterable[McpPrompt]] = tuple,
        skills: Callable[[], Iterable[Command]] = tuple,
    ) -> CommandRegistry:
        """The built-ins, the command files of ``cwd``, the user's config dir and home."""
        from agent_tui.core.state.paths import config_dir

        registry = cls(prompts=prompts, skills=skills)
        if home is None:
            try:
                home = Path.home()
            except RuntimeError:
                home = None
        registry.load_custom(locations(cwd, config or config_dir(), home))
        return registry

    def load_custom(self, dirs: Iterable[Location]) -> list[str]:
        """(Re)load the custom commands of ``dirs``; returns the problems."""
        loaded = load(dirs, reserved=self._names)
        problems = list(loaded.problems)
        kept = []
        for custom in loaded.commands:
            if custom.name in self._names:
                problems.append(
                    f"command /{custom.name} of {custom.path} is shadowed by the built-in "
                    f"/{custom.name}"
                )
                continue
            kept.append(custom_command(custom))
        self.custom = tuple(kept)
        self.problems = problems
        return problems

    def skills(self) -> list[Command]:
        """The skills' commands a built-in or a command file does not shadow."""
        taken = self._names | {c.name for c in self.custom}
        return [c for c in self._skills() if c.name not in taken]

    def prompts(self) -> list[Command]:
        taken = self._names | {n for c in self.custom for n in (c.name, *c.aliases)}
        found: dict[str, Command] = {}
        for prompt in self._prompts():
            command = prompt_command(prompt)
            if command.name not in taken:
                found.setdefault(command.name, command)
        return [found[name] for name in sorted(found)]

    def commands(self) -> list[Command]:
        return [*self.builtins, *self.custom, *self.skills(), *self.prompts()]

    def palette_commands(self) -> list[Command]:
        return [c for c in self.builtins if c.palette]

    def find(self, name: str) -> Command | None:
        for command in self.builtins:
            if name == command.name or name in command.aliases:
                return command
        for command in (*self.custom, *self.skills()):
            if command.name == name:
                return command
        for command in self.custom:
            if name in command.aliases:
                return command
        if name.startswith("mcp__"):
            for command in self.prompts():
                if command.name == name:
                    return command
        return None

    def parse(self, text: str) -> Parsed:
        if text.startswith("//"):
            return Plain(text[1:])
        split = split_command(text)
        if split is None:
            return Plain(text)
        name, args = split
        command = self.find(name)
        if command is not None:
            return Invocation(command, args)
        return Unknown(name, self.close_to(name))

    def close_to(self, name: str, limit: int = 3) -> tuple[str, ...]:
        import difflib  # only an unknown command asks (issue 45: not on every start)

        names = [n for c in self.commands() for n in (c.name, *c.aliases)]
        lowered = name.lower()
        starts = [n for n in names if n.startswith(lowered) or lowered.startswith(n)]
        close = difflib.get_close_matches(lowered, names, n=limit, cutoff=0.6)
        return tuple(dict.fromkeys([*close, *starts]))[:limit]
