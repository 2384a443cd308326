"""Claude Code's tool calls as ours: the rewrite of each Claude Code tool's input.

A model trained on Claude Code calls ``Bash``, ``Read``, ``Edit``… with their inputs. Each of
our tools answers to its Claude Code name (``Tool.call_aliases``) with the rewrite here, so the
call is validated, judged by the permission rules, shown and run as our tool with our fields
(``core.tools.aliases``). The names are those of ``core.claude.names.TOOLS`` (a test holds the
two together). What each field becomes:

- a field of the same meaning under another name is renamed (``file_path`` → ``path``), in
  other units converted (``Bash``'s ``timeout``: milliseconds → our seconds);
- a field that only labels or narrows what is shown is dropped (``Bash``'s ``description``,
  ``Grep``'s ``head_limit``, ``LS``'s ``ignore``, ``WebFetch``'s ``prompt``: the model gets the
  whole answer and reads what it asked for in it);
- a field whose meaning we cannot give is refused by name (``AliasRefused``), never dropped:
  ``Bash``'s ``dangerouslyDisableSandbox``, ``Grep``'s context lines, ``multiline`` and ``count``.

The edits of ``MultiEdit`` become one ``edit_file`` call: its first edit in ``old_string`` /
``new_string`` / ``replace_all``, the rest in ``more_edits``, which the model is not shown.
"""

from __future__ import annotations

from typing import Any

from agent_tui.core.tools.aliases import AliasRefused, InputAliases

FILE_PATH = "file_path"
EDIT_FIELDS = ("old_string", "new_string", "replace_all")


def _rename(out: dict[str, Any], other: str, ours: str) -> None:
    """``other`` read as ``ours``; both given with different values: left for validation to
    refuse (``other`` is then an unknown field)."""
    if other not in out:
        return
    if ours not in out:
        out[ours] = out.pop(other)
    elif out[ours] == out[other]:
        del out[other]


def _drop(out: dict[str, Any], *fields: str) -> None:
    for name in fields:
        out.pop(name, None)


def _off(out: dict[str, Any], field: str, reason: str) -> None:
    """``field`` is accepted only when it asks for nothing (absent, false, null, 0): else the
    call is refused with ``reason``."""
    value = out.pop(field, None)
    if value in (None, False, 0, "", "false"):
        return
    raise AliasRefused(field, reason)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def from_bash(max_seconds: float) -> InputAliases:
    """``Bash`` ``{command, timeout (ms), description, run_in_background}`` as ``run_shell``
    ``{command, timeout (s), run_in_background}``."""

    def rewrite(arguments: dict[str, Any]) -> dict[str, Any]:
        out = dict(arguments)
        _drop(out, "description")  # a label for people; the card shows the command
        if out.get("run_in_background") in (None, False, 0, "", "false"):
            out.pop("run_in_background", None)  # ours then, as a flag
        _off(
            out,
            "dangerouslyDisableSandbox",
            "the sandbox is the user's setting here; a call cannot turn it off",
        )
        timeout = out.get("timeout")
        if timeout is None:
            out.pop("timeout", None)
        elif _number(timeout):
            most = int(max_seconds * 1000)
            if not 0 < timeout <= most:
                raise AliasRefused(
                    "timeout",
                    f"Bash's timeout is in milliseconds: between 1 and {most} "
                    f"({max_seconds / 60:g} minutes), not {timeout}",
                )
            out["timeout"] = timeout / 1000
        return out

    return rewrite


def from_read(arguments: dict[str, Any]) -> dict[str, Any]:
    """``Read`` ``{file_path, offset, limit}``: its offset is a 1-based line number, as ours,
    and 0 means the first line."""
    out = dict(arguments)
    _rename(out, FILE_PATH, "path")
    if out.get("offset") == 0:
        del out["offset"]
    _off(out, "pages", "read_file reads text files only, not the pages of a PDF")
    return out


def from_write(arguments: dict[str, Any]) -> dict[str, Any]:
    """``Write`` ``{file_path, content}``."""
    out = dict(arguments)
    _rename(out, FILE_PATH, "path")
    return out


def from_edit(arguments: dict[str, Any]) -> dict[str, Any]:
    """``Edit`` ``{file_path, old_string, new_string, replace_all}``."""
    out = dict(arguments)
    _rename(out, FILE_PATH, "path")
    return out


def from_multi_edit(arguments: dict[str, Any]) -> dict[str, Any]:
    """``MultiEdit`` ``{file_path, edits: [{old_string, new_string, replace_all?}, …]}`` as one
    ``edit_file`` call: the first edit in its fields, the others in ``more_edits`` (all applied
    in order, all or none). A shape it does not recognize is left for validation to refuse."""
    out = dict(arguments)
    _rename(out, FILE_PATH, "path")
    edits = out.get("edits")
    if not isinstance(edits, list) or not edits or not isinstance(edits[0], dict):
        if isinstance(edits, list) and not edits:
            raise AliasRefused("edits", "the list is empty: give at least one edit")
        return out
    if any(key in out for key in ("old_string", "new_string", "replace_all")):
        return out  # both shapes at once: validation names ``edits``
    for index, edit in enumerate(edits):  # named as the model sent them, not as ours
        if not isinstance(edit, dict):
            raise AliasRefused(f"edits[{index}]", "an edit is an object {old_string, new_string}")
        unknown = [key for key in edit if key not in EDIT_FIELDS]
        if unknown:
            raise AliasRefused(
                f"edits[{index}].{unknown[0]}",
                "not a field of an edit (old_string, new_string, replace_all)",
            )
    del out["edits"]
    out.update({key: value for key, value in edits[0].items() if key in EDIT_FIELDS})
    out["more_edits"] = edits[1:]  # even none: the call stays a MultiEdit (for hooks)
    return out


def from_glob(arguments: dict[str, Any]) -> dict[str, Any]:
    """``Glob`` ``{pattern, path}``: the same fields."""
    return dict(arguments)


GREP_TYPES: dict[str, str] = {
    "py": "*.{py,pyi}",
    "js": "*.{js,jsx,mjs,cjs}",
    "ts": "*.{ts,tsx,mts,cts}",
    "rust": "*.rs",
    "go": "*.go",
    "java": "*.java",
    "c": "*.{c,h}",
    "cpp": "*.{cpp,cc,cxx,hpp,hh,hxx,h}",
    "rb": "*.rb",
    "ruby": "*.rb",
    "php": "*.php",
    "sh": "*.{sh,bash,zsh}",
    "md": "*.{md,markdown}",
    "markdown": "*.{md,markdown}",
    "json": "*.json",
    "yaml": "*.{yaml,yml}",
    "toml": "*.toml",
    "html": "*.{html,htm}",
    "css": "*.{css,scss,sass,less}",
    "swift": "*.swift",
    "kotlin": "*.{kt,kts}",
    "cs": "*.cs",
}
"""``Grep``'s ``type`` (ripgrep's file types) as a glob, for the common ones; another type is
refused by name (a guess could search the wrong files)."""

CONTEXT_FLAGS = ("-A", "-B", "-C", "context")


def from_grep(arguments: dict[str, Any]) -> dict[str, Any]:
    """``Grep`` ``{pattern, path, glob, type, output_mode, -i, -n, -A/-B/-C, multiline,
    head_limit}`` as ``grep`` ``{pattern, path, glob, ignore_case}``. Our result lists each
    matching line with its file and line number, which answers ``content`` and
    ``files_with_matches`` alike."""
    out = dict(arguments)
    _rename(out, "-i", "ignore_case")
    _drop(out, "-n", "head_limit")  # line numbers are always shown; a limit only narrows
    mode = out.pop("output_mode", None)
    if mode not in (None, "content", "files_with_matches"):
        raise AliasRefused(
            "output_mode",
            f"{mode!r} is not available: grep lists the matching lines with their files and "
            "line numbers (count them from that, or use run_shell with `grep -c`)",
        )
    for flag in CONTEXT_FLAGS:
        _off(
            out,
            flag,
            "grep shows matching lines only, no context lines: read the lines around a match "
            "with read_file (offset, limit)",
        )
    _off(out, "multiline", "grep matches one line at a time")
    if out.get("offset") == 0:
        del out["offset"]
    _off(out, "offset", "grep has no paging of its results: narrow the path or glob")
    kind = out.pop("type", None)
    if kind is not None:
        glob = GREP_TYPES.get(kind) if isinstance(kind, str) else None
        if glob is None:
            raise AliasRefused(
                "type", f"{kind!r} is not a file type known here: give a glob instead"
            )
        if out.get("glob") not in (None, glob):
            raise AliasRefused("type", "give either type or glob, not both")
        out["glob"] = glob
    return out


def from_ls(arguments: dict[str, Any]) -> dict[str, Any]:
    """``LS`` ``{path, ignore}``: ``ignore`` only hides entries, the listing shows them all."""
    out = dict(arguments)
    _drop(out, "ignore")
    return out


def from_web_fetch(arguments: dict[str, Any]) -> dict[str, Any]:
    """``WebFetch`` ``{url, prompt}``: Claude Code has a small model answer ``prompt`` from the
    page; here the model gets the page's text and reads its answer there."""
    out = dict(arguments)
    _drop(out, "prompt")
    return out


def from_task(arguments: dict[str, Any]) -> dict[str, Any]:
    """``Task`` / ``Agent`` ``{description, prompt, subagent_type}``: ``subagent_type`` is our
    ``agent`` (``general-purpose`` is our default agent)."""
    out = dict(arguments)
    if out.get("subagent_type") in ("general-purpose", "general"):
        del out["subagent_type"]
    _rename(out, "subagent_type", "agent")
    _off(out, "run_in_background", "task waits for its subagent's report")
    return out


def from_exit_plan_mode(arguments: dict[str, Any]) -> dict[str, Any]:
    """``ExitPlanMode`` ``{plan, allowedPrompts}``: ``allowedPrompts`` asks for permissions
    along with the plan; none are granted here (each call is judged and asked as usual), so
    it is dropped — it could only loosen."""
    out = dict(arguments)
    _drop(out, "allowedPrompts")
    return out
