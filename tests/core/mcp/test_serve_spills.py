"""``mcp serve``'s output budget and its spills as resources (``spill://``).

A result over the per-result budget comes back as an excerpt, a pointer and a
``resource_link``; the full output is read back page by page with ``resources/read``. The
red-team tests plant canaries — a file outside the spill directory, a spill written by
someone else into the same directory, a symbolic link in place of a spill, the directory
itself replaced by a link — and try every way a URI could reach them; none may come back.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import ResourceLink, TextContent

from agent_tui.core.budget.config import BudgetSettings
from agent_tui.core.budget.store import SpillStore
from agent_tui.core.mcp.server.spills import (
    DIR_PREFIX,
    MAX_SPILLS,
    ServeSpills,
    parse_uri,
    uri_of,
)
from agent_tui.core.mcp.server.tool_server import ToolServer
from agent_tui.core.permissions.pipeline import RuleSet
from tests.core.mcp.conftest import ROOT

SMALL = BudgetSettings(per_result_chars=2_000, preview_chars=500)
NEXT = re.compile(r"next(?: line)?: (spill://\S+?)\]?$")
DEADLINE = 30.0


def _served_tree(root: Path, lines: int = 300) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "many.txt").write_text(
        "".join(f"row {i} needle {'y' * 100}\n" for i in range(lines)), encoding="utf-8"
    )


def _server(root: Path, settings: BudgetSettings = SMALL) -> ToolServer:
    server = ToolServer(root, rules=RuleSet())
    server.spills = ServeSpills(settings)
    return server


def _rows(page: str) -> tuple[list[str], str]:
    """(the text of each numbered row, the footer) of one page."""
    *rows, footer = page.split("\n")
    return [row.split("\t", 1)[1] for row in rows], footer


async def _read(server: ToolServer, uri: str) -> str:
    result = await server.spills.read(uri)
    (content,) = result.contents
    assert content.uri == uri
    assert content.mime_type == "text/plain"
    return str(content.text)


async def test_a_result_over_the_budget_is_an_excerpt_a_pointer_and_a_link(
    tmp_path: Path,
) -> None:
    _served_tree(tmp_path / "served")
    whole = await _server(tmp_path / "served", BudgetSettings()).call_tool(
        "grep", {"pattern": "needle"}
    )
    full = whole.content[0].text
    assert len(full) > SMALL.per_result_chars  # the same call, sent whole under the default
    server = _server(tmp_path / "served")
    try:
        result = await server.call_tool("grep", {"pattern": "needle"})
        assert result.is_error is False
        text, link = result.content
        assert isinstance(text, TextContent)
        assert isinstance(link, ResourceLink)
        assert len(text.text) < 2 * SMALL.preview_chars
        assert text.text.startswith(full[:100])
        assert f"is saved byte for byte as this server's resource {link.uri}" in text.text
        assert "Do not call grep again" in text.text
        assert link.uri.startswith("spill://")
        assert link.mime_type == "text/plain"
        assert link.size == len(full.encode())
        (listed,) = server.spills.resources()
        assert (listed.uri, listed.size, listed.mime_type) == (link.uri, link.size, "text/plain")
        assert "grep" in (listed.description or "")
        (template,) = server.spills.templates()
        assert template.uri_template == "spill://{name}{?offset,limit,char_offset}"
        # paging from the first page to the end gives back every line of the full output
        uri: str | None = link.uri
        lines: list[str] = []
        pages = 0
        while uri is not None:
            rows, footer = _rows(await _read(server, uri))
            lines += rows
            pages += 1
            found = NEXT.search(footer)
            uri = found.group(1) if found else None
            if uri is None:
                assert footer.endswith("— end of output]"), footer
        assert lines == full.split("\n")
        assert pages == 1  # 301 lines fit one page of 2,000
        rows, footer = _rows(await _read(server, uri_of(listed.name, offset=100, limit=50)))
        assert rows == full.split("\n")[99:149]
        assert footer.endswith(f"next: {uri_of(listed.name, offset=150, limit=50)}]"), footer
    finally:
        server.spills.close()


async def test_read_file_limits_itself_and_is_never_spilled(tmp_path: Path) -> None:
    _served_tree(tmp_path / "served")
    server = _server(tmp_path / "served")
    result = await server.call_tool("read_file", {"path": "many.txt"})
    assert [type(b) for b in result.content] == [TextContent]
    assert len(result.content[0].text) > SMALL.per_result_chars
    assert server.spills.resources() == []
    assert server.spills.directory is None  # nothing written anywhere


async def test_a_long_line_is_read_on_with_char_offset(tmp_path: Path) -> None:
    spills = ServeSpills(SMALL)
    try:
        line = "".join(f"{i:05d}," for i in range(8_000))  # 48,000 characters
        text = f"head\n{line}\ntail\n"
        blocks = await spills.spill("grep", text, is_error=False, raw=None, summary="")
        name = blocks[1].name
        page = (await spills.read(uri_of(name))).contents[0].text
        rows, footer = _rows(page)
        assert rows[0] == "head"
        assert "line 2 is cut at 2,000 of 48,000 chars" in footer
        pieces, uri = [], uri_of(name, offset=2, char_offset=2_000)
        while True:
            rows, footer = _rows((await spills.read(uri)).contents[0].text)
            pieces.append(rows[0])
            found = NEXT.search(footer)
            assert found, footer
            uri = found.group(1)
            if "next line" in footer:
                break
        assert line[:2_000] + "".join(pieces) == line
        assert uri == uri_of(name, offset=3)
        assert _rows((await spills.read(uri)).contents[0].text)[0] == ["tail"]
    finally:
        spills.close()


async def test_a_failure_keeps_its_tail_and_the_oldest_spills_go(tmp_path: Path) -> None:
    spills = ServeSpills(SMALL)
    try:
        text = "".join(f"line {i}\n" for i in range(2_000)) + "FAILED at the end\n"
        blocks = await spills.spill("grep", text, is_error=True, raw=None, summary="")
        assert "FAILED at the end" in blocks[0].text
        assert "line 1000\n" not in blocks[0].text  # the middle is left out
        first = blocks[1].name
        for _ in range(MAX_SPILLS):
            await spills.spill("grep", text, is_error=False, raw=None, summary="")
        names = spills.names()
        assert len(names) == MAX_SPILLS
        assert first not in names
        assert spills.directory is not None
        assert not (spills.directory / first).exists()
        with pytest.raises(MCPError) as gone:
            await spills.read(uri_of(first))
        assert gone.value.error.code == -32602
    finally:
        spills.close()
    assert spills.resources() == []


# -- red team --------------------------------------------------------------------------------


async def _refused(spills: ServeSpills, uri: str, canary: str) -> None:
    with pytest.raises(MCPError) as refused:
        await spills.read(uri)
    error = refused.value.error
    assert error.code == -32602, uri
    assert error.message.startswith("Resource not found"), error.message
    assert error.data == {"uri": uri}
    assert canary not in str(error.message), uri


async def test_no_uri_reaches_outside_this_servers_own_spills(tmp_path: Path) -> None:
    token = secrets.token_hex(8)
    canary = f"CANARY-{token}"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "canary.txt").write_text(f"{canary}\n")
    spills = ServeSpills(SMALL)
    try:
        blocks = await spills.spill("grep", "x" * 5_000, is_error=False, raw=None, summary="")
        ours = blocks[1].name
        directory = spills.directory
        assert directory is not None
        assert directory.stat().st_mode & 0o777 == 0o700
        # a real spill, index and all, written into the same directory by someone else
        other = SpillStore(directory, directory, durable=False).write(canary * 100, "grep", "x")
        assert other.path.parent == directory
        canary_path = outside / "canary.txt"
        attempts = [
            "spill://../outside/canary.txt",
            f"spill://..%2F..%2F{canary_path.name}",
            f"spill://{canary_path}",
            f"spill:///{canary_path}",
            f"file://{canary_path}",
            str(canary_path),
            f"spill://{ours}/../../outside/canary.txt",
            f"spill://{ours}/..",
            f"spill://{other.path.name}",  # named like a spill, in the directory: not ours
            f"spill://{other.path.name}?offset=1",
            f"spill://{ours}?offset=0",
            f"spill://{ours}?offset=1&offset=2",
            f"spill://{ours}?path=../outside/canary.txt",
            f"spill://{ours}?limit=-1",
            f"spill://{ours}#../../outside",
            f"spill://{ours.upper()}",
            "spill://",
            "",
        ]
        for uri in attempts:
            await _refused(spills, uri, canary)
        assert parse_uri(uri_of(ours, offset=2, limit=3)).limit == 3
        # our own spill's name, now a symbolic link to a spill outside whose index is put in
        # place of ours (followed, it would be read as a valid spill): not followed
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        far = SpillStore(elsewhere, elsewhere, durable=False).write(canary * 100, "grep", "x")
        os.replace(directory / ours, directory / "moved.txt")
        os.symlink(far.path, directory / ours)
        far_index = elsewhere / ".index" / f"{far.path.name}.idx"
        shutil.copy2(far_index, directory / ".index" / f"{ours}.idx")
        await _refused(spills, uri_of(ours), canary)
        # the same name, a copy of someone else's spill with its index: does not match ours
        os.unlink(directory / ours)
        shutil.copy(other.path, directory / ours)
        await _refused(spills, uri_of(ours), canary)
        # the directory itself replaced by a link to one that holds a spill of that name
        decoy = tmp_path / "decoy"
        decoy.mkdir()
        decoy_store = SpillStore(decoy, decoy, durable=False)
        planted = decoy_store.write(canary * 100, "grep", "x")
        os.rename(planted.path, decoy / ours)
        os.rename(decoy / ".index" / f"{planted.path.name}.idx", decoy / ".index" / f"{ours}.idx")
        shutil.rmtree(directory)
        os.symlink(decoy, directory)
        await _refused(spills, uri_of(ours), canary)
        assert all(canary not in str(r) for r in spills.resources())
    finally:
        spills.close()
    assert not directory.exists()
    assert not directory.is_symlink()
    assert (decoy / ours).exists()  # the link was removed, not what it pointed to
    assert (outside / "canary.txt").read_text() == f"{canary}\n"


# -- the real server ---------------------------------------------------------------------------


def test_the_spill_directory_is_private_and_deleted_when_the_server_stops(
    tmp_path: Path,
) -> None:
    """Over HTTP: the budget is the settings' (a project's here), the spill is listed and
    read back, written outside the served tree (which stays as it was), and gone once the
    server stops."""
    root = tmp_path / "served"
    (root / ".agent-tui").mkdir(parents=True)
    budget = {"per_result_chars": 2_000, "preview_chars": 500}
    (root / ".agent-tui" / "settings.json").write_text(json.dumps({"budget": budget}))
    # about 4,000 characters of matches: whole under the default budget, spilled under this
    (root / "many.txt").write_text(
        "".join(f"{i} needle {'x' * 80}\n" for i in range(40)), encoding="utf-8"
    )
    before = sorted(p.name for p in root.rglob("*"))
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "src"),
        "AGENT_TUI_CONFIG_DIR": str(tmp_path / "config"),
        "TMPDIR": str(temp),
    }
    errlog = tmp_path / "serve.err"
    argv = [sys.executable, "-m", "agent_tui", "mcp", "--cwd", str(root), "serve"]
    with errlog.open("wb") as err:
        process = subprocess.Popen(
            [*argv, "--transport", "http", "--port", "0"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=env,
        )
    try:
        marker = "listening on "
        end = time.monotonic() + DEADLINE
        while marker not in (text := errlog.read_text()):
            assert process.poll() is None, text
            assert time.monotonic() < end, text
            time.sleep(0.05)
        url = text.split(marker, 1)[1].split()[0]

        async def use() -> tuple[Any, str]:
            async with Client(url, read_timeout_seconds=DEADLINE) as client:
                result = await client.call_tool("grep", {"pattern": "needle"})
                link = result.content[1]
                listed = (await client.list_resources()).resources
                page = await client.read_resource(link.uri)
                return listed, page.contents[0].text

        listed, page = asyncio.run(use())
        assert [r.uri.startswith("spill://") for r in listed] == [True]
        assert page.startswith("     1\tmany.txt:1:0 needle")
        spill_dirs = list(temp.glob(f"{DIR_PREFIX}*"))
        assert len(spill_dirs) == 1
        assert (spill_dirs[0] / listed[0].name).is_file()
        assert sorted(p.name for p in root.rglob("*")) == before  # nothing written there
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=DEADLINE)
    assert process.returncode == 0, errlog.read_text()
    assert list(temp.glob(f"{DIR_PREFIX}*")) == []
