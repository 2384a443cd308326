"""What the browserless grants present, read when a token is requested (never cached here).

- ``read_jwt_file``: a JWT a platform or a sign-in tool wrote to a file (a workload identity
  token for ``jwt_bearer``, an OpenID Connect ID token for ``enterprise_managed``). Files are
  read at each token request (platforms rotate them); one that does not hold a JWT is refused
  before anything is sent, so a wrong path never sends another file's contents anywhere;
- ``signing_key``: a PEM private key for ``private_key_jwt``, and the algorithm its type
  implies (``ES256`` for a P-256 key, ``RS256`` for RSA, ``EdDSA`` for Ed25519, …);
- ``exchange_id_token``: SEP-990's first leg, the RFC 8693 token exchange at the company's
  identity provider: the ID token in, an identity assertion grant (ID-JAG) out.

``GrantError`` says what went wrong and which key of the ``oauth`` entry to look at; no
message carries a secret, a token or a file's contents.
"""

from __future__ import annotations

import base64
import re
from pathlib import Path
from typing import Any

MAX_JWT_FILE = 64 * 1024
_JWT = re.compile(r"^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$")
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token"
ID_JAG_TYPE = "urn:ietf:params:oauth:token-type:id-jag"


class GrantError(Exception):
    """A browserless grant that could not get a token; the message says why and what to do."""


def read_jwt_file(path: str, key: str, server: str) -> str:
    """The JWT in ``path`` (``oauth.KEY`` of ``server``), surrounding whitespace removed."""
    where = f"oauth.{key} of {server} ({path})"
    file = Path(path).expanduser()
    try:
        with file.open("rb") as handle:
            data = handle.read(MAX_JWT_FILE + 1)
    except FileNotFoundError:
        raise GrantError(f"{where} does not exist") from None
    except IsADirectoryError:
        raise GrantError(f"{where} is a directory, not a file") from None
    except OSError as exc:
        raise GrantError(f"{where} cannot be read: {exc.strerror or type(exc).__name__}") from None
    if len(data) > MAX_JWT_FILE:
        raise GrantError(f"{where} is larger than a JWT can be ({MAX_JWT_FILE // 1024} KiB)")
    try:
        text = data.decode("ascii").strip()
    except UnicodeDecodeError:
        text = ""
    if not _JWT.match(text) or _header(text) is None:
        raise GrantError(f"{where} does not hold a JWT (nothing was sent)")
    return text


def _header(token: str) -> dict[str, Any] | None:
    import json

    head = token.split(".", 1)[0]
    try:
        value = json.loads(base64.urlsafe_b64decode(head + "=" * (-len(head) % 4)))
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def signing_key(path: str, algorithm: str | None, server: str) -> tuple[str, str]:
    """(the PEM text of the private key in ``path``, the JWS algorithm to sign with)."""
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    where = f"oauth.private_key_file of {server} ({path})"
    try:
        data = Path(path).expanduser().read_bytes()
    except FileNotFoundError:
        raise GrantError(f"{where} does not exist") from None
    except OSError as exc:
        raise GrantError(f"{where} cannot be read: {exc.strerror or type(exc).__name__}") from None
    try:
        key = load_pem_private_key(data, password=None)
    except TypeError:
        raise GrantError(f"{where} is encrypted: give an unencrypted PEM key") from None
    except Exception:
        raise GrantError(f"{where} is not a PEM private key (PKCS#8, PKCS#1 or SEC1)") from None
    if isinstance(key, ec.EllipticCurvePrivateKey):
        curves = {"secp256r1": "ES256", "secp384r1": "ES384", "secp521r1": "ES512"}
        natural = curves.get(key.curve.name)
    elif isinstance(key, rsa.RSAPrivateKey):
        natural = "RS256"
    elif isinstance(key, ed25519.Ed25519PrivateKey):
        natural = "EdDSA"
    else:
        natural = None
    if natural is None:
        raise GrantError(f"{where}: this kind of key cannot sign a JWT here (use EC, RSA, Ed25519)")
    chosen = algorithm or natural
    family = {"ES": "ES", "RS": "RS", "PS": "RS", "Ed": "Ed"}
    fits = family[chosen[:2]] == family[natural[:2]]
    if not fits or (natural.startswith("ES") and chosen != natural):
        raise GrantError(
            f"{where}: oauth.signing_algorithm {chosen} does not fit the key ({natural})"
        )
    return data.decode("ascii", errors="replace"), chosen


async def exchange_id_token(
    *,
    server: str,
    endpoint: str,
    id_token: str,
    audience: str,
    resource: str,
    scope: str | None,
    client_id: str | None,
    client_secret: str | None,
) -> str:
    """SEP-990 leg 1 (RFC 8693): the ID token for an ID-JAG meant for ``audience`` (the MCP
    authorization server's issuer) and ``resource`` (the MCP server)."""
    import httpx2

    data = {
        "grant_type": TOKEN_EXCHANGE,
        "subject_token": id_token,
        "subject_token_type": ID_TOKEN_TYPE,
        "requested_token_type": ID_JAG_TYPE,
        "audience": audience,
        "resource": resource,
    }
    if scope:
        data["scope"] = scope
    auth: Any = None
    if client_id and client_secret:
        auth = httpx2.BasicAuth(client_id, client_secret)
    elif client_id:
        data["client_id"] = client_id
    try:
        async with httpx2.AsyncClient(timeout=30.0) as http:
            response = await http.post(endpoint, data=data, auth=auth)
    except httpx2.HTTPError as exc:
        raise GrantError(
            f"the identity provider of {server} ({endpoint}) cannot be reached: "
            f"{type(exc).__name__}"
        ) from None
    body = _json(response)
    if response.status_code != 200:
        raise GrantError(
            f"the identity provider of {server} refused the token exchange "
            f"(HTTP {response.status_code}{oauth_error(body)}); sign in to it again for a "
            "fresh ID token (oauth.id_token_file), or check oauth.idp_client_id"
        )
    token = body.get("access_token")
    if not isinstance(token, str) or not token:
        raise GrantError(f"the identity provider of {server} answered the exchange without a token")
    issued = body.get("issued_token_type")
    if issued not in (None, ID_JAG_TYPE):
        raise GrantError(
            f"the identity provider of {server} issued a {issued}, not an identity assertion "
            "grant (ID-JAG): it does not support SEP-990 for this client"
        )
    return token


def _json(response: Any) -> dict[str, Any]:
    try:
        value = response.json()
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def oauth_error(body: dict[str, Any]) -> str:
    """``: error: description`` of an OAuth error body (cut short), or nothing."""
    error = body.get("error")
    if not isinstance(error, str):
        return ""
    text = body.get("error_description")
    said = f"{error}: {text}" if isinstance(text, str) and text else error
    return ": " + (said if len(said) <= 200 else said[:197] + "...")


__all__ = [
    "GrantError",
    "exchange_id_token",
    "oauth_error",
    "read_jwt_file",
    "signing_key",
]
