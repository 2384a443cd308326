"""What the agent is doing, as both status bars show it (the first frame's ``ShellStatus``
and the main screen's ``StatusBar``): apart from the bar, which the first frame does not
import."""

from __future__ import annotations

from enum import StrEnum


class Activity(StrEnum):
    STARTING = "starting"
    """The core is being built (the first frame, ``AgentApp(boot=…)``)."""
    IDLE = "idle"
    THINKING = "thinking"
    WRITING = "writing"
    RUNNING = "running tool"
    APPROVAL = "waiting for approval"
    INTERRUPTING = "interrupting"
    RETRYING = "retrying"
    """The model request failed before its reply began and waits to be sent again."""


def activity_text(activity: Activity) -> str:
    """``○ idle`` / ``● writing``: the activity as both status bars write it."""
    return f"{'○' if activity is Activity.IDLE else '●'} {activity.value}"


def activity_busy(activity: Activity) -> bool:
    """Whether the activity takes the busy colour (working, not idle or waiting on the user)."""
    return activity not in (Activity.IDLE, Activity.APPROVAL)


def mode_tone(mode: str) -> str | None:
    """The colour class of a permission mode: ``relaxed`` (fewer asks), ``plan``, or none."""
    return {"accept-edits": "relaxed", "bypass": "relaxed", "plan": "plan"}.get(mode)
