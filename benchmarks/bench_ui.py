"""UI benchmarks: start-up to the first painted screen, and streaming a long answer.

Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_ui.py            # the figures in README.md
    PYTHONPATH=src python benchmarks/bench_ui.py --quick    # fewer runs, a shorter answer
    PYTHONPATH=src python benchmarks/bench_ui.py --stream-only --baseline OLD --rounds 3
                                       # the stream beside another checkout's (OLD/src)

Every measurement runs the real app in a child process on a pseudo-terminal (Textual's real
driver writes its escape codes to it; this process drains them), so what is timed is what a
user waits for:

- **launch**: from spawning ``python`` to the first painted screen, for ``agent-tui``'s own
  entry point (``cli.main``: settings, session file, permission pipeline, the app) and for a
  trivial Textual app (one ``Static``) in the same run; the ratio is the figure that travels
  between machines. Median of ``--runs``, the two kinds interleaved.
- **stream**: the script model streams an answer of ``--tokens`` chunks of about one token
  each (Markdown: headings, paragraphs, lists, code blocks) through the app as fast as the
  loop allows. Reported: the tokens/s the UI keeps up with (first delta to the rendered final
  text), the same stream consumed without a UI (the core alone), and the longest pause of the
  event loop while streaming (a probe task that asks to wake every 5 ms records how late it
  wakes).
- **paced stream**: ``--paced`` tokens arriving at ``--rate`` tokens/s of wall-clock time (a
  model's pace: what is due is handed over at once, like bytes waiting on a socket), to show
  the pauses a user sees while a real answer streams.
- **fenced reply**: a 2,000-line answer with code in every form Markdown has (``` and ~~~
  fences, a ```` fence holding ```, indented code, lists, tables, prose) streamed in
  4-character deltas through the app; and, in this process without a UI, the time
  ``PartSplitter`` takes to find where the parts of it (and of a single 2,000-line fence)
  may end. ``--fenced-only`` runs just these.
"""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import json
import os
import pty
import resource
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path

import frame_timing  # this script's directory

COLUMNS, ROWS = 120, 40
Row = tuple[str, str]
PROBE_SECONDS = 0.005


# -- the child side ------------------------------------------------------------------------


def _report(fd: int, **figures: object) -> None:
    os.write(fd, (json.dumps(figures) + "\n").encode())


def child_launch_trivial(fd: int) -> None:
    from textual.app import App, ComposeResult
    from textual.widgets import Static

    class Trivial(App[None]):
        def compose(self) -> ComposeResult:
            yield Static("hello")

        def on_mount(self) -> None:
            self.call_after_refresh(self.painted)

        def painted(self) -> None:
            _report(fd, painted=time.time(), cpu=time.thread_time())
            self.exit()

    Trivial().run()


def child_launch_agent(fd: int, cwd: str) -> None:
    import agent_tui.cli.main as cli
    from agent_tui.ui import app as ui_app

    mount = ui_app.AgentApp.on_mount

    async def on_mount(self: ui_app.AgentApp) -> None:
        await mount(self)
        self.call_after_refresh(lambda: (_report(fd, painted=time.time()), self.exit()))

    ui_app.AgentApp.on_mount = on_mount  # type: ignore[method-assign]
    cli.main(["--cwd", cwd, "--model", "demo"])


def markdown_answer(tokens: int) -> list[str]:
    """``tokens`` chunks of about one token each that make a long, varied Markdown answer:
    headings, paragraphs, lists, code blocks and tables (a 4-row table every 200 tokens)."""
    words = ["the", "agent", "reads", "files", "edits", "code", "runs", "tests"]
    words += ["and", "explains", "what", "it", "found"]
    chunks: list[str] = []
    n = 0
    while len(chunks) < tokens:
        section = n // 400
        if n % 400 == 0:
            chunks += [f"\n\n## Part {section + 1}\n\n"]
        elif n % 120 == 60:
            chunks += ["\n\n```python\n", f"def step_{n}():\n", "    return ", f"{n}\n", "```\n\n"]
        elif n % 200 == 130:
            chunks += ["\n\n| tool ", "| calls ", "| time |\n", "|------", "|-------", "|------|\n"]
            for row in range(4):
                chunks += [f"| step_{n}_{row} ", f"| {row + 1} ", f"| {n % 97} ms |\n"]
            chunks.append("\n")
        elif n % 50 == 25:
            chunks += ["\n\n- ", "item ", f"{n}", "\n- ", "another ", "item\n\n"]
        else:
            chunks.append(words[n % len(words)] + (" " if n % 17 else ".\n\n"))
        n += 1
    return chunks[:tokens]


def fenced_reply(lines: int = 2000) -> str:
    """An answer of ``lines`` lines with code in every form Markdown has."""
    blocks = [
        "Here is what the test does, and why it fails on the second run. " * 3 + "\n",
        "```python\ndef step():\n\n    return 1\n```\n",
        "~~~sh\n```\nnot the end of anything\n\n```\n~~~\n",
        "````markdown\nA fence in a fence:\n\n```js\nlet x = 1\n```\n````\n",
        "    indented = 1\n\n    still_code = 2\n",
        "- a list item\n\n  with a second paragraph\n- another item\n",
        "| name | value |\n|------|-------|\n| a    | 1     |\n| b    | 2     |\n",
        "## A heading\n",
    ]
    out: list[str] = []
    count, n = 0, 0
    while count < lines:
        block = blocks[n % len(blocks)] + "\n"
        out.append(block)
        count += block.count("\n")
        n += 1
    return "".join(out)


def fenced_chunks() -> list[str]:
    text = fenced_reply()
    return [text[i : i + 4] for i in range(0, len(text), 4)]


def bench_split() -> dict[str, dict[str, float]]:
    """``PartSplitter`` alone, fed 4-character deltas as ``ReplyStream`` feeds it."""
    from agent_tui.ui.chat.part_splitter import PartSplitter

    replies = {
        "fenced": fenced_reply(),
        "one fence": "```\n" + "".join(f"line {i}\n\n" for i in range(1000)) + "```\n",
    }
    figures: dict[str, dict[str, float]] = {}
    for name, text in replies.items():
        runs = []
        for _ in range(5):
            parts, parsed = 1, 0
            splitter = PartSplitter()
            started = time.perf_counter()
            for i in range(0, len(text), 4):
                fragment = text[i : i + 4]
                while fragment:
                    cut = splitter.feed(fragment)
                    if cut is None:
                        break
                    parts, parsed = parts + 1, parsed + splitter.parsed_chars
                    splitter = PartSplitter()
                    fragment = fragment[cut:]
            runs.append(time.perf_counter() - started)
        parsed += splitter.parsed_chars
        seconds = statistics.median(runs)
        deltas = (len(text) + 3) // 4
        figures[name] = {
            "lines": text.count("\n"),
            "chars": len(text),
            "deltas": deltas,
            "parts": parts,
            "seconds": seconds,
            "per_delta": seconds / deltas,
            "parsed": parsed / len(text),
        }
    return figures


class PacedProvider:
    """Streams ``chunks`` at ``rate`` per second of wall-clock time, as a network stream does:
    every chunk due by now is handed over at once (a busy loop does not slow the model)."""

    kind = "script"
    name = "paced"

    def __init__(self, chunks: list[str], rate: float) -> None:
        self.chunks = chunks
        self.rate = rate

    async def stream(self, request: object) -> AsyncIterator[object]:
        from agent_tui.core.providers.base import Completion, TextDelta
        from agent_tui.core.transcript import Usage

        started, sent = time.perf_counter(), 0
        while sent < len(self.chunks):
            due = min(len(self.chunks), int((time.perf_counter() - started) * self.rate) + 1)
            for chunk in self.chunks[sent:due]:
                yield TextDelta(chunk)
            sent = due
            await asyncio.sleep(1 / self.rate)
        text = "".join(self.chunks)
        usage = Usage(input_tokens=10, output_tokens=len(self.chunks))
        yield Completion(text=text, usage=usage, stop_reason="stop")

    async def aclose(self) -> None:
        return None


def child_stream(
    fd: int,
    cwd: str,
    tokens: int,
    rate: float = 0.0,
    fenced: bool = False,
    typing: bool = False,
    frames: bool = False,
) -> None:
    from textual.widgets import TextArea

    from agent_tui.core.agent.agent import Agent
    from agent_tui.core.events import AssistantDelta, TurnEnd
    from agent_tui.core.providers.script import ScriptProvider
    from agent_tui.core.tools.builtin import default_registry
    from agent_tui.ui.app import AgentApp
    from agent_tui.ui.chat import AssistantReply
    from agent_tui.ui.chat.frozen_gap import FrozenGap
    from agent_tui.ui.shell.events_bridge import AgentEvent

    chunks = fenced_chunks() if fenced else markdown_answer(tokens)
    tokens = len(chunks)
    long_frames = frame_timing.time_frames() if frames else []
    script = Path(cwd) / "answer.json"
    script.write_text(json.dumps({"turns": [{"chunks": chunks}]}), encoding="utf-8")

    def agent() -> Agent:
        provider = PacedProvider(chunks, rate) if rate else ScriptProvider(script)
        return Agent(provider, default_registry(), Path(cwd), system="bench")

    async def core_alone() -> float:
        started = time.perf_counter()
        async for _ in agent().run("go"):
            pass
        return time.perf_counter() - started

    core_seconds = asyncio.run(core_alone()) if not rate else 0.0

    class Bench(AgentApp):
        first: float | None = None
        first_cpu = 0.0
        lags: list[float]
        echoes: list[float]
        """When each edit of the prompt was first painted (``time.monotonic``)."""

        def on_mount(self) -> None:  # Textual runs AgentApp.on_mount too, right after
            self.lags = []
            self.echoes = []
            self.call_after_refresh(self.start)

        def start(self) -> None:
            self.run_worker(self.probe(), group="probe", exit_on_error=False)
            self.send("write a long answer")

        async def probe(self) -> None:
            while True:
                asked = time.perf_counter()
                await asyncio.sleep(PROBE_SECONDS)
                self.lags.append(time.perf_counter() - asked - PROBE_SECONDS)

        def on_text_area_changed(self, message: TextArea.Changed) -> None:
            if typing:  # every key edits the prompt once: a letter, its backspace, …
                self.call_after_refresh(lambda: self.echoes.append(time.monotonic()))

        def on_agent_event(self, message: AgentEvent) -> None:  # AgentApp's runs next
            if self.first is None and isinstance(message.event, AssistantDelta):
                self.first = time.perf_counter()
                self.first_cpu = time.process_time()
                if typing:  # the typist starts now (keys before the reply are not counted)
                    os.write(fd, b"streaming\n")
            if isinstance(message.event, TurnEnd):
                self.call_after_refresh(self.done)

        def done(self) -> None:
            self.run_worker(self.report(), group="report")

        async def report(self) -> None:
            """The figures, once the whole text is in the chat: the turn's end handled (its
            last text written) and no part halfway through being swapped with its gap by the
            freezer (a mount and a removal a moment apart). Checked every ``PROBE_SECONDS``
            for up to 10 s; the time is taken when it is."""
            assert self.first is not None
            chat = self.main.chat
            deadline = time.monotonic() + 10
            while True:
                seconds = time.perf_counter() - self.first
                cpu_seconds = time.process_time() - self.first_cpu
                lags = sorted(self.lags)
                parts = [c for c in chat.children if isinstance(c, (AssistantReply, FrozenGap))]
                complete = "".join(p.text for p in parts) == "".join(chunks)
                if (complete and not self.busy) or time.monotonic() > deadline:
                    break
                await asyncio.sleep(PROBE_SECONDS)
            _report(
                fd,
                tokens=tokens,
                chars=sum(map(len, chunks)),
                ui_seconds=seconds,
                cpu_seconds=cpu_seconds,
                core_seconds=core_seconds,
                max_lag=lags[-1] if lags else 0.0,
                p99_lag=lags[int(len(lags) * 0.99)] if lags else 0.0,
                samples=len(lags),
                parts=len(parts),
                complete=complete,
                echoes=self.echoes,
                loadavg=os.getloadavg()[0],
                max_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                frames=long_frames,
            )
            self.exit()

    Bench(agent(), cwd_label="~/bench").run()


# -- the parent side -----------------------------------------------------------------------


TYPING_SECONDS = 0.2
"""The typist's pace: a letter every 0.2 s and a backspace halfway between (10 keys a second,
a fast typist; the prompt stays one line, as it does while a user types a short message)."""


def run_child(
    args: list[str], cwd: Path, typed: list[float] | None = None, src: Path | None = None
) -> tuple[float, dict[str, object]]:
    """Spawn ``bench_ui.py --child …`` on a pty; return (spawn time, its report). With ``src``,
    the child imports agent-tui from that ``src`` directory instead of ``PYTHONPATH``'s. With
    ``typed``, a typist writes a letter into the terminal every ``TYPING_SECONDS`` until the
    child reports (each followed by a backspace ``TYPING_SECONDS / 2`` later), and ``typed[n]``
    is when the (n+1)th letter was written (``time.monotonic``, one clock for both
    processes)."""
    read_end, write_end = os.pipe()
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
    paths = [
        str(Path(p).resolve()) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p
    ]
    if src is not None:
        paths = [str(src.resolve())]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(paths),
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
        "AGENT_TUI_DATA_DIR": str(cwd / "data"),
        "AGENT_TUI_CONFIG_DIR": str(cwd / "config"),
        "AGENT_TUI_FORCE_TUI": "1",
    }

    def drain() -> None:
        try:
            while os.read(master, 65536):
                pass
        except OSError:
            pass

    drainer = threading.Thread(target=drain, daemon=True)
    drainer.start()
    reported, streaming = threading.Event(), threading.Event()

    def type_keys() -> None:
        assert typed is not None
        streaming.wait(600)
        letters = b"abcdefghijklmnopqrstuvwxyz"
        while not reported.wait(TYPING_SECONDS / 2):
            typed.append(time.monotonic())
            try:
                os.write(master, letters[len(typed) % 26 :][:1])
                if reported.wait(TYPING_SECONDS / 2):
                    return
                os.write(master, b"\x7f")
            except OSError:
                return

    if typed is not None:
        threading.Thread(target=type_keys, daemon=True).start()
    spawned = time.time()
    child = subprocess.Popen(
        [sys.executable, __file__, "--child", *args, "--fd", str(write_end)],
        stdin=slave,
        stdout=slave,
        stderr=slave,  # where Textual writes the screen: to the terminal, as a user's
        pass_fds=(write_end,),
        env=env,
        cwd=cwd,
    )
    os.close(slave)
    os.close(write_end)
    with os.fdopen(read_end) as reports:
        line = reports.readline()
        if line == "streaming\n":
            streaming.set()
            line = reports.readline()
    reported.set()
    child.wait(timeout=600)
    os.close(master)
    if not line:
        raise RuntimeError(f"the child {args} reported nothing (exit {child.returncode})")
    return spawned, json.loads(line)


def bench_launch(runs: int, root: Path) -> dict[str, float]:
    times: dict[str, list[float]] = {"trivial": [], "agent": []}
    for _ in range(runs):
        for kind in ("trivial", "agent"):
            work = Path(tempfile.mkdtemp(dir=root))
            spawned, report = run_child([f"launch-{kind}", "--cwd", str(work)], work)
            times[kind].append(float(report["painted"]) - spawned)  # type: ignore[arg-type]
    trivial = statistics.median(times["trivial"])
    agent = statistics.median(times["agent"])
    return {"trivial": trivial, "agent": agent, "ratio": agent / trivial}


def bench_stream(
    tokens: int,
    root: Path,
    rate: float = 0.0,
    fenced: bool = False,
    typing: bool = False,
    src: Path | None = None,
    frames: bool = False,
) -> dict[str, object]:
    work = Path(tempfile.mkdtemp(dir=root))
    args = ["stream", "--cwd", str(work), "--tokens", str(tokens), "--rate", str(rate)]
    args += ["--fenced"] if fenced else []
    args += ["--typing"] if typing else []
    args += ["--frames"] if frames else []
    typed: list[float] = []
    _, report = run_child(args, work, typed if typing else None, src)
    if typing:
        report["key_to_echo"] = key_to_echo(typed, report.pop("echoes"))  # type: ignore[arg-type]
    return report


def key_to_echo(typed: list[float], echoes: list[float]) -> list[float]:
    """For each letter typed while the reply streamed: from writing it into the terminal to
    the first paint after the prompt took it (each key is one edit: letter, backspace, letter…
    so the n-th letter is edit 2n - 1). Letters not painted before the reply ended are left
    out."""
    return [at - sent for sent, at in zip(typed, echoes[::2], strict=False)]


def ms(seconds: object) -> str:
    return f"{float(seconds) * 1000:,.1f} ms"  # type: ignore[arg-type]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 runs, a 10,000-token answer")
    parser.add_argument("--runs", type=int, default=None, help="launch runs per kind (9)")
    parser.add_argument("--tokens", type=int, default=None, help="answer length (50,000)")
    parser.add_argument(
        "--paced", type=int, default=None, help="tokens of the paced stream (5,000)"
    )
    parser.add_argument("--rate", type=float, default=100.0, help="paced stream tokens/s (100)")
    parser.add_argument(
        "--fenced-only", action="store_true", help="only the fenced reply and the splitter"
    )
    parser.add_argument(
        "--stream-only", action="store_true", help="only the 50,000-token stream and typing"
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        help="with --stream-only: another checkout (with src/) streamed alternately with this one",
    )
    parser.add_argument(
        "--rounds", type=int, default=3, help="with --baseline: streams per tree (3)"
    )
    parser.add_argument("--fenced", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--typing", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--frames",
        action="store_true",
        help="with --stream-only: the callbacks over 33 ms and what their CPU went to",
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--fd", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--cwd", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        if args.child == "launch-trivial":
            child_launch_trivial(args.fd)
        elif args.child == "launch-agent":
            child_launch_agent(args.fd, args.cwd)
        else:
            child_stream(
                args.fd, args.cwd, args.tokens, args.rate, args.fenced, args.typing, args.frames
            )
        return
    tokens = args.tokens or (10_000 if args.quick else 50_000)
    if args.stream_only and args.baseline:
        side_by_side(tokens, args.baseline, args.rounds)
        return
    if args.stream_only:
        with tempfile.TemporaryDirectory() as temp:
            stream = bench_stream(tokens, Path(temp), typing=True, frames=args.frames)
        frames: list[dict[str, float]] = stream.pop("frames")  # type: ignore[assignment]
        rows = frame_timing.frame_rows(frames) if args.frames else []
        print_table(stream_rows(stream) + rows)
        print()
        print_table(target_rows(stream))
        return
    split = bench_split()
    with tempfile.TemporaryDirectory() as temp:
        fenced = bench_stream(0, Path(temp), fenced=True)
    fenced_rows = fenced_table(split, fenced)
    if args.fenced_only:
        print_table(fenced_rows)
        return
    runs = args.runs or (3 if args.quick else 9)
    paced_tokens = args.paced or (1_000 if args.quick else 5_000)
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        launch = bench_launch(runs, root)
        stream = bench_stream(tokens, root, typing=True)
        paced = bench_stream(paced_tokens, root, args.rate)
    rows = [
        (
            "trivial Textual app: launch → first paint (median)",
            f"{launch['trivial'] * 1000:,.0f} ms",
        ),
        ("agent-tui: launch → first paint (median)", f"{launch['agent'] * 1000:,.0f} ms"),
        ("ratio agent-tui / trivial", f"{launch['ratio']:.2f}×"),
        *stream_rows(stream),
        (
            f"stream {paced_tokens:,} tokens paced at {args.rate:g} tokens/s",
            f"{paced_tokens / float(paced['ui_seconds']):,.0f} tokens/s",  # type: ignore[arg-type]
        ),
        ("  longest event-loop pause while streaming", ms(paced["max_lag"])),
        ("  99th percentile pause", ms(paced["p99_lag"])),
    ]
    print_table(rows + fenced_rows)
    print()
    print_table(target_rows(stream))


def side_by_side(tokens: int, baseline: Path, rounds: int) -> None:
    """The fast stream with a typist, ``rounds`` times on this tree and on ``baseline``'s,
    alternately (the same load for both); each figure is the median of its tree's rounds, and
    the ratio is this tree's over the baseline's (< 1 is better for times, > 1 for rates)."""
    trees = {"this": None, "baseline": baseline / "src"}
    streams: dict[str, list[dict[str, object]]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory() as temp:
        for _ in range(rounds):
            for name, src in trees.items():
                streams[name].append(bench_stream(tokens, Path(temp), typing=True, src=src))

    def figures(name: str) -> dict[str, float]:
        runs = streams[name]
        echoes = [percentile(r.get("key_to_echo", []), 0.99) for r in runs]  # type: ignore[arg-type]
        rates = [int(r["tokens"]) / float(r["ui_seconds"]) for r in runs]  # type: ignore[call-overload,arg-type]
        return {
            "tokens/s through the UI": statistics.median(rates),
            "p99 event-loop pause (ms)": statistics.median(
                float(r["p99_lag"]) * 1000  # type: ignore[arg-type]
                for r in runs
            ),
            "longest pause (ms)": statistics.median(
                float(r["max_lag"]) * 1000  # type: ignore[arg-type]
                for r in runs
            ),
            "key → echo p99 (ms)": statistics.median(echoes) * 1000,
            "CPU seconds of the app's process": statistics.median(
                float(r["cpu_seconds"])  # type: ignore[arg-type]
                for r in runs
            ),
        }

    this, old = figures("this"), figures("baseline")
    loads = [float(r["loadavg"]) for runs in streams.values() for r in runs]  # type: ignore[arg-type]
    print(f"{tokens:,}-token stream with a typist, {rounds} rounds per tree, alternating")
    print(f"load average (1 min) at the streams' ends: {min(loads):.2f}–{max(loads):.2f}")
    print_table(
        [
            (
                measure,
                f"{this[measure]:,.1f} vs {old[measure]:,.1f}"
                f" ({this[measure] / old[measure]:.2f}×)",
            )
            for measure in this
        ]
    )


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))] if ordered else 0.0


def stream_rows(stream: dict[str, object]) -> list[Row]:
    """The fast stream (with a typist): what it delivered, its pauses, the keys' echo."""
    tokens = int(stream["tokens"])  # type: ignore[call-overload]
    echo: list[float] = stream.get("key_to_echo", [])  # type: ignore[assignment]
    return [
        (
            f"stream {tokens:,} tokens ({stream['chars']:,} chars) through the UI",
            f"{tokens / float(stream['ui_seconds']):,.0f} tokens/s",  # type: ignore[arg-type]
        ),
        (
            "  tokens per CPU-second of the app's process",
            f"{tokens / float(stream['cpu_seconds']):,.0f}",  # type: ignore[arg-type]
        ),
        (
            "  the same stream, core alone (no UI)",
            f"{tokens / float(stream['core_seconds']):,.0f} tokens/s",  # type: ignore[arg-type]
        ),
        ("  longest event-loop pause while streaming", ms(stream["max_lag"])),
        ("  99th percentile pause", ms(stream["p99_lag"])),
        ("  parts / final Markdown equals the answer", f"{stream['parts']} / {stream['complete']}"),
        (f"  keys typed meanwhile (1 per {TYPING_SECONDS:g} s), echoed", f"{len(echo)}"),
        ("  key → echo painted: median", ms(percentile(echo, 0.5))),
        (
            "  key → echo painted: 99th percentile / longest",
            f"{ms(percentile(echo, 0.99))} / {ms(max(echo, default=0.0))}",
        ),
        ("  peak memory of the app's process (RSS)", f"{stream['max_rss_mb']:,.0f} MB"),
        ("  load average (1 min) at the end of the stream", f"{stream['loadavg']:.2f}"),
    ]


def target_rows(stream: dict[str, object]) -> list[Row]:
    """Issue 19's streaming targets: each figure and its ratio to the target (≥ 1 is met)."""
    rate = int(stream["tokens"]) / float(stream["ui_seconds"])  # type: ignore[call-overload,arg-type]
    p99, longest = float(stream["p99_lag"]), float(stream["max_lag"])  # type: ignore[arg-type]
    echo = percentile(stream.get("key_to_echo", []), 0.99)  # type: ignore[arg-type]
    return [
        ("target: ≥ 5,000 tokens/s through the TUI", f"{rate:,.0f} ({rate / 5000:.2f}×)"),
        ("target: p99 event-loop pause ≤ 33 ms", f"{p99 * 1000:,.0f} ms ({0.033 / p99:.2f}×)"),
        ("target: no pause > 100 ms", f"{longest * 1000:,.0f} ms ({0.1 / longest:.2f}×)"),
        ("target: key → echo p99 ≤ 50 ms", f"{echo * 1000:,.0f} ms ({0.05 / echo:.2f}×)"),
    ]


def fenced_table(split: dict[str, dict[str, float]], fenced: dict[str, object]) -> list[Row]:
    reply, fence = split["fenced"], split["one fence"]
    return [
        (
            f"stream a {reply['lines']:,.0f}-line fenced reply in {fenced['tokens']:,} "
            "4-char deltas",
            f"{float(fenced['ui_seconds']):,.2f} s",  # type: ignore[arg-type]
        ),
        ("  longest event-loop pause while streaming", ms(fenced["max_lag"])),
        ("  99th percentile pause", ms(fenced["p99_lag"])),
        ("  parts / final Markdown equals the reply", f"{fenced['parts']} / {fenced['complete']}"),
        (
            f"PartSplitter on it alone ({reply['chars']:,.0f} chars, {reply['parts']:.0f} parts)",
            f"{reply['seconds'] * 1000:,.1f} ms",
        ),
        (
            "  per delta / chars parsed per char",
            f"{reply['per_delta'] * 1e6:.1f} µs / {reply['parsed']:.2f}",
        ),
        (
            f"PartSplitter on one {fence['lines']:,.0f}-line fence ({fence['chars']:,.0f} chars)",
            f"{fence['seconds'] * 1000:,.1f} ms",
        ),
        (
            "  per delta / chars parsed per char",
            f"{fence['per_delta'] * 1e6:.1f} µs / {fence['parsed']:.2f}",
        ),
    ]


def print_table(rows: list[Row]) -> None:
    width = max(len(r[0]) for r in rows)
    values = max(16, *(len(r[1]) for r in rows))
    print(f"| {'measure':<{width}} | {'result':>{values}} |")
    print(f"|{'-' * (width + 2)}|{'-' * (values + 2)}|")
    for name, value in rows:
        print(f"| {name:<{width}} | {value:>{values}} |")


if __name__ == "__main__":
    main()
