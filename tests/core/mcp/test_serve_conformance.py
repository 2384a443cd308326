"""The MCP conformance suite's server scenarios against ``agent-tui mcp serve --transport http``.

The pinned suite (conftest's ``CONFORMANCE`` and ``suite``, shared with the client
scenarios) runs every server scenario (``--suite all``) twice against one real server on
127.0.0.1 serving a temporary tree: at its default protocol version, and with
``--spec-version 2026-07-28`` (the stateless revision).
Before the suite runs, one call's output is spilled, so the server has a resource to list
and read.

Most scenarios need the suite's own fixture server — tools named ``test_simple_text``,
resources ``test://static-text``, prompts — or a feature ``mcp serve`` does not offer
(prompts, completion, subscriptions, the tasks and skills extensions). ``APPLICABLE`` lists
the scenarios that apply to a product server like ours, each with the checks that may fail
and why (a check that needs a fixture tool); every other check must pass, and those listed
must still fail (strict, so the table stays true). ``NOT_APPLICABLE`` lists the rest with why,
and whether the suite counts it as passed anyway (a scenario whose checks are all skipped, or
that accepts the error an unknown tool gets). The table in docs/mcp.md is generated from these
lists and compared by a test.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.core.mcp.conftest import ROOT

MODERN = "2026-07-28"
SPECS = ("default", MODERN)
DEADLINE = 30.0
SCENARIO_TIMEOUT_MS = 60_000

FIXTURE_TOOL = "needs the suite's own test tool{}, which a product server does not have"
NO_PROMPTS = "serve has no prompts (a server without them answers -32601, as the spec says)"
NO_RESOURCE = (
    "reads the suite's fixture resource {}; serve's resources are its spills "
    "(spill://…), whose scenarios (resources-list, sep-2164, caching) run"
)
TASKS = "the tasks extension (SEP-2663): serve's tools answer at once, it declares no tasks"
SKILLS = (
    "the skills extension (SEP-2640): serve declares none, so every check is skipped "
    "(the suite counts that as a pass)"
)
INPUT_REQUIRED = (
    "multi-round-trip input (SEP-2322) through the suite's tool {}: serve's tools never ask "
    "the client for input"
)
VACUOUS = (
    "; passes only because the suite accepts the error the unknown tool gets (nothing of "
    "serve is checked)"
)


@dataclass(frozen=True)
class Applies:
    """A scenario that applies to serve; ``may_fail``: check id -> why it cannot pass here."""

    may_fail: dict[str, str]
    note: str = ""


APPLICABLE: dict[str, Applies] = {
    "server-initialize": Applies({}),
    "server-session-lifecycle": Applies({}),
    "server-stateless": Applies(
        {
            "sep-2575-server-rejects-undeclared-capability": FIXTURE_TOOL.format(
                " test_missing_capability"
            ),
            "sep-2575-missing-capability-http-400": FIXTURE_TOOL.format(" test_missing_capability"),
            "sep-2575-http-server-no-independent-requests-on-stream": FIXTURE_TOOL.format(
                " test_streaming_elicitation"
            ),
            "sep-2575-server-no-log-without-loglevel": FIXTURE_TOOL.format(" test_logging_tool"),
        },
        "the 2026-07-28 stateless protocol: server/discover, per-request _meta, the HTTP "
        "status codes; the SDK's streamable HTTP transport speaks it",
    ),
    "logging-set-level": Applies({}),
    "ping": Applies({}),
    "tools-list": Applies({}),
    "server-sse-polling": Applies(
        {},
        "two warnings: no priming event and no retry field — serve keeps no event store (the "
        "SDK shares one among all sessions, keyed by stream ids that are request ids and "
        "repeat across sessions, so a replay could hand one client's messages to another); a "
        "client whose stream broke sends the call again",
    ),
    "server-sse-multiple-streams": Applies({}),
    "resources-list": Applies({}, "the spills"),
    "sep-2164-resource-not-found": Applies({}, "-32602 with the URI in data"),
    "dns-rebinding-protection": Applies({}),
    "caching": Applies({"sep-2549-prompts-list-caching-hints": NO_PROMPTS}),
    "http-header-validation": Applies({}),
    "input-required-result-unsupported-methods": Applies({}),
}
NOT_APPLICABLE: dict[str, tuple[bool, str]] = {
    "completion-complete": (
        False,
        "completes the suite's prompt test_prompt_with_arguments; " + NO_PROMPTS,
    ),
    "tools-call-simple-text": (False, FIXTURE_TOOL.format(" test_simple_text")),
    "tools-call-image": (False, FIXTURE_TOOL.format(" test_image_content")),
    "tools-call-audio": (False, FIXTURE_TOOL.format(" test_audio_content")),
    "tools-call-embedded-resource": (False, FIXTURE_TOOL.format(" test_embedded_resource")),
    "tools-call-mixed-content": (False, FIXTURE_TOOL.format(" test_multiple_content_types")),
    "tools-call-with-logging": (False, FIXTURE_TOOL.format(" test_tool_with_logging")),
    "tools-call-error": (False, FIXTURE_TOOL.format(" test_error_handling")),
    "tools-call-with-progress": (False, FIXTURE_TOOL.format(" test_tool_with_progress")),
    "tools-call-sampling": (False, FIXTURE_TOOL.format(" test_sampling")),
    "tools-call-elicitation": (False, FIXTURE_TOOL.format(" test_elicitation")),
    "json-schema-2020-12": (False, FIXTURE_TOOL.format(" json_schema_2020_12_tool")),
    "elicitation-sep1034-defaults": (
        False,
        FIXTURE_TOOL.format(" test_elicitation_sep1034_defaults"),
    ),
    "elicitation-sep1330-enums": (False, FIXTURE_TOOL.format(" test_elicitation_sep1330_enums")),
    "resources-read-text": (False, NO_RESOURCE.format("test://static-text")),
    "resources-read-binary": (False, NO_RESOURCE.format("test://static-binary")),
    "resources-templates-read": (False, NO_RESOURCE.format("test://template/{id}/data")),
    "resources-subscribe": (
        False,
        "subscribes to the suite's test://watched-resource; serve offers no subscriptions "
        "(a spill never changes once written)",
    ),
    "resources-unsubscribe": (
        False,
        "unsubscribes from the suite's test://watched-resource; serve offers no subscriptions",
    ),
    "sep-2640-skills-directory": (True, SKILLS),
    "sep-2640-skills-enumeration": (True, SKILLS),
    "sep-2640-skills-manifest": (True, SKILLS),
    "prompts-list": (False, "lists the suite's prompts; " + NO_PROMPTS),
    "prompts-get-simple": (False, NO_PROMPTS),
    "prompts-get-with-args": (False, NO_PROMPTS),
    "prompts-get-embedded-resource": (False, NO_PROMPTS),
    "prompts-get-with-image": (False, NO_PROMPTS),
    "http-custom-header-server-validation": (
        False,
        "needs a tool whose input schema has x-mcp-header annotations (SEP-2243); serve's "
        "tools route nothing through headers",
    ),
    "tasks-lifecycle": (False, TASKS),
    "tasks-capability-negotiation": (False, TASKS),
    "tasks-wire-fields": (False, TASKS),
    "tasks-request-state-removal": (False, TASKS),
    "tasks-mrtr-input": (False, TASKS),
    "tasks-request-headers": (False, TASKS),
    "tasks-dispatch-and-envelope": (False, TASKS),
    "tasks-status-notifications": (True, TASKS + "; the suite skips its only check"),
    "tasks-required-task-error": (False, TASKS),
    "tasks-mrtr-composition": (False, TASKS),
    "input-required-result-basic-elicitation": (
        False,
        INPUT_REQUIRED.format("test_input_required_result_elicitation"),
    ),
    "input-required-result-basic-sampling": (
        False,
        INPUT_REQUIRED.format("test_input_required_result_sampling"),
    ),
    "input-required-result-basic-list-roots": (
        False,
        INPUT_REQUIRED.format("test_input_required_result_list_roots"),
    ),
    "input-required-result-request-state": (
        False,
        INPUT_REQUIRED.format("test_input_required_result_request_state"),
    ),
    "input-required-result-multiple-input-requests": (
        False,
        INPUT_REQUIRED.format("test_input_required_result_multiple_inputs"),
    ),
    "input-required-result-multi-round": (
        False,
        INPUT_REQUIRED.format("test_input_required_result_multi_round"),
    ),
    "input-required-result-missing-input-response": (
        True,
        INPUT_REQUIRED.format("test_input_required_result_elicitation") + VACUOUS,
    ),
    "input-required-result-non-tool-request": (
        False,
        "multi-round-trip input (SEP-2322) on the suite's prompt "
        "test_input_required_result_prompt; " + NO_PROMPTS,
    ),
    "input-required-result-result-type": (
        False,
        INPUT_REQUIRED.format("test_input_required_result_elicitation"),
    ),
    "input-required-result-tampered-state": (
        False,
        INPUT_REQUIRED.format("test_input_required_result_tampered_state"),
    ),
    "input-required-result-capability-check": (
        False,
        INPUT_REQUIRED.format("test_input_required_result_capabilities"),
    ),
    "input-required-result-ignore-extra-params": (
        True,
        INPUT_REQUIRED.format("test_input_required_result_elicitation") + VACUOUS,
    ),
    "input-required-result-validate-input": (
        True,
        INPUT_REQUIRED.format("test_input_required_result_elicitation") + VACUOUS,
    ),
}


def _run(suite: list[str], *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*suite, *args], capture_output=True, text=True, timeout=timeout, check=False
    )


def server_scenarios(suite: list[str]) -> dict[str, list[str]]:
    """The server scenarios the pinned suite lists (``conformance list``), each with the spec
    versions (or ``extension``) in its brackets."""
    found: dict[str, list[str]] = {}
    inside = False
    for line in _run(suite, "list").stdout.splitlines():
        if line.startswith("Server scenarios"):
            inside = True
        elif line and not line.startswith(" "):
            inside = False
        elif inside and line.strip().startswith("- "):
            name, _, versions = line.strip()[2:].partition(" ")
            found[name] = versions.strip("[]").split(",")
    return found


@dataclass(frozen=True)
class Served:
    process: subprocess.Popen[bytes]
    url: str
    errlog: Path


def _start(root: Path, errlog: Path) -> Served:
    """``agent-tui mcp serve --transport http --port 0`` on ``root``, once it listens."""
    argv = [sys.executable, "-m", "agent_tui", "mcp", "--cwd", str(root), "serve"]
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "src"),
        "AGENT_TUI_CONFIG_DIR": str(errlog.parent / "config"),
    }
    with errlog.open("wb") as err:
        process = subprocess.Popen(
            [*argv, "--transport", "http", "--port", "0"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=env,
        )
    marker = "agent-tui mcp serve: listening on "
    end = time.monotonic() + DEADLINE
    while marker not in (text := errlog.read_text()):
        if process.poll() is not None or time.monotonic() > end:
            process.kill()
            raise RuntimeError(f"mcp serve --transport http did not start:\n{text}")
        time.sleep(0.05)
    return Served(process, text.split(marker, 1)[1].splitlines()[0].strip(), errlog)


async def _spill_one(url: str) -> str:
    """Call grep so that its output is spilled; the spill's resource URI."""
    from mcp import Client
    from mcp.types import ResourceLink

    async with Client(url, read_timeout_seconds=DEADLINE) as client:
        result = await client.call_tool("grep", {"pattern": "needle", "path": "."})
        links = [block for block in result.content if isinstance(block, ResourceLink)]
        assert links, f"grep's long output was not spilled: {result}"
        return links[0].uri


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    base = tmp_path_factory.mktemp("serve-conformance")
    root = base / "served"
    root.mkdir()
    (base / "config").mkdir()
    long_line = "x" * 400
    (root / "many.txt").write_text(
        "".join(f"{i} needle {long_line}\n" for i in range(400)), encoding="utf-8"
    )
    running = _start(root, base / "serve.err")
    try:
        asyncio.run(_spill_one(running.url))
        yield running
    finally:
        running.process.send_signal(signal.SIGTERM)
        try:
            running.process.wait(timeout=DEADLINE)
        except subprocess.TimeoutExpired:
            running.process.kill()
            running.process.wait()


Checks = dict[str, list[dict[str, object]]]


@pytest.fixture(scope="module")
def outcomes(
    suite: list[str], served: Served, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Checks]:
    """Spec ("default" or 2026-07-28) -> scenario -> its checks, from one run of the suite."""
    listed = server_scenarios(suite)
    found: dict[str, Checks] = {}
    for spec in SPECS:
        out = tmp_path_factory.mktemp(f"conformance-{spec}")
        args = ["server", "--url", served.url, "--suite", "all", "-o", str(out)]
        if spec != "default":
            args += ["--spec-version", spec]
        done = _run(suite, *args, "--timeout", str(SCENARIO_TIMEOUT_MS))
        checks: Checks = {}
        for name in listed:
            pattern = re.compile(rf"server-{re.escape(name)}-\d{{4}}-\d\d-\d\dT.*")
            dirs = sorted(d for d in out.iterdir() if pattern.fullmatch(d.name))
            if dirs:
                checks[name] = json.loads((dirs[-1] / "checks.json").read_text("utf-8"))
        assert checks, f"the suite wrote no results:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
        found[spec] = checks
    return found


@pytest.mark.timeout(900)  # on a fresh clone it pays for installing the suite and Node (npm)
def test_every_server_scenario_of_the_suite_is_classified_here(suite: list[str]) -> None:
    listed = server_scenarios(suite)
    assert listed, "the suite listed no server scenarios"
    assert sorted(listed) == sorted([*APPLICABLE, *NOT_APPLICABLE])
    assert not set(APPLICABLE) & set(NOT_APPLICABLE)


def _failed(checks: list[dict[str, object]]) -> set[str]:
    return {str(c.get("id")) for c in checks if c.get("status") == "FAILURE"}


def _report(checks: list[dict[str, object]]) -> str:
    return "\n".join(
        f"{c.get('status')} {c.get('id')}: {c.get('errorMessage') or ''}" for c in checks
    )


@pytest.mark.timeout(900)
@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("scenario", list(APPLICABLE))
def test_applicable_server_scenario(outcomes: dict[str, Checks], spec: str, scenario: str) -> None:
    """Every check passes but those that need the suite's own tools (which must still fail:
    the table says so)."""
    ran = outcomes[spec]
    if scenario not in ran:
        assert spec == MODERN, f"{scenario} did not run at the suite's default version"
        pytest.skip(f"{scenario} is not a {MODERN} scenario")
    checks = ran[scenario]
    assert _failed(checks) == set(APPLICABLE[scenario].may_fail), _report(checks)
    checked = [c for c in checks if c.get("id") != "wire-schema-valid"]
    assert any(c.get("status") in ("SUCCESS", "WARNING") for c in checked), _report(checks)


@pytest.mark.timeout(900)
def test_the_suite_counts_the_non_applicable_scenarios_as_the_table_says(
    outcomes: dict[str, Checks],
) -> None:
    """A scenario that does not apply still runs; whether the suite counts it as passed (all
    its checks skipped, or an error accepted) is as ``NOT_APPLICABLE`` says."""
    wrong = []
    for spec, ran in outcomes.items():
        for scenario, (passes, _why) in NOT_APPLICABLE.items():
            if scenario in ran and (not _failed(ran[scenario])) != passes:
                report = _report(ran[scenario])
                wrong.append(f"{spec} {scenario}: expected passes={passes}\n{report}")
    assert not wrong, "\n".join(wrong)


def test_the_spills_are_read_back_as_the_suite_saw_them(served: Served) -> None:
    """The resource the fixture spilled is listed and readable (what caching read)."""

    async def listed() -> list[str]:
        from mcp import Client

        async with Client(served.url, read_timeout_seconds=DEADLINE) as client:
            return [r.uri for r in (await client.list_resources()).resources]

    uris = asyncio.run(listed())
    assert len(uris) == 1, uris
    assert uris[0].startswith("spill://"), uris


DOCS = ROOT / "docs" / "mcp.md"
TABLE_START = "<!-- server conformance table: python -m tests.core.mcp.test_serve_conformance -->"
TABLE_END = "<!-- end of the server conformance table -->"


def server_table() -> str:
    """The table of server scenarios in docs/mcp.md, from ``APPLICABLE`` and
    ``NOT_APPLICABLE``."""
    rows = ["| Scenario | Applies | Passes | Notes |", "| --- | --- | --- | --- |"]
    for name, applies in APPLICABLE.items():
        notes = [applies.note] if applies.note else []
        notes += [f"`{check}` cannot pass: {why}" for check, why in applies.may_fail.items()]
        passes = "yes, every check that applies" if applies.may_fail else "yes"
        rows.append(f"| `{name}` | yes | {passes} | {'; '.join(notes)} |")
    for name, (vacuous, why) in NOT_APPLICABLE.items():
        counted = "counted as passed" if vacuous else "no"
        rows.append(f"| `{name}` | no | {counted} | {why} |")
    return "\n".join(rows)


def test_the_docs_table_lists_each_server_scenario_as_this_file_does() -> None:
    text = DOCS.read_text(encoding="utf-8")
    assert TABLE_START in text, f"docs/mcp.md lacks {TABLE_START!r}"
    assert TABLE_END in text, f"docs/mcp.md lacks {TABLE_END!r}"
    table = text.split(TABLE_START, 1)[1].split(TABLE_END, 1)[0].strip()
    assert table == server_table(), (
        "docs/mcp.md's server conformance table is out of date; replace it with the output of "
        "`python -m tests.core.mcp.test_serve_conformance`:\n" + server_table()
    )


if __name__ == "__main__":
    print(server_table())
