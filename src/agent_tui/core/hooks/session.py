"""The hooks of a session (``Hooks``): which run, which wait for the user's trust of their
project file, and running every hook of an event; ``load_hooks`` reads them from the settings
files (the user's run as the user's programs; a project file's wait until trusted)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.core.events import HookEvent
from agent_tui.core.hooks.config import (
    TOOL_EVENTS,
    HookEventName,
    HookSpec,
    Scope,
    parse_hooks,
    trust_item,
)
from agent_tui.core.hooks.payload import (
    SessionFacts,
    our_fields,
    permission_suggestions,
    tool_fields,
    tool_response,
)
from agent_tui.core.sandbox import UNCONFINED, SessionSandbox
from agent_tui.core.sandbox.environment import passes
from agent_tui.core.settings import (
    local_settings_path,
    project_settings_path,
    read_json_object,
    user_settings_path,
)
from agent_tui.core.state.trust import ProjectTrust, TrustItem
from agent_tui.core.tools.base import Tool
from agent_tui.core.tools.reads import NO_GUARD, ReadGuard

if TYPE_CHECKING:  # what runs a hook is imported by the first hook run (issue 45)
    from agent_tui.core.hooks.conditions import Condition
    from agent_tui.core.hooks.prompts import Judge
    from agent_tui.core.hooks.verdict import HookVerdict

log = logging.getLogger(__name__)

Call = tuple[Tool[Any], dict[str, Any]]
"""A tool call as the permission engine judges it: the tool and its input (our fields)."""


@dataclass
class Hooks:
    """The hooks of a session and what runs them."""

    cwd: Path
    specs: list[HookSpec] = field(default_factory=list)
    sandbox: SessionSandbox = UNCONFINED
    env_names: tuple[str, ...] = ()
    """The ``shell.env`` names sandboxed hooks get, as commands do."""
    reads: ReadGuard = NO_GUARD
    """The files sandboxed hooks must not see (the read rules), as commands do."""
    facts: Callable[[], SessionFacts] = SessionFacts
    """The session's id, its file and the permission mode, as they are when a hook runs (the
    agent sets it: a session can be switched, a mode changed)."""
    transcript: Callable[[], str] | None = None
    """Brings the session's Claude Code transcript up to date and gives its path, the hooks'
    ``transcript_path`` (blocking: called in a thread before an event's hooks run; it never
    raises). The agent sets it; None: the path ``facts`` gives."""
    judge: Judge | None = None
    """Asks the session's model, for ``"type": "prompt"`` hooks (the agent sets it; None: a
    prompt hook cannot run, and fails as a hook that cannot run does)."""
    conditions: dict[str, Condition] = field(default_factory=dict)
    """The ``"if"`` conditions of the hooks, read once (``condition``)."""
    waiting: dict[Path, tuple[TrustItem, list[HookSpec]]] = field(default_factory=dict)
    """Project files whose hooks wait for the user's trust."""
    problems: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.specs)

    def trusted(self, items: Sequence[TrustItem]) -> None:
        """The user trusted ``items``: the hooks of those files run from now on."""
        keys = {item.key for item in items}
        for source, (item, specs) in list(self.waiting.items()):
            if item.key in keys:
                self.specs.extend(specs)
                del self.waiting[source]

    def skipped_warnings(self) -> list[str]:
        return [
            f"hooks of {source} not run: that project file is not trusted (review it with "
            "`agent-tui trust` or in the TUI)"
            for source in self.waiting
        ]

    def has(self, event: HookEventName, target: str | None = None) -> bool:
        """Whether a hook of ``event`` runs for ``target`` (``HookSpec.matches``)."""
        return any(spec.event == event and spec.matches(target) for spec in self.specs)

    def condition(self, text: str) -> Condition:
        """The ``"if"`` condition ``text``, read for this workspace (once)."""
        from agent_tui.core.hooks.conditions import read_condition

        found = self.conditions.get(text)
        if found is None:
            found = self.conditions[text] = read_condition(text, self.cwd)
        return found

    def runs(self, spec: HookSpec, call: Call | None) -> bool:
        """Whether ``spec``'s ``"if"`` lets it run for ``call`` (no condition, or no call to
        judge: it runs)."""
        if spec.condition is None or call is None:
            return True
        from agent_tui.core.hooks.conditions import holds

        return holds(self.condition(spec.condition), call[0], call[1], self.cwd)

    def base(self, event: HookEventName, transcript: str | None = None) -> dict[str, Any]:
        """What every event tells its hooks (Claude Code's common fields); ``transcript``:
        the ``transcript_path`` (None: the session file ``facts`` gives)."""
        facts = self.facts()
        return {
            "session_id": facts.session_id,
            "transcript_path": transcript or facts.transcript_path,
            "cwd": str(self.cwd),
            "permission_mode": facts.permission_mode,
            "hook_event_name": event,
        }

    def tool_fields(self, tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
        """``tool_name`` and ``tool_input`` of our call as a Claude Code hook reads them."""
        return tool_fields(tool, tool_input, self.cwd)

    @staticmethod
    def tool_response(fields: dict[str, Any], content: str) -> dict[str, Any]:
        """``tool_response`` of a call that succeeded, with Claude Code's fields too."""
        return tool_response(fields, content)

    @staticmethod
    def suggestions(rules: list[str]) -> list[dict[str, Any]]:
        """Our suggested rules as a ``PermissionRequest``'s ``permission_suggestions``."""
        return permission_suggestions(rules)

    @staticmethod
    def our_input(tool: str, updated: dict[str, Any]) -> dict[str, Any]:
        """A hook's ``updatedInput`` in our field names (then validated by the tool)."""
        return our_fields(tool, updated)

    async def run(
        self,
        event: HookEventName,
        payload: dict[str, Any],
        *,
        tool: str | None = None,
        call_id: str | None = None,
        match: str | None = None,
        call: Call | None = None,
    ) -> HookVerdict:
        """Run every hook of ``event`` that matches (in parallel) and combine them: on a tool
        event its matcher is matched against ``tool`` (our name) and its ``"if"`` against
        ``call`` (the tool and its input), on the others against ``match``
        (``SessionStart``'s source, ``PreCompact``'s trigger…)."""
        from agent_tui.core.hooks.verdict import HookVerdict, judge

        verdict = HookVerdict()
        target = tool if event in TOOL_EVENTS else match
        specs = [
            s for s in self.specs if s.event == event and s.matches(target) and self.runs(s, call)
        ]
        if not specs:
            return verdict
        started = time.monotonic()
        transcript = await asyncio.to_thread(self.transcript) if self.transcript else None
        data = {**self.base(event, transcript), **payload}
        from agent_tui.core.hooks.envfile import ENV_FILE
        from agent_tui.core.hooks.prompts import run_prompt
        from agent_tui.core.hooks.runner import run_command

        files = await asyncio.to_thread(self._env_files, event, len(specs))
        try:
            done = await asyncio.gather(
                *(
                    run_prompt(spec, data, self.judge)
                    if spec.prompt is not None
                    else run_command(
                        spec,
                        data,
                        self.cwd,
                        self.sandbox,
                        env_names=self.env_names,
                        reads=self.reads,
                        extra={ENV_FILE: str(path)} if path is not None else None,
                    )
                    for spec, path in zip(specs, files, strict=True)
                )
            )
        finally:
            taken = await asyncio.shield(asyncio.to_thread(self._take_env, files))
        elapsed = round(time.monotonic() - started, 3)
        for spec, proc, env in zip(specs, done, taken, strict=True):
            shown = judge(spec, proc, event, verdict, call_id, tool, elapsed)
            notes = (shown.message, proc.undone, self._apply_env(spec, *env) if env else None)
            if any(notes[1:]):  # what the git check undid, what CLAUDE_ENV_FILE set
                shown = shown.model_copy(update={"message": "; ".join(m for m in notes if m)})
            verdict.events.append(shown)
        return verdict

    def _env_files(self, event: HookEventName, count: int) -> list[Path | None]:
        """An empty ``CLAUDE_ENV_FILE`` for each SessionStart hook (blocking)."""
        if event != "SessionStart":
            return [None] * count
        from agent_tui.core.hooks.envfile import make_env_file

        where = self.sandbox.temp_dir if self.sandbox is not UNCONFINED else None
        files: list[Path | None] = []
        for _ in range(count):
            try:
                files.append(make_env_file(where))
            except OSError:
                files.append(None)  # the hook runs without one, as it would elsewhere
        return files

    def _take_env(
        self, files: list[Path | None]
    ) -> list[tuple[dict[str, str], list[str], bool] | None]:
        """What each hook wrote to its ``CLAUDE_ENV_FILE`` (the files removed), and whether
        commands run in the sandbox (blocking: it may probe the sandbox)."""
        from agent_tui.core.hooks.envfile import take_env_file

        taken: list[tuple[dict[str, str], list[str], bool] | None] = []
        for path in files:
            found, problems = take_env_file(path) if path is not None else ({}, [])
            if not found and not problems:
                taken.append(None)
                continue
            sandboxed = self.sandbox is not UNCONFINED and self.sandbox.state.shell is not None
            taken.append((found, problems, sandboxed))
        return taken

    def _apply_env(
        self, spec: HookSpec, found: dict[str, str], problems: list[str], sandboxed: bool
    ) -> str:
        """Apply what a user hook set for the session's commands; say what it set, what the
        allow-list keeps out, and that a project hook sets nothing (fail closed)."""
        names = ", ".join(sorted(found))
        notes = list(problems)
        if not found:
            pass
        elif spec.scope != "user":
            notes.append(
                f"the variables it wrote to CLAUDE_ENV_FILE ({names}) are not applied: a "
                "project's hook does not set the environment of the agent's commands"
            )
        elif self.sandbox is UNCONFINED:
            notes.append(f"CLAUDE_ENV_FILE ({names}) not applied: no session sandbox here")
        else:
            self.sandbox.hook_env.update(found)
            out = [n for n in sorted(found) if sandboxed and not passes(n, self.env_names)]
            notes.append(f"set for the session's commands: {names}")
            if out:
                notes.append(
                    f"kept out of sandboxed commands by the environment allow-list: "
                    f"{', '.join(out)} (list them in shell.env of your user settings)"
                )
        return "; ".join(notes)


async def session_end(hooks: Hooks | None, reason: str) -> list[HookEvent]:
    """Run the ``SessionEnd`` hooks (matched against ``reason``: Claude Code's ``clear``,
    ``logout``, ``prompt_input_exit``, ``other``): they cannot block the end; what they said
    is returned (and a failure logged), never raised."""
    if hooks is None or not hooks.has("SessionEnd", reason):
        return []
    try:
        verdict = await hooks.run("SessionEnd", {"reason": reason}, match=reason)
    except Exception:
        log.exception("the SessionEnd hooks failed")
        return []
    for event in verdict.events:
        if event.outcome != "ok":
            log.warning("SessionEnd hook %s: %s %s", event.command, event.outcome, event.message)
    return verdict.events


async def notify(hooks: Hooks | None, kind: str, message: str) -> list[HookEvent]:
    """Run the ``Notification`` hooks of ``kind`` (Claude Code's ``permission_prompt``,
    ``idle_prompt``…, their matcher) with ``message``: they cannot block anything; what they
    said is returned, never raised (a notification is not worth a session)."""
    if hooks is None or not hooks.has("Notification", kind):
        return []
    payload = {"message": message, "title": "agent-tui", "notification_type": kind}
    try:
        verdict = await hooks.run("Notification", payload, match=kind)
    except Exception:
        log.exception("the Notification hooks failed")
        return []
    return verdict.events


def hook_files(cwd: Path) -> list[tuple[Path, Scope]]:
    """The settings files whose ``hooks`` run, each with its scope: the user's (ours, then
    Claude Code's ``~/.claude/settings.json``), then the project's (``.agent-tui/`` and
    ``.claude/`` ``settings.json``), then the project's local ones. Hooks of every file add
    up: one file's hooks never hide another's."""
    from agent_tui.core.claude.settings import claude_settings_paths

    user, shared, local = (path for path, _ in claude_settings_paths(cwd))
    return [
        (user_settings_path(), "user"),
        (user, "user"),
        (project_settings_path(cwd), "project"),
        (shared, "project"),
        (local_settings_path(cwd), "local"),
        (local, "local"),
    ]


def load_hooks(
    cwd: Path,
    trust: ProjectTrust | None,
    *,
    sandbox: SessionSandbox = UNCONFINED,
    paths: Sequence[tuple[Path, Scope]] | None = None,
) -> Hooks:
    """The hooks of the settings files of ``cwd``: ours and Claude Code's
    (``hook_files``). A project file's hooks wait in ``waiting`` (and their trust item in
    ``trust.pending``) until trusted; with no ``trust`` at all they are left out (fail
    closed)."""
    hooks = Hooks(cwd, sandbox=sandbox)
    files = paths or hook_files(cwd)
    for path, scope in files:
        raw, _, problem = read_json_object(path)
        if raw is None or "hooks" not in raw:
            continue
        if problem is not None:
            continue  # the settings loader reports it
        specs, problems = parse_hooks(raw["hooks"], path, scope)
        for spec in specs:
            if spec.condition is not None:
                unread = hooks.condition(spec.condition).problem
                if unread is not None:
                    problems.append(
                        f'the "if" of {spec.shown!r} cannot be used ({unread}): the hook runs '
                        "on every call its matcher matches"
                    )
        hooks.problems += [f"{path}: {p}" for p in problems]
        if not specs:
            continue
        if scope == "user":
            hooks.specs += specs
            continue
        item = trust_item(path, raw["hooks"])
        if trust is not None and trust.allows(item):
            hooks.specs += specs
        else:
            hooks.waiting[path] = (item, specs)
    return hooks
