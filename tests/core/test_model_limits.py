"""The model table: family matching, the guess for unknown models, the settings override."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.core.conversation.model_limits import DEFAULT_LIMITS, lookup, model_limits
from agent_tui.core.settings import ModelSettings, load_settings, project_settings_path


@pytest.mark.parametrize(
    ("spec", "family", "window", "output"),
    [
        ("openai:gpt-4o", "gpt-4o", 128_000, 16_384),
        ("openai:gpt-4o-2024-08-06", "gpt-4o", 128_000, 16_384),
        ("openai:gpt-4o-mini", "gpt-4o-mini", 128_000, 16_384),
        ("openai:gpt-4.1-mini", "gpt-4.1", 1_047_576, 32_768),
        ("openai:gpt-4-1106-preview", "gpt-4", 8_192, 8_192),  # not gpt-4.1
        ("openai:o4-mini", "o4-mini", 200_000, 100_000),
        ("openai:o3", "o3", 200_000, 100_000),
        ("openai:gpt-5-mini", "gpt-5", 400_000, 128_000),
        ("anthropic:claude-sonnet-4-5", "claude-sonnet-4.5", 200_000, 64_000),
        ("anthropic:claude-sonnet-4-20250514", "claude-sonnet-4", 200_000, 64_000),
        ("anthropic:claude-opus-4-1-20250805", "claude-opus-4.1", 200_000, 32_000),
        ("anthropic:claude-3-5-sonnet-20241022", "claude-3.5-sonnet", 200_000, 8_192),
        ("openai:anthropic/claude-3.7-sonnet", "claude-3.7-sonnet", 200_000, 64_000),
        ("anthropic:claude-haiku-4-5", "claude-haiku-4.5", 200_000, 64_000),
        ("openai:deepseek-chat", "deepseek-chat", 128_000, 8_192),
        ("openai:deepseek-reasoner", "deepseek-reasoner", 128_000, 64_000),
        ("openai:qwen2.5-coder:32b", "qwen2.5-coder", 32_768, 8_192),
        ("openai:qwen3:14b", "qwen3", 40_960, 8_192),
        ("openai:llama3.1:8b", "llama3.1", 131_072, 8_192),
        ("openai:meta-llama/Llama-3.3-70B-Instruct", "llama-3.3", 131_072, 8_192),
        ("openai:mistral:latest", "mistral", 32_768, 4_096),
        ("demo", "demo", 8_192, 2_048),
    ],
)
def test_families_match_by_prefix(spec: str, family: str, window: int, output: int) -> None:
    found = lookup(spec)
    assert (found.family, found.context_window, found.max_output_tokens) == (
        family,
        window,
        output,
    )
    assert found.source == "table"
    assert not found.guessed


@pytest.mark.parametrize("spec", ["openai:my-finetune", "openai:", "script:/tmp/s.json"])
def test_unknown_models_get_a_marked_guess(spec: str) -> None:
    assert lookup(spec) == DEFAULT_LIMITS
    assert lookup(spec).guessed
    assert lookup(spec).context_window == 32_768


def test_the_settings_override_the_table(workspace: Path) -> None:
    path = project_settings_path(workspace)
    path.parent.mkdir()
    path.write_text(json.dumps({"model": {"context_window": 65_536}}))
    loaded = load_settings(workspace)
    assert loaded.problems == []
    limits = model_limits("openai:llama3.1:8b", loaded.settings.model)
    assert (limits.context_window, limits.max_output_tokens, limits.source) == (
        65_536,
        8_192,
        "settings",
    )
    assert model_limits("openai:gpt-4o", ModelSettings()).source == "table"


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ({"context_window": "big"}, "context_window"),
        ({"context_window": 10}, "greater than or equal to 1024"),
        ({"context_window": 8192, "max_output_tokens": 9000}, "must be smaller"),
        ({"window": 8192}, "window"),
    ],
)
def test_a_bad_model_section_is_a_clear_settings_error(
    workspace: Path, value: dict[str, object], said: str
) -> None:
    path = project_settings_path(workspace)
    path.parent.mkdir()
    path.write_text(json.dumps({"model": value}))
    loaded = load_settings(workspace)
    (problem,) = loaded.problems
    assert problem.level == "error"
    assert "invalid 'model' section" in problem.message
    assert said in problem.message
    assert loaded.settings.model == ModelSettings()
