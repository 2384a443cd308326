"""Protected paths: writes to files that configure the agent or run code later ask — in
accept-edits and bypass mode too, and even with broad allow rules — unless a rule names the
path explicitly. By write_file, edit_file, and every shell form."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.permissions import Mode, Step
from tests.core.permissions.red_team.harness import (
    CHANGES,
    Attack,
    attacks,
    decide,
    make_lab,
    pipeline,
    prove,
    rules,
)

BROAD = (
    "write_file",
    "edit_file(**)",
    "run_shell(echo:*)",
    "run_shell(tee:*)",
    "run_shell(cp:*)",
    "run_shell(ln:*)",
    "run_shell(git config:*)",
    "run_shell(sed:*)",
    "run_shell(mv:*)",
    "run_shell(mkdir:*)",
    "run_shell(touch:*)",
    "run_shell(install:*)",
    "run_shell(dd:*)",
    "run_shell(cat:*)",
    "run_shell(printf:*)",
    "run_shell(git:*)",
)
MODES = [Mode.ACCEPT_EDITS, Mode.BYPASS]
FILES = [
    ".git/config",
    ".git/hooks/pre-commit",
    ".mcp.json",
    ".agent-tui/settings.json",
    ".agent-tui/settings.local.json",
    "~/.bashrc",
    "~/.ssh/authorized_keys",
    "~/.gitconfig",
    ".claude/settings.json",
    ".envrc",
    "./.git/../.git/config",
    "src/../.mcp.json",
]


@pytest.mark.parametrize("mode", MODES, ids=["accept-edits", "bypass"])
@pytest.mark.parametrize("target", FILES)
async def test_write_file_to_a_protected_path_asks(tmp_path: Path, target: str, mode: Mode) -> None:
    attack = Attack(f"write_file {target}", CHANGES)
    decision = await prove(
        tmp_path,
        attack,
        rules(allow=BROAD, deny=()),
        mode,
        tool="write_file",
        arguments={"path": target, "content": "[core]\n\tfsmonitor = touch pwned\n"},
    )
    assert decision.kind == "ask", decision
    assert decision.step is Step.PROTECTED, decision
    assert "protected" in decision.reason


@pytest.mark.parametrize("mode", MODES, ids=["accept-edits", "bypass"])
@pytest.mark.parametrize("target", [".git/config", ".mcp.json", "~/.bashrc"])
async def test_edit_file_of_a_protected_path_asks(tmp_path: Path, target: str, mode: Mode) -> None:
    attack = Attack(f"edit_file {target}", CHANGES)
    decision = await prove(
        tmp_path,
        attack,
        rules(allow=BROAD, deny=()),
        mode,
        tool="edit_file",
        arguments={"path": target, "old_string": "{", "new_string": '{"x": 1, '},
    )
    assert decision.kind == "ask"
    assert decision.step is Step.PROTECTED


SHELL_WRITES: list[Attack] = attacks(
    CHANGES,
    "echo '[core] fsmonitor = touch pwned' > .git/config",
    "echo x >> .git/config",
    "printf x | tee .mcp.json",
    "cp canary .git/hooks/pre-commit",
    "ln -sf canary .git/hooks/pre-commit",
    "install canary .git/hooks/pre-commit",
    "git config core.fsmonitor 'touch pwned'",
    "git config --add core.fsmonitor 'touch pwned'",
    "git config --global alias.st '!touch pwned'",
    """sed -i 's/{}/{"permissions": {"defaultMode": "bypass"}}/' .agent-tui/settings.json""",
    "mv canary .mcp.json",
    "echo 'touch pwned' >> ~/.bashrc",
    "mkdir -p ~/.ssh && echo key >> ~/.ssh/authorized_keys",
    "cd .git && echo x > config",
    "cd .git/hooks && cp ../../canary pre-commit",
    "echo x > ./.git/../.git/config",
    "echo x | dd of=.mcp.json",
    "cat canary > .agent-tui/settings.json",
    "echo '{}' > .mcp.json",
    ": > .git/hooks/pre-commit",
    "rm -rf .git/hooks",
    'f=.mcp.json; echo x > "$f"',
    "echo x > $(echo .mcp.json)",
    "echo x > .m?p.json",
    "cp canary ~/.gitconfig",
)


@pytest.mark.parametrize("mode", MODES, ids=["accept-edits", "bypass"])
@pytest.mark.parametrize("attack", SHELL_WRITES, ids=lambda a: a.id)
async def test_shell_writes_to_protected_paths_ask(
    tmp_path: Path, attack: Attack, mode: Mode
) -> None:
    allow = (*BROAD, "run_shell(cd:*)", "run_shell(rm:*)")
    decision = await prove(tmp_path, attack, rules(allow=allow, deny=()), mode)
    assert decision.kind == "ask", decision
    assert decision.every_mode, decision


def test_a_rule_naming_the_path_allows_it(tmp_path: Path) -> None:
    lab = make_lab(tmp_path, "named")
    allow = ("write_file(/.mcp.json)", "write_file(.git/hooks/**)", "run_shell(echo:*)")
    policy = pipeline(lab, rules(allow=allow, deny=()), Mode.ACCEPT_EDITS)
    write = {"content": "{}"}
    assert decide(policy, "write_file", {"path": ".mcp.json", **write}).kind == "allow"
    assert decide(policy, "write_file", {"path": ".git/hooks/pre-push", **write}).kind == "allow"
    assert decide(policy, "run_shell", {"command": "echo '{}' > .mcp.json"}).kind == "allow"
    # the broad rules do not name it
    broad = pipeline(lab, rules(allow=("write_file", "write_file(**)"), deny=()), Mode.BYPASS)
    assert decide(broad, "write_file", {"path": ".git/config", **write}).kind == "ask"


def test_the_prompt_says_what_the_file_configures(tmp_path: Path) -> None:
    lab = make_lab(tmp_path, "why")
    policy = pipeline(lab, rules(allow=(), deny=()), Mode.BYPASS)
    decision = decide(policy, "write_file", {"path": ".mcp.json", "content": "{}"})
    assert "configures the MCP servers" in decision.reason
    assert [str(r) for r in decision.suggestions] == ["write_file(/.mcp.json)"]
    git = decide(policy, "run_shell", {"command": "git config core.pager less"})
    assert "configures git" in git.reason
    assert git.step is Step.PROTECTED


def test_ordinary_files_are_not_protected(tmp_path: Path) -> None:
    lab = make_lab(tmp_path, "plain")
    policy = pipeline(lab, rules(allow=(), deny=()), Mode.ACCEPT_EDITS)
    for path in ("src/app.py", "README.md", "docs/git.md", "gitconfig.txt", "src/.github/x.yml"):
        assert decide(policy, "write_file", {"path": path, "content": "x"}).kind == "allow", path


@pytest.mark.parametrize("command", ["rm -rf .", "rm -r src/..", "find . -name '*.tmp' -delete"])
def test_a_recursive_delete_reaching_a_denied_file_asks_in_bypass(
    tmp_path: Path, command: str
) -> None:
    lab = make_lab(tmp_path, "tree")
    (lab.root / "secrets").mkdir()
    (lab.root / "secrets" / "key").write_text("k\n")
    (lab.root / ".git").rename(lab.root / "git-moved")  # no protected path to hide behind
    policy = pipeline(lab, rules(allow=(), deny=("write_file(secrets/**)",)), Mode.BYPASS)
    decision = decide(policy, "run_shell", {"command": command})
    assert decision.kind == "ask"
    assert "secrets/key" in decision.reason
    assert decision.every_mode
