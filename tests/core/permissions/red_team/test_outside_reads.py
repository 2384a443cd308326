"""Reads outside the workspace (issue 37): ``read_file``, ``grep``, ``glob`` and ``list_dir`` of
the home's secrets ask in every mode (default and bypass here) unless a rule names the path; a
walk of the workspace withholds what a link in it leads to outside; without the sandbox a
command naming a path under a home asks too. Each attack leaks the canary when run bare, and
nothing through the executor."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.permissions import Mode, Step
from tests.core.permissions.red_team.harness import (
    LEAKS,
    SECRET,
    Attack,
    decide,
    home_of,
    pipeline,
    prove,
    rules,
    through_agent,
)
from tests.core.permissions.red_team.outside_lab import (
    make_outside_lab,
    use_outside_lab,  # noqa: F401 (a fixture)
)

pytestmark = pytest.mark.usefixtures("use_outside_lab")

MODES = [Mode.DEFAULT, Mode.BYPASS]
MODE_IDS = ["default", "bypass"]
BROAD = ("read_file", "grep", "glob", "list_dir", "read_file(**)", "run_shell(cat:*)")

TOOL_READS: list[tuple[str, dict[str, Any]]] = [
    ("read_file", {"path": "~/.ssh/id_rsa"}),
    ("grep", {"pattern": "TOKEN", "path": "~/.ssh"}),
    ("grep", {"pattern": "TOKEN", "path": "../home"}),
    ("glob", {"pattern": "*", "path": "~/.ssh"}),
    ("list_dir", {"path": "~/.ssh"}),
    # our own: through a link in the workspace, a glob pattern that climbs out, an absolute one
    ("read_file", {"path": "keylink"}),
    ("glob", {"pattern": "../home/.ssh/*"}),
    ("grep", {"pattern": "SECRET", "path": "projlink"}),
    ("read_file", {"path": "../home/.aws/credentials"}),
    ("list_dir", {"path": ".."}),
]


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
@pytest.mark.parametrize(("tool", "arguments"), TOOL_READS, ids=[f"{t} {a}" for t, a in TOOL_READS])
async def test_file_tools_reading_outside_the_workspace_ask(
    tmp_path: Path, tool: str, arguments: dict[str, Any], mode: Mode
) -> None:
    attack = Attack(f"{tool} {arguments}", LEAKS)
    decision = await prove(
        tmp_path, attack, rules(allow=BROAD, deny=()), mode, tool=tool, arguments=arguments
    )
    assert decision.kind == "ask", decision
    assert decision.step is Step.OUTSIDE, decision
    assert decision.every_mode
    # "always allow" offers a narrow read_file rule for that path
    assert [r.tool for r in decision.suggestions] == ["read_file"], decision.suggestions
    assert decision.suggestions[0].pattern == (
        f"/{decision.path}/**" if decision.path and decision.path.is_dir() else f"/{decision.path}"
    )


async def test_the_glob_pattern_is_judged_not_only_its_path(tmp_path: Path) -> None:
    lab = make_outside_lab(tmp_path, "glob")
    with home_of(lab):
        policy = pipeline(lab, rules(allow=(), deny=()), Mode.BYPASS)
        for pattern in (f"{lab.home}/.ssh/*", "../home/.ssh/*", "../home/**/*"):
            decision = decide(policy, "glob", {"pattern": pattern})
            assert decision.step is Step.OUTSIDE, (pattern, decision)
        assert decide(policy, "glob", {"pattern": "src/**/*.py"}).kind == "allow"


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
async def test_a_walk_of_the_workspace_withholds_what_links_lead_to_outside(
    tmp_path: Path, mode: Mode
) -> None:
    """``keylink`` and ``projlink`` in the workspace lead to the home: grep over ``.`` is
    allowed (the workspace) but does not read them; glob and list_dir do not list what they
    lead to; the note says why."""
    lab = make_outside_lab(tmp_path, "walk")
    with home_of(lab):
        policy = pipeline(lab, rules(allow=(), deny=()), mode)
        grep = {"pattern": "TOKEN|other project", "path": ".", "include_ignored": True}
        assert decide(policy, "grep", grep).kind == "allow"
        outcome = await through_agent(lab, policy, "grep", grep)
        assert outcome.ran
        assert ".env:1:TOKEN" in outcome.text  # the workspace's own files are searched
        assert "keylink" not in outcome.text
        assert "other project" not in outcome.text
        assert "withheld by the outside-the-workspace check" in outcome.text
        listed = await through_agent(lab, policy, "list_dir", {"path": "."})
        assert "keylink" in listed.text
        assert "withheld" in listed.text
        found = await through_agent(lab, policy, "glob", {"pattern": "projlink/*"})
        assert "notes.md" not in found.text


async def test_a_rule_naming_the_place_allows_reading_it(tmp_path: Path) -> None:
    """The reads are real: a rule naming the other project lets every read tool in, and the
    canary comes back."""
    lab = make_outside_lab(tmp_path, "named")
    with home_of(lab):
        policy = pipeline(lab, rules(allow=("read_file(~/proj2/**)",), deny=()), Mode.DEFAULT)
        for tool, arguments in (
            ("read_file", {"path": "~/proj2/notes.md"}),
            ("grep", {"pattern": "other", "path": "~/proj2"}),
            ("grep", {"pattern": "other", "path": "projlink"}),
        ):
            assert decide(policy, tool, arguments).kind == "allow", (tool, arguments)
            outcome = await through_agent(lab, policy, tool, arguments)
            assert SECRET in outcome.text, (tool, outcome.text)
        # the rule names proj2, not the keys
        assert decide(policy, "read_file", {"path": "~/.ssh/id_rsa"}).step is Step.OUTSIDE


async def test_an_approved_directory_outside_is_readable_for_that_call(tmp_path: Path) -> None:
    """Allow once (here: the call's judged path) covers what lies below it, not a link out of
    it elsewhere."""
    from agent_tui.core.permissions.outside import outside_guard
    from agent_tui.core.permissions.read_guard import RuleReadGuard
    from agent_tui.core.tools.reads import for_call

    lab = make_outside_lab(tmp_path, "once")
    (lab.home / "proj2" / "keys").symlink_to(lab.home / ".ssh" / "id_rsa")
    with home_of(lab):
        policy = pipeline(lab, rules(allow=(), deny=()), Mode.DEFAULT)
        guard = outside_guard(policy, RuleReadGuard(policy.rules, policy.workspace))
        scoped = for_call(guard, lab.home / "proj2")
        assert scoped.withheld(lab.home / "proj2" / "notes.md") is None
        assert scoped.withheld(lab.home / "proj2" / "keys") is not None
        assert guard.withheld(lab.home / "proj2" / "notes.md") is not None


SHELL_READS = [
    "cat ~/.ssh/id_rsa",
    "cat ../home/.aws/credentials",
    "grep -r key ~/.aws",
    # our own: $HOME spelled out, a cd into the home then a relative name, base64 of a key,
    # redirection, a tree read of the home
    'cat "$HOME/.ssh/id_rsa"',
    "cd ~/.ssh && cat id_rsa",
    "base64 ~/.ssh/id_rsa",
    "cat < ~/.ssh/id_rsa",
    "grep -r SECRET ../home",
]


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("command", SHELL_READS)
async def test_without_the_sandbox_a_command_reading_the_home_asks(
    tmp_path: Path, command: str, mode: Mode
) -> None:
    decision = await prove(tmp_path, Attack(command, LEAKS), rules(allow=BROAD, deny=()), mode)
    assert decision.kind == "ask", decision
    assert decision.step is Step.OUTSIDE, decision
    assert decision.every_mode


def test_everyday_reads_of_system_files_stay_allowed(tmp_path: Path) -> None:
    lab = make_outside_lab(tmp_path, "system")
    with home_of(lab):
        policy = pipeline(lab, rules(allow=BROAD, deny=()), Mode.DEFAULT)
        for command in (
            "cat /etc/os-release",
            "cat /proc/cpuinfo",
            "cat src/app.py",
            "cat /usr/include/stdio.h",
        ):
            decision = decide(policy, "run_shell", {"command": command})
            assert decision.kind == "allow", (command, decision)
        bypass = pipeline(lab, rules(allow=(), deny=()), Mode.BYPASS)
        for command in ('echo "$HOME"', "ls /usr/lib", "uname -a", "echo ~"):
            assert decide(bypass, "run_shell", {"command": command}).kind == "allow", command


async def test_mentions_attach_nothing_from_outside(tmp_path: Path) -> None:
    from agent_tui.core.mentions.expand import MentionExpander

    lab = make_outside_lab(tmp_path, "mentions")
    with home_of(lab):
        policy = pipeline(lab, rules(allow=(), deny=()), Mode.BYPASS)
        out = await MentionExpander(lab.root, reads=policy.reads).expand(
            "@~/.ssh/id_rsa @keylink @../home/.aws/credentials @projlink/"
        )
    assert SECRET not in out.text
    assert len(out.mentions) == 4
    assert not any(m.attached for m in out.mentions)


async def test_when_the_workspace_is_the_home_its_key_stores_still_ask(tmp_path: Path) -> None:
    """agent-tui started in ``~`` (a dotfiles repository, a container): the sandbox hides
    ``~/.ssh`` and ``~/.aws`` from commands, so the file tools ask for them too, and walks
    and mentions withhold them."""
    from agent_tui.core.mentions.expand import MentionExpander

    lab = make_outside_lab(tmp_path, "home")
    home_lab = type(lab)(lab.home, lab.home)  # the workspace is the home
    (lab.home / "notes.txt").write_text("my notes\n")
    with home_of(home_lab):
        for mode in MODES:
            policy = pipeline(home_lab, rules(allow=BROAD, deny=()), mode)
            for tool, arguments in (
                ("read_file", {"path": ".ssh/id_rsa"}),
                ("grep", {"pattern": "key", "path": ".aws"}),
                ("list_dir", {"path": ".ssh"}),
            ):
                decision = decide(policy, tool, arguments)
                assert decision.step is Step.OUTSIDE, (tool, decision)
                assert "holds keys or tokens" in decision.reason
            assert decide(policy, "read_file", {"path": "notes.txt"}).kind == "allow"
        walk = await through_agent(home_lab, policy, "grep", {"pattern": SECRET, "path": "."})
        assert "proj2/notes.md:1:" in walk.text  # the workspace is searched…
        assert ".ssh" not in walk.text  # …but not its key stores
        assert ".aws" not in walk.text
        assert "withheld by the outside-the-workspace check" in walk.text
        out = await MentionExpander(lab.home, reads=policy.reads).expand("@.ssh/id_rsa")
        assert SECRET not in out.text
