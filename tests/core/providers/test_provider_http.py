"""Retry delays, Retry-After parsing, server error messages and key redaction."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx2
import pytest

from agent_tui.core.providers.http import (
    RetryPolicy,
    display_url,
    error_message_from_body,
    is_retryable_status,
    parse_retry_after,
    redact,
)


def test_backoff_grows_with_jitter_and_is_capped() -> None:
    policy = RetryPolicy(max_retries=5, base_delay=1.0, max_delay=5.0)
    for attempt, nominal in enumerate([1.0, 2.0, 4.0]):
        for _ in range(50):
            assert 0.8 * nominal <= policy.delay(attempt) <= min(1.2 * nominal, 5.0)
    assert all(policy.delay(10) == 5.0 for _ in range(20))


def test_retry_after_wins_up_to_its_own_maximum() -> None:
    """The server's Retry-After is not cut to the backoff cap (issue 38: 120 s became 30 s
    without a word); past ``max_retry_after`` the transport does not wait at all (tested with
    a server in test_stream_faults.py)."""
    policy = RetryPolicy(base_delay=10.0, max_delay=30.0, max_retry_after=300.0)
    assert policy.delay(0, retry_after=0.25) == 0.25
    assert policy.delay(0, retry_after=120.0) == 120.0
    assert policy.delay(0, retry_after=3600.0) == 300.0
    assert policy.delay(0, retry_after=-1.0) == 0.0


def test_parse_retry_after_forms() -> None:
    assert parse_retry_after(httpx2.Headers({"retry-after": "2"})) == 2.0
    assert parse_retry_after(httpx2.Headers({"retry-after": "0.5"})) == 0.5
    assert parse_retry_after(httpx2.Headers({"retry-after-ms": "250", "retry-after": "9"})) == 0.25
    assert parse_retry_after(httpx2.Headers({"retry-after": "soon"})) is None
    assert parse_retry_after(httpx2.Headers({})) is None
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=120), usegmt=True)
    assert 100 < (parse_retry_after(httpx2.Headers({"retry-after": later})) or 0) <= 120


@pytest.mark.parametrize(
    ("body", "content_type", "expected"),
    [
        (
            b'{"error": {"message": "Invalid API key", "type": "x"}}',
            "application/json",
            "Invalid API key",
        ),
        (
            b'{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
            "",
            "Overloaded",
        ),
        (
            b'{"error": "model \'llama9\' not found"}',
            "application/json",
            "model 'llama9' not found",
        ),
        (b'{"detail": "Not authenticated"}', "application/json", "Not authenticated"),
        (b"upstream   connect\n error", "text/plain", "upstream connect error"),
        (b"<html><body>502 Bad Gateway</body></html>", "text/html", ""),
        (b"", "", ""),
    ],
)
def test_error_message_from_body(body: bytes, content_type: str, expected: str) -> None:
    assert error_message_from_body(body, content_type) == expected


def test_long_server_messages_are_shortened() -> None:
    message = error_message_from_body(b"x" * 5000)
    assert len(message) < 600
    assert message.endswith("…")


def test_retryable_statuses() -> None:
    assert [
        s for s in (400, 401, 403, 404, 408, 422, 429, 500, 502, 529) if is_retryable_status(s)
    ] == [
        408,
        429,
        500,
        502,
        529,
    ]


def test_redact_and_display_url() -> None:
    assert redact("key sk-abcdef was wrong", ["sk-abcdef", ""]) == "key *** was wrong"
    assert display_url("http://user:pw@127.0.0.1:8/v1/x?key=s") == "http://127.0.0.1:8/v1/x"
