"""``pytest`` (8.x, with the common plugins: xdist, cov, timeout, asyncio, hypothesis, html,
rerunfailures, randomly, benchmark, syrupy), ``python -m pytest``, ``pip`` and ``python -m
pip`` (23/24).

A rule for pytest allows the project's tests, which are the project's code; not what the options
add to it: ``--basetemp=DIR`` deletes DIR, ``--junitxml``/``--log-file``/``--debug``/``--html``
/``--report-log`` write a file, ``--rootdir`` moves where the cache is written, ``--cov-report
TYPE:DEST`` writes DEST; ``-p NAME`` loads a module as a plugin (``-p no:NAME`` only turns one
off), ``--pdbcls`` imports one, xdist's ``--tx``/``--px`` start any interpreter; ``-c FILE`` and
``-o addopts=…`` can set any option. For pip: ``--python`` runs another interpreter,
``--target``/``--prefix``/``--root``/``--src``/``--user`` install outside the environment,
``--log``/``--report`` write, ``pip config`` changes what every later pip does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.core.permissions.shell.model import FileWrite, SimpleCommand, Word
from agent_tui.core.permissions.shell.option_table import (
    Arg,
    Kind,
    Parsed,
    Table,
    check,
    operand_reads,
    options,
    parse,
    row,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from agent_tui.core.permissions.shell.walking import Walker

_WRITES = "writes a report or log to FILE"
PYTEST = Table(
    "pytest",
    options(
        "-x --exitfirst --strict-config --strict-markers --strict --fixtures --funcargs "
        "--fixtures-per-test --markers --pdb --trace -s --runxfail --lf --last-failed --ff "
        "--failed-first --nf --new-first --cache-clear --sw --stepwise --sw-skip "
        "--stepwise-skip --sw-reset --stepwise-reset -v --verbose --no-header --no-summary "
        "--no-fold-skipped --force-short-summary -q --quiet --disable-warnings "
        "--disable-pytest-warnings -l --showlocals --no-showlocals --xfail-tb --full-trace "
        "--collect-only --co --pyargs --noconftest --keep-duplicates --collect-in-virtualenv "
        "--continue-on-collection-errors --doctest-modules --doctest-ignore-import-errors "
        "--doctest-continue-on-failure -V --version -h --help --disable-plugin-autoload "
        "--trace-config --setup-only --setup-show --setup-plan --asyncio-debug "
        "--loadscope-reorder --no-loadscope-reorder -d -f --looponfail "
        "--hypothesis-show-statistics --hypothesis-explain --timeout-disable-debugger-detection "
        "--cov-branch --cov-append --no-cov --no-cov-on-fail --cov-reset --self-contained-html "
        "--benchmark-skip --benchmark-only --benchmark-disable --benchmark-enable "
        "--benchmark-autosave --benchmark-save-data --benchmark-verbose --benchmark-quiet "
        "--snapshot-update --snapshot-warn-unused --snapshot-details --snapshot-no-colors "
        "--only-rerun-failures --fail-on-flaky",
        "-k -m -r -W -n --maxfail --lfnf --last-failed-no-failures --durations "
        "--durations-min --verbosity --tb --show-capture --color --code-highlight "
        "--junit-prefix --pythonwarnings --ignore --ignore-glob --deselect --confcutdir "
        "--import-mode --doctest-report --doctest-glob --capture --assert --log-level "
        "--log-format --log-date-format --log-cli-level --log-cli-format "
        "--log-cli-date-format --log-file-mode --log-file-level --log-file-format "
        "--log-file-date-format --log-auto-indent --log-disable --asyncio-mode --numprocesses "
        "--maxprocesses --max-worker-restart --dist --testrunuid --maxschedchunk --timeout "
        "--timeout_method --timeout-method --session-timeout --hypothesis-profile "
        "--hypothesis-verbosity --hypothesis-seed --anyio-mode --snapshot-default-extension "
        "--snapshot-diff-mode --cov-fail-under --reruns --reruns-delay --randomly-seed "
        "--benchmark-min-time --benchmark-max-time --benchmark-min-rounds --benchmark-sort "
        "--benchmark-group-by --benchmark-columns --benchmark-name --benchmark-warmup "
        "--benchmark-timer --benchmark-calibration-precision --file-durations",
        "--cache-show --cov",
        rows=(
            row("--junitxml --junit-xml --log-file --html --report-log", Kind.WRITE, _WRITES),
            row("--resultlog --result-log --benchmark-json", Kind.WRITE, _WRITES),
            row("--debug", Kind.WRITE, _WRITES, Arg.OPTIONAL, "pytestdebug.log"),
            row("--basetemp", Kind.WRITE_DIR, "deletes DIR and makes its temporary files there"),
            row("--rootdir", Kind.WRITE_DIR, "writes its cache (.pytest_cache) in DIR"),
            row("--benchmark-storage", Kind.WRITE_DIR, "saves benchmarks in DIR"),
            row("-p", Kind.SAFE, "loads a plugin (checked apart)"),
            row("--pdbcls", Kind.RUNS, "imports a debugger class from a module"),
            row("--tx --px", Kind.RUNS, "starts test environments (any interpreter, ssh)"),
            row("--rsyncdir --rsyncignore", Kind.OPAQUE, "copies files to remote test hosts"),
            row("-c --config-file", Kind.OPAQUE, "reads a configuration that can set any option"),
            row("--cov-config", Kind.OPAQUE, "reads coverage's configuration (where it writes)"),
            row("-o --override-ini", Kind.SAFE, "sets a configuration value (checked apart)"),
            row("--pastebin", Kind.OPAQUE, "sends the test output to bpaste.net"),
            row("--cov-report", Kind.SAFE, "writes a coverage report (checked apart)"),
        ),
    ),
)
INI_SAFE = frozenset(
    [
        "console_output_style",
        "log_cli",
        "log_cli_level",
        "log_level",
        "python_files",
        "python_functions",
        "python_classes",
        "testpaths",
        "filterwarnings",
        "xfail_strict",
        "empty_parameter_set_mark",
        "junit_family",
        "asyncio_mode",
        "asyncio_default_fixture_loop_scope",
        "markers",
        "timeout",
        "minversion",
        "norecursedirs",
        "doctest_optionflags",
        "verbosity_assertions",
        "verbosity_test_cases",
        "log_format",
        "log_date_format",
    ]
)
COV_DEFAULTS = {"html": "htmlcov", "xml": "coverage.xml", "json": "coverage.json"}
COV_DEFAULTS |= {"lcov": "coverage.lcov", "markdown": "coverage.md"}


def judge_pytest(w: Walker, command: SimpleCommand, base: str) -> bool:
    parsed = check(w, command, PYTEST)
    _pytest_checks(w, parsed)
    operand_reads(w, command, [word for word in parsed.operands if "::" not in word.text], base)
    return True


def _pytest_checks(w: Walker, parsed: Parsed) -> None:
    a = w.a
    for value in parsed.values("-p"):
        if not value.text.startswith("no:"):
            a.note_unseen(f"pytest: -p {value.shown} loads a module as a plugin (its code runs)")
    for value in parsed.values("-o", "--override-ini"):
        key = value.text.split("=", 1)[0].strip()
        if key not in INI_SAFE:
            a.note_opaque(
                f"pytest: -o {value.shown} sets {key!r}, which can change what pytest runs or "
                f"writes (allowed: {', '.join(sorted(INI_SAFE)[:6])}…)"
            )
    for value in parsed.values("--cov-report"):
        kind, colon, dest = value.text.partition(":")
        target = dest if colon else COV_DEFAULTS.get(kind)
        if target:
            tree = kind in ("html", "annotate")
            a.writes.append(FileWrite(Word(target, target), f"pytest --cov-report={kind}", tree))
        elif kind == "annotate":
            a.note_opaque("pytest: --cov-report=annotate writes a ,cover file next to each source")


PYTHON = Table(
    "python",
    options(
        "-b -bb -B -d -E -h -i -I -O -OO -P -q -s -S -u -v -V -x -? --help --version "
        "--help-env --help-xoptions --help-all",
        "-W -X --check-hash-based-pycs",
    ),
    permute=False,
)


def judge_python(w: Walker, command: SimpleCommand, base: str) -> bool:
    """``python -m pytest …`` and ``python -m pip …``; any other use of python is judged by the
    generic interpreter rules (False)."""
    args = command.words[1:]
    i = 0
    while i < len(args) and args[i].text.startswith("-") and args[i].text != "-m":
        if args[i].text.startswith("-c") or args[i].text == "--":
            return False
        i += 2 if args[i].text in ("-W", "-X", "--check-hash-based-pycs") else 1
    if i + 1 >= len(args) or args[i].text != "-m" or args[i + 1].text not in ("pytest", "pip"):
        return False
    check(w, command, PYTHON, args=args[:i])
    for value in parse(args[:i], PYTHON).values("-X"):
        if value.text.startswith("pycache_prefix"):
            target = value.text.partition("=")[2]
            w.a.writes.append(FileWrite(Word(target, target), "python -X pycache_prefix", True))
    inner = SimpleCommand([args[i + 1], *args[i + 2 :]], [], [], command.extra_args)
    if args[i + 1].text == "pytest":
        parsed = check(w, inner, PYTEST)
        _pytest_checks(w, parsed)
        operand_reads(w, inner, [x for x in parsed.operands if "::" not in x.text], "pytest")
        return True
    return judge_pip(w, inner, "pip")


PIP_GLOBAL = (
    "-h --help --debug --isolated --require-virtualenv -v --verbose -V --version -q --quiet "
    "--no-input --no-cache-dir --disable-pip-version-check --no-color "
    "--no-python-version-warning"
)
PIP_GLOBAL_VALUES = (
    "--keyring-provider --proxy --retries --timeout --exists-action --trusted-host "
    "--use-feature --use-deprecated"
)
PIP_INSTALL_FLAGS = (
    "--no-deps --pre -U --upgrade --force-reinstall -I --ignore-installed "
    "--ignore-requires-python --no-build-isolation --use-pep517 --no-use-pep517 "
    "--check-build-dependencies --break-system-packages --compile --no-compile "
    "--no-warn-script-location --no-warn-conflicts --prefer-binary --require-hashes "
    "--dry-run --no-index --no-clean -y --yes -o --outdated -u --uptodate -e "
    "-l --local --not-required --exclude-editable --include-editable --all -f --files"
)
PIP_INSTALL_VALUES = (
    "--platform --python-version --implementation --abi --upgrade-strategy --no-binary "
    "--only-binary --progress-bar --root-user-action -i --index-url --extra-index-url "
    "--find-links --format --exclude --path --algorithm --editable"
)
PIP = Table(
    "pip",
    options(
        f"{PIP_GLOBAL} {PIP_INSTALL_FLAGS}",
        f"{PIP_GLOBAL_VALUES} {PIP_INSTALL_VALUES}",
        rows=(
            row("--python", Kind.RUNS, "runs pip with another interpreter"),
            row("--log --report", Kind.WRITE, _WRITES),
            row("--cache-dir", Kind.WRITE_DIR, "keeps its cache in DIR"),
            row("-t --target --prefix --root --src", Kind.WRITE_DIR, "installs into DIR"),
            row("-d --dest -w --wheel-dir", Kind.WRITE_DIR, "writes the packages into DIR"),
            row("--user", Kind.OPAQUE, "installs into your home (~/.local)", Arg.NONE),
            row("--cert --client-cert -r --requirement -c --constraint", Kind.READ, "reads FILE"),
            row(
                "-C --config-settings --global-option --install-option",
                Kind.OPAQUE,
                "passes settings to the package's build, which runs them",
            ),
        ),
    ),
)
PIP_COMMANDS = frozenset(
    [
        "install",
        "download",
        "uninstall",
        "freeze",
        "inspect",
        "list",
        "show",
        "check",
        "search",
        "index",
        "wheel",
        "hash",
        "completion",
        "debug",
        "help",
        "cache",
        "config",
    ]
)


def judge_pip(w: Walker, command: SimpleCommand, base: str) -> bool:
    a = w.a
    parsed = check(w, command, PIP)
    operands = parsed.operands
    sub = operands[0].text if operands else ""
    if operands and sub not in PIP_COMMANDS:
        a.note_opaque(f"pip: {sub!r} is not among the pip commands the analysis knows")
    elif sub == "config" and not (len(operands) > 1 and operands[1].text in ("list", "get")):
        a.note_opaque("pip: pip config changes the configuration every later pip reads")
    elif sub == "cache" and len(operands) > 1 and operands[1].text in ("purge", "remove"):
        a.writes.append(FileWrite(Word("~/.cache/pip", "~/.cache/pip"), "pip cache purge", True))
    return True


JUDGES: dict[str, Callable[[Walker, SimpleCommand, str], bool]] = {
    "pytest": judge_pytest,
    "py.test": judge_pytest,
    "pip": judge_pip,
    "pip3": judge_pip,
    **{name: judge_python for name in ("python", "python3")},
}
