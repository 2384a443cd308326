"""The shape of a git option table, and the option groups several subcommands share.

A table (``Options``) says, for every option one git subcommand accepts, how it takes a value
and what it does; ``git_tables`` holds one per subcommand. Written from git's own documentation
(``git help log``, ``man git-log``; git 2.39) and checked against the real git by the tests
(an option the table says takes the next word must consume it, and one it says does not must
leave it alone).

How an option takes its value:

- ``flags``: none;
- ``valued``: the next word, or attached (``--grep=x``, ``--grep x``, ``-n5``, ``-n 5``);
- ``optional``: only an attached one (``--stat=80``, ``-M50%``); ``--stat 80`` leaves ``80``
  an operand.

What it does, beyond printing (an option in none of these is harmless):

- ``writes`` / ``writes_dir``: its value is a file it writes / a directory it writes into;
- ``reads``: its value names a file it reads (checked against the read rules);
- ``runs``: it makes git run a program (a pager, an external diff, a filter…): the command
  asks, whatever the rules, with what the program is;
- ``code``: its value is shell code git runs (``rebase --exec``): analysed like the command
  (so deny rules see the programs in it) and the command asks;
- ``content`` / ``no_content``: it makes git print the content of files (a patch, matching
  lines) / an output format without it (``--stat``); for the read rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


@dataclass(frozen=True)
class Options:
    flags: frozenset[str] = frozenset()
    valued: frozenset[str] = frozenset()
    optional: frozenset[str] = frozenset()
    writes: frozenset[str] = frozenset()
    writes_dir: frozenset[str] = frozenset()
    reads: frozenset[str] = frozenset()
    runs: Mapping[str, str] = field(default_factory=dict)
    code: frozenset[str] = frozenset()
    content: frozenset[str] = frozenset()
    no_content: frozenset[str] = frozenset()
    numbers: bool = False
    """``-<n>`` is an option (``git log -5``, ``git grep -3``)."""

    def __or__(self, other: Options) -> Options:
        """Both tables; where both list an option, ``other`` decides how it takes its value
        (``format-patch -n`` is a flag, the revision walk's ``-n`` takes a number)."""
        merged: dict[str, object] = {}
        theirs_known = other.known
        for f in fields(self):
            mine, theirs = getattr(self, f.name), getattr(other, f.name)
            if f.name == "runs":
                merged[f.name] = {**mine, **theirs}
            elif f.name == "numbers":
                merged[f.name] = mine or theirs
            elif f.name in ("flags", "valued", "optional"):
                merged[f.name] = (mine - theirs_known) | theirs
            else:
                merged[f.name] = mine | theirs
        return Options(**merged)  # type: ignore[arg-type]

    def without(self, names: str) -> Options:
        """The table without the options ``names`` lists (space-separated)."""
        gone = frozenset(names.split())
        return Options(
            self.flags - gone,
            self.valued - gone,
            self.optional - gone,
            self.writes,
            self.writes_dir,
            self.reads,
            self.runs,
            self.code,
            self.content,
            self.no_content,
            self.numbers,
        )

    @property
    def known(self) -> frozenset[str]:
        return self.flags | self.valued | self.optional

    def arity(self, name: str) -> str | None:
        """``flag``, ``valued`` or ``optional``; None for an option the table does not know.
        ``--no-X`` is known when ``--X`` is harmless (git's parse-options negates it)."""
        if name in self.valued:
            return "valued"
        if name in self.optional:
            return "optional"
        if name in self.flags:
            return "flag"
        if name.startswith("--no-"):
            positive = "--" + name[5:]
            if positive in self.known and self.harmless(positive):
                return "flag"
        return None

    def harmless(self, name: str) -> bool:
        return not (
            name in self.writes
            or name in self.writes_dir
            or name in self.runs
            or name in self.code
            or name in self.reads
        )


def options(
    flags: str = "",
    valued: str = "",
    optional: str = "",
    *,
    writes: str = "",
    writes_dir: str = "",
    reads: str = "",
    runs: Mapping[str, str] | None = None,
    code: str = "",
    content: str = "",
    no_content: str = "",
    numbers: bool = False,
) -> Options:
    return Options(
        _set(flags),
        _set(valued),
        _set(optional),
        _set(writes),
        _set(writes_dir),
        _set(reads),
        dict(runs or {}),
        _set(code),
        _set(content),
        _set(no_content),
        numbers,
    )


NONE = Options()

QUIET = options("-q --quiet -v --verbose -h --help --progress --no-progress")

EXTERNAL_DIFF = "an external diff program (diff.external or GIT_EXTERNAL_DIFF)"
TEXTCONV = "the textconv filters the configuration names for files' diff attributes"

DIFF = options(
    "-p -u --patch -s --no-patch --raw --patch-with-raw --indent-heuristic "
    "--no-indent-heuristic --minimal --patience --histogram --compact-summary --numstat "
    "--shortstat --cumulative --summary --patch-with-stat -z --name-only --name-status "
    "--no-color --no-color-moved --no-color-moved-ws --no-renames --rename-empty "
    "--no-rename-empty --check --full-index --binary --find-copies-harder -D "
    "--irreversible-delete --pickaxe-all --pickaxe-regex -R --no-relative -a --text "
    "--ignore-cr-at-eol --ignore-space-at-eol -b --ignore-space-change -w --ignore-all-space "
    "--ignore-blank-lines -W --function-context --exit-code --quiet --no-ext-diff "
    "--no-textconv --no-prefix --default-prefix --ita-invisible-in-index "
    "--ita-visible-in-index --no-stat --ext-diff --textconv",
    "--output --output-indicator-new --output-indicator-old --output-indicator-context "
    "--anchored --diff-algorithm --color-moved-ws --word-diff-regex --ws-error-highlight "
    "--diff-filter -l -S -G --find-object -O --skip-to --rotate-to -I "
    "--ignore-matching-lines --inter-hunk-context --src-prefix --dst-prefix --line-prefix "
    "--stat-width --stat-name-width --stat-graph-width --stat-count",
    "-U --unified --stat --dirstat -X --dirstat-by-file --submodule --color --color-moved "
    "--word-diff --color-words --abbrev -B --break-rewrites -M --find-renames -C "
    "--find-copies --relative --ignore-submodules",
    writes="--output",
    reads="-O",
    runs={"--ext-diff": EXTERNAL_DIFF, "--textconv": TEXTCONV},
    content="-p -u --patch --patch-with-raw --patch-with-stat -U --unified --word-diff "
    "--word-diff-regex --color-words --binary --check -W --function-context -S -G",
    no_content="-s --no-patch --raw --stat --numstat --shortstat --dirstat -X "
    "--dirstat-by-file --cumulative --summary --name-only --name-status --compact-summary "
    "--quiet",
)
"""git diff's options, shared by log, show, format-patch, stash show, diff-tree…"""

MERGE_DIFFS = options(
    "-m -c --cc --dd --remerge-diff --no-diff-merges --combined-all-paths -t -r --root",
    "--diff-merges",
    content="-c --cc --dd --remerge-diff",
)

PRETTY = options(
    "--abbrev-commit --no-abbrev-commit --oneline --no-expand-tabs --no-notes "
    "--standard-notes --no-standard-notes --show-signature --relative-date",
    "--encoding --date",
    "--pretty --format --expand-tabs --notes --show-notes",
)

REVS = options(
    "--follow --no-decorate --clear-decorations --source --mailmap --no-mailmap --use-mailmap "
    "--no-use-mailmap --full-diff --log-size --all-match --invert-grep -i "
    "--regexp-ignore-case --basic-regexp -E --extended-regexp -F --fixed-strings -P "
    "--perl-regexp --remove-empty --merges --no-merges --no-min-parents --no-max-parents "
    "--first-parent --exclude-first-parent-only --not --all --reflog --alternate-refs "
    "--single-worktree --ignore-missing --bisect --cherry-mark --cherry-pick --left-only "
    "--right-only --cherry -g --walk-reflogs --merge --boundary --simplify-by-decoration "
    "--show-pulls --full-history --dense --sparse --simplify-merges --date-order "
    "--author-date-order --topo-order --reverse --do-walk --parents --children --left-right "
    "--graph --in-commit-order --stdin",
    "-n --max-count --skip --since --after --since-as-filter --until --before --author "
    "--committer --grep-reflog --grep --glob --exclude --exclude-hidden --max-age --min-age -L",
    "--branches --tags --remotes --no-walk --decorate --show-linear-break --ancestry-path "
    "--min-parents --max-parents",
    content="-L",
    numbers=True,
)
"""The revision walk's options (git rev-list, log, shortlog…)."""

LOG = REVS | PRETTY | DIFF | MERGE_DIFFS | options("", "--decorate-refs --decorate-refs-exclude")

PATHSPEC_FILE = options("--pathspec-file-nul", "--pathspec-from-file", reads="--pathspec-from-file")

SIGN = options("--no-gpg-sign", "", "-S --gpg-sign")
"""Signing with the user's key (gpg.program from the configuration: the user's own)."""

MERGE_STRATEGY = options(
    "--rerere-autoupdate --no-rerere-autoupdate --allow-empty --allow-empty-message "
    "--keep-redundant-commits --ff --signoff",
    "--strategy -X --strategy-option",
)
"""Options of the commands that merge (merge, rebase, cherry-pick, revert, pull)."""

BUILTIN_STRATEGIES = _set("ort recursive resolve octopus ours subtree")
"""``-s``/``--strategy`` values git implements itself; any other runs ``git-merge-NAME`` from
the PATH."""
