"""git's option tables for the subcommands that change the repository or the work tree
(``git_tables`` assembles them with the others; ``git_options`` says what the columns mean)."""

from __future__ import annotations

from agent_tui.core.permissions.shell.git_options import (
    MERGE_STRATEGY,
    PATHSPEC_FILE,
    SIGN,
    options,
)

STASH = (
    options(
        "-a --all -u --include-untracked --no-include-untracked --only-untracked --index -k "
        "--keep-index --no-keep-index -p --patch -S --staged -q --quiet",
        "-m --message",
    )
    | PATHSPEC_FILE
)


ADD = (
    options(
        "-n --dry-run -v --verbose -f --force --sparse -i --interactive -p --patch -e --edit -u "
        "--update -A --all --no-ignore-removal --ignore-removal -N --intent-to-add --refresh "
        "--ignore-errors --ignore-missing --no-warn-embedded-repo --renormalize",
        "--chmod",
    )
    | PATHSPEC_FILE
)


COMMIT = (
    options(
        "-a --all -p --patch --reset-author --short --branch --porcelain --long -z --null -s "
        "--signoff -n --no-verify --verify --allow-empty --allow-empty-message -e --edit "
        "--no-edit --amend --no-post-rewrite -i --include -o --only -v --verbose -q --quiet "
        "--dry-run --status --no-status",
        "-C --reuse-message -c --reedit-message --fixup --squash -F --file --author --date -m "
        "--message -t --template --trailer --cleanup",
        "-u --untracked-files",
        reads="-F --file -t --template",
    )
    | SIGN
    | PATHSPEC_FILE
)


CHECKOUT = (
    options(
        "-q --quiet --progress --no-progress -f --force --ours --theirs --no-track --guess "
        "--no-guess -l -d --detach --ignore-skip-worktree-bits -m --merge -p --patch "
        "--ignore-other-worktrees --overwrite-ignore --no-overwrite-ignore --recurse-submodules "
        "--no-recurse-submodules --overlay --no-overlay",
        "-b -B --orphan --conflict",
        "-t --track",
    )
    | PATHSPEC_FILE
)


SWITCH = options(
    "-d --detach --guess --no-guess -f --force --discard-changes -m --merge -q --quiet "
    "--progress --no-progress --no-track --ignore-other-worktrees --recurse-submodules "
    "--no-recurse-submodules",
    "-c --create -C --force-create --orphan --conflict",
    "-t --track",
)


RESTORE = (
    options(
        "-p --patch -W --worktree -S --staged -q --quiet --progress --no-progress --ours "
        "--theirs -m --merge --ignore-unmerged --ignore-skip-worktree-bits --recurse-submodules "
        "--no-recurse-submodules --overlay --no-overlay",
        "-s --source --conflict",
    )
    | PATHSPEC_FILE
)


RESET = (
    options(
        "-q --quiet --refresh --no-refresh --soft --mixed --hard --merge --keep -N -p --patch "
        "--recurse-submodules --no-recurse-submodules",
    )
    | PATHSPEC_FILE
)


RM = (
    options("-f --force -n --dry-run -r --cached --ignore-unmatch --sparse -q --quiet")
    | PATHSPEC_FILE
)


MV = options("-f --force -k -n --dry-run -v --verbose --sparse")


APPLY = options(
    "--stat --numstat --summary --check --index --cached --intent-to-add -3 --3way -R "
    "--reverse --reject -z --unidiff-zero --apply --no-add --allow-binary-replacement --binary "
    "--ignore-space-change --ignore-whitespace --inaccurate-eof -v --verbose -q --quiet "
    "--recount --unsafe-paths --allow-empty --allow-overlap",
    "--build-fake-ancestor --exclude --include --whitespace --directory -p -C",
    "",
    writes="--build-fake-ancestor",
)


AM = (
    options(
        "-s --signoff -k --keep --keep-non-patch --keep-cr --no-keep-cr -c --scissors "
        "--no-scissors -m --message-id --no-message-id -q --quiet -u --utf8 --no-utf8 -3 "
        "--3way --no-3way --rerere-autoupdate --no-rerere-autoupdate --ignore-space-change "
        "--ignore-whitespace --reject -i --interactive --committer-date-is-author-date "
        "--ignore-date --skip --continue -r --resolved --abort --quit --allow-empty",
        "--quoted-cr --empty --whitespace --directory --exclude --include --patch-format "
        "--resolvemsg -C -p",
        "--show-current-patch",
    )
    | SIGN
)


CLONE = options(
    "-l --local --no-hardlinks -s --shared --dissociate -q --quiet -v --verbose --progress -n "
    "--no-checkout --reject-shallow --no-reject-shallow --bare --sparse "
    "--also-filter-submodules --mirror --single-branch --no-single-branch --no-tags "
    "--shallow-submodules --no-shallow-submodules --remote-submodules --no-remote-submodules",
    "--reference --reference-if-able --server-option --filter -o --origin -b --branch -u "
    "--upload-pack --template -c --config --depth --shallow-since --shallow-exclude "
    "--separate-git-dir -j --jobs --bundle-uri",
    "--recurse-submodules",
    writes_dir="--separate-git-dir",
    code="-u --upload-pack",
    runs={
        "--template": "hooks from a template directory, copied into the new repository",
        "-c": "configuration written into the new repository (core.hooksPath, core.fsmonitor "
        "and the like run programs there later)",
        "--config": "configuration written into the new repository (core.hooksPath, "
        "core.fsmonitor and the like run programs there later)",
    },
)


FETCH_ONLY = options(
    "--all -a --append --atomic --unshallow --update-shallow --negotiate-only --dry-run "
    "--write-fetch-head --no-write-fetch-head -f --force -k --keep --multiple --auto-maintenance "
    "--no-auto-maintenance --auto-gc --no-auto-gc --write-commit-graph --no-write-commit-graph "
    "--prefetch -p --prune -P --prune-tags --no-tags --refetch -t --tags "
    "--no-recurse-submodules --set-upstream -u --update-head-ok -q --quiet -v --verbose "
    "--progress --show-forced-updates --no-show-forced-updates -4 --ipv4 -6 --ipv6 --stdin",
    "--depth --deepen --shallow-since --shallow-exclude --negotiation-tip --refmap -j --jobs "
    "--upload-pack -o --server-option",
    "--recurse-submodules",
    code="--upload-pack",
)
"""Options ``git pull`` passes to ``git fetch``."""


FETCH = FETCH_ONLY | options("", "--submodule-prefix --filter --recurse-submodules-default")


MERGE = (
    options(
        "--commit --no-commit -e --edit --no-edit --ff --no-ff --ff-only --no-log --signoff "
        "--no-signoff --stat -n --no-stat --squash --no-squash --verify --no-verify "
        "--verify-signatures --no-verify-signatures --summary --no-summary -q --quiet -v "
        "--verbose --progress --no-progress --autostash --no-autostash "
        "--allow-unrelated-histories --rerere-autoupdate --no-rerere-autoupdate "
        "--overwrite-ignore --no-overwrite-ignore --abort --quit --continue",
        "--cleanup -s --strategy -X --strategy-option -m --into-name -F --file",
        "--log",
        reads="-F --file",
    )
    | SIGN
)


PULL = (
    FETCH_ONLY
    | options(
        "--commit --no-commit -e --edit --no-edit --ff --no-ff --ff-only --no-log --signoff "
        "--no-signoff --stat -n --no-stat --squash --no-squash --verify --no-verify "
        "--verify-signatures --no-verify-signatures --summary --no-summary --autostash "
        "--no-autostash --allow-unrelated-histories --no-rebase",
        "--cleanup -s --strategy -X --strategy-option",
        "--log -r --rebase -j --jobs",
    )
    | SIGN
)


PUSH = options(
    "--all --branches --prune --mirror -n --dry-run --porcelain -d --delete --tags "
    "--follow-tags --no-signed --atomic --no-atomic -f --force --force-if-includes "
    "--no-force-if-includes -u --set-upstream --thin --no-thin -q --quiet -v --verbose "
    "--progress --no-recurse-submodules --verify --no-verify -4 --ipv4 -6 --ipv6 "
    "--no-force-with-lease",
    "-o --push-option --receive-pack --exec --repo --recurse-submodules",
    "--signed --force-with-lease",
    code="--receive-pack --exec",
)


REBASE = (
    MERGE_STRATEGY
    | options(
        "--keep-base --continue --abort --quit --apply --no-keep-empty --keep-empty "
        "--reapply-cherry-picks --no-reapply-cherry-picks --skip --edit-todo "
        "--show-current-patch -m --merge -q --quiet -v --verbose --stat -n --no-stat "
        "--no-verify --verify --no-ff --force-rebase -f --fork-point --no-fork-point "
        "--ignore-whitespace --committer-date-is-author-date --ignore-date "
        "--reset-author-date -i --interactive --root --autosquash --no-autosquash "
        "--autostash --no-autostash --reschedule-failed-exec --no-reschedule-failed-exec "
        "--update-refs --no-update-refs --no-rebase-merges",
        "--onto --empty -s -x --exec --whitespace -C",
        "-r --rebase-merges",
        code="-x --exec",
    )
    | SIGN
)


CHERRY_PICK = (
    MERGE_STRATEGY
    | options(
        "-e --edit --no-edit -x -r -n --no-commit -s --continue --skip --quit --abort",
        "-m --mainline --cleanup",
    )
    | SIGN
)


REVERT = (
    MERGE_STRATEGY
    | options(
        "-e --edit --no-edit -n --no-commit -s --reference --continue --skip --quit --abort",
        "-m --mainline --cleanup",
    )
    | SIGN
)


INIT = options(
    "-q --quiet --bare",
    "--object-format --template --separate-git-dir -b --initial-branch",
    "--shared",
    writes_dir="--separate-git-dir",
    runs={"--template": "hooks from a template directory, copied into the new repository"},
)


WORKTREE = options(
    "-f --force -d --detach --checkout --no-checkout --guess-remote --no-guess-remote --track "
    "--no-track --lock -n --dry-run --porcelain -z -q --quiet -v --verbose --orphan",
    "-b -B --expire --reason",
)


SUBMODULE = options(
    "-q --quiet --progress --all -f --force --cached --files --remote -N --no-fetch "
    "--checkout --merge --rebase --init --recursive --dissociate --recommend-shallow "
    "--no-recommend-shallow --single-branch --no-single-branch --no-progress",
    "-b --branch -n --summary-limit --name --reference --depth -j --jobs",
)


CLEAN = options("-d -f --force -i --interactive -n --dry-run -q --quiet -x -X", "-e --exclude")


BISECT = options("--no-checkout --first-parent", "--term-old --term-new --term-bad --term-good")


NOTES = options(
    "-f --force --allow-empty --ignore-missing --stdin -n --dry-run --commit --abort -q "
    "--quiet -v --verbose --no-stripspace --stripspace",
    "-m --message -F --file -C --reuse-message -c --reedit-message --ref -s --strategy",
    reads="-F --file",
)
