"""The MCP panel with a server whose ``oauth`` grant needs no browser: the grant's refusal is
the reason, the hint says ``a`` gets a new token without a browser, and ``a`` reports the
refusal again without opening one (a real token endpoint on 127.0.0.1); the snapshot of that
state is fed fixed data."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.mcp.client.overview import McpOverview, ServerRow
from agent_tui.core.mcp.config.load import user_config_path
from tests.core.mcp.conftest import write_config
from tests.core.mcp.grant_env import grant_server, grant_stats, key_pair

from .helpers import wait_for
from .test_mcp_panel import fact, open_panel, panel_app, running, select_server
from .test_mcp_panel_sign_in import keep_notices
from .test_mcp_panel_snapshots import FILES, PROJECT, USER, SnapCompare, showing, state
from .test_mcp_panel_snapshots import panel_app as snapshot_app

REFUSED = (
    "the authorization server refused the client_credentials grant for billing (HTTP 401: "
    "invalid_client: Invalid client credentials): check oauth.client_id and "
    "oauth.client_secret (or private_key_file)"
)


async def test_a_refused_grant_and_what_a_does(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[str] = []
    monkeypatch.setattr("webbrowser.open", lambda url, *a, **k: bool(opened.append(url)))
    with grant_server(key_pair(tmp_path)[1]) as base:
        path = user_config_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        oauth = {"grant": "client_credentials", "client_id": "svc", "client_secret": "nope"}
        write_config(path, {"billing": {"type": "http", "url": f"{base}/mcp", "oauth": oauth}})
        app, manager = panel_app(workspace)
        posted = keep_notices(app)
        async with running(app, manager) as pilot:
            await manager.start()
            await manager.wait_ready()
            panel = await open_panel(pilot)
            await select_server(pilot, panel, "billing")
            await wait_for(pilot, lambda: "failed" in fact(panel, "status"), "billing failed")
            assert fact(panel, "reason") == REFUSED
            assert fact(panel, "hint") == (
                "a gets a new token with its client_credentials grant (no browser), then reconnects"
            )
            refused = len(grant_stats(base)["refused"])

            await pilot.press("a")
            await wait_for(pilot, lambda: any(REFUSED in n for n in posted), "the refusal")
            assert len(grant_stats(base)["refused"]) == refused + 1  # asked again, once
            assert opened == []
            assert not any("nope" in n for n in posted)


GRANT = McpOverview(
    servers=(
        ServerRow(
            state(
                "billing",
                "failed",
                transport="http",
                target="https://billing.corp.example/mcp",
                reason=REFUSED,
                source=str(USER),
                can_sign_in=True,
                auth_required=True,
                grant="client_credentials",
                failure_kind="sign_in",
                http_status=401,
            )
        ),
        ServerRow(
            state(
                "wiki",
                "connected",
                transport="http",
                target="https://wiki.corp.example/mcp",
                protocol_version="2025-11-25",
                connect_seconds=0.41,
                can_sign_in=True,
                grant="enterprise_managed",
            )
        ),
    ),
    files=FILES,
    cost_line="tools array ~0.4k tokens per request; every tool is direct",
    project_file=PROJECT,
)


def test_a_refused_grant_snapshot(snap_compare: SnapCompare, tmp_path: Path) -> None:
    assert snap_compare(snapshot_app(tmp_path), terminal_size=(140, 40), run_before=showing(GRANT))
