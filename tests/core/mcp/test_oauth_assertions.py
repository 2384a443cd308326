"""What the browserless grants read (``core.mcp.auth.assertions``): private keys and the
algorithm each implies, JWT files, and the words for each way they can be wrong."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

from agent_tui.core.mcp.auth.assertions import GrantError, read_jwt_file, signing_key


def _pem(key: object, tmp_path: Path, *, password: bytes | None = None) -> str:
    encryption = (
        serialization.BestAvailableEncryption(password)
        if password
        else serialization.NoEncryption()
    )
    data = key.private_bytes(  # type: ignore[attr-defined]
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption
    )
    path = tmp_path / "key.pem"
    path.write_bytes(data)
    return str(path)


@pytest.mark.parametrize(
    ("key", "algorithm"),
    [
        (ec.generate_private_key(ec.SECP256R1()), "ES256"),
        (ec.generate_private_key(ec.SECP384R1()), "ES384"),
        (rsa.generate_private_key(public_exponent=65537, key_size=2048), "RS256"),
        (ed25519.Ed25519PrivateKey.generate(), "EdDSA"),
    ],
)
def test_the_algorithm_follows_the_key(key: object, algorithm: str, tmp_path: Path) -> None:
    assert signing_key(_pem(key, tmp_path), None, "s")[1] == algorithm


def test_a_chosen_algorithm_must_fit_the_key(tmp_path: Path) -> None:
    rsa_key = _pem(rsa.generate_private_key(public_exponent=65537, key_size=2048), tmp_path)
    assert signing_key(rsa_key, "PS256", "s")[1] == "PS256"
    with pytest.raises(GrantError, match=r"oauth.signing_algorithm ES256 does not fit the key"):
        signing_key(rsa_key, "ES256", "s")


def test_an_encrypted_key_is_named(tmp_path: Path) -> None:
    path = _pem(ec.generate_private_key(ec.SECP256R1()), tmp_path, password=b"pw")
    with pytest.raises(GrantError) as caught:
        signing_key(path, None, "tracker")
    assert str(caught.value) == (
        f"oauth.private_key_file of tracker ({path}) is encrypted: give an unencrypted PEM key"
    )


def test_jwt_files(tmp_path: Path) -> None:
    token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln"
    good = tmp_path / "token"
    good.write_text(f"  {token}\n")
    assert read_jwt_file(str(good), "assertion_file", "s") == token
    big = tmp_path / "big"
    big.write_text("a." * 40_000)
    with pytest.raises(GrantError, match="is larger than a JWT can be"):
        read_jwt_file(str(big), "assertion_file", "s")
    with pytest.raises(GrantError, match=r"\) is a directory, not a file"):
        read_jwt_file(str(tmp_path), "id_token_file", "s")
    shaped = tmp_path / "shaped"
    shaped.write_text("abc.def.ghi")  # three parts, but no JSON header
    with pytest.raises(GrantError, match=r"does not hold a JWT \(nothing was sent\)"):
        read_jwt_file(str(shaped), "assertion_file", "s")
