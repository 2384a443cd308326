"""web_fetch in the lane: its card names the URL and says the status, the host and the size;
a refused private address is an error card with its code. A real server on 127.0.0.1, allowed
by an explicit rule."""

from __future__ import annotations

import json
from pathlib import Path

from agent_tui.core.agent.agent import Agent
from agent_tui.core.permissions import PermissionPipeline, RuleSet
from agent_tui.core.permissions.rules import Rule
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.tools.builtin import default_registry
from agent_tui.ui.calls.state import CallStatus
from agent_tui.ui.lane.card_head import CardHead
from tests.core.tools.web_server import web_server

from .helpers import make_app, submit, wait_for

WAIT = 30.0


async def test_the_card_shows_the_url_and_the_status(tmp_path: Path) -> None:
    with web_server() as server:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        calls = [
            {"id": "ok", "name": "web_fetch", "arguments": {"url": f"{base}/page"}},
            {"id": "meta", "name": "web_fetch", "arguments": {"url": "http://169.254.169.254/"}},
        ]
        script = tmp_path / "script.json"
        script.write_text(json.dumps({"turns": [{"tool_calls": calls}, {"text": "ok"}]}))
        rules = RuleSet(allow=[Rule.parse("web_fetch(domain:127.0.0.1)")])
        agent = Agent(ScriptProvider(script), default_registry(), tmp_path,
                      policy=PermissionPipeline(tmp_path, rules), system="test")  # fmt: skip
        app = make_app(agent)
        async with app.run_test(size=(140, 40)) as pilot:
            await submit(pilot, "fetch")
            await wait_for(pilot, lambda: not app.busy, "the turn to end", WAIT)
            await app.main.lane.settle()
            ok, meta = app.calls.get("ok"), app.calls.get("meta")
            assert ok is not None
            assert meta is not None
            assert ok.status is CallStatus.OK
            assert ok.summary == f"{base}/page"
            assert ok.outcome.startswith("200 · 127.0.0.1 · ")
            assert "chars" in ok.outcome
            assert meta.status is CallStatus.ERROR
            assert meta.code == "private_address"
            head = app.main.lane.cards["ok"].query_one(CardHead)
            assert "127.0.0.1" in str(head.render())
