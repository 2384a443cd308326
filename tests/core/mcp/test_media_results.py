"""Binary results stay files: the real server-filesystem's ``read_media_file`` on a PNG (an
image block and a ``structuredContent`` copy of it with the same base64) reaches the model as
one line naming the saved file, never as base64; other binary data in structured content is
saved too and replaced by a pointer."""

from __future__ import annotations

import base64
import os
import zlib
from pathlib import Path
from types import SimpleNamespace as NS

import pytest

from agent_tui.core.mcp.client.adapter import MediaStore, convert_result
from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.builtin import default_registry
from tests.core.mcp.conftest import run_calls, write_config

pytestmark = pytest.mark.asyncio


def _png(width: int, height: int) -> bytes:
    """A real (noisy, so incompressible) RGB PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return len(data).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")

    rows = b"".join(b"\x00" + os.urandom(width * 3) for _ in range(height))
    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + b"\x08\x02\x00\x00\x00"
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


async def test_read_media_file_gives_a_saved_file_and_one_line(
    tmp_path: Path, npm_bin: Path
) -> None:
    picture = _png(32, 32)
    (tmp_path / "dot.png").write_bytes(picture)
    encoded = base64.b64encode(picture).decode()
    config = write_config(
        tmp_path / ".mcp.json",
        {"fs": {"command": str(npm_bin / "mcp-server-filesystem"), "args": [str(tmp_path)]}},
    )
    manager = McpManager(tmp_path, default_registry(), paths=[config])
    try:
        await manager.start()
        await manager.wait_ready()
        assert manager.state("fs").status == "connected", manager.state("fs").reason
        path = str(tmp_path / "dot.png")
        raw = await manager.call("fs", "read_media_file", {"path": path}, ToolContext(tmp_path))
        _, out = await run_calls(
            manager.registry, tmp_path, [("mcp__fs__read_media_file", {"path": path})]
        )
    finally:
        await manager.aclose()
    # What the server sends: the image twice, as a block and in structuredContent.
    assert raw.structured_content is not None
    assert encoded in str(raw.structured_content)
    text = out[-1].content
    assert encoded[:40] not in text
    lines = text.splitlines()
    assert len(lines) == 1, text
    assert lines[0].startswith(f"[image: image/png, {len(picture):,} bytes, saved to ")
    saved = lines[0].removesuffix("]").rsplit("saved to ", 1)[1]
    assert (tmp_path / saved).read_bytes() == picture


async def test_structured_binary_is_a_pointer_and_the_rest_stays(tmp_path: Path) -> None:
    media = MediaStore(tmp_path / "media", tmp_path)
    ctx = ToolContext(tmp_path, call_id="c1")
    picture = _png(16, 16)
    blob = base64.b64encode(picture).decode()
    result = NS(
        is_error=False,
        content=[],
        structured_content={"file": "a.png", "image": {"bytes": blob, "mimeType": "image/png"}},
    )
    out = await convert_result(result, name="mcp__s__t", server="s", ctx=ctx, media=media)
    assert blob[:40] not in out.content
    assert '"file": "a.png"' in out.content
    assert f"[data: image/png, {len(picture):,} bytes, saved to media/" in out.content
    assert len(out.data["media"]) == 1
    assert (tmp_path / out.data["media"][0]).read_bytes() == picture
    # A long string that is not base64 data (a hex digest, prose) is left alone.
    hexed = NS(is_error=False, content=[], structured_content={"h": "ab12" * 200})
    kept = await convert_result(hexed, name="mcp__s__t", server="s", ctx=ctx, media=media)
    assert "ab12" * 200 in kept.content
