"""Human-readable pydantic validation errors for configuration files (one line per problem)."""

from __future__ import annotations

from pydantic import ValidationError

from agent_tui.core.tools.schema import describe_validation_error


def format_validation_error(error: ValidationError, at: tuple[int | str, ...] = ()) -> str:
    """One indented ``  - $.path: what is wrong (got …)`` line per problem; ``at`` is where
    the validated value sits in its file (``("ui",)``: ``$.ui.theme``)."""
    return "\n".join(f"  - {line}" for line in describe_validation_error(error, at))
