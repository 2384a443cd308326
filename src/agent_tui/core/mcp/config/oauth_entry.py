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

``grant`` chooses how tokens are obtained: ``authorization_code`` (the default: a browser
sign-in) or one of the grants that need no browser (``BROWSERLESS``; the connection obtains
its token itself):

- ``client_credentials`` (SEP-1046): ``client_id`` with ``client_secret``, or with
  ``private_key_file`` (a PEM private key: the client authenticates with a JWT it signs,
  ``private_key_jwt``; ``signing_algorithm`` when the key's own is not wanted);
- ``jwt_bearer`` (workload identity, RFC 7523): ``client_id`` and ``assertion_file``, a JWT
  the platform writes (read again at each token request); ``client_secret`` if the
  authorization server wants one;
- ``enterprise_managed`` (SEP-990): ``id_token_file`` (the user's OpenID Connect ID token)
  is exchanged at ``idp_token_endpoint`` (the company's identity provider; ``idp_client_id``,
  ``idp_client_secret`` if it wants them) for an identity assertion grant, which
  ``client_id`` with ``client_secret`` presents to the authorization server ``issuer``.

``issuer`` names the authorization server a browserless client's credentials belong to:
they are sent only to it (required for ``enterprise_managed``, recommended otherwise).
Files are absolute paths or start with ``~``.

``dpop``: ``true`` binds the tokens to a key of agent-tui's (DPoP, RFC 9449: a proof signed
with it on every request; for an authorization server and MCP server that support it), with
any grant.
"""

from __future__ import annotations

from typing import Literal, Self
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from agent_tui.core.empty import empty_list

Grant = Literal["authorization_code", "client_credentials", "jwt_bearer", "enterprise_managed"]
BROWSERLESS: tuple[Grant, ...] = ("client_credentials", "jwt_bearer", "enterprise_managed")
"""The grants that obtain tokens without a browser (at connect time)."""
SigningAlgorithm = Literal[
    "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"
]

_ONLY_FOR: dict[str, tuple[Grant, ...]] = {
    "callback_port": ("authorization_code",),
    "client_metadata_url": ("authorization_code",),
    "private_key_file": ("client_credentials",),
    "signing_algorithm": ("client_credentials",),
    "assertion_file": ("jwt_bearer",),
    "issuer": BROWSERLESS,
    "idp_token_endpoint": ("enterprise_managed",),
    "idp_client_id": ("enterprise_managed",),
    "idp_client_secret": ("enterprise_managed",),
    "id_token_file": ("enterprise_managed",),
}
_NEEDS: dict[Grant, tuple[str, ...]] = {
    "authorization_code": (),
    "client_credentials": ("client_id",),
    "jwt_bearer": ("client_id", "assertion_file"),
    "enterprise_managed": (
        "client_id",
        "client_secret",
        "issuer",
        "idp_token_endpoint",
        "id_token_file",
    ),
}


class OAuthEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)  # built by its first use

    enabled: bool = Field(default=True, exclude=True)
    grant: Grant = "authorization_code"
    client_id: str | None = Field(default=None, min_length=1)
    client_secret: str | None = Field(default=None, min_length=1, repr=False)
    scopes: list[str] = Field(default_factory=empty_list)
    callback_port: int | None = Field(default=None, ge=1024, le=65535)
    client_metadata_url: str | None = Field(default=None, pattern=r"^https://[^/]+/[^#]+$")
    private_key_file: str | None = Field(default=None, min_length=1)
    signing_algorithm: SigningAlgorithm | None = None
    assertion_file: str | None = Field(default=None, min_length=1)
    issuer: str | None = None
    idp_token_endpoint: str | None = None
    idp_client_id: str | None = Field(default=None, min_length=1)
    idp_client_secret: str | None = Field(default=None, min_length=1, repr=False)
    id_token_file: str | None = Field(default=None, min_length=1)
    dpop: bool = False

    @field_validator("issuer", "idp_token_endpoint")
    @classmethod
    def _secure_url(cls, value: str | None) -> str | None:
        if value is not None and not secure_url(value):
            raise ValueError(
                "must be an https:// URL (http:// only for 127.0.0.1 or localhost): "
                "credentials are sent there"
            )
        return value

    @field_validator("private_key_file", "assertion_file", "id_token_file")
    @classmethod
    def _absolute(cls, value: str | None) -> str | None:
        if value is not None and not (value.startswith(("/", "~"))):
            raise ValueError("must be an absolute path (or start with ~)")
        return value

    @model_validator(mode="after")
    def _fits_the_grant(self) -> Self:
        if self.client_secret is not None and self.client_id is None:
            raise ValueError("client_secret needs a client_id (the pre-registered client)")
        if self.idp_client_secret is not None and self.idp_client_id is None:
            raise ValueError("idp_client_secret needs an idp_client_id")
        for key, grants in _ONLY_FOR.items():
            if getattr(self, key) is not None and self.grant not in grants:
                which = " or ".join(f'"{g}"' for g in grants)
                raise ValueError(f'{key} is for "grant": {which}, not "{self.grant}"')
        missing = [key for key in _NEEDS[self.grant] if getattr(self, key) is None]
        if missing:
            raise ValueError(f'"grant": "{self.grant}" needs {", ".join(missing)}')
        if self.grant == "client_credentials" and (
            (self.client_secret is None) == (self.private_key_file is None)
        ):
            raise ValueError(
                '"grant": "client_credentials" needs client_secret or private_key_file '
                "(one of them)"
            )
        return self

    @property
    def browserless(self) -> bool:
        """Whether tokens come from a grant that needs no browser (``BROWSERLESS``)."""
        return self.grant in BROWSERLESS


def secure_url(url: str) -> bool:
    """An ``https`` URL, or an ``http`` one on the loopback interface."""
    parts = urlsplit(url)
    if not parts.hostname:
        return False
    return parts.scheme == "https" or (
        parts.scheme == "http" and parts.hostname in ("127.0.0.1", "localhost", "::1")
    )


_SECRETS = ("client_secret", "idp_client_secret")


def secret_warning(raw: object) -> str | None:
    """A warning when a project file holds a client secret as plain text (not ``${VAR}``)."""
    if not isinstance(raw, dict):
        return None
    oauth = raw.get("oauth")
    for key in _SECRETS:
        secret = oauth.get(key) if isinstance(oauth, dict) else None
        if isinstance(secret, str) and "${" not in secret:
            return (
                f"oauth.{key} is written in this file, which is shared with the project: "
                f'use an environment variable instead ("{key}": "${{MY_SECRET}}")'
            )
    return None
