"""Enter shows the prompt before the turn's first request is built (issue 45): the work a
request does over the transcript (a long session's compaction, a request carrying every
message) waits for the prompt's frame, so the messages read before the prompt is on screen
are none, however long the session is."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.transcript import Message
from agent_tui.ui.chat.user_prompt import UserPrompt

from .helpers import SIZE, make_agent, make_app, submit, wait_for


@pytest.mark.parametrize("earlier", [0, 200])
async def test_the_prompt_is_painted_before_the_request_reads_the_transcript(
    tmp_path: Path, earlier: int
) -> None:
    agent = make_agent(tmp_path, [{"text": "Done."}])
    for n in range(earlier):  # a session that already holds ``earlier`` turns
        agent.messages.append(Message.user(f"earlier {n}"))
        agent.messages.append(Message.assistant(f"answer {n}"))
    app = make_app(agent)
    read_unpainted: list[int] = []
    """For each request: the messages it read while the prompt was not yet on screen."""
    painted: list[bool] = []
    provider = agent.provider
    stream = provider.stream

    def watched(request: Any) -> AsyncIterator[Any]:
        shown = any(isinstance(w, UserPrompt) and "go on" in w.text for w in app.main.chat.children)
        painted.append(shown and prompt_rendered[0])
        read_unpainted.append(0 if painted[-1] else len(request.messages))
        return stream(request)

    prompt_rendered = [False]
    provider.stream = watched  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        original = UserPrompt.render_line

        def render_line(widget: UserPrompt, y: int) -> Any:
            if "go on" in widget.text:
                prompt_rendered[0] = True
            return original(widget, y)

        UserPrompt.render_line = render_line  # type: ignore[method-assign]
        try:
            await submit(pilot, "go on")
            await wait_for(pilot, lambda: bool(painted) and not app.busy, "the turn to end")
        finally:
            UserPrompt.render_line = original  # type: ignore[method-assign]
    assert painted[0], "the request was built before the prompt was painted"
    assert read_unpainted[0] == 0
