"""Settings: user + project files merged (project wins); broken files reported, never fatal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.core.agent.agent import Agent
from agent_tui.core.permissions import SimplePolicy
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.settings import (
    Settings,
    load_settings,
    local_settings_path,
    project_settings_path,
)
from agent_tui.core.tools import ToolRegistry
from agent_tui.core.tools.builtin import run_shell
from tests.core.helpers import collect, of_type, write_script


@pytest.fixture
def user_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    config = tmp_path / "config"
    config.mkdir()
    monkeypatch.setenv("AGENT_TUI_CONFIG_DIR", str(config))
    return config / "settings.json"


@pytest.fixture
def project_file(workspace: Path) -> Path:
    path = project_settings_path(workspace)
    path.parent.mkdir()
    return path


def test_no_files_means_defaults(workspace: Path, user_file: Path) -> None:
    loaded = load_settings(workspace)
    assert loaded.settings == Settings()
    assert loaded.problems == []
    assert loaded.sources == []
    budget = loaded.settings.budget
    assert (budget.per_result_chars, budget.per_turn_chars, budget.preview_chars) == (
        50_000,
        100_000,
        2_000,
    )
    assert budget.spill_dir == ".agent-spill"


def test_project_wins_key_by_key(workspace: Path, user_file: Path, project_file: Path) -> None:
    local_settings_path(workspace).write_text(json.dumps({"budget": {"preview_chars": 1_500}}))
    user_file.write_text(
        json.dumps(
            {
                "$schema": "https://example.com/schema.json",
                "budget": {"per_turn_chars": 80_000, "log_compression": {"min_lines": 10}},
            }
        )
    )
    project_file.write_text(
        json.dumps({"budget": {"per_turn_chars": 60_000, "log_compression": {"tools": ["make"]}}})
    )
    loaded = load_settings(workspace)
    budget = loaded.settings.budget
    assert budget.per_turn_chars == 60_000  # the project's value
    assert budget.log_compression.min_lines == 10  # the user's, not overridden
    assert budget.log_compression.tools == ["make"]
    assert budget.preview_chars == 1_500  # the personal file is the most specific
    assert loaded.sources == [user_file, project_file, local_settings_path(workspace)]
    assert loaded.problems == []


def test_broken_json_is_named_and_the_rest_applies(
    workspace: Path, user_file: Path, project_file: Path
) -> None:
    user_file.write_text(json.dumps({"budget": {"preview_chars": 1_000}}))
    project_file.write_text('{"budget": {"per_turn_chars": 60000,}}')
    loaded = load_settings(workspace)
    assert loaded.settings.budget.preview_chars == 1_000
    assert loaded.settings.budget.per_turn_chars == 100_000
    [problem] = loaded.problems
    assert problem.path == project_file
    assert problem.level == "error"
    assert "not valid JSON" in problem.message
    assert "line 1 column" in problem.message
    assert str(project_file) in loaded.messages()[0]


def test_a_bad_value_names_its_field_and_only_that_section_is_ignored(
    workspace: Path, user_file: Path
) -> None:
    user_file.write_text(
        json.dumps(
            {
                "budget": {"per_result_chars": "lots", "preview": 10},
                "disclosur": {},
                "permissions": {"allow": ["read_file"]},  # read by core.permissions
            }
        )
    )
    loaded = load_settings(workspace)
    assert loaded.settings == Settings()
    error, warning = sorted(loaded.problems, key=lambda p: p.level)
    assert "invalid 'budget' section" in error.message
    assert "$.budget.per_result_chars" in error.message  # the path from the file's root
    assert "$.budget.preview: unknown field" in error.message
    assert warning.level == "warning"
    assert "unknown section 'disclosur'" in warning.message


def test_files_valid_alone_but_not_together(
    workspace: Path, user_file: Path, project_file: Path
) -> None:
    user_file.write_text(json.dumps({"budget": {"preview_chars": 10_000}}))
    project_file.write_text(json.dumps({"budget": {"per_result_chars": 15_000}}))
    loaded = load_settings(workspace)
    assert loaded.settings.budget == Settings().budget
    [problem] = loaded.problems
    assert str(user_file) in problem.message
    assert str(project_file) in problem.message
    assert "at most half" in problem.message


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("[1, 2]", "must hold a JSON object"), ("", None), ("  \n", None)],
)
def test_odd_files(workspace: Path, user_file: Path, text: str, fragment: str | None) -> None:
    user_file.write_text(text)
    loaded = load_settings(workspace)
    assert loaded.settings == Settings()
    if fragment is None:
        assert loaded.problems == []
    else:
        assert fragment in loaded.problems[0].message


def test_an_unreadable_file_is_reported(workspace: Path, user_file: Path) -> None:
    user_file.mkdir()  # a directory where the file should be
    [problem] = load_settings(workspace).problems
    assert problem.path == user_file
    assert "cannot be read" in problem.message


def test_shell_color_is_off_unless_a_file_turns_it_on(
    workspace: Path, user_file: Path, project_file: Path
) -> None:
    assert load_settings(workspace).settings.shell.color is False
    project_file.write_text(json.dumps({"shell": {"color": True}}))
    loaded = load_settings(workspace)
    assert loaded.problems == []
    assert loaded.settings.shell.color is True
    project_file.write_text(json.dumps({"shell": {"colour": True}}))
    [problem] = load_settings(workspace).problems
    assert "$.shell.colour: unknown field" in problem.message


async def test_shell_color_reaches_the_commands(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")  # the user's own environment
    on = Settings.model_validate({"shell": {"color": True}})
    for settings, seen in ((Settings(), "0"), (on, "1")):
        call = {"id": "c", "name": "run_shell", "arguments": {"command": "echo $FORCE_COLOR"}}
        script = write_script(workspace / "s.json", [{"tool_calls": [call]}, {"text": "ok"}])
        agent = Agent(
            ScriptProvider(script),
            ToolRegistry([run_shell.TOOL]),
            workspace,
            policy=SimplePolicy(["run_shell"]),
            settings=settings,
        )
        [result] = of_type(await collect(agent, "go"), "tool_result")
        assert result.content == f"{seen}\n[exit code 0]"


@pytest.mark.parametrize(
    ("section", "fragment"),
    [
        ({"threshold": 1.5}, "between 0.5 and 0.95"),
        ({"threshold": "never"}, "$.compaction.threshold"),
        ({"keep_turns": 0}, "$.compaction.keep_turns"),
    ],
)
def test_a_bad_compaction_setting_is_named(
    workspace: Path, user_file: Path, section: dict[str, object], fragment: str
) -> None:
    user_file.write_text(json.dumps({"compaction": section}))
    loaded = load_settings(workspace)
    assert loaded.settings.compaction.threshold == 0.8
    assert any(fragment in p.message for p in loaded.problems), loaded.problems


def test_compaction_can_be_turned_off(workspace: Path, user_file: Path) -> None:
    user_file.write_text(json.dumps({"compaction": {"threshold": "off", "keep_turns": 3}}))
    compaction = load_settings(workspace).settings.compaction
    assert (compaction.threshold, compaction.keep_turns) == ("off", 3)


@pytest.mark.parametrize(
    "section",
    [{"mode": "requird"}, {"mode": "off", "network": "sometimes"}, "required", {"bogus": 1}],
)
def test_a_broken_sandbox_section_fails_closed(
    workspace: Path, user_file: Path, section: object
) -> None:
    """A mistyped sandbox setting must not leave commands unconfined: the section is ignored
    and the mode is "required" (no command runs without the sandbox) until it is fixed."""
    user_file.write_text(json.dumps({"sandbox": section}), encoding="utf-8")
    loaded = load_settings(workspace)
    assert loaded.settings.sandbox.mode == "required"
    assert loaded.settings.sandbox.network == "off"
    (problem,) = loaded.problems
    assert "sandbox.mode = 'required'" in problem.message
    assert "until it is fixed" in problem.message


def test_a_project_cannot_turn_a_required_sandbox_back_to_auto(
    workspace: Path, user_file: Path, project_file: Path
) -> None:
    user_file.write_text(json.dumps({"sandbox": {"mode": "required"}}), encoding="utf-8")
    project_file.write_text(json.dumps({"sandbox": {"mode": "auto"}}), encoding="utf-8")
    loaded = load_settings(workspace)
    assert loaded.settings.sandbox.mode == "required"
    assert any("mode" in p.message for p in loaded.problems)
