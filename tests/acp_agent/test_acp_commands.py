"""``agent-tui acp`` step 3: slash commands listed for the client
(``available_commands_update``) and run from a prompt: a custom command expands into the
model's prompt; a TUI-only built-in is answered without a model request."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.acp_agent.helpers import DEADLINE, Editor, running_agent
from tests.acp_agent.test_acp_session import say, text
from tests.core.providers.conftest import FakeServer


@pytest.fixture
def server() -> Iterator[FakeServer]:
    fake = FakeServer()
    fake.start()
    yield fake
    fake.stop()


@pytest.fixture
def greet() -> None:
    """A user command: ``/greet NAME``."""
    commands = Path(os.environ["AGENT_TUI_CONFIG_DIR"]) / "commands"
    commands.mkdir(parents=True)
    (commands / "greet.md").write_text(
        "---\ndescription: Greet someone warmly\nargument-hint: NAME\n---\n"
        "Write a warm greeting for $ARGUMENTS.\n"
    )


@pytest.mark.usefixtures("greet")
async def test_commands_are_listed_and_a_custom_one_expands(
    server: FakeServer, tmp_path: Path
) -> None:
    say(server, "Hello, Bob!")
    editor = Editor()
    async with running_agent(editor, tmp_path, server=server) as conn:
        session = await conn.new_session(cwd=str(tmp_path))
        await editor.wait_for(lambda: bool(editor.of_kind("available_commands_update")))
        [listed] = editor.of_kind("available_commands_update")
        names = {c.name: c for c in listed.available_commands}
        assert {"help", "skills", "greet"} <= set(names)
        assert "clear" not in names  # the TUI's own screens: not offered
        assert names["greet"].description == "Greet someone warmly"
        assert names["greet"].input is not None
        assert names["greet"].input.root.hint == "NAME"
        reply = await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=text("/greet Bob")), DEADLINE
        )
    assert reply.stop_reason == "end_turn"
    sent = server.requests[-1].json["messages"][-1]
    assert sent["role"] == "user"
    assert "Write a warm greeting for Bob." in sent["content"]


async def test_a_tui_built_in_is_answered_without_the_model(
    server: FakeServer, tmp_path: Path
) -> None:
    editor = Editor()
    async with running_agent(editor, tmp_path, server=server) as conn:
        session = await conn.new_session(cwd=str(tmp_path))
        reply = await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=text("/clear")), DEADLINE
        )
    assert reply.stop_reason == "end_turn"
    assert "needs agent-tui's own TUI" in editor.text()
    assert server.requests == []
