"""The provider's key in the agent's own environment, read by an unsandboxed command
(redteam3). The command's environment is scrubbed of it, but the agent's process is the
user's: ``ps eww`` prints every process's initial environment, and ``cat /proc/$PID/environ``
with the PID known only at run time (``$(pgrep …)``, ``$PPID``) was not seen as the private
read that ``/proc/1/environ`` is. Default mode with ``run_shell(ps:*)`` / ``run_shell(cat:*)``,
and bypass with no rule; sandbox off (in the sandbox the agent is in another PID namespace)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_tui.core.permissions import Mode
from tests.core.permissions.red_team.harness import make_lab

KEY = "sk-ant-rt3-canary-0d9f2c"
CASES = {
    "ps axeww": ("ps axeww", ("run_shell(ps:*)",)),
    "ps eww -p $(pgrep)": (
        "ps eww -p $(pgrep -d, -f rt3agent)",
        ("run_shell(ps:*)", "run_shell(pgrep:*)"),
    ),
    "ps -eo … eww": ("ps -eo pid,args eww", ("run_shell(ps:*)",)),
    "cat /proc/$(pgrep)/environ": (
        "cat /proc/$(pgrep -o -f rt3agent)/environ",
        ("run_shell(cat:*)", "run_shell(pgrep:*)"),
    ),
    "tr < /proc/$(pgrep)/environ": (
        "tr '\\0' '\\n' < /proc/$(pgrep -o -f rt3agent)/environ",
        ("run_shell(tr:*)", "run_shell(pgrep:*)"),
    ),
}


def _user_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_KEY", "_TOKEN"))}
    return {**env, "ANTHROPIC_API_KEY": KEY}


def _agent(root: Path, home: Path, command: str, mode: Mode, allow: tuple[str, ...]) -> dict:
    args = {"root": str(root), "home": str(home), "command": command, "mode": mode.value}
    args["allow"] = list(allow)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.core.permissions.redteam3.agent_child",
            "rt3agent",
            json.dumps(args),
        ],
        env=_user_env(),
        capture_output=True,
        timeout=120,
        check=True,
        cwd=Path(__file__).resolve().parents[4],
    )
    return json.loads(done.stdout.decode().strip().splitlines()[-1])


def _bare(root: Path, command: str) -> str:
    """The command run by bash under a parent whose own environment has the key, as the
    agent's has (the child's is scrubbed, as the agent's commands' are)."""
    child = {k: v for k, v in _user_env().items() if k != "ANTHROPIC_API_KEY"}
    code = (
        "import subprocess,sys; sys.argv.append('rt3agent'); "
        f"print(subprocess.run(['bash','-c',{command!r}],env={child!r},cwd={str(root)!r},"
        "capture_output=True).stdout.decode('utf-8','replace'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, "rt3agent"], env=_user_env(), capture_output=True, timeout=60
    )
    return done.stdout.decode("utf-8", "replace")


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")
@pytest.mark.parametrize("mode", [Mode.DEFAULT, Mode.BYPASS], ids=["default+rule", "bypass"])
@pytest.mark.parametrize("name", list(CASES))
def test_the_agents_key_is_not_read_from_its_environment(
    tmp_path: Path, name: str, mode: Mode
) -> None:
    command, allow = CASES[name]
    lab = make_lab(tmp_path, "lab")
    assert KEY in _bare(lab.root, command), "the command does not show the key bare"
    out = _agent(lab.root, lab.home, command, mode, allow if mode is Mode.DEFAULT else ())
    assert KEY not in out["text"], f"LEAKED through the agent ({mode.value}): {command}"
    assert not out["ran"], out


@pytest.mark.parametrize(
    "command", ["ps aux", "ps -ef", "ps -C python3", "ps -u dev -o pid,cmd", "ps axjf"]
)
def test_ps_without_environments_stays_allowed(tmp_path: Path, command: str) -> None:
    from tests.core.permissions.red_team.harness import decide, home_of, pipeline, rules

    lab = make_lab(tmp_path, "lab")
    with home_of(lab):
        decision = decide(
            pipeline(lab, rules(allow=("run_shell(ps:*)",), deny=()), Mode.DEFAULT),
            "run_shell",
            {"command": command},
        )
    assert decision.kind == "allow", decision
