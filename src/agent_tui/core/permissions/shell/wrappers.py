"""Wrappers: programs that run another command given in their arguments, with their options.

A maintained table. For each wrapper it says which options take a value (so the analysis knows
where the wrapped command starts), which options write a file (``time -o``), hand shell code
(``flock -c``) or set the environment (``xargs --process-slot-var``), how many operands come
before the command (``timeout DURATION``), and whether the wrapper is *transparent* — it only
changes how the command runs, so rules judge the command inside — or not (``sudo``: rules must
name the wrapper too). An option a wrapper's entry does not list makes the command opaque: the
analysis cannot tell where the wrapped command starts, so no rule allows it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


@dataclass(frozen=True)
class WrapperSpec:
    flags: frozenset[str] = frozenset()
    """Options without a value (``-p``, ``--foreground``)."""
    valued: frozenset[str] = frozenset()
    """Options that take a value (``-s SIG``, ``--signal=SIG``)."""
    positional: int = 0
    """Operands before the command (``timeout DURATION``, ``chroot NEWROOT``)."""
    transparent: bool = True
    writes: frozenset[str] = frozenset()
    """Options whose value is a file the wrapper writes."""
    code: frozenset[str] = frozenset()
    """Options whose value is shell code it runs."""
    env: frozenset[str] = frozenset()
    """Options that set an environment variable (``NAME`` or ``NAME=VALUE``)."""
    no_command: frozenset[str] = frozenset()
    """Options with which no command runs (``command -v``, ``taskset -p``)."""
    default: str | None = None
    """What runs when no command is given: a program name, or ``shell`` (an interactive
    shell: opaque); None: nothing runs."""
    assignments: bool = False
    """``NAME=VALUE`` operands before the command set its environment (``env``)."""
    appends_args: bool = False
    """The command gets further arguments read at run time (``xargs``)."""
    replace: frozenset[str] = frozenset()
    """Options naming a placeholder replaced at run time (``xargs -I {}``)."""
    joins: bool = False
    """The command words are joined into one string run by ``sh -c`` (``watch``)."""
    digits: bool = False
    """``-N`` (a number) is a flag (``nice -10``)."""
    lenient: bool = False
    """The option grammar is too rich to list: every ``-x``/``--x[=v]`` is taken as a flag, so
    the command found inside is a guess. Such a wrapper is never transparent (rules name it
    with its words); deny rules see the guess, and any of their program names among its
    words makes the call ask."""
    after_positional_code: frozenset[str] = frozenset()
    """Options after the operands whose value is shell code (``flock FILE -c CMD``)."""
    positional_writes: bool = False
    """The operands before the command are files it creates (``flock FILE``)."""
    subcommand: str | None = None
    """A two-word wrapper: the second word (``uv run``, ``bundle exec``)."""
    extra: dict[str, str] = field(default_factory=dict, hash=False)


GNU_TIME = WrapperSpec(
    flags=_set("-p -v -q -a --verbose --quiet --append --portability"),
    valued=_set("-f -o --format --output"),
    writes=_set("-o --output"),
)

WRAPPERS: dict[str, WrapperSpec] = {
    "env": WrapperSpec(
        flags=_set("-i -0 -v --ignore-environment --null --debug - --list-signal-handling"),
        valued=_set("-u -C -P --unset --chdir --default-signal --ignore-signal --block-signal"),
        assignments=True,
        code=_set("-S --split-string"),
    ),
    "command": WrapperSpec(flags=_set("-p"), no_command=_set("-v -V")),
    "builtin": WrapperSpec(),
    "exec": WrapperSpec(flags=_set("-c -l"), valued=_set("-a")),
    "nohup": WrapperSpec(),
    "coproc": WrapperSpec(),
    "time": GNU_TIME,
    "nice": WrapperSpec(valued=_set("-n --adjustment"), digits=True),
    "ionice": WrapperSpec(
        flags=_set("-t --ignore"),
        valued=_set("-c -n --class --classdata"),
        no_command=_set("-p -P -u --pid --pgid --uid"),
    ),
    "timeout": WrapperSpec(
        flags=_set("--preserve-status --foreground -v --verbose"),
        valued=_set("-s -k --signal --kill-after"),
        positional=1,
    ),
    "stdbuf": WrapperSpec(valued=_set("-i -o -e --input --output --error")),
    "setsid": WrapperSpec(flags=_set("-c -f -w --ctty --fork --wait")),
    "flock": WrapperSpec(
        flags=_set(
            "-s -x -e -u -n -o -F --shared --exclusive --unlock --nonblock --close --no-fork "
            "--verbose"
        ),
        valued=_set("-w -E --timeout --conflict-exit-code"),
        positional=1,
        positional_writes=True,
        after_positional_code=_set("-c --command"),
    ),
    "chronic": WrapperSpec(flags=_set("-e -v")),
    "unbuffer": WrapperSpec(flags=_set("-p")),
    "caffeinate": WrapperSpec(flags=_set("-d -i -m -s -u"), valued=_set("-t -w")),
    "eatmydata": WrapperSpec(),
    "nocache": WrapperSpec(),
    "catchsegv": WrapperSpec(),
    "taskset": WrapperSpec(
        flags=_set("-a -c --all-tasks --cpu-list"), positional=1, no_command=_set("-p --pid")
    ),
    "chrt": WrapperSpec(
        flags=_set(
            "-b -d -f -i -o -r -a -m -v -R --batch --deadline --fifo --idle --other --rr "
            "--all-tasks --reset-on-fork --verbose --max"
        ),
        valued=_set("-T -P -D --sched-runtime --sched-period --sched-deadline"),
        positional=1,
        no_command=_set("-p --pid"),
    ),
    "xargs": WrapperSpec(
        flags=_set(
            "-0 -p -r -t -x -o --null --interactive --no-run-if-empty --verbose --exit "
            "--open-tty --show-limits"
        ),
        valued=_set(
            "-a -d -E -I -L -n -P -s --arg-file --delimiter --eof --replace --max-lines "
            "--max-args --max-procs --max-chars"
        ),
        env=_set("--process-slot-var"),
        replace=_set("-I --replace -i"),
        appends_args=True,
        default="echo",
    ),
    "watch": WrapperSpec(
        flags=_set(
            "-b -c -C -d -e -g -t -p -r -w --beep --color --no-color --differences --errexit "
            "--chgexit --no-title --precise --no-rerun --no-wrap"
        ),
        valued=_set("-n -q --interval --equexit"),
        joins=True,
        extra={"argv": "-x --exec"},
    ),
    "strace": WrapperSpec(
        flags=_set(
            "-f -ff -c -C -d -D -F -h -i -k -q -qq -r -t -tt -ttt -T -v -V -w -x -xx -y -yy "
            "-z -Z -n"
        ),
        valued=_set("-a -b -e -E -I -o -O -s -S -X -U --output --trace --signal"),
        writes=_set("-o --output"),
        env=_set("-E"),
        no_command=_set("-p -P --attach"),
    ),
    "ltrace": WrapperSpec(
        flags=_set("-b -c -C -f -h -i -L -r -S -t -tt -ttt -T -V --demangle"),
        valued=_set("-a -A -D -e -F -l -n -o -s -u -w -x --output"),
        writes=_set("-o --output"),
        no_command=_set("-p"),
    ),
    "valgrind": WrapperSpec(transparent=False, lenient=True),
    # not transparent: the command runs as another user, in another root or namespace
    "sudo": WrapperSpec(
        transparent=False,
        flags=_set(
            "-A -b -E -H -K -k -n -P -S -B -N --askpass --background --preserve-env "
            "--set-home --non-interactive --preserve-groups --stdin --bell --no-update"
        ),
        valued=_set(
            "-u -g -C -D -h -p -r -t -T -U -R --user --group --close-from --chdir --host "
            "--prompt --role --type --command-timeout --other-user --chroot"
        ),
        default="shell",
        extra={"opaque": "-e -i -s -l -v -V --edit --login --shell --list --validate"},
    ),
    "doas": WrapperSpec(
        transparent=False,
        flags=_set("-n -L"),
        valued=_set("-u -C -a"),
        default="shell",
        extra={"opaque": "-s"},
    ),
    "pkexec": WrapperSpec(
        transparent=False,
        flags=_set("--disable-internal-agent --keep-cwd"),
        valued=_set("--user"),
        default="shell",
    ),
    "run0": WrapperSpec(transparent=False, lenient=True, default="shell"),
    "su": WrapperSpec(
        transparent=False,
        lenient=True,
        default="shell",
        code=_set("-c --command --session-command"),
    ),
    "runuser": WrapperSpec(
        transparent=False,
        lenient=True,
        default="shell",
        code=_set("-c --command --session-command"),
    ),
    "sg": WrapperSpec(transparent=False, lenient=True, default="shell", code=_set("-c")),
    "nix-shell": WrapperSpec(
        transparent=False, lenient=True, default="shell", code=_set("--run --command")
    ),
    "chroot": WrapperSpec(
        transparent=False,
        flags=_set("--skip-chdir"),
        valued=_set("--userspec --groups"),
        positional=1,
        default="shell",
    ),
    "unshare": WrapperSpec(transparent=False, lenient=True, default="shell"),
    "nsenter": WrapperSpec(transparent=False, lenient=True, default="shell"),
    "setpriv": WrapperSpec(transparent=False, lenient=True),
    "capsh": WrapperSpec(transparent=False, lenient=True, default="shell"),
    "firejail": WrapperSpec(transparent=False, lenient=True, default="shell"),
    "systemd-run": WrapperSpec(transparent=False, lenient=True),
    "fakeroot": WrapperSpec(
        transparent=False, flags=_set("-u --unknown-is-real"), valued=_set("-l -s -i --lib")
    ),
    "script": WrapperSpec(
        transparent=False, lenient=True, default="shell", code=_set("-c --command")
    ),
    "numactl": WrapperSpec(transparent=False, lenient=True),
    "prlimit": WrapperSpec(transparent=False, lenient=True),
    "proxychains": WrapperSpec(transparent=False, flags=_set("-q"), valued=_set("-f")),
    "proxychains4": WrapperSpec(transparent=False, flags=_set("-q"), valued=_set("-f")),
    "torsocks": WrapperSpec(transparent=False, lenient=True),
    "rlwrap": WrapperSpec(transparent=False, lenient=True),
    "dbus-launch": WrapperSpec(transparent=False, lenient=True),
    "faketime": WrapperSpec(transparent=False, lenient=True, positional=1),
    "dotenv": WrapperSpec(transparent=False, lenient=True),
    "busybox": WrapperSpec(transparent=False),
    "toybox": WrapperSpec(transparent=False),
    "uvx": WrapperSpec(transparent=False, lenient=True),
    "npx": WrapperSpec(transparent=False, lenient=True),
    "bunx": WrapperSpec(transparent=False, lenient=True),
    "pnpx": WrapperSpec(transparent=False, lenient=True),
}

# Two-word wrappers: a tool's sub-command that runs a program (``uv run pytest``). Rules match
# them with their words (``run_shell(uv run pytest:*)``); deny rules also see the program.
RUNNERS: dict[tuple[str, str], WrapperSpec] = {
    (tool, sub): WrapperSpec(transparent=False, lenient=True)
    for tool, sub in (
        ("uv", "run"),
        ("poetry", "run"),
        ("pipenv", "run"),
        ("pdm", "run"),
        ("hatch", "run"),
        ("conda", "run"),
        ("mamba", "run"),
        ("pixi", "run"),
        ("bundle", "exec"),
        ("npm", "exec"),
        ("pnpm", "exec"),
        ("pnpm", "dlx"),
        ("yarn", "exec"),
        ("yarn", "dlx"),
        ("bun", "x"),
        ("mise", "exec"),
        ("mise", "x"),
        ("asdf", "exec"),
        ("rbenv", "exec"),
        ("pyenv", "exec"),
        ("nodenv", "exec"),
        ("direnv", "exec"),
        ("devbox", "run"),
        ("rtx", "exec"),
    )
}


def spec_option(arg: str, names: Iterable[str]) -> bool:
    """``--output=FILE`` and ``--output`` both name the option ``--output``."""
    return arg.split("=", 1)[0] in set(names)


def extra_set(spec: WrapperSpec, key: str) -> frozenset[str]:
    return _set(spec.extra.get(key, ""))
