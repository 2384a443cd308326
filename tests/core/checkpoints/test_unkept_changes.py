"""A write over a file too big for a checkpoint to keep (issue 38, item 8) says so before it
happens: in the approval (a caveat of the ``permission_request`` event and of the request the
front end answers) and, where nothing asks, in the result. Before, the result said only
"Wrote 1 line (6 bytes)" and the rewind said afterwards "too big to keep"."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.checkpoints.snapshot import MAX_SNAPSHOT_BYTES
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.events import PermissionRequest, ToolResult
from agent_tui.core.permissions import Approval, ApprovalRequest, PermissionPipeline

from .helpers import call, make_agent, turn

BIG = MAX_SNAPSHOT_BYTES + (36 << 20)  # 100 MB


@pytest.fixture
def work(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    root.mkdir()
    big = root / "big.log"
    with big.open("wb") as fh:  # sparse: 100 MB of size, no blocks
        fh.truncate(BIG)
    return root


@pytest.mark.parametrize("tool", ["write_file", "edit_file"])
async def test_the_result_says_the_change_cannot_be_rewound(
    work: Path, store: SessionStore, tool: str
) -> None:
    if tool == "edit_file":
        (work / "big.log").write_bytes(b"needle\n" + b"x" * (BIG - 7))
        args = {"path": "big.log", "old_string": "needle", "new_string": "thread"}
        turns = [turn(call("read_file", path="big.log", limit=1)), turn(call(tool, **args))]
    else:
        turns = [turn(call(tool, path="big.log", content="hello\n"))]
    agent = make_agent(work, store, [*turns, {"text": "done"}])
    events = [e async for e in agent.run("overwrite it")]
    (result,) = [e for e in events if isinstance(e, ToolResult) and e.name == tool]
    assert not result.is_error, result.content
    assert "this change cannot be rewound: the file held 100 MB, more than the 64 MB" in (
        result.content
    )


async def test_the_approval_says_it_before_the_write(work: Path, store: SessionStore) -> None:
    agent = make_agent(work, store, [turn(call("write_file", path="big.log", content="hi\n"))])
    agent.policy = agent.executor.policy = PermissionPipeline(work)
    asked: list[ApprovalRequest] = []

    async def asker(request: ApprovalRequest) -> Approval:
        asked.append(request)
        assert (work / "big.log").stat().st_size == BIG  # nothing written yet
        return Approval(allowed=False, feedback=None)

    events = [e async for e in agent.run("overwrite it", asker=asker)]
    (request,) = [e for e in events if isinstance(e, PermissionRequest)]
    (caveat,) = request.caveats
    assert caveat.startswith("this change cannot be rewound: the file held 100 MB")
    assert asked[0].caveats == (caveat,)
    assert (work / "big.log").stat().st_size == BIG  # denied: unchanged


async def test_a_small_file_has_no_caveat(work: Path, store: SessionStore) -> None:
    (work / "small.txt").write_text("old\n")
    agent = make_agent(work, store, [turn(call("write_file", path="small.txt", content="new\n"))])
    events = [e async for e in agent.run("overwrite it")]
    (result,) = [e for e in events if isinstance(e, ToolResult)]
    assert "cannot be rewound" not in result.content
