"""The ``"oauth"`` key of an HTTP server in ``.mcp.json``: how agent-tui signs in to it.

    "tracker": {"type": "http", "url": "https://tracker.example.com/mcp",
                "oauth": {"client_id": "agent-tui", "client_secret": "${TRACKER_SECRET}",
                          "scopes": ["read", "write"], "callback_port": 33418}}

Every key is optional. Without ``client_id`` the client registers itself with the
authorization server (dynamic client registration) at the first sign-in. ``client_secret``
makes it a confidential client (sent the way the authorization server's metadata asks:
HTTP Basic, its default, or in the token request's body). ``scopes`` replace the
scopes the server advertises. ``callback_port`` fixes the port of the loopback redirect
(``http://127.0.0.1:PORT/callback``) for an authorization server that requires the exact
registered redirect URI; otherwise a free port is used. ``client_metadata_url`` is the HTTPS
URL of a client ID metadata document describing agent-tui (hosted by you): an authorization
server that supports such documents gets it as the client_id instead of a registration.
``"oauth": false`` turns sign-in off for the server (a 401 is then only reported); so does an
``Authorization`` header.
"""

from __future__ import annotations

from typing import Self

from pydantic import BaseModel, ConfigDict, Field, model_validator


class OAuthEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(default=True, exclude=True)
    client_id: str | None = Field(default=None, min_length=1)
    client_secret: str | None = Field(default=None, min_length=1, repr=False)
    scopes: list[str] = Field(default_factory=list)
    callback_port: int | None = Field(default=None, ge=1024, le=65535)
    client_metadata_url: str | None = Field(default=None, pattern=r"^https://[^/]+/[^#]+$")

    @model_validator(mode="after")
    def _secret_needs_id(self) -> Self:
        if self.client_secret is not None and self.client_id is None:
            raise ValueError("client_secret needs a client_id (the pre-registered client)")
        return self


def secret_warning(raw: object) -> str | None:
    """A warning when a project file holds a client secret as plain text (not ``${VAR}``)."""
    if not isinstance(raw, dict):
        return None
    oauth = raw.get("oauth")
    secret = oauth.get("client_secret") if isinstance(oauth, dict) else None
    if isinstance(secret, str) and "${" not in secret:
        return (
            "oauth.client_secret is written in this file, which is shared with the project: "
            'use an environment variable instead ("client_secret": "${MY_SECRET}")'
        )
    return None
