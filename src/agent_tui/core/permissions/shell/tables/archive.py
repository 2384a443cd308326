"""``tar`` (GNU tar 1.34, old-style ``tar czf A DIR`` included) and ``zip`` (Info-ZIP 3.0).

tar runs programs through ``--to-command``, ``-I``/``--use-compress-program``, ``-F``/
``--info-script``/``--new-volume-script``, ``--rsh-command``, ``--rmt-command``,
``--checkpoint-action=exec=…`` and a remote archive (``-f host:file``, through rsh/ssh); it
writes the archive when creating (``-c``, ``-r``, ``-u``, ``--delete``, ``-A``), the snapshot
of ``-g``, ``--index-file``, ``--volno-file``, and deletes what it archived with
``--remove-files``. Extraction (``-x``, unless to standard output) writes the files the
archive names, known only when it runs: the whole tree below its directory, through the links
already there (``FileWrite.through_links``); with ``-P`` or ``--transform``, anywhere.

zip runs ``-TT``/``--unzip-command``; writes the archive (its first operand), ``-O``,
``--logfile-path`` (``-lf``), its temporary directory (``-b``) and, with ``-m``/``--move``,
deletes the files it adds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.core.permissions.shell.model import DYN, FileWrite, SimpleCommand, Word
from agent_tui.core.permissions.shell.option_table import (
    Arg,
    Kind,
    Parsed,
    Table,
    check,
    options,
    row,
)
from agent_tui.core.permissions.shell.tables.coreutils import HELP

if TYPE_CHECKING:
    from collections.abc import Callable

    from agent_tui.core.permissions.shell.walking import Walker

_RUNS = "runs a program given here"
TAR = Table(
    "tar",
    options(
        "-A -B -G -J -M -O -P -R -S -U -W -Z -a -c -d -h -i -j -k -l -m -n -o -p -r -s -t -u -v "
        "-w -x -z --absolute-names --acls --anchored --append --auto-compress --block-number "
        "--bzip2 --catenate --check-device --check-links --clamp-mtime --compare --compress "
        "--concatenate --confirmation --create --delay-directory-restore --delete "
        "--dereference --diff --exclude-backups --exclude-caches --exclude-caches-all "
        "--exclude-caches-under --exclude-vcs --exclude-vcs-ignores --extract --force-local "
        "--full-time --get --gunzip --gzip --hard-dereference --ignore-case "
        "--ignore-command-error --ignore-failed-read --ignore-zeros --incremental --interactive "
        "--keep-directory-symlink --keep-newer-files --keep-old-files --list --lzip --lzma "
        "--lzop --multi-volume --no-acls --no-anchored --no-auto-compress --no-check-device "
        "--no-delay-directory-restore --no-ignore-case --no-ignore-command-error --no-null "
        "--no-overwrite-dir --no-recursion --no-same-owner --no-same-permissions --no-seek "
        "--no-selinux --no-unquote --no-verbatim-files-from --no-wildcards "
        "--no-wildcards-match-slash --no-xattrs --null --numeric-owner --old-archive "
        "--one-file-system --overwrite --overwrite-dir --portability --posix --preserve-order "
        "--preserve-permissions --read-full-records --recursion --recursive-unlink --restrict "
        "--same-order --same-owner --same-permissions --seek --selinux --show-defaults "
        "--show-omitted-dirs --show-snapshot-field-ranges --show-stored-names "
        "--show-transformed-names --skip-old-files --sparse --test-label --to-stdout --touch "
        "--uncompress --ungzip --unlink-first --unquote --update --usage --utc "
        "--verbatim-files-from --verbose --verify --wildcards --wildcards-match-slash --xattrs "
        "--xz --zstd -? " + HELP,
        "-C -H -K -L -V -b --add-file --blocking-factor --directory --exclude "
        "--exclude-ignore --exclude-ignore-recursive --exclude-tag --exclude-tag-all "
        "--exclude-tag-under --format --group --hole-detection --label --level --mode --mtime "
        "--no-quote-chars --owner --pax-option --quote-chars --quoting-style --record-size "
        "--sort --sparse-version --starting-file --strip-components --suffix --tape-length "
        "--transform --warning --xattrs-exclude --xattrs-include --xform",
        "--atime-preserve --backup --checkpoint --occurrence --one-top-level --totals",
        rows=(
            row("-f --file", Kind.SAFE, "names the archive (judged apart)"),
            row("-T --files-from -X --exclude-from", Kind.READ, "reads names or patterns"),
            row("--owner-map --group-map", Kind.READ, "reads a map of owners from FILE"),
            row("-N --newer --after-date --newer-mtime", Kind.READ, "compares with a date or FILE"),
            row("-g --listed-incremental --index-file --volno-file", Kind.WRITE, "writes FILE"),
            row("-I --use-compress-program", Kind.RUNS, "runs a program to (de)compress"),
            row("--to-command", Kind.RUNS, "runs a shell command for every member"),
            row("-F --info-script --new-volume-script", Kind.RUNS, "runs a script per volume"),
            row("--rsh-command --rmt-command", Kind.RUNS, "runs a program to reach the archive"),
            row("--checkpoint-action", Kind.SAFE, "acts at each checkpoint (judged apart)"),
            row("--remove-files", Kind.SAFE, "deletes what it archived (judged apart)", Arg.NONE),
        ),
    ),
)
TAR_VALUED_LETTERS = frozenset("CHKLVbfgFINTX")
CREATING: tuple[str, ...] = ("-c", "--create", "-r", "--append", "-u", "--update", "--delete")
CREATING += ("-A", "--catenate", "--concatenate")
EXTRACTING = ("-x", "--extract", "--get")
HARMLESS_CHECKPOINT = ("bell", "dot", "echo", "sleep", "totals", "ttyout", "wait", ".")


def _old_style(args: list[Word]) -> list[Word]:
    """``tar cfb ARCHIVE 20 files``: the first word's letters are options, and those that take
    a value take the next words in order."""
    if not args or not args[0].literal or args[0].text.startswith("-") or not args[0].text:
        return args
    letters = args[0].text
    out: list[Word] = []
    rest = list(args[1:])
    for letter in letters:
        out.append(Word("-" + letter, "-" + letter))
        if letter in TAR_VALUED_LETTERS and rest:
            out.append(rest.pop(0))
    return out + rest


def judge_tar(w: Walker, command: SimpleCommand, base: str) -> bool:
    a = w.a
    args = _old_style(command.words[1:])
    parsed = check(w, command, TAR, args=args)
    for value in parsed.values("--checkpoint-action"):
        action = value.text.split("=", 1)[0]
        if action not in HARMLESS_CHECKPOINT:
            a.note_unseen(f"tar: --checkpoint-action={value.shown} runs a command")
    archives = parsed.values("-f", "--file")
    local = parsed.has("--force-local")
    for archive in archives:
        head = archive.text.split("/", 1)[0]
        if ":" in head and not local:
            a.note_unseen(f"tar: the archive {archive.shown} is on another host (reached by rsh)")
    if parsed.has(*CREATING):
        for archive in archives:
            if archive.text not in ("-", "/dev/stdout"):
                a.writes.append(FileWrite(archive, "tar archive"))
        a.tree_reads.extend(parsed.operands)
    elif archives:
        a.reads.extend(archives)
    if parsed.has(*EXTRACTING) and not parsed.has("-O", "--to-stdout", "--to-command"):
        _extraction(w, parsed)
    if parsed.has("--remove-files"):
        for word in parsed.operands:
            a.writes.append(FileWrite(word, "tar --remove-files", tree=True))
    return True


def _extraction(w: Walker, parsed: Parsed) -> None:
    """``tar -x`` writes the members the archive names, known only when it runs: below the
    directory (``-C`` or the working one) — GNU tar drops a leading ``/`` and refuses ``..``
    — through the links already there; anywhere with ``-P`` or a name ``--transform``
    rewrites, or when several ``-C`` chain."""
    a = w.a
    places = parsed.values("-C", "--directory")
    how = "tar -x (the files the archive names)"
    if parsed.has("-P", "--absolute-names", "--transform", "--xform") or len(places) > 1:
        a.writes.append(FileWrite(Word(DYN, ""), how))
        return
    place = places[0] if places else Word(".", ".")
    a.writes.append(FileWrite(place, how, tree=True, through_links=True))


ZIP = Table(
    "zip",
    options(
        "-0 -1 -2 -3 -4 -5 -6 -7 -8 -9 -@ -A -D -F -FF -FS -J -L -MM -R -S -T -U -UN -V -X -c -d "
        "-db -dc -dd -dg -du -dv -e -f -g -h -h2 -j -k -l -la -ll -nw -o -q -r -sc -sd -so -sp "
        "-su -sv -u -v -w -ws -y -z --fix --fixfix --filesync --junk-sfx --recurse-patterns "
        "--system-hidden --test --no-extra --latin1 --to-crlf --from-crlf --display-bytes "
        "--display-counts --display-dots --display-globaldots --display-usize --display-volume "
        "--encrypt --freshen --grow --junk-paths --logappend --must-match --no-wild "
        "--quiet --recurse-paths --show-command --show-files --show-unicode --split-bell "
        "--split-pause --split-verbose --translate-eol --update --verbose --wild-stop-dirs "
        "--help --version --license",
        "-P -Z -ds -n -s -t -tt --compression-method --dot-size --password --split-size "
        "--suffixes --after-date --before-date",
        rows=(
            row("-TT --unzip-command", Kind.RUNS, "runs a program to test the archive"),
            row("-O --output-file", Kind.WRITE, "writes the archive to FILE"),
            row("-lf --logfile-path", Kind.WRITE, "writes its log to FILE"),
            row("-b --temp-path", Kind.WRITE_DIR, "writes its temporary file in DIR"),
            row("-m --move", Kind.SAFE, "deletes the files it adds (judged apart)", Arg.NONE),
            row("-x --exclude -i --include", Kind.SAFE, "a list of patterns (judged apart)"),
        ),
    ),
    clusters=False,
)


def judge_zip(w: Walker, command: SimpleCommand, base: str) -> bool:
    """zip's ``-x``/``-i`` take every word up to the next option: patterns, not files."""
    a = w.a
    args: list[Word] = []
    patterns = False
    for word in command.words[1:]:
        if word.text in ("-x", "-i", "--exclude", "--include"):
            patterns = True
            continue
        if patterns and not word.text.startswith("-"):
            continue
        patterns = False
        args.append(word)
    parsed = check(w, command, ZIP, args=[x for word in args for x in _split(word)])
    operands = parsed.operands
    if operands:
        a.writes.append(FileWrite(operands[0], "zip archive"))
        sources = operands[1:]
        recursive = parsed.has("-r", "--recurse-paths", "-R", "--recurse-patterns")
        (a.tree_reads if recursive else a.reads).extend(sources)
        if parsed.has("-m", "--move"):
            for word in sources:
                a.writes.append(FileWrite(word, "zip -m (deletes it)", tree=recursive))
    return True


def _split(word: Word) -> list[Word]:
    """``-qr`` is ``-q -r`` to zip; its two-letter options (``-FF``, ``-TT``, ``-lf``…) are
    whole words."""
    text = word.text
    if text.startswith("--") or not text.startswith("-") or text == "-" or text in ZIP.options:
        return [word]
    if not word.literal or any("-" + c not in ZIP.options for c in text[1:]):
        return [word]
    return [Word("-" + c, "-" + c) for c in text[1:]]


JUDGES: dict[str, Callable[[Walker, SimpleCommand, str], bool]] = {
    "tar": judge_tar,
    "gtar": judge_tar,
    "zip": judge_zip,
}
