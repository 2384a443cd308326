"""Starting and watching fixture-server processes from tests (HTTP server, child pids)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.core.mcp.conftest import FIXTURE
from tests.core.mcp.preforked import preforked


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def listening(argv: list[str], port: int, what: str, deadline: float = 20.0) -> Iterator[None]:
    """Run ``argv`` until the block ends, once it listens on 127.0.0.1:``port`` (a
    ``RuntimeError`` naming ``what`` if it exits or is not listening by ``deadline``)."""
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        end = time.monotonic() + deadline
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > end:
                    raise RuntimeError(f"{what} did not start") from None
                time.sleep(0.05)
        yield
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextlib.contextmanager
def http_server(name: str, deadline: float = 20.0) -> Iterator[str]:
    """The fixture server over streamable HTTP on 127.0.0.1; yields its URL."""
    port = free_port()
    argv = preforked(FIXTURE, "--mode", "http", "--port", str(port), "--name", name)
    with listening(argv, port, "the HTTP fixture server", deadline):
        yield f"http://127.0.0.1:{port}/mcp"


@contextlib.contextmanager
def status_server(
    status: int | None = None, ref: str | None = None, *, session: bool = False
) -> Iterator[str]:
    """The plain JSON-RPC HTTP fixture (``--mode http-status``); yields its URL."""
    port = free_port()
    argv = [sys.executable, str(FIXTURE), "--mode", "http-status", "--port", str(port)]
    if status is not None:
        argv += ["--status", str(status)]
    if ref is not None:
        argv += ["--ref", ref]
    if session:
        argv.append("--session")
    with listening(argv, port, "the http-status fixture"):
        yield f"http://127.0.0.1:{port}/mcp"


class ServerProcess:
    """An HTTP server process on a fixed 127.0.0.1 port that a test kills (SIGKILL) and starts
    again on the same port: ``argv`` with ``{port}`` filled in, ``env`` added to the test's."""

    def __init__(self, argv: list[str], *, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.argv = [part.replace("{port}", str(self.port)) for part in argv]
        self.env = {
            **os.environ,
            **{k: v.replace("{port}", str(self.port)) for k, v in (env or {}).items()},
        }
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.process: asyncio.subprocess.Process | None = None

    async def start(self, deadline: float = 30.0) -> None:
        """Start it and wait until it listens (a ``RuntimeError`` if it exits or does not)."""
        self.process = await asyncio.create_subprocess_exec(
            *self.argv,
            env=self.env,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        loop = asyncio.get_running_loop()
        end = loop.time() + deadline
        while True:
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", self.port)
            except OSError:
                if self.process.returncode is not None or loop.time() > end:
                    raise RuntimeError(f"{self.argv[:3]} did not start listening") from None
                await asyncio.sleep(0.05)
                continue
            writer.close()
            return

    async def kill(self) -> float:
        """SIGKILL it and reap it; ``time.monotonic()`` at the moment of the kill."""
        assert self.process is not None
        killed = time.monotonic()
        self.process.kill()
        await asyncio.wait_for(self.process.wait(), 10)
        return killed

    async def stop(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.kill()
            await self.process.wait()


def fixture_pids(marker: str) -> list[int]:
    """Live fixture-server processes whose command line contains ``marker``."""
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[-1].split()[0]
        except OSError:
            continue
        args = [a.decode(errors="replace") for a in cmdline]
        if str(FIXTURE) in args and marker in args and state != "Z":
            found.append(int(entry.name))
    return sorted(p for p in found if p != os.getpid())


class HeldClient:
    """An SDK ``Client`` entered and left in one task of its own (the SDK requires it), so a
    fixture can hold it open across tests while the tests call it from theirs."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self._ready = asyncio.Event()
        self._done = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def _hold(self) -> None:
        async with self._client:
            self._ready.set()
            await self._done.wait()

    async def open(self) -> Any:
        self._task = asyncio.create_task(self._hold())
        waiter = asyncio.create_task(self._ready.wait())
        await asyncio.wait({self._task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        if self._task.done():
            waiter.cancel()
            self._task.result()  # raises why it could not connect
        return self._client

    async def close(self) -> None:
        self._done.set()
        if self._task is not None:
            await self._task
