"""Where the OAuth tokens of HTTP MCP servers are kept: one file per server, private to the user.

``<data dir>/mcp-auth/<name>-<12 hex digits of the URL's SHA-1>.json`` (the directory mode
0700, each file 0600, written atomically: a temporary file of the same mode, then a rename).
A file holds the tokens (with the time the access token expires, so an expired one is
refreshed after a restart), the client registered by dynamic client registration, and with
``"dpop": true`` the private key the tokens are bound to. Keyed by
name and URL: a server renamed, or pointed at another URL, starts signed out.

A file that cannot be read or parsed counts as "not signed in", with a warning (``warning``);
the next sign-in replaces it. Nothing here logs a token, and ``repr`` shows none.

``FileTokenStorage`` is the SDK's ``TokenStorage`` (``mcp.client.auth``). A pre-registered
client (``"oauth": {"client_id": …}``) comes from the configuration, never from the file.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import time
from pathlib import Path
from typing import Any

from agent_tui.core.mcp.config.oauth_entry import OAuthEntry
from agent_tui.core.state.nofollow import write_state
from agent_tui.core.state.paths import data_dir

log = logging.getLogger(__name__)
DIRECTORY = "mcp-auth"


def auth_dir() -> Path:
    return data_dir() / DIRECTORY


def token_path(name: str, url: str, directory: Path | None = None) -> Path:
    digest = hashlib.sha1(url.encode("utf-8")).hexdigest()[:12]
    return (directory or auth_dir()) / f"{name}-{digest}.json"


class FileTokenStorage:
    """The tokens and client of one server (``name`` at ``url``) in their own file."""

    def __init__(
        self,
        name: str,
        url: str,
        oauth: OAuthEntry | None = None,
        *,
        directory: Path | None = None,
        redirect_uri: str | None = None,
    ) -> None:
        self.name = name
        self.url = url
        self.oauth = oauth or OAuthEntry()
        self.path = token_path(name, url, directory)
        self.redirect_uri = redirect_uri
        """The loopback redirect URI of the sign-in under way (a pre-registered client)."""
        self.warning: str | None = None

    def __repr__(self) -> str:
        return f"FileTokenStorage({self.name!r}, {self.path})"

    # -- the file ---------------------------------------------------------------------------

    def read(self) -> dict[str, Any]:
        """The file's object (``{}`` when there is none, or when it is unusable: ``warning``)."""
        self.warning = None
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError) as exc:
            return self._unusable(f"cannot be read ({type(exc).__name__})")
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            return self._unusable("is not valid JSON")
        if not isinstance(data, dict) or data.get("url") not in (None, self.url):
            return self._unusable("does not hold this server's sign-in")
        return data

    def _unusable(self, why: str) -> dict[str, Any]:
        self.warning = (
            f"the saved sign-in of {self.name} ({self.path}) {why}: treated as not signed in; "
            f"sign in again to replace it"
        )
        log.warning("%s", self.warning)
        return {}

    def write(self, data: dict[str, Any]) -> None:
        """Replace the file with ``data`` (atomic; the file 0600, its directory 0700; no link
        below the data directory followed: it may be inside the workspace)."""
        payload = {"server": self.name, "url": self.url, **data}
        write_state(self.path, data_dir(), json.dumps(payload, indent=2).encode("utf-8"))
        with contextlib.suppress(OSError):
            os.chmod(self.path.parent, 0o700)

    def _update(self, **changes: Any) -> None:
        data = self.read()
        data.update(changes)
        self.write({k: v for k, v in data.items() if v is not None})

    def forget_tokens(self) -> None:
        """Drop the tokens, keep a registered client (the start of a new sign-in)."""
        data = self.read()
        if "tokens" in data or "expires_at" in data or "dpop_bound" in data:
            data.pop("tokens", None)
            data.pop("expires_at", None)
            data.pop("dpop_bound", None)
            self.write(data)

    def remove(self) -> bool:
        """Forget everything of this server (``mcp logout``); whether there was a file."""
        try:
            self.path.unlink()
        except FileNotFoundError:
            return False
        return True

    @property
    def signed_in(self) -> bool:
        return bool(self.read().get("tokens"))

    @property
    def expires_at(self) -> float | None:
        """When the saved access token expires (seconds since the epoch), if known."""
        value = self.read().get("expires_at")
        return float(value) if isinstance(value, int | float) else None

    @property
    def wanted_scope(self) -> str | None:
        """The scope the server last asked for when it refused a connection's token (a 401,
        or a 403 ``insufficient_scope`` for a scope step-up): the next sign-in asks for it."""
        value = self.read().get("wanted_scope")
        return value if isinstance(value, str) and value.strip() else None

    def want_scope(self, scope: str) -> None:
        self._update(wanted_scope=scope)

    @property
    def dpop_key(self) -> str | None:
        """The PEM private key DPoP proofs are signed with (``dpop``), once one was made."""
        value = self.read().get("dpop_key")
        return value if isinstance(value, str) and value else None

    def set_dpop_key(self, pem: str) -> None:
        self._update(dpop_key=pem)

    @property
    def dpop_bound(self) -> bool:
        """Whether the saved access token is bound to ``dpop_key`` (sent with the DPoP scheme)."""
        return self.read().get("dpop_bound") is True

    def set_dpop_bound(self, bound: bool) -> None:
        self._update(dpop_bound=True if bound else None)

    def registered_redirect_uri(self) -> str | None:
        """The redirect URI a dynamically registered client was registered with."""
        client = self.read().get("client")
        uris = client.get("redirect_uris") if isinstance(client, dict) else None
        return str(uris[0]) if isinstance(uris, list) and uris else None

    # -- the SDK's TokenStorage -------------------------------------------------------------

    async def get_tokens(self) -> Any:
        from mcp.shared.auth import OAuthToken
        from pydantic import ValidationError

        raw = self.read().get("tokens")
        if not raw:
            return None
        try:
            return OAuthToken.model_validate(raw)
        except ValidationError:
            self._unusable("holds tokens in a shape agent-tui does not know")
            return None

    async def set_tokens(self, tokens: Any) -> None:
        expires = time.time() + tokens.expires_in if tokens.expires_in else None
        self._update(tokens=tokens.model_dump(mode="json", exclude_none=True), expires_at=expires)

    async def get_client_info(self) -> Any:
        from mcp.shared.auth import OAuthClientInformationFull
        from pydantic import ValidationError

        if self.oauth.client_id is not None:  # pre-registered: from the configuration
            secret = self.oauth.client_secret
            return OAuthClientInformationFull(
                client_id=self.oauth.client_id,
                client_secret=secret,
                redirect_uris=[self.redirect_uri] if self.redirect_uri else None,  # type: ignore[list-item]
                token_endpoint_auth_method="client_secret_post" if secret else "none",
                scope=" ".join(self.oauth.scopes) or None,
            )
        raw = self.read().get("client")
        if not raw:
            return None
        try:
            return OAuthClientInformationFull.model_validate(raw)
        except ValidationError:
            self._unusable("holds a client registration agent-tui does not know")
            return None

    async def set_client_info(self, client_info: Any) -> None:
        if self.oauth.client_id is not None:
            return  # the configuration is where a pre-registered client lives
        self._update(client=client_info.model_dump(mode="json", exclude_none=True))

    def forget_client(self) -> None:
        data = self.read()
        if data.pop("client", None) is not None:
            self.write(data)


__all__ = ["FileTokenStorage", "auth_dir", "token_path"]
