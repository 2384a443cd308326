"""Tables for searching and looking at files: ``grep`` (GNU grep 3.8), ``rg`` (ripgrep 14),
``diff`` (GNU diffutils 3.8), ``column`` (util-linux 2.38), ``file`` (5.44), ``xxd``, ``iconv``,
the compressors (``gzip``, ``xz``, ``bzip2`` and their ``cat``/``un`` forms), ``which``; and the
programs whose words are all data (``echo``, ``printf``, ``yes``, ``true``, ``false``).

Running: ``rg --pre`` (a preprocessor for every file) and ``--hostname-bin``. Writing:
``iconv -o``, ``xxd``'s second operand, ``file -C`` (a compiled magic file), and the compressors,
which replace each file with its compressed (or decompressed) twin unless ``-c``, ``-t`` or
``-l`` keeps them to standard output.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.core.permissions.shell.model import DYN, FileWrite, SimpleCommand, Word
from agent_tui.core.permissions.shell.option_table import (
    Arg,
    Kind,
    Table,
    check,
    operand_reads,
    options,
    row,
)
from agent_tui.core.permissions.shell.tables.coreutils import HELP, gnu, plain

if TYPE_CHECKING:
    from collections.abc import Callable

    from agent_tui.core.permissions.shell.walking import Walker

GREP = gnu(
    "grep",
    "-E -F -G -H -I -L -P -R -T -U -V -Z -a -b -c -h -i -l -n -o -q -r -s -v -w -x -y -z "
    "--basic-regexp --binary --byte-offset --count --dereference-recursive --extended-regexp "
    "--files-with-matches --files-without-match --fixed-strings --ignore-case --initial-tab "
    "--invert-match --line-buffered --line-number --line-regexp --no-filename "
    "--no-group-separator --no-ignore-case --no-messages --null --null-data --only-matching "
    "--perl-regexp --quiet --recursive --silent --text --with-filename --word-regexp",
    "-A -B -C -D -d -e -m --after-context --before-context --binary-files --context --devices "
    "--directories --exclude --exclude-dir --group-separator --include --label --max-count "
    "--regexp",
    "--color --colour",
    rows=(row("-f --file --exclude-from", Kind.READ, "reads patterns from FILE"),),
    numeric=True,
)
RG = Table(
    "rg",
    options(
        "-. -0 -F -H -I -L -N -P -S -U -a -b -c -h -i -l -n -o -p -q -s -u -uu -uuu -v -w -x "
        "-z --auto-hybrid-regex --binary --block-buffered --byte-offset --case-sensitive "
        "--column --count --count-matches --crlf --debug --files --files-with-matches "
        "--files-without-match --fixed-strings --follow --glob-case-insensitive --heading "
        "--hidden --ignore-case --ignore-file-case-insensitive --include-zero --invert-match "
        "--json --line-buffered --line-number --line-regexp --max-columns-preview --mmap "
        "--multiline --multiline-dotall --no-binary --no-column --no-config --no-crlf "
        "--no-filename --no-follow --no-heading --no-hidden --no-ignore --no-ignore-dot "
        "--no-ignore-exclude --no-ignore-files --no-ignore-global --no-ignore-messages "
        "--no-ignore-parent --no-ignore-vcs --no-line-number --no-messages --no-mmap "
        "--no-pcre2-unicode --no-require-git --no-unicode --null --null-data --one-file-system "
        "--only-matching --passthru --passthrough --pcre2 --pretty --quiet --search-zip "
        "--smart-case --sort-files --stats --text --trace --trim --type-list --unrestricted "
        "--vimgrep --with-filename --word-regexp --help --version -V",
        "-A -B -C -E -M -T -d -e -g -j -m -r -t --after-context --before-context --color "
        "--colors --context --context-separator --dfa-size-limit --encoding --engine "
        "--field-context-separator --field-match-separator --generate --glob --hyperlink-format "
        "--iglob --max-columns --max-count --max-depth --max-filesize --path-separator "
        "--pre-glob --regex-size-limit --regexp --replace --sort --sortr --threads --type "
        "--type-add --type-clear --type-not",
        rows=(
            row("-f --file --ignore-file", Kind.READ, "reads patterns or ignore rules from FILE"),
            row("--pre", Kind.RUNS, "runs a program on every file it searches"),
            row("--hostname-bin", Kind.RUNS, "runs a program to find the host name"),
        ),
    ),
)
DIFF = gnu(
    "diff",
    "-B -E -N -T -Z -a -b -c -d -e -f -i -l -n -p -q -r -s -t -u -w -y --brief --ed "
    "--expand-tabs --ignore-all-space --ignore-blank-lines --ignore-case "
    "--ignore-file-name-case --ignore-space-change --ignore-tab-expansion "
    "--ignore-trailing-space --initial-tab --left-column --minimal --new-file --no-dereference "
    "--no-ignore-file-name-case --normal --paginate --rcs --recursive "
    "--report-identical-files --show-c-function --side-by-side --speed-large-files "
    "--strip-trailing-cr --suppress-blank-empty --suppress-common-lines --text "
    "--unidirectional-new-file",
    "-C -D -F -I -S -U -W -x --exclude --horizon-lines --ifdef --ignore-matching-lines --label "
    "--line-format --old-line-format --new-line-format --unchanged-line-format "
    "--old-group-format --new-group-format --unchanged-group-format --changed-group-format "
    "--palette --show-function-line --starting-file --tabsize --width",
    "--color --context --unified",
    rows=(row("-X --exclude-from --from-file --to-file", Kind.READ, "compares or reads FILE"),),
)
COLUMN = Table(
    "column",
    options(
        "-J -L -d -e -h -t -x -V --fillrows --help --json --keep-empty-lines --table "
        "--table-header-repeat --table-noheadings --version",
        "-E -H -N -O -R -T -W -c -i -l -n -o -p -r -s --output-separator --output-width "
        "--separator --table-columns --table-columns-limit --table-hide --table-name "
        "--table-noextreme --table-order --table-right --table-truncate --table-wrap --tree "
        "--tree-id --tree-parent",
    ),
)
FILE = gnu(
    "file",
    "-0 -L -N -S -Z -b -c -d -E -h -i -k -l -n -p -r -s -v -z --apple --brief "
    "--checking-printout --debug --dereference --extension --keep-going --list --mime "
    "--mime-encoding --mime-type --no-buffer --no-dereference --no-pad --no-sandbox --print0 "
    "--preserve-date --raw --special-files --uncompress --uncompress-noreport",
    "-F -P -e --exclude --exclude-quiet --parameter --separator",
    rows=(
        row("-f --files-from -m --magic-file", Kind.READ, "reads names or magic from FILE"),
        row("-C --compile", Kind.OPAQUE, "writes a compiled magic file", Arg.NONE),
    ),
)
ICONV = Table(
    "iconv",
    options(
        "-c -l -s -V -? --list --silent --verbose --help --usage --version",
        "-f -t --from-code --to-code",
        rows=(row("-o --output", Kind.WRITE, "writes the converted text to FILE"),),
    ),
)
GZIP = gnu(
    "gzip",
    "-1 -2 -3 -4 -5 -6 -7 -8 -9 -L -N -V -c -d -f -h -k -l -n -q -r -t -v --best --decompress "
    "--fast --force --keep --license --list --name --no-name --quiet --recursive --rsyncable "
    "--stdout --synchronous --test --to-stdout --uncompress --verbose",
    "-S --suffix",
)
XZ = gnu(
    "xz",
    "-0 -1 -2 -3 -4 -5 -6 -7 -8 -9 -H -V -c -d -e -f -h -k -l -q -t -v -z --compress "
    "--decompress --extreme --force --ignore-check --info-memory --keep --list --long-help "
    "--no-adjust --no-sparse --quiet --robot --single-stream --stdout --test --to-stdout "
    "--uncompress --verbose",
    "-C -F -M -S -T --block-list --block-size --check --flush-timeout --format --memlimit "
    "--memlimit-compress --memlimit-decompress --memory --suffix --threads",
    rows=(row("--files --files0", Kind.READ, "reads the file names from FILE", Arg.OPTIONAL),),
)
BZIP2 = gnu(
    "bzip2",
    "-1 -2 -3 -4 -5 -6 -7 -8 -9 -L -V -c -d -f -k -q -s -t -v -z --best --compress "
    "--decompress --fast --force --keep --license --quiet --small --stdout --test --verbose",
)
COMPRESSORS: dict[str, tuple[Table, str, str]] = {
    # name: (table, default suffix, mode: "c" compress, "d" decompress, "o" to standard output)
    "gzip": (GZIP, ".gz", "c"),
    "gunzip": (GZIP, ".gz", "d"),
    "zcat": (GZIP, ".gz", "o"),
    "xz": (XZ, ".xz", "c"),
    "unxz": (XZ, ".xz", "d"),
    "xzcat": (XZ, ".xz", "o"),
    "lzma": (XZ, ".lzma", "c"),
    "unlzma": (XZ, ".lzma", "d"),
    "lzcat": (XZ, ".lzma", "o"),
    "bzip2": (BZIP2, ".bz2", "c"),
    "bunzip2": (BZIP2, ".bz2", "d"),
    "bzcat": (BZIP2, ".bz2", "o"),
}
WHICH = Table(
    "which",
    options(
        "-a -s -i -v -V --all --skip-dot --skip-tilde --show-dot --show-tilde --tty-only "
        "--read-alias --skip-alias --read-functions --skip-functions " + HELP
    ),
)
TREE = Table(
    "tree",
    options(
        "-a -d -l -f -x -q -N -Q -p -u -g -s -h -D -F -v -t -c -U -r -C -n -A -S -i -J -X "
        "--noreport --inodes --device --du --si --prune --dirsfirst --filesfirst --matchdirs "
        "--ignore-case --metafirst --gitignore --info --nolinks --acl --help --version "
        "--condense --fromfile --fromtabfile",
        "-L -P -I -H -T --charset --filelimit --timefmt --sort --hyperlink",
        rows=(
            row("-o", Kind.WRITE, "writes the listing to FILE"),
            row("--gitfile --infofile --hintro --houtro", Kind.READ, "reads FILE"),
            row("-R", Kind.OPAQUE, "writes 00Tree.html into every directory", Arg.NONE),
        ),
    ),
)
FREE = ("echo", "printf", "yes", "true", "false")
"""Every word is data to them (``echo --foo`` prints ``--foo``); ``printf -v`` is judged
where builtins set variables."""


def judge_compress(w: Walker, command: SimpleCommand, base: str) -> bool:
    a = w.a
    table, suffix, mode = COMPRESSORS[base]
    parsed = check(w, command, table)
    operands = [word for word in parsed.operands if word.text != "-"]
    operand_reads(w, command, operands, base)
    stdout = parsed.has("-c", "--stdout", "--to-stdout", "-t", "--test", "-l", "--list")
    if mode == "o" or stdout:
        return True
    if parsed.has("-d", "--decompress", "--uncompress"):
        mode = "d"
    given = parsed.values("-S", "--suffix")
    suffix = given[-1].text if given else suffix
    tree = parsed.has("-r", "--recursive")
    if command.extra_args:
        a.writes.append(FileWrite(Word(DYN, ""), f"{base} (files named when it runs)"))
    for word in operands:
        a.writes.append(FileWrite(word, f"{base} (replaces it)", tree))
        if tree:
            continue  # a directory: every file below is replaced
        if mode == "d":
            if not (suffix and word.text.endswith(suffix)):
                continue  # gzip -d refuses a name without the suffix
            text = word.text[: -len(suffix)]
        else:
            text = word.text + suffix
        a.writes.append(FileWrite(Word(text, text, word.glob), f"{base} (its output file)"))
    return True


def judge_xxd(w: Walker, command: SimpleCommand, base: str) -> bool:
    """xxd's options only change the dump; its second operand is the file it writes."""
    a = w.a
    valued = {"-c", "-cols", "-g", "-groupsize", "-l", "-len", "-n", "-name", "-o", "-s", "-seek"}
    valued.add("-R")
    args = command.words[1:]
    operands: list[Word] = []
    i = 0
    while i < len(args):
        text = args[i].text
        if not operands and text.startswith("-") and text not in ("-", "--"):
            i += 2 if text in valued else 1
            continue
        if text == "--" and not operands:
            i += 1
            continue
        operands.append(args[i])
        i += 1
    operand_reads(w, command, operands[:1], base)
    for word in operands[1:]:
        if word.text not in ("-", "/dev/stdout"):
            a.writes.append(FileWrite(word, "xxd's output file"))
    return True


def judge_iconv(w: Walker, command: SimpleCommand, base: str) -> bool:
    parsed = check(w, command, ICONV)
    operand_reads(w, command, parsed.operands, base)
    return True


def judge_free(w: Walker, command: SimpleCommand, base: str) -> bool:
    return False


JUDGES: dict[str, Callable[[Walker, SimpleCommand, str], bool]] = {
    **{name: plain(GREP) for name in ("grep", "egrep", "fgrep", "zgrep")},
    "rg": plain(RG),
    "diff": plain(DIFF),
    "column": plain(COLUMN),
    "file": plain(FILE),
    "which": plain(WHICH),
    "tree": plain(TREE),
    "xxd": judge_xxd,
    "iconv": judge_iconv,
    **{name: judge_compress for name in COMPRESSORS},
    **{name: judge_free for name in FREE},
}
