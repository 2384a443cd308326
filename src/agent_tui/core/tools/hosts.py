"""Which hosts the permission rules name explicitly: the only way a private address is fetched.

``web_fetch`` refuses a host that is (or resolves to) a private, loopback, link-local,
unique-local, multicast or unspecified address unless an allow rule names that very host
(``web_fetch(domain:127.0.0.1)``; a wildcard such as ``domain:*.internal`` does not count).
The permission layer builds the agent's answer from its allow rules.
"""

from __future__ import annotations

import re
from typing import Protocol
from urllib.parse import urlsplit

PREFIX = "domain:"
"""How a domain rule's pattern starts: ``web_fetch(domain:example.com)``."""
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
    """What is wrong with a domain rule's pattern (``domain:HOST`` or ``domain:*.HOST``), or
    None when it is one."""
    if not pattern.startswith(PREFIX):
        return (
            "a web_fetch rule names a domain, e.g. web_fetch(domain:example.com) or "
            "web_fetch(domain:*.example.com)"
        )
    host = normal_host(pattern[len(PREFIX) :])
    if not host or not _HOST.match(host):
        return f"{pattern[len(PREFIX) :]!r} is not a host name"
    return None
