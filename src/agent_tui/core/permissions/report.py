"""A decision explained part by part, for ``agent-tui permissions check`` (and tests).

For a shell command: every simple command the analysis found, with the allow rule that covers
it or the deny / ask rule that matches it; every file it writes, with how that write is
judged; what the analysis did not understand. For a path or an MCP tool: the decision alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent_tui.core.permissions.decision import Decision
from agent_tui.core.permissions.matching import Match, allows, loose_match
from agent_tui.core.permissions.pipeline import PermissionPipeline
from agent_tui.core.permissions.protected import protection
from agent_tui.core.permissions.shell import analyse
from agent_tui.core.permissions.shell_paths import Target
from agent_tui.core.tools.base import Tool


@dataclass
class Part:
    text: str
    verdict: str
    """``allowed by RULE``, ``denied by RULE``, ``asks: RULE``, ``no rule allows it``…"""


@dataclass
class Report:
    decision: Decision
    commands: list[Part] = field(default_factory=list)
    writes: list[Part] = field(default_factory=list)
    options: list[Part] = field(default_factory=list)
    """Options of allow-listed programs that are not plainly harmless, with what they do
    (``git log --output=x``: ``writes the file x: judged as a write``)."""
    not_understood: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        d = self.decision
        return {
            "decision": d.kind,
            "reason": d.reason,
            "step": d.step.value,
            "rule": str(d.rule) if d.rule is not None else None,
            "understood": d.understood,
            "every_mode": d.every_mode,
            "suggestions": [str(r) for r in d.suggestions],
            "no_suggestion": d.no_suggestion,
            "commands": [{"command": p.text, "verdict": p.verdict} for p in self.commands],
            "writes": [{"path": p.text, "verdict": p.verdict} for p in self.writes],
            "options": [{"option": p.text, "verdict": p.verdict} for p in self.options],
            "not_understood": self.not_understood,
        }

    def lines(self) -> list[str]:
        d = self.decision
        out = [f"{d.kind} — {d.reason}"]
        facts = [f"step: {d.basis}", f"understood: {'yes' if d.understood else 'no'}"]
        if d.every_mode and d.kind == "ask":
            facts.append("asks in every mode")
        out.append("  " + " · ".join(facts))
        if self.commands:
            out.append("  commands:")
            width = min(max(len(p.text) for p in self.commands), 60)
            out += [f"    {p.text[:60]:<{width}}  {p.verdict}" for p in self.commands]
        if self.writes:
            out.append("  writes:")
            width = min(max(len(p.text) for p in self.writes), 60)
            out += [f"    {p.text[:60]:<{width}}  {p.verdict}" for p in self.writes]
        if self.options:
            out.append("  options:")
            width = min(max(len(p.text) for p in self.options), 60)
            out += [f"    {p.text[:60]:<{width}}  {p.verdict}" for p in self.options]
        if self.not_understood:
            out.append("  not understood:")
            out += [f"    {why}" for why in self.not_understood]
        if d.kind == "ask":
            if d.suggestions:
                out.append("  always allow would save: " + ", ".join(map(str, d.suggestions)))
            elif d.no_suggestion:
                out.append(f"  always allow is not offered: {d.no_suggestion}")
        return out


def report(pipeline: PermissionPipeline, tool: Tool[Any], arguments: dict[str, Any]) -> Report:
    decision = pipeline.judge(tool, arguments)
    out = Report(decision)
    if tool.meta.rule_kind != "command":
        return out
    command = arguments.get(tool.meta.rule_subject or "command")
    if not isinstance(command, str):
        return out
    from agent_tui.core.permissions.git_judge import note_repositories
    from agent_tui.core.permissions.shell_paths import targets

    analysis = analyse(command)
    note_repositories(pipeline.workspace, analysis)
    out.not_understood = list(analysis.opaque)

    deny = pipeline.rules_for("deny", tool)
    ask = pipeline.rules_for("ask", tool)
    allow = pipeline.rules_for("allow", tool)
    for found in analysis.commands:
        verdict = "no rule allows it"
        denied = next((r for r in deny if loose_match(r, found) is not Match.NO), None)
        asked = next((r for r in ask if loose_match(r, found) is not Match.NO), None)
        allowed = next((r for r in allow if r.pattern is None or allows(r, found)), None)
        if denied is not None:
            how = "denied" if loose_match(denied, found) is Match.YES else "may be denied"
            verdict = f"{how} by {denied}"
        elif asked is not None:
            verdict = f"asks: {asked}"
        elif found.runs_code and all(layer.transparent for layer in found.layers):
            verdict = "runs the code after it (judged part by part)"
        elif found.changes_directory:
            verdict = "changes directory (needs no rule)"
        elif allowed is not None:
            verdict = f"allowed by {allowed}"
        out.commands.append(Part(found.shown(), verdict))
    from agent_tui.core.permissions.outside import (
        WRITE_TOOL,
        free_to_write,
        naming_rule,
        temp_dir,
    )

    judged: dict[str, str] = {}
    for target in targets(pipeline.workspace, analysis, temp_dir(pipeline)):
        if target.path is None:
            out.writes.append(Part(target.write.target.shown, "named only at run time"))
            continue
        shown = pipeline.shown(target.path)
        rule = pipeline.path_rule("deny", "write_file", target.path)
        guarded = protection(target.path)
        if target.write.git and rule is None:
            verdict = _git_write(pipeline, target)
        elif rule is not None:
            verdict = f"denied by {rule}"
        elif (
            guarded is not None
            and pipeline.explicit_allow("write_file", target.path, guarded.key) is None
        ):
            verdict = f"protected: {guarded.what}"
        elif (
            not free_to_write(pipeline, target.path, command=True)
            and naming_rule(pipeline, (WRITE_TOOL,), target.path) is None
        ):
            verdict = "outside the workspace: asks in every mode unless a rule names it"
        elif (allowed := pipeline.path_rule("allow", "write_file", target.path)) is not None:
            verdict = f"allowed by {allowed}"
        else:
            verdict = "no write_file rule allows it"
        out.writes.append(Part(f"{shown} ({target.write.how})", verdict))
        judged.setdefault(target.write.how, verdict)
    out.options = [
        Part(option, f"{what}: {_asks(judged.get(option))}" if what.startswith("writes") else what)
        for option, what in analysis.git_notes
    ]
    return out


def _asks(verdict: str | None) -> str:
    """A write's verdict as the option's: ``asks (protected: …)``, ``allowed by …``."""
    if verdict is None or verdict == "named only at run time":
        return "asks (a file named only at run time)"
    if verdict.startswith(("allowed", "denied")):
        return verdict
    return f"asks ({verdict.removeprefix('asks: ')})"


def _git_write(pipeline: PermissionPipeline, target: Target) -> str:
    """How a write of git's work tree is judged: the protected files it reaches first."""
    from agent_tui.core.permissions.git_judge import protected_write

    found = protected_write(pipeline, target)
    if isinstance(found, str):
        return f"asks: {found}"
    if found is not None:
        path, guarded = found
        if pipeline.explicit_allow("write_file", path, guarded.key) is None:
            return f"protected: reaches {pipeline.shown(path)}, {guarded.what}"
    allowed = pipeline.path_rule("allow", "write_file", target.path) if target.path else None
    if allowed is not None:
        return f"allowed by {allowed}"
    return "no write_file rule allows it (accept-edits mode would)"
