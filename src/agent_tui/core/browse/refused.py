"""Why the spill browser refuses a spill: ``SpillRefused`` (what happened and what to do
instead), with the two refusals several steps share (``not_indexed``, ``gone``)."""

from __future__ import annotations


class SpillRefused(Exception):
    """A spill that cannot be opened or deleted: ``what`` happened, ``hint`` says what to do."""

    def __init__(self, kind: str, what: str, hint: str) -> None:
        super().__init__(f"{what} {hint}")
        self.kind = kind
        """outside, not_spill, missing, not_indexed, referenced (a live message), saved (a
        saved session), empty"""
        self.what = what
        self.hint = hint


def not_indexed(shown: str) -> SpillRefused:
    return SpillRefused(
        "not_indexed",
        f"{shown} has no valid line index (it is missing, or the file changed after it was saved).",
        "read_file still reads it, by scanning the whole file; the browser opens only indexed "
        "spills, so it never has to load one.",
    )


def gone(shown: str) -> SpillRefused:
    return SpillRefused(
        "missing",
        f"{shown} was deleted while it was open.",
        "Pick another spill from the list.",
    )
