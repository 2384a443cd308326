"""What the analysis knows about particular programs: shells, interpreters, the environment
variables that make programs run code, and the words bash reserves.

Maintained tables, each documented in docs/permissions.md. A program missing from them is an
ordinary command: rules judge its words, and what it does with them is its own business (the OS
sandbox bounds that, not the parser).
"""

from __future__ import annotations

import re

from agent_tui.core.permissions.shell.git_tables import GLOBAL as GIT_GLOBAL


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


SHELLS = _set("bash sh dash ash rbash")
"""Shells whose ``-c`` code is bash-compatible: it is parsed and analysed like the command
(``rbash`` is bash in restricted mode: same grammar, and ``rm x`` still runs)."""
OTHER_SHELLS = _set(
    "zsh ksh mksh ksh93 pdksh fish csh tcsh yash elvish nu xonsh pwsh powershell "
    "rzsh rksh lksh oksh loksh posh hush osh ysh bosh pbosh brush"
)
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
    "CGO_",
    "RUSTUP_",
    "DOCKER_",
    "AWS_",
    "CLOUDSDK_",
    "COMPOSER_",
    "DENO_",
    "HELM_",
    "ANSIBLE_",
    "PUPPETEER_",
    "PLAYWRIGHT_",
    "ELECTRON_",
    "OPENSSL_",
    "GTK_",
    "QT_",
    "JULIA_",
    "R_",
    "PYTEST_",
    "TS_NODE_",
    "PNPM_",
    "BUN_",
    "POETRY_",
    "PIPENV_",
    "PYENV_",
    "RBENV_",
    "NODENV_",
    "NVM_",
    "ASDF_",
    "MISE_",
    "RTX_",
    "CMAKE_",
    "CORECLR_",
    "COMPLUS_",
    "DOTNET_",
    "ASPNETCORE_",
    "SYSTEMD_",
    "GH_",
    "KRB5",
    "GIO_",
    "GST_",
    "NVIM_",
    "CONDA_",
    "ERL_",
    "ELIXIR_",
    "GUILE_",
    "JUPYTER_",
)
DANGEROUS_SUFFIXES = (
    "_OPTS",
    "_OPTIONS",
    "_FLAGS",
    "_PATH",
    "_DIRS",
    "_PAGER",
    "_EDITOR",
    "_BROWSER",
    "_SHELL",
    "_COMMAND",
    "_CMD",
    "_PLUGINS",
    "_PLUGIN",
    "_PRELOAD",
    "_WRAPPER",
    "_LAUNCHER",
    "_PROGRAM",
    "_EXECUTABLE",
    "_HOOKS",
    "_RC",
    "_RCFILE",
    "_CONFIG",
    "_CONFIG_FILE",
    "_CONF",
    "_HOME",
    "_ROOT",
    "_PREFIX",
    "_STARTUP",
    "_ASKPASS",
    "_ARGS",
    "_MODULE",
    "_MODULES",
    "_APP",
    "_CLASS",
    "_CLASSES",
    "BACKEND",
    "_LOADER",
    "_IMPORTS",
    "_REQUIRE",
    "_ENTRYPOINT",
    "_SCRIPT",
    "_SCRIPTS",
    "_FILE",
    "_DIR",
)
"""Endings of names that, whatever the program, usually carry options, programs, modules or
places to load from or write to (``PYTEST_ADDOPTS``, ``SBT_OPTS``, ``SUDO_EDITOR``,
``TERMINFO_DIRS``, ``DJANGO_SETTINGS_MODULE``, ``FLASK_APP``, ``MPLBACKEND``,
``GUNICORN_CMD_ARGS``, ``CARGO_TARGET_DIR``)."""
DANGEROUS_ENV = _set(
    "PATH BASH_ENV ENV SHELLOPTS BASHOPTS PS4 PROMPT_COMMAND PAGER MANPAGER EDITOR VISUAL "
    "BROWSER SHELL HOME CDPATH ZDOTDIR INPUTRC TERMINFO MAKEFLAGS MFLAGS CC CXX CPP LDFLAGS "
    "CFLAGS CXXFLAGS CPPFLAGS NODE_OPTIONS NODE_PATH RUBYOPT RUBYLIB PERL5OPT PERL5LIB PERLLIB "
    "PYTHONPATH PYTHONSTARTUP PYTHONHOME TAR_OPTIONS GREP_OPTIONS CLASSPATH "
    "PKG_CONFIG_PATH EXINIT VIMINIT MYVIMRC WGETRC CURL_HOME NETRC HISTFILE "
    "GOFLAGS GOPROXY GOSUMDB GONOSUMDB GONOSUMCHECK GOINSECURE GOPRIVATE GONOPROXY GOTOOLCHAIN "
    "GOROOT GOPATH GOENV GOEXPERIMENT RUSTFLAGS RUSTDOCFLAGS MAKEFILES GNUMAKEFLAGS CONFIG_SHELL "
    "KUBECONFIG PSQLRC TCLLIBPATH EMACSLOADPATH VIMRUNTIME TMPDIR TMP TEMP SUDO_ASKPASS "
    "LOCPATH NLSPATH HOSTALIASES FCEDIT VIRTUAL_ENV GOBIN AR AS LD NM RANLIB STRIP OBJCOPY "
    "OBJDUMP FC F77 F90 MAKE PKG_CONFIG YACC LEX M4 CCACHE_PREFIX DISTCC_HOSTS MPLCONFIGDIR "
    "IPYTHONDIR "
    # options and archives of the programs with option tables, from the environment
    # (redteam3): tar's default archive and remote-tape program, zip's and unzip's options
    # (zip -TT runs a program), man's options (-P, -H, -C) and groff's (-U: a page's .sy runs),
    # rsync's remote shell and daemon-connection program
    "TAPE RMT ZIPOPT ZIP UNZIP UNZIPOPT ZIPINFO ZIPINFOOPT MANOPT MANROFFOPT MANPL "
    "RSYNC_RSH RSYNC_CONNECT_PROG"
)
"""Variables (and, above, families) that make programs load or run other code, or move
where they read configuration or write: setting one asks unless a rule names it."""
HARMLESS_IN_FAMILIES = _set(
    "PYTHONDONTWRITEBYTECODE PYTHONUNBUFFERED PYTHONHASHSEED PYTHONUTF8 PYTHONFAULTHANDLER "
    "PYTHONDEVMODE PYTHONNOUSERSITE PYTHONSAFEPATH PYTHONOPTIMIZE PYTHONVERBOSE "
    "PYTHONTRACEMALLOC PYTHONCOERCECLOCALE PYTHONNODEBUGRANGES PYTHONINTMAXSTRDIGITS "
    "NODE_ENV NODE_NO_WARNINGS NODE_DISABLE_COLORS NODE_PENDING_DEPRECATION "
    "GIT_TERMINAL_PROMPT GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE GIT_COMMITTER_NAME "
    "GIT_COMMITTER_EMAIL GIT_COMMITTER_DATE GIT_OPTIONAL_LOCKS GIT_MERGE_AUTOEDIT "
    "CARGO_TERM_COLOR CARGO_TERM_VERBOSE CARGO_TERM_QUIET CARGO_TERM_PROGRESS_WHEN "
    "CARGO_INCREMENTAL CARGO_BUILD_JOBS "
    "DOTNET_CLI_TELEMETRY_OPTOUT DOTNET_NOLOGO DOTNET_SKIP_FIRST_TIME_EXPERIENCE "
    "PIP_DISABLE_PIP_VERSION_CHECK PIP_NO_INPUT PIP_NO_COLOR PIP_QUIET PIP_PROGRESS_BAR "
    "UV_NO_PROGRESS UV_OFFLINE "
    "NPM_CONFIG_LOGLEVEL NPM_CONFIG_FUND NPM_CONFIG_AUDIT NPM_CONFIG_UPDATE_NOTIFIER "
    "NPM_CONFIG_PROGRESS NPM_CONFIG_COLOR "
    "LESSCHARSET PYTEST_DISABLE_PLUGIN_AUTOLOAD"
)
"""Names inside the dangerous families above that only switch a documented behaviour (no
file, program, module or configuration location): an allow-list — another ``PYTHON…`` name
stays dangerous (``PYTHONWARNINGS`` imports the categories it names, ``PYTHONBREAKPOINT`` a
callable, ``PYTHONPYCACHEPREFIX`` writes elsewhere)."""


def dangerous_variable(name: str) -> str | None:
    """Why setting ``name`` can make an allowed program run other code, or None."""
    upper = name.upper()
    if upper == "PATH":
        return "PATH decides which program a command name runs"
    if upper in ("BASH_ENV", "ENV", "ZDOTDIR"):
        return f"{name} names a script every new shell runs"
    if upper in ("HOME", "XDG_CONFIG_HOME", "CDPATH"):
        return f"{name} moves where programs find their configuration"
    if upper in DANGEROUS_ENV:
        return f"{name} changes what programs load or run"
    if upper in HARMLESS_IN_FAMILIES:
        return None
    if any(upper.startswith(p) for p in DANGEROUS_ENV_PREFIXES) or upper.endswith(
        DANGEROUS_SUFFIXES
    ):
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
