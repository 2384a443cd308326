"""``agent-tui trust``: review what the project's own files ask to turn on (``core.trust``).

``agent-tui trust`` lists the untrusted items and, on a terminal, asks; ``--yes`` trusts them
without asking; ``--revoke`` forgets every trust given in this folder. Exit 0 when nothing is
left untrusted, 1 when something stays off, 2 for a usage error."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="agent-tui trust", description=__doc__)
    parser.add_argument("--yes", action="store_true", help="trust without asking")
    parser.add_argument("--revoke", action="store_true", help="trust nothing here any more")
    parser.add_argument("--cwd", type=Path, default=None, help="the project (default: here)")
    args = parser.parse_args(list(argv))
    from agent_tui.core.hooks import load_hooks
    from agent_tui.core.mcp.config import load_config
    from agent_tui.core.permissions.config import load_permission_config
    from agent_tui.core.trust import ProjectTrust

    cwd = (args.cwd or Path.cwd()).resolve()
    trust = ProjectTrust(cwd)
    if args.revoke:
        trust.forget()
        print(f"nothing of {cwd} is trusted any more")
        return 0
    load_permission_config(cwd, trust=trust)
    load_config(cwd, trust=trust)
    load_hooks(cwd, trust)
    if not trust.pending:
        print(f"nothing in {cwd} waits for trust")
        return 0
    print(f"The project {cwd} asks to:")
    for item in trust.pending:
        print(f"  - {item.describe()}  ({item.source.name})")
    if not args.yes:
        if not sys.stdin.isatty():
            print("not trusted: run with --yes to trust them", file=sys.stderr)
            return 1
        answer = input("Trust these (remembered for this folder, as they are now)? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            print("not trusted")
            return 1
    try:
        trust.trust(list(trust.pending))
    except OSError as exc:
        print(f"agent-tui trust: cannot save the trust store: {exc}", file=sys.stderr)
        return 1
    print(f"trusted; saved in {trust.store}")
    return 0
