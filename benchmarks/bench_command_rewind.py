"""What making a command's changes rewindable costs, per command, on a 10,000-file repository.

    PYTHONPATH=src python benchmarks/bench_command_rewind.py              # 100 commands
    PYTHONPATH=src python benchmarks/bench_command_rewind.py --commands 30 --changed 10
    PYTHONPATH=src python benchmarks/bench_command_rewind.py --no-overlay   # the shadow only

With ``--journal-only``, only the first figure: the same commands in a git checkout, a full
scan after each and the capture against the change journal's drains (``core.checkpoints.journal``)
before and after it and the capture, interleaved in one run.

Two designs (issue 44), each measured around a command that rewrites ``--changed`` files:

**Snapshot** (``core.checkpoints.shadow``, built): the workspace's shadow keeps every file's
content, deduplicated, in the blob store. The first snapshot (a scan and every file kept) is
timed apart, in a plain directory and in a git checkout of the same files (committed, the index
written: the files git holds unchanged are kept as their object id, not read); per command: the
scan after it and ``Shadow.capture`` (the changed files'
pre-images come from the shadow, their new content is kept), the records built. The
checkout is measured twice: with the shadow's one ``git cat-file --batch`` kept running, and
with a new one started for each capture (as before cap45; the start timed). The command
itself is a Python rewrite of the files (its own cost is not counted); in the checkout every
command changes files not changed before, so each capture fetches their pre-images from git.
Storage: the blob store after all the commands, against the workspace's size. Last, the shadow
is saved as a closing session saves it and timed as a resumed session loads it and refreshes.

**Overlay**: the command runs with the workspace mounted as an overlay (``unshare -rm`` and
``mount -t overlay``: bubblewrap 0.8.0, installed here, has no ``--overlay``; that came in
0.9.0); afterwards the upper directory is read, the pre-images (the lower files) kept and the
changes copied into the workspace. Per command: the overlay run minus the same command run
plainly, plus reading and applying the upper directory.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FILES = 10_000
DIRS = 100


def _repository(root: Path) -> int:
    """10,000 text files of 300 B to 6 KB in 100 directories; the bytes written."""
    total = 0
    for d in range(DIRS):
        sub = root / f"pkg{d:03}"
        sub.mkdir(parents=True)
        for f in range(FILES // DIRS):
            body = "".join(f"line {i} of file {d}/{f}\n" for i in range(10 + (d * f) % 240))
            (sub / f"mod{f:03}.py").write_text(body)
            total += len(body)
    (root / ".gitignore").write_text("build/\n")
    return total


def _victims(root: Path, command: int, changed: int) -> list[Path]:
    return [root / f"pkg{(command * 7 + k) % DIRS:03}" / f"mod{k:03}.py" for k in range(changed)]


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _du(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def _commit(root: Path) -> None:
    """Make ``root`` a git checkout of its files, as a clone leaves it: the index written
    after the files (a second later: none "racily clean")."""
    git = ["git", "-c", "user.name=b", "-c", "user.email=b@b", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "files"], cwd=root, check=True)
    time.sleep(1.1)
    os.utime(root / ".git" / "index")  # what the next `git status` would leave


def bench_snapshot(
    root: Path, data: Path, commands: int, changed: int, *, git_per_command: bool = False
) -> dict[str, float]:
    from agent_tui.core.checkpoints.blobs import BlobStore
    from agent_tui.core.checkpoints.catfile import CatFile
    from agent_tui.core.checkpoints.scan import scan_workspace
    from agent_tui.core.checkpoints.shadow import Shadow
    from agent_tui.core.checkpoints.shadow_index import load_shadow, save_shadow

    blobs = BlobStore(data / "blobs")
    shadow = Shadow(str(root), blobs)
    start = time.perf_counter()
    before = scan_workspace(str(root), ignores=True)
    shadow.refresh(before)
    first = time.perf_counter() - start
    read, from_git = shadow.kept, shadow.from_git
    costs: list[float] = []
    captures: list[float] = []
    records = 0
    for n in range(commands):
        for path in _victims(root, n, changed):  # the command (not timed)
            path.write_text(path.read_text() + f"# command {n}\n")
        if git_per_command:  # as before cap45: a git started for each capture (timed)
            shadow.git.close()
            shadow.git = CatFile(str(root))
        start = time.perf_counter()
        after = scan_workspace(str(root), ignores=True)
        scanned = time.perf_counter()
        found, unkept = shadow.capture(before, after, "t")
        costs.append(time.perf_counter() - start)
        captures.append(time.perf_counter() - scanned)
        if unkept or len(found) != 2 * changed:
            raise SystemExit(f"capture found {len(found)} records, not kept {unkept}")
        records += len(found)
        before = after
    shadow.close()
    save_shadow(shadow, data / "shadow.json")  # the session closes; then it is resumed
    again = Shadow(str(root), blobs)
    start = time.perf_counter()
    load_shadow(again, data / "shadow.json")
    again.refresh(scan_workspace(str(root), ignores=True))
    resumed = time.perf_counter() - start
    return {
        "resumed": resumed,
        "resumed_read": again.kept,
        "first": first,
        "p50": statistics.median(costs),
        "p95": _pct(costs, 0.95),
        "capture50": statistics.median(captures),
        "capture95": _pct(captures, 0.95),
        "storage": _du(blobs.root),
        "records": records,
        "read": read,
        "from_git": from_git,
    }


def bench_journal(root: Path, data: Path, commands: int, changed: int) -> dict[str, float]:
    """Per command, interleaved on the same changes: a full scan after the command and the
    capture (as built before the journal), against the journal's drains before and after the
    command and the capture; two shadows, so that each capture has the command's changes."""
    from agent_tui.core.checkpoints.blobs import BlobStore
    from agent_tui.core.checkpoints.journal import Journal
    from agent_tui.core.checkpoints.scan import scan_workspace
    from agent_tui.core.checkpoints.shadow import Shadow

    full_shadow = Shadow(str(root), BlobStore(data / "full"))
    journal_shadow = Shadow(str(root), BlobStore(data / "journal"))
    journal = Journal(str(root), ignores=True)
    full_before = scan_workspace(str(root), ignores=True)
    full_shadow.refresh(full_before)
    journal_before = journal.scan()
    journal_shadow.refresh(journal_before)
    full: list[float] = []
    drained: list[float] = []
    for n in range(commands):
        start = time.perf_counter()  # the scan before the command: a drain (nothing happened)
        journal_before = journal.scan()
        pre = time.perf_counter() - start
        for path in _victims(root, n, changed):  # the command (not timed)
            path.write_text(path.read_text() + f"# command {n}\n")
        for which in (0, 1) if n % 2 else (1, 0):
            start = time.perf_counter()
            if which == 0:
                after = scan_workspace(str(root), ignores=True)
                found, _ = full_shadow.capture(full_before, after, "t")
                full.append(time.perf_counter() - start)
                full_before = after
            else:
                after = journal.scan()
                found, _ = journal_shadow.capture(journal_before, after, "t")
                drained.append(time.perf_counter() - start + pre)
                journal_before = after
            if len(found) != 2 * changed:
                raise SystemExit(f"capture found {len(found)} records")
        if journal_before.files != full_before.files or journal_before.seen != full_before.seen:
            raise SystemExit("the journal's scan is not the full scan's")
    full_shadow.close()
    journal_shadow.close()
    if journal.full_scans != 1:
        raise SystemExit(f"the journal gave up: {journal.full_scans} full scans")
    journal.close()
    return {
        "full50": statistics.median(full),
        "full95": _pct(full, 0.95),
        "journal50": statistics.median(drained),
        "journal95": _pct(drained, 0.95),
    }


def bench_fetch(root: Path, rounds: int, changed: int) -> dict[str, float]:
    """The pre-images' fetch alone, ``changed`` objects a round: the shadow's long-lived
    ``cat-file`` against one started for the round (as before cap45), the two interleaved
    round by round so that a load that comes and goes weighs on both alike."""
    from agent_tui.core.checkpoints.catfile import CatFile

    listing = subprocess.run(
        ["git", "ls-tree", "-r", "-l", "HEAD"], cwd=root, capture_output=True, check=True
    ).stdout.decode()
    objects = [(p[2], int(p[3])) for line in listing.splitlines() if (p := line.split())]
    kept = CatFile(str(root))
    warm: list[float] = []
    cold: list[float] = []
    for n in range(rounds):
        for times, fresh in ((warm, False), (cold, True)):
            at = (2 * n + fresh) * changed % len(objects)
            wanted = dict(objects[at : at + changed])
            git = CatFile(str(root)) if fresh else kept
            start = time.perf_counter()
            got = git.fetch("sha1", wanted)
            times.append(time.perf_counter() - start)
            if fresh:
                git.close()
            if len(got) != len(wanted):
                raise SystemExit(f"fetched {len(got)} of {len(wanted)}")
    kept.close()
    return {
        "warm50": statistics.median(warm),
        "warm95": _pct(warm, 0.95),
        "cold50": statistics.median(cold),
        "cold95": _pct(cold, 0.95),
    }


def _overlay_run(lower: Path, upper: Path, work: Path, script: str) -> None:
    mount = f"mount -t overlay overlay -o lowerdir={lower},upperdir={upper},workdir={work} {lower}"
    subprocess.run(["unshare", "-rm", "sh", "-c", f"{mount} && cd {lower} && {script}"], check=True)


def _apply_upper(upper: Path, lower: Path, keep: Path) -> int:
    """Keep the pre-image of each file the upper directory holds, then copy it down."""
    import hashlib

    count = 0
    for directory, _dirs, files in os.walk(upper):
        for name in files:
            top = Path(directory) / name
            rel = top.relative_to(upper)
            below = lower / rel
            if below.exists():
                data = below.read_bytes()
                (keep / hashlib.sha256(data).hexdigest()).write_bytes(data)
            shutil.copy2(top, below)
            count += 1
    return count


def bench_overlay(root: Path, scratch: Path, commands: int, changed: int) -> dict[str, float]:
    keep = scratch / "keep"
    keep.mkdir(parents=True)
    overhead: list[float] = []
    for n in range(commands):
        rel = [str(p.relative_to(root)) for p in _victims(root, n, changed)]
        script = " && ".join(f"echo '# command {n}' >> {r}" for r in rel)
        upper, work = scratch / f"up{n}", scratch / f"wk{n}"
        upper.mkdir()
        work.mkdir()
        start = time.perf_counter()
        subprocess.run(["sh", "-c", f"cd {root} && {script}"], check=True)
        plain = time.perf_counter() - start
        start = time.perf_counter()
        _overlay_run(root, upper, work, script)
        applied = _apply_upper(upper, root, keep)
        overlaid = time.perf_counter() - start
        assert applied == changed, applied
        overhead.append(overlaid - plain)
        shutil.rmtree(upper)
        shutil.rmtree(work, ignore_errors=True)
    return {
        "p50": statistics.median(overhead),
        "p95": _pct(overhead, 0.95),
        "storage": _du(keep),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--commands", type=int, default=100)
    parser.add_argument("--changed", type=int, default=10)
    parser.add_argument("--no-overlay", action="store_true", help="the shadow only")
    parser.add_argument("--journal-only", action="store_true", help="full scan against journal")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        os.environ["AGENT_TUI_DATA_DIR"] = str(base / "data")
        root = base / "repo"
        size = _repository(root)
        print(f"repository: {FILES:,} files, {size / 1e6:.1f} MB; {args.changed} files a command")
        checkout = base / "checkout"
        _repository(checkout)
        _commit(checkout)
        again = base / "checkout-again"  # a clean one: the first run changed the other's files
        _repository(again)
        _commit(again)
        journaled = base / "journaled"
        _repository(journaled)
        _commit(journaled)
        both = bench_journal(journaled, base / "jdata", args.commands, args.changed)
        print(
            f"git checkout, {args.commands} commands interleaved: full scan after and capture "
            f"p50 {both['full50'] * 1e3:.1f} ms, p95 {both['full95'] * 1e3:.1f} ms; journal "
            f"drains before and after and capture p50 {both['journal50'] * 1e3:.1f} ms, p95 "
            f"{both['journal95'] * 1e3:.1f} ms"
        )
        if args.journal_only:
            return
        cases = [
            ("plain", root, "data", False),
            ("git checkout", checkout, "gdata", False),
            ("git checkout, a git per command", again, "g1data", True),
        ]
        for name, where, data, per_command in cases:
            snap = bench_snapshot(
                where, base / data, args.commands, args.changed, git_per_command=per_command
            )
            print(
                f"snapshot, {name}: first {snap['first'] * 1e3:.0f} ms ({snap['read']:,.0f} "
                f"files read, {snap['from_git']:,.0f} kept as git objects); per command p50 "
                f"{snap['p50'] * 1e3:.1f} ms, p95 {snap['p95'] * 1e3:.1f} ms (of which capture "
                f"{snap['capture50'] * 1e3:.1f} / {snap['capture95'] * 1e3:.1f} ms); storage "
                f"after {args.commands} commands {snap['storage'] / 1e6:.2f} MB "
                f"({snap['storage'] / size:.2f}x the workspace); first snapshot of the session "
                f"resumed {snap['resumed'] * 1e3:.0f} ms ({snap['resumed_read']:,.0f} files read)"
            )
        fetched = bench_fetch(again, args.commands, args.changed)
        print(
            f"fetch of {args.changed} pre-images, {args.commands} rounds interleaved: one "
            f"cat-file kept running p50 {fetched['warm50'] * 1e3:.2f} ms, p95 "
            f"{fetched['warm95'] * 1e3:.2f} ms; one started a round p50 "
            f"{fetched['cold50'] * 1e3:.2f} ms, p95 {fetched['cold95'] * 1e3:.2f} ms"
        )
        if args.no_overlay:
            return
        try:
            over = bench_overlay(root, base / "overlay", args.commands, args.changed)
        except (OSError, subprocess.CalledProcessError) as exc:
            print(f"overlay: cannot run here ({exc})", file=sys.stderr)
            return
        print(
            f"overlay: per command p50 {over['p50'] * 1e3:.1f} ms, p95 "
            f"{over['p95'] * 1e3:.1f} ms; storage after {args.commands} commands "
            f"{over['storage'] / 1e6:.2f} MB"
        )


if __name__ == "__main__":
    main()
