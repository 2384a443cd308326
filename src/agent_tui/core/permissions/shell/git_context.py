"""One git subcommand being read: its scan, its table, and the facts it adds (``Git``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_tui.core.permissions.shell.git_options import Options
from agent_tui.core.permissions.shell.git_scan import GitScan
from agent_tui.core.permissions.shell.model import DYN, FileWrite, GitRead, Word

if TYPE_CHECKING:
    from agent_tui.core.permissions.shell.walking import Walker

HERE = Word(".", ".")


@dataclass
class Git:
    w: Walker
    sub: str
    verb: str
    found: GitScan
    table: Options

    @property
    def shown(self) -> str:
        return f"git {self.sub}" + (f" {self.verb}" if self.verb else "")

    def has(self, *names: str) -> bool:
        return self.found.has(*names)

    def write(self, word: Word, how: str, *, tree: bool = False, git: str = "") -> None:
        if word.text in ("-", "/dev/null", "/dev/stdout", "/dev/stderr"):
            return
        self.w.a.writes.append(FileWrite(word, f"{self.shown} {how}".strip(), tree, git))

    def work_tree(self, how: str, paths: list[Word] | None = None, git: str = "tracked") -> None:
        """It writes the work tree's files (below ``paths``, else everywhere)."""
        for path in paths or [HERE]:
            self.write(path, how, tree=True, git=git)

    def patch_writes(self) -> None:
        self.write(Word(DYN, ""), "(the files its patch names, which are not read here)")

    def reads(self, kind: str, *, objects: tuple[Word, ...] = ()) -> None:
        found = self.found
        paths = tuple(found.paths) if found.dashdash else None
        operands: tuple[Word, ...]
        if self.has("--stdin", "--pathspec-from-file", "--alternate-refs"):
            paths, operands = (), (Word(DYN, ""),)  # named at run time, or elsewhere: all
        elif self.has("--full-diff"):
            # the paths choose the commits, not what they print: each commit's whole diff
            paths, operands = (), tuple(found.operands) + tuple(found.paths)
        else:
            operands = tuple(found.operands)
        follows = self.has("--follow")  # the file under its earlier names too
        self.w.a.git_reads.append(GitRead(self.shown, kind, paths, operands, objects, follows))

    def prints_content(self, default: bool) -> bool:
        names = {option.name for option in self.found.options}
        if names & self.table.content:
            return True
        return default and not names & self.table.no_content

    def paths(self) -> list[Word]:
        """The paths it names: after ``--``, else its operands."""
        return self.found.paths if self.found.dashdash else self.found.operands
