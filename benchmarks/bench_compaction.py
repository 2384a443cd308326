"""A 500-turn session with tool outputs under a 32k window: does compaction keep it inside?

    PYTHONPATH=src python benchmarks/bench_compaction.py
    PYTHONPATH=src python benchmarks/bench_compaction.py --turns 500 --window 32768

The real loop (``Agent.run``: budget, executor, real ``read_file`` and ``run_shell`` calls on
generated files) with an in-process model that answers each prompt with one tool call, then a
short text, and answers a summarizer request with a ~350-word summary. It reports what an
OpenAI-format server would count: the prompt tokens of each request, estimated the way the
agent estimates them (``core.conversation.context``), as the request's ``usage``. Run twice:
compaction at its default threshold (0.8 of ``--window``), and off (with a window large enough that
nothing overflows, to see what the same session would have sent).

Reported: the peak context of any request (share of ``--window``), the compactions and the
summarizer requests they took, the tokens sent in total, and the wall time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.core.agent.agent import Agent
from agent_tui.core.calls import Usage
from agent_tui.core.conversation.context import estimate_tokens, message_tokens
from agent_tui.core.events import CompactionEvent
from agent_tui.core.permissions import SimplePolicy
from agent_tui.core.providers.base import (
    Completion,
    ModelRequest,
    StreamItem,
    TextDelta,
    ToolCallReady,
)
from agent_tui.core.settings import Settings
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.transcript import ToolCall

SUMMARY = (
    "## Goal\nKeep the parser fast and correct.\n\n## Decisions and findings\n"
    + "- module notes: the lexer, the parser and the printer were read and discussed.\n" * 18
    + "\n## Files\n- src/mod_*.py read\n\n## Open tasks\n- none\n\n## Next step\nContinue."
)


@dataclass
class BenchModel:
    """Answers like a model that reads one file (or runs one command) per prompt."""

    name: str = "bench"
    requests: int = 0
    summaries: int = 0
    sent: int = 0
    peak: int = 0
    per_request: list[int] = field(default_factory=list)

    @property
    def kind(self) -> str:
        return "openai"

    def _count(self, request: ModelRequest) -> int:
        tokens = estimate_tokens(request.system) + sum(message_tokens(m) for m in request.messages)
        tokens += estimate_tokens(request.tools.openai_tools_json())
        self.requests += 1
        self.sent += tokens
        self.peak = max(self.peak, tokens)
        self.per_request.append(tokens)
        return tokens

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        tokens = self._count(request)
        if request.purpose == "summary":
            self.summaries += 1
            yield TextDelta(SUMMARY)
            yield Completion(text=SUMMARY, usage=Usage(input_tokens=tokens, output_tokens=500))
            return
        last = request.messages[-1]
        if last.role == "user":
            n = len(request.messages)
            if n % 3:
                arguments = {"path": f"src/mod_{n % 40}.py"}
                call = ToolCall(id=f"c{n}", name="read_file", arguments=json.dumps(arguments))
            else:
                arguments = {"command": f"seq 1 {200 + n % 300}"}
                call = ToolCall(id=f"c{n}", name="run_shell", arguments=json.dumps(arguments))
            yield ToolCallReady(call)
            yield Completion(
                text="", tool_calls=[call], usage=Usage(input_tokens=tokens, output_tokens=40)
            )
            return
        text = "Read it: the function there parses one expression and returns its tree."
        yield TextDelta(text)
        yield Completion(text=text, usage=Usage(input_tokens=tokens, output_tokens=30))

    async def aclose(self) -> None:
        return None


def _workspace(root: Path) -> None:
    (root / "src").mkdir()
    for n in range(40):
        body = "".join(f"def f{n}_{i}(x):\n    return x * {i} + {n}\n\n" for i in range(40))
        (root / "src" / f"mod_{n}.py").write_text(body)


async def _session(turns: int, window: int, threshold: float | str) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _workspace(root)
        settings = Settings.model_validate(
            {
                "model": {"context_window": window},
                "compaction": {"threshold": threshold},
                "sandbox": {"mode": "off"},
                "budget": {"spill_dir": str(root / ".spills")},
            }
        )
        model = BenchModel()
        agent = Agent(
            model,  # type: ignore[arg-type]
            default_registry(),
            root,
            policy=SimplePolicy(["run_shell"]),
            settings=settings,
            system="You are a coding agent.",
        )
        compactions = 0
        started = time.perf_counter()
        for n in range(turns):
            async for event in agent.run(f"Look at module {n % 40} and tell me what it does."):
                if isinstance(event, CompactionEvent) and event.phase == "end":
                    compactions += 1
        elapsed = time.perf_counter() - started
        await agent.close()
        return {
            "requests": model.requests,
            "summaries": model.summaries,
            "compactions": compactions,
            "peak": model.peak,
            "sent": model.sent,
            "seconds": elapsed,
            "last": model.per_request[-1],
        }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=500)
    parser.add_argument("--window", type=int, default=32_768)
    args = parser.parse_args()
    on = asyncio.run(_session(args.turns, args.window, 0.8))
    off = asyncio.run(_session(args.turns, 100_000_000, "off"))
    print(f"{args.turns} turns, window {args.window:,} tokens")
    print(
        f"  compaction at 0.8: peak {on['peak']:,} tokens = {100 * on['peak'] / args.window:.0f}% "
        f"of the window, {on['compactions']:.0f} compactions ({on['summaries']:.0f} summarizer "
        f"requests), {on['requests']:.0f} requests, {on['sent']:,.0f} tokens sent, "
        f"{on['seconds']:.1f} s"
    )
    print(
        f"  compaction off:    peak {off['peak']:,} tokens = "
        f"{100 * off['peak'] / args.window:.0f}% "
        f"of the window, last request {off['last']:,} tokens, {off['requests']:.0f} requests, "
        f"{off['sent']:,.0f} tokens sent, {off['seconds']:.1f} s"
    )
    print(f"  sent with compaction / without: {on['sent'] / off['sent']:.3f}")
    return 0 if on["peak"] <= args.window else 1


if __name__ == "__main__":
    sys.exit(main())
