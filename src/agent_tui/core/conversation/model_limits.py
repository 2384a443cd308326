"""How much a model can take: its context window and its output limit, per model family.

``model_limits(spec, settings)`` answers for a model spec as the user wrote it
(``openai:gpt-4o-2024-08-06``, ``anthropic:claude-sonnet-4-5``, ``openai:qwen2.5-coder:32b``,
``openai:anthropic/claude-3.5-sonnet`` through a router). Matching is by family prefix: the
provider prefix, a router's ``vendor/`` prefix, an Ollama ``:tag`` and date or version suffixes
are ignored, dots and dashes are the same (``claude-3.5`` is ``claude-3-5``), a family matches
the whole name or a prefix followed by ``-`` (``gpt-4`` is not ``gpt-4o``), and the longest
family that matches wins (``gpt-4o-mini`` before ``gpt-4o``). An unknown model gets
``DEFAULT_LIMITS``, a conservative guess marked ``source="default"``. The settings override
both (``"model": {"context_window": N, "max_output_tokens": M}``).

The figures are the vendors' published ones (checked against their model pages in 2025):
OpenAI's model docs (platform.openai.com/docs/models), Anthropic's models overview
(docs.anthropic.com/en/docs/about-claude/models), DeepSeek's pricing page
(api-docs.deepseek.com/quick_start/pricing), the Qwen model cards (Hugging Face ``Qwen/…``) and
Meta's Llama model cards; Ollama models take the window of their model card, which is what
``ollama show`` reports as ``context length``. Ollama *serves* a smaller window unless
``num_ctx`` is raised: set ``context_window`` in the settings to what the server really uses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from agent_tui.core.settings import ModelSettings

LimitsSource = Literal["table", "settings", "default"]


@dataclass(frozen=True)
class ModelLimits:
    """``context_window``: tokens of input plus output a request may use; ``max_output_tokens``:
    the most one response may produce; ``family``: the table entry that matched (None when
    unknown); ``source``: where the figures come from (``default`` is a guess)."""

    context_window: int
    max_output_tokens: int
    family: str | None = None
    source: LimitsSource = "table"

    @property
    def guessed(self) -> bool:
        return self.source == "default"


DEFAULT_LIMITS = ModelLimits(32_768, 4_096, None, "default")
"""For a model the table does not know: small enough that the meter warns early, not late."""

K = 1024
_TABLE: dict[str, tuple[int, int]] = {
    # -- OpenAI (platform.openai.com/docs/models) -------------------------------------------
    "gpt-5": (400_000, 128_000),  # gpt-5, -mini, -nano, -codex share these
    "gpt-5-chat": (128_000, 16_384),
    "gpt-4.1": (1_047_576, 32_768),  # gpt-4.1, -mini, -nano
    "gpt-4o": (128_000, 16_384),
    "gpt-4o-mini": (128_000, 16_384),
    "gpt-4-turbo": (128_000, 4_096),
    "gpt-4": (8_192, 8_192),
    "gpt-3.5-turbo": (16_385, 4_096),
    "o1": (200_000, 100_000),
    "o1-mini": (128_000, 65_536),
    "o3": (200_000, 100_000),
    "o3-mini": (200_000, 100_000),
    "o4-mini": (200_000, 100_000),
    "gpt-oss": (131_072, 131_072),  # gpt-oss-20b / -120b (open weights, also on Ollama)
    # -- Anthropic (docs.anthropic.com models overview; 1M-token betas not assumed) -----------
    "claude-3-haiku": (200_000, 4_096),
    "claude-3-opus": (200_000, 4_096),
    "claude-3-sonnet": (200_000, 4_096),
    "claude-3.5-sonnet": (200_000, 8_192),
    "claude-3.5-haiku": (200_000, 8_192),
    "claude-3.7-sonnet": (200_000, 64_000),
    "claude-sonnet-4": (200_000, 64_000),
    "claude-sonnet-4.5": (200_000, 64_000),
    "claude-opus-4": (200_000, 32_000),
    "claude-opus-4.1": (200_000, 32_000),
    "claude-opus-4.5": (200_000, 64_000),
    "claude-haiku-4.5": (200_000, 64_000),
    # -- DeepSeek (api-docs.deepseek.com; V3.x behind both names) ------------------------------
    "deepseek-chat": (128_000, 8_192),
    "deepseek-reasoner": (128_000, 64_000),
    "deepseek-coder": (128_000, 8_192),
    "deepseek-v3": (128_000, 8_192),
    "deepseek-r1": (128_000, 32_768),  # Ollama's distills: 128k window
    "deepseek-coder-v2": (160 * K, 8_192),
    # -- Qwen (Hugging Face model cards; native windows, YaRN extensions not assumed) ----------
    "qwen2.5": (32_768, 8_192),
    "qwen2.5-coder": (32_768, 8_192),
    "qwen3": (40_960, 8_192),  # Ollama's qwen3 tags: 40k
    "qwen3-coder": (262_144, 65_536),
    "qwen-max": (32_768, 8_192),
    "qwen-plus": (131_072, 8_192),
    "qwen-turbo": (1_000_000, 8_192),
    "qwq": (131_072, 8_192),
    # -- Meta Llama (model cards) -------------------------------------------------------------
    "llama3": (8_192, 4_096),
    "llama3.1": (131_072, 8_192),
    "llama3.2": (131_072, 8_192),
    "llama3.3": (131_072, 8_192),
    "llama-3": (8_192, 4_096),  # llama-3-8b-instruct and the like on hosted APIs
    "llama-3.1": (131_072, 8_192),
    "llama-3.2": (131_072, 8_192),
    "llama-3.3": (131_072, 8_192),
    "meta-llama-3.1": (131_072, 8_192),
    "meta-llama-3.3": (131_072, 8_192),
    "codellama": (16_384, 4_096),
    # -- other common Ollama families (ollama.com/library) ----------------------------------
    "mistral": (32_768, 4_096),
    "mistral-nemo": (128_000, 4_096),
    "mixtral": (32_768, 4_096),
    "gemma2": (8_192, 4_096),
    "gemma3": (131_072, 8_192),
    "phi3": (128_000, 4_096),
    "phi4": (16_384, 4_096),
    "granite-code": (128_000, 4_096),
    "starcoder2": (16_384, 4_096),
    # -- ours ------------------------------------------------------------------------------
    # the offline demo has no real window: a small one, so a few turns of the tour fill the
    # meter and show an automatic compaction
    "demo": (8_192, 2_048),
}
"""Family → (context window, max output tokens). Keys are written as vendors spell them;
``_normal`` makes ``3.5`` and ``3-5`` the same."""


def _normal(name: str) -> str:
    return re.sub(r"[._]", "-", name.strip().lower())


_FAMILIES: list[tuple[str, str, tuple[int, int]]] = sorted(
    ((_normal(k), k, v) for k, v in _TABLE.items()), key=lambda item: -len(item[0])
)


def _model_name(spec: str) -> str:
    """The model of a spec: ``openai:qwen2.5-coder:32b`` → ``qwen2.5-coder``,
    ``openai:meta-llama/Llama-3.3-70B`` → ``llama-3.3-70b``."""
    kind, sep, rest = spec.partition(":")
    name = rest if sep and kind.lower() in ("openai", "anthropic", "ollama") else spec
    name = name.rsplit("/", 1)[-1]  # a router's vendor prefix
    return name.split(":", 1)[0]  # an Ollama tag


def lookup(spec: str) -> ModelLimits:
    """The table's figures for the model ``spec`` names (``DEFAULT_LIMITS`` when unknown)."""
    name = _normal(_model_name(spec))
    if spec.strip().lower().startswith("script:"):
        return DEFAULT_LIMITS
    for key, family, (window, output) in _FAMILIES:
        if name == key or name.startswith(key + "-"):
            return ModelLimits(window, output, family, "table")
    return DEFAULT_LIMITS


def model_limits(spec: str, settings: ModelSettings | None = None) -> ModelLimits:
    """The limits of ``spec``, the settings' ``context_window`` / ``max_output_tokens``
    winning over the table."""
    found = lookup(spec)
    if settings is None or (settings.context_window is None and settings.max_output_tokens is None):
        return found
    return ModelLimits(
        settings.context_window or found.context_window,
        settings.max_output_tokens or found.max_output_tokens,
        found.family,
        "settings",
    )
