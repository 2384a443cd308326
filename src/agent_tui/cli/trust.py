"""``agent-tui trust``: review what the project's own files ask to turn on (``core.state.trust``).

``agent-tui trust`` lists the untrusted items and, on a terminal, asks; ``--yes`` trusts them
without asking; ``--revoke`` forgets every trust given in this folder. ``--session ID``
accepts a saved session that agent-tui refuses to load because it is not as agent-tui last
wrote it (``core.state.seals``): it shows what the session holds and, once accepted, seals it
as it is. Exit 0 when nothing is left untrusted, 1 when something stays off, 2 for a usage
error."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="agent-tui trust",
        description="Review what the project's own files ask to turn on (MCP servers, hooks, "
        "settings, commands): lists the untrusted items and, on a terminal, asks. --yes "
        "trusts them without asking; --revoke forgets every trust given in this folder; "
        "--session ID accepts a saved session agent-tui refuses to load because it is not "
        "as agent-tui last wrote it. Exit 0 when nothing is left untrusted, 1 when something "
        "stays off, 2 for a usage error.",
    )
    parser.add_argument("--yes", action="store_true", help="trust without asking")
    parser.add_argument("--revoke", action="store_true", help="trust nothing here any more")
    parser.add_argument("--cwd", type=Path, default=None, help="the project (default: here)")
    parser.add_argument(
        "--session",
        metavar="ID",
        help="accept the saved session ID (or its file) as yours: it was changed, copied or "
        "written by something other than agent-tui, which then refuses to load it",
    )
    args = parser.parse_args(list(argv))
    if args.session is not None:
        return _accept_session(args.session, yes=args.yes)
    from agent_tui.core.claude.env import load_env
    from agent_tui.core.claude.permissions import permission_config
    from agent_tui.core.commands.grants import gate_commands
    from agent_tui.core.hooks import load_hooks
    from agent_tui.core.mcp.config.load import load_config
    from agent_tui.core.skills import SkillSet
    from agent_tui.core.state.trust import ProjectTrust

    cwd = (args.cwd or Path.cwd()).resolve()
    trust = ProjectTrust(cwd)
    if args.revoke:
        trust.forget()
        print(f"nothing of {cwd} is trusted any more")
        return 0
    permission_config(cwd, trust=trust)
    load_config(cwd, trust=trust)
    load_hooks(cwd, trust)
    load_env(cwd, trust)
    SkillSet.for_workspace(cwd, trust)
    gate_commands(cwd, trust)
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


def _accept_session(wanted: str, *, yes: bool) -> int:
    """Show the session ``wanted`` and seal it once the user accepts it as theirs."""
    from agent_tui.core.conversation.session import SessionDoubted, SessionLog
    from agent_tui.core.conversation.session_store import SessionStore
    from agent_tui.core.state.seals import seal_file

    store = SessionStore()
    try:
        found = store.find(wanted)
    except SessionDoubted as doubted:
        path, why = doubted.path, doubted.why
    else:
        if found is None:
            print(f"agent-tui trust: no session {wanted!r} in {store.root}", file=sys.stderr)
            return 2
        print(f"the session {found.id} ({found.path}) is sealed already: nothing to accept")
        return 0
    try:
        shown = path.read_bytes()
        session = SessionLog.load(path, shown)
    except OSError as exc:
        print(f"agent-tui trust: cannot read {path}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(f"The session {session.id} ({path}) {why}.")
    print(f"  started in {session.cwd or '?'} at {session.created or '?'}, model {session.model}")
    prompts = [m for m in session.messages if m.role == "user"]
    print(f"  {len(session.messages)} messages; {len(prompts)} of them given as yours:")
    for message in prompts[-20:]:
        print(f"  > {_one_line(message.content)}")
    print("Accept it only if these are your words: its messages go to the model as yours.")
    if not yes:
        if not sys.stdin.isatty():
            print("not accepted: run with --yes to accept it", file=sys.stderr)
            return 1
        answer = input("Accept this session as yours? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            print("not accepted")
            return 1
    try:
        seal_file(path, shown=shown, durable=True)  # only what was shown
    except OSError as exc:
        print(f"agent-tui trust: cannot seal {path}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    from agent_tui.core.state.seals import doubt_file

    still = doubt_file(path)
    if still is not None:  # a link, or writable by others: a seal cannot answer for it
        print(
            f"agent-tui trust: {path} {still}; fix that first (chmod go-w, or move the "
            "real file in place of the link), then accept it again",
            file=sys.stderr,
        )
        return 1
    print(f"accepted: --continue / --resume {session.id} load it again")
    return 0


def _one_line(text: str, limit: int = 100) -> str:
    flat = " ".join(text.split())
    shown = "".join(c if c.isprintable() else "?" for c in flat)
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"
