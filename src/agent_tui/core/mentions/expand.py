"""A submitted prompt's mentions, attached for the model.

``MentionExpander.expand(prompt)`` finds the ``@`` tokens (``syntax``) that name an existing
path and gives the model the prompt followed by one ``<attachment>`` block per mention:

- a file: what ``read_file`` returns for it (the real tool: numbered lines, its limits, its
  footer — a big file is its first window and the footer's ``next: read_file(…offset=…)``
  says how to page on); it also counts as read for ``edit_file``;
- an image (by its suffix: ``core.images.prepare``): the image itself, sent with the
  message (``Expansion.images``; resized when too large), and a line in the text naming it;
  a damaged image or not an image is refused with the reason;
- a directory: its entries two levels deep, breadth first, ignored files left out (the
  index's walk), at most ``MAX_LISTING``;
- refused, with a note saying why and nothing of the content: a path outside the workspace
  (``..``, an absolute path elsewhere, a symlink that leads out), a file the read guard
  withholds (the ``read_file`` deny and ask rules: a mention reads nothing ``read_file`` may
  not), a file that is not text.

A token naming no existing path stays text (``@here``, ``@someone``). All the attachments of
one prompt share ``MAX_ATTACHED`` characters; the mentions past it get a pointer only.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from agent_tui.core.attachments import PreparedImage
from agent_tui.core.events import Mention
from agent_tui.core.images.prepare import (
    MAX_INPUT_BYTES,
    ImageError,
    looks_like_image,
    prepare_image,
)
from agent_tui.core.mentions.resources import MentionResources
from agent_tui.core.mentions.syntax import RESOURCE, tokens
from agent_tui.core.mentions.walk import Walker
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.builtin.read_file import TOOL as READ_FILE
from agent_tui.core.tools.builtin.read_file import ReadFileInput, call_text
from agent_tui.core.tools.errors import ToolFailure
from agent_tui.core.tools.file_state import FileStateCache
from agent_tui.core.tools.reads import NO_GUARD, ReadGuard

MAX_LISTING = 200
"""Entries of a mentioned directory's listing."""
LISTING_DEPTH = 2
MAX_ATTACHED = 200_000
"""Characters of attachments per prompt (two full ``read_file`` windows)."""
LEAD = "[The user attached these with @-mentions:]"


@dataclass
class Expansion:
    text: str
    """What the model gets: the prompt, then the attachments."""
    mentions: list[Mention] = field(default_factory=list)
    images: list[PreparedImage] = field(default_factory=list)
    """The images the mentions attach (sent with the message, kept in the session)."""


@dataclass(frozen=True)
class _Located:
    real: Path
    is_dir: bool
    symlink: bool


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _block(kind: str, path: str, body: str, refused: bool = False) -> str:
    from html import escape  # html.entities is big, and most prompts mention nothing

    attrs = f'kind="{kind}" path="{escape(path, quote=True)}"'
    if refused:
        attrs += ' refused="true"'
    return f"<attachment {attrs}>\n{body}\n</attachment>"


class MentionExpander:
    def __init__(
        self,
        workspace: Path,
        *,
        reads: ReadGuard = NO_GUARD,
        file_state: FileStateCache | None = None,
        resources: MentionResources | None = None,
    ) -> None:
        self.cwd = workspace
        self.workspace = Path(os.path.realpath(workspace))
        self.reads = reads
        self.file_state = file_state if file_state is not None else FileStateCache()
        self.resources = resources
        self._images: list[PreparedImage] = []

    async def expand(self, prompt: str) -> Expansion:
        mentions: list[Mention] = []
        self._images = []
        blocks: list[str] = []
        seen: set[str] = set()
        room = MAX_ATTACHED
        for token in tokens(prompt):
            found = await self._one(token.start, token.candidates(), room)
            if found is None:
                continue
            mention, block = found
            mentions.append(mention)
            if mention.path in seen:
                continue  # attached once, however often it is named
            seen.add(mention.path)
            blocks.append(block)
            if mention.attached:
                room -= len(block)
        if not blocks:
            return Expansion(prompt, mentions, self._images)
        return Expansion("\n\n".join([prompt, LEAD, *blocks]), mentions, self._images)

    async def _one(
        self, start: int, candidates: list[tuple[str, int]], room: int
    ) -> tuple[Mention, str] | None:
        for raw, end in candidates:
            resource = RESOURCE.match(raw)
            if resource is not None and self.resources is not None:
                server, uri = resource.groups()
                if server in self.resources.servers():
                    try:
                        body, note = await self.resources.read(server, uri)
                    except LookupError:
                        continue
                    mention = Mention(kind="resource", path=raw, start=start, end=end, note=note)
                    return mention, _block("resource", raw, body)
            found = await asyncio.to_thread(self._locate, raw)
            if found is not None:
                return await self._path(found, raw, start, end, room)
        return None

    def _locate(self, raw: str) -> _Located | None:
        """Where ``raw`` leads, or None when nothing is there (the token stays text)."""
        path = Path(raw).expanduser()
        path = path if path.is_absolute() else self.cwd / path
        if not os.path.lexists(path):
            return None
        real = Path(os.path.realpath(path))
        return _Located(real, real.is_dir(), path.is_symlink())

    async def _path(
        self, found: _Located, raw: str, start: int, end: int, room: int
    ) -> tuple[Mention, str]:
        real, is_dir = found.real, found.is_dir
        kind: Literal["file", "directory"] = "directory" if is_dir else "file"
        shown = raw.rstrip("/") + "/" if is_dir else raw

        def refused(note: str) -> tuple[Mention, str]:
            mention = Mention(
                kind=kind, path=shown, start=start, end=end, attached=False, note=note
            )
            body = f"[{shown} is not attached: {note}.]"
            return mention, _block(kind, shown, body, refused=True)

        if not _inside(real, self.workspace):
            where = "a symlink that leads " if found.symlink else ""
            return refused(f"it is {where}outside the workspace")
        why = self.reads.withheld(real)
        if why is not None:
            return refused(f"it is withheld by {why}; do not try to reach its content another way")
        rel = real.relative_to(self.workspace).as_posix()
        if room <= 0:
            note = f"the attachments of this message are full ({MAX_ATTACHED:,} characters)"
            hint = "list_dir or glob it" if is_dir else f"read it with {call_text(raw)}"
            mention = Mention(
                kind=kind, path=shown, start=start, end=end, attached=False, note=note
            )
            return mention, _block(kind, shown, f"[not attached: {note}; {hint}]", refused=True)
        if is_dir:
            body = await asyncio.to_thread(self._listing, "" if rel == "." else rel, shown)
            return Mention(kind=kind, path=shown, start=start, end=end), _block(kind, shown, body)
        if looks_like_image(real.name):
            try:
                image = await asyncio.to_thread(_image, real, raw)
            except ImageError as error:
                return refused(str(error).rstrip("."))
            self._images.append(image)
            ref = image.ref
            note = f"attached as an image, {ref.width}×{ref.height}"
            mention = Mention(kind=kind, path=shown, start=start, end=end, note=note)
            body = f"[image: {ref.kind}, {ref.width}×{ref.height}, sent with this message]"
            return mention, _block("image", shown, body)
        ctx = ToolContext(
            cwd=self.cwd, file_state=self.file_state, judged_path=real, reads=self.reads
        )
        try:
            out = await READ_FILE.call(ReadFileInput(path=raw), ctx)
        except ToolFailure as failure:
            return refused(failure.info.message.rstrip("."))
        note = ""
        total = out.data.get("total_lines") if out.data else None
        last = out.data.get("last") if out.data else None
        if isinstance(total, int) and isinstance(last, int) and last < total:
            note = f"lines 1–{last:,} of {total:,} attached; the model pages on with read_file"
        mention = Mention(kind=kind, path=shown, start=start, end=end, note=note)
        return mention, _block(kind, shown, out.content)

    def _listing(self, rel: str, shown: str) -> str:
        walker = Walker(self.workspace, lambda real: self.reads.withheld(Path(real)) is None)
        lines: list[str] = []
        more = False
        prefix = rel + "/" if rel else ""
        for entry in walker.walk(rel, max_depth=LISTING_DEPTH):
            if len(lines) >= MAX_LISTING:
                more = True
                break
            name = entry.rel[len(prefix) :] + ("/" if entry.is_dir else "")
            why = self.reads.withheld(Path(os.path.realpath(self.workspace / entry.rel)))
            lines.append(name + (f"  [withheld: {why}]" if why else ""))
        if not lines:
            return f"[{shown} is empty (ignored files left out)]"
        tail = (
            f"[the first {MAX_LISTING} entries, {LISTING_DEPTH} levels deep, ignored files "
            f"left out — list_dir or glob for more]"
            if more
            else f"[{len(lines)} entries, {LISTING_DEPTH} levels deep, ignored files left out]"
        )
        return "\n".join([*lines, tail])


def _image(path: Path, name: str) -> PreparedImage:
    """The image at ``path`` ready to send (blocking); ``ImageError`` when it is not one."""
    try:
        with path.open("rb") as f:
            data = f.read(MAX_INPUT_BYTES + 1)
    except OSError as exc:
        raise ImageError(f"{name} cannot be read: {exc.strerror or exc}") from None
    return prepare_image(data, name)
