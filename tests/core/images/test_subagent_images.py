"""A subagent that reads an image is shown it (its own run keeps the bytes in memory), and the
parent's session file gets no image from it: only the child's report comes back."""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.events import TurnEnd
from tests.core.images.pictures import picture
from tests.core.subagents.helpers import Routed, call, make_agent, reply, step
from tests.core.subagents.test_task import run, task


async def test_a_subagent_sees_the_image_it_reads(tmp_path: Path) -> None:
    (tmp_path / "ui.png").write_bytes(picture(40, 30))
    provider = Routed(
        [step(reply("Delegating.", task("t1", "look at ui.png"))), step(reply("Done."))],
        {
            "look at ui.png": [
                step(reply("", call("read_file", "c1", path="ui.png"))),
                step(reply("REPORT: a blue screen")),
            ]
        },
    )
    agent = make_agent(provider, tmp_path)
    events = await run(agent)
    assert isinstance(events[-1], TurnEnd)
    child = [r for who, r in provider.requests if who != "parent"]
    (ref,) = [ref for m in child[1].messages for ref in m.images]
    assert (ref.width, ref.height) == (40, 30)
    assert ref.digest in child[1].images  # its bytes went with the request
    parent = [r for who, r in provider.requests if who == "parent"][-1]
    assert not any(m.images for m in parent.messages)
