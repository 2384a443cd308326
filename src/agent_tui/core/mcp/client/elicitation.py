"""MCP elicitation: a server asks the user for input (``elicitation/create``), typed for any UI.

The client declares the capability in both modes (form and URL) when it gives the SDK an
``elicitation_callback``; ``ElicitationBroker.callback`` is that callback. It turns the
request into a typed one and hands it to the front end's ``ElicitationHandler``:

- **form mode** (``FormRequest``): the requested schema is parsed into ``FormField``s
  (``elicitation_form``: its types, formats, choices and SEP-1034 defaults); the answer is
  validated against the fields before it is sent (``check_answer``: one clear error per
  field); an answer that does not validate is never sent;
- **URL mode** (``UrlRequest``): the server wants the user to visit a URL out of band; the
  front end shows it with its domain and opens it only when the user accepts.

Anything the client cannot show faithfully (a nested object, a ``$ref``, an unknown type or
format, a URL that is not http(s)) fails closed: the request is declined, the reason is
given to the listeners (the TUI shows it, headless prints it) and, in the result's ``_meta``,
to the server. With no handler (headless, ``mcp call``) every request is declined with
``headless_reason``. Nothing here imports the SDK at module level, nor anything of the UI.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

from agent_tui.core.mcp.client.elicitation_form import (
    FormField,
    UnsupportedSchema,
    Value,
    check_answer,
    defaults,
    parse_schema,
)

log = logging.getLogger(__name__)

Action = Literal["accept", "decline", "cancel"]
META_REASON = "agent-tui/reason"
"""Where a decline's reason goes in the result's ``_meta`` (for the server's logs)."""


@dataclass(frozen=True)
class FormRequest:
    server: str
    message: str
    fields: tuple[FormField, ...]

    def initial(self) -> dict[str, Value]:
        """The values the form starts from: the defaults (SEP-1034)."""
        return defaults(self.fields)


@dataclass(frozen=True)
class UrlRequest:
    server: str
    message: str
    url: str
    domain: str
    """The URL's host as it resolves (IDNA-encoded, so look-alike letters show)."""
    elicitation_id: str | None = None


ElicitationRequest = FormRequest | UrlRequest


@dataclass(frozen=True)
class ElicitationAnswer:
    action: Action
    content: dict[str, Value] | None = None
    """The accepted values (form mode, validated); None otherwise."""
    reason: str | None = None
    """Why the client declined by itself (headless, unsupported schema)."""


ElicitationHandler = Callable[[ElicitationRequest], Awaitable[ElicitationAnswer]]
"""What a front end supplies: show the request, return the user's answer."""


@dataclass(frozen=True)
class ElicitationNotice:
    """A request the client answered by itself (declined), for the front end to report."""

    server: str
    message: str
    """What the server asked (its own words)."""
    reason: str
    mode: Literal["form", "url"]


NoticeListener = Callable[[ElicitationNotice], None]


def headless_reason(server: str, message: str) -> str:
    asked = message.strip().splitlines()[0][:120] if message.strip() else "no message"
    return (
        f"the MCP server {server!r} asked for input ({asked}); headless mode declines — "
        "run interactively to answer it"
    )


# -- the request ------------------------------------------------------------------------------


def url_request(server: str, message: str, url: str, elicitation_id: str | None) -> UrlRequest:
    """A URL-mode request; ``UnsupportedSchema`` for a URL the client will not offer (not
    http(s), no host, credentials in it)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError as exc:
        raise UnsupportedSchema(f"the URL is malformed ({exc})") from None
    if parts.scheme not in ("https", "http"):
        raise UnsupportedSchema(f"the URL's scheme is {parts.scheme or 'missing'!r}, not https")
    if not host:
        raise UnsupportedSchema("the URL has no host")
    if parts.username or parts.password:
        raise UnsupportedSchema("the URL carries a user name or password")
    try:
        domain = host.encode("idna").decode("ascii")
    except UnicodeError:
        raise UnsupportedSchema(f"the URL's host {host!r} is not a valid name") from None
    return UrlRequest(server, message, url, domain, elicitation_id)


def from_params(server: str, params: Any) -> ElicitationRequest:
    """The typed request of the SDK's ``ElicitRequestParams`` (``UnsupportedSchema`` when
    the client cannot show it)."""
    mode = getattr(params, "mode", "form") or "form"
    message = str(getattr(params, "message", "") or "")
    if mode == "url":
        return url_request(
            server, message, str(params.url), getattr(params, "elicitation_id", None)
        )
    if mode != "form":
        raise UnsupportedSchema(f"unknown elicitation mode {mode!r}")
    return FormRequest(server, message, parse_schema(getattr(params, "requested_schema", None)))


@dataclass(eq=False)
class ElicitationBroker:
    """Routes each server's ``elicitation/create`` to the front end's handler (the manager
    owns one); with no handler, declines with ``headless_reason``."""

    handler: ElicitationHandler | None = None
    _listeners: list[NoticeListener] = field(default_factory=list)

    def add_listener(self, listener: NoticeListener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _declined(self, notice: ElicitationNotice) -> ElicitationAnswer:
        for listener in list(self._listeners):
            try:
                listener(notice)
            except Exception:
                log.exception("elicitation listener failed")
        return ElicitationAnswer("decline", reason=notice.reason)

    async def ask(self, server: str, params: Any) -> ElicitationAnswer:
        """The answer to one request (never raises; an unexpected failure declines)."""
        mode: Literal["form", "url"] = "url" if getattr(params, "mode", "") == "url" else "form"
        message = str(getattr(params, "message", "") or "")
        try:
            request = from_params(server, params)
        except UnsupportedSchema as exc:
            reason = f"the MCP server {server!r} asked for input the client cannot show: {exc}"
            return self._declined(ElicitationNotice(server, message, reason, mode))
        if self.handler is None:
            return self._declined(
                ElicitationNotice(server, message, headless_reason(server, message), mode)
            )
        try:
            answer = await self.handler(request)
        except Exception as exc:
            log.exception("the elicitation handler failed")
            reason = f"showing the request failed ({type(exc).__name__}: {exc})"
            return self._declined(ElicitationNotice(server, message, reason, mode))
        if answer.action == "accept" and isinstance(request, FormRequest):
            content, errors = check_answer(request.fields, answer.content or {})
            if errors:  # the front end should not get here; never send what does not fit
                detail = "; ".join(f"{k}: {v}" for k, v in errors.items())
                reason = f"the answer does not fit the form ({detail})"
                return self._declined(ElicitationNotice(server, message, reason, mode))
            return ElicitationAnswer("accept", content)
        if answer.action == "accept":
            return ElicitationAnswer("accept")
        return answer

    def callback(self, server: str) -> Callable[[Any, Any], Awaitable[Any]]:
        """The SDK's ``elicitation_callback`` for ``server`` (an ``ElicitResult``)."""

        async def elicit(_context: Any, params: Any) -> Any:
            return to_result(await self.ask(server, params))

        return elicit


def to_result(answer: ElicitationAnswer) -> Any:
    from mcp.types import ElicitResult

    meta = {META_REASON: answer.reason} if answer.reason else None
    content = dict(answer.content) if answer.action == "accept" and answer.content else None
    return ElicitResult.model_validate({"action": answer.action, "content": content, "_meta": meta})


def accept_defaults(request: ElicitationRequest) -> ElicitationAnswer:
    """Accept with the defaults (SEP-1034): the conformance client's answer."""
    if isinstance(request, UrlRequest):
        return ElicitationAnswer("decline", reason="the conformance client opens no URL")
    content, errors = check_answer(request.fields, {})
    if errors:
        return ElicitationAnswer("decline", reason="required fields have no default")
    return ElicitationAnswer("accept", content)


__all__ = [
    "ElicitationAnswer",
    "ElicitationBroker",
    "ElicitationHandler",
    "ElicitationNotice",
    "ElicitationRequest",
    "FormRequest",
    "UrlRequest",
    "accept_defaults",
    "headless_reason",
]
