"""What an expanded tool card shows: the input as a person reads it, then the full content the
model saw — an edit as a coloured diff, an error with its code, details and next step.
"""

from __future__ import annotations

from textual.content import Content

from agent_tui.core.text.summary import plural
from agent_tui.ui.calls.details import describe_call
from agent_tui.ui.calls.diff_view import diff_content
from agent_tui.ui.calls.plan_view import steps_content, steps_of
from agent_tui.ui.calls.state import STATUS_GLYPH, STATUS_STYLE, CallState, CallStatus

MAX_BODY_LINES = 2000


def _label(text: str) -> Content:
    return Content.styled(text, "bold $foreground-muted")


def _text(text: str) -> Content:
    lines = text.splitlines()
    if len(lines) > MAX_BODY_LINES:
        more = len(lines) - MAX_BODY_LINES
        lines = [*lines[:MAX_BODY_LINES], f"… {more:,} more lines (c copies them all)"]
    return Content("\n".join(lines))


def spill_content(call: CallState) -> Content | None:
    """The pointer to a spilled output, with the key that opens it."""
    if call.spill is None:
        return None
    return Content.assemble(
        ("full output ", "$text-secondary"),
        (
            f"({plural(call.spill.lines, 'line')}, {plural(call.spill.chars, 'char')}): ",
            "$text-secondary",
        ),
        (call.spill.path, "bold $text-secondary"),
        ("  o opens it", "$foreground-muted"),
    )


def error_content(call: CallState) -> Content:
    """The structured error: the code highlighted, the message, details, what to do next."""
    message, *rest = (call.content or "").splitlines() or [""]
    rows = [
        Content.assemble((f" {call.code or 'error'} ", "bold $text-error on $error-muted"), " ")
        + Content.styled(message, "$text-error"),
    ]
    rows += [Content(f"  {line}") for line in call.details]
    if call.next_step:
        rows.append(Content.assemble(("next: ", "bold $foreground-muted"), call.next_step))
    elif rest and not call.details:
        rows += [Content(line) for line in rest]
    return Content("\n").join(rows)


def _input(call: CallState, *, with_changes: bool) -> Content:
    if call.input is None:
        return Content(call.raw_arguments or "(no arguments)")
    shown = call.input
    if not with_changes:  # the diff below shows the change: keep the path and the flags
        drop = {"old_string", "new_string", "content", "more_edits"}
        shown = {k: v for k, v in call.input.items() if k not in drop}
    return describe_call(call.name, shown)


def child_line(child: CallState) -> Content:
    """One call of a subagent, in its ``task`` card: state glyph, tool, input, outcome."""
    outcome = child.outcome if child.status.finished else child.status.label
    return Content.assemble(
        (f"{STATUS_GLYPH[child.status]} ", STATUS_STYLE[child.status]),
        (child.name, "bold"),
        "  ",
        (child.summary, "$foreground-muted"),
        *(("  · ", "$foreground-muted"), (outcome, "$text-secondary")) if outcome else (),
    )


def _children(call: CallState) -> list[Content]:
    if not call.children and call.agent is None:
        return []
    n = len(call.children)
    label = f"subagent {call.agent or ''} · {n} call{'s' if n != 1 else ''}".replace("  ", " ")
    return [Content(""), _label(label), *(child_line(c) for c in call.children)]


def body_content(call: CallState) -> Content:
    """The expanded card: input, then output (or the error, the rejection, the diff); a
    ``task`` call's card lists its subagent's calls between them."""
    diff = call.data.get("diff") if call.status is CallStatus.OK else None
    steps = steps_of(call.data) if call.status is CallStatus.OK else None
    if steps is not None:  # an update_plan: the plan it set, as the panel shows it
        return steps_content(steps)
    parts = [_input(call, with_changes=not diff), *_children(call)]
    status = call.status
    if isinstance(diff, str) and diff:
        summary = (call.content or "").splitlines()[:1]
        parts += [Content(""), _label(summary[0] if summary else "diff"), diff_content(diff)]
    elif status in (CallStatus.ERROR, CallStatus.INTERRUPTED):
        parts += [Content(""), error_content(call)]
    elif status is CallStatus.REJECTED:
        parts += [Content(""), _label(f"rejected by {call.rejected_by}"), _text(call.content)]
    elif call.content:
        label = "output so far" if status is CallStatus.RUNNING else "output (what the model saw)"
        if call.children or call.agent is not None:
            label = "report (what the model saw)"
        parts += [Content(""), _label(label), _text(call.content)]
    if (pointer := spill_content(call)) is not None:
        parts += [Content(""), pointer]
    return Content("\n").join(parts)
