"""``npm`` (10/11), ``pnpm`` (8/9), ``yarn`` (1 and berry): the options that are their own.

A rule such as ``run_shell(npm test:*)`` allows the project's ``test`` script (the project's
code). The package manager's options are configuration, and some of it points elsewhere:
``--prefix``/``-C`` (npm), ``--dir``/``-C`` (pnpm), ``--cwd`` (yarn) run the scripts of another
package; ``--script-shell``, ``--shell``, ``--git``, ``--node-options``, ``--editor``,
``--browser`` name programs to run; ``--userconfig``/``--globalconfig``/``--use-yarnrc`` load
configuration that can set them; ``-g``/``--global`` installs outside the workspace. Options
npm does not know are still configuration to it (``npm_config_*``), so an option missing from
the table asks. Words after ``--`` are the script's arguments, its own business.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.core.permissions.shell.model import SimpleCommand
from agent_tui.core.permissions.shell.option_table import (
    Arg,
    Kind,
    Table,
    check,
    options,
    row,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from agent_tui.core.permissions.shell.walking import Walker

_OTHER_PACKAGE = "runs the scripts of the package in another directory"
_PROGRAM = "names a program for it to run"
_CONFIG = "loads configuration that can name programs to run"
_GLOBAL = "installs outside the workspace (the global prefix)"

NPM = Table(
    "npm",
    options(
        "-s --silent -q --quiet -d -dd -ddd --verbose --json -p --parseable -l --long -y --yes "
        "--no-yes --if-present --ignore-scripts --no-ignore-scripts --foreground-scripts "
        "-ws --workspaces --no-workspaces --include-workspace-root --dry-run -f --force "
        "--no-audit --no-fund --audit --fund --progress --no-progress -S --save -D --save-dev "
        "-O --save-optional --save-peer -P --save-prod -E --save-exact -B --save-bundle "
        "--no-save --legacy-peer-deps --strict-peer-deps --prefer-offline --prefer-online "
        "--offline --production --install-links --package-lock-only --no-package-lock "
        "--package-lock -a --all --engine-strict --unicode --no-unicode --timing --color "
        "--no-color --no-optional --no-shrinkwrap -h --help --usage -v --version "
        "--global-style --no-bin-links --no-update-notifier --update-notifier "
        "--omit-lockfile-registry-resolved",
        "--loglevel -w --workspace --omit --include --tag --access --otp --before --depth "
        "--registry --fetch-retries --fetch-timeout --fetch-retry-mintimeout "
        "--fetch-retry-maxtimeout --audit-level --install-strategy --lockfile-version --only "
        "--scope --maxsockets --logs-max",
        rows=(
            row("-C --prefix", Kind.RUNS, _OTHER_PACKAGE),
            row(
                "--script-shell --shell --git --node-options --editor --browser --viewer "
                "--node-gyp --init-module",
                Kind.RUNS,
                _PROGRAM,
            ),
            row("--userconfig --globalconfig", Kind.OPAQUE, _CONFIG),
            row("-g --global", Kind.OPAQUE, _GLOBAL, Arg.NONE),
            row("--location", Kind.OPAQUE, "chooses where it installs (global: outside)"),
            row("--cache --logs-dir", Kind.WRITE_DIR, "writes its cache or logs in DIR"),
            row("--cafile --cert --key", Kind.READ, "reads FILE"),
        ),
    ),
)
PNPM = Table(
    "pnpm",
    options(
        "-s --silent -r --recursive -w --workspace-root --if-present --parallel --stream "
        "--aggregate-output --no-bail --bail --sort --no-sort --frozen-lockfile "
        "--no-frozen-lockfile --prefer-frozen-lockfile -P --prod --production -D --dev "
        "--save-dev --save-prod --save-optional -O -E --save-exact --save-peer --offline "
        "--prefer-offline --ignore-scripts --no-optional --shamefully-hoist --json --long "
        "--include-workspace-root --color --no-color --resolution-only "
        "--fix-lockfile --force --lockfile-only --reverse --use-stderr -h --help -v --version "
        "--shell-emulator",
        "-F --filter --filter-prod --reporter --loglevel --depth --workspace-concurrency "
        "--test-pattern --changed-files-ignore-pattern --resume-from",
        rows=(
            row("-C --dir", Kind.RUNS, _OTHER_PACKAGE),
            row("--script-shell --node-options", Kind.RUNS, _PROGRAM),
            row("-g --global", Kind.OPAQUE, _GLOBAL, Arg.NONE),
            row(
                "--store-dir --virtual-store-dir --global-dir --modules-dir",
                Kind.WRITE_DIR,
                "writes packages into DIR",
            ),
        ),
    ),
)
YARN = Table(
    "yarn",
    options(
        "-s --silent --frozen-lockfile --immutable --immutable-cache --production --prod -D "
        "--dev -P --peer -O --optional -E --exact -T --tilde --ignore-scripts --offline "
        "--prefer-offline --non-interactive --verbose --json --no-progress --pure-lockfile "
        "--force --check-files --flat --ignore-engines --ignore-optional --ignore-platform "
        "--skip-integrity-check --no-lockfile --no-bin-links --mode -h --help -v --version -A "
        "--all -R --recursive -p --parallel -i --interlaced -t --topological "
        "--topological-dev --inline-builds",
        "--network-timeout --network-concurrency --mutex --registry --cache-folder-skip "
        "--include --exclude --jobs -j",
        rows=(
            row("--cwd", Kind.RUNS, _OTHER_PACKAGE),
            row("--use-yarnrc", Kind.OPAQUE, _CONFIG),
            row(
                "--modules-folder --cache-folder --global-folder --link-folder",
                Kind.WRITE_DIR,
                "writes packages into DIR",
            ),
        ),
    ),
)
TABLES = {"npm": NPM, "pnpm": PNPM, "yarn": YARN}


def judge_node(w: Walker, command: SimpleCommand, base: str) -> bool:
    """Options anywhere up to ``--`` are the package manager's (it reads them wherever they
    are, after a script's name too); the words after ``--`` go to the script."""
    args = command.words[1:]
    end = next((i for i, word in enumerate(args) if word.text == "--"), len(args))
    check(w, command, TABLES[base], args=args[:end])
    return False


JUDGES: dict[str, Callable[[Walker, SimpleCommand, str], bool]] = {
    name: judge_node for name in TABLES
}
