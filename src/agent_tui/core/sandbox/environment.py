"""The environment of the commands the agent starts (``run_shell``, hooks): allow-listed.

A prompt-injected model that runs ``env``, ``cat /proc/1/environ`` or ``ps e`` reads whatever the
command's environment holds into its own context. So a sandboxed command gets only what
commands need (``ALLOWED``, ``LC_*``), the user's own additions (``shell.env`` in the *user*
settings: a repository cannot add names), and never the agent's provider keys
(``PROVIDER_KEYS``), even when listed. Anything secret-looking (``*_TOKEN``, ``*_KEY``,
``*SECRET*``, ``*PASSWORD*``…) enters only when its exact name is listed: a pattern such as
``CI_*`` never lets one in. The environment is given to ``bwrap`` itself, not cleared inside:
with its own PID namespace the sandbox's PID 1 is bwrap's child, whose ``/proc/1/environ``
shows exactly the same.

Unsandboxed (``sandbox.mode`` off, or no working bubblewrap) a command runs as the user and
can read the user's files anyway; it gets the agent's environment minus the provider keys (and
any variable whose value holds one of them).

The settings files' ``env`` (Claude Code's key: ``sandbox.session_env``) is layered in by
``for_command``: the user's variables over the agent's, passing the allow-list by name unless
a name looks secret (then ``shell.env`` must list it, as for any secret); a trusted project's
only where no variable of that name is set otherwise.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_tui.core.sandbox.session_env import SessionEnv
    from agent_tui.core.sandbox.shell_sandbox import ShellSandbox

ALLOWED = frozenset(
    {
        # the basics every command expects
        "PATH",
        "HOME",
        "USER",
        "LOGNAME",
        "SHELL",
        "LANG",
        "LANGUAGE",
        "TZ",
        "TMPDIR",  # only when commands can write there (``_tmpdir``)
        "TERM",
        "CI",
        # locations (paths, no secrets)
        "XDG_CONFIG_HOME",
        "XDG_DATA_HOME",
        "XDG_CACHE_HOME",
        "XDG_STATE_HOME",
        "XDG_DATA_DIRS",
        "XDG_CONFIG_DIRS",
        "MANPATH",
        "INFOPATH",
        "PKG_CONFIG_PATH",
        "LD_LIBRARY_PATH",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "REQUESTS_CA_BUNDLE",
        "CURL_CA_BUNDLE",
        "NODE_EXTRA_CA_CERTS",
        # toolchains: where they are and how they behave
        "VIRTUAL_ENV",
        "CONDA_PREFIX",
        "CONDA_DEFAULT_ENV",
        "CONDA_EXE",
        "PYENV_ROOT",
        "PYENV_VERSION",
        "PYTHONPATH",
        "PYTHONHOME",
        "PYTHONDONTWRITEBYTECODE",
        "PYTHONUTF8",
        "PYTHONIOENCODING",
        "PYTHONUNBUFFERED",
        "GOPATH",
        "GOROOT",
        "GOBIN",
        "GOCACHE",
        "GOMODCACHE",
        "GOFLAGS",
        "CARGO_HOME",
        "RUSTUP_HOME",
        "RUSTUP_TOOLCHAIN",
        "NVM_DIR",
        "NVM_BIN",
        "NODE_PATH",
        "VOLTA_HOME",
        "BUN_INSTALL",
        "DENO_DIR",
        "JAVA_HOME",
        "GRADLE_USER_HOME",
        "MAVEN_HOME",
        "M2_HOME",
        "ANDROID_HOME",
        "ANDROID_SDK_ROOT",
        "DOTNET_ROOT",
        "GEM_HOME",
        "GEM_PATH",
        "RBENV_ROOT",
        "CC",
        "CXX",
        "CFLAGS",
        "CXXFLAGS",
        "CPPFLAGS",
        "LDFLAGS",
        "MAKEFLAGS",
        "CMAKE_PREFIX_PATH",
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
        "NIX_PATH",
        "NIX_PROFILES",
        "NIX_SSL_CERT_FILE",
    }
)
"""Passed to sandboxed commands when set: what programs need to run and find their toolchain;
none of them holds a secret. Not passed: proxies (``http_proxy`` may hold a password),
package-index URLs (``PIP_INDEX_URL``, ``GOPROXY``: the same), sockets (``SSH_AUTH_SOCK``,
``DBUS_SESSION_BUS_ADDRESS``, ``DISPLAY``: unreachable in the sandbox anyway), editors, and
everything else — list what you need in ``shell.env``."""
ALLOWED_PREFIXES = ("LC_",)
COLOR = frozenset(
    {
        "NO_COLOR",
        "FORCE_COLOR",
        "CLICOLOR",
        "CLICOLOR_FORCE",
        "COLORTERM",
        "NODE_DISABLE_COLORS",
        "LS_COLORS",
        "GREP_COLORS",
    }
)
"""Passed too with ``shell.color`` on (colour off, ``run_shell`` sets its own values)."""

PROVIDER_KEYS = frozenset(
    {
        "AGENT_API_KEY",
        "AGENT_BASE_URL",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "ANTHROPIC_BASE_URL",
    }
)
"""The agent's own credentials (a base URL may carry a key as well): never in a command's
environment, sandboxed or not, even when ``shell.env`` lists them."""

SECRET_LOOKING = re.compile(
    r"TOKEN|SECRET|PASSW|PASSPHRASE|CREDENTIAL|PRIVATE|COOKIE|AUTH(?!OR)|APIKEY|_KEY"
    r"|(^|_)(KEYS?|PAT|PASS|PWD|DSN)(_|$)",
    re.IGNORECASE,
)
"""Names that may hold a secret: a ``shell.env`` pattern (``NAME*``) never passes them; only
an exact name does (the user's own choice). ``PWD`` itself is not a secret and is not
matched (bash sets it anyway)."""
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\*?")
"""A ``shell.env`` entry: a variable's name, or a prefix ending in ``*``."""
MIN_SECRET_LENGTH = 8
"""A provider key's value shorter than this is not looked for in other variables."""


def secret_looking(name: str) -> bool:
    return name != "PWD" and SECRET_LOOKING.search(name) is not None


def check_names(names: Iterable[str]) -> list[str]:
    """The entries of a ``shell.env`` list that are not names or ``PREFIX*`` patterns."""
    return [n for n in names if not NAME.fullmatch(n)]


def _listed(name: str, passed: Iterable[str]) -> bool:
    for entry in passed:
        if entry == name:
            return True
        if entry.endswith("*") and name.startswith(entry[:-1]) and not secret_looking(name):
            return True
    return False


def _holds_provider_key(value: str, keys: list[str]) -> bool:
    return any(key in value for key in keys)


def _tmpdir(value: str, writable: Iterable[Path]) -> bool:
    """TMPDIR is kept only where the sandbox lets commands write (the private ``/tmp`` is
    empty: a directory below it does not exist there, and ``mktemp`` would fail); without it
    programs use ``/tmp``."""
    try:
        path = Path(value).resolve()
    except (OSError, RuntimeError):
        return False
    return path.is_dir() and any(path == root or root in path.parents for root in writable)


def sandboxed_env(
    environ: Mapping[str, str] | None = None,
    *,
    passed: Iterable[str] = (),
    color: bool = False,
    writable: Iterable[Path] = (),
) -> dict[str, str]:
    """The environment of a sandboxed command: the allow-listed variables of ``environ``
    (default ``os.environ``), those ``passed`` names (``shell.env``), colour variables with
    ``color``; never a provider key, nor a variable whose value holds one. ``writable``:
    where commands may write (for ``TMPDIR``)."""
    environ = os.environ if environ is None else environ
    passed = tuple(passed)
    keys = _provider_values(environ)
    out: dict[str, str] = {}
    for name, value in environ.items():
        if name in PROVIDER_KEYS or _holds_provider_key(value, keys):
            continue
        allowed = (
            name in ALLOWED
            or name.startswith(ALLOWED_PREFIXES)
            or (color and name in COLOR)
            or _listed(name, passed)
        )
        if not allowed:
            continue
        if name == "TMPDIR" and not _listed(name, passed) and not _tmpdir(value, writable):
            continue
        out[name] = value
    return out


def unsandboxed_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a command run without the sandbox: ``environ`` (default
    ``os.environ``) without the provider keys, nor any variable whose value holds one."""
    environ = os.environ if environ is None else environ
    keys = _provider_values(environ)
    return {
        name: value
        for name, value in environ.items()
        if name not in PROVIDER_KEYS and not _holds_provider_key(value, keys)
    }


def _provider_values(environ: Mapping[str, str]) -> list[str]:
    """The values of the provider keys that are set (not the base URLs): looked for inside
    the other variables too (``OPENAI_API_KEY=$ANTHROPIC_API_KEY``, a URL holding one)."""
    out = []
    for name in PROVIDER_KEYS:
        value = environ.get(name, "")
        if not name.endswith("_URL") and len(value) >= MIN_SECRET_LENGTH:
            out.append(value)
    return out


def for_command(
    shell: ShellSandbox | None,
    *,
    passed: Iterable[str] = (),
    color: bool = False,
    extra: Mapping[str, str] | None = None,
    chosen: SessionEnv | None = None,
) -> dict[str, str]:
    """The environment of one command: ``sandboxed_env`` when it runs in ``shell`` (the
    session's sandbox), else ``unsandboxed_env``. ``chosen``: the settings files' variables
    (``SessionEnv``): the user's over ours, their names passing the allow-list unless they
    look secret; a trusted project's only where nothing else sets that name. ``extra``:
    variables set for the session's commands (a user's SessionStart hook), over those and
    filtered alike."""
    user = chosen.user if chosen is not None else {}
    environ = {**os.environ, **user, **(extra or {})}
    if shell is None:
        out = unsandboxed_env(environ)
    else:
        names = (*passed, *(name for name in user if not secret_looking(name)))
        out = sandboxed_env(environ, passed=names, color=color, writable=shell.writable_roots())
    return under(out, chosen, environ)


def under(
    env: dict[str, str], chosen: SessionEnv | None, environ: Mapping[str, str]
) -> dict[str, str]:
    """``env`` with a trusted project's variables (``chosen.project``) added where no variable
    of that name is set in ``environ`` (what the command's environment was made from): a
    project adds variables, it never replaces one, nor lets one of the user's through under
    its name. A provider key, or a value holding one, never enters."""
    if chosen is None or not chosen.project:
        return env
    keys = _provider_values(environ)
    for name, value in chosen.project.items():
        if name in environ or name in PROVIDER_KEYS or _holds_provider_key(value, keys):
            continue
        env[name] = value
    return env


def confined_with(env: dict[str, str], chosen: SessionEnv | None) -> dict[str, str]:
    """A confined hook's minimal environment (no sandbox at hand) with the settings files'
    variables: the user's that look like no secret, then a trusted project's (``under``)."""
    if chosen is None:
        return env
    environ = {**os.environ, **chosen.user}
    keys = _provider_values(environ)
    for name, value in chosen.user.items():
        secret = secret_looking(name) or name in PROVIDER_KEYS
        if not secret and not _holds_provider_key(value, keys):
            env[name] = value
    return under(env, chosen, environ)


def passes(name: str, passed: Iterable[str]) -> bool:
    """Whether a variable ``name`` enters a sandboxed command (``sandboxed_env``'s rule, colour
    and ``TMPDIR``'s check aside)."""
    if name in PROVIDER_KEYS:
        return False
    return name in ALLOWED or name.startswith(ALLOWED_PREFIXES) or _listed(name, passed)
