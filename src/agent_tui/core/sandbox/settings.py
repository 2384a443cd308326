"""``"sandbox"`` in the settings files (``SandboxSettings``), and which of its keys a project's
own settings may not set because they would weaken the sandbox (``loosening``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from agent_tui.core.empty import empty_list

SandboxMode = Literal["auto", "required", "off"]


class SandboxSettings(BaseModel):
    """``"sandbox"`` in the settings files."""

    model_config = ConfigDict(extra="forbid")

    mode: SandboxMode = "auto"
    """``auto``: on where it works (a notice says when it does not); ``required``: no command
    runs without it; ``off``: commands run as the user, unconfined."""
    network: Literal["off", "on"] = "off"
    """``off``: no network at all inside the sandbox (not even 127.0.0.1); ``on``: shared."""
    allow_write: list[str] = Field(default_factory=empty_list)
    """More paths commands may write (the workspace and a private /tmp always are)."""
    deny_read: list[str] = Field(default_factory=empty_list)
    """Paths hidden from commands (as well as the files of ``read_file`` deny rules)."""
    allow_read: list[str] = Field(default_factory=empty_list)
    """Paths of the (otherwise hidden) home directory commands may read (``~/.m2``…)."""
    auto_allow: bool = False
    """Commands the sandbox confines run without asking, unless a deny or ask rule (or a
    check that asks in every mode) says otherwise; commands that need the network or write
    outside the sandbox still ask (``permissions.shell_judge``)."""

    @staticmethod
    def loosening(section: dict[str, object]) -> list[str]:
        """The keys of a ``sandbox`` settings object that would weaken the sandbox: a file a
        repository can ship (the project's settings) may not set them."""
        out = []
        if section.get("mode") in ("off", "auto"):  # "auto" too: it loosens "required"
            out.append("mode")
        if section.get("network") == "on":
            out.append("network")
        for key in ("allow_write", "allow_read"):
            if section.get(key):
                out.append(key)
        if section.get("auto_allow") is True:
            out.append("auto_allow")
        return out
