"""An agent process of its own (``python -m tests.core.permissions.redteam3.agent_child
rt3agent ARGS_JSON``) for the environment tests: its *initial* environment, as the user
started it, holds the provider key (``/proc/PID/environ`` shows that one, whatever the process
removes later). It runs one ``run_shell`` call through the real executor, unsandboxed, and
prints the tool's text (or the rejection)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from agent_tui.core.permissions import Mode, PermissionPipeline, Rule, RuleSet
from tests.core.permissions.red_team.harness import Lab, through_agent


def main() -> None:
    args = json.loads(sys.argv[2])
    lab = Lab(Path(args["root"]), Path(args["home"]))
    ruleset = RuleSet(allow=[Rule.parse(r, source="t") for r in args["allow"]])
    policy = PermissionPipeline(lab.root, ruleset, Mode(args["mode"]))
    outcome = asyncio.run(through_agent(lab, policy, "run_shell", {"command": args["command"]}))
    print(json.dumps({"ran": outcome.ran, "text": outcome.text}))


if __name__ == "__main__":
    main()
