"""The primitives the agent's own writes go through (``core.nofollow``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_tui.core.state.nofollow import (
    LinkRefused,
    OutsideAnchor,
    find_link,
    open_resolved,
    read_below,
    rel_parts,
    split_below,
    write_below,
)


@pytest.mark.parametrize("bad", ["../x", "a/../../x", "/etc/x", "~/x", "a/.."])
def test_a_relative_path_that_can_leave_its_anchor_is_refused(bad: str) -> None:
    with pytest.raises(OutsideAnchor):
        rel_parts(bad)


def test_split_below_keeps_inside_paths_under_the_anchor(tmp_path: Path) -> None:
    assert split_below(tmp_path / "a/b", tmp_path) == (tmp_path, ("a", "b"))
    assert split_below(tmp_path / "a/../../x", tmp_path) == (tmp_path.parent, ("x",))


def test_write_below_refuses_every_link_below_the_anchor(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    anchor = tmp_path / "ws"
    (anchor / "real").mkdir(parents=True)
    (anchor / "dir-link").symlink_to(outside)
    (anchor / "real" / "file-link").symlink_to(outside / "target")
    with pytest.raises(LinkRefused) as refused:
        write_below(anchor, "dir-link/x", b"x")
    assert refused.value.link == anchor / "dir-link"
    assert refused.value.target == str(outside)
    write_below(anchor, "real/file-link", b"new")  # the link itself is replaced
    assert not (anchor / "real" / "file-link").is_symlink()
    assert os.listdir(outside) == []
    assert find_link(anchor, ("dir-link", "x")) is not None
    assert find_link(anchor, ("real",)) is None


def test_the_anchor_itself_is_followed_as_named(tmp_path: Path) -> None:
    real = tmp_path / "var-home"
    (real / "ws").mkdir(parents=True)
    (tmp_path / "home").symlink_to(real)  # Silverblue: /home -> /var/home
    write_below(tmp_path / "home" / "ws", "a/b.txt", b"ok")
    assert read_below(tmp_path / "home" / "ws", "a/b.txt") == b"ok"


def test_open_resolved_refuses_a_link_anywhere_on_the_path(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "f").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    os.close(open_resolved(tmp_path / "real" / "f"))
    with pytest.raises(LinkRefused):
        open_resolved(tmp_path / "link" / "f")
