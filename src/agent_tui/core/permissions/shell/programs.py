"""What the analysis knows about particular programs: shells, interpreters, the environment
variables that make programs run code, and the words bash reserves.

Maintained tables, each documented in README.md (Permissions). A program missing from them is an
ordinary command: rules judge its words, and what it does with them is its own business (the OS
sandbox bounds that, not the parser).
"""

from __future__ import annotations

import re

from agent_tui.core.permissions.shell.git_tables import GLOBAL as GIT_GLOBAL


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


SHELLS = _set("bash sh dash ash")
"""Shells whose ``-c`` code is bash-compatible: it is parsed and analysed like the command."""
OTHER_SHELLS = _set("zsh ksh mksh ksh93 pdksh fish csh tcsh yash elvish nu xonsh pwsh powershell")
"""Shells with another grammar: code given to them is never seen by the analysis."""

INTERPRETERS = _set(
    "python python2 python3 pypy pypy3 node nodejs deno bun ruby irb perl php lua luajit tclsh "
    "wish Rscript R julia osascript awk gawk mawk nawk busybox jshell groovy scala kotlin "
    "expect gdb lldb sqlite3 psql mysql vim vi nvim emacs ex ed make cmake"
)
"""Programs that run code they are given (inline, from stdin or a file)."""
_PYTHON = re.compile(r"python\d*(\.\d+)*|pypy\d*")

INLINE_CODE_OPTIONS: dict[str, frozenset[str]] = {
    "python": _set("-c"),
    "node": _set("-e --eval -p --print"),
    "deno": _set("eval"),
    "bun": _set("-e --eval -p --print"),
    "ruby": _set("-e"),
    "perl": _set("-e -E"),
    "php": _set("-r"),
    "lua": _set("-e"),
    "Rscript": _set("-e"),
    "osascript": _set("-e"),
    "julia": _set("-e -E"),
    "gdb": _set("-ex -eval-command"),
    "vim": _set("-c --cmd"),
}


def interpreter_family(name: str) -> str | None:
    """``python3.12`` → ``python``; ``nodejs`` → ``node``; None when not an interpreter."""
    if _PYTHON.fullmatch(name):
        return "python"
    if name in ("nodejs",):
        return "node"
    if name in ("nvim", "vi", "ex"):
        return "vim"
    if name in ("gawk", "mawk", "nawk"):
        return "awk"
    return name if name in INTERPRETERS else None


RESERVED = _set(
    "if then else elif fi case esac for select while until do done in function time { } ! [[ ]] "
    "coproc"
)
"""Bash's reserved words: seen as a command *name* they mean the parser and bash disagree."""

NO_FILE_READS = _set(
    "echo printf true false : test [ expr seq sleep basename dirname export declare local "
    "typeset readonly set unset shift exit return cd pushd popd kill wait jobs type which "
    "hash date id whoami uname pwd umask ulimit let printenv hostname nproc tput"
)
"""Programs that never open a file named by an argument: a run-time argument (``echo $x``)
cannot make them read a denied file."""

# -- the environment ---------------------------------------------------------------------------

DANGEROUS_ENV_PREFIXES = (
    "GIT_",
    "LD_",
    "DYLD_",
    "PYTHON",
    "NODE_",
    "NPM_CONFIG_",
    "YARN_",
    "PERL",
    "RUBY",
    "BASH_FUNC_",
    "BUNDLE_",
    "CARGO_",
    "RUSTC",
    "MAVEN_",
    "GRADLE_",
    "JAVA_",
    "_JAVA_",
    "JDK_",
    "DOTNET_",
    "PIP_",
    "UV_",
    "LUA_",
    "PHP",
    "GEM_",
    "LESS",
    "SSH_",
    "GNUPG",
    "XDG_",
    "GCONV_",
)
DANGEROUS_ENV = _set(
    "PATH BASH_ENV ENV SHELLOPTS BASHOPTS PS4 PROMPT_COMMAND PAGER MANPAGER EDITOR VISUAL "
    "BROWSER SHELL HOME CDPATH ZDOTDIR INPUTRC TERMINFO MAKEFLAGS MFLAGS CC CXX CPP LDFLAGS "
    "CFLAGS CXXFLAGS CPPFLAGS NODE_OPTIONS NODE_PATH RUBYOPT RUBYLIB PERL5OPT PERL5LIB PERLLIB "
    "PYTHONPATH PYTHONSTARTUP PYTHONHOME TAR_OPTIONS GREP_OPTIONS CLASSPATH "
    "PKG_CONFIG_PATH EXINIT VIMINIT MYVIMRC WGETRC CURL_HOME NETRC HISTFILE"
)


def dangerous_variable(name: str) -> str | None:
    """Why setting ``name`` can make an allowed program run other code, or None."""
    upper = name.upper()
    if upper == "PATH":
        return "PATH decides which program a command name runs"
    if upper in ("BASH_ENV", "ENV", "ZDOTDIR"):
        return f"{name} names a script every new shell runs"
    if upper in ("HOME", "XDG_CONFIG_HOME", "CDPATH"):
        return f"{name} moves where programs find their configuration"
    if upper in DANGEROUS_ENV or any(upper.startswith(p) for p in DANGEROUS_ENV_PREFIXES):
        return f"{name} changes what programs load or run"
    return None


NETWORK_PROGRAMS = _set(
    "curl wget ssh scp sftp nc ncat netcat socat telnet ftp lftp http https xh aria2c ping "
    "ping6 traceroute tracepath mtr dig nslookup host whois nmap gh glab hub aws gcloud az "
    "kubectl helm docker podman npx pnpx bunx"
)
"""Programs whose work is the network: a sandbox without it makes them fail."""
NETWORK_SUBCOMMANDS: dict[str, frozenset[str]] = {
    "git": _set("clone fetch pull push ls-remote submodule remote archive request-pull"),
    "pip": _set("install download"),
    "pip3": _set("install download"),
    "uv": _set("add sync lock pip tool run venv python"),
    "uvx": _set(""),
    "poetry": _set("add install update lock"),
    "npm": _set("install i ci add update publish exec view audit outdated"),
    "pnpm": _set("install i add update publish dlx"),
    "yarn": _set("install add upgrade publish dlx"),
    "bun": _set("install i add update publish"),
    "cargo": _set("install fetch update publish search add"),
    "go": _set("get install"),
    "gem": _set("install update push fetch"),
    "bundle": _set("install update"),
    "composer": _set("install update require"),
    "apt": _set("install update upgrade"),
    "apt-get": _set("install update upgrade"),
    "brew": _set("install update upgrade"),
    "rsync": _set(""),
}
"""Programs that need the network for some subcommands (an empty set: for every use; rsync is
judged by its arguments: ``host:path``)."""


def network_use(argv: list[str]) -> str | None:
    """What of ``argv`` (a program and its arguments) needs the network, or None."""
    if not argv:
        return None
    name = argv[0].rsplit("/", 1)[-1]
    if name in NETWORK_PROGRAMS:
        return name
    subcommands = NETWORK_SUBCOMMANDS.get(name)
    if subcommands is None:
        return None
    if name == "rsync":
        remote = any(":" in a.split("/", 1)[0] and not a.startswith("-") for a in argv[1:])
        return "rsync to another host" if remote else None
    if not subcommands:
        return name
    word = _subcommand(name, argv[1:])
    return f"{name} {word}" if word in subcommands else None


NETWORK_GLOBAL_VALUED: dict[str, frozenset[str]] = {
    "git": GIT_GLOBAL.valued,
    "go": _set("-C"),
    "pip": _set("--proxy --cache-dir --log --timeout --retries --cert --client-cert --python"),
    "pip3": _set("--proxy --cache-dir --log --timeout --retries --cert --client-cert --python"),
    "uv": _set("--directory --project --python -p --cache-dir --config-file --color"),
    "poetry": _set("-C --directory -P --project"),
    "npm": _set("--prefix -w --workspace --cache --userconfig --registry"),
    "pnpm": _set("-C --dir --filter -F --store-dir --registry"),
    "yarn": _set("--cwd --cache-folder --registry"),
    "bun": _set("--cwd -c --config"),
    "cargo": _set("-C -Z --config --color"),
    "composer": _set("-d --working-dir"),
    "apt": _set("-o -c -t"),
    "apt-get": _set("-o -c -t"),
}
"""Options before the subcommand that take the next word as their value (``git -C dir fetch``:
``dir`` is not the subcommand)."""


def _subcommand(name: str, args: list[str]) -> str | None:
    """The first word of ``args`` that is neither an option, an option's value, nor a
    toolchain (``cargo +nightly install``)."""
    valued = NETWORK_GLOBAL_VALUED.get(name, frozenset())
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg.startswith("-"):
            skip = arg in valued  # ``--git-dir=x`` carries its value
            continue
        if arg.startswith("+") and name == "cargo":
            continue
        return arg
    return None
