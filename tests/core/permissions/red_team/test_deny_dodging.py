"""Deny dodging: with ``run_shell(rm:*)`` denied, every way of running ``rm canary`` is
denied — in default *and* bypass mode (a deny rule wins in every mode, and never turns into a
question: spellings the analysis resolves statically are denied for what they run, opaque code
that mentions ``rm`` for the mention). Each is run bare first, to prove it really deletes the
canary."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.permissions import Mode
from tests.core.permissions.red_team.harness import DELETES, Attack, attacks, prove, rules

DODGES: list[Attack] = attacks(
    DELETES,
    # spellings of the name
    "rm canary",
    "/bin/rm canary",
    "/usr/bin/rm canary",
    "\\rm canary",
    '"rm" canary',
    "'rm' canary",
    "r''m canary",
    'r""m canary',
    "r\\m canary",
    "$'rm' canary",
    "$'\\x72m' canary",
    "$'\\162m' canary",
    "$'\\u0072m' canary",
    '$"rm" canary',
    "{rm,canary}",
    "{rm,-f,canary}",
    "${X:-rm} canary",
    "x=rm; $x canary",
    "x='rm canary'; $x",
    "$(echo rm) canary",
    "`echo rm` canary",
    '"$(printf rm)" canary',
    "/???/r? canary",
    "/bin/r? canary",
    "/bin/r[m] canary",
    "/usr/bin/./rm canary",
    "/usr/bin/../bin/rm canary",
    # flags in any order and grouping
    "rm -f canary",
    "rm -rf canary",
    "rm -r -f canary",
    "rm canary -f",
    "rm -- canary",
    'rm "$(echo canary)"',
    "rm $(ls canary)",
    # wrappers and their options
    "command rm canary",
    "command -p rm canary",
    "exec rm canary",
    "exec -a foo rm canary",
    "env rm canary",
    "env -i rm canary",
    "env -u HOME rm canary",
    "env -- rm canary",
    "env FOO=1 rm canary",
    "env -S 'rm canary'",
    "FOO=1 rm canary",
    "timeout 5 rm canary",
    "timeout -k 1 5 rm canary",
    "timeout --signal=KILL 5 rm canary",
    "timeout -- 5 rm canary",
    "nice rm canary",
    "nice -n 10 rm canary",
    "nice -10 rm canary",
    "nohup rm canary",
    "stdbuf -o0 rm canary",
    "stdbuf --output=L rm canary",
    "setsid -w rm canary",
    "time rm canary",
    "time -p rm canary",
    ("/usr/bin/time -o /dev/null rm canary", ("/usr/bin/time",)),
    "echo canary | xargs rm",
    "echo canary | xargs -I{} rm {}",
    "xargs --process-slot-var=X rm canary < /dev/null",
    "xargs -0 rm canary < /dev/null",
    "find . -name canary -exec rm {} \\;",
    "find . -name canary -execdir rm {} +",
    "find . -name canary -exec sh -c 'rm canary' \\;",
    "flock lockf rm canary",
    "flock lockf -c 'rm canary'",
    ("chroot --skip-chdir / rm canary", ("chroot",)),
    ("unshare rm canary", ("unshare",)),
    ("taskset 1 rm canary", ("taskset",)),
    ("taskset -c 0 rm canary", ("taskset",)),
    ("chrt -o 0 rm canary", ("chrt",)),
    ("ionice -c 3 rm canary", ("ionice",)),
    ("strace -o /dev/null rm canary", ("strace",)),
    ("su -c 'rm canary'", ("su",)),
    ("script -qc 'rm canary' /dev/null", ("script",)),
    ("sudo rm canary", ("sudo",)),
    ("doas rm canary", ("doas",)),
    ("busybox rm canary", ("busybox",)),
    "coproc rm canary; wait",
    "nohup rm canary > /dev/null",
    # shells and code
    "bash -c 'rm canary'",
    "sh -c 'rm canary'",
    'bash -c "rm canary"',
    "bash -lc 'rm canary'",
    "bash -c -- 'rm canary'",
    "bash -xc 'rm canary'",
    ("dash -c 'rm canary'", ("dash",)),
    'bash -c "$(echo rm canary)"',
    "bash -c '$0 canary' rm",
    "eval rm canary",
    "eval 'rm canary'",
    'eval "$(echo rm canary)"',
    "echo rm canary | sh",
    "echo rm canary | bash",
    "bash <<< 'rm canary'",
    "bash <<EOF\nrm canary\nEOF",
    "source <(echo rm canary)",
    ". <(echo rm canary)",
    "trap 'rm canary' EXIT",
    "python3 -c \"import os; os.system('rm canary')\"",
    "perl -e 'system(\"rm canary\")'",
    "awk 'BEGIN{system(\"rm canary\")}'",
    "echo | sed 'e rm canary'",
    "git -c alias.x='!rm canary' x",
    # compound commands
    "if true; then rm canary; fi",
    "for f in canary; do rm $f; done",
    "while true; do rm canary; break; done",
    "case 1 in 1) rm canary;; esac",
    "f() { rm canary; }; f",
    "{ rm canary; }",
    "(rm canary)",
    "echo $(rm canary)",
    "echo ${x:-$(rm canary)}",
    "cat <(rm canary)",
    "true && rm canary",
    "false || rm canary",
    "true; rm canary",
    "true | rm canary",
    "true & rm canary; wait",
    "true\nrm canary",
)


@pytest.mark.parametrize("mode", [Mode.DEFAULT, Mode.BYPASS], ids=["default", "bypass"])
@pytest.mark.parametrize("attack", DODGES, ids=lambda a: a.id)
async def test_a_denied_program_cannot_be_run_by_another_spelling(
    tmp_path: Path, attack: Attack, mode: Mode
) -> None:
    decision = await prove(tmp_path, attack, rules(), mode)
    assert decision.kind == "deny", decision
