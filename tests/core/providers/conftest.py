"""A real, scriptable HTTP server on 127.0.0.1 for the provider tests.

Each test queues responses (status, headers, body chunks sent with chunked transfer encoding
and flushed one by one, so the client really receives fragments) and reads back the requests
the server received. The server runs in a background thread, independent of the test's event
loop. Nothing in it sleeps for a fixed time: a "hang" waits on an event released at teardown.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from agent_tui.core.tools import Tool, ToolContext, ToolInput, ToolOutput, ToolRegistry


@dataclass
class ScriptedResponse:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    chunks: list[bytes] = field(default_factory=list)
    hang_before_headers: bool = False
    """Accept the request, then send nothing (to provoke a read timeout)."""
    hang_after_chunks: bool = False
    """Send the chunks, then keep the connection open without finishing the body."""
    drop: bool = False
    """Close the connection without sending a response at all."""
    cut_after_chunks: bool = False
    """Send the chunks, then close the connection without finishing the body."""
    reset_after_chunks: bool = False
    """Send the chunks, then reset the connection (a TCP RST: SO_LINGER 0, then close)."""
    keepalive_after_chunks: bool = False
    """Send the chunks, then only SSE comments (``: ping``), one every 20 ms, until the client
    goes away or the test ends: a server that holds the turn without content."""


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


class FakeServer:
    def __init__(self) -> None:
        self._responses: deque[ScriptedResponse] = deque()
        self.requests: list[RecordedRequest] = []
        self.release = threading.Event()
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.release.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=10)

    # -- scripting --------------------------------------------------------------------------

    def add(self, response: ScriptedResponse) -> None:
        with self._lock:
            self._responses.append(response)

    @staticmethod
    def sse_bytes(
        *events: dict[str, Any] | str,
        event_names: bool = False,
        raw_unicode: bool = False,
        newline: str = "\n",
    ) -> bytes:
        """``data: <json>`` blocks (a str is sent verbatim as the data, e.g. ``[DONE]``);
        with ``event_names`` each dict also gets an ``event: <its type>`` line. With
        ``raw_unicode`` non-ASCII characters are sent as UTF-8, not ``\\u`` escapes (as many
        servers do); ``newline`` ends every line (``"\\r\\n"``, ``"\\r"``)."""
        out: list[str] = []
        for item in events:
            if isinstance(item, str):
                out.append(f"data: {item}{newline}{newline}")
                continue
            prefix = f"event: {item['type']}{newline}" if event_names else ""
            data = json.dumps(item, ensure_ascii=not raw_unicode)
            out.append(f"{prefix}data: {data}{newline}{newline}")
        return "".join(out).encode()

    def add_sse(self, body: bytes, *, chunk_size: int | None = None, **kwargs: Any) -> None:
        """Queue an event-stream reply, sent in ``chunk_size``-byte fragments if given."""
        if chunk_size:
            chunks = [body[i : i + chunk_size] for i in range(0, len(body), chunk_size)]
        else:
            chunks = [body]
        headers = {"Content-Type": "text/event-stream", **kwargs.pop("headers", {})}
        self.add(ScriptedResponse(headers=headers, chunks=chunks, **kwargs))

    def add_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        self.add(
            ScriptedResponse(
                status=status,
                headers={"Content-Type": "application/json", **(headers or {})},
                chunks=[json.dumps(payload).encode()],
            )
        )

    def add_text(self, status: int, body: bytes, content_type: str = "text/plain") -> None:
        self.add(ScriptedResponse(status, {"Content-Type": content_type}, [body]))

    def add_drop(self) -> None:
        """Queue a reply that closes the connection without answering."""
        self.add(ScriptedResponse(drop=True))

    def add_hang(self) -> None:
        """Queue a reply that accepts the request and then sends nothing at all."""
        self.add(ScriptedResponse(hang_before_headers=True))

    def next_response(self) -> ScriptedResponse:
        with self._lock:
            if self._responses:
                return self._responses.popleft()
        return ScriptedResponse(status=599, chunks=[b'{"error":{"message":"no scripted reply"}}'])

    def record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)


def _make_handler(server: FakeServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            headers = {k.lower(): v for k, v in self.headers.items()}
            server.record(RecordedRequest("POST", self.path, headers, body))
            reply = server.next_response()
            try:
                self._reply(reply)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeouts, cancellation): fine
            self.close_connection = True

        def _reply(self, reply: ScriptedResponse) -> None:
            if reply.drop:
                return
            if reply.hang_before_headers:
                server.release.wait(30)
                return
            self.send_response(reply.status)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.flush()
            for chunk in reply.chunks:
                if chunk:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.wfile.flush()
            if reply.hang_after_chunks:
                server.release.wait(30)
                return
            if reply.cut_after_chunks:
                return
            if reply.reset_after_chunks:
                self.connection.setsockopt(
                    socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
                )
                self.connection.close()
                return
            if reply.keepalive_after_chunks:
                ping = b": ping\n\n"
                while not server.release.wait(0.02):  # a heartbeat, not a wait for a result
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(ping), ping))
                    self.wfile.flush()
                return
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

    return Handler


@pytest.fixture
def server() -> Iterator[FakeServer]:
    fake = FakeServer()
    fake.start()
    yield fake
    fake.stop()


@pytest.fixture
def refused_url() -> Iterator[str]:
    """A 127.0.0.1 URL nothing listens on: a bound but non-listening socket refuses."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    sock.close()


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests see no provider configuration (or proxies) from the developer's shell."""
    for name in (
        "AGENT_BASE_URL",
        "AGENT_API_KEY",
        "AGENT_MODEL",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "ANTHROPIC_MODEL",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ):
        monkeypatch.delenv(name, raising=False)


class _PathInput(ToolInput):
    path: str


class _GrepInput(ToolInput):
    pattern: str


async def _unused(_: ToolInput, __: ToolContext) -> ToolOutput:
    raise AssertionError("providers never run tools")


@pytest.fixture
def registry() -> ToolRegistry:
    """Two tools, so the wire ``tools`` arrays are non-trivial."""
    return ToolRegistry(
        [
            Tool(
                name="read_file", description="Read a file.", input_model=_PathInput, call=_unused
            ),
            Tool(name="grep", description="Search files.", input_model=_GrepInput, call=_unused),
        ]
    )
