"""``/help``: every command with where it comes from and what it does, as text."""

from __future__ import annotations

from collections.abc import Iterable

from agent_tui.core.commands.spec import Command


def help_text(commands: Iterable[Command], problems: Iterable[str] = ()) -> str:
    listed = list(commands)
    width = max((len(c.usage) for c in listed), default=0)
    source_width = max((len(c.source) for c in listed), default=0)
    lines = ["Commands (type / for completion; // sends a literal /):"]
    for command in listed:
        aliases = f" (also /{', /'.join(command.aliases)})" if command.aliases else ""
        lines.append(
            f"  {command.usage.ljust(width)}  {command.source.ljust(source_width)}  "
            f"{command.description}{aliases}"
        )
    problems = list(problems)
    if problems:
        lines.append("Skipped:")
        lines.extend(f"  {p}" for p in problems)
    lines.append(log_line())
    return "\n".join(lines)


def log_line() -> str:
    """Where this run logs what went wrong (``core.state.logfile``), or why it does not."""
    from agent_tui.core.state import logfile

    log = logfile.current()
    if log is None:
        return "Log: none in this run"
    if log.path is None:
        return f"Log: {log.problem}"
    more = " (with --debug)" if log.debug else " (agent-tui --debug writes more)"
    return f"Log: {log.path}{more}"


def markdown_table(commands: Iterable[Command]) -> str:
    """The built-in commands as the table in docs/extensions.md (a test keeps the two equal)."""
    rows = ["| command | what it does | headless |", "|---|---|---|"]
    for command in commands:
        aliases = f" (also `/{'`, `/'.join(command.aliases)}`)" if command.aliases else ""
        rows.append(
            f"| `{command.usage}` | {command.description}{aliases} | "
            f"{'yes' if command.headless else 'no'} |"
        )
    return "\n".join(rows)
