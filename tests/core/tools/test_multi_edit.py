"""Claude Code's ``MultiEdit``: every edit applied in order to the file's content, all or none,
as one ``edit_file`` call — one write, one checkpoint entry, one diff, the guard against a file
changed since it was read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_tui.core.claude import names
from agent_tui.core.hooks.payload import tool_fields
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.tools.builtin.edit_file import preview_diff
from agent_tui.core.tools.errors import ToolErrorInfo
from agent_tui.core.tools.file_state import FileStateCache
from agent_tui.core.tools.registry import DispatchOutcome, PreparedCall

TEXT = "alpha = 1\nbeta = 2\ngamma = 3\n"


class Changes:
    """A checkpoint that counts what it is told (``ToolContext.changes``)."""

    def __init__(self) -> None:
        self.before: list[Path] = []
        self.after: list[Path] = []

    def before_change(self, path: Path) -> str | None:
        self.before.append(path)
        return None

    def changed(self, path: Path, digest: str | None) -> None:
        self.after.append(path)


async def _read(tmp_path: Path, text: str | bytes, ctx: ToolContext) -> Path:
    path = tmp_path / "x.py"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    outcome = await default_registry().dispatch("read_file", json.dumps({"path": "x.py"}), ctx)
    assert outcome.ok, outcome.error
    return path


async def _multi(ctx: ToolContext, *edits: dict[str, Any]) -> DispatchOutcome:
    arguments = {"file_path": "x.py", "edits": list(edits)}
    return await default_registry().dispatch("MultiEdit", json.dumps(arguments), ctx)


def _edit(old: str, new: str, **more: Any) -> dict[str, Any]:
    return {"old_string": old, "new_string": new, **more}


async def test_the_edits_apply_in_order_each_on_the_text_the_last_one_made(tmp_path: Path) -> None:
    changes = Changes()
    ctx = ToolContext(cwd=tmp_path, changes=changes)
    path = await _read(tmp_path, TEXT, ctx)
    outcome = await _multi(
        ctx,
        _edit("alpha = 1", "alpha = 10"),
        _edit("alpha = 10\nbeta", "alpha = 10\nBETA"),  # matches only what edit 1 made
        _edit(" = ", ": ", replace_all=True),
    )
    assert outcome.ok, outcome.error
    assert path.read_text() == "alpha: 10\nBETA: 2\ngamma: 3\n"
    output = outcome.output
    assert output is not None
    assert output.data["replacements"] == 5
    assert output.data["edits"] == 3
    assert output.content.startswith("Edited x.py: 5 replacements (3 edits).")
    diff = output.data["diff"]
    assert diff.startswith("--- a/x.py\n+++ b/x.py\n@@")
    assert "-alpha = 1\n-beta = 2\n-gamma = 3\n+alpha: 10\n+BETA: 2\n+gamma: 3" in diff
    assert changes.before == [path]  # one checkpoint entry
    assert changes.after == [path]


async def test_an_edit_that_does_not_match_leaves_the_file_unchanged(tmp_path: Path) -> None:
    """All or none: edits 1 and 2 would apply, edit 3 does not: nothing is written, and the
    error names edit 3 and why."""
    changes = Changes()
    ctx = ToolContext(cwd=tmp_path, changes=changes)
    path = await _read(tmp_path, TEXT, ctx)
    before = path.read_bytes()
    outcome = await _multi(
        ctx, _edit("alpha", "ALPHA"), _edit("beta", "BETA"), _edit("delta = 4", "delta = 5")
    )
    assert outcome.error is not None
    assert outcome.error.code == "not_found"
    assert outcome.error.message.startswith("Edit 3 of 3: old_string was not found in x.py")
    assert "after edits 1–2" in outcome.error.message
    assert "No edit was made: the file is unchanged." in outcome.error.message
    assert path.read_bytes() == before
    assert changes.before == []


async def test_an_ambiguous_edit_is_named(tmp_path: Path) -> None:
    ctx = ToolContext(cwd=tmp_path)
    path = await _read(tmp_path, TEXT, ctx)
    outcome = await _multi(ctx, _edit("alpha", "beta"), _edit("beta", "delta"))
    assert outcome.error is not None
    assert outcome.error.code == "multiple_matches"
    assert outcome.error.message.startswith("Edit 2 of 2: old_string occurs 2 times")
    assert path.read_text() == TEXT


async def test_an_edit_that_changes_nothing_is_named(tmp_path: Path) -> None:
    ctx = ToolContext(cwd=tmp_path)
    path = await _read(tmp_path, TEXT, ctx)
    outcome = await _multi(ctx, _edit("alpha", "ALPHA"), _edit("beta", "beta"))
    assert outcome.error is not None
    assert outcome.error.code == "no_change"
    assert outcome.error.message.startswith("Edit 2 of 2: ")
    assert path.read_text() == TEXT


async def test_a_file_changed_since_it_was_read_is_refused(tmp_path: Path) -> None:
    ctx = ToolContext(cwd=tmp_path)
    path = await _read(tmp_path, TEXT, ctx)
    path.write_text(TEXT + "delta = 4\n")
    outcome = await _multi(ctx, _edit("alpha", "ALPHA"), _edit("beta", "BETA"))
    assert outcome.error is not None
    assert outcome.error.code == "stale_file"
    assert path.read_text() == TEXT + "delta = 4\n"


async def test_a_file_not_read_is_refused(tmp_path: Path) -> None:
    (tmp_path / "x.py").write_text(TEXT)
    outcome = await _multi(
        ToolContext(cwd=tmp_path, file_state=FileStateCache()), _edit("alpha", "A")
    )
    assert outcome.error is not None
    assert outcome.error.code == "not_read"


async def test_a_crlf_file_keeps_its_line_endings(tmp_path: Path) -> None:
    ctx = ToolContext(cwd=tmp_path)
    path = await _read(tmp_path, TEXT.replace("\n", "\r\n").encode(), ctx)
    outcome = await _multi(
        ctx, _edit("alpha = 1\nbeta", "alpha = 1\nmid = 0\nbeta"), _edit("gamma", "G")
    )
    assert outcome.ok, outcome.error
    assert path.read_bytes() == b"alpha = 1\r\nmid = 0\r\nbeta = 2\r\nG = 3\r\n"


async def test_the_precheck_refuses_before_anyone_is_asked(tmp_path: Path) -> None:
    """The refusal comes before the permission prompt, as for one edit."""
    ctx = ToolContext(cwd=tmp_path)
    path = await _read(tmp_path, TEXT, ctx)
    prepared = default_registry().prepare(
        "MultiEdit",
        json.dumps({"file_path": "x.py", "edits": [_edit("alpha", "A"), _edit("zeta", "Z")]}),
    )
    assert isinstance(prepared, PreparedCall)
    assert prepared.tool.precheck is not None
    error = prepared.tool.precheck(prepared.input, ctx)
    assert isinstance(error, ToolErrorInfo)
    assert error.message.startswith("Edit 2 of 2: old_string was not found")
    assert path.read_text() == TEXT


async def test_the_prompt_previews_the_diff_the_call_makes(tmp_path: Path) -> None:
    ctx = ToolContext(cwd=tmp_path)
    await _read(tmp_path, TEXT, ctx)
    edits = [_edit("alpha", "ALPHA"), _edit("gamma = 3", "gamma = 33")]
    preview = preview_diff(
        TEXT, "alpha", "ALPHA", False, "x.py", [("gamma = 3", "gamma = 33", False)]
    )
    outcome = await _multi(ctx, *edits)
    assert outcome.output is not None
    assert preview == outcome.output.data["diff"]
    assert preview_diff(TEXT, "alpha", "A", False, "x.py", [("zeta", "Z", False)]) is None


def test_a_hook_sees_claude_codes_multi_edit(tmp_path: Path) -> None:
    """Hooks read Claude Code's ``MultiEdit`` with its ``edits``; a single edit stays ``Edit``
    (and shows no ``more_edits``)."""
    prepared = default_registry().prepare(
        "MultiEdit",
        json.dumps({"file_path": "x.py", "edits": [_edit("a", "b"), _edit("c", "d")]}),
    )
    assert isinstance(prepared, PreparedCall)
    fields = tool_fields("edit_file", prepared.input.model_dump(mode="json"), tmp_path)
    assert fields == {
        "tool_name": "MultiEdit",
        "tool_input": {
            "file_path": str(tmp_path / "x.py"),
            "edits": [
                {"old_string": "a", "new_string": "b", "replace_all": False},
                {"old_string": "c", "new_string": "d", "replace_all": False},
            ],
        },
    }
    single = default_registry().prepare(
        "Edit", json.dumps({"file_path": "x.py", **_edit("a", "b")})
    )
    assert isinstance(single, PreparedCall)
    dumped = single.input.model_dump(mode="json")
    assert "more_edits" not in dumped
    assert names.claude_call("edit_file", dumped, "/w")[0] == "Edit"
