"""One skill folder: its ``SKILL.md`` read, and the files beside it listed.

The front matter is read leniently where Claude Code's skills need it and strictly where the
values are used: keys other than ``name``, ``description`` and ``allowed-tools`` (``license``,
``metadata:`` with nested keys, ``version``…) are skipped whatever their shape; the three used
may be plain, quoted, a folded or literal block (``description: >``), a plain scalar continued
on indented lines, or a list (``allowed-tools``). A folder that cannot be used — no
``SKILL.md`` front matter, no description, a bad name, not UTF-8, too big — is a problem naming
the file and why; the other skills still load.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from agent_tui.core.commands.frontmatter import FrontMatterError, Nested, parse, split_top

FILE = "SKILL.md"
MAX_BYTES = 256 * 1024
"""A ``SKILL.md`` larger than this is refused (instructions, not a data dump)."""
MAX_LISTED = 200
"""Files beside ``SKILL.md`` listed at most (the rest are counted)."""
MAX_DEPTH = 4
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
KEY = re.compile(r"^([A-Za-z][A-Za-z0-9_-]*)\s*:(.*)$")
USED = ("name", "description", "allowed-tools")
BLOCK = re.compile(r"^[|>][+-]?[0-9]?$")


class SkillError(ValueError):
    """The folder is not a usable skill; the message says why."""


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    path: Path
    """The ``SKILL.md`` file."""
    source: str
    """Where it was found: ``project``, ``claude``, ``user`` or ``~/.claude``."""
    body: str
    allowed_tools: tuple[str, ...] = ()
    digest: str = ""
    """SHA-256 of the file's bytes: a project skill's trust key (a changed file asks again)."""
    given_name: str = ""
    """The front matter's ``name`` when it is not a usable name (``Cloudflare Manager``): the
    skill goes by its folder's name instead, and the start says so."""

    @property
    def folder(self) -> Path:
        return self.path.parent

    def files(self) -> tuple[list[str], int]:
        """The files beside ``SKILL.md`` (relative, sorted, hidden ones and links out of the
        folder left out), at most ``MAX_LISTED``, and how many more there are. Blocking."""
        found: list[str] = []
        more = 0
        try:
            real = self.folder.resolve()
        except OSError:
            return [], 0
        for dirpath, dirnames, filenames in os.walk(self.folder, followlinks=False):
            here = Path(dirpath)
            depth = len(here.relative_to(self.folder).parts)
            dirnames[:] = (
                sorted(d for d in dirnames if not d.startswith(".")) if depth < MAX_DEPTH else []
            )
            for filename in sorted(filenames):
                path = here / filename
                if filename.startswith(".") or (depth == 0 and filename == FILE):
                    continue
                try:
                    if not path.resolve().is_relative_to(real):
                        continue
                except OSError:
                    continue
                if len(found) < MAX_LISTED:
                    found.append(path.relative_to(self.folder).as_posix())
                else:
                    more += 1
        return found, more


def read_skill(folder: Path, source: str) -> Skill:
    """The skill of ``folder`` (which holds ``SKILL.md``); ``SkillError`` when unusable."""
    path = folder / FILE
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise SkillError(f"cannot read it: {exc.strerror or exc}") from None
    if len(raw) > MAX_BYTES:
        raise SkillError(f"it is over {MAX_BYTES:,} bytes")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SkillError(f"it is not UTF-8 text (byte {exc.start})") from None
    if "\x00" in text:
        raise SkillError("it holds NUL bytes (not a text file)")
    fields, body = front_matter(text)
    name = fields.get("name") or folder.name
    given = ""
    if not isinstance(name, str) or not NAME.match(name):
        if not NAME.match(folder.name):
            raise SkillError(
                f"name {name!r} is not a skill name (letters, digits, . _ -; at most 64 characters)"
            )
        given, name = str(name), folder.name  # a display name: the folder names the skill
    description = fields.get("description", "")
    if not isinstance(description, str) or not description.strip():
        raise SkillError(
            "it has no description in its front matter (the model decides from the description "
            "when to load a skill: without one it would never be used)"
        )
    tools = fields.get("allowed-tools", [])
    if isinstance(tools, str):
        tools = split_top(tools)
    return Skill(
        name=name,
        description=" ".join(description.split()),
        path=path,
        source=source,
        body=body.strip("\n"),
        allowed_tools=tuple(tools),
        digest=hashlib.sha256(raw).hexdigest(),
        given_name=given,
    )


def front_matter(text: str) -> tuple[dict[str, str | list[str]], str]:
    """``(used fields, body)`` of a ``SKILL.md``; ``SkillError`` when it has none or the
    fields used cannot be read."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip("\r").strip() != "---":
        raise SkillError("it does not start with a front matter (--- name, description ---)")
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip("\r").strip() == "---"), None)
    if end is None:
        raise SkillError("the front matter opened with --- on line 1 is never closed")
    blocks: list[tuple[int, str, str, list[str]]] = []  # line, key, value, continuation
    for number, line in enumerate((ln.rstrip("\r") for ln in lines[1:end]), start=2):
        if not line.strip() or line.lstrip().startswith("#"):
            if blocks and line.strip() == "":
                blocks[-1][3].append("")
            continue
        if line[:1].isspace() or line.startswith("- ") or line.strip() == "-":
            if not blocks:
                raise SkillError(f"front matter line {number}: indented text before any key")
            blocks[-1][3].append(line)
            continue
        match = KEY.match(line)
        if match is None:
            raise SkillError(f"front matter line {number}: not `key: value`: {line[:60]!r}")
        blocks.append((number, match.group(1), match.group(2).strip(), []))
    fields: dict[str, str | list[str]] = {}
    for number, key, value, more in blocks:
        if key not in USED:
            continue
        if key in fields:
            raise SkillError(f"front matter line {number}: {key} is given twice")
        fields[key] = _value(number, key, value, more)
    return fields, "\n".join(lines[end + 1 :])


def _value(number: int, key: str, value: str, more: list[str]) -> str | list[str]:
    kept = list(more)
    while kept and not kept[-1].strip():
        kept.pop()
    if BLOCK.match(value):  # a folded (>) or literal (|) block
        texts = [line.strip() for line in kept]
        return ("\n" if value.startswith("|") else " ").join(texts).strip()
    if (
        kept
        and value
        and not value.startswith(("[", "'", '"'))
        and not any(line.lstrip().startswith("- ") for line in kept)
    ):  # a plain scalar continued on indented lines
        return " ".join([value, *(line.strip() for line in kept)]).strip()
    try:
        parsed = parse([f"{key}: {value}", *(line.strip() for line in kept if line.strip())])
    except FrontMatterError as exc:
        raise SkillError(f"front matter line {number}: {key}: {exc}") from None
    found = parsed.get(key, "")
    return "" if isinstance(found, Nested) else found  # a nested map: not a skill's field
