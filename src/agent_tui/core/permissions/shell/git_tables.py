"""git's option tables: the global options, and one table per subcommand (``git_options``
says what the columns mean). A subcommand or an option missing here makes the command not
understood: it asks, and no rule allows it. Written from ``man git-<subcommand>`` (git 2.39).
"""

from __future__ import annotations

from agent_tui.core.permissions.shell.git_options import (
    DIFF,
    LOG,
    MERGE_DIFFS,
    NONE,
    PRETTY,
    QUIET,
    REVS,
    Options,
    options,
)
from agent_tui.core.permissions.shell.git_tables_change import (
    ADD,
    AM,
    APPLY,
    BISECT,
    CHECKOUT,
    CHERRY_PICK,
    CLEAN,
    CLONE,
    COMMIT,
    FETCH,
    INIT,
    MERGE,
    MV,
    NOTES,
    PULL,
    PUSH,
    REBASE,
    RESET,
    RESTORE,
    REVERT,
    RM,
    STASH,
    SUBMODULE,
    SWITCH,
    WORKTREE,
)

PAGER = "a pager (core.pager, PAGER or less)"
EDITOR_PATCH = "an editor on the patch"

GLOBAL = options(
    "-v --version -h --help --html-path --man-path --info-path -P --no-pager "
    "--no-replace-objects --literal-pathspecs --glob-pathspecs --noglob-pathspecs "
    "--icase-pathspecs --no-optional-locks --exec-path -p --paginate --bare",
    "-C -c --config-env --git-dir --work-tree --namespace --list-cmds --super-prefix",
    runs={"-p": PAGER, "--paginate": PAGER},
)
"""Options before the subcommand (``git -C dir log``). ``--exec-path`` alone prints a path;
``--exec-path=DIR`` (only attached) makes git run its programs from DIR. ``-c``,
``--config-env`` and ``--exec-path=`` take configuration; ``--git-dir``, ``--work-tree`` and
``--bare`` choose the repository — both judged in ``git``."""

_GREP = options(
    "--cached --no-index --untracked --no-exclude-standard --exclude-standard "
    "--recurse-submodules -a --text --no-textconv -i --ignore-case -I -r --recursive "
    "--no-recursive -w --word-regexp -v --invert-match -h -H --full-name -E --extended-regexp "
    "-G --basic-regexp -P --perl-regexp -F --fixed-strings -n --line-number --column -l "
    "--files-with-matches --name-only -L --files-without-match -z --null -o --only-matching -c "
    "--count --no-color --break --heading -p --show-function -W --function-context --and --or "
    "--not --all-match -q --quiet --textconv --no-column",
    "--max-depth -C --context -A --after-context -B --before-context -m --max-count --threads "
    "-f -e",
    "-O --open-files-in-pager --color",
    reads="-f",
    runs={
        "-O": "a pager (the value, or core.pager) on the files it finds",
        "--open-files-in-pager": "a pager (the value, or core.pager) on the files it finds",
        "--textconv": "the textconv filters the configuration names",
    },
    numbers=True,
)

_STATUS = options(
    "-s --short -b --branch --show-stash --long -v --verbose -z --no-column --ahead-behind "
    "--no-ahead-behind --renames --no-renames --no-renames",
    "",
    "--porcelain -u --untracked-files --ignore-submodules --ignored --column --find-renames",
    content="-v --verbose",
)

_BLAME = options(
    "-b --root --show-stats -l -t --first-parent -p --porcelain --line-porcelain --incremental "
    "--reverse "
    "--progress --no-progress --color-lines --color-by-age -h -c --score-debug -f --show-name "
    "-n --show-number -s -e --show-email -w --minimal",
    "-L -S --encoding --contents --date --ignore-rev --ignore-revs-file",
    "-M -C --abbrev",
    reads="-S --contents --ignore-revs-file",
)

_BRANCH = options(
    "-d --delete -D --create-reflog -f --force -m --move -M -c --copy -C --no-color -i "
    "--ignore-case --no-column -r --remotes -a --all -l --list --show-current -v -vv --verbose "
    "-q --quiet --no-abbrev --no-track --recurse-submodules --set-upstream --unset-upstream "
    "--edit-description --omit-empty",
    "-u --set-upstream-to --sort --points-at --format --contains --no-contains --merged "
    "--no-merged",
    "--color --column --abbrev -t --track",
)

_TAG = options(
    "-a --annotate -s --sign --no-sign -f --force -d --delete -v --verify -l --list -i "
    "--ignore-case --no-column -e --edit --create-reflog --no-color --omit-empty",
    "-u --local-user -m --message -F --file --cleanup --sort --points-at --format --contains "
    "--no-contains --merged --no-merged",
    "-n --color --column",
    reads="-F --file",
)

_CONFIG = options(
    "--replace-all --add --get --get-all --get-regexp --get-urlmatch --global --system --local "
    "--worktree --remove-section --rename-section --unset --unset-all -l --list --fixed-value "
    "--bool --int --bool-or-int --path --expiry-date --no-type -z --null --name-only "
    "--show-origin --show-scope --get-colorbool --get-color -e --edit --includes --no-includes",
    "-f --file --blob --type --default --comment",
    reads="-f --file",
)

_REV_PARSE = options(
    "--parseopt --sq-quote --keep-dashdash --stop-at-non-option --stuck-long --revs-only "
    "--no-revs --flags --no-flags --verify -q --quiet --sq --not --symbolic "
    "--symbolic-full-name --all --local-env-vars --git-dir --git-common-dir --show-toplevel "
    "--show-superproject-working-tree --shared-index-path --absolute-git-dir "
    "--is-inside-git-dir --is-inside-work-tree --is-bare-repository --is-shallow-repository "
    "--show-cdup --show-prefix --show-ref-format",
    "--default --prefix --glob --exclude --exclude-hidden --disambiguate --path-format "
    "--resolve-git-dir --git-path --since --after --until --before",
    "--short --abbrev-ref --branches --tags --remotes --show-object-format",
)

_LS_FILES = options(
    "-c --cached -d --deleted -m --modified -o --others -i --ignored -s --stage --directory "
    "--no-empty-directory -u --unmerged -k --killed -z --deduplicate --exclude-standard "
    "--error-unmatch -t -v -f --full-name --recurse-submodules --debug --eol --sparse",
    "-x --exclude -X --exclude-from --exclude-per-directory --with-tree --format",
    "--abbrev",
    reads="-X --exclude-from",
)

_LS_TREE = options(
    "-d -r -t -l --long -z --name-only --name-status --object-only --full-name --full-tree",
    "--format",
    "--abbrev",
)

_CAT_FILE = options(
    "-t -s -e -p --mailmap --no-mailmap --use-mailmap --no-use-mailmap --filters "
    "--batch-all-objects --buffer --unordered --allow-unknown-type --follow-symlinks -z -Z "
    "--textconv",
    "--path",
    "--batch --batch-check --batch-command",
    runs={
        "--textconv": "the textconv filters the configuration names",
        "--filters": "the clean/smudge filters the configuration names",
    },
)

_DESCRIBE = options(
    "--all --tags --contains --exact-match --debug --long --always --first-parent",
    "--candidates --match --exclude",
    "--dirty --broken --abbrev",
)

_SHORTLOG = REVS | options(
    "-n --numbered -s --summary -e --email -c --committer",
    "--date --group",
    "--format -w",
)


_STASH_SHOW = DIFF | options("-u --include-untracked --only-untracked")


_ARCHIVE = options(
    "-l --list -v --verbose --worktree-attributes",
    "--format --prefix -o --output --add-file --add-virtual-file --remote --exec",
    writes="-o --output",
    reads="--add-file",
    code="--exec",
    numbers=True,
)


_FORMAT_PATCH = (
    DIFF
    | PRETTY
    | REVS
    | options(
        "--no-stat -n --numbered -N --no-numbered --numbered-files -k --keep-subject -s "
        "--signoff --stdout --no-attach --no-thread --ignore-if-in-upstream --always --rfc "
        "--force-in-body-from --no-force-in-body-from --cover-letter --no-cover-letter "
        "--encode-email-headers --no-encode-email-headers --no-signature --no-binary "
        "--zero-commit --no-base --root --progress -q --quiet",
        "-o --output-directory --start-number --in-reply-to --cover-from-description "
        "--subject-prefix --filename-max-length -v --reroll-count --to --cc --add-header "
        "--interdiff --range-diff --creation-factor --signature --signature-file --suffix "
        "--base",
        "--attach --inline --thread --from",
        writes_dir="-o --output-directory",
        reads="--signature-file",
    )
)

_FOR_EACH_REF = options(
    "--shell -s --perl -p --python --tcl --ignore-case --omit-empty --stdin",
    "--count --sort --format --points-at --merged --no-merged --contains --no-contains",
    "--color",
)

_SHOW_REF = options(
    "--head --heads --tags --branches -d --dereference --verify -q --quiet --exists",
    "",
    "-s --hash --abbrev --exclude-existing",
)

_SYMBOLIC_REF = options("-d --delete -q --quiet --short --recurse --no-recurse", "-m")

_NAME_REV = options(
    "--tags --all --annotate-stdin --stdin --name-only --no-undefined --always",
    "--refs --exclude",
)

_MERGE_BASE = options("--octopus --independent --is-ancestor --fork-point -a --all")

_COUNT_OBJECTS = options("-v --verbose -H --human-readable")

_FSCK = options(
    "--unreachable --dangling --no-dangling --root --tags --cache --no-reflogs --full "
    "--no-full --connectivity-only --strict --verbose --lost-found --name-objects "
    "--no-name-objects --progress --no-progress"
)

_GC = options(
    "--aggressive --auto --cruft --no-cruft --no-prune --quiet --force --keep-largest-pack",
    "",
    "--prune",
)

_HELP = options(
    "-a --all --no-external-commands --no-aliases --verbose -c --config -g --guides "
    "--user-interfaces --developer-interfaces -i --info -m --man -w --web",
    runs={"-w": "a web browser (web.browser)", "--web": "a web browser (web.browser)"},
)

_REFLOG = LOG
REFLOG_EXPIRE = options(
    "--all --single-worktree --updateref --rewrite --stale-fix -n --dry-run --verbose",
    "--expire --expire-unreachable",
)
"""``git reflog expire`` / ``delete`` / ``exists`` (``git reflog show`` takes log's)."""

_REMOTE = options(
    "-v --verbose -f --tags --no-tags --push --all --add --delete -a --auto -d -p --prune -n "
    "--dry-run --progress --no-progress",
    "-t -m",
    "--mirror",
)

_RANGE_DIFF = DIFF | options("--no-dual-color --left-only --right-only", "--creation-factor")

_CHERRY = options("-v", "", "--abbrev")

_CHECK_IGNORE = options("-q --quiet -v --verbose -n --non-matching --no-index -z --stdin")

_CHECK_ATTR = options("-a --all --cached -z --stdin")

_LS_REMOTE = options(
    "-h --heads -t --tags --refs -q --quiet --exit-code --get-url --symref -b --branches",
    "--upload-pack --sort -o --server-option",
    code="--upload-pack",
)

_VAR = options("-l")

_BUNDLE = options(
    "-q --quiet --progress --all-progress --all-progress-implied --all --not",
    "--version",
    "--branches --tags --remotes",
)
"""``git bundle create FILE REVS``: its own options, and the common revision options."""

_DIFF_TREE = (
    DIFF
    | PRETTY
    | MERGE_DIFFS
    | options("-r -t --root --stdin --no-commit-id --always -v --merge-base", "")
)

SUBCOMMANDS: dict[str, Options] = {
    "status": _STATUS,
    "log": LOG,
    "whatchanged": LOG,
    "show": LOG,
    "diff": DIFF | MERGE_DIFFS | options("--cached --staged --merge-base --no-index -0 -1 -2 -3"),
    "diff-tree": _DIFF_TREE,
    "diff-index": DIFF | options("--cached --merge-base -m"),
    "diff-files": DIFF | options("-q -0 -1 -2 -3 --base --ours --theirs -c --cc"),
    "grep": _GREP,
    "blame": _BLAME,
    "annotate": _BLAME,
    "branch": _BRANCH,
    "tag": _TAG,
    "remote": _REMOTE,
    "config": _CONFIG,
    "rev-parse": _REV_PARSE,
    "rev-list": REVS | PRETTY | options("--objects --count --quiet --header --timestamp"),
    "ls-files": _LS_FILES,
    "ls-tree": _LS_TREE,
    "cat-file": _CAT_FILE,
    "describe": _DESCRIBE,
    "shortlog": _SHORTLOG,
    "reflog": _REFLOG,
    "stash": STASH,
    "add": ADD,
    "commit": COMMIT,
    "checkout": CHECKOUT,
    "switch": SWITCH,
    "restore": RESTORE,
    "reset": RESET,
    "rm": RM,
    "mv": MV,
    "apply": APPLY,
    "am": AM,
    "archive": _ARCHIVE,
    "clone": CLONE,
    "fetch": FETCH,
    "pull": PULL,
    "push": PUSH,
    "merge": MERGE,
    "rebase": REBASE,
    "cherry-pick": CHERRY_PICK,
    "revert": REVERT,
    "init": INIT,
    "worktree": WORKTREE,
    "submodule": SUBMODULE,
    "clean": CLEAN,
    "bisect": BISECT,
    "notes": NOTES,
    "format-patch": _FORMAT_PATCH,
    "for-each-ref": _FOR_EACH_REF,
    "show-ref": _SHOW_REF,
    "symbolic-ref": _SYMBOLIC_REF,
    "name-rev": _NAME_REV,
    "merge-base": _MERGE_BASE,
    "count-objects": _COUNT_OBJECTS,
    "fsck": _FSCK,
    "gc": _GC,
    "help": _HELP,
    "version": options("--build-options"),
    "range-diff": _RANGE_DIFF,
    "cherry": _CHERRY,
    "check-ignore": _CHECK_IGNORE,
    "check-attr": _CHECK_ATTR,
    "ls-remote": _LS_REMOTE,
    "var": _VAR,
    "bundle": _BUNDLE,
}
"""Every subcommand the analysis knows, with its options (``QUIET``'s too)."""

STASH_SHOW = _STASH_SHOW
REFLOG_OTHERS = REFLOG_EXPIRE | QUIET
STASH_LIST = LOG

NOT_IN_GIT_2_39: dict[str, str] = {
    "add": "--no-progress --progress --quiet -q",
    "am": "--no-progress --progress --verbose -v",
    "apply": "--no-progress --progress",
    "archive": "--no-progress --progress --quiet -q",
    "branch": "--no-progress --omit-empty --progress",
    "cat-file": "--no-progress --progress --quiet --verbose -q -v",
    "check-attr": "--no-progress --progress --quiet --source --verbose -q -v",
    "check-ignore": "--no-progress --progress",
    "checkout": "--verbose -v",
    "cherry": "--no-progress --progress --quiet -q",
    "clean": "--no-progress --progress --verbose -v",
    "commit": "--no-progress --progress",
    "config": "--comment --no-progress --progress --quiet --verbose -q -v",
    "count-objects": "--no-progress --progress --quiet -q",
    "describe": "--no-progress --progress --quiet --verbose -q -v",
    "diff": "--dd --default-prefix --no-progress --no-stat --progress --verbose",
    "for-each-ref": (
        "--exclude --no-progress --omit-empty --progress --quiet --stdin --verbose -q -v"
    ),
    "format-patch": (
        "--clear-decorations --decorate --default-prefix --description-file --mailmap "
        "--no-decorate --no-mailmap --no-use-mailmap --source --use-mailmap --verbose"
    ),
    "fsck": "--quiet -q",
    "gc": "--no-progress --progress --verbose -v",
    "grep": "--no-progress --progress --verbose",
    "init": "--no-progress --progress --verbose -v",
    "log": "--dd --default-prefix --no-progress --no-stat --progress --verbose",
    "ls-files": "--no-progress --progress --quiet --verbose -q",
    "ls-remote": "--branches --no-progress --progress --verbose -b -v",
    "ls-tree": "--no-progress --progress --quiet --verbose -q -v",
    "merge-base": "--no-progress --progress --quiet --verbose -q -v",
    "mv": "--no-progress --progress --quiet -q",
    "name-rev": "--no-progress --progress --quiet --verbose -q -v",
    "pull": (
        "--atomic --auto-gc --auto-maintenance --filter --multiple --negotiate-only "
        "--no-auto-gc --no-auto-maintenance --no-write-commit-graph --no-write-fetch-head "
        "--prefetch --prune-tags --recurse-submodules-default --refetch --stdin "
        "--submodule-prefix --update-head-ok --write-commit-graph --write-fetch-head -e "
        "-u"
    ),
    "push": "--branches",
    "range-diff": (
        "--abbrev-commit --date --default-prefix --encoding --expand-tabs "
        "--no-abbrev-commit --no-expand-tabs --no-progress --no-standard-notes --no-stat "
        "--oneline --pretty --progress --relative-date --show-notes --show-signature "
        "--standard-notes --verbose -q -v"
    ),
    "rebase": "--keep-redundant-commits --no-progress --progress",
    "reset": "--no-progress --progress --verbose -v",
    "restore": "--verbose -v",
    "rm": "--no-progress --progress --verbose -v",
    "show": "--dd --default-prefix --no-progress --no-stat --progress --verbose",
    "show-ref": "--branches --exists --no-progress --progress --verbose -v",
    "status": "--no-progress --progress --quiet -q",
    "switch": "--verbose -v",
    "symbolic-ref": "--no-progress --progress --verbose -v",
    "tag": "--no-progress --omit-empty --progress --quiet --verbose -q",
    "version": "--no-progress --progress --quiet --verbose -q -v",
    "whatchanged": "--dd --default-prefix --no-progress --no-stat --progress --verbose",
}
"""Options the shared groups bring that git 2.39's subcommand refuses (checked by the tests
against the real git: ``git log --progress`` is an error). Left out, so that what a table
allows is what git accepts."""

for _name, _table in list(SUBCOMMANDS.items()):
    SUBCOMMANDS[_name] = (QUIET | _table).without(NOT_IN_GIT_2_39.get(_name, ""))
del _name, _table

__all__ = ["GLOBAL", "NONE", "SUBCOMMANDS"]
