"""One read-deny for every tool: with ``read_file(.env)`` denied, the secret in ``.env`` (and
``config/.env``) never reaches the model — not through read_file, grep, glob, list_dir,
run_tool, nor any shell spelling — in default and bypass mode."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.disclosure import Disclosure
from agent_tui.core.permissions import Mode
from agent_tui.core.tools.builtin import default_registry
from tests.core.permissions.red_team.harness import (
    LEAKS,
    SECRET,
    Attack,
    attacks,
    home_of,
    make_lab,
    pipeline,
    prove,
    rules,
    through_agent,
)

MODES = [Mode.DEFAULT, Mode.BYPASS]
ALLOW = (
    "run_shell(cat:*)",
    "run_shell(grep:*)",
    "run_shell(echo:*)",
    "run_shell(head:*)",
    "run_shell(cp:*)",
    "run_shell(python3:*)",
    "run_shell(base64:*)",
    "run_shell(awk:*)",
    "run_shell(sed:*)",
    "run_shell(find:*)",
    "run_shell(tar:*)",
    "run_shell(tail:*)",
    "run_shell(while:*)",
    "run_shell(xargs:*)",
    "run_shell(git:*)",
    "run_shell(strings:*)",
    "run_shell(od:*)",
    "run_shell(sort:*)",
    "run_shell(diff:*)",
    "run_shell(dd:*)",
)

SHELL_READS: list[Attack] = attacks(
    LEAKS,
    "cat .env",
    "cat ./.env",
    "cat src/../.env",
    "cat envlink",
    "cat config/.env",
    "cd config && cat .env",
    "head .env",
    "tail -n1 .env",
    "cat < .env",
    'echo "$(<.env)"',
    "echo $(cat .env)",
    "cat .e*",
    "cat .en?",
    "cat .[e]nv",
    'cat "$(pwd)/.env"',
    "f=.env; cat $f",
    "cat $(echo .env)",
    "cp .env x && cat x",
    "base64 .env",
    "strings .env",
    "awk 1 .env",
    "sed -n p .env",
    "sort .env",
    "diff .env /dev/null",
    "dd if=.env",
    "grep -r SECRET .",
    "grep -R TOKEN",
    "grep SECRET .env",
    "grep -rh SECRET config",
    "tar cf - . | strings",
    "find . -name .env -exec cat {} +",
    "find . -type f | xargs cat",
    "while read l; do echo $l; done < .env",
    "python3 -c \"print(open('.env').read())\"",
    "python3 -c \"import pathlib; print(pathlib.Path('.e' + 'nv').read_text())\"",
    "git show :.env 2>/dev/null || cat .env",
    'for f in .env; do cat "$f"; done',
    "for f in .*; do cat $f 2>/dev/null; done",
    "for f in $(ls -a); do cat $f 2>/dev/null; done",
    "for f in src; do f=.env; cat $f; done",
    "grep -r --include='.e*' SECRET .",
    "grep -r --include='*' SECRET .",
    "awk 1 .env",
)


@pytest.mark.parametrize("mode", MODES, ids=["default", "bypass"])
@pytest.mark.parametrize("attack", SHELL_READS, ids=lambda a: a.id)
async def test_shell_never_reads_a_denied_file(tmp_path: Path, attack: Attack, mode: Mode) -> None:
    decision = await prove(tmp_path, attack, rules(allow=ALLOW), mode)
    assert decision.every_mode, decision


PATH_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("read_file", {"path": ".env"}),
    ("read_file", {"path": "./.env"}),
    ("read_file", {"path": "src/../.env"}),
    ("read_file", {"path": "envlink"}),
    ("read_file", {"path": "config/.env"}),
    ("grep", {"pattern": "TOKEN", "path": ".env"}),
    ("grep", {"pattern": "TOKEN", "path": "envlink"}),
]


@pytest.mark.parametrize("mode", MODES, ids=["default", "bypass"])
@pytest.mark.parametrize(("tool", "arguments"), PATH_CALLS, ids=lambda v: str(v))
async def test_file_tools_are_denied_the_file(
    tmp_path: Path, tool: str, arguments: dict[str, Any], mode: Mode
) -> None:
    attack = Attack(f"{tool} {arguments}", LEAKS)
    decision = await prove(tmp_path, attack, rules(allow=()), mode, tool=tool, arguments=arguments)
    assert decision.kind == "deny"


WALKS: list[tuple[str, dict[str, Any]]] = [
    ("grep", {"pattern": "SECRET|TOKEN"}),
    ("grep", {"pattern": "SECRET", "path": "config"}),
    ("grep", {"pattern": "SECRET", "glob": ".env"}),
    ("grep", {"pattern": ".", "glob": "*env*"}),
    ("glob", {"pattern": "**/*"}),
    ("glob", {"pattern": "**/.env"}),
    ("list_dir", {"path": "."}),
    ("list_dir", {"path": "config"}),
    ("grep", {"pattern": "SECRET|TOKEN", "include_ignored": True}),
    ("glob", {"pattern": "**/*", "include_ignored": True}),
]


def _registry_with_run_tool() -> Any:
    registry = default_registry()
    Disclosure(registry)
    return registry


@pytest.mark.parametrize("mode", MODES, ids=["default", "bypass"])
@pytest.mark.parametrize(("tool", "arguments"), WALKS, ids=lambda v: str(v))
async def test_walks_withhold_the_file(
    tmp_path: Path, tool: str, arguments: dict[str, Any], mode: Mode
) -> None:
    """grep and glob skip the file (and say so); list_dir names it but marks it; the same
    through run_tool, which is judged as its target."""
    lab = make_lab(tmp_path, "walk")
    registry = _registry_with_run_tool()
    for name, args in ((tool, arguments), ("run_tool", {"name": tool, "input": arguments})):
        with home_of(lab):
            outcome = await through_agent(
                lab, pipeline(lab, rules(allow=()), mode), name, args, registry
            )
        assert SECRET not in outcome.text, (name, outcome.text)
        if tool == "glob":
            assert ".env\n" not in outcome.text + "\n" or "withheld" in outcome.text
            assert "withheld" in outcome.text, outcome.text
        if tool == "list_dir" and arguments["path"] == ".":
            line = next(
                ln
                for ln in outcome.text.splitlines()
                if ln.endswith(".env") or " .env " in ln or ".env  [" in ln
            )
            assert "withheld" in line, outcome.text
        if tool == "grep":
            assert "withheld" in outcome.text, outcome.text


@pytest.mark.parametrize("mode", MODES, ids=["default", "bypass"])
async def test_run_tool_is_judged_as_its_target(tmp_path: Path, mode: Mode) -> None:
    lab = make_lab(tmp_path, "proxy")
    registry = _registry_with_run_tool()
    for target, args in (
        ("read_file", {"path": ".env"}),
        ("grep", {"pattern": "TOKEN", "path": ".env"}),
    ):
        with home_of(lab):
            outcome = await through_agent(
                lab,
                pipeline(lab, rules(allow=()), mode),
                "run_tool",
                {"name": target, "input": args},
                registry,
            )
        assert not outcome.ran, outcome.text
        assert SECRET not in outcome.text


def test_a_bare_name_does_not_cover_its_variants(tmp_path: Path) -> None:
    """Documented matching: ``.env`` is that name at any depth; ``.env*`` also covers
    ``.env.local``; ``/config/.env`` only that file."""
    from tests.core.permissions.red_team.harness import decide

    lab = make_lab(tmp_path, "names")
    (lab.root / ".env.local").write_text("LOCAL=1\n")
    exact = pipeline(lab, rules(allow=(), deny=("read_file(.env)",)), Mode.DEFAULT)
    assert decide(exact, "read_file", {"path": ".env.local"}).kind == "allow"
    wide = pipeline(lab, rules(allow=(), deny=("read_file(.env*)",)), Mode.DEFAULT)
    assert decide(wide, "read_file", {"path": ".env.local"}).kind == "deny"
    assert decide(wide, "read_file", {"path": "config/.env"}).kind == "deny"
    anchored = pipeline(lab, rules(allow=(), deny=("read_file(/config/.env)",)), Mode.DEFAULT)
    assert decide(anchored, "read_file", {"path": "config/.env"}).kind == "deny"
    assert decide(anchored, "read_file", {"path": ".env"}).kind == "allow"


@pytest.mark.parametrize("include_ignored", [False, True])
async def test_no_ignore_file_un_withholds_a_denied_file(
    tmp_path: Path, include_ignored: bool
) -> None:
    """A repository's ignore files decide what a walk skips, never what it may show: one that
    re-includes ``.env`` (and a ``.ignore`` and an exclude file that try too) changes nothing."""
    lab = make_lab(tmp_path, "ignores")
    (lab.root / ".gitignore").write_text("*\n!.env\n!*/\n!config/.env\n")
    (lab.root / ".ignore").write_text("!.env\n!envlink\n")
    (lab.root / ".git" / "info" / "exclude").write_text("!**/.env\n")
    registry = _registry_with_run_tool()
    for tool, args in (
        ("grep", {"pattern": "SECRET|TOKEN"}),
        ("glob", {"pattern": "**/*env*"}),
        ("grep", {"pattern": ".", "glob": "*env*"}),
    ):
        args = {**args, "include_ignored": include_ignored}
        with home_of(lab):
            outcome = await through_agent(
                lab, pipeline(lab, rules(allow=()), Mode.BYPASS), tool, args, registry
            )
        assert SECRET not in outcome.text, (tool, outcome.text)
        assert "withheld" in outcome.text, outcome.text
