"""Background jobs in the TUI: a job the model starts gets a live card above the lane (its
output tail, then its exit) that stays after the turn; its end is a notice; ``/shells``
lists the jobs, kills one and opens one's whole output in the spill browser."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import OptionList

from agent_tui.core.jobs import JobInfo, JobState
from agent_tui.ui.app import AgentApp
from agent_tui.ui.chat import Notice
from agent_tui.ui.jobs import ShellsScreen
from agent_tui.ui.jobs.jobs_panel import JobCard
from agent_tui.ui.jobs.running_question import RunningJobsQuestion
from agent_tui.ui.spills.browser import SpillBrowser
from tests.core.jobs.helpers import pids_with

from .helpers import make_agent, make_app, submit, wait_for

SnapCompare = Callable[..., bool]
WAIT = 30.0


def _bg(call_id: str, command: str) -> dict[str, Any]:
    arguments = {"command": command, "run_in_background": True}
    return {"tool_calls": [{"id": call_id, "name": "run_shell", "arguments": arguments}]}


def _card(app: AgentApp, job_id: str) -> str:
    found = app.main.jobs.query(f"#job-{job_id}")
    return str(found.first(JobCard).render()) if found else ""


async def test_a_job_has_a_live_card_that_outlives_the_turn(tmp_path: Path) -> None:
    gate = tmp_path / "go"
    command = f"echo serving on 8000; while [ ! -e {gate} ]; do sleep 0.05; done; echo bye; exit 3"
    turns = [_bg("b1", command), {"text": "Started."}, {"text": "Seen."}]
    agent = make_agent(tmp_path, turns, allow=("run_shell",))
    app = make_app(agent)
    async with app.run_test(size=(140, 40)) as pilot:
        assert app.main.jobs.has_class("-empty")  # no job: no panel
        await submit(pilot, "start the server")
        await wait_for(pilot, lambda: "serving on 8000" in _card(app, "1"), "the output", WAIT)
        await wait_for(pilot, lambda: not app.busy, "the turn to end", WAIT)
        assert not app.main.jobs.has_class("-empty")
        assert "running" in _card(app, "1")  # the turn ended; the job and its card did not
        gate.touch()
        await wait_for(pilot, lambda: "exited 3" in _card(app, "1"), "the exit", WAIT)
        assert "bye" in _card(app, "1")
        notes = [n for n in app._notifications if n.title == "Background job 1"]
        assert notes
        assert "exited 3" in notes[0].message
        await submit(pilot, "and now")  # the next request is told; the chat shows it too
        told = "⚙ background job 1 exited 3 · echo serving on 8000"
        seen = lambda: any(n.text.startswith(told) for n in app.main.chat.query(Notice))  # noqa: E731
        await wait_for(pilot, seen, "the note in the chat", WAIT)
    await agent.close()


async def test_shells_lists_kills_and_opens_the_whole_output(tmp_path: Path) -> None:
    turns = [_bg("b1", "seq 1 5000; sleep 300"), {"text": "Started."}]
    agent = make_agent(tmp_path, turns, allow=("run_shell",))
    app = make_app(agent)
    async with app.run_test(size=(140, 40)) as pilot:
        await submit(pilot, "start it")
        await wait_for(pilot, lambda: "5000" in _card(app, "1"), "the output", WAIT)
        await wait_for(pilot, lambda: not app.busy, "the turn to end", WAIT)
        await submit(pilot, "/shells")
        await wait_for(pilot, lambda: isinstance(app.screen, ShellsScreen), "/shells", WAIT)
        screen = app.screen
        assert isinstance(screen, ShellsScreen)
        assert [i.id for i in screen.infos] == ["1"]
        assert screen.infos[0].running
        assert screen.query_one(OptionList).option_count == 1
        await pilot.press("k")
        job = agent.executor.jobs.get("1")
        await wait_for(pilot, lambda: job.done.is_set(), "the kill", WAIT)
        info = job.info()
        assert info.state is JobState.KILLED
        assert info.killed_by == "user"
        await wait_for(pilot, lambda: "killed" in _card(app, "1"), "the card", WAIT)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, SpillBrowser), "the browser", WAIT)
        browser = app.screen
        assert isinstance(browser, SpillBrowser)
        await wait_for(pilot, lambda: browser.view.path is not None, "the file", WAIT)
        assert browser.view.path is not None
        assert browser.view.path.name.endswith(".txt")
        assert "shell_job-job1" in browser.view.path.name
        assert browser.view.path.read_text().splitlines()[4999] == "5000"  # nothing lost
    # the user killed it: the model is told at its next request
    notes = agent.executor.jobs.take_notes()
    assert [(n.id, n.killed_by) for n in notes] == [("1", "user")]
    await agent.close()


T0 = 1_800_000_000.0


LOG = ".agent-spill/20270115T080000Z-shell_job-job{}-ab12.txt"


def _info(job_id: str, command: str, state: JobState, **kw: Any) -> JobInfo:
    fields: dict[str, Any] = {
        "exit_code": None,
        "ended": None,
        "lines": 0,
        "bytes": 0,
        "unread_lines": 0,
        "unread_bytes": 0,
        "tail": (),
        "log": LOG.format(job_id),
        "pid": 4242,
        "started": T0,
    }
    fields.update(kw)
    return JobInfo(id=job_id, command=command, state=state, **fields)


PYTEST_TAIL = (
    "FAILED tests/test_parser.py::test_tokens - assert 3 == 4",
    "1 failed, 212 passed in 71.2s",
)
VITE_TAIL = ("  VITE v5.4.2  ready in 412 ms", "  ➜  Local:   http://127.0.0.1:5173/")
JOBS = [
    _info("1", "pytest -q tests/", JobState.EXITED, exit_code=1, ended=T0 + 74, tail=PYTEST_TAIL),
    _info("2", "npm run dev", JobState.RUNNING, tail=VITE_TAIL),
    _info(
        "3",
        "python3 -m http.server 8000 --bind 127.0.0.1",
        JobState.KILLED,
        exit_code=-15,
        ended=T0 + 30,
        killed_by="user",
        tail=('127.0.0.1 - - "GET / HTTP/1.1" 200 -',),
    ),
]


def _fixed() -> float:
    return T0 + 125


def _show_cards(pilot_app: AgentApp) -> None:
    panel = pilot_app.main.jobs
    panel.now = _fixed
    for info in JOBS:
        panel.show(info)


def _before(push: bool) -> Callable[[Pilot[Any]], Awaitable[None]]:
    async def run_before(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, AgentApp)
        await pilot.pause()
        _show_cards(app)
        if push:

            async def kill(job_id: str) -> JobInfo:
                raise AssertionError("not in a snapshot")

            await app.push_screen(ShellsScreen(lambda: JOBS, lambda _: None, kill, _fixed))
        await pilot.pause()

    return run_before


def test_snapshot_of_the_job_cards(snap_compare: SnapCompare, tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, []))
    assert snap_compare(app, terminal_size=(120, 32), run_before=_before(False))


def test_snapshot_of_the_shells_screen(snap_compare: SnapCompare, tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, []))
    assert snap_compare(app, terminal_size=(120, 32), run_before=_before(True))


async def _running_job(pilot: Pilot[Any], app: AgentApp) -> None:
    await submit(pilot, "start it")
    await wait_for(pilot, lambda: "running" in _card(app, "1"), "the job", WAIT)
    await wait_for(pilot, lambda: not app.busy, "the turn to end", WAIT)


async def test_new_conversation_with_a_running_job_asks(tmp_path: Path) -> None:
    turns = [_bg("b1", "sleep 300"), {"text": "Started."}, _bg("b2", "sleep 300"), {"text": "2"}]
    agent = make_agent(tmp_path, turns, allow=("run_shell",))
    app = make_app(agent)
    async with app.run_test(size=(140, 40)) as pilot:
        await _running_job(pilot, app)
        first = agent.session
        await submit(pilot, "/new")
        await wait_for(pilot, lambda: isinstance(app.screen, RunningJobsQuestion), "ask", WAIT)
        await pilot.press("escape")  # cancel: nothing changes
        await wait_for(pilot, lambda: not isinstance(app.screen, RunningJobsQuestion), "gone", WAIT)
        assert agent.session is first
        assert agent.executor.jobs.get("1").info().running
        await submit(pilot, "/new")
        await wait_for(pilot, lambda: isinstance(app.screen, RunningJobsQuestion), "ask", WAIT)
        await pilot.press("e")  # keep it running: a new conversation, the job goes on
        await wait_for(pilot, lambda: agent.session is not first, "the new conversation", WAIT)
        assert agent.executor.jobs.get("1").info().running
        second = agent.session
        await submit(pilot, "/new")
        await wait_for(pilot, lambda: isinstance(app.screen, RunningJobsQuestion), "ask", WAIT)
        await pilot.press("k")  # kill it, then the new conversation
        await wait_for(pilot, lambda: agent.session is not second, "another conversation", WAIT)
        info = agent.executor.jobs.get("1").info()
        assert info.state is JobState.KILLED
    await agent.close()


async def test_quitting_with_a_running_job_asks_and_kills_it(tmp_path: Path) -> None:
    marker = f"sleeper-{secrets.token_hex(4)}"
    turns = [_bg("b1", f"exec -a {marker} sleep 300"), {"text": "Started."}]
    agent = make_agent(tmp_path, turns, allow=("run_shell",))
    app = make_app(agent)
    async with app.run_test(size=(140, 40)) as pilot:
        await _running_job(pilot, app)
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: isinstance(app.screen, RunningJobsQuestion), "ask", WAIT)
        await pilot.press("escape")  # cancel: still here, the job too
        await wait_for(pilot, lambda: not isinstance(app.screen, RunningJobsQuestion), "gone", WAIT)
        assert not agent.closed
        assert pids_with(marker)
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: isinstance(app.screen, RunningJobsQuestion), "ask", WAIT)
        await pilot.press("k")
        await wait_for(pilot, lambda: agent.closed, "the agent to close", WAIT)
    assert app.return_code == 0
    assert not pids_with(marker)


def test_snapshot_of_the_quit_question(snap_compare: SnapCompare, tmp_path: Path) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, AgentApp)
        await pilot.pause()
        _show_cards(app)
        running = [JOBS[1], _info("4", "cargo watch -x test", JobState.RUNNING, started=T0 + 100)]
        await app.push_screen(
            RunningJobsQuestion(running, "New conversation", keep=True, now=_fixed)
        )
        await pilot.pause()

    app = make_app(make_agent(tmp_path, []))
    assert snap_compare(app, terminal_size=(100, 28), run_before=run_before)


async def test_at_80x24_each_job_is_one_visible_line_also_after_new(tmp_path: Path) -> None:
    turns = [_bg("b1", "echo one; sleep 300"), {"text": "1"}, _bg("b2", "exit 2"), {"text": "2"}]
    agent = make_agent(tmp_path, turns, allow=("run_shell",))
    app = make_app(agent)
    async with app.run_test(size=(80, 24)) as pilot:
        await _running_job(pilot, app)
        await submit(pilot, "another")
        await wait_for(pilot, lambda: "exited 2" in _card(app, "2"), "the second job", WAIT)

        def visible() -> list[int]:
            return [card.region.height for card in app.main.jobs.query(JobCard)]

        await wait_for(pilot, lambda: visible() == [1, 1], "a line per job", WAIT)
        await submit(pilot, "/new")
        await wait_for(pilot, lambda: isinstance(app.screen, RunningJobsQuestion), "ask", WAIT)
        await pilot.press("e")
        await wait_for(pilot, lambda: not isinstance(app.screen, RunningJobsQuestion), "gone", WAIT)
        await pilot.pause()
        await wait_for(pilot, lambda: visible() == [1, 1], "still a line per job", WAIT)
    await agent.close()


def test_snapshot_of_the_job_cards_at_80x24(snap_compare: SnapCompare, tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, []))
    assert snap_compare(app, terminal_size=(80, 24), run_before=_before(False))
