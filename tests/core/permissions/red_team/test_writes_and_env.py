"""Writes through redirections and writers (judged as file writes), and environment prefixes
that make an allowed program run other code (asked in every mode, bypass included)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.permissions import Mode, Step
from tests.core.permissions.red_team.harness import CREATES, Attack, attacks, prove, rules

REDIRECT_WRITES: list[Attack] = attacks(
    CREATES,
    "cat canary > pwned",
    "echo x >> pwned",
    "echo x >| pwned",
    "echo x &> pwned",
    "echo x &>> pwned",
    "echo x >&pwned",
    "echo x 2> pwned",
    "echo x 1>pwned",
    "echo x 3>pwned",
    ">pwned echo x",
    "exec 3>pwned; echo x >&3",
    "cat canary 0<>pwned",
    "echo x > p\\wned",
    "echo x > 'pwn'ed",
    "echo x > $'pwned'",
    'echo x > "$(echo pwned)"',
    "echo x > ./src/../pwned",
    "ls > pwned",
    "printf x > pwned",
    "echo x | tee pwned",
    "echo x | tee -a pwned",
    "echo x | sort -o pwned",
    "echo x | sort --output=pwned",
    "cat canary | dd of=pwned",
    "git status > pwned",
    "{ echo x; } > pwned",
    "(echo x) > pwned",
    "if true; then echo x; fi > pwned",
    "for i in 1; do echo x; done > pwned",
    "echo $(echo x > pwned)",
    "cat <<EOF > pwned\nx\nEOF",
    "echo x | tee >(cat > pwned)",
    ("/usr/bin/time -o pwned ls", ("/usr/bin/time",)),
)


@pytest.mark.parametrize("attack", REDIRECT_WRITES, ids=lambda a: a.id)
async def test_writes_through_allowed_commands_ask(tmp_path: Path, attack: Attack) -> None:
    """echo, cat, ls, sort, tee-less writes: the programs are allowed, the writes are not."""
    decision = await prove(tmp_path, attack, rules(), Mode.DEFAULT)
    assert decision.kind == "ask"


ENV_ATTACKS: list[Attack] = attacks(
    CREATES,
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch pwned' "
    "git status",
    "GIT_CONFIG_PARAMETERS=\"'core.fsmonitor'='touch pwned'\" git status",
    "env GIT_CONFIG_PARAMETERS=\"'core.fsmonitor'='touch pwned'\" git status",
    "export GIT_CONFIG_PARAMETERS=\"'core.fsmonitor'='touch pwned'\"; git status",
    "declare -x GIT_CONFIG_PARAMETERS=\"'core.fsmonitor'='touch pwned'\"; git status",
    "git -c core.fsmonitor='touch pwned' status",
    "git -c core.editor='touch pwned' commit --allow-empty",
    ("git -c core.pager='touch pwned #' -p log", ("a terminal",)),
    "git --config-env=core.fsmonitor=EVIL status",
    "HOME=evilhome git status",
    "XDG_CONFIG_HOME=evilcfg git status",
    "GIT_EDITOR='touch pwned' git commit --allow-empty",
    ("GIT_PAGER='touch pwned #' git -p log", ("a terminal",)),
    ("PAGER='touch pwned #' git -p log", ("a terminal",)),
    "PATH=.:$PATH ls",
    "PATH=./bin:$PATH; ls",
    "for PATH in .; do ls; done",
    "read PATH <<< .; ls",
    "printf -v PATH .; ls",
    "BASH_ENV=evil.sh bash -c true",
    "env BASH_ENV=evil.sh bash -c true",
    # bash ignores an inherited PS4 as root, so these two only prove it as another user
    ("PS4='$(touch pwned)' bash -xc true", ("a user who is not root",)),
    ("env SHELLOPTS=xtrace PS4='$(touch pwned)' bash -c true", ("a user who is not root",)),
    "env 'BASH_FUNC_ls%%=() { touch pwned; }' bash -c ls",
    ("NODE_OPTIONS='--require ./evil.js' node -e 1", ("node",)),
    "xargs --process-slot-var=BASH_ENV bash -c true < /dev/null",
)


@pytest.mark.parametrize("mode", [Mode.DEFAULT, Mode.BYPASS], ids=["default", "bypass"])
@pytest.mark.parametrize("attack", ENV_ATTACKS, ids=lambda a: a.id)
async def test_dangerous_environment_asks_in_every_mode(
    tmp_path: Path, attack: Attack, mode: Mode
) -> None:
    allow = (
        "run_shell(git status:*)",
        "run_shell(git log:*)",
        "run_shell(ls:*)",
        "run_shell(git commit:*)",
        "run_shell(bash:*)",
        "run_shell(node:*)",
        "run_shell(true)",
    )
    decision = await prove(tmp_path, attack, rules(allow=allow), mode)
    assert decision.kind == "ask", decision
    assert decision.every_mode, decision


@pytest.mark.parametrize(
    "command",
    [
        "LD_PRELOAD=/tmp/x.so ls",
        "LD_LIBRARY_PATH=/tmp ls",
        "PYTHONPATH=/tmp python3 -m pytest",
        "PYTHONSTARTUP=/tmp/x.py python3",
        "PERL5OPT=-Mevil perl -e 1",
        "RUBYOPT=-revil ruby -e 1",
        "NODE_OPTIONS=--require=x node app.js",
        "EDITOR='touch pwned' git commit",
        "MANPAGER='touch pwned' man ls",
        "npm_config_script_shell=./evil.sh npm test",
        "CC='touch pwned' make",
        "LESSOPEN='|touch pwned %s' less canary",
        "ENV=evil.sh sh -i",
        "ZDOTDIR=. zsh -c true",
        "JAVA_TOOL_OPTIONS=-javaagent:x.jar java -version",
        "DYLD_INSERT_LIBRARIES=x.dylib ls",
    ],
)
def test_each_listed_variable_asks_even_in_bypass(tmp_path: Path, command: str) -> None:
    from tests.core.permissions.red_team.harness import decide, make_lab, pipeline

    lab = make_lab(tmp_path, "env")
    allow = (
        "run_shell(ls:*)",
        "run_shell(python3:*)",
        "run_shell(perl:*)",
        "run_shell(ruby:*)",
        "run_shell(node:*)",
        "run_shell(git commit:*)",
        "run_shell(man:*)",
        "run_shell(npm test:*)",
        "run_shell(make:*)",
        "run_shell(less:*)",
        "run_shell(java:*)",
    )
    decision = decide(
        pipeline(lab, rules(allow=allow), Mode.BYPASS), "run_shell", {"command": command}
    )
    assert decision.kind == "ask", (command, decision)
    assert decision.every_mode, (command, decision)


def test_a_rule_that_names_the_assignment_allows_it(tmp_path: Path) -> None:
    from tests.core.permissions.red_team.harness import decide, make_lab, pipeline

    lab = make_lab(tmp_path, "named")
    allow = ("run_shell(GIT_PAGER=cat git log:*)", "run_shell(FOO=1 make:*)")
    policy = pipeline(lab, rules(allow=allow), Mode.DEFAULT)
    assert decide(policy, "run_shell", {"command": "GIT_PAGER=cat git log -3"}).kind == "allow"
    assert decide(policy, "run_shell", {"command": "FOO=1 make test"}).kind == "allow"
    # an allow rule never covers an assignment it does not name
    other = decide(policy, "run_shell", {"command": "FOO=2 make test"})
    assert other.kind == "ask"
    assert other.step is Step.DEFAULT
    assert decide(policy, "run_shell", {"command": "GIT_PAGER=less git log"}).kind == "ask"
