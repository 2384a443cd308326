"""The workspace's shadow survives a resume (issue 44): saved beside the session when it
closes, read back when it is resumed, so only the files changed since are read again; a
command of the resumed session is still rewound byte-exact."""

from __future__ import annotations

import json
from pathlib import Path

from agent_tui.core.agent.agent import Agent
from agent_tui.core.checkpoints.shadow import Shadow
from agent_tui.core.checkpoints.shadow_index import NAME
from agent_tui.core.conversation.session import SessionLog
from agent_tui.core.conversation.session_store import SessionStore

from .helpers import call, make_agent, run, turn
from .test_command_rewind import state

FILES = 150
DEADLINE = 60.0


def _warmed(agent: Agent) -> Shadow:
    warming, shadow = agent._rewinder.warming, agent._rewinder.shadow
    assert warming is not None
    assert shadow is not None
    warming.join(DEADLINE)
    assert not warming.is_alive()
    return shadow


def _turn(command: str) -> list[dict[str, object]]:
    return [turn(call("run_shell", command=command)), turn(text="done")]


async def test_a_resumed_session_reads_only_what_changed_since(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "data" / "sessions")
    root = tmp_path / "w"
    root.mkdir()
    for n in range(FILES):
        (root / f"f{n:03}.txt").write_text(f"{n}\n")
    first = make_agent(root, store, _turn("sed -i s/1/one/ f001.txt"))
    assert _warmed(first).kept == FILES
    await run(first, "edit")
    await first.close()
    session = first.session
    assert session is not None
    saved = session.files_dir / NAME
    assert len(json.loads(saved.read_text())["files"]) == FILES

    (root / "f002.txt").write_text("changed between the sessions\n")
    before = state(root)
    again = make_agent(
        root, store, _turn("sed -i s/3/three/ f003.txt"), session=SessionLog.load(session.path)
    )
    shadow = _warmed(again)
    assert shadow.kept == 1  # f002.txt only
    await run(again, "edit again")
    await again.settle()
    turns = again.turns()
    assert len(turns) == 2
    report = await again.rewind(turns[-1].id, "code")
    assert report.files is not None
    assert report.files.restored == ["f003.txt"]
    assert state(root) == before
    await again.close()


async def test_a_damaged_or_foreign_saved_shadow_is_not_used(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "data" / "sessions")
    root = tmp_path / "w"
    root.mkdir()
    for n in range(20):
        (root / f"f{n:03}.txt").write_text(f"{n}\n")
    first = make_agent(root, store, [turn(text="hi")])
    _warmed(first)
    await run(first, "hi")
    await first.close()
    assert first.session is not None
    saved = first.session.files_dir / NAME
    data = json.loads(saved.read_text())
    data["files"][0][5] = "../" * 20 + "etc/passwd"  # a blob that is no digest
    saved.write_text(json.dumps(data))
    again = make_agent(root, store, [], session=SessionLog.load(first.session.path))
    assert _warmed(again).kept == 20  # all read again
    await again.close()
    data = json.loads(saved.read_text())
    data["root"] = str(tmp_path / "elsewhere")
    saved.write_text(json.dumps(data))
    third = make_agent(root, store, [], session=SessionLog.load(first.session.path))
    assert _warmed(third).kept == 20
    await third.close()
