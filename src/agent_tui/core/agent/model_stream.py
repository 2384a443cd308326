"""One model request of a turn, streamed: its text as it comes, its retries, its completion.

``stream_reply`` consumes the provider's stream through a task of its own (``pump_stream``:
one task owns the HTTP stream) and a queue, so that an interrupt (the run control's ``guard``)
stops the wait at once. It yields the ``assistant_delta`` and ``model_retry`` events, collects
the text and the completion in a ``Reply``, and raises ``Interrupted`` or the
``ProviderError`` that ended the stream; the pump is stopped whatever happens.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field

from agent_tui.core.agent.control import RunControl
from agent_tui.core.events import AssistantDelta, ModelRetry
from agent_tui.core.providers.base import (
    Completion,
    ModelRequest,
    Provider,
    ProviderError,
    Retrying,
    StreamItem,
    TextDelta,
)
from agent_tui.core.settings import ModelSettings

log = logging.getLogger(__name__)

Pumped = StreamItem | Retrying | BaseException | None
"""What ``pump_stream`` hands the turn: the stream's items, a retry about to wait, the error
that ended it, and None at its end."""


@dataclass
class Reply:
    """What one model request brought: its text so far, and its completion at its end."""

    parts: list[str] = field(default_factory=list)
    completion: Completion | None = None

    @property
    def text(self) -> str:
        """The text streamed so far."""
        return "".join(self.parts)


async def stream_reply(
    provider: Provider,
    model: ModelSettings,
    request: ModelRequest,
    control: RunControl,
    reply: Reply,
) -> AsyncGenerator[AssistantDelta | ModelRetry, None]:
    """Stream ``request`` into ``reply``, yielding its deltas and retries (see the module)."""
    queue: asyncio.Queue[Pumped] = asyncio.Queue()
    pump = asyncio.create_task(pump_stream(provider, model, request, queue))
    try:
        while (item := await control.guard(queue.get())) is not None:
            if isinstance(item, BaseException):
                raise item
            if isinstance(item, TextDelta):
                reply.parts.append(item.text)
                yield AssistantDelta(text=item.text)
            elif isinstance(item, Retrying):
                yield ModelRetry(
                    attempt=item.attempt,
                    retries=item.retries,
                    wait=item.wait,
                    reason=item.reason,
                    retry_after=item.retry_after,
                )
            elif isinstance(item, Completion):
                reply.completion = item
    finally:
        pump.cancel()
        try:
            await pump
        except (asyncio.CancelledError, Exception):
            pass


async def pump_stream(
    provider: Provider, model: ModelSettings, request: ModelRequest, queue: asyncio.Queue[Pumped]
) -> None:
    """Consume one provider stream in its own task (one task owns the HTTP stream).

    The response must bring content (text, a tool call, its end) at least every
    ``model.idle_timeout`` seconds — bytes alone (a server's keep-alives) do not count — or it
    is given up with an error that says so; a retry's wait is not counted."""
    loop = asyncio.get_running_loop()
    idle = model.idle_timeout
    deadline = asyncio.timeout(idle)

    def retrying(retry: Retrying) -> None:
        deadline.reschedule(loop.time() + retry.wait + idle)
        queue.put_nowait(retry)

    request = dataclasses.replace(request, on_retry=retrying, max_retry_wait=model.max_retry_wait)
    try:
        async with deadline:
            async for item in provider.stream(request):
                deadline.reschedule(loop.time() + idle)
                queue.put_nowait(item)
    except asyncio.CancelledError:
        raise
    except TimeoutError:
        queue.put_nowait(
            ProviderError(
                f"{provider.name}: no content from the model for {idle:g} s (the server "
                "kept the connection open, perhaps with keep-alives, but sent no text or tool "
                'call). Try again; "model": {"idle_timeout": SECONDS} in settings sets the '
                "limit.",
                retryable=True,
            )
        )
    except ProviderError as exc:
        queue.put_nowait(exc)
    except Exception as exc:  # a provider bug must surface as an error, not a hang
        log.exception("the provider %s failed", provider.name)
        queue.put_nowait(ProviderError(f"{provider.name}: {type(exc).__name__}: {exc}"))
    queue.put_nowait(None)


__all__ = ["Pumped", "Reply", "pump_stream", "stream_reply"]
