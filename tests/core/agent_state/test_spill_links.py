"""The spill directory cannot make the agent write outside: a shipped or planted symlink at
``.agent-spill`` (into ``~/.bashrc.d``, which Fedora's bash sources), at its ``.index``,
``.gitignore`` or ``mcp-media``, at a parent of a configured ``spill_dir``, or a project's
``spill_dir`` pointing out. Each attack is shown real (written the way the agent wrote before,
the next shell runs it), then run through the agent: nothing appears outside, the output is
still kept (in a private directory the message names), and cleanup and the browser never act
through the link."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from agent_tui.core.browse import SpillRefused, resolve_spill
from agent_tui.core.budget import SpillStore
from agent_tui.core.budget.cleanup import collect_spills
from agent_tui.core.budget.spill_dir import FALLBACK_PREFIX
from agent_tui.core.mcp.client.adapter import MediaStore
from agent_tui.core.permissions import Mode
from agent_tui.core.settings import load_settings
from tests.core.agent_state.helpers import call, files_in, result, run_cli, script, shell_call

PAYLOAD = "touch PWNED"
"""The output of the attack's command: a line a shell runs, if the spill lands where one
sources files."""
COMMAND = f"yes '{PAYLOAD}' | head -n 6000"
"""About 70,000 characters: over the 50,000 per-result cap, so it is spilled."""


def new_login_shell(home: Path, cwd: Path) -> None:
    """What Fedora's ~/.bashrc does at the next login: source every file of ~/.bashrc.d."""
    subprocess.run(
        ["bash", "-c", 'for f in "$HOME"/.bashrc.d/*; do [ -f "$f" ] && . "$f"; done'],
        cwd=cwd,
        env={**os.environ, "HOME": str(home)},
        capture_output=True,
        timeout=60,
        check=False,
    )


@pytest.fixture
def fedora(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(home, its ~/.bashrc.d, the workspace in the home)."""
    home = tmp_path / "home"
    rcd = home / ".bashrc.d"
    workspace = home / "project"
    rcd.mkdir(parents=True)
    workspace.mkdir()
    return home, rcd, workspace


def read_text(path: str) -> str:
    return Path(path).read_text()


def _fallback(path: str) -> bool:
    return Path(path).is_relative_to(tempfile.gettempdir()) and FALLBACK_PREFIX in path


def test_the_attack_is_real_a_spill_through_the_link_runs_in_the_next_shell(
    fedora: tuple[Path, Path, Path],
) -> None:
    home, rcd, workspace = fedora
    (workspace / ".agent-spill").symlink_to(rcd)
    (workspace / ".agent-spill" / "20260101T000000Z-run_shell-c1-0000.txt").write_text(
        f"{PAYLOAD}\n" * 3
    )  # what the agent wrote before: a plain open of .agent-spill/<name>
    new_login_shell(home, workspace)
    assert (workspace / "PWNED").exists()


async def test_a_symlinked_agent_spill_is_never_written_through(
    fedora: tuple[Path, Path, Path],
) -> None:
    home, rcd, workspace = fedora
    (workspace / ".agent-spill").symlink_to(rcd)
    store = SpillStore(Path(".agent-spill"), workspace, durable=False)
    events = await call(workspace, "run_shell", {"command": COMMAND}, store=store)
    done = result(events)
    assert done is not None, events
    assert done.spill is not None, events
    assert files_in(rcd) == []  # nothing through the link
    assert _fallback(done.spill.path), done.spill.path
    assert read_text(done.spill.path) == f"{PAYLOAD}\n" * 6000  # nothing lost
    assert done.spill.path in done.content  # the model is told where it is
    problem = store.take_problem()
    assert problem is not None
    assert "symbolic link" in problem
    assert "rm .agent-spill" in problem
    assert done.spill.path.rsplit("/", 2)[-2] in problem  # where the outputs went
    assert store.take_problem() is None  # said once
    new_login_shell(home, workspace)
    assert not (workspace / "PWNED").exists()  # the later effect: nothing runs


async def test_the_real_cli_reports_the_link_and_keeps_the_output(
    fedora: tuple[Path, Path, Path],
) -> None:
    home, rcd, workspace = fedora
    (workspace / ".agent-spill").symlink_to(rcd)
    model = script(workspace / "s.json", [{"tool_calls": [shell_call(COMMAND)]}, {"text": "ok"}])
    env = {**os.environ, "HOME": str(home)}
    from tests.core.agent_state.helpers import SRC

    env["PYTHONPATH"] = str(SRC)
    done = run_cli(
        "-p", "go", "--model", model, "--allow", "run_shell", "--output-format", "stream-json",
        cwd=workspace, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    errors = [e for e in events if e["type"] == "error"]
    assert [e["where"] for e in errors] == ["spill"], errors
    spills = [e for e in events if e["type"] == "spill"]
    assert len(spills) == 1
    assert _fallback(spills[0]["abs_path"])
    assert len(read_text(spills[0]["abs_path"])) == len(PAYLOAD + "\n") * 6000
    assert files_in(rcd) == []
    new_login_shell(home, workspace)
    assert not (workspace / "PWNED").exists()


async def test_a_symlinked_index_dir_inside_a_real_spill_dir_is_refused(tmp_path: Path) -> None:
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    (workspace / ".agent-spill").mkdir(parents=True)
    outside.mkdir()
    (workspace / ".agent-spill" / ".index").symlink_to(outside)
    store = SpillStore(Path(".agent-spill"), workspace, durable=False)
    done = result(await call(workspace, "run_shell", {"command": COMMAND}, store=store))
    assert done is not None
    assert done.spill is not None
    assert files_in(outside) == []
    assert _fallback(done.spill.path)
    assert ".agent-spill/.index" in (store.problem or "")


async def test_a_dangling_gitignore_link_is_not_followed(tmp_path: Path) -> None:
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    (workspace / ".agent-spill").mkdir(parents=True)
    outside.mkdir()
    (workspace / ".agent-spill" / ".gitignore").symlink_to(outside / "evil.sh")
    store = SpillStore(Path(".agent-spill"), workspace, durable=False)
    done = result(await call(workspace, "run_shell", {"command": COMMAND}, store=store))
    assert done is not None
    assert done.spill is not None
    assert not (outside / "evil.sh").exists()
    assert Path(done.spill.path).parent.name == ".agent-spill"  # the directory itself is real
    assert store.problem is None


async def test_a_symlinked_parent_of_the_configured_spill_dir_is_refused(tmp_path: Path) -> None:
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    (workspace / "build").symlink_to(outside)
    store = SpillStore(Path("build/spill"), workspace, durable=False)
    done = result(await call(workspace, "run_shell", {"command": COMMAND}, store=store))
    assert done is not None
    assert done.spill is not None
    assert files_in(outside) == []
    assert _fallback(done.spill.path)
    assert "build, on the way to the spill directory build/spill" in (store.problem or "")


async def test_a_link_swapped_in_between_two_spills_is_caught(tmp_path: Path) -> None:
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    store = SpillStore(Path(".agent-spill"), workspace, durable=False)
    first = result(await call(workspace, "run_shell", {"command": COMMAND}, store=store))
    assert first is not None
    assert first.spill is not None
    assert first.spill.path.startswith(".agent-spill/")
    os.rename(workspace / ".agent-spill", workspace / "old-spill")
    (workspace / ".agent-spill").symlink_to(outside)  # a command replaced it
    second = result(await call(workspace, "run_shell", {"command": COMMAND}, store=store))
    assert second is not None
    assert second.spill is not None
    assert _fallback(second.spill.path)
    assert files_in(outside) == []


def test_mcp_media_through_a_link_goes_to_a_private_directory(tmp_path: Path) -> None:
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    (workspace / ".agent-spill").mkdir(parents=True)
    outside.mkdir()
    (workspace / ".agent-spill" / "mcp-media").symlink_to(outside)
    media = MediaStore(workspace / ".agent-spill" / "mcp-media", workspace)
    saved = media.save(b"\x89PNG fake", "image/png", "shot", "c1")
    assert files_in(outside) == []
    assert _fallback(saved)
    assert Path(saved).read_bytes() == b"\x89PNG fake"
    assert "mcp-media" in (media.problem or "")


def test_cleanup_never_deletes_through_a_symlinked_spill_dir(tmp_path: Path) -> None:
    workspace, precious = tmp_path / "ws", tmp_path / "precious"
    workspace.mkdir()
    (precious / ".index").mkdir(parents=True)
    names = [
        "20200101T000000Z-run_shell-c1-abcd.txt",  # named like a spill
        ".tmp-1234-notes.txt",  # named like a leftover temporary file
        ".index/20200101T000000Z-run_shell-c9-abcd.txt.idx",  # an orphan index
    ]
    for name in names:
        (precious / name).write_text("keep me\n")
        old = time.time() - 30 * 86400
        os.utime(precious / name, (old, old))
    (workspace / ".agent-spill").symlink_to(precious)
    store = SpillStore(Path(".agent-spill"), workspace, durable=False)
    report = collect_spills(store, [], [], grace=0)
    assert report.deleted == []
    assert all((precious / n).exists() for n in names)


def test_a_spill_named_link_inside_the_spill_dir_is_neither_listed_nor_followed(
    tmp_path: Path,
) -> None:
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    (workspace / ".agent-spill").mkdir(parents=True)
    outside.mkdir()
    (outside / "precious").write_text("keep me\n")
    name = "20200101T000000Z-run_shell-c1-abcd.txt"
    (workspace / ".agent-spill" / name).symlink_to(outside / "precious")
    store = SpillStore(Path(".agent-spill"), workspace, durable=False)
    assert store.files() == []
    collect_spills(store, [], [], grace=0)
    assert (outside / "precious").read_text() == "keep me\n"


def test_a_saved_pointer_through_a_now_symlinked_spill_dir_is_refused(tmp_path: Path) -> None:
    """A saved session points at ``.agent-spill/NAME``; the directory is now a link to a place
    holding a file of that name (with an index): the browser does not open it."""
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    real = SpillStore(Path(".agent-spill"), outside / "elsewhere", durable=False)
    (outside / "elsewhere").mkdir()
    record = real.write("secret of elsewhere\n" * 50, "run_shell", "c1")
    (workspace / ".agent-spill").symlink_to(record.path.parent)
    store = SpillStore(Path(".agent-spill"), workspace, durable=False)
    with pytest.raises(SpillRefused) as refused:
        resolve_spill(store, f".agent-spill/{record.path.name}")
    assert refused.value.kind == "outside"
    assert store.problem is not None  # the store itself uses its own directory now


@pytest.mark.parametrize("spill_dir", ["../outside", "/tmp/x-spills", "~/spills", "a/../../b"])
def test_a_project_cannot_move_the_spill_dir_outside(tmp_path: Path, spill_dir: str) -> None:
    workspace = tmp_path / "ws"
    (workspace / ".agent-tui").mkdir(parents=True)
    for name in ("settings.json", "settings.local.json"):
        (workspace / ".agent-tui" / name).write_text(
            json.dumps({"budget": {"spill_dir": spill_dir, "preview_chars": 1000}})
        )
        loaded = load_settings(workspace)
        assert loaded.settings.budget.spill_dir == ".agent-spill"
        assert loaded.settings.budget.preview_chars == 1000  # the rest of the section applies
        said = " ".join(loaded.messages())
        assert "budget.spill_dir ignored" in said
        assert "inside the workspace" in said
        (workspace / ".agent-tui" / name).unlink()


def test_the_users_own_settings_may_put_spills_outside(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    user = Path(os.environ["AGENT_TUI_CONFIG_DIR"])
    user.mkdir(parents=True, exist_ok=True)
    (user / "settings.json").write_text(json.dumps({"budget": {"spill_dir": "../spills"}}))
    assert load_settings(workspace).settings.budget.spill_dir == "../spills"
    store = SpillStore(Path("../spills"), workspace, durable=False)
    record = store.write("x\n" * 10, "run_shell", "c1")
    assert record.path.resolve().parent == tmp_path / "spills"


def test_the_real_cli_keeps_spills_inside_when_a_project_points_them_out(tmp_path: Path) -> None:
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    (workspace / ".agent-tui").mkdir(parents=True)
    outside.mkdir()
    (workspace / ".agent-tui" / "settings.json").write_text(
        json.dumps({"budget": {"spill_dir": "../outside"}})
    )
    model = script(tmp_path / "s.json", [{"tool_calls": [shell_call(COMMAND)]}, {"text": "ok"}])
    done = run_cli("-p", "go", "--model", model, "--allow", "run_shell", cwd=workspace)
    assert done.returncode == 0, done.stderr
    assert "budget.spill_dir ignored" in done.stderr
    assert files_in(outside) == []
    assert any(n.endswith(".txt") for n in os.listdir(workspace / ".agent-spill"))


async def test_plan_mode_is_not_needed_to_stay_inside(tmp_path: Path) -> None:
    """The same refusal in every mode: the spill is the agent's own write, not a call's."""
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    (workspace / ".agent-spill").symlink_to(outside)
    for mode in (Mode.DEFAULT, Mode.ACCEPT_EDITS, Mode.BYPASS):
        store = SpillStore(Path(".agent-spill"), workspace, durable=False)
        done = result(
            await call(workspace, "run_shell", {"command": COMMAND}, mode=mode, store=store,
                       allow=("run_shell",))
        )  # fmt: skip
        assert done is not None
        assert done.spill is not None
        assert _fallback(done.spill.path)
    assert files_in(outside) == []
