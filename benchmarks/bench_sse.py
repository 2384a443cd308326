"""How fast the providers' event-stream parser turns bytes into events.

    PYTHONPATH=src python benchmarks/bench_sse.py [--events 20000] [--chunk 1400] [--repeat 30]

A stream of OpenAI ``chat.completion.chunk`` events (one word of content each, every tenth
with U+2028 in its text, sent raw) is cut into ``--chunk``-byte pieces, as a socket hands
them over, and parsed by ``iter_sse``; the best of ``--repeat`` runs is printed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import AsyncIterator

from agent_tui.core.providers.sse import iter_sse


def stream(events: int) -> bytes:
    out = []
    for i in range(events):
        word = f"word{i}\u2028 " if i % 10 == 0 else f"word{i} "
        chunk = {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"content": word}, "finish_reason": None}],
        }
        out.append(f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n")
    return "".join(out).encode()


async def best_time(pieces: list[bytes], events: int, repeat: int) -> float:
    async def chunks() -> AsyncIterator[bytes]:
        for piece in pieces:
            yield piece

    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        count = sum([1 async for _ in iter_sse(chunks())])
        best = min(best, time.perf_counter() - start)
        assert count == events, count
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--chunk", type=int, default=1_400)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    body = stream(args.events)
    pieces = [body[i : i + args.chunk] for i in range(0, len(body), args.chunk)]
    best = asyncio.run(best_time(pieces, args.events, args.repeat))
    print(
        f"{len(body) / 1e6:.1f} MB, {args.events:,} events in {len(pieces):,} chunks: "
        f"{best * 1000:.0f} ms best of {args.repeat} "
        f"({best / args.events * 1e6:.2f} µs an event, {len(body) / best / 1e6:.0f} MB/s)"
    )


if __name__ == "__main__":
    main()
