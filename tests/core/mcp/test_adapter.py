"""A remote tool as a registry entry; results converted to what the model reads."""

from __future__ import annotations

import base64
from pathlib import Path
from types import SimpleNamespace as NS
from typing import Any

import pytest

from agent_tui.core.mcp.client.adapter import (
    PLAIN_SCHEMA,
    MediaStore,
    annotations_of,
    build_tool,
    convert_result,
)
from agent_tui.core.mcp.client.call_clock import CallClock
from agent_tui.core.mcp.config.spec import ServerSpec
from agent_tui.core.tools.base import ProgressUpdate, ToolContext
from agent_tui.core.tools.errors import ToolFailure

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\nfake").decode()


def _remote(**kw: Any) -> Any:
    base = {
        "name": "t",
        "description": "Does t.",
        "input_schema": {"type": "object"},
        "annotations": None,
        "title": None,
    }
    return NS(**{**base, **kw})


def _notes(read_only: bool | None = None, destructive: bool | None = None) -> Any:
    return NS(read_only_hint=read_only, destructive_hint=destructive)


@pytest.fixture
def media(tmp_path: Path) -> MediaStore:
    return MediaStore(tmp_path / ".agent-spill" / "mcp-media", tmp_path)


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(cwd=tmp_path, call_id="call_7")


def test_annotations_map_to_fail_closed_metadata() -> None:
    assert annotations_of(_remote()) == (False, True)
    assert annotations_of(_remote(annotations=_notes())) == (False, True)
    assert annotations_of(_remote(annotations=_notes(read_only=True))) == (True, False)
    assert annotations_of(_remote(annotations=_notes(destructive=False))) == (False, False)
    assert annotations_of(_remote(annotations=_notes(read_only=False, destructive=True))) == (
        False,
        True,
    )


async def _never(*_: Any) -> Any:
    raise AssertionError("not called")


def test_build_tool(media: MediaStore) -> None:
    tool, info = build_tool(
        "mcp__s__t",
        "s",
        _remote(annotations=_notes(read_only=True)),
        _never,
        timeout=9,
        media=media,
    )
    assert tool.name == "mcp__s__t"
    assert tool.description == "Does t."
    assert tool.meta.read_only
    assert tool.meta.concurrency_safe
    assert not tool.meta.destructive
    assert tool.timeout == 9
    assert tool.input_schema == {"type": "object"}
    assert (info.server, info.remote_name, info.schema_problem) == ("s", "t", None)

    risky, _ = build_tool("n", "s", _remote(), _never, timeout=1, media=media)
    assert not risky.meta.read_only
    assert not risky.meta.concurrency_safe
    assert risky.meta.destructive


def test_broken_schemas_are_tolerated_and_reported(media: MediaStore) -> None:
    tool, info = build_tool(
        "n",
        "s",
        _remote(input_schema={"type": "object", "required": 3}),
        _never,
        timeout=1,
        media=media,
    )
    assert tool.input_schema == PLAIN_SCHEMA
    assert info.schema_problem
    assert "not a valid JSON Schema" in info.schema_problem
    untyped, info = build_tool(
        "n", "s", _remote(input_schema={"properties": {"a": {}}}), _never, timeout=1, media=media
    )
    assert untyped.input_schema == {"type": "object", "properties": {"a": {}}}
    assert info.schema_problem is None


def test_descriptions_are_never_empty_nor_huge(media: MediaStore) -> None:
    tool, _ = build_tool("n", "srv", _remote(description=None), _never, timeout=1, media=media)
    assert tool.description == "Tool 't' of the MCP server 'srv'."
    tool, _ = build_tool(
        "n", "srv", _remote(description="x" * 5000), _never, timeout=1, media=media
    )
    assert len(tool.description) == 2048
    assert tool.description.endswith("…")


async def test_text_images_audio_and_resources(
    media: MediaStore, ctx: ToolContext, tmp_path: Path
) -> None:
    result = NS(
        is_error=False,
        structured_content={"ignored": "because there is text"},
        content=[
            NS(type="text", text="hello"),
            NS(type="image", data=PNG, mime_type="image/png"),
            NS(type="audio", data=base64.b64encode(b"RIFF").decode(), mime_type="audio/wav"),
            NS(type="image", data="%%%not base64", mime_type="image/png"),
            NS(
                type="resource_link",
                uri="file:///a.txt",
                name="a.txt",
                mime_type="text/plain",
                description="a file",
                title=None,
            ),
            NS(type="resource", resource=NS(uri="mem://n", mime_type="text/markdown", text="# hi")),
            NS(
                type="resource",
                resource=NS(
                    uri="mem://b",
                    mime_type=None,
                    text=None,
                    blob=base64.b64encode(b"\0\1").decode(),
                ),
            ),
            NS(type="video"),
        ],
    )
    out = await convert_result(result, name="mcp__s__t", server="s", ctx=ctx, media=media)
    lines = out.content.splitlines()
    assert lines[0] == "hello"
    assert lines[1].startswith("[image: image/png, 12 bytes, saved to .agent-spill/mcp-media/")
    assert lines[1].endswith(".png]")
    assert lines[2].startswith("[audio: audio/wav, 4 bytes, saved to ")
    assert ".wav]" in lines[2]
    assert lines[3] == "[image: image/png, the data is not valid base64; not saved]"
    assert lines[4] == (
        "[resource link: a.txt <file:///a.txt> (text/plain; a file); "
        'read with read_mcp_resource(server="s", uri="file:///a.txt")]'
    )
    assert lines[5:7] == ["[resource <mem://n> (text/markdown)]", "# hi"]
    assert lines[7].startswith("[resource <mem://b>: application/octet-stream, 2 bytes, saved")
    assert lines[8] == "[unsupported content block of type 'video']"
    assert "ignored" not in out.content
    saved = out.data["media"]
    assert len(saved) == 3
    assert (tmp_path / saved[0]).read_bytes() == base64.b64decode(PNG)
    assert "call_7" in saved[0]
    assert "mcp__s__t" in saved[0]
    assert (tmp_path / ".agent-spill" / "mcp-media" / ".gitignore").exists()


async def test_structured_content_alone_is_shown_as_json(
    media: MediaStore, ctx: ToolContext
) -> None:
    result = NS(is_error=False, content=[], structured_content={"city": "Oslo", "t": 3})
    out = await convert_result(result, name="n", server="s", ctx=ctx, media=media)
    assert out.content == '{\n  "city": "Oslo",\n  "t": 3\n}'
    empty = await convert_result(
        NS(is_error=False, content=[], structured_content=None),
        name="n",
        server="s",
        ctx=ctx,
        media=media,
    )
    assert empty.content == "(the tool returned no content)"


async def test_is_error_becomes_a_tool_failure(media: MediaStore, ctx: ToolContext) -> None:
    result = NS(is_error=True, content=[NS(type="text", text="no such repo")])
    with pytest.raises(ToolFailure) as caught:
        await convert_result(result, name="mcp__gh__get", server="gh", ctx=ctx, media=media)
    assert caught.value.info.code == "mcp_tool_error"
    assert caught.value.info.message == "mcp__gh__get reported an error: no such repo"


async def test_progress_becomes_tool_progress(tmp_path: Path) -> None:
    seen: list[ProgressUpdate] = []
    ctx = ToolContext(cwd=tmp_path, progress=seen.append)
    report = CallClock(ServerSpec("s"), "t", ctx).progress_callback()
    await report(2, 5, "two of five")
    await report(3, None, None)
    assert seen == [
        ProgressUpdate(message="two of five", progress=2, total=5),
        ProgressUpdate(progress=3),
    ]
