"""The models the palette offers: the demo, and those the environment has keys for."""

from __future__ import annotations

import os
from collections.abc import Mapping

from agent_tui.core.providers.spec import DEFAULT_ANTHROPIC_MODEL


def model_specs(current: str, env: Mapping[str, str] | None = None) -> list[str]:
    """``demo``, ``openai:MODEL`` when an OpenAI-compatible endpoint is configured,
    ``anthropic:MODEL`` when an Anthropic key is set, and the current model."""
    env = os.environ if env is None else env
    specs = ["demo"]
    if env.get("AGENT_API_KEY") or env.get("AGENT_BASE_URL"):
        specs.append(f"openai:{env.get('AGENT_MODEL', '')}".rstrip(":"))
    if env.get("ANTHROPIC_API_KEY"):
        specs.append(f"anthropic:{DEFAULT_ANTHROPIC_MODEL}")
    if current and current not in specs:
        specs.append(current)
    return specs
