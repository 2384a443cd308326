"""``agent-tui init``: write a starter ``AGENTS.md`` for the project (``core.agent.memory_init``).

With the demo model (the default when no key is set) the file is made from the project's
layout, without a model call; with a real model (``--model``, or a key in the environment) one
request asks the model to write it from the same survey. An existing ``AGENTS.md`` or
``CLAUDE.md`` is kept unless ``--force``. Exit 0 when written, 1 when nothing was written, 2
for a usage error."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path

from agent_tui.cli.parser import StrictParser


def main(argv: Sequence[str]) -> int:
    parser = StrictParser(
        prog="agent-tui init",
        description="Write a starter AGENTS.md for the project. With the demo model it is made "
        "from the project's layout, without a model call; with a real model one request "
        "writes it from the same survey. An existing AGENTS.md or CLAUDE.md is kept unless "
        "--force. Exit 0 when written, 1 when nothing was written, 2 for a usage error.",
    )
    parser.add_argument("--force", action="store_true", help="overwrite an existing AGENTS.md")
    parser.add_argument(
        "--model",
        "-m",
        metavar="SPEC",
        help="the model that writes it (default: from AGENT_API_KEY / ANTHROPIC_API_KEY, else "
        "demo: no model call)",
    )
    parser.add_argument("--cwd", type=Path, default=None, help="the project (default: here)")
    args = parser.parse_args(list(argv))
    from agent_tui.core.agent.memory_init import write_starter_memory
    from agent_tui.core.providers.base import ProviderError
    from agent_tui.core.providers.spec import make_provider

    cwd = (args.cwd or Path.cwd()).resolve()
    if not cwd.is_dir():
        print(f"agent-tui init: {cwd} is not a directory", file=sys.stderr)
        return 2
    try:
        provider = make_provider(args.model, cwd=cwd, frontend="headless")
    except ProviderError as exc:
        print(f"agent-tui init: {exc}", file=sys.stderr)
        return 2

    async def run() -> int:
        try:
            result = await write_starter_memory(cwd, provider, force=args.force)
        except ProviderError as exc:
            print(
                f"agent-tui init: the model request failed, nothing written: {exc} "
                "(--model demo writes one from the layout without a model)",
                file=sys.stderr,
            )
            return 1
        except OSError as exc:
            print(f"agent-tui init: cannot write AGENTS.md: {exc}", file=sys.stderr)
            return 1
        finally:
            await provider.aclose()
        print(result.message, file=sys.stdout if result.written else sys.stderr)
        return 0 if result.written else 1

    return asyncio.run(run())
