"""The ``shell`` section of the settings: how ``run_shell`` starts its commands."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agent_tui.core.empty import empty_list
from agent_tui.core.sandbox.environment import check_names


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
    env: list[str] = Field(
        default_factory=empty_list,
        description="More environment variables sandboxed commands (and sandboxed hooks) get, "
        "by name (GITHUB_TOKEN) or prefix (MYAPP_*): they get only PATH, HOME, LANG, LC_*, "
        "TERM and a few toolchain variables otherwise. A prefix never passes a secret-looking "
        "name (*_TOKEN, *_KEY, *SECRET*, *PASSWORD*…); the agent's own provider keys "
        "(AGENT_API_KEY, ANTHROPIC_API_KEY, OPENAI_API_KEY…) never pass. Only your user "
        "settings may set it (a repository ships its project settings).",
    )

    @field_validator("env")
    @classmethod
    def _names(cls, value: list[str]) -> list[str]:
        wrong = check_names(value)
        if wrong:
            raise ValueError(
                f"not variable names: {', '.join(map(repr, wrong))} (use NAME or a prefix "
                "such as MYAPP_*)"
            )
        return value

    @staticmethod
    def user_only(section: dict[str, object]) -> list[str]:
        """The keys of a ``shell`` settings object only the user's own file may set: a
        project's ``env`` would let a repository pass the user's secrets to its commands."""
        return ["env"] if section.get("env") else []
