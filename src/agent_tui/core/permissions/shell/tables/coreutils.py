"""Tables for the GNU coreutils users allow as harmless (``ls``, ``cat``, ``head``, ``sort``…)
and for the copying programs (``cp``, ``mv``, ``ln``, ``install``), from each one's ``--help``
(coreutils 9.1).

The readers only print: every option is harmless, so the table only keeps an option it does
not know from passing (``ls --foo``: asks). The writers are the options that name a file to
write (``sort -o``, ``shuf -o``, ``split``'s output prefix, ``uniq``'s second operand, backups
of ``cp -b``), and the options that run a program (``sort --compress-program``, ``split
--filter``, ``install --strip-program``) or set the clock (``date -s``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.core.permissions.shell.files import command_files
from agent_tui.core.permissions.shell.model import FileWrite, SimpleCommand, Word
from agent_tui.core.permissions.shell.option_table import (
    Arg,
    Kind,
    Opt,
    Parsed,
    Table,
    check,
    operand_reads,
    options,
    row,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from agent_tui.core.permissions.shell.walking import Walker

HELP = "--help --version"
_READS = "reads the file names to work on from FILE"


def gnu(
    name: str,
    flags: str = "",
    values: str = "",
    optional: str = "",
    rows: tuple[tuple[str, Opt], ...] = (),
    numeric: bool = False,
    risky: bool = False,
) -> Table:
    """A GNU program's table: ``--help`` and ``--version`` included."""
    table = options(f"{flags} {HELP}", values, optional, rows)
    return Table(name, table, numeric=numeric, risky=risky)


LS = gnu(
    "ls",
    "-1 -A -B -C -D -F -G -H -L -N -Q -R -S -U -X -Z -a -b -c -d -f -g -h -i -k -l -m -n -o -p "
    "-q -r -s -t -u -v -x --all --almost-all --author --context --dereference "
    "--dereference-command-line --dereference-command-line-symlink-to-dir --directory --dired "
    "--escape --file-type --full-time --group-directories-first --hide-control-chars "
    "--human-readable --ignore-backups --inode --kibibytes --literal --no-group "
    "--numeric-uid-gid --quote-name --recursive --reverse --show-control-chars --si --size "
    "--zero",
    "-I -T -w --block-size --format --hide --ignore --indicator-style --quoting-style --sort "
    "--tabsize --time-style --time --width",
    "--classify --color --hyperlink",
)
CAT = gnu(
    "cat",
    "-A -E -T -b -e -n -s -t -u -v --number --number-nonblank --show-all --show-ends "
    "--show-nonprinting --show-tabs --squeeze-blank",
)
HEAD = gnu(
    "head",
    "-q -v -z --quiet --silent --verbose --zero-terminated",
    "-c -n --bytes --lines",
    numeric=True,
)
TAIL = gnu(
    "tail",
    "-F -f -q -v -z --quiet --retry --silent --verbose --zero-terminated",
    "-c -n -s --bytes --lines --max-unchanged-stats --pid --sleep-interval",
    "--follow",
    numeric=True,
)
WC = gnu(
    "wc",
    "-L -c -l -m -w --bytes --chars --lines --max-line-length --words",
    optional="--total",
    rows=(row("--files0-from", Kind.READ, _READS),),
)
CUT = gnu(
    "cut",
    "-n -s -z --complement --only-delimited --zero-terminated",
    "-b -c -d -f --bytes --characters --delimiter --fields --output-delimiter",
)
TR = gnu("tr", "-C -c -d -s -t --complement --delete --squeeze-repeats --truncate-set1")
OD = gnu(
    "od",
    "-a -b -c -d -f -i -l -o -s -v -x --output-duplicates --traditional",
    "-A -N -j -t --address-radix --endian --format --read-bytes --skip-bytes",
    "-S -w --strings --width",
)
NL = gnu(
    "nl",
    "-p --no-renumber",
    "-b -d -f -h -i -l -n -s -v -w --body-numbering --footer-numbering --header-numbering "
    "--join-blank-lines --line-increment --number-format --number-separator --number-width "
    "--section-delimiter --starting-line-number",
)
SUM = "-b -c -t -w -z --binary --check --ignore-missing --quiet --status --strict --tag --text "
SUM += "--warn --zero"
STAT = gnu(
    "stat",
    "-L -f -t --dereference --file-system --terse",
    "-c --format --printf --cached",
)
DU = gnu(
    "du",
    "-0 -D -H -L -P -S -a -b -c -h -k -l -m -s -x --all --apparent-size --bytes --count-links "
    "--dereference --dereference-args --human-readable --inodes --no-dereference --null "
    "--one-file-system --separate-dirs --si --summarize --total",
    "-B -d -t --block-size --exclude --max-depth --threshold --time-style",
    "--time",
    rows=(row("-X --exclude-from --files0-from", Kind.READ, "reads patterns or names from FILE"),),
)
DF = gnu(
    "df",
    "-H -P -T -a -h -i -k -l -v --all --human-readable --inodes --local --no-sync --portability "
    "--print-type --si --sync --total",
    "-B -t -x --block-size --exclude-type --type",
    "--output",
)
COMM = gnu(
    "comm",
    "-1 -2 -3 -z --check-order --nocheck-order --total --zero-terminated",
    "--output-delimiter",
)
PASTE = gnu("paste", "-s -z --serial --zero-terminated", "-d --delimiters")
BASE64 = gnu("base64", "-d -i --decode --ignore-garbage", "-w --wrap")
BASENC = gnu(
    "basenc",
    "-d -i --decode --ignore-garbage --base64 --base64url --base32 --base32hex --base16 "
    "--base2msbf --base2lsbf --z85",
    "-w --wrap",
)
TEE = gnu("tee", "-a -i -p --append --ignore-interrupts", optional="--output-error")
SORT = gnu(
    "sort",
    "-C -M -R -V -b -c -d -f -g -h -i -m -n -r -s -u -z --debug --dictionary-order "
    "--general-numeric-sort --human-numeric-sort --ignore-case --ignore-leading-blanks "
    "--ignore-nonprinting --merge --month-sort --numeric-sort --random-sort --reverse --stable "
    "--unique --version-sort --zero-terminated",
    "-S -k -t --batch-size --buffer-size --field-separator --key --parallel --sort",
    "--check",
    rows=(
        row("-o --output", Kind.WRITE, "writes the sorted lines to FILE"),
        row("-T --temporary-directory", Kind.WRITE_DIR, "writes its temporary files in DIR"),
        row("--compress-program", Kind.RUNS, "runs a program to compress its temporary files"),
        row("--files0-from", Kind.READ, _READS),
        row("--random-source", Kind.READ, "reads random bytes from FILE"),
    ),
)
UNIQ = gnu(
    "uniq",
    "-D -c -d -i -u -z --count --ignore-case --repeated --unique --zero-terminated",
    "-f -s -w --check-chars --skip-chars --skip-fields",
    "--all-repeated --group",
)
SHUF = gnu(
    "shuf",
    "-e -r -z --echo --repeat --zero-terminated",
    "-i -n --head-count --input-range",
    rows=(
        row("-o --output", Kind.WRITE, "writes the shuffled lines to FILE"),
        row("--random-source", Kind.READ, "reads random bytes from FILE"),
    ),
)
SPLIT = gnu(
    "split",
    "-d -e -u -x --elide-empty-files --unbuffered --verbose",
    "-a -b -C -l -n -t --additional-suffix --bytes --line-bytes --lines --number --separator "
    "--suffix-length",
    "--hex-suffixes --numeric-suffixes",
    rows=(row("--filter", Kind.RUNS, "runs a shell command for each piece"),),
)
CSPLIT = gnu(
    "csplit",
    "-k -s -z --elide-empty-files --keep-files --quiet --silent --suppress-matched",
    "-b -f -n --digits --prefix --suffix-format",
)
DATE = gnu(
    "date",
    "-R -u --debug --resolution --rfc-email --universal --utc",
    "-d --date --rfc-3339",
    "-I --iso-8601",
    rows=(
        row("-s --set", Kind.OPAQUE, "sets the system clock"),
        row("-f --file -r --reference", Kind.READ, "reads dates from FILE (or its time)"),
    ),
)
BACKUP = "writes a backup of each file it replaces"
COPY_COMMON = "-T -f -i -n -u -v --force --interactive --no-clobber --no-target-directory "
COPY_COMMON += "--strip-trailing-slashes --verbose"
CP = gnu(
    "cp",
    f"{COPY_COMMON} -H -L -P -R -Z -a -d -l -p -r -s -x --archive --attributes-only "
    "--copy-contents --debug --dereference --link --no-dereference --one-file-system --parents "
    "--recursive --remove-destination --symbolic-link",
    "-S -t --no-preserve --sparse --suffix --target-directory",
    "--backup --context --preserve --reflink --update",
    rows=(row("-b", Kind.SAFE, BACKUP, Arg.NONE),),
    risky=True,
)
MV = gnu(
    "mv",
    f"{COPY_COMMON} -Z -b --context --debug --exchange --no-copy",
    "-S -t --suffix --target-directory",
    "--backup --update",
    risky=True,
)
LN = gnu(
    "ln",
    "-F -L -P -T -b -d -f -i -n -r -s -v --directory --force --interactive --logical "
    "--no-dereference --no-target-directory --physical --relative --symbolic --verbose",
    "-S -t --suffix --target-directory",
    "--backup",
    risky=True,
)
INSTALL = gnu(
    "install",
    "-C -D -T -Z -b -c -d -p -s -v --compare --debug --directory --no-target-directory "
    "--preserve-context --preserve-timestamps --strip --verbose",
    "-S -g -m -o -t --group --mode --owner --suffix --target-directory",
    "--backup --context",
    rows=(row("--strip-program", Kind.RUNS, "runs a program to strip the installed files"),),
    risky=True,
)
READERS = {
    "ls": LS,
    "dir": LS,
    "vdir": LS,
    "cat": CAT,
    "head": HEAD,
    "tail": TAIL,
    "wc": WC,
    "cut": CUT,
    "tr": TR,
    "od": OD,
    "nl": NL,
    "stat": STAT,
    "du": DU,
    "df": DF,
    "comm": COMM,
    "paste": PASTE,
    "base64": BASE64,
    "base32": BASE64,
    "basenc": BASENC,
    "tee": TEE,
    **{name: gnu(name, SUM) for name in ("md5sum", "sha1sum", "sha224sum", "sha256sum")},
    **{name: gnu(name, SUM) for name in ("sha384sum", "sha512sum", "b2sum", "cksum")},
}


def plain(table: Table) -> Callable[[Walker, SimpleCommand, str], bool]:
    """A program whose operands are files it reads (the generic rules note them)."""

    def judge(w: Walker, command: SimpleCommand, base: str) -> bool:
        check(w, command, table)
        return False

    return judge


def judge_sort(w: Walker, command: SimpleCommand, base: str) -> bool:
    parsed = check(w, command, SORT)
    operand_reads(w, command, parsed.operands, base)
    return True


def judge_uniq(w: Walker, command: SimpleCommand, base: str) -> bool:
    parsed = check(w, command, UNIQ)
    operands = parsed.operands
    operand_reads(w, command, operands[:1], base)
    if len(operands) >= 2 and operands[1].text not in ("-", "/dev/stdout"):
        w.a.writes.append(FileWrite(operands[1], "uniq's output file"))
    return True


def judge_shuf(w: Walker, command: SimpleCommand, base: str) -> bool:
    parsed = check(w, command, SHUF)
    if not parsed.has("-e", "--echo", "-i", "--input-range"):
        operand_reads(w, command, parsed.operands, base)
    return True


def _pieces(w: Walker, prefix: Word, how: str) -> None:
    """The pieces are PREFIX followed by a suffix: the files a glob ``PREFIX*`` names."""
    text = prefix.text + "*"
    w.a.writes.append(FileWrite(Word(text, prefix.raw + "*", glob=True), how))


def judge_split(w: Walker, command: SimpleCommand, base: str) -> bool:
    parsed = check(w, command, SPLIT)
    operands = parsed.operands
    operand_reads(w, command, operands[:1], base)
    prefix = operands[1] if len(operands) >= 2 else Word("x", "x")
    if not parsed.has("--filter"):
        _pieces(w, prefix, "split's output pieces")
    return True


def judge_csplit(w: Walker, command: SimpleCommand, base: str) -> bool:
    parsed = check(w, command, CSPLIT)
    operand_reads(w, command, parsed.operands[:1], base)
    prefixes = parsed.values("-f", "--prefix")
    _pieces(w, prefixes[-1] if prefixes else Word("xx", "xx"), "csplit's output pieces")
    return True


def judge_date(w: Walker, command: SimpleCommand, base: str) -> bool:
    parsed = check(w, command, DATE)
    for word in parsed.operands:
        if not word.text.startswith("+"):
            w.a.note_opaque(
                f"date: the operand {word.shown!r} sets the system clock (a format starts with +)"
            )
    return True


COPIERS = {"cp": CP, "mv": MV, "ln": LN, "install": INSTALL}


def judge_copy(w: Walker, command: SimpleCommand, base: str) -> bool:
    """``cp``, ``mv``, ``ln``, ``install``: the generic rules find the targets; a backup
    (``-b``, ``--backup``, ``-S``) is one more file written next to each, and ``cp --parents
    a/b/c DIR`` writes ``DIR/a/b/c``."""
    a = w.a
    parsed = check(w, command, COPIERS[base])
    before = len(a.writes)
    command_files(w, command, base)
    if base == "cp" and parsed.has("--parents"):
        _parents(w, parsed)
    if not parsed.has("-b", "--backup", "-S", "--suffix"):
        return True
    if any(
        u.name == "--backup" and u.value is not None and u.value.text in ("none", "off")
        for u in parsed.used
    ):
        return True
    suffixes = parsed.values("-S", "--suffix")
    controls = [u.value.text for u in parsed.used if u.name == "--backup" and u.value is not None]
    suffix = suffixes[-1].text if suffixes else "~"
    if "/" in suffix:
        suffix = "~"  # coreutils ignores a suffix with a slash
    numbered = bool(controls) and controls[-1] in ("numbered", "t", "existing", "nil")
    for write in a.writes[before:]:
        if write.how.endswith("target"):
            text = write.target.text + ("*" if numbered else suffix)
            glob = numbered or write.target.glob  # DEST.~1~, DEST.~2~…
            a.writes.append(FileWrite(Word(text, text, glob), f"{base}: {BACKUP}"))
    return True


def _parents(w: Walker, parsed: Parsed) -> None:
    targets = parsed.values("-t", "--target-directory")
    sources = parsed.operands if targets else parsed.operands[:-1]
    directory = targets[-1] if targets else (parsed.operands[-1] if parsed.operands else None)
    if directory is None:
        return
    for source in sources:
        text = directory.text.rstrip("/") + "/" + source.text.lstrip("/")
        w.a.writes.append(FileWrite(Word(text, text, source.glob), "cp --parents target"))


JUDGES: dict[str, Callable[[Walker, SimpleCommand, str], bool]] = {
    **{name: plain(table) for name, table in READERS.items()},
    "sort": judge_sort,
    "uniq": judge_uniq,
    "shuf": judge_shuf,
    "split": judge_split,
    "csplit": judge_csplit,
    "date": judge_date,
    "cp": judge_copy,
    "mv": judge_copy,
    "ln": judge_copy,
    "install": judge_copy,
}
