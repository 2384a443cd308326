"""The OAuth test server (``tests/mcp_servers/oauth_server.py``) as a process on 127.0.0.1, and
a stand-in for the browser: it follows the authorization URL with an HTTP client (the server
approves at once and redirects to the loopback callback)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

import httpx2

from tests.core.mcp.conftest import ROOT
from tests.core.mcp.preforked import preforked
from tests.core.mcp.servers import free_port, listening

OAUTH_SERVER = ROOT / "tests" / "mcp_servers" / "oauth_server.py"


@contextlib.contextmanager
def oauth_server(*args: str, deadline: float = 20.0) -> Iterator[str]:
    """Start the server (``--token-seconds N``, ``--no-registration``); yields its base URL."""
    port = free_port()
    argv = preforked(OAUTH_SERVER, "--port", str(port), *args)
    with listening(argv, port, "the OAuth test server", deadline):
        yield f"http://127.0.0.1:{port}"


def stats(base: str) -> dict[str, Any]:
    result: dict[str, Any] = httpx2.get(f"{base}/stats", timeout=10).json()
    return result


class Browser:
    """``open(url)`` follows ``url`` in a thread, as a browser would; ``urls`` are the URLs it
    was given, ``pages`` the final responses (the callback's page)."""

    def __init__(self) -> None:
        self.urls: list[str] = []
        self.pages: list[httpx2.Response] = []
        self.errors: list[BaseException] = []

    def open(self, url: str) -> bool:
        self.urls.append(url)
        threading.Thread(target=self._follow, args=(url,), daemon=True).start()
        return True

    def _follow(self, url: str) -> None:
        assert url.startswith("http://127.0.0.1:"), url  # never any other address
        try:
            self.pages.append(httpx2.get(url, follow_redirects=True, timeout=30))
        except BaseException as exc:
            self.errors.append(exc)
