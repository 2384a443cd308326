"""Shell smuggling under allow rules: each command hides ``touch pwned`` (not allowed) among
allowed ones (echo, ls, cat, grep, git status, head, printf, true…). None may be allowed."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.permissions import Mode
from tests.core.permissions.red_team.harness import CREATES, Attack, attacks, prove, rules

SMUGGLED: list[Attack] = attacks(
    CREATES,
    # lists and pipelines
    "echo hi; touch pwned",
    "echo hi && touch pwned",
    "ls /nonexistent || touch pwned",
    "echo hi | touch pwned",
    "echo hi & touch pwned; wait",
    "echo hi\ntouch pwned",
    "echo hi\r\ntouch pwned",
    "ls && git status && touch pwned",
    "true; true; true; touch pwned",
    "echo hi |& touch pwned",
    # substitutions anywhere
    "echo $(touch pwned)",
    "echo `touch pwned`",
    'echo "$(touch pwned)"',
    "echo ${x:-$(touch pwned)}",
    "echo ${x:=$(touch pwned)}",
    "echo ${x-$(touch pwned)}",
    "x=1; echo ${x:+$(touch pwned)}",
    'echo "${x:-$(touch pwned)}"',
    "echo ${x:-`touch pwned`}",
    "echo $(( $(touch pwned; echo 1) ))",
    "echo $[ $(touch pwned; echo 1) ]",
    "echo ${a[$(touch pwned)]}",
    "x='$(touch pwned)'; echo ${x@P}",
    "x='a[$(touch pwned)]'; echo $((x))",
    "x='a[$(touch pwned)]'; echo $(( x + 1 ))",
    "x='a[$(touch pwned)]'; [[ $x -eq 1 ]]",
    "y='a[$(touch pwned)]'; echo ${!y}",
    "echo $(echo $(touch pwned))",
    "git status --short $(touch pwned)",
    "head -n1 $(touch pwned; echo canary)",
    "echo hi 2>$(touch pwned)",
    "cat <(touch pwned)",
    "echo hi | tee >(touch pwned)",
    "echo hi > >(touch pwned)",
    'grep x <<< "$(touch pwned)"',
    "cat <<EOF\n$(touch pwned)\nEOF",
    "cat <<-EOF\n\t`touch pwned`\n\tEOF",
    "[[ -n $(touch pwned) ]]",
    '[ -n "$(touch pwned)" ]',
    'test -n "$(touch pwned)"',
    "(( $(touch pwned; echo 0) ))",
    'let "x=$(touch pwned; echo 1)"',
    "declare x=$(touch pwned)",
    "export x=$(touch pwned)",
    "a=($(touch pwned))",
    "x=$(touch pwned)",
    "for i in $(touch pwned); do echo $i; done",
    "case $(touch pwned) in *) echo;; esac",
    # quoting that could put an analysis out of step with bash
    "echo $'\\'' ; touch pwned ; echo $'\\''",
    "echo 'a\\' ; touch pwned ; echo 'b'",
    "echo $(echo a # )\ntouch pwned\n)",
    "echo $(echo ')' ; touch pwned)",
    'echo "$(echo "\\")"; touch pwned)"',
    "echo hi # ; touch pwned\ntouch pwned",
    # compound commands
    "if true; then touch pwned; fi",
    "if ls /nonexistent; then :; else touch pwned; fi",
    "for i in 1; do touch pwned; done",
    "while true; do touch pwned; break; done",
    "until touch pwned; do :; done",
    "case x in x) touch pwned;; esac",
    "f() { touch pwned; }; f",
    "function f { touch pwned; }; f",
    "ls() { touch pwned; }; ls",
    "{ touch pwned; }",
    "(touch pwned)",
    "echo hi; (cd . && touch pwned)",
    "! touch pwned",
    "select x in a; do touch pwned; break; done <<< 1",
    "coproc touch pwned; wait",
    "trap 'touch pwned' EXIT",
    "cat canary | while read l; do touch pwned; done",
    # names that are not what they seem
    "{touch,pwned}",
    "echo {a,b} ; {touch,pwned}",
    "$(echo touch) pwned",
    "`echo touch` pwned",
    "x=touch; $x pwned",
    '"$(printf touch)" pwned',
    "IFS=,; x=touch,pwned; $x",
    "/???/to??h pwned",
    "/bin/tou?h pwned",
    "/bin/t[o]uch pwned",
    "\\touch pwned",
    "t''ouch pwned",
    "$'touch' pwned",
    "$'\\x74ouch' pwned",
    # code handed to shells and wrappers
    "echo touch pwned | sh",
    "echo touch pwned | bash",
    "printf 'touch pwned' | sh",
    "cat <<EOF | sh\ntouch pwned\nEOF",
    "bash <<< 'touch pwned'",
    "bash -c 'touch pwned'",
    'sh -c "echo hi; touch pwned"',
    'bash -c "$(echo touch pwned)"',
    "eval 'touch pwned'",
    'eval "$(echo touch pwned)"',
    "x='touch pwned'; eval $x",
    "source <(echo touch pwned)",
    ". <(echo touch pwned)",
    "echo hi; exec touch pwned",
    "command touch pwned",
    "env touch pwned",
    "env -S 'touch pwned'",
    "timeout 5 touch pwned",
    "nice -n 5 touch pwned",
    "nohup touch pwned",
    "stdbuf -oL touch pwned",
    "setsid -w touch pwned",
    "time touch pwned",
    "time -p touch pwned",
    "xargs touch pwned < /dev/null",
    "echo pwned | xargs touch",
    "find . -maxdepth 0 -exec touch pwned \\;",
    "flock lockf touch pwned",
    "flock lockf -c 'touch pwned'",
    ("script -qc 'touch pwned' /dev/null", ("script",)),
    ("strace -o /dev/null touch pwned", ("strace",)),
    "git status; bash -c 'touch pwned'",
)


@pytest.mark.parametrize("attack", SMUGGLED, ids=lambda a: a.id)
async def test_smuggled_commands_never_run(tmp_path: Path, attack: Attack) -> None:
    decision = await prove(tmp_path, attack, rules(), Mode.DEFAULT)
    assert decision.kind == "ask", decision


def test_the_rules_do_allow_the_plain_parts(tmp_path: Path) -> None:
    """The smuggling cases ask because of what they hide, not because the rules allow
    nothing: the visible parts alone are allowed."""
    from tests.core.permissions.red_team.harness import decide, make_lab, pipeline

    lab = make_lab(tmp_path, "plain")
    policy = pipeline(lab, rules(), Mode.DEFAULT)
    for command in ("echo hi", "ls -la | head", "git status && echo ok", "cat canary | wc -l"):
        assert decide(policy, "run_shell", {"command": command}).kind == "allow", command
