"""web_fetch: GET one URL and return it as text — HTML converted to Markdown.

Bounded everywhere: at most ``MAX_REDIRECTS`` redirects on the same host (a redirect to another
host is not followed: the model is told where it leads and fetches it itself, so the new host
is judged by its own rules), connect and read timeouts, ``MAX_BYTES`` read at most (then the
page ends with a note). Every hop resolves its host and checks every address (``addresses``:
private, loopback, link-local… refused unless a rule names the host) and connects to the
checked address itself. Proxies from the environment are not used (a proxy would resolve the
name itself). The result goes through the output budget like any other.

``httpx2`` and the converter (``html-to-markdown``) are imported on the first call.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pydantic import Field, field_validator

from agent_tui.core.calls import ResultFacts
from agent_tui.core.text.summary import one_line
from agent_tui.core.tools import claude_calls
from agent_tui.core.tools.aliases import CallAlias
from agent_tui.core.tools.base import Tool, ToolContext, ToolInput, ToolMeta, ToolOutput
from agent_tui.core.tools.errors import ToolErrorInfo, ToolFailure
from agent_tui.core.tools.hosts import host_of, normal_host

if TYPE_CHECKING:
    import httpx2

    from agent_tui.core.tools.builtin import addresses as address_rules

MAX_REDIRECTS = 5
MAX_BYTES = 10 * 1024 * 1024
"""Bytes of a body read (after content decoding); the rest is not downloaded."""
DEFAULT_MAX_CHARS = 100_000
MAX_CHARS = 1_000_000
CONNECT_SECONDS = 10.0
READ_SECONDS = 20.0
USER_AGENT = "agent-tui web_fetch (+https://github.com/agent-tui)"

DESCRIPTION = f"""\
GET a web page as text: HTML as Markdown, other text as is, binary refused. Follows \
{MAX_REDIRECTS} redirects on the same host (one to another host is reported: fetch it \
yourself); reads {MAX_BYTES // (1024 * 1024)} MB at most. Private addresses are refused."""

_HTML = ("text/html", "application/xhtml+xml")
_TEXT_TYPES = (
    "application/json",
    "application/xml",
    "application/javascript",
    "application/x-javascript",
    "application/ecmascript",
    "application/x-yaml",
    "application/yaml",
    "application/toml",
    "application/x-sh",
    "application/sql",
    "application/graphql",
)
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)


class WebFetchInput(ToolInput):
    url: str = Field(description="An http(s) URL.")
    max_chars: int | None = Field(
        default=None,
        ge=1,
        le=MAX_CHARS,
        description=f"Cut the text there (default {DEFAULT_MAX_CHARS:,}).",
    )

    @field_validator("url")
    @classmethod
    def _http(cls, value: str) -> str:
        url = value.strip()
        try:
            parts = urlsplit(url)
        except ValueError as exc:
            raise ValueError(f"is not a URL ({exc})") from None
        if parts.scheme.lower() not in ("http", "https"):
            raise ValueError(
                f"must start with http:// or https:// (not {parts.scheme or 'no scheme'}:); "
                "web_fetch fetches web pages only"
            )
        if not parts.hostname:
            raise ValueError("names no host: write it as https://host/path")
        if parts.username or parts.password:
            raise ValueError("holds a user name or password: leave credentials out of the URL")
        return url


@dataclass
class _Page:
    url: str
    status: int
    reason: str
    content_type: str
    charset: str | None
    body: bytes
    truncated: bool
    redirects: list[str] = field(default_factory=list)
    elsewhere: str | None = None
    """Where it redirects on another host (not followed): then there is no body."""


def _host(url: httpx2.URL) -> str:
    return normal_host(url.host)


def _port(url: httpx2.URL) -> int:
    return url.port or (443 if url.scheme == "https" else 80)


def _mime(content_type: str) -> tuple[str, str | None]:
    """(``type/subtype``, charset) of a Content-Type header."""
    mime, _, params = content_type.partition(";")
    charset = None
    for param in params.split(";"):
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset" and value.strip():
            charset = value.strip().strip("\"'")
    return mime.strip().lower(), charset


async def _fetch(url: str, ctx: ToolContext) -> _Page:
    import httpx2

    from agent_tui.core.tools.builtin import addresses as address_rules  # a fetch's import

    timeout = httpx2.Timeout(READ_SECONDS, connect=CONNECT_SECONDS, read=READ_SECONDS)
    redirects: list[str] = []
    async with httpx2.AsyncClient(
        timeout=timeout, follow_redirects=False, trust_env=False
    ) as client:
        target = httpx2.URL(url)
        first_host = _host(target)
        while True:
            hop = f"the redirect to {target} — " if redirects else ""
            host = _host(target)
            addresses = await address_rules.checked_addresses(
                host, _port(target), ctx.hosts, hop=hop
            )
            headers = {
                "Host": target.netloc.decode("ascii"),
                "User-Agent": USER_AGENT,
                "Accept": "text/html, text/markdown, text/plain;q=0.9, */*;q=0.5",
                "Accept-Encoding": "gzip, deflate",
            }
            extensions: dict[str, Any] = {}
            if target.scheme == "https":
                extensions["sni_hostname"] = host  # the certificate is checked for the name
            response = await _send(client, target, addresses, headers, extensions)
            try:
                location = response.headers.get("location")
                if response.is_redirect and location:
                    following = target.join(location)
                    if following.scheme not in ("http", "https"):
                        raise ToolFailure(
                            "bad_redirect",
                            f"{target} redirects to {following}, which is not http or https.",
                            "Nothing more to fetch here.",
                        )
                    redirects.append(str(following))
                    if len(redirects) > MAX_REDIRECTS:
                        raise ToolFailure(
                            "too_many_redirects",
                            f"web_fetch stopped after {MAX_REDIRECTS} redirects from {url} "
                            f"(the last to {following}): a redirect loop, or a chain too long.",
                            "Fetch the final URL directly if you know it.",
                        )
                    next_host = _host(following)
                    if next_host != first_host:
                        # not followed: the model fetches it if it wants, and the new host
                        # is judged (and resolved and checked) then; a target refused
                        # outright (a private literal, localhost) is refused now
                        early = address_rules.early_reason(next_host, ctx.hosts)
                        if early is not None:
                            hop = f"the redirect to {following} — "
                            raise address_rules.refusal(next_host, early[0], early[1], hop=hop)
                        return _Page(
                            str(target),
                            response.status_code,
                            response.reason_phrase,
                            "",
                            None,
                            b"",
                            False,
                            redirects,
                            elsewhere=str(following),
                        )
                    target = following
                    continue
                content_type = response.headers.get("content-type", "")
                mime, charset = _mime(content_type)
                body, truncated = await _read(response)
                return _Page(
                    str(target),
                    response.status_code,
                    response.reason_phrase,
                    mime,
                    charset,
                    body,
                    truncated,
                    redirects,
                )
            finally:
                await response.aclose()


async def _send(
    client: httpx2.AsyncClient,
    target: httpx2.URL,
    addresses: list[address_rules.Address],
    headers: dict[str, str],
    extensions: dict[str, Any],
) -> httpx2.Response:
    """GET ``target`` from the first of its checked ``addresses`` that accepts a connection
    (the URL's host replaced by the address: nothing resolves the name again)."""
    import httpx2

    failure: Exception | None = None
    for address in addresses:
        pinned = target.copy_with(host=str(address))
        request = client.build_request("GET", pinned, headers=headers, extensions=extensions)
        try:
            return await client.send(request, stream=True)
        except httpx2.ConnectError as exc:
            failure = exc
        except httpx2.TimeoutException as exc:
            raise ToolFailure(
                "timeout",
                f"web_fetch gave up on {target}: {type(exc).__name__} (no answer in time).",
                "Try again later, or another URL.",
                retryable=True,
            ) from None
        except httpx2.HTTPError as exc:
            failure = exc
            break
    raise ToolFailure(
        "fetch_failed",
        f"web_fetch could not fetch {target}: {type(failure).__name__}: {failure}.",
        "Check the URL; the host may be down or refuse connections.",
        retryable=True,
    )


async def _read(response: httpx2.Response) -> tuple[bytes, bool]:
    """The body, decoded (gzip…), at most ``MAX_BYTES``; True when there was more (the rest
    is not read: the connection is closed)."""
    chunks: list[bytes] = []
    size = 0
    stream = response.aiter_bytes()
    async for chunk in stream:
        room = MAX_BYTES - size
        if len(chunk) > room:
            chunks.append(chunk[:room])
            return b"".join(chunks), True
        chunks.append(chunk)
        size += len(chunk)
        if size == MAX_BYTES:  # exactly full: is there more?
            async for more in stream:
                if more:
                    return b"".join(chunks), True
    return b"".join(chunks), False


def _binary(body: bytes) -> bool:
    head = body[:4096]
    return b"\0" in head


def _kind(page: _Page) -> str:
    """``html``, ``text`` or ``binary``."""
    mime = page.content_type
    if mime in _HTML:
        return "html"
    if mime.startswith("text/") or mime in _TEXT_TYPES or mime.endswith(("+json", "+xml")):
        return "text" if not _binary(page.body) else "binary"
    if not mime or mime in ("application/octet-stream", "binary/octet-stream"):
        if _binary(page.body):
            return "binary"
        start = page.body[:1024].lstrip().lower()
        return "html" if start.startswith((b"<!doctype html", b"<html")) else "text"
    return "binary"


def _decode(page: _Page) -> str:
    charset = page.charset
    if charset is None and page.content_type in _HTML:
        found = _META_CHARSET.search(page.body[:4096])
        charset = found.group(1).decode("ascii") if found else None
    if charset is None and page.body.startswith(b"\xef\xbb\xbf"):
        charset = "utf-8-sig"
    try:
        return page.body.decode(charset or "utf-8", errors="replace")
    except LookupError:  # a charset Python does not know
        return page.body.decode("utf-8", errors="replace")


def to_markdown(html: str) -> str:
    """HTML as Markdown (``html-to-markdown``: scripts, styles and navigation left out)."""
    from html_to_markdown import convert

    result = convert(html)
    text = result.content if hasattr(result, "content") else str(result)
    return str(text or "").strip()


def _human(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


async def _call(inp: WebFetchInput, ctx: ToolContext) -> ToolOutput:
    import asyncio

    page = await _fetch(inp.url, ctx)
    host = urlsplit(page.url).hostname or ""
    data: dict[str, Any] = {
        "url": page.url,
        "host": host,
        "status": page.status,
        "content_type": page.content_type,
        "bytes": len(page.body),
        "redirects": page.redirects,
        "truncated": page.truncated,
    }
    if page.elsewhere is not None:
        where = page.elsewhere
        data["redirected_to"] = where
        return ToolOutput(
            f"{page.url} redirects ({page.status} {page.reason}) to another host: {where}\n"
            "It was not fetched: call web_fetch with that URL to fetch it.",
            data=data,
            summary=one_line(f"{page.status} · {host} → {urlsplit(where).hostname}"),
            facts=ResultFacts(exit_code=page.status),
        )
    kind = _kind(page)
    if kind == "binary":
        raise ToolFailure(
            "binary_content",
            f"{page.url} is {page.content_type or 'binary data'} ({_human(len(page.body))}"
            f"{' read' if page.truncated else ''}), not text: web_fetch returns text only.",
            "Fetch an HTML or text page instead.",
        )
    text = _decode(page)
    if kind == "html":
        text = await asyncio.to_thread(to_markdown, text)
    limit = inp.max_chars or DEFAULT_MAX_CHARS
    total = len(text)
    cut = total > limit
    if cut:
        text = text[:limit]
    notes = []
    if page.truncated:
        notes.append(
            f"[the page is larger than {_human(MAX_BYTES)}: reading stopped there, the rest "
            "was not downloaded]"
        )
    if cut:
        notes.append(
            f"[cut at {limit:,} of {total:,} characters: call again with a larger max_chars "
            f"(at most {MAX_CHARS:,}) for more]"
        )
    status = f"{page.status} {page.reason}".strip()
    header = f"[{page.url} · {status} · {page.content_type or 'unknown type'}]"
    content = "\n".join([header, "", text, *(["", *notes] if notes else [])])
    is_error = page.status >= 400
    summary = f"{page.status} · {host} · {_human(len(page.body))}"
    if kind == "html":
        summary += f" → {min(total, limit):,} chars"
    if page.truncated or cut:
        summary += " · cut"
    return ToolOutput(
        content,
        is_error=is_error,
        data=data,
        summary=one_line(summary),
        facts=ResultFacts(exit_code=page.status, truncated=(page.truncated or cut) or None),
    )


def _precheck(inp: WebFetchInput, ctx: ToolContext) -> ToolErrorInfo | None:
    """An IP literal that is not public, or ``localhost``, is refused before anyone is asked
    (and before anything connects) unless a rule names it."""
    from agent_tui.core.tools.builtin import addresses as address_rules

    try:
        host = host_of(inp.url)
    except ValueError:
        return None
    failure = address_rules.precheck(host, ctx.hosts)
    return failure.info if failure is not None else None


TOOL = Tool(
    name="web_fetch",
    call_aliases=(CallAlias("WebFetch", claude_calls.from_web_fetch),),
    description=DESCRIPTION,
    input_model=WebFetchInput,
    call=_call,
    meta=ToolMeta(
        read_only=True,
        concurrency_safe=True,
        network=True,
        rule_kind="domain",
        rule_subject="url",
    ),
    timeout=90.0,
    precheck=_precheck,
)
