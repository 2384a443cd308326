"""Permission modes, switchable at run time."""

from __future__ import annotations

from enum import StrEnum


class Mode(StrEnum):
    DEFAULT = "default"
    ACCEPT_EDITS = "accept-edits"
    PLAN = "plan"
    BYPASS = "bypass"

    @property
    def describe(self) -> str:
        return {
            Mode.DEFAULT: "asks before edits and commands",
            Mode.ACCEPT_EDITS: "file edits inside the workspace run; commands still ask",
            Mode.PLAN: "read-only: only tools that change nothing run",
            Mode.BYPASS: "no prompts, except what asks in every mode; deny rules still apply",
        }[self]

    def next(self) -> Mode:
        order = list(Mode)
        return order[(order.index(self) + 1) % len(order)]


def parse_mode(text: str) -> Mode:
    try:
        return Mode(text.strip().lower().replace("_", "-"))
    except ValueError:
        choices = ", ".join(m.value for m in Mode)
        raise ValueError(f"unknown permission mode {text!r}: use one of {choices}") from None
