"""web_fetch against a real HTTP server on 127.0.0.1 (allowed by an explicit rule, as no other
test host is): Markdown, charsets, redirects, the byte cap, binary, and the SSRF refusals —
which happen before anything connects (an audit hook sees every connect of this process)."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.core.tools.web_server import web_server

from agent_tui.core.agent.agent import Agent
from agent_tui.core.events import PermissionRequest, ToolErrorEvent, ToolResult
from agent_tui.core.permissions import (
    Approval,
    ApprovalRequest,
    PermissionPipeline,
    RuleSet,
    SimplePolicy,
)
from agent_tui.core.permissions.decision import Step
from agent_tui.core.permissions.domains import RuleHosts
from agent_tui.core.permissions.modes import Mode
from agent_tui.core.permissions.rules import Rule, RuleError
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.tools.builtin.web_fetch import MAX_BYTES
from agent_tui.core.tools.registry import DispatchOutcome

LOOPBACK = "web_fetch(domain:127.0.0.1)"

# -- every connect this process makes, while a test watches ----------------------------------

_connects: list[Any] = []
_watching = threading.Event()


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event == "socket.connect" and _watching.is_set():
        _connects.append(args[1])


sys.addaudithook(_audit)


@pytest.fixture
def connects() -> Iterator[list[Any]]:
    _connects.clear()
    _watching.set()
    try:
        yield _connects
    finally:
        _watching.clear()


@pytest.fixture
def server() -> Iterator[Any]:
    with web_server() as running:
        yield running


def _base(server: Any) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


async def _fetch(url: str, *rules: str, **args: Any) -> DispatchOutcome:
    parsed = [Rule.parse(r) for r in rules]
    ctx = ToolContext(cwd=Path.cwd(), hosts=RuleHosts(parsed, ["web_fetch"]))
    return await default_registry().dispatch("web_fetch", json.dumps({"url": url, **args}), ctx)


def _content(outcome: DispatchOutcome) -> str:
    assert outcome.output is not None, outcome.error
    return outcome.output.content


async def test_a_page_becomes_markdown(server: Any) -> None:
    outcome = await _fetch(f"{_base(server)}/page", LOOPBACK)
    text = _content(outcome)
    assert outcome.output is not None
    assert not outcome.output.is_error
    assert "# Parser notes" in text
    assert "**fast** — Café & crème" in text  # charset from the <meta>, entities decoded
    assert "```python\ndef parse(text):" in text
    assert "| Option" in text
    assert "| strict" in text
    assert "[link](https://example.org/x)" in text
    assert "tracking" not in text
    assert "color: red" not in text
    data = outcome.output.data
    assert data["status"] == 200
    assert data["host"] == "127.0.0.1"
    assert outcome.output.summary.startswith("200 · 127.0.0.1 · ")


async def test_text_is_returned_as_is_in_its_charset_and_binary_is_refused(server: Any) -> None:
    assert "Café crème" in _content(await _fetch(f"{_base(server)}/latin1", LOOPBACK))
    assert '{"ok": true}' in _content(await _fetch(f"{_base(server)}/json", LOOPBACK))
    image = await _fetch(f"{_base(server)}/image", LOOPBACK)
    assert image.error is not None
    assert image.error.code == "binary_content"
    assert "image/png" in image.error.message
    missing = await _fetch(f"{_base(server)}/missing", LOOPBACK)
    assert missing.output is not None
    assert missing.output.is_error
    assert "404" in missing.output.summary
    assert "Not here" in missing.output.content


async def test_max_chars_cuts_the_text_with_a_note(server: Any) -> None:
    text = _content(await _fetch(f"{_base(server)}/page", LOOPBACK, max_chars=40))
    assert "[cut at 40 of " in text


async def test_a_redirect_is_followed_and_a_loop_ends_cleanly(server: Any) -> None:
    followed = await _fetch(f"{_base(server)}/go", LOOPBACK)
    assert "# Parser notes" in _content(followed)
    assert followed.output is not None
    assert followed.output.data["redirects"] == [f"{_base(server)}/page"]
    loop = await _fetch(f"{_base(server)}/loop", LOOPBACK)
    assert loop.error is not None
    assert loop.error.code == "too_many_redirects"
    assert "stopped after 5 redirects" in loop.error.message
    assert [path for _, path in server.hits].count("/loop") == 6  # the first and 5 hops


async def test_a_20_mb_page_ends_cleanly_at_the_cap(server: Any) -> None:
    outcome = await _fetch(f"{_base(server)}/big", LOOPBACK, max_chars=1000)
    text = _content(outcome)
    assert outcome.output is not None
    assert outcome.output.data["bytes"] == MAX_BYTES
    assert outcome.output.data["truncated"] is True
    assert "reading stopped there, the rest was not downloaded" in text
    assert server.sent < 20 * 1024 * 1024  # it stopped sending: the client closed


async def test_metadata_and_localhost_are_refused_before_connecting(
    server: Any, connects: list[Any]
) -> None:
    metadata = await _fetch("http://169.254.169.254/latest/meta-data/", LOOPBACK)
    assert metadata.error is not None
    assert metadata.error.code == "private_address"
    assert "link-local" in metadata.error.message
    assert "web_fetch(domain:169.254.169.254)" in metadata.error.next_step
    port = server.server_address[1]
    local = await _fetch(f"http://localhost:{port}/page", LOOPBACK)
    assert local.error is not None
    assert local.error.code == "private_address"
    no_rule = await _fetch(f"http://127.0.0.1:{port}/page")
    assert no_rule.error is not None
    assert no_rule.error.code == "private_address"
    for url in ("http://[::1]/", "http://10.0.0.8/", "http://[fd00::1]/", "http://0.0.0.0/",
                "http://224.0.0.1/", "http://[::ffff:127.0.0.1]/"):  # fmt: skip
        refused = await _fetch(url, LOOPBACK)
        assert refused.error is not None, url
        assert refused.error.code == "private_address", url
    assert connects == []  # nothing connected anywhere
    assert server.hits == []


async def test_a_redirect_to_loopback_from_an_allowed_host_is_refused(
    server: Any, connects: list[Any]
) -> None:
    port = server.server_address[1]
    outcome = await _fetch(f"http://localhost:{port}/to-loopback", "web_fetch(domain:localhost)")
    assert outcome.error is not None
    assert outcome.error.code == "private_address"
    assert "the redirect to http://127.0.0.1" in outcome.error.message
    assert [path for _, path in server.hits] == ["/to-loopback"]  # /page never asked for
    assert all(address[0] in ("127.0.0.1", "::1") for address in connects)


async def test_a_redirect_to_another_host_is_reported_not_followed(
    server: Any, connects: list[Any]
) -> None:
    outcome = await _fetch(f"{_base(server)}/to-other", LOOPBACK)
    text = _content(outcome)
    assert "https://example.org/elsewhere" in text
    assert "call web_fetch with that URL" in text
    assert all(address[0] == "127.0.0.1" for address in connects)  # example.org never reached


def test_domain_rules_parse_typed_and_judge_by_host(tmp_path: Path) -> None:
    with pytest.raises(RuleError, match="names a domain"):
        Rule.parse("web_fetch(example.com)")
    with pytest.raises(RuleError, match="not a host name"):
        Rule.parse("web_fetch(domain:exa mple.com)")
    rules = RuleSet(
        allow=[Rule.parse("web_fetch(domain:docs.python.org)"),
               Rule.parse("web_fetch(domain:*.example.com)")],
        deny=[Rule.parse("web_fetch(domain:evil.example.com)")],
    )  # fmt: skip
    pipeline = PermissionPipeline(tmp_path, rules)
    tool = default_registry().get("web_fetch")
    assert tool is not None

    def kind(url: str) -> str:
        return pipeline.judge(tool, {"url": url}).kind

    assert kind("https://docs.python.org/3/") == "allow"
    assert kind("https://DOCS.python.org./3/") == "allow"
    assert kind("https://api.example.com/") == "allow"
    assert kind("https://example.com/") == "ask"  # *.example.com: subdomains only
    assert kind("https://evil.example.com/") == "deny"
    asked = pipeline.judge(tool, {"url": "https://news.example.org/a"})
    assert asked.kind == "ask"
    assert [str(r) for r in asked.suggestions] == ["web_fetch(domain:news.example.org)"]
    assert asked.step is Step.NETWORK
    pipeline.set_mode(Mode.PLAN)  # read-only here: plan mode asks, it does not refuse
    assert kind("https://news.example.org/a") == "ask"
    pipeline.set_mode(Mode.BYPASS)
    assert kind("https://news.example.org/a") == "allow"
    assert kind("https://evil.example.com/") == "deny"  # deny wins in every mode
    simple = SimplePolicy().explain(tool)  # the simplest policy asks for it too
    assert simple.kind == "ask"
    # neither a wildcard nor a domain: rule for a name names it for the private-address check
    # (a private: rule does, or a domain: rule for an IP literal or localhost)
    hosts = RuleHosts(rules.allow, ["web_fetch"])
    assert not hosts.names("docs.python.org")
    assert not hosts.names("api.example.com")


async def test_the_loop_refuses_metadata_without_asking_and_asks_for_a_public_host(
    tmp_path: Path, connects: list[Any]
) -> None:
    calls = [
        {"id": "m", "name": "web_fetch", "arguments": {"url": "http://169.254.169.254/"}},
        {"id": "p", "name": "web_fetch", "arguments": {"url": "https://example.org/"}},
    ]
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"turns": [{"tool_calls": calls}, {"text": "ok"}]}))
    asked: list[str] = []

    async def deny(request: ApprovalRequest) -> Approval:
        asked.append(request.call.id)
        return Approval(allowed=False)

    agent = Agent(ScriptProvider(script), default_registry(), tmp_path,
                  policy=PermissionPipeline(tmp_path), asker=deny, system="test")  # fmt: skip
    events = [event async for event in agent.run("fetch")]
    await agent.close()
    errors = {e.id: e.code for e in events if isinstance(e, ToolErrorEvent)}
    assert errors["m"] == "private_address"
    assert asked == ["p"]  # the public host asked (and was refused by the user)
    assert [e.id for e in events if isinstance(e, PermissionRequest)] == ["p"]
    assert not [e for e in events if isinstance(e, ToolResult)]
    assert connects == []


async def test_a_big_page_goes_through_the_output_budget(tmp_path: Path, server: Any) -> None:
    """Allowed by a rule naming 127.0.0.1, the loop runs it without asking; its 100,000
    characters are over the per-result budget: spilled, the model gets an excerpt."""
    call = {"id": "b", "name": "web_fetch", "arguments": {"url": f"{_base(server)}/big"}}
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"turns": [{"tool_calls": [call]}, {"text": "ok"}]}))
    rules = RuleSet(allow=[Rule.parse(LOOPBACK)])
    agent = Agent(ScriptProvider(script), default_registry(), tmp_path,
                  policy=PermissionPipeline(tmp_path, rules), system="test")  # fmt: skip
    events = [event async for event in agent.run("fetch")]
    await agent.close()
    assert not [e for e in events if isinstance(e, PermissionRequest)]
    result = next(e for e in events if isinstance(e, ToolResult))
    assert result.spill is not None
    assert result.spill.chars > 100_000
    assert len(result.content) < 60_000
    assert result.summary.startswith("200 · 127.0.0.1 · 10.0 MB")


@pytest.fixture
def rebound(monkeypatch: pytest.MonkeyPatch) -> str:
    """A name whose DNS now answers 127.0.0.1 (as an attacker who owns a domain can make it,
    after the user allowed it while it was public). The only stand-in in this file: no real
    DNS exists here."""
    import socket

    real = socket.getaddrinfo
    name = "docs.attacker.example"

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host == name:
            return real("127.0.0.1", port, *args, **kwargs)
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return name


async def test_a_saved_domain_rule_does_not_follow_its_name_to_a_private_address(
    server: Any, connects: list[Any], rebound: str
) -> None:
    """What "always allow" saves for a public host (``domain:NAME``) does not let the name
    resolve to a private address later: refused before connecting, and the next step names the
    rule that would (``private:NAME``)."""
    port = server.server_address[1]
    outcome = await _fetch(f"http://{rebound}:{port}/page", f"web_fetch(domain:{rebound})")
    assert outcome.error is not None
    assert outcome.error.code == "private_address"
    assert "loopback" in outcome.error.message
    assert f"web_fetch(private:{rebound})" in outcome.error.next_step
    assert connects == []
    assert server.hits == []
    wildcard = await _fetch(f"http://{rebound}:{port}/page", "web_fetch(domain:*.attacker.example)")
    assert wildcard.error is not None
    assert wildcard.error.code == "private_address"


async def test_a_private_rule_lets_an_intranet_name_be_fetched(server: Any, rebound: str) -> None:
    port = server.server_address[1]
    outcome = await _fetch(f"http://{rebound}:{port}/page", f"web_fetch(private:{rebound})")
    assert "# Parser notes" in _content(outcome)
    assert [path for _, path in server.hits] == ["/page"]


def test_private_rules_parse_and_name_one_host() -> None:
    rule = Rule.parse("web_fetch(private:nas.lan)")
    assert RuleHosts([rule], ["web_fetch"]).names("nas.lan")
    assert not RuleHosts([Rule.parse("web_fetch(domain:nas.lan)")], ["web_fetch"]).names("nas.lan")
    assert RuleHosts([Rule.parse("web_fetch(domain:localhost)")], ["web_fetch"]).names("localhost")
    with pytest.raises(RuleError, match="not a wildcard"):
        Rule.parse("web_fetch(private:*.lan)")
