"""What a ``--model SPEC`` names, without building the provider (``providers.spec`` builds it).

Pure string work on the spec and the environment, so the TUI's first frame can show the model
before the providers (HTTP client, SDK types) are imported.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-4-5"


def default_spec(env: Mapping[str, str] | None = None) -> str:
    """The spec used when none is given: ``AGENT_MODEL``/``AGENT_API_KEY`` select an
    OpenAI-compatible model, then ``ANTHROPIC_API_KEY`` an Anthropic one, else the demo."""
    env = os.environ if env is None else env
    if env.get("AGENT_API_KEY") or env.get("AGENT_BASE_URL"):
        return f"openai:{env.get('AGENT_MODEL', '')}"
    if env.get("ANTHROPIC_API_KEY"):
        return f"anthropic:{DEFAULT_ANTHROPIC_MODEL}"
    return "demo"


def spec_name(
    spec: str | None, *, cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> str:
    """The name the provider ``spec`` selects will have (``Provider.name``: ``demo``,
    ``openai:gpt-x``, ``script:/abs/path.json``), or the spec as written when it names no
    valid provider (building it will say why)."""
    env = os.environ if env is None else env
    spec = (spec or default_spec(env)).strip()
    kind, _, rest = spec.partition(":")
    kind = kind.lower()
    if kind == "demo":
        return "demo"
    if kind == "script" and rest:
        path = Path(rest).expanduser()
        if not path.is_absolute() and cwd is not None:
            path = cwd / path
        return f"script:{path}"
    if kind == "openai":
        return f"openai:{rest or env.get('AGENT_MODEL', '')}"
    if kind == "anthropic":
        return f"anthropic:{rest or DEFAULT_ANTHROPIC_MODEL}"
    return spec


def names_script(spec: str) -> bool:
    """Does ``spec`` name a ``script:PATH`` model (a local file that drives the agent: every
    answer and tool call)? A project file may not name one (``subagents``, ``commands``)."""
    kind = spec.strip().partition(":")[0]
    return kind.strip().lower() == "script"
