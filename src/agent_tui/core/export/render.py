"""An export as text: Markdown for people to read (a bug report, a gist), or JSON in the
documented shape of ``entries`` (``docs/sessions.md``). Every text the conversation holds is
put in a fence longer than any run of backticks in it, so nothing in it breaks the page."""

from __future__ import annotations

import json
import re
from typing import Literal

from agent_tui.core.export.entries import (
    AnswerEntry,
    CompactionEntry,
    ExportDoc,
    ImageEntry,
    PromptEntry,
    ToolCallEntry,
    image_line,
)

Format = Literal["markdown", "json"]
FORMATS: dict[str, Format] = {"markdown": "markdown", "md": "markdown", "json": "json"}
"""The names a format is asked for by; a file's suffix picks one the same way."""

_TICKS = re.compile(r"`{3,}")
_OUTCOME = {
    "ok": "ok",
    "failed": "failed",
    "rejected": "rejected",
    "error": "error",
    "no_result": "no result (the turn stopped before it ran)",
}


def render(doc: ExportDoc, fmt: Format) -> str:
    if fmt == "json":
        return json.dumps(doc.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"
    return markdown(doc)


def fence(text: str, info: str = "") -> str:
    """``text`` in a code fence that nothing in it closes."""
    longest = max((len(m.group()) for m in _TICKS.finditer(text)), default=2)
    ticks = "`" * max(3, longest + 1)
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"{ticks}{info}\n{body}{ticks}"


def markdown(doc: ExportDoc) -> str:
    session = doc.session
    out = [f"# agent-tui session {session.id}".rstrip(), ""]
    for label, value in (
        ("Model", session.model),
        ("Working directory", session.cwd),
        ("Started", session.created),
        ("Session file", session.file),
        ("Exported", doc.exported_at),
    ):
        if value:
            out.append(f"- {label}: `{value}`")
    prompts = 0
    for entry in doc.entries:
        out.append("")
        if isinstance(entry, PromptEntry):
            prompts += 1
            injected = " (sent during the turn)" if entry.injected else ""
            out += [f"## Prompt {prompts}{injected}", "", fence(entry.text)]
            if entry.mentions:
                out += ["", "Attached: " + ", ".join(f"`{m}`" for m in entry.mentions)]
            out += _image_lines(entry.images)
        elif isinstance(entry, AnswerEntry):
            out += ["### Answer", "", entry.text.rstrip() or "*(empty)*"]
            if entry.interrupted:
                out += ["", "*(interrupted by the user)*"]
            if entry.cut_off:
                out += ["", f"*(cut off: {entry.cut_off})*"]
        elif isinstance(entry, ToolCallEntry):
            out += _call(entry)
        elif isinstance(entry, CompactionEntry):
            out += [
                f"### Compaction summary ({entry.reason})",
                "",
                f"*The {entry.folded} messages before this point were folded into this summary; "
                f"the model continued from it ({entry.tokens_before} → {entry.tokens_after} "
                "tokens).*",
                "",
                fence(entry.summary),
            ]
    return "\n".join(out) + "\n"


def _image_lines(images: list[ImageEntry]) -> list[str]:
    if not images:
        return []
    return ["", "Images:", "", *(f"- {image_line(image)}" for image in images)]


def _call(entry: ToolCallEntry) -> list[str]:
    status = _OUTCOME[entry.outcome]
    if entry.summary:
        status += f" · {entry.summary}"
    if entry.input is not None:
        given = json.dumps(entry.input, indent=2, ensure_ascii=False)
        shown = fence(given, "json")
    else:
        shown = fence(entry.raw_input)
    lines = [
        f"### Tool call: {entry.name} (`{entry.id}`)",
        "",
        "Input:",
        "",
        shown,
        "",
        f"Result: {status}",
    ]
    if entry.outcome != "no_result":
        lines += ["", "Output the model saw:", "", fence(entry.output, "text")]
    lines += _image_lines(entry.images)
    if entry.spill is not None:
        spill = entry.spill
        lines += [
            "",
            f"Whole output spilled to `{spill.abs_path}` ({spill.chars} characters, "
            f"{spill.lines} lines; {spill.reason}).",
        ]
    return lines
