"""Which hosts the permission rules name explicitly: the only way a private address is fetched.

``web_fetch`` refuses a host that is (or resolves to) a private, loopback, link-local,
unique-local, multicast or unspecified address unless an allow rule names that very host as
private: a ``domain:`` rule naming an IP literal or ``localhost`` (``web_fetch(domain:
127.0.0.1)``), or a ``private:`` rule naming a host whose name resolves to a private address
(``web_fetch(private:intranet.example)``). A ``domain:`` rule for a name — what "always allow"
saves for a public host — does not let that name resolve to a private address later (an
attacker who controls the name's DNS would point it at ``169.254.169.254``); a wildcard never
counts. The permission layer builds the agent's answer from its allow rules.
"""

from __future__ import annotations

import re
from typing import Protocol
from urllib.parse import urlsplit

PREFIX = "domain:"
"""How a domain rule's pattern starts: ``web_fetch(domain:example.com)``."""
PRIVATE_PREFIX = "private:"
"""A domain rule for a host that resolves to a private address: ``web_fetch(private:nas.lan)``
(it allows the host too)."""
_HOST = re.compile(r"^(?:\*\.)?[a-z0-9_-]+(?:\.[a-z0-9_-]+)*$|^[0-9a-f:.]+$")


class HostRules(Protocol):
    def names(self, host: str) -> bool:
        """An allow rule names ``host`` (lower-case, no trailing dot) literally."""
        ...


class NoHosts:
    """No rule names any host (tools called outside any permission setup)."""

    def names(self, host: str) -> bool:
        return False


NO_HOSTS: HostRules = NoHosts()


def normal_host(host: str) -> str:
    """``host`` as rules compare it: lower-case, no trailing dot, IDNA-encoded, no brackets."""
    host = host.strip().strip("[]").rstrip(".").lower()
    try:
        return host.encode("idna").decode("ascii") if not host.isascii() else host
    except UnicodeError:
        return host


def host_of(url: str) -> str:
    """The host a URL names (``ValueError`` when it has none)."""
    try:
        host = urlsplit(url.strip()).hostname
    except ValueError as exc:
        raise ValueError(f"the URL {url[:200]!r} cannot be parsed ({exc})") from None
    if not host:
        raise ValueError(f"the URL {url[:200]!r} names no host")
    return normal_host(host)


def pattern_problem(pattern: str) -> str | None:
    """What is wrong with a domain rule's pattern (``domain:HOST``, ``domain:*.HOST`` or
    ``private:HOST``), or None when it is one."""
    prefix = next((p for p in (PREFIX, PRIVATE_PREFIX) if pattern.startswith(p)), None)
    if prefix is None:
        return (
            "a web_fetch rule names a domain, e.g. web_fetch(domain:example.com), "
            "web_fetch(domain:*.example.com) or web_fetch(private:intranet.example)"
        )
    host = normal_host(pattern[len(prefix) :])
    if not host or not _HOST.match(host):
        return f"{pattern[len(prefix) :]!r} is not a host name"
    if prefix == PRIVATE_PREFIX and host.startswith("*."):
        return "a private: rule names one host, not a wildcard"
    return None
