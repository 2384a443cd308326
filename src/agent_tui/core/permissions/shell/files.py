"""Which files a command writes and reads, for the file rules and the read-deny rules.

Writes: the known file-writing forms (a maintained table) — ``tee``, ``dd of=``,
``cp``/``mv``/``install``/``ln`` targets, ``touch``, ``rm`` and friends, ``sort -o``, ``curl -o``,
``wget``, ``find -delete``, ``tar c -f``, ``zip``, ``rsync`` (and git's, in ``git``). Each becomes a
``FileWrite`` that the pipeline judges like a ``write_file`` of that path. What a program
writes on its own (a build, a package manager, archive extraction) is not seen here.

Reads: every literal argument may name a file the command reads, and is checked against the
read-deny rules; an argument known only at run time to a program that reads files is noted as
an unknown read. Programs that read whole trees (``grep -r``, ``rg``, ``tar c``, ``cp -r``)
note their directories as tree reads.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from agent_tui.core.permissions.shell.model import (
    DYN,
    FileWrite,
    ShellAnalysis,
    SimpleCommand,
    Word,
)
from agent_tui.core.permissions.shell.options import Scan, has, scan, values
from agent_tui.core.permissions.shell.programs import NO_FILE_READS

if TYPE_CHECKING:
    from agent_tui.core.permissions.shell.walking import Walker


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


def note_reads(a: ShellAnalysis, words: list[Word], base: str) -> None:
    """Arguments of ``base`` that may name files it reads."""
    for word in words:
        if word.literal or word.glob:
            a.reads.append(word)
        elif base not in NO_FILE_READS:
            a.reads.append(word)
            a.unknown_reads.append((f"{base or 'a command'} {word.shown[:60]}", word))


def _write(a: ShellAnalysis, word: Word, how: str, tree: bool = False) -> None:
    if word.text in ("-", "/dev/null", "/dev/stdout", "/dev/stderr"):
        return
    a.writes.append(FileWrite(word, how, tree))


def _into(directory: Word, source: Word) -> Word:
    name = os.path.basename(source.text.rstrip("/")) if DYN not in source.text else DYN
    text = directory.text.rstrip("/") + "/" + name
    return Word(text, text, directory.glob or source.glob)


CP_VALUED = {
    "cp": _set("-S -t --suffix --target-directory"),
    "mv": _set("-S -t --suffix --target-directory"),
    "ln": _set("-S -t --suffix --target-directory"),
    "install": _set(
        "-m -o -g -S -t --mode --owner --group --suffix --target-directory --strip-program"
    ),
}
SIMPLE_WRITERS = {
    "touch": _set("-d -t -r --date --reference --time"),
    "truncate": _set("-s -r --size --reference"),
    "mkdir": _set("-m --mode --context"),
    "rmdir": frozenset(),
    "rm": frozenset(),
    "unlink": frozenset(),
    "shred": _set("-n -s --iterations --size --random-source"),
    "mkfifo": _set("-m --mode --context"),
    "tee": frozenset(),
}
MODE_WRITERS = {"chmod", "chown", "chgrp"}
GREP = {"grep", "egrep", "fgrep", "zgrep"}
GREP_VALUED = _set(
    "-e -f -m -A -B -C -d -D --regexp --file --max-count --after-context --before-context "
    "--context --directories --devices --include --exclude --exclude-dir --exclude-from --label "
    "--binary-files --group-separator"
)
RG_VALUED = _set(
    "-e -f -g -t -T -m -A -B -C -j -M -E -r --regexp --file --glob --iglob --type --type-not "
    "--max-count --after-context --before-context --context --threads --max-columns --encoding "
    "--replace --max-depth --sort --sortr --type-add --type-clear --ignore-file --max-filesize "
    "--path-separator --colors --color --engine --dfa-size-limit --regex-size-limit "
    "--field-match-separator --field-context-separator --context-separator --hostname-bin "
    "--hyperlink-format --pre-glob --pre"
)


def command_files(w: Walker, command: SimpleCommand, base: str) -> None:
    a = w.a
    args = command.words[1:]
    if command.extra_args and base not in NO_FILE_READS:  # xargs cat: names known at run time
        a.unknown_reads.append((f"{base} with arguments read at run time", None))
    recursive = _recursive_flag(args)
    if base in CP_VALUED:
        _copy(a, base, args, recursive)
    elif base in SIMPLE_WRITERS:
        found = scan(args, SIMPLE_WRITERS[base])
        tree = base == "rm" and recursive
        for word in found.operands:
            _write(a, word, base, tree)
        if base == "touch":
            note_reads(a, list(values(found, _set("-r --reference"))), base)
    elif base in MODE_WRITERS:
        found = scan(args, _set("--reference --from"))
        operands = (
            found.operands
            if any(o.name == "--reference" for o in found.options)
            else found.operands[1:]
        )
        for word in operands:
            _write(a, word, base, recursive)
    elif base == "dd":
        for word in args:
            key, eq, value = word.text.partition("=")
            if eq and key == "of":
                _write(a, Word(value, value, word.glob), "dd of=")
            elif eq and key == "if":
                note_reads(a, [Word(value, value, word.glob)], base)
        return
    elif base == "curl":
        _curl(a, args)
    elif base == "wget":
        _wget(a, args)
    elif base == "git":
        from agent_tui.core.permissions.shell.git import analyse_git

        analyse_git(w, command, args)
    elif base == "bsdtar":
        _tar(a, args)
    elif base in GREP or base in ("rg", "ag", "ack", "ack-grep", "git-grep"):
        _grep(a, base, args)
        return
    elif base in ("patch",):
        found = scan(
            args,
            _set(
                "-p -o -i -d -r -D -F -z -B -Y -V --strip --output --input "
                "--directory --reject-file --suffix"
            ),
        )
        outputs = list(values(found, _set("-o --output")))
        for word in outputs or found.operands[:1]:
            _write(a, word, "patch")
        if not outputs and not found.operands:
            _write(a, Word(DYN, ""), "patch (the files its diff names)")
    note_reads(a, args, base)


def _recursive_flag(args: list[Word]) -> bool:
    for word in args:
        text = word.text
        if text in ("--recursive", "--dereference-recursive", "--archive"):
            return True
        if text.startswith("-") and not text.startswith("--") and any(c in text[1:] for c in "rRa"):
            return True
    return False


def _copy(a: ShellAnalysis, base: str, args: list[Word], recursive: bool) -> None:
    found = scan(args, CP_VALUED[base])
    target_dir = next(values(found, _set("-t --target-directory")), None)
    operands = found.operands
    if base == "install" and has(found, _set("-d --directory")):
        for word in operands:
            _write(a, word, "install -d")
        return
    sources = operands if target_dir is not None else operands[:-1]
    if target_dir is None and len(operands) >= 2:
        dest = operands[-1]
        is_dir = dest.literal and os.path.isdir(dest.text)
        if (len(sources) > 1 or is_dir or dest.text.endswith("/")) and not has(
            found, _set("-T --no-target-directory")
        ):
            target_dir = dest
        else:
            _write(a, dest, f"{base} target", recursive)
    if target_dir is not None:
        for source in sources:
            _write(a, _into(target_dir, source), f"{base} target", recursive)
    if base == "mv":
        for source in sources:
            _write(a, source, "mv source", True)
    elif base in ("cp", "install") and recursive:
        a.tree_reads.extend(sources)


def _curl(a: ShellAnalysis, args: list[Word]) -> None:
    writes = _set(
        "-o --output -D --dump-header -c --cookie-jar --trace --trace-ascii --stderr "
        "--libcurl --etag-save --hsts --alt-svc"
    )
    valued = writes | _set(
        "-d --data --data-binary --data-raw --data-urlencode -F --form -H --header -u --user "
        "-X --request -A --user-agent -e --referer -b --cookie -T --upload-file -K --config "
        "--output-dir -w --write-out -x --proxy -m --max-time --connect-timeout -r --range "
        "-E --cert --key --cacert --json"
    )
    found = scan(args, valued)
    for option in found.options:
        if option.name in writes and option.value is not None:
            _write(a, option.value, f"curl {option.name}")
        if option.name in ("-K", "--config"):
            a.note_opaque("curl -K (a config file can set where it writes)")
    if has(found, _set("-O --remote-name --remote-name-all -J --remote-header-name")):
        directory = next(values(found, _set("--output-dir")), Word(".", "."))
        _write(a, _into(directory, Word(DYN, "")), "curl -O")
    note_reads(a, [o.value for o in found.options if o.value is not None], "curl")


def _wget(a: ShellAnalysis, args: list[Word]) -> None:
    valued = _set(
        "-O -o -a -P -i -e -t -T -w -U -Q --output-document --output-file "
        "--append-output --directory-prefix --input-file --execute --tries --timeout "
        "--wait --user-agent --quota --post-file --post-data --header --user "
        "--password --body-file --load-cookies --save-cookies --config"
    )
    found = scan(args, valued)
    documents = list(values(found, _set("-O --output-document")))
    for word in documents:
        _write(a, word, "wget -O")
    for word in values(found, _set("-o --output-file -a --append-output --save-cookies")):
        _write(a, word, "wget log")
    if not documents:
        directory = next(values(found, _set("-P --directory-prefix")), Word(".", "."))
        _write(a, _into(directory, Word(DYN, "")), "wget (a file named by the URL)")
    if has(found, _set("-e --execute --config")):
        a.note_opaque("wget -e / --config (commands that can change where it writes)")


def _tar(a: ShellAnalysis, args: list[Word]) -> None:
    if not args:
        return
    words = list(args)
    first = words[0].text
    if first and not first.startswith("-") and first.isalpha():
        words[0] = Word("-" + first, words[0].raw)
    found: Scan = scan(
        words,
        _set(
            "-f -C -T -X -b -g -H -I -K -N -V --file --directory "
            "--files-from --exclude-from --exclude --use-compress-program "
            "--to-command --info-script --new-volume-script "
            "--checkpoint-action --format --owner --group --mode --transform"
        ),
    )
    names = {o.name for o in found.options}
    if names & _set(
        "-I --use-compress-program --to-command --info-script "
        "--new-volume-script --checkpoint-action -F"
    ):
        a.note_unseen("tar runs a program given in its options")
    creating = bool(names & _set("-c --create -r --append -u --update"))
    if creating:
        for word in values(found, _set("-f --file")):
            _write(a, word, "tar archive")
        a.tree_reads.extend(found.operands)


def _grep(a: ShellAnalysis, base: str, args: list[Word]) -> None:
    valued = RG_VALUED if base == "rg" else GREP_VALUED
    found = scan(args, valued)
    if base == "rg" and has(found, _set("--pre")):
        a.note_unseen("rg --pre runs a program on each file")
    patterns_given = has(found, _set("-e -f --regexp --file"))
    operands = found.operands if patterns_given else found.operands[1:]
    pattern_words = [] if patterns_given else found.operands[:1]
    a.texts.extend(word.text for word in pattern_words)
    recursive = (
        base in ("rg", "ag", "ack", "ack-grep")
        or any(
            o.name in ("-r", "-R", "--recursive", "--dereference-recursive") for o in found.options
        )
        or any(
            o.name in ("-d", "--directories") and o.value is not None and o.value.text == "recurse"
            for o in found.options
        )
    )
    if recursive and base in ("rg", "ag", "ack", "ack-grep") and has(found, _set("--files")):
        operands = found.operands
        if base == "rg":
            recursive = False  # it lists the names it would search, reading none (redteam3)
            operands = []
    if recursive:
        filters = _grep_filters(base, found)
        for root in operands or [Word(".", ".")]:
            if filters is not None:
                a.tree_filters[len(a.tree_reads)] = filters
            a.tree_reads.append(root)
    else:
        note_reads(a, operands, base)
    note_reads(
        a,
        [
            o.value
            for o in found.options
            if o.value is not None and o.name in ("-f", "--file", "--exclude-from", "--ignore-file")
        ],
        base,
    )


RG_TYPES: dict[str, tuple[str, ...]] = {
    "py": ("*.py", "*.pyi", "*.pyw"),
    "python": ("*.py", "*.pyi", "*.pyw"),
    "js": ("*.js", "*.jsx", "*.mjs", "*.cjs", "*.vue"),
    "ts": ("*.ts", "*.tsx", "*.cts", "*.mts"),
    "rust": ("*.rs",),
    "go": ("*.go",),
    "md": ("*.md", "*.markdown", "*.mdx"),
    "markdown": ("*.md", "*.markdown", "*.mdx"),
    "json": ("*.json",),
    "yaml": ("*.yaml", "*.yml"),
    "toml": ("*.toml",),
    "c": ("*.c", "*.h"),
    "cpp": ("*.cpp", "*.cc", "*.cxx", "*.hpp", "*.hh", "*.h"),
    "java": ("*.java",),
    "sh": ("*.sh", "*.bash", "*.zsh"),
    "html": ("*.html", "*.htm"),
    "css": ("*.css", "*.scss", "*.sass"),
    "rb": ("*.rb",),
    "ruby": ("*.rb",),
    "txt": ("*.txt",),
}


def _grep_filters(base: str, found: Scan) -> tuple[str, ...] | None:
    """The file-name globs a recursive search is limited to, or None (every file)."""
    globs: list[str] = []
    for option in found.options:
        value = option.value
        if value is None:
            continue
        if not value.literal:
            return None
        if base == "rg" and option.name in ("-g", "--glob", "--iglob"):
            if value.text.startswith("!"):
                continue  # an exclusion narrows nothing we rely on
            globs.append(value.text)
        elif base == "rg" and option.name in ("-t", "--type"):
            known = RG_TYPES.get(value.text)
            if known is None:
                return None
            globs.extend(known)
        elif base != "rg" and option.name == "--include":
            globs.append(value.text)
    return tuple(globs) or None
