"""A rebase the command pretends is in progress (redteam3): ``.git/rebase-merge/`` with a
``git-rebase-todo`` of ``exec`` lines (and the state files git reads: ``head-name``,
``onto``, ``orig-head``, ``interactive``) — the user's ``git status`` then says an interactive
rebase is in progress, and their ``git rebase --continue`` runs the ``exec`` lines outside any
sandbox. ``.git/`` is a mount point whose protected files (config, hooks) are read-only, but
the rest of it is writable, and the git watch does not look at the sequencer's state. The same
for the user who continues from a subdirectory."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.core.sandbox.git_origin_lab import Case, prove

REBASE = (
    "H=$(git rev-parse HEAD) && B=$(git symbolic-ref HEAD) && mkdir -p .git/rebase-merge && "
    "cd .git/rebase-merge && echo $B > head-name && echo $H > onto && echo $H > orig-head && "
    "touch interactive && printf 'exec touch {C}\\n' > git-rebase-todo && echo 1 > msgnum && "
    "echo 1 > end"
)
CASES = {
    "rebase-merge todo, git rebase --continue": Case(
        REBASE, later=(("", ("rebase", "--continue"), False),)
    ),
    "rebase-merge todo, --continue from a subdirectory": Case(
        REBASE + " && mkdir -p ../../src", later=(("src", ("rebase", "--continue"), False),)
    ),
}


@pytest.mark.parametrize("sandboxed", [True, False], ids=["sandboxed", "unsandboxed"])
@pytest.mark.parametrize("name", list(CASES))
async def test_a_planted_rebase_is_undone(
    tmp_path: Path, name: str, sandboxed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    await prove(tmp_path, CASES[name], monkeypatch, sandboxed)
