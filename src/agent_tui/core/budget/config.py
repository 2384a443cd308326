"""The ``budget`` section of the settings: how much tool output the model sees per request."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator


class LogCompressionSettings(BaseModel):
    """Importance-based folding of build/test logs before the budget (see ``compress``)."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    tools: list[str] = Field(
        default_factory=lambda: ["run_shell"],
        description="Tools whose output is a log and may be compressed.",
    )
    min_lines: int = Field(default=40, ge=1, description="Shorter outputs are left untouched.")
    min_savings: float = Field(
        default=0.15, ge=0.0, le=1.0, description="Smaller savings leave the output untouched."
    )
    context: int = Field(default=2, ge=0, le=20, description="Lines kept around each anchor.")


class BudgetSettings(BaseModel):
    """Per-result cap and per-turn total, in characters of what the model reads."""

    model_config = ConfigDict(extra="forbid")

    per_result_chars: int = Field(default=50_000, ge=2_000)
    per_turn_chars: int = Field(default=100_000, ge=2_000)
    preview_chars: int = Field(default=2_000, ge=200)
    spill_dir: str = Field(
        default=".agent-spill",
        min_length=1,
        description="Where spilled outputs are saved; relative paths are inside the session cwd "
        "(a project's settings may only name one inside it).",
    )
    log_compression: LogCompressionSettings = Field(default_factory=LogCompressionSettings)

    @staticmethod
    def escaping(section: dict[str, object]) -> list[str]:
        """The keys of a ``budget`` settings object that would make the agent write outside
        the workspace: a project's files (which a repository ships) may not set them. A
        ``spill_dir`` that is absolute, starts with ``~`` or climbs with ``..`` is one."""
        value = section.get("spill_dir")
        if not isinstance(value, str):
            return []
        parts = value.replace("\\", "/").split("/")
        if value.startswith(("/", "~")) or ".." in parts:
            return ["spill_dir"]
        return []

    @model_validator(mode="after")
    def _preview_fits(self) -> BudgetSettings:
        if self.preview_chars * 2 > self.per_result_chars:
            raise ValueError(
                f"preview_chars ({self.preview_chars}) must be at most half of "
                f"per_result_chars ({self.per_result_chars}): an excerpt and its pointer must "
                "fit well inside the cap"
            )
        return self
