"""The session as Claude Code's transcript (``core.conversation.claude_export``): appended,
not rewritten; rebuilt when something else wrote it; a failed write loses nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from agent_tui.core.calls import ToolCall
from agent_tui.core.conversation.compaction import Compacted
from agent_tui.core.conversation.session import SessionLog
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.transcript import Message


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def _exchange(session: SessionLog, n: int) -> None:
    call = ToolCall(id=f"c{n}", name="run_shell", arguments=json.dumps({"command": f"echo {n}"}))
    session.append(Message.user(f"prompt {n}"))
    session.append(Message.assistant(f"running {n}", [call]))
    session.append(Message.tool(call, f"{n}\n"))
    session.append(Message.assistant(f"reply {n}"))


def test_a_thousand_messages_then_one_more_reads_and_writes_only_the_new_one(
    tmp_path: Path,
) -> None:
    session = SessionStore(tmp_path / "sessions").new(tmp_path, "demo")
    for n in range(250):
        _exchange(session, n)
    export = session.claude_transcript()
    first = export.refresh()
    assert first.rebuilt
    assert first.written == 1000
    size = export.target.stat().st_size
    before = session.path.stat().st_size
    session.append(Message.assistant("one more"))
    started = time.perf_counter()
    again = export.refresh()
    took = time.perf_counter() - started
    assert not again.rebuilt
    assert again.read == session.path.stat().st_size - before  # only the new line was read
    assert again.written == 1
    lines = _lines(export.target)
    assert len(lines) == 1001
    assert export.target.stat().st_size > size
    assert lines[-1]["message"]["content"] == [{"type": "text", "text": "one more"}]
    assert lines[-1]["parentUuid"] == lines[-2]["uuid"]
    assert len({line["uuid"] for line in lines}) == 1001
    assert took < 0.5  # one line, not a thousand (a generous bound for a loaded machine)
    assert export.refresh().read == 0  # nothing new: nothing read


def test_compaction_starts_a_new_chain_and_a_rewind_branches(tmp_path: Path) -> None:
    session = SessionStore(tmp_path / "sessions").new(tmp_path, "demo")
    for n in range(2):
        _exchange(session, n)
    export = session.claude_transcript()
    export.refresh()
    session.compact(Compacted(folded=4, summary="we echoed 0", kept=4))
    session.append(Message.user("after"))
    export.refresh()
    lines = _lines(export.target)
    summary, after = lines[8], lines[9]
    assert summary["isCompactSummary"] is True
    assert summary["parentUuid"] is None
    assert summary["message"] == {"role": "user", "content": "we echoed 0"}
    assert after["parentUuid"] == lines[7]["uuid"]  # the messages kept come after it
    # rebuilt from the session file alone (a new process), the ids are the same
    fresh = SessionLog.load(session.path)
    fresh.id = session.id
    rebuilt = fresh.claude_transcript()
    rebuilt.target.unlink()
    assert rebuilt.refresh().rebuilt
    assert [x["uuid"] for x in _lines(rebuilt.target)] == [x["uuid"] for x in lines]


def test_a_rewind_makes_the_next_entry_follow_the_last_one_kept(tmp_path: Path) -> None:
    from agent_tui.core.checkpoints.records import Rewound

    session = SessionStore(tmp_path / "sessions").new(tmp_path, "demo")
    _exchange(session, 0)
    _exchange(session, 1)
    session.record(
        Rewound(turn="t", target="t1", at="now", code=False, conversation=True, messages=4)
    )
    session.append(Message.user("instead"))
    export = session.claude_transcript()
    export.refresh()
    lines = _lines(export.target)
    assert lines[-1]["message"]["content"] == "instead"
    assert lines[-1]["parentUuid"] == lines[3]["uuid"]  # after "reply 0", the last kept


def test_a_file_changed_by_another_program_is_rebuilt(tmp_path: Path) -> None:
    session = SessionStore(tmp_path / "sessions").new(tmp_path, "demo")
    _exchange(session, 0)
    export = session.claude_transcript()
    export.refresh()
    with export.target.open("a", encoding="utf-8") as fh:
        fh.write('{"type": "assistant", "message": {"content": [{"type": "text", "text": "X"}]}}\n')
    session.append(Message.assistant("real"))
    done = export.refresh()
    assert done.rebuilt
    lines = _lines(export.target)
    assert all("uuid" in line for line in lines)
    assert lines[-1]["message"]["content"][0]["text"] == "real"


def test_a_symlink_planted_at_the_export_is_replaced_not_followed(tmp_path: Path) -> None:
    session = SessionStore(tmp_path / "sessions").new(tmp_path, "demo")
    _exchange(session, 0)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep\n", encoding="utf-8")
    target = session.files_dir / f"{session.id}.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.symlink_to(victim)
    done = session.claude_transcript().refresh()
    assert done.rebuilt
    assert victim.read_text(encoding="utf-8") == "keep\n"
    assert not target.is_symlink()
    assert len(_lines(target)) == 4


FULL_DISK = """
import json, logging, resource, signal, sys
from pathlib import Path
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.transcript import Message

logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
session = SessionStore(Path(sys.argv[1])).new(Path(sys.argv[1]), "demo")
session.append(Message.user("before"))
export = session.claude_transcript()
export.refresh()
size = export.target.stat().st_size
session.append(Message.assistant("x" * 5000))
session.append(Message.assistant("y" * 5000))
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
resource.setrlimit(resource.RLIMIT_FSIZE, (size + 100, hard))  # room for part of a line
failed = export.refresh()
again = export.refresh()
cut = export.target.stat().st_size
resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
done = export.refresh()
texts = [json.loads(x)["message"]["content"] for x in export.target.read_text().splitlines()]
print(json.dumps({"problem": failed.problem, "path": str(failed.path), "again": again.problem,
                  "size": size, "cut": cut, "written": done.written, "texts": texts}))
"""


def test_a_failed_write_is_cut_back_logged_once_and_caught_up(tmp_path: Path) -> None:
    src = str(Path(__file__).resolve().parents[2] / "src")
    proc = subprocess.run(
        [sys.executable, "-c", FULL_DISK, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": src},
        check=True,
    )
    report = json.loads(proc.stdout)
    assert "could not be updated" in report["problem"]
    assert report["path"].endswith(".jsonl")  # the hook gets the file as it is
    assert report["again"] is not None
    assert report["cut"] == report["size"]  # the partial line was cut back off
    assert proc.stderr.count("could not be updated") == 1  # logged once for the run
    assert report["written"] == 2
    assert report["texts"][0] == "before"
    assert [t[0]["text"][0] for t in report["texts"][1:]] == ["x", "y"]  # nothing lost
