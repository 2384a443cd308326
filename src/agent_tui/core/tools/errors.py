"""Structured, model-readable tool errors: every failure says what happened and what to do next."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from agent_tui.core.empty import empty_list
from agent_tui.core.text.utf8 import clean

if TYPE_CHECKING:
    from agent_tui.core.budget.raw import RawOutput


class ToolErrorInfo(BaseModel):
    """What the model reads when a call fails.

    ``code`` tells it which branch it is on (fix the arguments, pick another tool, retry later);
    ``retryable`` says whether the same call may succeed if repeated. No lone surrogate
    (``core.text``): a path in a message may be a file name that is not valid UTF-8.
    """

    model_config = ConfigDict(defer_build=True)  # built by the first failure (issue 45)

    code: str
    message: str
    next_step: str = ""
    retryable: bool = False
    details: list[str] = Field(default_factory=empty_list)

    @model_validator(mode="before")
    @classmethod
    def _encodable(cls, data: Any) -> Any:
        return clean(data) if isinstance(data, dict) else data

    def to_model_text(self) -> str:
        """The text the model sees: a small JSON object, stable key order."""
        payload: dict[str, object] = {"error": self.message, "code": self.code}
        if self.details:
            payload["details"] = self.details
        if self.next_step:
            payload["next_step"] = self.next_step
        payload["retryable"] = self.retryable
        return json.dumps(payload, ensure_ascii=False, indent=1)


class ToolFailure(Exception):
    """Raised by a tool handler to fail with a precise, structured error (not a traceback)."""

    def __init__(
        self,
        code: str,
        message: str,
        next_step: str = "",
        *,
        retryable: bool = False,
        details: list[str] | None = None,
        raw: RawOutput | None = None,
        footer: str = "",
    ) -> None:
        super().__init__(message)
        self.raw = raw
        """The exact bytes of the output the failed call produced (a timed-out command's):
        a spill of the message saves these, whole."""
        self.footer = footer
        """The end of ``message`` every excerpt of it keeps (what happened, after the
        output)."""
        self.info = ToolErrorInfo(
            code=code,
            message=message,
            next_step=next_step,
            retryable=retryable,
            details=details or [],
        )


# Codes used by dispatch itself (tools add their own, e.g. ``not_found``, ``stale_file``).
UNKNOWN_TOOL = "unknown_tool"
INVALID_JSON = "invalid_json"
INVALID_ARGUMENTS = "invalid_arguments"
TOOL_EXCEPTION = "tool_exception"
TIMEOUT = "timeout"
CANCELLED = "cancelled"
