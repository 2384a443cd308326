"""Which addresses ``web_fetch`` may connect to (SSRF): public ones, and others only for a
host an allow rule names literally (``core.tools.hosts``).

A host name is resolved and *every* address it resolves to is checked (one private address
among public ones refuses the host: the connection could reach either); the fetch then
connects to the checked address itself, so the name cannot resolve elsewhere in between
(DNS rebinding).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket

from agent_tui.core.tools.errors import ToolFailure
from agent_tui.core.tools.hosts import HostRules

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
RESOLVE_SECONDS = 10.0
LOCAL_NAMES = ("localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback")


def literal(host: str) -> Address | None:
    """``host`` as an IP address when it is one (``[::1]`` brackets allowed)."""
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def not_public(address: Address) -> str | None:
    """Why ``address`` is not one to fetch from, or None for a public address."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address.is_unspecified:
        return "the unspecified address"
    if address.is_loopback:
        return "a loopback address (this machine)"
    if address.is_link_local:
        return "a link-local address (where cloud metadata services answer)"
    if address.is_multicast:
        return "a multicast address"
    if isinstance(address, ipaddress.IPv6Address) and address in _UNIQUE_LOCAL:
        return "a unique-local address (a private network)"
    if address.is_private:
        return "a private address (a local network)"
    if not address.is_global:
        return "a reserved address (not on the public internet)"
    return None


_UNIQUE_LOCAL = ipaddress.ip_network("fc00::/7")


def local_name(host: str) -> bool:
    """A name that always means this machine (``localhost``, ``*.localhost``)."""
    return host in LOCAL_NAMES or host.endswith(".localhost")


def refusal(host: str, address: Address | None, why: str, *, hop: str = "") -> ToolFailure:
    shown = f"{host} ({address})" if address is not None and str(address) != host else host
    return ToolFailure(
        "private_address",
        f"web_fetch refused {hop}{shown}: it is {why}. Fetching from it could reach services "
        "that only this machine or its network should see; nothing was sent.",
        "Fetch a public URL instead. If the user wants this host fetched, an allow rule must "
        f"name it: web_fetch({'domain' if literal(host) or local_name(host) else 'private'}:"
        f"{host}).",
    )


def early_reason(host: str, rules: HostRules) -> tuple[Address | None, str] | None:
    """Why ``host`` is refused without resolving it — an IP literal that is not public,
    ``localhost`` — unless a rule names it: its address (for a literal) and the reason; None
    otherwise (resolving is for the call)."""
    if rules.names(host):
        return None
    address = literal(host)
    if address is not None:
        why = not_public(address)
        return (address, why) if why else None
    if local_name(host):
        return None, "this machine's own name"
    return None


def precheck(host: str, rules: HostRules) -> ToolFailure | None:
    """The refusal of a host refused without resolving it (``early_reason``), or None."""
    early = early_reason(host, rules)
    return refusal(host, early[0], early[1]) if early is not None else None


async def checked_addresses(
    host: str, port: int, rules: HostRules, *, hop: str = ""
) -> list[Address]:
    """The addresses ``host`` resolves to, each checked; ``ToolFailure`` when one of them is
    not public and no rule names the host, or when the name does not resolve."""
    named = rules.names(host)
    early = early_reason(host, rules)
    if early is not None:
        raise refusal(host, early[0], early[1], hop=hop)
    address = literal(host)
    if address is not None:
        return [address]
    loop = asyncio.get_running_loop()
    try:
        async with asyncio.timeout(RESOLVE_SECONDS):
            found = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError, TimeoutError) as exc:
        raise ToolFailure(
            "dns_failed",
            f"web_fetch could not resolve {host}: {exc}.",
            "Check the host name in the URL.",
            retryable=True,
        ) from None
    addresses: list[Address] = []
    for *_, sockaddr in found:
        parsed = literal(str(sockaddr[0]).split("%", 1)[0])
        if parsed is not None and parsed not in addresses:
            addresses.append(parsed)
    if not addresses:
        raise ToolFailure("dns_failed", f"web_fetch found no address for {host}.", "Check the URL.")
    if not named:
        for parsed in addresses:
            why = not_public(parsed)
            if why is not None:
                raise refusal(host, parsed, why, hop=hop)
    return addresses
