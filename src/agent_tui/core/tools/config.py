"""The ``shell`` section of the settings: how ``run_shell`` starts its commands."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ShellSettings(BaseModel):
    """The environment of ``run_shell``'s commands."""

    model_config = ConfigDict(extra="forbid")

    color: bool = Field(
        default=False,
        description="Let commands colour their output: false (the default) tells them not to "
        "(NO_COLOR=1, FORCE_COLOR=0, CLICOLOR=0, NODE_DISABLE_COLORS=1; CLICOLOR_FORCE "
        "removed); true leaves the colour variables of the environment as they are. The model "
        "reads the output without escape codes either way; a spill keeps them.",
    )
