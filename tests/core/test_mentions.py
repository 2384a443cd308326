"""``@`` mentions on real trees: the index (ignore files, the watcher), the query, the
completer, and the expansion a prompt gets (workspace only, the read guard, big files,
directories, text that only looks like a mention)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_tui.core.agent.agent import Agent
from agent_tui.core.conversation.replay import transcript_events
from agent_tui.core.conversation.session import SessionLog
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.events import UserMessage
from agent_tui.core.mentions import FileIndex, IndexWatcher, MentionCompleter, MentionExpander
from agent_tui.core.mentions.expand import MAX_LISTING
from agent_tui.core.mentions.syntax import tokens, typing_at
from agent_tui.core.permissions import Rule, RuleSet
from agent_tui.core.permissions.read_guard import RuleReadGuard
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.tools.builtin.read_file import MAX_LINES

DEADLINE = 20.0


def make(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def built(root: Path) -> FileIndex:
    index = FileIndex(root)
    index.build()
    return index


def wait(condition: Callable[[], object], what: str) -> None:
    deadline = time.monotonic() + DEADLINE
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {DEADLINE:g}s waiting for {what}")
        time.sleep(0.05)


# -- the index --------------------------------------------------------------------------------


def test_index_honours_ignore_files_and_skips_git(tmp_path: Path) -> None:
    (tmp_path / ".git" / "info").mkdir(parents=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("secret-notes.txt\n")
    (tmp_path / ".git" / "HEAD").write_text("ref: x\n")
    make(
        tmp_path,
        {
            ".gitignore": "build/\n*.log\n",
            "src/app.py": "",
            "src/.ignore": "gen_*.py\n",
            "src/gen_a.py": "",
            "build/out.o": "",
            "debug.log": "",
            "secret-notes.txt": "",
            "docs/guide.md": "",
        },
    )
    labels = set(built(tmp_path).labels())
    assert {"src/", "src/app.py", "docs/", "docs/guide.md", ".gitignore"} <= labels
    for gone in ("build/", "build/out.o", "debug.log", "src/gen_a.py", "secret-notes.txt"):
        assert gone not in labels
    assert not any(label.startswith(".git/") for label in labels)


def test_index_is_breadth_first_and_cut_at_its_bound(tmp_path: Path) -> None:
    make(tmp_path, {f"deep/a/b/f{i}.txt": "" for i in range(5)} | {"top.txt": ""})
    index = FileIndex(tmp_path, max_entries=4)
    index.build()
    assert index.truncated
    assert index.labels() == ["deep/", "top.txt", "deep/a/", "deep/a/b/"]


def test_query_prefers_basename_matches_and_marks_directories(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            "src/app.py": "",
            "src/apple/readme.md": "",
            "docs/api/paper.txt": "",
            "lib/mapping.py": "",
        },
    )
    index = built(tmp_path)
    labels = [hit.label for hit in index.query("app").hits]
    assert labels[0] == "src/app.py"
    assert "src/apple/" in labels  # a directory, with its slash
    assert labels.index("src/app.py") < labels.index("lib/mapping.py")
    hit = index.query("sap").hits[0]  # src/app.py: s, then "ap" in the name
    assert [hit.label[i] for i in hit.positions] == ["s", "a", "p"]
    assert index.query("zzz").hits == ()
    extended = index.query("ap")  # narrowing from a previous query gives the same answers
    index._last = None
    assert index.query("app").hits[:2] == built(tmp_path).query("app").hits[:2]
    assert extended.hits


def test_watcher_adds_and_removes_within_a_deadline(tmp_path: Path) -> None:
    make(tmp_path, {".gitignore": "*.tmp\n", "a.txt": "", "old/x.txt": ""})
    index = built(tmp_path)
    watcher = IndexWatcher(index)
    stop = threading.Event()
    thread = threading.Thread(target=watcher.run, args=(stop,), daemon=True)
    thread.start()
    try:
        wait(watcher.ready.is_set, "the watcher to start")
        make(tmp_path, {"new/fresh.py": "", "scratch.tmp": ""})
        (tmp_path / "old" / "x.txt").unlink()
        (tmp_path / "old").rmdir()
        wait(lambda: "new/fresh.py" in index and "old/" not in index, "the changes applied")
        assert "new/" in index
        assert "old/x.txt" not in index
        assert "scratch.tmp" not in index  # ignored: never indexed
        assert index.query("fresh").hits[0].label == "new/fresh.py"
    finally:
        stop.set()
        thread.join(timeout=DEADLINE)
    assert not thread.is_alive()


# -- the completer ----------------------------------------------------------------------------


def test_completer_replaces_the_mention_at_the_cursor(tmp_path: Path) -> None:
    make(tmp_path, {"src/app.py": "", "my notes/todo list.md": ""})
    completer = MentionCompleter(built(tmp_path))
    text = "look at @ap please"
    got = completer.complete(text, len("look at @ap"))
    assert got is not None
    assert (got.start, got.end) == (8, 11)
    assert got.items[0].label == "src/app.py"
    assert got.items[0].insert == "@src/app.py "
    quoted = completer.complete("see @todo", 9)
    assert quoted is not None
    assert quoted.items[0].insert == '@"my notes/todo list.md" '
    assert completer.complete("mail me@ap", 10) is None  # an address, not a mention
    assert completer.complete("no mention", 5) is None
    assert typing_at('x @"my no', 9) is not None


# -- expansion --------------------------------------------------------------------------------


def guard(root: Path, *deny: str) -> RuleReadGuard:
    return RuleReadGuard(RuleSet(deny=[Rule.parse(rule, source="test") for rule in deny]), root)


async def test_a_file_is_attached_as_read_file_shows_it(tmp_path: Path) -> None:
    make(tmp_path, {"src/app.py": "print('hi')\nprint('bye')\n"})
    out = await MentionExpander(tmp_path).expand("explain @src/app.py, please")
    assert out.text.startswith("explain @src/app.py, please\n\n")
    assert '<attachment kind="file" path="src/app.py">' in out.text
    assert "     1\tprint('hi')\n     2\tprint('bye')" in out.text
    (mention,) = out.mentions
    assert (mention.kind, mention.path, mention.attached) == ("file", "src/app.py", True)
    assert "explain @src/app.py, please"[mention.start : mention.end] == "@src/app.py"


async def test_quoted_path_and_email_and_missing_path(tmp_path: Path) -> None:
    make(tmp_path, {"my notes.txt": "alpha\n", "me": "not mentioned\n"})
    prompt = 'mail me@example.com about @"my notes.txt" and @nobody'
    out = await MentionExpander(tmp_path).expand(prompt)
    assert [m.path for m in out.mentions] == ["my notes.txt"]
    assert "alpha" in out.text
    assert "not mentioned" not in out.text
    assert [t.path for t in tokens("a@b.c @x, (@y) @z")] == ["x,", "z"]


async def test_a_denied_file_is_refused_with_a_note(tmp_path: Path) -> None:
    make(tmp_path, {".env": "API_KEY=CANARY-9d2e\n", "ok.txt": "fine\n"})
    expander = MentionExpander(tmp_path, reads=guard(tmp_path, "read_file(.env)"))
    out = await expander.expand("check @.env and @ok.txt")
    assert "CANARY" not in out.text
    env, ok = out.mentions
    assert not env.attached
    assert "read_file(.env)" in env.note
    assert '<attachment kind="file" path=".env" refused="true">' in out.text
    assert ok.attached
    assert "fine" in out.text


async def test_no_escape_by_dotdot_or_symlink(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    make(outside, {"secret.txt": "CANARY-out-5b1\n"})
    workspace = tmp_path / "ws"
    make(workspace, {"a.txt": "a\n"})
    (workspace / "link.txt").symlink_to(outside / "secret.txt")
    (workspace / "linkdir").symlink_to(outside, target_is_directory=True)
    out = await MentionExpander(workspace).expand(
        "@../outside/secret.txt @link.txt @linkdir/ @" + str(outside / "secret.txt")
    )
    assert "CANARY" not in out.text
    assert len(out.mentions) == 4
    assert all(not m.attached and "outside the workspace" in m.note for m in out.mentions)
    assert "a symlink that leads outside" in out.mentions[1].note


async def test_a_big_file_is_its_first_window_and_a_pointer(tmp_path: Path) -> None:
    make(tmp_path, {"big.txt": "".join(f"line {i}\n" for i in range(1, MAX_LINES + 501))})
    out = await MentionExpander(tmp_path).expand("@big.txt")
    assert f"line {MAX_LINES}\n" in out.text
    assert f"line {MAX_LINES + 1}\n" not in out.text
    assert f'next: read_file(path="big.txt", offset={MAX_LINES + 1})' in out.text
    assert f"of {MAX_LINES + 500:,}" in out.mentions[0].note


async def test_binary_file_is_a_note(tmp_path: Path) -> None:
    (tmp_path / "blob.bin").write_bytes(b"\0\1\2" * 100)
    out = await MentionExpander(tmp_path).expand("@blob.bin")
    (mention,) = out.mentions
    assert not mention.attached
    assert "does not look like a text file" in mention.note


async def test_a_directory_is_a_bounded_ignore_aware_listing(tmp_path: Path) -> None:
    make(
        tmp_path,
        {".gitignore": "*.log\n", "docs/a.md": "", "docs/sub/b.md": "", "docs/x.log": ""}
        | {f"docs/many/f{i:03}.txt": "" for i in range(MAX_LISTING + 10)},
    )
    out = await MentionExpander(tmp_path).expand("what is in @docs/ ?")
    (mention,) = out.mentions
    assert (mention.kind, mention.path) == ("directory", "docs/")
    body = out.text.split('<attachment kind="directory" path="docs/">\n', 1)[1]
    assert body.startswith("a.md\nmany/\nsub/\n")
    assert "x.log" not in body
    assert f"the first {MAX_LISTING} entries" in body


# -- through the agent: the model gets the attachment, the transcript keeps the chips ----------


@pytest.fixture
def agent_in(tmp_path: Path) -> Callable[[SessionLog | None], Agent]:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"turns": [{"text": "ok"}, {"text": "ok"}]}))

    def make_agent(session: SessionLog | None) -> Agent:
        return Agent(
            ScriptProvider(script), default_registry(), tmp_path, system="t", session=session
        )

    return make_agent


async def test_the_model_gets_the_file_and_resume_gets_the_mentions(
    tmp_path: Path, agent_in: Callable[[SessionLog | None], Agent]
) -> None:
    make(tmp_path, {"notes.md": "remember the milk\n"})
    store = SessionStore(tmp_path / "sessions")
    log = store.new(tmp_path, "script")
    agent = agent_in(log)
    events = [e async for e in agent.run("read @notes.md")]
    first = events[0]
    assert isinstance(first, UserMessage)
    assert first.text == "read @notes.md"
    assert [m.path for m in first.mentions] == ["notes.md"]
    provider = agent.provider
    assert isinstance(provider, ScriptProvider)
    sent = provider.requests[0].messages[-1].content
    assert "remember the milk" in sent
    assert agent.turns()[0].prompt == "read @notes.md"  # rewind puts back what was typed
    await agent.close()
    messages = SessionLog.load(log.path).messages
    (told,) = [e for e in transcript_events(messages) if isinstance(e, UserMessage)]
    assert told == first
    assert "remember the milk" in messages[0].content  # the model's view is saved too
