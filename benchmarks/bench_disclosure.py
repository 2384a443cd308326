"""Progressive disclosure: search_tool over large catalogs, and what disclosure saves.

    PYTHONPATH=src:. python benchmarks/bench_disclosure.py             # both parts
    PYTHONPATH=src:. python benchmarks/bench_disclosure.py --no-servers

1. The synthetic catalog of the tests (realistic servers + filler tools) at several sizes:
   index build time, per-query latency (median / p95 over the retrieval set, 20 rounds),
   retrieval accuracy (top-1 / top-3) and the tools-array token estimate with and without
   disclosure.
2. The three pinned npm reference servers (server-everything, server-filesystem,
   server-memory; installed into ``.test-cache/npm`` as the MCP tests install them, which needs
   node and npm) connected through the real manager with the built-ins: the tools array per
   request with disclosure (built-ins, ``search_tool`` with its catalog, ``run_tool``) against
   every tool direct, and retrieval over their real descriptions.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from tests.core.disclosure import reference
from tests.core.disclosure.catalog import RETRIEVAL, catalog_tools, registry_with
from tests.core.mcp.conftest import install_reference_servers

from agent_tui.core.disclosure import Disclosure
from agent_tui.core.disclosure.search import SearchIndex
from agent_tui.core.tools.registry import ToolRegistry


def accuracy(index: SearchIndex, queries: list[tuple[str, str]]) -> tuple[int, int]:
    top1 = top3 = 0
    for query, expected in queries:
        names = [d.name for d, _ in index.search(query, 3)]
        top1 += names[:1] == [expected]
        top3 += expected in names
    return top1, top3


def synthetic() -> None:
    print(
        f"{'tools':>6} {'build ms':>9} {'median µs':>10} {'p95 µs':>8} {'top-1':>6} "
        f"{'top-3':>6} {'tokens direct':>14} {'tokens all':>11}"
    )
    for extra in (0, 300, 1000, 3000):
        disclosure = Disclosure(registry_with(catalog_tools(extra)))
        started = time.perf_counter()
        index = disclosure._search_index()
        build = (time.perf_counter() - started) * 1000
        timings = []
        for _ in range(20):
            for query, _expected in RETRIEVAL:
                t0 = time.perf_counter()
                index.search(query, 3)
                timings.append((time.perf_counter() - t0) * 1e6)
        top1, top3 = accuracy(index, RETRIEVAL)
        n = len(RETRIEVAL)
        timings.sort()
        cost = disclosure.estimate()
        print(
            f"{len(index.docs):>6} {build:>9.1f} {statistics.median(timings):>10.0f} "
            f"{timings[int(0.95 * len(timings))]:>8.0f} {top1 / n:>6.0%} {top3 / n:>6.0%} "
            f"{cost['total_tokens']:>14,} {cost['without_disclosure_tokens']:>11,}"
        )


async def servers() -> None:
    try:
        bin_dir = install_reference_servers()
    except LookupError as missing:
        print(f"\nreference servers skipped: {missing}")
        return
    with tempfile.TemporaryDirectory() as tmp:
        async with reference.reference_manager(bin_dir, Path(tmp)) as manager:
            disclosure = Disclosure(manager.registry)
            cost = disclosure.estimate()
            exposed = disclosure.exposed()
            index = disclosure._search_index()
            top1, top3 = accuracy(index, reference.RETRIEVAL)
            n = len(reference.RETRIEVAL)
            search = manager.registry.get("search_tool")
            assert search is not None
            total, without = cost["total_tokens"], cost["without_disclosure_tokens"]
            print(
                f"\nreference servers ({', '.join(reference.SERVERS)}): "
                f"{cost['deferred_count']} deferred tools"
            )
            print(
                f"tools array with disclosure {total:,} tokens "
                f"(built-ins {cost['direct_tokens']:,}, proxies {cost['proxy_tokens']:,}; "
                f"search_tool description {len(search.description):,} chars), "
                f"every tool direct {without:,}: {total / without:.1%}"
            )
            per_tool = ", ".join(
                f"{t.name} {len(ToolRegistry([t]).openai_tools_json()) // 4}" for t in exposed
            )
            print(f"per tool: {per_tool}")
            print(
                f"retrieval over {len(index.docs)} tools: top-1 {top1}/{n} ({top1 / n:.0%}), "
                f"top-3 {top3}/{n} ({top3 / n:.0%})"
            )
            async with reference.with_task(manager.registry, Path(tmp)):
                disclosure = Disclosure(manager.registry)
                cost = disclosure.estimate()
                total, without = cost["total_tokens"], cost["without_disclosure_tokens"]
                print(
                    f"with task installed, as in a session: {cost['deferred_count']} deferred, "
                    f"tools array {total:,} tokens, every tool direct {without:,}: "
                    f"{total / without:.1%}"
                )
                queries = reference.RETRIEVAL + reference.BUILTIN_RETRIEVAL
                index = disclosure._search_index()
                top1, top3 = accuracy(index, queries)
                n = len(queries)
                print(
                    f"retrieval over {len(index.docs)} tools ({n} queries, with the deferred "
                    f"built-ins): top-1 {top1}/{n}, top-3 {top3}/{n}; the built-ins alone: "
                    f"top-1 {accuracy(index, reference.BUILTIN_RETRIEVAL)[0]}/"
                    f"{len(reference.BUILTIN_RETRIEVAL)}"
                )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--no-servers", action="store_true", help="skip the npm servers")
    args = parser.parse_args()
    synthetic()
    if not args.no_servers:
        asyncio.run(servers())


if __name__ == "__main__":
    main()
