"""The MCP conformance suite (``@modelcontextprotocol/conformance``, pinned) against our client.

For each client scenario the suite starts its test server, runs
``python -m agent_tui.core.mcp.client.conformance_client URL`` (forked from a zygote that has
imported it: ``preforked``) (our ``McpManager``, connection and
registry) against it and checks what the client did on the wire; a scenario passes when no
check failed. The scenarios run once per session, a few at a time (``outcomes``), and each
parametrized test asserts on its own. The suite and Node 22 are pinned and installed by
conftest's ``suite`` fixture (``CONFORMANCE``, shared with the server scenarios of
test_serve_conformance). Scenarios our client cannot pass yet are ``xfail(strict=True)`` with
the reason — so a fix that makes one pass fails here until it is moved to the passing list —
and the table in docs/mcp.md, which a test compares with these lists, shows each with its
reason.
"""

from __future__ import annotations

import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.core.mcp.conftest import ROOT
from tests.core.mcp.preforked import preforked

CLIENT_MODULE = "agent_tui.core.mcp.client.conformance_client"


def client_command() -> list[str]:
    """``python -m agent_tui.core.mcp.client.conformance_client``, forked from a zygote that has
    imported it (and the SDK): each scenario starts a client, which would otherwise pay some two
    CPU-seconds of imports; the client itself runs as it would."""
    return preforked("-m", CLIENT_MODULE, preload=(CLIENT_MODULE,))


AUTH_PASSING = [
    f"auth/{name}"
    for name in (
        "metadata-default",
        "metadata-var1",
        "metadata-var2",
        "metadata-var3",
        "basic-cimd",
        "scope-from-www-authenticate",
        "scope-from-scopes-supported",
        "scope-omitted-when-undefined",
        "scope-step-up",
        "scope-retry-limit",
        "token-endpoint-auth-basic",
        "token-endpoint-auth-post",
        "token-endpoint-auth-none",
        "pre-registration",
        "2025-03-26-oauth-metadata-backcompat",
        "2025-03-26-oauth-endpoint-fallback",
        # the client must refuse a server whose protected-resource metadata names another
        # resource: the sign-in stops before any authorization request
        "resource-mismatch",
        "offline-access-scope",
        "offline-access-not-supported",
        # the protected resource names a new authorization server: a second sign-in there
        "authorization-server-migration",
        # the authorization response's iss (RFC 9207): checked when the server says it sends
        # one, refused when wrong or unexpected
        "iss-supported",
        "iss-not-advertised",
        "iss-supported-missing",
        "iss-wrong-issuer",
        "iss-unexpected",
        "iss-normalized",
        "metadata-issuer-mismatch",
        # the OAuth extensions: grants without a browser (``"grant"`` in the oauth entry)
        "client-credentials-jwt",
        "client-credentials-basic",
        "enterprise-managed-authorization",
        "wif-jwt-bearer",
        # DPoP-bound tokens (``"dpop": true``, auth.dpop)
        "dpop",
        "dpop-nonce",
    )
]
"""The ``auth/*`` scenarios: through ``oauth.login`` (the authorization URL followed with an
HTTP GET instead of a browser) and then the manager's connection with the saved tokens; the
extensions' grants without a browser, by the connection itself."""
PASSING = [
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
    "request-metadata",
    *AUTH_PASSING,
    # a result without resultType is complete (client.result_type)
    "sep-2322-client-request-state",
    "http-standard-headers",
    "http-custom-headers",
    "http-invalid-tool-headers",
    # a network $ref in a tool's schema is never fetched (core.tools.json_schema)
    "json-schema-ref-no-deref",
    # the model is sent a tool's schema as the server wrote it ($schema, $defs, if/then)
    "json-schema-2020-12-preservation",
]
EXPECTED_FAILURES: dict[str, str] = {}
"""Scenarios our client cannot pass yet, each with why (strict xfails): none today."""
SKILLS = (
    "an extension (SEP-2640, skills served by MCP servers): our client takes skills from "
    "the workspace and ~/.claude (Claude Code's places), not from MCP servers, so it never "
    "fetches a skill's files and the suite skips every check"
)
NOT_APPLICABLE: dict[str, str] = {
    "sep-2640-client-no-prefetch": SKILLS,
    "sep-2640-client-verify-digest": SKILLS,
    "sep-2640-client-verify-size": SKILLS,
    "sep-2640-client-verify-frontmatter": SKILLS,
}
"""Scenarios of a feature our client does not have, in which the suite skips each check:
asserted so (no check fails, none succeeds), so building the feature moves them."""
SCENARIOS = [
    *(pytest.param(name, id=name) for name in PASSING),
    *(pytest.param(name, id=name) for name in NOT_APPLICABLE),
    *(
        pytest.param(name, id=name, marks=pytest.mark.xfail(strict=True, reason=why))
        for name, why in EXPECTED_FAILURES.items()
    ),
]


def _run(suite: list[str], *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    return subprocess.run(
        [*suite, *args], capture_output=True, text=True, timeout=timeout, env=env, check=False
    )


def client_scenarios(suite: list[str]) -> list[str]:
    """The client scenarios the pinned suite lists (``conformance list``)."""
    listing = _run(suite, "list").stdout
    names: list[str] = []
    in_client = False
    for line in listing.splitlines():
        if line.startswith("Client scenarios"):
            in_client = True
        elif line and not line.startswith(" "):
            in_client = False
        elif in_client and line.strip().startswith("- "):
            names.append(line.strip()[2:].split()[0])
    return names


@pytest.mark.timeout(900)  # on a fresh clone it pays for installing the suite and Node (npm)
def test_every_client_scenario_of_the_suite_is_run_here(suite: list[str]) -> None:
    listed = client_scenarios(suite)
    assert listed, "the suite listed no client scenarios"
    assert sorted(listed) == sorted([*PASSING, *EXPECTED_FAILURES, *NOT_APPLICABLE])


TIMING_SENSITIVE = {"sse-retry"}
"""Scenarios that measure the client's timing (``sse-retry``: the reconnection must come
within the server's ``retry`` delay plus 200 ms): run on their own, after the others."""
WORKERS = 4
"""Scenarios run at once: each is a Node server and a Python client that mostly wait on
each other, so a few at a time fit two cores."""
SCENARIO_TIMEOUT_MS = 120_000
"""The suite's limit for one client run (generous: a loaded machine starts Python slowly)."""


@dataclass(frozen=True)
class Outcome:
    returncode: int
    output: str
    """The end of what the suite printed (its report, the client's stdout and stderr)."""
    checks: list[dict[str, object]] | None
    """The suite's ``checks.json``, None when it wrote none."""


def _scenario(suite: list[str], scenario: str, out: Path) -> Outcome:
    done = _run(
        suite,
        "client",
        "--command",
        " ".join(client_command()),
        "--scenario",
        scenario,
        "--timeout",
        str(SCENARIO_TIMEOUT_MS),
        "-o",
        str(out),
        timeout=SCENARIO_TIMEOUT_MS / 1000 + 60,
    )
    found = sorted(out.rglob("checks.json"))
    checks = json.loads(found[-1].read_text(encoding="utf-8")) if found else None
    return Outcome(done.returncode, done.stdout[-3000:] + done.stderr[-4000:], checks)


@pytest.fixture(scope="session")
def outcomes(
    suite: list[str], request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Outcome]:
    """Every scenario this session selected, run once: ``WORKERS`` at a time from a thread
    pool, then the timing-sensitive ones alone; each ``test_client_scenario`` then asserts
    on its own outcome."""
    selected = [
        item.callspec.params["scenario"]
        for item in request.session.items
        if isinstance(item, pytest.Function)
        and item.originalname == "test_client_scenario"
        and hasattr(item, "callspec")
    ]
    base = tmp_path_factory.mktemp("conformance")
    runs: dict[str, Outcome] = {}

    def one(scenario: str) -> tuple[str, Outcome]:
        out = base / scenario.replace("/", "_")
        out.mkdir()
        return scenario, _scenario(suite, scenario, out)

    together = [name for name in selected if name not in TIMING_SENSITIVE]
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        runs.update(pool.map(one, together))
    runs.update(one(name) for name in selected if name in TIMING_SENSITIVE)
    return runs


@pytest.mark.timeout(900)  # the first one waits for ``outcomes``: all scenarios
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_client_scenario(outcomes: dict[str, Outcome], scenario: str) -> None:
    outcome = outcomes[scenario]
    assert outcome.checks is not None, f"the suite wrote no checks.json:\n{outcome.output}"
    failed = [c for c in outcome.checks if c.get("status") == "FAILURE"]
    report = "\n".join(
        f"{c.get('id')}: {c.get('errorMessage') or c.get('description')}" for c in failed
    )
    assert not failed, f"{scenario}: {len(failed)} failed check(s):\n{report}\n{outcome.output}"
    assert outcome.returncode == 0, outcome.output
    statuses = {c.get("status") for c in outcome.checks}
    if scenario in NOT_APPLICABLE:
        assert statuses == {"SKIPPED"}, f"{scenario} is no longer skipped: {outcome.output}"
    else:
        assert "SUCCESS" in statuses, "no check succeeded"


README = ROOT / "docs" / "mcp.md"
TABLE_START = "<!-- conformance table: python -m tests.core.mcp.test_conformance -->"
TABLE_END = "<!-- end of the conformance table -->"


def conformance_table() -> str:
    """The table of client scenarios in docs/mcp.md, from ``PASSING`` and
    ``EXPECTED_FAILURES``."""
    rows = ["| Scenario | Passes | Why not |", "| --- | --- | --- |"]
    rows += [f"| `{name}` | yes | |" for name in PASSING]
    rows += [f"| `{name}` | no | {why} |" for name, why in EXPECTED_FAILURES.items()]
    rows += [f"| `{name}` | not applicable | {why} |" for name, why in NOT_APPLICABLE.items()]
    return "\n".join(rows)


def test_the_readme_table_lists_each_scenario_as_this_file_does() -> None:
    text = README.read_text(encoding="utf-8")
    assert TABLE_START in text, f"docs/mcp.md lacks {TABLE_START!r}"
    assert TABLE_END in text, f"docs/mcp.md lacks {TABLE_END!r}"
    table = text.split(TABLE_START, 1)[1].split(TABLE_END, 1)[0].strip()
    assert table == conformance_table(), (
        "docs/mcp.md's conformance table is out of date; replace it with the output of "
        "`python -m tests.core.mcp.test_conformance`:\n" + conformance_table()
    )


if __name__ == "__main__":
    print(conformance_table())
