"""Pagers and manuals: ``less`` (590+), ``more`` (util-linux 2.38), ``man`` (man-db 2.11).

Without a terminal they print what they show, like ``cat``. What their options add: ``less
+COMMAND`` (and ``++``) runs less commands at start, among them ``!`` shell escapes where a
terminal exists; ``-k``/``--lesskey-*`` load key bindings that can set ``LESSOPEN`` (a program
run on every file); ``-o``/``-O`` write a log file. ``man -P``/``--pager`` and ``-H`` run a
program of the caller's choosing; ``-C`` loads a configuration that can name programs;
``-c``/``-u`` write man's caches.
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

LESS = Table(
    "less",
    options(
        "-? -a -A -B -c -C -d -e -E -f -F -g -G -i -I -J -K -L -m -M -n -N -q -Q -r -R -s -S -u "
        "-U -V -w -W -X -~ --help --search-skip-screen --SEARCH-SKIP-SCREEN --auto-buffers "
        "--clear-screen --dumb --quit-at-eof --QUIT-AT-EOF --force --quit-if-one-screen "
        "--hilite-search --HILITE-SEARCH --ignore-case --IGNORE-CASE --status-column "
        "--quit-on-intr --no-lessopen --long-prompt --LONG-PROMPT --line-numbers "
        "--LINE-NUMBERS --quiet --QUIET --silent --SILENT --raw-control-chars "
        "--RAW-CONTROL-CHARS --squeeze-blank-lines --chop-long-lines --underline-special "
        "--UNDERLINE-SPECIAL --version --hilite-unread --HILITE-UNREAD --no-init --tilde "
        "--file-size --follow-name --incsearch --mouse --no-keypad --no-histdups --use-backslash "
        "--use-color --wordwrap --redraw-on-quit --no-number-headers --exit-follow-on-close",
        '-b -D -h -j -p -P -t -x -y -z -# -" --buffers --color --max-back-scroll --jump-target '
        "--pattern --prompt --tag --tabs --max-forw-scroll --window --quotes --shift "
        "--line-num-width --rscroll --status-col-width --wheel-lines --header",
        rows=(
            row("-o -O --log-file --LOG-FILE", Kind.WRITE, "copies its input to FILE"),
            row("-T --tag-file", Kind.READ, "reads a tags file"),
            row(
                "-k --lesskey-file --lesskey-src --lesskey-content",
                Kind.OPAQUE,
                "loads key bindings, which can set LESSOPEN (a program run on each file)",
            ),
            row("--save-marks", Kind.SAFE, "keeps marks in its history file", Arg.NONE),
        ),
    ),
)
MORE = Table(
    "more",
    options(
        "-d -f -l -c -p -s -u -e -h -V --silent --logical --no-pause --print-over "
        "--clean-print --squeeze --plain --exit-on-eof --help --version",
        "-n --lines",
    ),
    numeric=True,
)
MAN = Table(
    "man",
    options(
        "-? -7 -D -I -K -L -V -Z -a -d -f -h -i -k -l -t -w -W --all --apropos --ascii "
        "--debug --default --ditroff --global-apropos --help --ignore-case --local-file "
        "--match-case --names-only --nh --nj --no-hyphenation --no-justification "
        "--no-subpages --path --regex --troff --usage --version --whatis --where --where-cat "
        "--wildcard --location --location-cat",
        "-E -M -R -S -e -m -p -r -s --encoding --extension --locale --manpath --preprocessor "
        "--prompt --recode --sections --systems",
        "-T -X --troff-device --gxditview --warnings",
        rows=(
            row("-P --pager", Kind.RUNS, "runs a pager of the caller's choosing"),
            row(
                "-H --html", Kind.RUNS, "runs a web browser of the caller's choosing", Arg.OPTIONAL
            ),
            row("-C --config-file", Kind.OPAQUE, "loads a configuration that can name programs"),
            row("-c --catman -u --update", Kind.OPAQUE, "writes man's caches", Arg.NONE),
        ),
    ),
)


def judge_less(w: Walker, command: SimpleCommand, base: str) -> bool:
    a = w.a
    args = command.words[1:]
    for word in args:
        if word.text.startswith("+") and word.literal:
            a.note_opaque(
                f"{base}: {word.shown} runs less commands when it starts (among them shell "
                "escapes); open the file without it"
            )
    check(w, command, LESS, args=[word for word in args if not word.text.startswith("+")])
    return False


def judge_more(w: Walker, command: SimpleCommand, base: str) -> bool:
    args = command.words[1:]
    check(w, command, MORE, args=[word for word in args if not word.text.startswith("+")])
    return False


def judge_man(w: Walker, command: SimpleCommand, base: str) -> bool:
    check(w, command, MAN)
    return False


JUDGES: dict[str, Callable[[Walker, SimpleCommand, str], bool]] = {
    "less": judge_less,
    "more": judge_more,
    "man": judge_man,
}
