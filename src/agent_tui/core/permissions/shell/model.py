"""What the shell analysis finds in a command: facts, not decisions.

``analyse`` (``walker``) turns a command line into a ``ShellAnalysis``: every simple command the
shell would run (anywhere: in lists, pipelines, compound commands, ``$(…)``, ``<(…)``, the code
given to ``bash -c``, the commands behind wrappers such as ``timeout`` or ``xargs``), every file
it writes, every word that may name a file it reads, every variable it sets, and — the part
that keeps the analysis honest — ``opaque``: each construct it does not fully understand. The
permission pipeline turns these facts into allow / ask / deny; nothing here decides.

A word's text is its value after quote removal. A part whose value is only known when the
command runs (``$x``, ``$(…)``, an arithmetic result) is kept as ``DYN`` in the text, so the
literal pieces around it stay visible (``"$(pwd)/.env"`` is ``DYN + "/.env"``).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

DYN = "\0"
"""Stands for text that is only known at run time (a command string can never hold a NUL)."""


@dataclass(frozen=True)
class Word:
    text: str
    """The value after quote removal; run-time parts are ``DYN``."""
    raw: str
    """The source text of the word."""
    glob: bool = False
    """It has unquoted ``*``, ``?`` or ``[…]``: the shell replaces it with matching file names."""

    @property
    def literal(self) -> bool:
        """Fully known before the command runs."""
        return DYN not in self.text and not self.glob

    @property
    def shown(self) -> str:
        """The text for messages: run-time parts shown as ``…``."""
        return self.text.replace(DYN, "…") if DYN in self.text else self.text


CHOSEN_AT_RUN_TIME = Word(DYN, "<chosen at run time>")
"""The word of an unknown read whose name the program itself picks as it runs (an awk program
that sets ``ARGV``): unlike ``None`` (the arguments ``xargs`` adds, which a listing may
know), nothing can tell what it reads."""


@dataclass(frozen=True)
class Assignment:
    """A variable the command sets: ``NAME=value cmd``, ``export NAME=…``, ``for NAME in``…"""

    name: str
    value: Word | None
    how: str
    """``prefix`` (for one command), ``statement``, ``declare``, ``env``, ``loop``, ``read``…"""

    @property
    def text(self) -> str:
        return f"{self.name}={self.value.text if self.value else ''}"


@dataclass(frozen=True)
class Layer:
    """A wrapper a command runs under (``timeout 5``, ``sudo -u x``), with its own words."""

    words: tuple[Word, ...]
    transparent: bool
    """A transparent wrapper (``timeout``, ``nice``, ``env``) only changes how the command runs:
    rules judge the command inside. Any other (``sudo``, ``uv run``) is judged with its words."""


@dataclass
class SimpleCommand:
    """One command the shell would run: a program and its arguments."""

    words: list[Word]
    assignments: list[Assignment] = field(default_factory=list)
    """``NAME=value`` words before it (and ``env NAME=value``): its environment."""
    layers: list[Layer] = field(default_factory=list)
    """The wrappers it runs under, outermost first."""
    extra_args: bool = False
    """It also gets arguments not known here (``xargs``, ``find -exec … {} +``)."""
    stdin: str | None = None
    """What feeds its standard input: ``pipe``, ``heredoc``, ``herestring``, ``file``."""
    runs_code: bool = False
    """A shell given code (``bash -c '…'``, ``eval``): the commands in the code are judged on
    their own; the shell itself needs no rule unless a non-transparent wrapper runs it."""
    guessed: bool = False
    """Found behind a wrapper whose options are not all known (``uv run``): a best guess."""
    fed_by: list[SimpleCommand] | None = field(default=None, repr=False, compare=False)
    """For a command reading a ``|`` pipe: the commands of the pipeline stage before it
    (``find … | xargs grep``: its extra arguments are what ``find`` prints)."""

    @property
    def name(self) -> Word | None:
        return self.words[0] if self.words else None

    @property
    def argv(self) -> list[str]:
        return [w.text for w in self.words]

    @property
    def changes_directory(self) -> bool:
        """``cd``/``pushd``/``popd`` (no wrapper): it only moves, so it needs no rule (the
        paths after it are resolved against where it goes)."""
        return (
            bool(self.words)
            and not self.layers
            and self.words[0].text
            in (
                "cd",
                "pushd",
                "popd",
            )
        )

    @property
    def outer_words(self) -> list[Word]:
        """The words rules match for allow: from the outermost wrapper that is not transparent
        (``sudo apt update``), else the command itself (``timeout 5 git status`` → ``git
        status``)."""
        for index, layer in enumerate(self.layers):
            if not layer.transparent:
                inner = [w for outer in self.layers[index:] for w in outer.words]
                return [*inner, *self.words]
        return list(self.words)

    def shown(self) -> str:
        """The command as it was typed where a word's source still says what it is, else
        quoted where needed."""
        return " ".join(_as_typed(w) for w in self.outer_words)


def _as_typed(word: Word) -> str:
    if not word.literal:
        return word.raw or word.shown
    if word.raw:
        try:
            if shlex.split(word.raw) == [word.text]:
                return word.raw
        except ValueError:
            pass
    return shlex.quote(word.text)


@dataclass(frozen=True)
class FileWrite:
    """A file the command writes (or deletes): a redirection target or a writer's operand."""

    target: Word
    how: str
    """``> redirection``, ``tee``, ``cp target``, ``rm``, ``git config``…"""
    tree: bool = False
    """Everything below the target too (``rm -r``, ``find … -delete``)."""
    git: str = ""
    """A write git makes of its work tree (``git_judge``): ``tracked`` — the files it tracks
    below the target (``git checkout``, ``git stash``, ``git rm``), judged from its index;
    ``untracked`` — also the others (``git clean``); never inside a ``.git`` directory."""
    through_links: bool = False
    """With ``tree``: names known only at run time are written below the target, through
    whatever links are already there (``tar -x``: a member ``sub/.bashrc`` goes where the link
    ``sub`` leads), so each link below counts as a write of where it leads."""


@dataclass(frozen=True)
class GitRead:
    """A git command that prints the content of files from the repository (``git show``,
    ``git log -p``, ``git grep``, ``git archive``…): with a read rule in force, it may print
    a protected file's content — from a commit even when the file is hidden or gone."""

    command: str
    """How the command is shown (``git log -p``)."""
    kind: str
    """``history`` (any commit: any file ever committed), ``index`` (the tracked files), or
    ``objects`` (objects named by id or ref, which may be any file's content)."""
    pathspecs: tuple[Word, ...] | None = None
    """The paths it is limited to (after ``--``, or operands that are paths); None: all."""
    operands: tuple[Word, ...] = ()
    """Words before ``--`` that are revisions or paths (git decides by what exists)."""
    objects: tuple[Word, ...] = ()
    """For ``objects``: the object names (``HEAD``, ``a1b2c3``, ``main:src/x.py``)."""
    follows: bool = False
    """``--follow``: the file is followed to the names it had before a rename, so the paths
    also reach any committed file that is gone from the index now."""


@dataclass
class ShellAnalysis:
    source: str
    commands: list[SimpleCommand] = field(default_factory=list)
    opaque: list[str] = field(default_factory=list)
    """Each construct the analysis does not fully understand, in words; empty = understood."""
    unseen_code: list[str] = field(default_factory=list)
    """Code handed to a shell that the analysis did not see (``bash -c "$x"``, ``| sh``,
    ``source f``): it could run anything, a denied program included."""
    code_texts: list[str] = field(default_factory=list)
    """Code handed to an interpreter (``python3 -c …``, ``awk '…'``): not shell, so not analysed,
    but searched for the names of denied programs and files."""
    interpreters: list[str] = field(default_factory=list)
    """Who gets that code (``python3 -c``, ``an awk program``): such code could run or read
    anything, so with deny or read rules in force the command asks in every mode."""
    writes: list[FileWrite] = field(default_factory=list)
    reads: list[Word] = field(default_factory=list)
    """Words that may name a file the command reads: arguments, ``<`` sources, sourced files."""
    tree_reads: list[Word] = field(default_factory=list)
    """Directories read recursively (``grep -r``, ``rg``, ``tar c``, ``cp -r``)."""
    tree_filters: dict[int, tuple[str, ...]] = field(default_factory=dict)
    """For a tree read (by its index): the file-name globs it is limited to (``grep
    --include='*.py'``, ``rg -t py``); a protected file matching none of them is not read."""
    loop_values: dict[str, list[Word]] = field(default_factory=dict)
    """``for NAME in WORDS``: the words ``$NAME`` takes (a run-time name with known values)."""
    unknown_reads: list[tuple[str, Word | None]] = field(default_factory=list)
    """Commands that read files whose names are only known at run time (``cat $f``)."""
    assignments: list[Assignment] = field(default_factory=list)
    """Every variable set anywhere in the command."""
    named_variables: list[tuple[Word, str]] = field(default_factory=list)
    """(name, who): variable names a builtin looks up without setting them (``unset NAME``,
    ``test -v NAME``, ``wait -p NAME``, ``{NAME}>file``); a subscript in one is arithmetic,
    which can run code (``varnames``)."""
    dangerous_options: list[tuple[str, str]] = field(default_factory=list)
    """(option word, why): options that make a program run configured code (``git -c
    core.pager=…``), judged like a dangerous environment variable."""
    cd_targets: list[Word] = field(default_factory=list)
    git_reads: list[GitRead] = field(default_factory=list)
    """Git commands that print files' content from the repository (``git_judge``)."""
    git_notes: list[tuple[str, str]] = field(default_factory=list)
    """(option, what it does) for the git options that are not plainly harmless: what
    ``permissions check`` explains (``git log --output=x``, ``writes the file x``)."""
    git_changes_index: bool = False
    """A git command here changes the index (``git add``, ``git apply --cached``…), so what
    the index holds when the command runs is not what it holds now."""
    functions: set[str] = field(default_factory=set)
    """Functions the command defines: calling one runs its body, which is judged itself."""
    texts: list[str] = field(default_factory=list)
    """Every literal string seen (words, heredoc bodies, code), for mention checks."""

    too_large: bool = False
    """The command was too large to analyse whole (parser out of time, node budget spent):
    nothing about it is known, so it asks in every mode."""

    @property
    def understood(self) -> bool:
        return not self.opaque

    def note_code(self, who: str, text: str) -> None:
        self.code_texts.append(text)
        self.texts.append(text)
        if who not in self.interpreters:
            self.interpreters.append(who)

    def note_opaque(self, reason: str) -> None:
        if reason not in self.opaque:
            self.opaque.append(reason)

    def note_unseen(self, reason: str) -> None:
        self.note_opaque(reason)
        if reason not in self.unseen_code:
            self.unseen_code.append(reason)
