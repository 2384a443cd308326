"""The ``env`` key of Claude Code's settings files: variables set for every command the agent
runs and every hook (``load_env``, into ``sandbox.session_env.SessionEnv``).

- The user's file (``~/.claude/settings.json``): the user's own choice, applied at once to the
  agent's commands (``run_shell``, the ``!`` lines of commands) and to every hook, sandboxed or
  not. In the sandbox the names pass the environment allow-list — except a secret-looking name
  (``*_TOKEN``, ``*_KEY``…), which enters a sandboxed command only when ``shell.env`` of the
  user's agent-tui settings lists it by name, as any secret does; a provider key never does.
- A project's files (``.claude/settings.json``, ``.claude/settings.local.json``): a
  repository's code. Their variables are one trust item per file (kind ``env``, showing each
  name and value; a changed section asks again) and apply only once trusted, only to commands
  and confined hooks, and only where no variable of that name is already set. Even trusted, a
  project may set only names of the safe shape that belong to no family that decides what
  code runs or where it comes from (``project_refusal``); the others are never applied and the
  trust question and the start say so.
- Claude Code's own variables (``ANTHROPIC_*``, ``CLAUDE_*``, ``BASH_DEFAULT_TIMEOUT_MS``,
  ``DISABLE_*``, ``MAX_THINKING_TOKENS``…) configure Claude Code itself: they are not passed,
  not mapped to a setting of ours, and the start says once that they have no effect here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from agent_tui.core.claude.settings import ClaudeSettingsFile, claude_settings
from agent_tui.core.sandbox.environment import PROVIDER_KEYS, secret_looking
from agent_tui.core.sandbox.session_env import SessionEnv
from agent_tui.core.state.trust import ProjectTrust, TrustItem, canonical

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""A variable's name (anything else cannot be set)."""
CLAUDE_OWN_PREFIXES = ("ANTHROPIC_", "CLAUDE_CODE_", "VERTEX_REGION_", "DISABLE_PROMPT_CACHING")
CLAUDE_OWN = frozenset(
    {
        "AWS_BEARER_TOKEN_BEDROCK",
        "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE",
        "CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR",
        "CLAUDE_CONFIG_DIR",
        "CLAUDE_ENV_FILE",
        "CLAUDE_PROJECT_DIR",
        "BASH_DEFAULT_TIMEOUT_MS",
        "BASH_MAX_OUTPUT_LENGTH",
        "BASH_MAX_TIMEOUT_MS",
        "CLOUD_ML_REGION",
        "DISABLE_AUTOUPDATER",
        "DISABLE_BUG_COMMAND",
        "DISABLE_COST_WARNINGS",
        "DISABLE_ERROR_REPORTING",
        "DISABLE_INTERLEAVED_THINKING",
        "DISABLE_NON_ESSENTIAL_MODEL_CALLS",
        "DISABLE_TELEMETRY",
        "ENABLE_TOOL_SEARCH",
        "MAX_MCP_OUTPUT_TOKENS",
        "MAX_THINKING_TOKENS",
        "MCP_TIMEOUT",
        "MCP_TOOL_TIMEOUT",
        "SLASH_COMMAND_TOOL_CHAR_BUDGET",
        "USE_BUILTIN_RIPGREP",
    }
)
"""Variables Claude Code reads to configure itself: no effect here (not passed, not mapped)."""

PROJECT_NAME = re.compile(r"[A-Z][A-Z0-9_]*")
"""The only shape a project's variable may have: upper case, digits, ``_`` (lower-case names
are how many programs are configured: ``http_proxy``, ``npm_config_*``)."""
HARMLESS = frozenset(
    {
        "NODE_ENV",
        "PYTHONDONTWRITEBYTECODE",
        "PYTHONUNBUFFERED",
        "PYTHONUTF8",
        "PYTHONIOENCODING",
        "PYTHONHASHSEED",
    }
)
"""Names of a refused family that only pick a mode: a project may set them."""
RUNS_CODE = frozenset(
    {
        "ENV",
        "IFS",
        "CDPATH",
        "GLOBIGNORE",
        "SHELLOPTS",
        "PROMPT_COMMAND",
        "PS1",
        "PS2",
        "PS4",
        "HISTFILE",
        "INPUTRC",
        "ZDOTDIR",
        "SHELL",
        "EDITOR",
        "VISUAL",
        "PAGER",
        "BROWSER",
        "TERM",
        "TERMINFO",
        "LANG",
        "LANGUAGE",
        "LOCPATH",
        "GCONV_PATH",
        "HOSTALIASES",
        "RES_OPTIONS",
        "LOCALDOMAIN",
        "TZ",
        "TZDIR",
        "HOME",
        "TMPDIR",
        "TMP",
        "TEMP",
        "USER",
        "LOGNAME",
        "PWD",
        "OLDPWD",
        "DISPLAY",
        "CLASSPATH",
        "CC",
        "CXX",
        "CPP",
        "LD",
        "AR",
        "AS",
        "FC",
        "MAKE",
        "MFLAGS",
        "RUSTC",
        "RUSTDOC",
    }
)
"""Single names that run code (``ENV``: a file ``sh`` runs first), pick a program (``PAGER``,
``CC``), or change what programs find (``HOME``, ``TMPDIR``, ``LANG``)."""
FAMILIES = (
    "LD_", "DYLD_", "BASH", "SSH_", "GPG", "GNUPG", "GIT", "GH_", "GLAB_", "PYTHON", "PIP_",
    "UV_", "CONDA", "VIRTUAL_ENV", "PYENV", "POETRY_", "PDM_", "HATCH_", "NODE_", "NPM_",
    "NVM_", "YARN_", "PNPM_", "BUN_", "DENO_", "COREPACK_", "PERL", "RUBY", "GEM_", "BUNDLE_",
    "RBENV_", "JAVA", "_JAVA", "JDK_", "MAVEN_", "GRADLE_", "SBT_", "CARGO_", "RUSTUP_",
    "RUSTC_", "RUSTFLAGS", "GO", "XDG_", "LC_", "DOCKER_", "PODMAN_", "CONTAINERS_", "KUBE",
    "HELM_", "AWS_", "AZURE_", "GOOGLE_", "GCLOUD_", "CLOUDSDK_", "TF_", "TERRAFORM_",
    "ANSIBLE_", "VAGRANT_", "HOMEBREW_", "NIX_", "DOTNET_", "NUGET_", "COMPOSER_", "PHP",
    "LUA_", "R_", "JULIA_", "CURL_", "WGET", "HTTP", "FTP_", "ALL_PROXY", "NO_PROXY", "SSL_",
    "OPENSSL_", "REQUESTS_", "MAKE", "GNUMAKE", "CMAKE_", "PKG_CONFIG", "MANPAGER", "LESS",
    "SUDO_", "DBUS_", "WAYLAND_", "AGENT_", "OPENAI_", "OLLAMA_", "GEMINI_", "MISTRAL_",
)  # fmt: skip
"""Prefixes of families of variables that configure a toolchain, a shell, a loader, a network
client or a credential store (``GIT_*``: ``GIT_CONFIG_*``, ``GIT_SSH_COMMAND``,
``GIT_EXEC_PATH``; ``PYTHON*``, ``NODE_*``, ``LD_*``…): a whole family is refused, so a member
we did not think of is refused too."""
SUFFIXES = (
    "PATH", "OPTIONS", "OPTS", "OPT", "FLAGS", "ARGS", "PROXY", "HOME", "ROOT", "PREFIX",
    "_DIR", "_DIRS", "CONFIG", "RC", "_FILE", "LIB", "PRELOAD", "COMMAND", "CMD", "_EXEC",
    "_EXE", "_BIN", "_SHELL", "EDITOR", "PAGER", "WRAPPER", "PLUGINS", "_HOOK", "_HOOKS",
    "_URL", "_URI", "_HOST", "_ENDPOINT", "_SERVER", "_REGISTRY", "_INDEX", "_MIRROR", "_SOCK",
    "_SOCKET", "_PROGRAM", "_INTERPRETER", "_LOADER",
)  # fmt: skip
"""Endings of names that say where programs, libraries, files or servers come from
(``*PATH``, ``*_HOME``, ``*_URL``…) or what is run with what (``*_OPTIONS``, ``*_COMMAND``)."""
SHOWN_VALUE = 120
"""Characters of a value the trust question shows (the rest is elided, and said so)."""


def claude_own(name: str) -> bool:
    """Whether ``name`` is a variable Claude Code reads to configure itself."""
    return name in CLAUDE_OWN or name.startswith(CLAUDE_OWN_PREFIXES)


def project_refusal(name: str) -> str | None:
    """Why a project's ``env`` may not set ``name`` even once trusted, or None: it may."""
    if not PROJECT_NAME.fullmatch(name):
        return "not an upper-case name (lower-case ones configure programs: http_proxy…)"
    if name in HARMLESS:
        return None
    if name in PROVIDER_KEYS or secret_looking(name):
        return "a credential (a project's would make programs act as someone else)"
    if name in RUNS_CODE:
        return "it runs code or decides which program or files are used"
    if name.startswith(FAMILIES):
        return "it configures a shell, toolchain, loader, network client or credential store"
    if name.endswith(SUFFIXES):
        return "it says where programs, files or servers come from, or how they are run"
    return None


def section(file: ClaudeSettingsFile) -> tuple[dict[str, str], list[str]]:
    """The variables of ``file``'s ``env`` and what is wrong with it (an entry that cannot be
    set is named and left out; a number is taken as its JSON text)."""
    raw: Any = (file.data or {}).get("env")
    if raw is None:
        return {}, []
    if not isinstance(raw, dict):
        return {}, [f"{file.path}: 'env' must be an object of NAME: value; ignored"]
    found: dict[str, str] = {}
    problems: list[str] = []
    for name, value in raw.items():
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            problems.append(f"{file.path}: env.{name}: the value must be a string; ignored")
        elif not NAME.fullmatch(name):
            problems.append(f"{file.path}: env: {name!r} is not a variable name; ignored")
        elif "\0" in str(value):
            problems.append(f"{file.path}: env.{name}: the value holds a NUL byte; ignored")
        else:
            found[name] = value if isinstance(value, str) else json.dumps(value)
    return found, problems


def shown(name: str, value: str) -> str:
    """``NAME="value"`` for the trust question (quoted and escaped, long values elided)."""
    text = json.dumps(value, ensure_ascii=False)
    if len(text) > SHOWN_VALUE:
        text = f'{text[: SHOWN_VALUE - 1]}…" ({len(value)} characters)'
    return f"{name}={text}"


def trust_item(path: Path, raw: Any, applied: dict[str, str], refused: list[str]) -> TrustItem:
    """What the user trusts for a project file's ``env``: its whole section (a changed one asks
    again); the detail shows every name and value it would set, and what is refused anyway."""
    detail = ", ".join(shown(name, value) for name, value in applied.items())
    if refused:
        detail += f" (never set, even if trusted: {', '.join(refused)})"
    return TrustItem("env", path, "env", detail=detail, definition=canonical(raw))


def load_env(
    cwd: Path, trust: ProjectTrust | None, *, passed: tuple[str, ...] | list[str] = ()
) -> tuple[SessionEnv, list[str]]:
    """The ``env`` of Claude Code's settings files of ``cwd``, and one line for each thing the
    start should say (what has no effect here, what a project may not set, a user's secret
    the sandbox keeps out). A project file's variables wait in ``waiting`` (their item in
    ``trust.pending``) until trusted; with no ``trust`` at all they are left out."""
    env = SessionEnv()
    notes: list[str] = []
    for file in claude_settings(cwd):
        if file.problem is not None or file.data is None or "env" not in file.data:
            continue  # a broken file is reported by the permission reader
        found, problems = section(file)
        notes += problems
        own = sorted(name for name in found if claude_own(name))
        if own:
            notes.append(
                f"{file.path}: env: {', '.join(own)} configure Claude Code itself and have no "
                "effect here (not passed to commands)"
            )
        found = {name: value for name, value in found.items() if not claude_own(name)}
        if not file.project:
            env.user.update(found)
            notes += _kept_out(file.path, found, passed)
            continue
        refusals = {name: project_refusal(name) for name in found}
        refused = [f"{name} ({why})" for name, why in refusals.items() if why is not None]
        if refused:
            notes.append(
                f"{file.path}: env: a project may not set {'; '.join(refused)}: not applied, "
                "even if trusted"
            )
        applied = {name: value for name, value in found.items() if refusals[name] is None}
        if not applied:
            continue
        never = [name for name, why in refusals.items() if why is not None]
        item = trust_item(file.path, file.data["env"], applied, never)
        if trust is not None and trust.allows(item):
            env.project.update(applied)
        elif trust is not None:
            env.waiting[item.key] = applied
    return env, notes


def _kept_out(path: Path, found: dict[str, str], passed: tuple[str, ...] | list[str]) -> list[str]:
    """A line naming the user's secret-looking variables sandboxed commands do not get."""
    out = sorted(n for n in found if n in PROVIDER_KEYS or (secret_looking(n) and n not in passed))
    if not out:
        return []
    return [
        f"{path}: env: {', '.join(out)} look like secrets: commands outside the sandbox and "
        "your own hooks get them; sandboxed ones only when shell.env of your agent-tui "
        "settings lists each by name (a provider key never)"
    ]
