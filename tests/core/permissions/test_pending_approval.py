"""``PendingApproval``: an ask's own future, settled exactly once, however it is settled."""

from __future__ import annotations

from agent_tui.core.permissions import Approval, Decision, PendingApproval, Step


def _watched(pending: PendingApproval) -> list[Approval | None]:
    seen: list[Approval | None] = []
    pending.watch(seen.append)
    return seen


async def test_the_first_answer_settles_it_and_the_rest_are_refused() -> None:
    pending = PendingApproval()
    seen = _watched(pending)
    assert not pending.done
    assert pending.answer(Approval(allowed=True))
    assert not pending.answer(Approval(allowed=False))
    assert not pending.cancel()
    assert seen == [Approval(allowed=True)]
    assert await pending.wait() == Approval(allowed=True)
    late: list[Approval | None] = []
    pending.watch(late.append)  # watching a settled ask tells it at once
    assert late == [Approval(allowed=True)]


async def test_cancelling_settles_it_once_and_tells_the_watchers() -> None:
    pending = PendingApproval()
    seen = _watched(pending)
    assert pending.cancel()
    assert not pending.cancel()
    assert not pending.answer(Approval(allowed=True))
    assert pending.cancelled
    assert pending.done
    assert seen == [None]


async def test_a_mode_change_asks_the_judge_and_only_a_verdict_settles_it() -> None:
    answers = iter([Decision("ask", "still risky", Step.DEFAULT), None, Decision("allow")])
    judged: list[int] = []

    def judge() -> Decision | None:
        judged.append(1)
        return next(answers)

    pending = PendingApproval(judge)
    seen = _watched(pending)
    still = pending.mode_changed()
    assert still is not None
    assert still.kind == "ask"
    assert pending.mode_changed() is None  # the check failed: it keeps asking
    assert not pending.done
    assert seen == []
    assert pending.verdict is None
    allowed = pending.mode_changed()
    assert allowed is not None
    assert allowed.kind == "allow"
    assert pending.verdict is allowed
    assert seen == [Approval(allowed=True, decided=allowed)]
    assert pending.mode_changed() is None  # settled: the judge is not asked again
    assert len(judged) == 3


async def test_without_a_judge_a_mode_change_settles_nothing() -> None:
    pending = PendingApproval()
    assert pending.mode_changed() is None
    assert not pending.done


async def test_a_watcher_that_fails_does_not_stop_the_others() -> None:
    pending = PendingApproval()

    def broken(approval: Approval | None) -> None:
        raise RuntimeError("the prompt fell over")

    pending.watch(broken)
    seen = _watched(pending)
    assert pending.answer(Approval(allowed=False))
    assert seen == [Approval(allowed=False)]
