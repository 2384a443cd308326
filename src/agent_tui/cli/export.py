"""``agent-tui export [SESSION] [-o FILE] [--format markdown|json]``: a saved session written
for people (``core.export``), as ``/export`` does in the TUI.

SESSION is an id (or a unique prefix of one) or a session file; without it, the latest session
of the working directory (``--cwd``). With no ``-o`` the file is a new one in the working
directory (never overwriting one), and its path is printed; ``-o -`` prints the export on
stdout. Exit 0 when written, 1 when it could not be (no such session, a doubted one, an
unwritable path), 2 for a usage error.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from agent_tui.cli.parser import StrictParser


def main(argv: Sequence[str]) -> int:
    parser = StrictParser(
        prog="agent-tui export",
        description="Write a saved session for people: Markdown (prompts, answers, each tool "
        "call with its input and the output the model saw, spilled files named, compaction "
        "summaries marked) or JSON in a documented shape. Exit 0 when written, 1 when not, 2 "
        "for a usage error.",
    )
    parser.add_argument(
        "session",
        nargs="?",
        metavar="SESSION",
        help="a session id (or unique prefix) or session file (default: the latest here)",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="where to write it; - for stdout (default: a new file in the working directory)",
    )
    parser.add_argument(
        "--format",
        choices=("markdown", "json"),
        default=None,
        help="markdown or json (default: json for a FILE ending in .json, else markdown)",
    )
    parser.add_argument("--cwd", type=Path, default=None, help="the project (default: here)")
    args = parser.parse_args(list(argv))
    from agent_tui.core.conversation.session import SessionLog
    from agent_tui.core.conversation.session_store import SessionStore
    from agent_tui.core.export import (
        ExportError,
        export_conversation,
        export_doc,
        format_for,
        render,
        session_info,
    )

    cwd = (args.cwd or Path.cwd()).resolve()
    store = SessionStore()
    session: SessionLog | None
    try:
        session = store.find(args.session) if args.session else store.latest(cwd)
    except OSError as exc:  # SessionDoubted among them: its message says how to accept it
        print(f"agent-tui export: {exc}", file=sys.stderr)
        return 1
    if session is None:
        what = f"no session {args.session!r}" if args.session else f"no saved session in {cwd}"
        print(f"agent-tui export: {what} (agent-tui --resume lists them)", file=sys.stderr)
        return 1
    history = [*session.folded, *session.messages]
    info = session_info(session, cwd=Path(session.cwd or cwd), model=session.model)
    to_stdout = args.output == "-"
    path = None if args.output is None or to_stdout else Path(args.output)
    try:
        fmt = format_for(path, args.format)
        if to_stdout:
            now = datetime.now().astimezone().isoformat(timespec="seconds")
            sys.stdout.write(render(export_doc(history, info, now), fmt))
            return 0
        written = export_conversation(history, info, fmt=fmt, path=path, cwd=cwd)
    except ExportError as exc:
        print(f"agent-tui export: nothing exported: {exc}", file=sys.stderr)
        return 1
    print(written)
    return 0
