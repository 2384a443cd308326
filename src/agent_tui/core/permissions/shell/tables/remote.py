"""``ssh``, ``scp`` (OpenSSH 9) and ``rsync`` (3.2): their options that run a program here.

ssh runs local programs through its configuration: ``-o ProxyCommand=…``, ``LocalCommand``
(with ``PermitLocalCommand``), ``KnownHostsCommand``, ``XAuthLocation``, a PKCS#11 or security
key library (``-I``, ``PKCS11Provider``, ``SecurityKeyProvider``), and any of them from a
configuration file (``-F``, ``-o Include=…``). ``-o`` keys are allow-listed (ssh reads them
without regard to case); ssh reads options both before and after the destination (``ssh host
-o ProxyCommand=…``); what follows runs on the remote host. scp adds ``-S program`` and ``-D
sftp-server``. rsync runs ``-e``/``--rsh`` (split into words by rsync itself), asks the other
side to run ``--rsync-path``, writes ``--log-file``, ``--write-batch``, ``--backup-dir``,
``--temp-dir``, and with ``--remove-source-files`` deletes what it sent.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agent_tui.core.permissions.shell.model import FileWrite, SimpleCommand, Word
from agent_tui.core.permissions.shell.option_table import (
    Arg,
    Kind,
    Parsed,
    Table,
    check,
    options,
    row,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from agent_tui.core.permissions.shell.walking import Walker

SSH_CONFIG = "reads an ssh configuration, which can run commands (ProxyCommand, LocalCommand)"
SSH_RUNS = frozenset(
    [
        "proxycommand",
        "localcommand",
        "permitlocalcommand",
        "knownhostscommand",
        "xauthlocation",
        "pkcs11provider",
        "securitykeyprovider",
        "include",
        "match",
    ]
)
SSH_WRITES = frozenset(
    ["userknownhostsfile", "globalknownhostsfile", "controlpath", "identityagent"]
)
SSH_READS = frozenset(["identityfile", "certificatefile", "revokedhostkeys"])
SSH_SAFE = frozenset(
    [
        "addkeystoagent",
        "addressfamily",
        "batchmode",
        "bindaddress",
        "bindinterface",
        "canonicaldomains",
        "canonicalizefallbacklocal",
        "canonicalizehostname",
        "canonicalizemaxdots",
        "canonicalizepermittedcnames",
        "casignaturealgorithms",
        "challengeresponseauthentication",
        "checkhostip",
        "ciphers",
        "clearallforwardings",
        "compression",
        "connectionattempts",
        "connecttimeout",
        "controlmaster",
        "controlpersist",
        "dynamicforward",
        "enableescapecommandline",
        "enablesshkeysign",
        "escapechar",
        "exitonforwardfailure",
        "fingerprinthash",
        "forkafterauthentication",
        "forwardagent",
        "forwardx11",
        "forwardx11timeout",
        "forwardx11trusted",
        "gatewayports",
        "gssapiauthentication",
        "gssapidelegatecredentials",
        "hashknownhosts",
        "hostbasedacceptedalgorithms",
        "hostbasedauthentication",
        "hostkeyalgorithms",
        "hostkeyalias",
        "hostname",
        "identitiesonly",
        "ipqos",
        "kbdinteractiveauthentication",
        "kbdinteractivedevices",
        "kexalgorithms",
        "localforward",
        "loglevel",
        "logverbose",
        "macs",
        "nohostauthenticationforlocalhost",
        "numberofpasswordprompts",
        "passwordauthentication",
        "port",
        "preferredauthentications",
        "proxyjump",
        "pubkeyacceptedalgorithms",
        "pubkeyacceptedkeytypes",
        "pubkeyauthentication",
        "rekeylimit",
        "remotecommand",
        "remoteforward",
        "requesttty",
        "requiredrsasize",
        "sendenv",
        "serveraliveinterval",
        "serveralivecountmax",
        "sessiontype",
        "setenv",
        "stdinnull",
        "streamlocalbindmask",
        "streamlocalbindunlink",
        "stricthostkeychecking",
        "tcpkeepalive",
        "tunnel",
        "tunneldevice",
        "updatehostkeys",
        "user",
        "verifyhostkeydns",
        "visualhostkey",
    ]
)
SSH = Table(
    "ssh",
    options(
        "-4 -6 -A -C -G -K -M -N -T -V -X -Y -a -f -g -k -n -q -s -t -v -x -y",
        "-B -D -J -L -O -Q -R -W -b -c -e -l -m -p -w",
        rows=(
            row("-i", Kind.READ, "reads an identity (key) file"),
            row("-E", Kind.WRITE, "writes its log to FILE"),
            row("-S", Kind.WRITE, "makes a control socket at PATH"),
            row("-F", Kind.OPAQUE, SSH_CONFIG),
            row("-I", Kind.RUNS, "loads a PKCS#11 library (machine code)"),
            row("-o", Kind.SAFE, "sets a configuration key (checked apart)"),
        ),
    ),
    permute=False,
)
SCP = Table(
    "scp",
    options(
        "-3 -4 -6 -A -B -C -O -R -T -p -q -r -s -v",
        "-J -P -X -c -l",
        rows=(
            row("-i", Kind.READ, "reads an identity (key) file"),
            row("-F", Kind.OPAQUE, SSH_CONFIG),
            row("-S", Kind.RUNS, "runs a program instead of ssh"),
            row("-D", Kind.RUNS, "runs a local sftp server program"),
            row("-o", Kind.SAFE, "sets a configuration key (checked apart)"),
        ),
    ),
)


def _ssh_options(w: Walker, parsed: Parsed, name: str) -> None:
    a = w.a
    for value in parsed.values("-o"):
        match = re.match(r"\s*([A-Za-z0-9]+)\s*(?:=\s*|\s+)?(.*)", value.text, re.S)
        key = match.group(1).lower() if match else ""
        setting = match.group(2) if match else ""
        if not value.literal and not match:
            a.note_opaque(f"{name}: -o {value.shown} is known only when it runs")
        elif key in SSH_RUNS:
            a.note_unseen(f"{name}: -o {value.shown} makes ssh run a program or read more config")
        elif key in SSH_WRITES:
            a.writes.append(FileWrite(Word(setting, setting), f"{name} -o {key}"))
        elif key in SSH_READS:
            a.reads.append(Word(setting, setting))
        elif key not in SSH_SAFE:
            a.note_opaque(
                f"{name}: -o {value.shown}: the key is not among those the analysis knows for "
                "ssh (only those in its table are allowed under a rule)"
            )


def judge_ssh(w: Walker, command: SimpleCommand, base: str) -> bool:
    """Options, the destination, options again (ssh reads both), then the remote command."""
    args = command.words[1:]
    parsed = check(w, command, SSH, args=args)
    _ssh_options(w, parsed, base)
    rest = args[parsed.end + 1 :] if parsed.end < len(args) else []
    if rest and not (parsed.end and args[parsed.end - 1].text == "--"):
        again = check(w, command, SSH, args=rest)
        _ssh_options(w, again, base)
    return True


def judge_scp(w: Walker, command: SimpleCommand, base: str) -> bool:
    a = w.a
    parsed = check(w, command, SCP)
    _ssh_options(w, parsed, base)
    operands = parsed.operands
    local = [word for word in operands if not _remote(word)]
    if len(operands) >= 2 and not _remote(operands[-1]):
        a.writes.append(FileWrite(operands[-1], "scp target", tree=True))
    recursive = parsed.has("-r")
    (a.tree_reads if recursive else a.reads).extend(w_ for w_ in local if w_ is not operands[-1])
    return True


def _remote(word: Word) -> bool:
    head = word.text.split("/", 1)[0]
    return ":" in head or word.text.startswith("rsync://")


RSYNC = Table(
    "rsync",
    options(
        "-0 -4 -6 -8 -A -C -D -E -F -H -I -J -K -L -N -O -P -R -S -U -W -X -a -b -c -d -g -h -i "
        "-k -l -m -n -o -p -q -r -s -t -u -v -x -y -z --8-bit-output --acls --append "
        "--append-verify --archive --atimes --backup --blocking-io --checksum --compress "
        "--copy-dirlinks --copy-links --copy-unsafe-links --crtimes --cvs-exclude --del "
        "--delay-updates --delete --delete-after --delete-before --delete-delay "
        "--delete-during --delete-excluded --delete-missing-args --devices --dirs --dry-run "
        "--executability --existing --fake-super --force --from0 --fuzzy --group --hard-links "
        "--human-readable --ignore-errors --ignore-existing --ignore-missing-args "
        "--ignore-times --inplace --ipv4 --ipv6 --itemize-changes --keep-dirlinks --links "
        "--list-only --mkpath --munge-links --no-implied-dirs --no-motd --numeric-ids "
        "--omit-dir-times --omit-link-times --one-file-system --open-noatime --owner --partial "
        "--perms --preallocate --progress --protect-args --prune-empty-dirs --quiet --recursive "
        "--relative --safe-links --secluded-args --size-only --sparse --specials --stats "
        "--super --times --trust-sender --update --verbose --whole-file --xattrs --help "
        "--version -V",
        "-B -T -f --address --block-size --bwlimit --cc --checksum-choice --checksum-seed "
        "--chmod --chown --compress-choice --compress-level --contimeout --debug --exclude "
        "--filter --groupmap --iconv --include --info --log-file-format --max-alloc "
        "--max-delete --max-size --min-size --modify-window --out-format --outbuf --port "
        "--protocol --skip-compress --sockopts --stderr --suffix --timeout "
        "--usermap --zc --zl",
        rows=(
            row("-e --rsh", Kind.RUNS, "runs a program to reach the other host"),
            row("--rsync-path", Kind.RUNS, "names the program the other side runs"),
            row("--daemon --config", Kind.OPAQUE, "runs or configures an rsync daemon"),
            row("-M --remote-option", Kind.OPAQUE, "passes options to the other side's rsync"),
            row("--log-file --write-batch --only-write-batch", Kind.WRITE, "writes FILE"),
            row("--backup-dir --temp-dir --partial-dir", Kind.WRITE_DIR, "writes into DIR"),
            row("--files-from --exclude-from --include-from --password-file", Kind.READ, "reads"),
            row("--read-batch --early-input", Kind.READ, "reads FILE"),
            row("--compare-dest --copy-dest --link-dest", Kind.READ, "compares with DIR"),
            row(
                "--remove-source-files", Kind.SAFE, "deletes what it sent (judged apart)", Arg.NONE
            ),
        ),
    ),
)


def judge_rsync(w: Walker, command: SimpleCommand, base: str) -> bool:
    a = w.a
    parsed = check(w, command, RSYNC)
    operands = parsed.operands
    if len(operands) >= 2 and not _remote(operands[-1]):
        a.writes.append(FileWrite(operands[-1], "rsync target", tree=True))
    sources = [word for word in operands[:-1] if not _remote(word)]
    a.tree_reads.extend(sources)
    if parsed.has("--remove-source-files"):
        for word in sources:
            a.writes.append(FileWrite(word, "rsync --remove-source-files", tree=True))
    return True


JUDGES: dict[str, Callable[[Walker, SimpleCommand, str], bool]] = {
    "ssh": judge_ssh,
    "scp": judge_scp,
    "rsync": judge_rsync,
}
