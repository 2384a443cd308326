"""Sign-in from the MCP panel: an HTTP server behind OAuth (the test authorization server on
127.0.0.1) shows that it needs sign-in with the hint; ``a`` runs the login in a worker (the
"browser" follows the URL with an HTTP client), and the server reconnects with its tools."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.mcp.auth.token_store import FileTokenStorage
from agent_tui.core.mcp.config.load import user_config_path
from tests.core.mcp.conftest import write_config
from tests.core.mcp.oauth_env import Browser, oauth_server, stats

from .helpers import wait_for
from .test_mcp_panel import CONNECT, fact, open_panel, panel_app, running, select_server


def keep_notices(app: Any) -> list[str]:
    """Every notification the app posts, kept (a toast expires after a few seconds, which a
    loaded machine can spend between two checks)."""
    posted: list[str] = []
    notify = app.notify

    def kept(message: str, *args: Any, **kwargs: Any) -> None:
        posted.append(str(message))
        notify(message, *args, **kwargs)

    app.notify = kept
    return posted


async def test_a_signs_in_and_the_server_reconnects(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    browser = Browser()

    def open_url(url: str, *args: Any, **kwargs: Any) -> bool:
        return browser.open(url)

    monkeypatch.setattr("webbrowser.open", open_url)
    with oauth_server() as base:
        path = user_config_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        write_config(
            path,
            {
                "secure": {"type": "http", "url": f"{base}/mcp"},
                "plain": {"type": "http", "url": f"{base}/mcp", "oauth": False},
            },
        )
        app, manager = panel_app(workspace)
        posted = keep_notices(app)
        async with running(app, manager) as pilot:
            await manager.start()
            await manager.wait_ready()
            panel = await open_panel(pilot)
            await select_server(pilot, panel, "secure")
            await wait_for(pilot, lambda: "failed" in fact(panel, "status"), "secure failed")
            assert fact(panel, "reason") == (
                "this server needs sign-in: press a in the MCP panel, or run "
                "`agent-tui mcp login secure`"
            )
            assert fact(panel, "hint").startswith("a signs in")
            assert browser.urls == []  # nothing opened until the user asks

            await pilot.press("a")
            await wait_for(
                pilot,
                lambda: manager.state("secure").status == "connected",
                "secure connected after the sign-in",
                timeout=CONNECT,
            )
            assert len(browser.urls) == 1
            assert browser.urls[0].startswith(f"{base}/authorize?")
            await wait_for(pilot, lambda: "connected" in fact(panel, "status"), "shown")
            assert fact(panel, "reason") == ""
            assert any(browser.urls[0] in n for n in posted)  # the URL is on screen too
            await wait_for(  # said once the sign-in returns, after the reconnect
                pilot,
                lambda: any(n.startswith("signed in to secure (2 tools)") for n in posted),
                "the signed-in notice",
            )
            assert FileTokenStorage("secure", f"{base}/mcp").signed_in
            assert stats(base)["registered"] == 1

            # A server with sign-in off says so instead of opening anything.
            await select_server(pilot, panel, "plain")
            await pilot.press("a")
            await wait_for(
                pilot,
                lambda: any("plain has no sign-in" in n for n in posted),
                "the no-sign-in notice",
            )
            assert len(browser.urls) == 1
