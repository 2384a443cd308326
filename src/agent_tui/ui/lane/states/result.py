"""*result*: a one-line outcome (lines read, files found, exit 0, ``+12 −3``), and the pointer to
the full output when it was spilled."""

from __future__ import annotations

from textual.content import Content

from agent_tui.core.text.summary import plural
from agent_tui.ui.calls.state import CallState, CallStatus
from agent_tui.ui.lane.states.base import StateView


class ResultView(StateView):
    DEFAULT_CSS = """
    ResultView.-failed { color: $error; }
    """

    def build(self, call: CallState, now: float) -> Content:
        failed = call.status is CallStatus.FAILED
        self.set_class(failed, "-failed")
        label = "failed" if failed else "ok"
        facts = call.facts
        if not failed and facts.added is not None and facts.removed is not None:
            outcome = Content.styled(f"+{facts.added}", "$success")
            if facts.created:
                outcome += Content(" · new file")
            else:
                outcome += Content.assemble(" ", (f"−{facts.removed}", "$error"))
        else:
            outcome = Content(call.outcome)
        line = Content.assemble(label, " · ", outcome) if call.outcome else Content(label)
        if call.allowed_by:
            line += Content(f" · {call.allowed_line}")
        if facts.sandboxed is not None:  # a shell command: where it ran, on a line of its own
            net = "network on" if facts.network else "no network"
            where = (
                Content.styled(f"⛉ sandboxed · {net}", "$text-success")
                if facts.sandboxed
                else Content.styled("not sandboxed", "$text-warning")
            )
            line = Content("\n").join([line, where])
        if facts.blocked:
            blocked = Content.styled(f"⚠ {facts.blocked}", "$text-warning")
            line = Content("\n").join([line, blocked])
        if call.spill is None:
            return line
        pointer = Content.assemble(  # the path is in the expanded card and in the notice of o
            ("⤷ full output spilled: ", "$text-secondary"),
            (plural(call.spill.lines, "line"), "bold $text-secondary"),
            ("  o opens", "$foreground-muted"),
        )
        return Content("\n").join([line, pointer])
