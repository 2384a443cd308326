"""The ``disclosure`` settings section."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, field_validator

_DEFERRED = re.compile(r"^(off|auto:\d+)$")
DEFAULT_THRESHOLD = 10


class DisclosureSettings(BaseModel):
    """Which tools the model sees every turn (direct) and which it finds with search_tool."""

    model_config = ConfigDict(extra="forbid")

    deferred: str = Field(default=f"auto:{DEFAULT_THRESHOLD}")
    """``auto:N``: MCP tools are deferred when there are more than N tools in all (``auto:0``
    always defers them); ``off``: every tool is direct."""
    promote: list[str] = Field(default_factory=list)
    """Tools (names or ``mcp__server__*``) that are direct from the first turn of a session."""
    always_load: list[str] = Field(default_factory=list)
    """MCP servers whose tools are always direct."""

    @field_validator("deferred")
    @classmethod
    def _check(cls, value: str) -> str:
        value = value.strip().lower()
        if not _DEFERRED.match(value):
            raise ValueError("use 'auto:N' (N a whole number, e.g. auto:10) or 'off'")
        return value

    @property
    def threshold(self) -> int | None:
        """None when disclosure is off."""
        return None if self.deferred == "off" else int(self.deferred.split(":", 1)[1])
