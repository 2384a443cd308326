"""Progressive disclosure: search_tool over large catalogs, and what disclosure saves.

    PYTHONPATH=src:. python benchmarks/bench_disclosure.py

Builds the synthetic catalog of the tests (realistic servers + filler tools) at several sizes,
and reports index build time, per-query latency (median / p95 over the retrieval set, 20
rounds), retrieval accuracy (top-1 / top-3) and the tools-array token estimate with and
without disclosure.
"""

from __future__ import annotations

import statistics
import time

from tests.core.disclosure.catalog import RETRIEVAL, catalog_tools, registry_with

from agent_tui.core.disclosure import Disclosure


def main() -> None:
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
        top1 = top3 = 0
        for _ in range(20):
            for query, expected in RETRIEVAL:
                t0 = time.perf_counter()
                names = [d.name for d, _ in index.search(query, 3)]
                timings.append((time.perf_counter() - t0) * 1e6)
                top1 += names[:1] == [expected]
                top3 += expected in names
        n = 20 * len(RETRIEVAL)
        timings.sort()
        cost = disclosure.estimate()
        print(
            f"{len(index.docs):>6} {build:>9.1f} {statistics.median(timings):>10.0f} "
            f"{timings[int(0.95 * len(timings))]:>8.0f} {top1 / n:>6.0%} {top3 / n:>6.0%} "
            f"{cost['total_tokens']:>14,} {cost['without_disclosure_tokens']:>11,}"
        )


if __name__ == "__main__":
    main()
