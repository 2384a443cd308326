"""A real HTTP server on 127.0.0.1 for the web_fetch tests (a thread of the test process):
pages, redirects (a loop, one to 127.0.0.1), a 20 MB body, binary, other charsets."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>Parser notes</title>
<style>body { color: red }</style><script>var tracking = 1;</script></head><body>
<nav><a href="/">Home</a> <a href="/docs">Docs</a></nav>
<main><h1>Parser notes</h1>
<p>The parser is <strong>fast</strong> — Café &amp; crème.</p>
<pre><code class="language-python">def parse(text):
    return tokens(text)
</code></pre>
<table><tr><th>Option</th><th>Default</th></tr><tr><td>strict</td><td>false</td></tr></table>
<ul><li>one <a href="https://example.org/x">link</a></li><li>two</li></ul></main></body></html>
"""
BIG = 20 * 1024 * 1024
CHUNK = 64 * 1024


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return None

    def _send(self, status: int, body: bytes, content_type: str, **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in headers.items():
            self.send_header(key.replace("_", "-"), value)
        self.end_headers()
        self.wfile.write(body)

    def _redirect(self, location: str) -> None:
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        server = self.server
        assert isinstance(server, _Server)
        server.hits.append((self.headers.get("Host", ""), self.path))
        port = server.server_address[1]
        if self.path == "/page":
            self._send(200, PAGE.encode("utf-8"), "text/html")
        elif self.path == "/latin1":
            self._send(200, "Café crème\n".encode("latin-1"), "text/plain; charset=iso-8859-1")
        elif self.path == "/json":
            self._send(200, b'{"ok": true}\n', "application/json")
        elif self.path == "/loop":
            self._redirect("/loop")
        elif self.path == "/go":
            self._redirect("/page")
        elif self.path == "/to-loopback":
            self._redirect(f"http://127.0.0.1:{port}/page")
        elif self.path == "/to-other":
            self._redirect("https://example.org/elsewhere")
        elif self.path == "/image":
            self._send(200, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(200), "image/png")
        elif self.path == "/missing":
            self._send(404, b"<h1>Not here</h1>", "text/html; charset=utf-8")
        elif self.path == "/big":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(BIG))
            self.end_headers()
            line = (b"x" * 63) + b"\n"
            block = line * (CHUNK // len(line))
            try:
                for _ in range(BIG // len(block)):
                    self.wfile.write(block)
                    server.sent += len(block)
            except (BrokenPipeError, ConnectionResetError):
                return
        else:
            self._send(404, b"no such path", "text/plain")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    hits: list[tuple[str, str]]
    sent: int


@contextlib.contextmanager
def web_server() -> Iterator[_Server]:
    """The server, listening on 127.0.0.1 (an ephemeral port) until the block ends."""
    server = _Server(("127.0.0.1", 0), _Handler)
    server.hits = []
    server.sent = 0
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=30)
