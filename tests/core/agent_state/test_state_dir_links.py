"""Links planted inside the agent's own directories (which are inside the workspace when the
workspace is the home directory) never make the agent write elsewhere: the quarantine, the
checkpoint blobs of a session, MCP sign-in tokens, notices and the MCP tool cache. The JSON
they hold carries strings a server or a repository chose (a server's name, a tool's
description): written into ``~/.bashrc.d`` it would run in the next login shell."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_tui.core.checkpoints.blobs import BlobStore
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.mcp.auth.token_store import FileTokenStorage
from agent_tui.core.mcp.client.tool_cache import CachedTool, ToolCache
from agent_tui.core.sandbox.aftercheck import quarantine
from agent_tui.core.state import notices
from agent_tui.core.state.nofollow import LinkRefused
from tests.core.agent_state.helpers import HomeLab, files_in


@pytest.fixture
def rcd(home_lab: HomeLab) -> Path:
    """~/.bashrc.d: what a link inside the data directory points at."""
    path = home_lab.home / ".bashrc.d"
    path.mkdir()
    return path


def test_the_quarantine_through_a_link_goes_to_a_private_directory(
    home_lab: HomeLab, rcd: Path
) -> None:
    home_lab.data.mkdir(parents=True)
    (home_lab.data / "quarantine").symlink_to(rcd)
    victim = home_lab.home / "project" / ".git" / "hooks" / "pre-commit"
    victim.parent.mkdir(parents=True)
    victim.write_text("#!/bin/sh\ntouch PWNED\n")
    [moved] = quarantine([victim], home_lab.home / "project")
    assert files_in(rcd) == []
    assert not victim.exists()  # still taken out of the workspace
    assert moved.to.read_text() == "#!/bin/sh\ntouch PWNED\n"
    assert "agent-tui-quarantine-" in str(moved.box)


def test_checkpoint_blobs_through_a_link_are_refused(home_lab: HomeLab, rcd: Path) -> None:
    session = SessionStore().new(home_lab.home, "demo")
    session.files_dir.mkdir()
    (session.files_dir / "blobs").symlink_to(rcd)
    with pytest.raises(LinkRefused):
        session.blobs.put(b"touch PWNED\n")
    assert files_in(rcd) == []


def test_blobs_still_work_and_are_private(home_lab: HomeLab) -> None:
    session = SessionStore().new(home_lab.home, "demo")
    digest = session.blobs.put(b"old content\n")
    assert session.blobs.get(digest) == b"old content\n"
    assert os.stat(session.blobs.path(digest)).st_mode & 0o077 == 0
    fork = SessionStore().fork(session)
    assert fork.blobs.get(digest) == b"old content\n"


def test_a_fork_does_not_link_blobs_through_a_planted_link(home_lab: HomeLab, rcd: Path) -> None:
    session = SessionStore().new(home_lab.home, "demo")
    session.blobs.put(b"touch PWNED\n")
    other = BlobStore(home_lab.data / "sessions" / "planted" / "blobs")
    other.root.parent.mkdir(parents=True)
    other.root.symlink_to(rcd)
    with pytest.raises(LinkRefused):
        session.blobs.copy_to(other)
    assert files_in(rcd) == []


def test_sign_in_tokens_through_a_link_are_refused(home_lab: HomeLab, rcd: Path) -> None:
    home_lab.data.mkdir(parents=True)
    (home_lab.data / "mcp-auth").symlink_to(rcd)
    storage = FileTokenStorage("$(touch PWNED)", "https://example.invalid/mcp")
    with pytest.raises(LinkRefused):
        storage.write({"tokens": {"access_token": "secret"}})
    assert files_in(rcd) == []


def test_tokens_are_still_saved_privately(home_lab: HomeLab) -> None:
    storage = FileTokenStorage("srv", "https://example.invalid/mcp")
    storage.write({"tokens": {"access_token": "secret"}})
    assert storage.read()["tokens"] == {"access_token": "secret"}
    assert os.stat(storage.path).st_mode & 0o077 == 0
    assert os.stat(storage.path.parent).st_mode & 0o077 == 0


def test_notices_through_a_link_are_not_written(home_lab: HomeLab, rcd: Path) -> None:
    home_lab.data.mkdir(parents=True)
    (home_lab.data / notices.FILE).symlink_to(rcd / "zz-notices")
    assert notices.first_time("$(touch PWNED)")
    assert files_in(rcd) == []  # the link is replaced, not followed
    assert not (home_lab.data / notices.FILE).is_symlink()
    assert not notices.first_time("$(touch PWNED)")


def test_the_tool_cache_through_a_link_is_refused(home_lab: HomeLab, rcd: Path) -> None:
    cache = ToolCache()
    cache.root.parent.mkdir(parents=True)
    cache.root.symlink_to(rcd)
    tool = CachedTool({"name": "t", "description": "$(touch PWNED)", "inputSchema": {}})
    with pytest.raises(LinkRefused):
        cache.save("ab" * 16, "srv", [tool], resources=False)
    assert files_in(rcd) == []
