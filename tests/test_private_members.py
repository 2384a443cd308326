"""The private members of Textual, the MCP SDK and regex that agent-tui relies on
(``agent_tui.private_members``) are still there, as they were when the code was written: an
upgrade that renames or reshapes one fails here, loudly, rather than at a user's keyboard."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path
from typing import Any

import pytest

from agent_tui.private_members import PRIVATE, Private

SRC = Path(__file__).resolve().parents[1] / "src" / "agent_tui"
DEPENDENCIES = ("textual", "mcp", "regex")


def _resolve(entry: Private) -> Any:
    found: Any = importlib.import_module(entry.module)
    for part in filter(None, entry.name.split(".")):
        found = getattr(found, part)
    return found


@pytest.mark.parametrize("entry", PRIVATE, ids=lambda e: f"{e.module}:{e.name}")
def test_each_private_member_is_still_there_as_listed(entry: Private) -> None:
    if entry.kind == "instance attribute":
        assert entry.owner is not None
        owner = getattr(importlib.import_module(entry.module), entry.owner)
        attribute = entry.name.rsplit(".", 1)[-1]
        assert hasattr(owner(), attribute), f"{entry.owner}() has no {attribute}"
        return
    member = _resolve(entry)
    if entry.kind == "module":
        assert inspect.ismodule(member)
    elif entry.kind == "class":
        assert inspect.isclass(member)
    elif entry.kind == "callable":
        assert callable(member)
        assert entry.signature is not None, "list the signature the code was written against"
        assert str(inspect.signature(member)) == entry.signature
    else:
        assert entry.kind == "attribute"


@pytest.mark.parametrize("entry", PRIVATE, ids=lambda e: f"{e.module}:{e.name}")
def test_each_listed_use_is_still_in_its_file(entry: Private) -> None:
    parts = [p for p in entry.name.split(".") if p and not p.startswith("__")]
    word = parts[-1] if parts else entry.module.rsplit(".", 1)[-1]
    for used_in in entry.used_in:
        assert word in (SRC / used_in).read_text(encoding="utf-8"), (
            f"{used_in} no longer uses {word}: remove it from agent_tui.private_members"
        )


def _private_uses(path: Path) -> set[str]:
    """The dependency's private modules ``path`` imports from, the private names it imports,
    and the private methods its classes call through ``super()``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            top = node.module.split(".")[0]
            if top in DEPENDENCIES:
                if any(part.startswith("_") for part in node.module.split(".")):
                    found.add(node.module)
                found.update(a.name for a in node.names if a.name.startswith("_"))
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            inner = node.value
            if (
                isinstance(inner, ast.Call)
                and isinstance(inner.func, ast.Name)
                and inner.func.id == "super"
                and not node.attr.startswith("__")
            ):
                found.add(node.attr)
    return found


def test_no_private_member_is_used_without_being_listed() -> None:
    listed = (
        {e.module for e in PRIVATE}
        | {e.module.rsplit(".", 1)[-1] for e in PRIVATE}
        | {part for e in PRIVATE for part in e.name.split(".") if part}
    )
    unlisted = {
        f"{path.relative_to(SRC)}: {use}"
        for path in SRC.rglob("*.py")
        for use in _private_uses(path)
        if use not in listed
    }
    assert not unlisted, "list these in agent_tui/private_members.py: " + ", ".join(
        sorted(unlisted)
    )
