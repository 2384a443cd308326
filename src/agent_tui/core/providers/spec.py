"""``--model SPEC`` -> a provider: ``demo``, ``openai:MODEL``, ``anthropic:MODEL``, ``script:PATH``.

With no spec, ``AGENT_MODEL``/``AGENT_API_KEY`` select an OpenAI-compatible model, then
``ANTHROPIC_API_KEY`` an Anthropic one; with no key at all the offline demo runs.
"""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.providers.base import Frontend, Provider, ProviderError
from agent_tui.core.state.model_spec import DEFAULT_ANTHROPIC_MODEL as DEFAULT_ANTHROPIC_MODEL
from agent_tui.core.state.model_spec import default_spec as default_spec


def make_provider(
    spec: str | None, *, cwd: Path | None = None, frontend: Frontend = "tui"
) -> Provider:
    """Build the provider a spec names; a bad spec raises ProviderError saying what is valid.
    ``frontend``: where the run is shown (the demo model words its answers for it)."""
    spec = (spec or default_spec()).strip()
    kind, _, rest = spec.partition(":")
    kind = kind.lower()
    if kind == "demo":
        from agent_tui.core.providers.demo import DemoProvider

        return DemoProvider(frontend=frontend)
    if kind == "script":
        from agent_tui.core.providers.script import ScriptProvider

        if not rest:
            raise ProviderError("script: needs a path, e.g. --model script:session.json")
        path = Path(rest).expanduser()
        if not path.is_absolute() and cwd is not None:
            path = cwd / path
        return ScriptProvider(path)
    if kind == "openai":
        from agent_tui.core.providers.openai import OpenAIProvider

        return OpenAIProvider.from_env(rest)
    if kind == "anthropic":
        from agent_tui.core.providers.anthropic import AnthropicProvider

        return AnthropicProvider.from_env(rest or DEFAULT_ANTHROPIC_MODEL)
    raise ProviderError(
        f"unknown model spec {spec!r}: use demo, openai:MODEL, anthropic:MODEL or script:PATH"
    )
