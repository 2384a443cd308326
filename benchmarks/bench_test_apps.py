"""What one UI test pays to start the app: ``QuietApp`` (tests/ui/helpers.py) started, one
``pilot.pause()``, stopped — with the CSS parses shared between the process's apps
(``tests/ui/shared_css.py``, what the tests use) and with each app parsing its own (as before).

Run from the repository root::

    PYTHONPATH=src:. python benchmarks/bench_test_apps.py            # 20 apps per side
    PYTHONPATH=src:. python benchmarks/bench_test_apps.py --apps 40

Both sides run in this one process, alternately (one app of each in turn, after one warm-up
app each: imports and the first parses are paid there, as by a worker's first UI test), so
they share the load; per side it prints the median CPU time of the process per app (all its
threads) and the median wall time, and the ratio. The machine's load average is printed:
on a loaded machine compare the CPU figures.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("AGENT_TUI_DATA_DIR", tempfile.mkdtemp(prefix="bench-data-"))
os.environ.setdefault("AGENT_TUI_CONFIG_DIR", tempfile.mkdtemp(prefix="bench-config-"))

from tests.ui.helpers import SIZE, QuietApp, make_agent


class OwnParsesApp(QuietApp):
    """The test app as it was: the stylesheet as shipped, parsing everything itself."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        from agent_tui.ui.shell.appending_stylesheet import AppendingStylesheet

        self.stylesheet.__class__ = AppendingStylesheet


async def one(kind: type[QuietApp], cwd: Path) -> tuple[float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    app = kind(agent=make_agent(cwd, []), cwd_label="~/project")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
    return time.process_time() - cpu, time.perf_counter() - wall


async def main(apps: int) -> None:
    cwd = Path(tempfile.mkdtemp(prefix="bench-apps-"))
    sides: dict[str, type[QuietApp]] = {"own parses": OwnParsesApp, "shared": QuietApp}
    for kind in sides.values():
        await one(kind, cwd)  # warm-up
    cpu: dict[str, list[float]] = {name: [] for name in sides}
    wall: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(apps):
        for name, kind in sides.items():
            c, w = await one(kind, cwd)
            cpu[name].append(c)
            wall[name].append(w)
    print(f"load average {os.getloadavg()}, {apps} apps per side, alternating")
    for name in sides:
        print(
            f"{name:>11}: CPU {1000 * statistics.median(cpu[name]):6.0f} ms/app, "
            f"wall {1000 * statistics.median(wall[name]):6.0f} ms/app"
        )
    ratio = statistics.median(cpu["shared"]) / statistics.median(cpu["own parses"])
    print(f"shared / own parses: {ratio:.2f}x CPU")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--apps", type=int, default=20)
    asyncio.run(main(parser.parse_args().apps))
