"""The parts of the OAuth sign-in on their own: the token file (modes, atomic replace, a corrupt
file), the loopback redirect listener (state, refusal, timeout) and the ``"oauth"`` key of
``.mcp.json``."""

from __future__ import annotations

import asyncio
import json
import stat
from pathlib import Path
from typing import Any

import httpx2
import pytest

from agent_tui.core.mcp.auth.oauth import CallbackListener, LoginError
from agent_tui.core.mcp.auth.token_store import FileTokenStorage, auth_dir
from agent_tui.core.mcp.config.load import load_config
from agent_tui.core.mcp.config.oauth_entry import OAuthEntry
from tests.core.mcp.conftest import write_config

URL = "http://127.0.0.1:9/mcp"


async def test_token_file_is_private_atomic_and_keyed_by_name_and_url(tmp_path: Path) -> None:
    from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

    storage = FileTokenStorage("tracker", URL)
    assert storage.path.parent == auth_dir()
    assert not storage.signed_in
    assert await storage.get_tokens() is None
    await storage.set_tokens(OAuthToken(access_token="AT", refresh_token="RT", expires_in=60))
    await storage.set_client_info(
        OAuthClientInformationFull(
            client_id="dyn", redirect_uris=["http://127.0.0.1:5000/callback"]
        )  # type: ignore[list-item]
    )
    assert stat.S_IMODE(storage.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(storage.path.parent.stat().st_mode) == 0o700
    assert [p.name for p in storage.path.parent.iterdir()] == [storage.path.name]  # no leftovers
    tokens = await storage.get_tokens()
    assert tokens is not None
    assert tokens.refresh_token == "RT"
    assert storage.expires_at is not None
    assert storage.registered_redirect_uri() == "http://127.0.0.1:5000/callback"
    assert "AT" not in repr(storage)

    # Another URL, or another name, is another sign-in.
    assert not FileTokenStorage("tracker", "http://127.0.0.1:9/other").signed_in
    assert not FileTokenStorage("other", URL).signed_in

    storage.forget_tokens()  # a new sign-in keeps the registered client
    assert not storage.signed_in
    assert (await storage.get_client_info()).client_id == "dyn"
    assert storage.remove()
    assert not storage.path.exists()
    assert not storage.remove()


async def test_a_corrupt_token_file_is_not_signed_in_with_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    storage = FileTokenStorage("tracker", URL)
    storage.path.parent.mkdir(parents=True)
    storage.path.write_text("{not json")
    assert await storage.get_tokens() is None
    assert storage.warning is not None
    assert "treated as not signed in; sign in again to replace it" in storage.warning
    assert str(storage.path) in caplog.text
    storage.path.write_text(json.dumps({"url": URL, "tokens": {"access_token": 5}}))
    assert await storage.get_tokens() is None
    assert storage.warning is not None


async def test_a_pre_registered_client_comes_from_the_configuration() -> None:
    from mcp.shared.auth import OAuthClientInformationFull

    oauth = OAuthEntry(client_id="cid", client_secret="sec", scopes=["a", "b"])
    storage = FileTokenStorage("tracker", URL, oauth, redirect_uri="http://127.0.0.1:7/callback")
    await storage.set_client_info(OAuthClientInformationFull(client_id="ignored"))
    info = await storage.get_client_info()
    assert (info.client_id, info.client_secret, info.scope) == ("cid", "sec", "a b")
    assert info.token_endpoint_auth_method == "client_secret_post"
    assert not storage.path.exists()  # nothing of the configured client is written


async def _get(url: str) -> httpx2.Response:
    async with httpx2.AsyncClient() as client:
        return await client.get(url)


async def test_the_redirect_listener_takes_only_its_state_and_times_out() -> None:
    listener = await CallbackListener.start()
    try:
        assert listener.redirect_uri == f"http://127.0.0.1:{listener.port}/callback"
        listener.expect("http://127.0.0.1:1/authorize?state=s1&client_id=x")
        base = listener.redirect_uri
        assert (await _get(f"{base}?code=c&state=other")).status_code == 400
        assert (await _get(f"http://127.0.0.1:{listener.port}/favicon.ico")).status_code == 404
        with pytest.raises(LoginError, match=r"no answer from the browser within 0\.2 s"):
            await listener.wait(0.2)
        page = await _get(f"{base}?code=c1&state=s1")
        assert page.status_code == 200
        assert "You can close this tab" in page.text
        assert await listener.wait(5) == ("c1", "s1", None)
    finally:
        await listener.close()


async def test_the_redirect_listener_keeps_the_issuer_of_the_response() -> None:
    """RFC 9207: the authorization server names itself in ``iss``; the SDK compares it with
    the issuer and refuses a response without it when the server said it sends one, so it
    must reach the SDK (dropped, every such server refused the sign-in)."""
    listener = await CallbackListener.start()
    try:
        listener.expect("http://127.0.0.1:1/authorize?state=s1")
        issuer = "http://127.0.0.1:1/tenant"
        page = await _get(f"{listener.redirect_uri}?code=c1&state=s1&iss={issuer}")
        assert page.status_code == 200
        assert await listener.wait(5) == ("c1", "s1", issuer)
    finally:
        await listener.close()


async def test_a_second_authorization_waits_for_its_own_response() -> None:
    """One sign-in may authorize twice (the server moved to another authorization server):
    the second request gets its own code, not the first answer again (which the SDK refused
    as a state mismatch)."""
    listener = await CallbackListener.start()
    try:
        listener.expect("http://127.0.0.1:1/authorize?state=first")
        assert (await _get(f"{listener.redirect_uri}?code=c1&state=first")).status_code == 200
        assert (await listener.wait(5)).code == "c1"
        listener.expect("http://127.0.0.1:2/authorize?state=second")
        with pytest.raises(LoginError, match="no answer from the browser"):
            await listener.wait(0.2)  # the first answer is not given again
        late = await _get(f"{listener.redirect_uri}?code=c1&state=first")
        assert late.status_code == 400  # a replay of the first response is refused
        assert (await _get(f"{listener.redirect_uri}?code=c2&state=second")).status_code == 200
        assert await listener.wait(5) == ("c2", "second", None)
    finally:
        await listener.close()


async def test_the_redirect_listener_reports_a_refusal() -> None:
    listener = await CallbackListener.start()
    try:
        listener.expect("http://127.0.0.1:1/authorize?state=s1")
        reply = await _get(f"{listener.redirect_uri}?error=access_denied&state=s1")
        assert reply.status_code == 400
        with pytest.raises(LoginError, match="refused the sign-in: access_denied"):
            await listener.wait(5)
    finally:
        await listener.close()


def _load(workspace: Path, entry: dict[str, Any], environ: dict[str, str] | None = None) -> Any:
    write_config(workspace / ".mcp.json", {"s": entry})
    config = load_config(workspace, paths=[workspace / ".mcp.json"], environ=environ or {})
    return config.servers["s"]


@pytest.mark.parametrize(
    ("oauth", "error"),
    [
        ({"client_secret": "x"}, "client_secret needs a client_id"),
        ({"client_id": ""}, "client_id"),
        ({"clientId": "x"}, "clientId"),
        ({"scopes": "read"}, "scopes"),
        ({"callback_port": 80}, "callback_port"),
    ],
)
def test_a_bad_oauth_entry_is_a_broken_server(
    workspace: Path, oauth: dict[str, Any], error: str
) -> None:
    spec = _load(workspace, {"url": URL, "oauth": oauth})
    assert spec.error is not None
    assert error in spec.error


def test_the_oauth_entry(workspace: Path) -> None:
    plain = _load(workspace, {"url": URL})
    assert plain.oauth == OAuthEntry()
    assert plain.error is None
    assert _load(workspace, {"url": URL, "oauth": False}).oauth is None
    header = {"url": URL, "headers": {"authorization": "Bearer x"}}
    assert _load(workspace, header).oauth is None
    assert _load(workspace, {"command": "true"}).oauth is None

    literal = _load(workspace, {"url": URL, "oauth": {"client_id": "c", "client_secret": "s"}})
    assert literal.oauth.client_secret == "s"
    assert any("use an environment variable instead" in w for w in literal.warnings)
    entry = {"url": URL, "oauth": {"client_id": "c", "client_secret": "${SECRET}"}}
    from_env = _load(workspace, entry, {"SECRET": "hunter2-zq"})
    assert from_env.oauth.client_secret == "hunter2-zq"
    assert from_env.warnings == []
    assert "hunter2-zq" not in repr(from_env.oauth)


def test_login_refuses_an_untrusted_project_server(workspace: Path) -> None:
    from agent_tui.core.mcp.auth import oauth
    from agent_tui.core.mcp.config.load import parse_entry

    spec = parse_entry("s", {"url": URL}, workspace / ".mcp.json", {}, base=workspace)
    spec.untrusted = True
    with pytest.raises(LoginError, match="is not trusted yet: trust it first"):
        asyncio.run(oauth.login(spec, on_url=print, open_browser=None))


async def test_one_sign_in_per_server_at_a_time(workspace: Path) -> None:
    from agent_tui.core.mcp.auth import oauth
    from agent_tui.core.mcp.config.load import parse_entry

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()  # a server that never answers: the first sign-in waits

    hung = await asyncio.start_server(silent, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{hung.sockets[0].getsockname()[1]}/mcp"
    spec = parse_entry("s", {"url": url}, workspace / "mcp.json", {}, base=workspace)
    first = asyncio.create_task(oauth.login(spec, on_url=print, open_browser=None, timeout=30))
    try:
        end = asyncio.get_running_loop().time() + 20
        while ("s", url) not in oauth._UNDER_WAY:
            assert asyncio.get_running_loop().time() < end
            await asyncio.sleep(0.01)
        with pytest.raises(LoginError, match="a sign-in to s is already under way"):
            await oauth.login(spec, on_url=print, open_browser=None)
    finally:
        first.cancel()
        with pytest.raises(asyncio.CancelledError):
            await first
        hung.close()
    assert ("s", url) not in oauth._UNDER_WAY


def test_a_token_counts_as_expired_a_little_early() -> None:
    from agent_tui.core.mcp.auth.provider import early_expiry

    assert early_expiry(1000.0, 3600) == 970.0  # at most 30 s early
    assert early_expiry(1000.0, 10) == 999.0  # a tenth of a short lifetime
    assert early_expiry(1000.0, None) == 1000.0
    assert early_expiry(None, 60) is None


def test_a_client_secret_goes_where_the_authorization_server_takes_it() -> None:
    from mcp.shared.auth import OAuthMetadata

    from agent_tui.core.mcp.auth.provider import secret_method

    def metadata(methods: list[str] | None) -> OAuthMetadata:
        return OAuthMetadata(
            issuer="http://127.0.0.1:9",  # type: ignore[arg-type]
            authorization_endpoint="http://127.0.0.1:9/authorize",  # type: ignore[arg-type]
            token_endpoint="http://127.0.0.1:9/token",  # type: ignore[arg-type]
            token_endpoint_auth_methods_supported=methods,
        )

    assert secret_method(metadata(["client_secret_post", "client_secret_basic"])) == (
        "client_secret_post"
    )
    assert secret_method(metadata(["client_secret_basic"])) == "client_secret_basic"
    assert secret_method(metadata(None)) == "client_secret_basic"  # RFC 8414's default
    assert secret_method(None) == "client_secret_basic"  # no metadata (legacy fallback)


def test_the_scope_a_server_asked_for_is_kept_for_the_next_sign_in() -> None:
    from agent_tui.core.mcp.auth.provider import _union

    storage = FileTokenStorage("tracker", URL)
    assert storage.wanted_scope is None
    storage.want_scope("mcp:basic mcp:write")
    assert FileTokenStorage("tracker", URL).wanted_scope == "mcp:basic mcp:write"
    assert stat.S_IMODE(storage.path.stat().st_mode) == 0o600
    assert _union("mcp:basic", "mcp:basic mcp:write") == "mcp:basic mcp:write"
    assert _union(None, None) is None
    assert _union("a", None) == "a"


def test_a_client_metadata_url_must_be_https_with_a_path() -> None:
    url = "https://agent-tui.example.com/client.json"
    assert OAuthEntry(client_metadata_url=url).client_metadata_url == url
    for bad in ("http://example.com/client.json", "https://example.com/", "https://x/a#f"):
        with pytest.raises(ValueError, match="client_metadata_url"):
            OAuthEntry(client_metadata_url=bad)
