"""The ``budget`` section of the settings: how much tool output the model sees per request."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator


class LogCompressionSettings(BaseModel):
    """Importance-based folding of build/test logs before the budget (see ``compress``)."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    """Fold the noise of long build and test logs (false: every log goes to the budget whole)."""
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
    """The most characters of one tool result the model reads; a bigger one is spilled."""
    per_turn_chars: int = Field(default=100_000, ge=2_000)
    """The most characters of the turn's tool results the model reads; past it the largest
    results are spilled."""
    preview_chars: int = Field(default=2_000, ge=200)
    """About how many characters of a spilled result the model gets as its excerpt."""
    spill_dir: str = Field(
        default=".agent-spill",
        min_length=1,
        description="Where spilled outputs are saved; relative paths are inside the session cwd "
        "(a project's settings may only name one inside it).",
    )
    spill_grace_seconds: float = Field(
        default=3600.0,
        ge=0,
        description="A spill no session points to any more is deleted once it is this old.",
    )
    spill_unclaimed_days: float = Field(
        default=30.0,
        ge=0,
        description="A spill no reference record knows (written before agent-tui kept them, "
        "or by an older agent-tui) and no session of this data dir points to is deleted once "
        "it is this old: a session of another data dir may still point to it.",
    )
    log_compression: LogCompressionSettings = Field(default_factory=LogCompressionSettings)

    @staticmethod
    def escaping(section: dict[str, object]) -> list[str]:
        """The keys of a ``budget`` settings object that a project's files (which a repository
        ships) may not set: a ``spill_dir`` that would make the agent write outside the
        workspace (absolute, starting with ``~`` or climbing with ``..``), and retention
        periods shorter than the defaults (a project may keep spills longer, never delete the
        user's sooner)."""
        keys = []
        value = section.get("spill_dir")
        if isinstance(value, str):
            parts = value.replace("\\", "/").split("/")
            if value.startswith(("/", "~")) or ".." in parts:
                keys.append("spill_dir")
        for key in ("spill_grace_seconds", "spill_unclaimed_days"):
            period = section.get(key)
            if period is None:
                continue
            try:
                shorter = float(period) < BudgetSettings.model_fields[key].default  # type: ignore[arg-type]
            except (TypeError, ValueError):  # not a number: the section's validation says so
                continue
            if shorter:
                keys.append(key)
        return keys

    @model_validator(mode="after")
    def _preview_fits(self) -> BudgetSettings:
        if self.preview_chars * 2 > self.per_result_chars:
            raise ValueError(
                f"preview_chars ({self.preview_chars}) must be at most half of "
                f"per_result_chars ({self.per_result_chars}): an excerpt and its pointer must "
                "fit well inside the cap"
            )
        return self
