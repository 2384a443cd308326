"""``/context``: the next request part by part, as a few aligned lines for the chat."""

from __future__ import annotations

from agent_tui.core.conversation.context import ContextBreakdown, ContextPart
from agent_tui.ui.common.format import format_tokens, format_window


def _row(label: str, tokens: int, note: str = "") -> str:
    return f"  {label:<38} {format_tokens(tokens):>7}{'  ' + note if note else ''}"


def _part(part: ContextPart, unit: str) -> str:
    return _row(part.label, part.tokens, f"{part.count} {unit}{'s' * (part.count != 1)}")


def context_text(estimates: ContextBreakdown) -> str:
    """The header's figure and the total are one (the parts are scaled to it)."""
    parts = estimates.to_total()
    usage = parts.usage
    mark = "~" if usage.estimated else ""
    window = format_window(usage.window) + (
        " (a guess: unknown model)" if usage.guessed_window else ""
    )
    lines = [
        f"Context: {mark}{usage.percent}% of {window} — {mark}{format_tokens(usage.tokens)} tokens"
        + (" (estimated since the last response)" if usage.estimated else ""),
        _row(parts.system.label, parts.system.tokens),
    ]
    lines += [_row(f"memory: {m.label}", m.tokens) for m in parts.memory]
    saved = parts.tools_without_disclosure - parts.tools.tokens
    lines.append(
        _part(parts.tools, "tool")
        + (f"  (all direct: {format_tokens(parts.tools_without_disclosure)})" if saved > 0 else "")
    )
    lines += [
        _part(parts.user, "message"),
        _part(parts.assistant, "message"),
        _part(parts.tool_results, "result"),
    ]
    if parts.spilled.count:
        lines.append(_part(parts.spilled, "result") + "  (in the tool results above)")
    lines.append(_row("total", parts.total, "the parts scaled to it"))
    return "\n".join(lines)
