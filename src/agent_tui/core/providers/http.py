"""HTTP plumbing shared by the OpenAI and Anthropic providers.

``HttpTransport.post_stream`` opens one streamed POST. Before the response is handed over it
retries, with exponential backoff and jitter, on 408/429/5xx and on connect errors and timeouts
(``Retry-After`` honoured, every wait capped). Once the response is handed over nothing is
retried: the caller may already have shown text to the user. Every failure becomes a
``ProviderError`` that names the provider, the status, the URL, the server's own message and
what to do next, and never contains the API key.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import re
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx2

from agent_tui.core.providers.base import ProviderError, Retrying
from agent_tui.core.text.utf8 import clean

__all__ = [
    "DEFAULT_TIMEOUT",
    "EnvHints",
    "HttpTransport",
    "RetryPolicy",
    "display_url",
    "error_message_from_body",
    "is_retryable_status",
    "parse_retry_after",
    "redact",
]

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = httpx2.Timeout(60.0, connect=10.0, read=300.0)
"""Generous read timeout: local servers may load a model before the first byte."""

RETRYABLE_STATUS = frozenset({408, 429})
_MAX_SERVER_MESSAGE = 500


@dataclass(frozen=True)
class RetryPolicy:
    """``max_retries`` extra attempts; waits of ``base_delay * 2**attempt`` ± 20%, capped at
    ``max_delay``. A server's own ``Retry-After`` is honoured as given, up to
    ``max_retry_after`` (a longer one is not waited for: the request fails saying so)."""

    max_retries: int = 3
    base_delay: float = 0.5
    max_delay: float = 30.0
    max_retry_after: float = 300.0

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number ``attempt`` (0-based)."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_retry_after)
        backoff: float = self.base_delay * (2**attempt) * random.uniform(0.8, 1.2)
        return min(max(backoff, 0.0), self.max_delay)


@dataclass(frozen=True)
class EnvHints:
    """Names used in error messages: the provider and the variables the user can set."""

    label: str
    base_url_var: str
    api_key_var: str
    example_url: str


def is_retryable_status(status: int) -> bool:
    return status in RETRYABLE_STATUS or status >= 500


def parse_retry_after(headers: httpx2.Headers) -> float | None:
    """Seconds from ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date)."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(float(millis) / 1000.0, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max((when - datetime.now(UTC)).total_seconds(), 0.0)


def error_message_from_body(body: bytes, content_type: str = "") -> str:
    """The server's own explanation: ``{"error": {"message": ...}}`` and common variants."""
    text = body.decode("utf-8", errors="replace").strip()
    if not text:
        return ""
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError:
        data = None
    if data is not None:
        found = _message_in(data)
        if found:
            return _shorten(found)
    if "html" in content_type.lower() or text.lstrip().startswith("<"):
        return ""  # an HTML error page says nothing useful in one line
    return _shorten(text)


def _message_in(data: Any) -> str:
    if isinstance(data, str):
        return data
    if not isinstance(data, dict):
        return ""
    error = data.get("error")
    if isinstance(error, dict):
        message = error.get("message")
        kind = error.get("type")
        if isinstance(message, str) and message:
            return message
        if isinstance(kind, str):
            return kind
    if isinstance(error, str) and error:
        return error
    for key in ("message", "detail"):
        value = data.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def _shorten(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= _MAX_SERVER_MESSAGE else text[:_MAX_SERVER_MESSAGE] + "…"


def redact(text: str, secrets: Sequence[str]) -> str:
    """``text`` with every secret (of a plausible length) replaced by ``***``."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return text


def display_url(url: str | httpx2.URL) -> str:
    """The URL without user-info or query string (either could carry a credential)."""
    try:
        parsed = httpx2.URL(str(url))
        return str(parsed.copy_with(userinfo=b"", query=None, fragment=None))
    except (httpx2.InvalidURL, TypeError, ValueError):
        return str(url)


def _status_hint(status: int, hints: EnvHints) -> str:
    if status in (401, 403):
        return f" (check {hints.api_key_var})"
    if status == 404:
        return f" (check the model name and {hints.base_url_var})"
    return ""


def _secs(value: float | None) -> str:
    return "the configured time" if value is None else f"{value:g}s"


def _os_reason(exc: BaseException) -> str:
    """The most specific OS-level reason in an exception chain, e.g. 'Connection refused'."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError):
            if isinstance(current.errno, int) and current.errno > 0:
                return os.strerror(current.errno)
            if current.strerror:  # e.g. socket.gaierror: "Name or service not known"
                return current.strerror
        for inner in getattr(current, "exceptions", ()):  # ExceptionGroup from happy eyeballs
            reason = _os_reason(inner)
            if reason:
                return reason
        current = current.__cause__ or current.__context__
    return ""


def encode_body(body: dict[str, Any]) -> bytes:
    """A request's JSON as UTF-8, as httpx would encode it. A lone surrogate that reached it
    (the transcript and the events are cleaned where text enters them; this is the last
    line) is cleaned (``core.text``) and logged instead of failing every later request with
    ``UnicodeEncodeError``."""
    try:
        return _dumps(body).encode("utf-8")
    except UnicodeEncodeError as exc:
        log.warning("a request held text that is not UTF-8 (%s); it was cleaned", exc.reason)
        return _dumps(clean(body)).encode("utf-8")


def _dumps(body: dict[str, Any]) -> str:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


class HttpTransport:
    """One provider's HTTP client, timeouts, retry policy and error vocabulary."""

    def __init__(
        self,
        hints: EnvHints,
        *,
        timeout: float | httpx2.Timeout | None = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        client: httpx2.AsyncClient | None = None,
        secrets: Sequence[str] = (),
    ) -> None:
        self.hints = hints
        self.timeout = timeout if isinstance(timeout, httpx2.Timeout) else httpx2.Timeout(timeout)
        self.retry = retry or RetryPolicy()
        self._secrets = [s for s in secrets if s]
        self._owns_client = client is None
        self.client = client if client is not None else httpx2.AsyncClient(timeout=self.timeout)

    async def aclose(self) -> None:
        if self._owns_client:
            await self.client.aclose()

    def error(
        self, message: str, *, status: int | None = None, retryable: bool = False
    ) -> ProviderError:
        text = redact(f"{self.hints.label}: {message}", self._secrets)
        return ProviderError(text, status=status, retryable=retryable)

    @asynccontextmanager
    async def post_stream(
        self,
        url: str,
        *,
        json_body: dict[str, Any],
        headers: dict[str, str],
        on_retry: Callable[[Retrying], None] | None = None,
        max_retry_wait: float | None = None,
    ) -> AsyncIterator[httpx2.Response]:
        """A streamed response with a 2xx status, closed on exit; see the module docstring.
        ``on_retry`` is told before each wait for a retry; ``max_retry_wait`` replaces the
        policy's longest ``Retry-After``."""
        response = await self._send_with_retries(url, json_body, headers, on_retry, max_retry_wait)
        try:
            yield response
        except httpx2.TimeoutException as exc:
            raise self._timeout_error(exc, url, mid_stream=True) from None
        except httpx2.TransportError as exc:
            raise self.error(
                f"the connection to {display_url(url)} broke before the response finished: "
                f"{describe_transport_error(exc)}. What arrived is kept; try again."
            ) from None
        finally:
            await response.aclose()

    async def _send_with_retries(
        self,
        url: str,
        json_body: dict[str, Any],
        headers: dict[str, str],
        on_retry: Callable[[Retrying], None] | None = None,
        max_retry_wait: float | None = None,
    ) -> httpx2.Response:
        policy = self.retry
        if max_retry_wait is not None:
            policy = RetryPolicy(
                policy.max_retries, policy.base_delay, policy.max_delay, max_retry_wait
            )
        attempt = 0
        content = encode_body(json_body)
        headers = {"Content-Type": "application/json", **headers}
        while True:
            retry_after: float | None = None
            try:
                request = self.client.build_request(
                    "POST", url, content=content, headers=headers, timeout=self.timeout
                )
                response = await self.client.send(request, stream=True)
            except (httpx2.InvalidURL, httpx2.UnsupportedProtocol) as exc:
                raise self.error(
                    f"invalid URL {url!r}: {str(exc).rstrip('.')}. "
                    f"Set {self.hints.base_url_var} to a full URL "
                    f"such as {self.hints.example_url}."
                ) from None
            except (
                httpx2.TimeoutException,
                httpx2.NetworkError,
                httpx2.RemoteProtocolError,
            ) as exc:
                failure = self._transport_error(exc, url, attempt)
            except httpx2.TransportError as exc:
                raise self.error(
                    f"network error talking to {display_url(url)}: {type(exc).__name__}: {exc}"
                ) from None
            else:
                if response.is_success:
                    return response
                failure = await self._status_error(response, url, attempt)
                retry_after = parse_retry_after(response.headers)
            if not failure.retryable or attempt >= policy.max_retries:
                raise failure
            if retry_after is not None and retry_after > policy.max_retry_after:
                raise self.error(
                    f"{_without_label(str(failure), self.hints.label)} — the server asked to "
                    f"wait {_secs(retry_after)} before trying again (Retry-After), longer than "
                    f"the {_secs(policy.max_retry_after)} agent-tui waits at most "
                    '("model": {"max_retry_wait": SECONDS} in settings). Try again later.',
                    status=failure.status,
                    retryable=True,
                )
            wait = policy.delay(attempt, retry_after)
            attempt += 1
            log.warning(
                "%s; retrying in %.2fs (retry %d of %d)",
                failure,
                wait,
                attempt,
                policy.max_retries,
            )
            if on_retry is not None:
                on_retry(
                    Retrying(
                        attempt=attempt,
                        retries=policy.max_retries,
                        wait=wait,
                        reason=_without_label(str(failure), self.hints.label),
                        retry_after=retry_after is not None,
                    )
                )
            await asyncio.sleep(wait)

    async def _status_error(
        self, response: httpx2.Response, url: str, attempt: int
    ) -> ProviderError:
        try:
            body = await response.aread()
        except httpx2.HTTPError:
            body = b""
        finally:
            await response.aclose()
        status = response.status_code
        server = error_message_from_body(body, response.headers.get("content-type", ""))
        server = server or response.reason_phrase or "no details"
        retryable = is_retryable_status(status)
        tail = _status_hint(status, self.hints)
        if retryable and attempt >= self.retry.max_retries and attempt > 0:
            tail += f" (gave up after {attempt} retries)"
        return self.error(
            f"HTTP {status} from {display_url(url)}: {server}{tail}",
            status=status,
            retryable=retryable,
        )

    def _transport_error(self, exc: httpx2.HTTPError, url: str, attempt: int) -> ProviderError:
        tries = f" (tried {attempt + 1} times)" if attempt else ""
        if isinstance(exc, httpx2.TimeoutException):
            message = self._timeout_message(exc, url, mid_stream=False)
            if attempt:
                message += f" Tried {attempt + 1} times."
            return self.error(message, retryable=True)
        reason = describe_transport_error(exc)
        if isinstance(exc, httpx2.ConnectError):
            return self.error(
                f"cannot connect to {display_url(url)} ({reason}){tries}. Is the server "
                f"running? Set {self.hints.base_url_var} to its address.",
                retryable=True,
            )
        return self.error(
            f"the connection to {display_url(url)} failed before a response arrived "
            f"({reason}){tries}. Try again; if it persists, check "
            f"{self.hints.base_url_var} and the server.",
            retryable=True,
        )

    def _timeout_error(
        self, exc: httpx2.TimeoutException, url: str, *, mid_stream: bool
    ) -> ProviderError:
        return self.error(self._timeout_message(exc, url, mid_stream=mid_stream), retryable=True)

    def _timeout_message(self, exc: httpx2.TimeoutException, url: str, *, mid_stream: bool) -> str:
        where = display_url(url)
        base_var = self.hints.base_url_var
        if isinstance(exc, httpx2.ConnectTimeout):
            message = (
                f"connect timeout: no connection to {where} within {_secs(self.timeout.connect)}. "
                f"Check {base_var} and that the server is reachable."
            )
        elif isinstance(exc, httpx2.ReadTimeout):
            phase = "in the middle of the response" if mid_stream else "before responding"
            message = (
                f"read timeout: {where} sent nothing for {_secs(self.timeout.read)} {phase}. "
                f"The server may be overloaded or still loading the model; try again, "
                f"or check {base_var} and the server."
            )
        elif isinstance(exc, httpx2.WriteTimeout):
            message = (
                f"write timeout: could not send the request to {where} within "
                f"{_secs(self.timeout.write)}. Check the network and {base_var}."
            )
        else:
            message = (
                f"timeout waiting for a free connection to {where} "
                f"({type(exc).__name__}). Try again."
            )
        return message


def _without_label(message: str, label: str) -> str:
    """``openai: HTTP 503 …`` → ``HTTP 503 …`` (the reason of a retry, shown under the label)."""
    prefix = f"{label}: "
    return message[len(prefix) :] if message.startswith(prefix) else message


def describe_transport_error(exc: BaseException) -> str:
    """What happened to a connection, in words: ``the server reset the connection``, ``the
    server closed the connection mid-response``… — never an empty ``ReadError: ``."""
    reason = _os_reason(exc) or None
    text = str(exc).strip()
    causes = " ".join(
        str(part).lower()
        for part in (text, reason, exc.__cause__, exc.__context__)
        if part is not None
    )
    kind = type(exc).__name__
    if "reset" in causes or "errno 104" in causes:
        said = "the server reset the connection"
    elif (
        isinstance(exc, httpx2.RemoteProtocolError)
        or "peer closed" in causes
        or "incomplete" in causes
    ):
        said = "the server closed the connection before the response was complete"
    elif isinstance(exc, httpx2.ReadError):
        said = "reading from the server failed"
    elif isinstance(exc, httpx2.WriteError):
        said = "sending to the server failed"
    else:
        said = reason or text or "the connection failed"
    detail = reason or text
    return f"{said} ({kind}: {detail})" if detail and detail not in said else f"{said} ({kind})"
