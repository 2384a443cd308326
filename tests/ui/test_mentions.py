"""``@`` mentions in the app: the file reaches the model, the chat shows chips (live and
after resume), the picker's completer answers once the index is built."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_tui.core.agent.agent import Agent
from agent_tui.core.conversation.session import SessionLog
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.events import AssistantMessage, Mention, TurnEnd, UserMessage
from agent_tui.core.permissions import SimplePolicy
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.tools.builtin import default_registry
from agent_tui.ui.chat import UserPrompt

from .helpers import make_app, submit, wait_for, wait_idle
from .test_snapshots import WIDE, SnapCompare, demo_app, feeding

PROMPT = "compare @src/app.py with @docs/ please"


def _agent(cwd: Path, store: SessionStore, session: SessionLog) -> Agent:
    script = cwd / "script.json"
    script.write_text(json.dumps({"turns": [{"text": "Compared."}]}), encoding="utf-8")
    return Agent(
        ScriptProvider(script),
        default_registry(),
        cwd,
        policy=SimplePolicy(),
        session=session,
        sessions=store,
        system="test",
    )


def _tree(root: Path) -> None:
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("def main():\n    return 'CANARY-app-41c'\n")
    (root / "docs").mkdir()
    (root / "docs" / "guide.md").write_text("# Guide\n")


def _chips(app: Any) -> list[tuple[str, list[tuple[str, str]]]]:
    return [
        (p.text, [(m.kind, m.path) for m in p.mentions]) for p in app.main.chat.query(UserPrompt)
    ]


async def test_a_mentioned_file_reaches_the_model_and_shows_as_chips(tmp_path: Path) -> None:
    _tree(tmp_path)
    store = SessionStore(tmp_path / "sessions")
    log = store.new(tmp_path, "script")
    agent = _agent(tmp_path, store, log)
    app = make_app(agent)
    expected = [(PROMPT, [("file", "src/app.py"), ("directory", "docs/")])]
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, PROMPT)
        await wait_idle(pilot)
        provider = agent.provider
        assert isinstance(provider, ScriptProvider)
        sent = provider.requests[0].messages[-1].content
        assert "CANARY-app-41c" in sent  # the file's content went to the model
        assert "guide.md" in sent  # the directory's listing too
        assert _chips(app) == expected
        (shown,) = app.main.chat.query(UserPrompt)
        rendered = str(shown.render())
        assert "📄 src/app.py" in rendered
        assert "📁 docs/" in rendered
        assert "CANARY" not in rendered  # the chat does not paste the content
        # the picker answers from the index the app built after mounting
        await wait_for(pilot, app.mention_index.ready.is_set, "the mention index")
        got = app.mention_completer.complete("see @app", 8)
        assert got is not None
        assert got.items[0].insert == "@src/app.py "
    await agent.close()

    resumed = _agent(tmp_path, store, SessionLog.load(log.path))
    app = make_app(resumed, session=resumed.describe())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: bool(_chips(app)), "the resumed prompt")
        assert _chips(app) == expected
    await resumed.close()


CHIP_EVENTS = [
    UserMessage(
        text=PROMPT,
        mentions=[
            Mention(kind="file", path="src/app.py", start=8, end=19),
            Mention(kind="directory", path="docs/", start=25, end=31),
        ],
    ),
    AssistantMessage(text="Compared."),
    TurnEnd(reason="completed", turns=1),
]


def test_user_message_with_two_chips(snap_compare: SnapCompare, tmp_path: Path) -> None:
    assert PROMPT[8:19] == "@src/app.py"
    assert PROMPT[25:31] == "@docs/"
    app = demo_app(tmp_path)
    assert snap_compare(app, terminal_size=WIDE, run_before=feeding(CHIP_EVENTS))


async def test_typing_at_opens_the_picker_in_the_menu_and_tab_inserts(tmp_path: Path) -> None:
    """The ``@`` side of the prompt's completion menu: the picker opens as the query is
    typed, filters, and Tab puts the path in the prompt; the message then carries the file."""
    _tree(tmp_path)
    store = SessionStore(tmp_path / "sessions")
    agent = _agent(tmp_path, store, store.new(tmp_path, "script"))
    app = make_app(agent)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, app.mention_index.ready.is_set, "the mention index")
        prompt, menu = app.main.prompt, app.main.prompt.menu
        prompt.focus()
        await pilot.press(*"look at @ap")
        await wait_for(pilot, lambda: menu.is_open, "the picker")
        assert menu.selected is not None
        assert menu.selected.label == "src/app.py"
        await pilot.press("tab")
        assert prompt.text == "look at @src/app.py "
        await pilot.press("enter")
        await wait_idle(pilot)
        provider = agent.provider
        assert isinstance(provider, ScriptProvider)
        assert "CANARY-app-41c" in provider.requests[0].messages[-1].content
    await agent.close()
