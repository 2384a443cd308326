"""The client the MCP conformance suite drives: our own MCP client, end to end.

    python -m agent_tui.core.mcp.client.conformance_client URL

``@modelcontextprotocol/conformance client --command "..."`` starts a test server for a
scenario, appends its URL to the command and names the scenario in
``MCP_CONFORMANCE_SCENARIO``. This entry connects to that URL as one streamable HTTP server of
an ``McpManager`` — the same configuration parsing, connection task, tool naming and registry
the agent uses — then does what the scenario expects:

- ``auth/*``: the server answers 401, and the state says it needs sign-in, as the agent would
  see it; then ``oauth.login`` signs in (discovery, registration or the pre-registered
  client of ``MCP_CONFORMANCE_CONTEXT`` or the suite's client ID metadata document, PKCE,
  the loopback redirect) with ``follow_authorization`` as the browser: the suite's
  authorization endpoint redirects straight back with a code, so an HTTP GET that follows
  redirects reaches our listener. Then the manager reconnects with the saved tokens and calls
  the tools; a call refused for want of scope (a step-up) signs in once more and is retried.
  The tokens go to a temporary data directory (``AGENT_TUI_DATA_DIR``);
- the ``auth/*`` scenarios of the extensions that need no browser (client credentials with a
  secret or a private key, workload identity's JWT bearer, enterprise-managed authorization):
  the context becomes the ``oauth`` entry a user would write (``browserless_entry``: a
  ``grant``, the secret as ``${VAR}``, keys and tokens in files) and the connection obtains
  its token itself; no sign-in step;
- ``initialize``: connect (handshake and ``tools/list``), then close;
- ``json-schema-ref-no-deref``: connect, then check sample arguments against each tool's
  schema as a call would first (``ToolRegistry.prepare``: the schema's network ``$ref`` must not
  be fetched) — the scenario's server answers nothing but ``tools/list``;
- a scenario whose context lists ``toolCalls`` (``http-custom-headers``): those calls, with
  those arguments;
- any other scenario: connect, then call every tool the server lists through
  ``ToolRegistry.dispatch`` (JSON Schema validation, the manager, the conversion to what the
  model reads), with arguments made from each tool's input schema (``add_numbers`` of the
  ``tools_call`` scenario gets ``{"a": 2, "b": 3}``). A tool that asks for "the inputSchema the
  client observed for" another tool (``json-schema-2020-12-preservation``) gets that tool's
  schema exactly as the model is sent it.

A server's ``elicitation/create`` goes through the manager's broker (schema parsing and
validation) to a handler that accepts with the schema's defaults, as SEP-1034 wants of a
client (``elicitation.accept_defaults``); URL-mode requests are declined.

It prints what the model would read of each call and exits 0, or 1 with the reason when the
server did not connect or a call failed. Nothing here is used by the agent itself.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agent_tui.core.mcp.auth.oauth import LoginError, login
from agent_tui.core.mcp.client.adapter import ToolInfo
from agent_tui.core.mcp.client.elicitation import (
    ElicitationAnswer,
    ElicitationRequest,
    accept_defaults,
)
from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.state.trust import ProjectTrust
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.errors import ToolErrorInfo
from agent_tui.core.tools.registry import ToolRegistry, tool_schema

SERVER = "conformance"
SAMPLES: dict[str, Any] = {
    "number": 2,
    "integer": 3,
    "string": "conformance",
    "boolean": True,
    "array": [],
    "object": {},
}


def sample_arguments(schema: Any, *, every: bool = False) -> dict[str, Any]:
    """Arguments for an input schema: each required property (each property, with ``every``)
    gets its ``default``, its first ``enum`` value, or a sample of its type (numbers 2, 3,
    4, ...)."""
    if not isinstance(schema, dict):
        return {}
    properties = schema.get("properties") or {}
    if not isinstance(properties, dict):
        properties = {}
    arguments: dict[str, Any] = {}
    counter = 2
    for name in list(properties) if every else schema.get("required") or []:
        prop = properties.get(name)
        prop = prop if isinstance(prop, dict) else {}
        if "default" in prop:
            arguments[name] = prop["default"]
        elif isinstance(prop.get("enum"), list) and prop["enum"]:
            arguments[name] = prop["enum"][0]
        else:
            kind = prop.get("type")
            kind = kind[0] if isinstance(kind, list) and kind else kind
            if every and kind not in SAMPLES:
                continue  # a $ref or a composition: left out rather than guessed
            if kind in ("number", "integer"):
                arguments[name] = counter
                counter += 1
            else:
                arguments[name] = SAMPLES.get(str(kind), "conformance")
    return arguments


CIMD_URL = "https://conformance-test.local/client-metadata.json"
"""The client ID metadata document URL the suite's ``auth/basic-cimd`` expects as client_id."""
MAX_SIGN_INS = 2
"""Sign-ins per run: the first, and one more for a scope step-up (never a loop)."""


SECRET_VARIABLE = "CONFORMANCE_CLIENT_SECRET"
"""The environment variable the entry's secrets come from, as a user's would (``${VAR}``)."""


def browserless_entry(
    scenario: str, context: dict[str, Any], url: str, work: Path
) -> dict[str, Any] | None:
    """The ``"oauth"`` entry a user would write for a scenario of an extension that needs no
    browser (None: the scenario is not one): the secret through ``${VAR}``, keys and tokens
    in files of their own (mode 0600), and the authorization server's issuer, which an
    administrator gives the user, read here from the server's protected resource metadata."""
    name = scenario.removeprefix("auth/")
    grants = {
        "client-credentials-basic": "client_credentials",
        "client-credentials-jwt": "client_credentials",
        "wif-jwt-bearer": "jwt_bearer",
        "enterprise-managed-authorization": "enterprise_managed",
        "cross-app-access-complete-flow": "enterprise_managed",  # its name in 0.1.x
    }
    if name not in grants:
        return None
    entry: dict[str, Any] = {"grant": grants[name], "client_id": context.get("client_id")}
    if isinstance(context.get("client_secret"), str):
        os.environ[SECRET_VARIABLE] = context["client_secret"]
        entry["client_secret"] = "${" + SECRET_VARIABLE + "}"
    if isinstance(context.get("private_key_pem"), str):
        entry["private_key_file"] = _private_file(
            work / "client-key.pem", context["private_key_pem"]
        )
    if isinstance(context.get("valid_jwt"), str):
        entry["assertion_file"] = _private_file(work / "workload.jwt", context["valid_jwt"])
    if isinstance(context.get("idp_id_token"), str):
        entry["id_token_file"] = _private_file(work / "id-token.jwt", context["idp_id_token"])
        entry["idp_token_endpoint"] = context.get("idp_token_endpoint")
        entry["idp_client_id"] = context.get("idp_client_id")
    issuer = advertised_issuer(url)
    if issuer is not None:
        entry["issuer"] = issuer
    return entry


def _private_file(path: Path, text: str) -> str:
    path.touch(mode=0o600)
    path.write_text(text, encoding="utf-8")
    return str(path)


def advertised_issuer(url: str) -> str | None:
    """The first authorization server the MCP server's protected resource metadata names."""
    from urllib.parse import urlsplit

    import httpx2

    parts = urlsplit(url)
    origin = f"{parts.scheme}://{parts.netloc}"
    for where in (f"{origin}/.well-known/oauth-protected-resource{parts.path}",
                  f"{origin}/.well-known/oauth-protected-resource"):  # fmt: skip
        try:
            answer = httpx2.get(where, timeout=10.0, trust_env=False)
            servers = answer.json().get("authorization_servers") if answer.is_success else None
        except (httpx2.HTTPError, ValueError, AttributeError):
            continue
        if isinstance(servers, list) and servers and isinstance(servers[0], str):
            return servers[0]
    return None


def oauth_entry(context: dict[str, Any]) -> dict[str, Any]:
    """The ``"oauth"`` entry of the server: a pre-registered client when the scenario's
    context gives one (``MCP_CONFORMANCE_CONTEXT``), and the suite's client ID metadata
    document URL (used only where the authorization server supports it)."""
    entry: dict[str, Any] = {"client_metadata_url": CIMD_URL}
    if isinstance(context.get("client_id"), str):
        entry["client_id"] = context["client_id"]
        if isinstance(context.get("client_secret"), str):
            entry["client_secret"] = context["client_secret"]
    return entry


def follow_authorization(url: str) -> bool:
    """The "browser" of a headless run: GET the authorization URL and follow its redirects,
    which end at our loopback listener (the suite's authorization endpoint answers at once
    with a redirect carrying the code)."""
    import httpx2

    try:
        httpx2.get(url, follow_redirects=True, timeout=30.0, trust_env=False)
    except httpx2.HTTPError as exc:
        print(f"the authorization URL did not answer: {exc}", file=sys.stderr)
        return False
    return True


async def sign_in(manager: McpManager) -> bool:
    """Sign in as the user would after "this server needs sign-in" (``oauth.login``, the
    authorization URL followed by ``follow_authorization``), then reconnect."""
    spec = manager.config.servers[SERVER]
    try:
        result = await login(
            spec,
            on_url=lambda url: print(f"authorization: {url}", flush=True),
            open_browser=follow_authorization,
            timeout=30,
        )
    except LoginError as exc:
        print(f"sign-in failed: {exc}", file=sys.stderr)
        return False
    print(result.describe(), flush=True)
    await manager.reconnect(SERVER)
    await manager.wait_ready()
    return True


async def run(url: str, scenario: str, work: Path, context: dict[str, Any]) -> int:
    config = work / "mcp.json"
    entry = {"type": "http", "url": url, "timeout": 30, "startup_timeout": 20}
    if scenario.startswith("auth/"):
        browserless = browserless_entry(scenario, context, url, work)
        oauth = browserless if browserless is not None else oauth_entry(context)
        if scenario in ("auth/dpop", "auth/dpop-nonce"):
            oauth["dpop"] = True  # what a user of a DPoP server writes
        entry["oauth"] = oauth
    config.write_text(json.dumps({"mcpServers": {SERVER: entry}}), encoding="utf-8")
    manager = McpManager(
        work,
        ToolRegistry(),
        paths=[config],
        disabled_file=work / "settings.local.json",
        trust=ProjectTrust(work, path=work / "trust.json"),
        media_dir=work / "media",
    )
    manager.elicitation.handler = _accept_defaults
    await manager.start()
    sign_ins = 0
    try:
        await manager.wait_ready()
        state = manager.state(SERVER)
        if state.auth_required and sign_ins < MAX_SIGN_INS:
            sign_ins += 1
            if not await sign_in(manager):
                return 1
            state = manager.state(SERVER)
        print(f"{SERVER}: {state.status} (protocol {state.protocol_version})", flush=True)
        if state.status != "connected":
            print(f"the server did not connect: {state.reason}", file=sys.stderr)
            return 1
        if scenario == "initialize":
            return 0
        ctx = ToolContext(cwd=work)
        if scenario == LIST_ONLY:
            return check_arguments(manager.registry, state.tools)
        failed = 0
        for name, arguments in planned_calls(manager.registry, state.tools, context):
            outcome = await manager.registry.dispatch(name, json.dumps(arguments), ctx)
            if outcome.output is None and manager.state(SERVER).auth_required:
                # more scopes wanted (a 403 insufficient_scope): sign in again, call again
                if sign_ins >= MAX_SIGN_INS:
                    print(f"{name}: still refused after {sign_ins} sign-ins", file=sys.stderr)
                    return 1
                sign_ins += 1
                if not await sign_in(manager):
                    return 1
                outcome = await manager.registry.dispatch(name, json.dumps(arguments), ctx)
            if outcome.output is not None:
                print(f"{name}({json.dumps(arguments)}): {outcome.output.content}", flush=True)
            else:
                failed += 1
                error = outcome.error
                why = f"{error.message} {error.details}" if error else "no result"
                print(f"{name}: {why}", file=sys.stderr)
        return 1 if failed else 0
    finally:
        await manager.aclose()


LIST_ONLY = "json-schema-ref-no-deref"
"""The scenario whose server answers only ``tools/list`` (the check is that the client does
not fetch a schema's network ``$ref``): its tools are prepared, not called."""
OBSERVED_FOR = "The inputSchema the client observed for "
"""How the echo tool of ``json-schema-2020-12-preservation`` describes its ``schema``
argument, naming the tool whose schema it wants back."""


def planned_calls(
    registry: ToolRegistry, tools: Sequence[ToolInfo], context: dict[str, Any]
) -> list[tuple[str, dict[str, Any]]]:
    """The calls to make, by registered name: the context's ``toolCalls`` if it lists any,
    else every tool offered, with arguments from its schema."""
    offered = {info.remote_name: info for info in tools if info.unavailable is None}
    for info in tools:
        if info.unavailable is not None:
            print(f"{info.name}: not offered ({info.unavailable})", flush=True)
    listed = context.get("toolCalls")
    if isinstance(listed, list) and listed:
        calls = []
        for call in listed:
            if not isinstance(call, dict):
                continue
            found = offered.get(str(call.get("name")))
            if found is not None and isinstance(call.get("arguments"), dict):
                calls.append((found.name, call["arguments"]))
        return calls
    by_remote = {remote: info.name for remote, info in offered.items()}
    return [(info.name, arguments_for(registry, info.name, by_remote)) for info in offered.values()]


def arguments_for(registry: ToolRegistry, name: str, by_remote: dict[str, str]) -> dict[str, Any]:
    """Sample arguments for ``name`` (``sample_arguments``); an object argument described as
    "the inputSchema the client observed for X" is X's schema as the model is sent it."""
    tool = registry.get(name)
    schema = tool_schema(tool) if tool is not None else None
    arguments = sample_arguments(schema)
    if isinstance(registry.prepare(name, json.dumps(arguments)), ToolErrorInfo):
        # the required ones do not satisfy it (an anyOf, an if/then): every property
        arguments = sample_arguments(schema, every=True)
    properties = schema.get("properties") if isinstance(schema, dict) else None
    for key, prop in (properties or {}).items():
        text = prop.get("description", "") if isinstance(prop, dict) else ""
        if isinstance(text, str) and text.startswith(OBSERVED_FOR):
            focal = by_remote.get(text[len(OBSERVED_FOR) :].split(",")[0].strip())
            other = registry.get(focal) if focal is not None else None
            if other is not None:
                arguments[key] = tool_schema(other)
    return arguments


def check_arguments(registry: ToolRegistry, tools: Sequence[ToolInfo]) -> int:
    """Each offered tool's sample arguments checked against its schema, as a call would
    first: 0 when each check ran (its verdict printed), 1 when a tool is missing."""
    for info in tools:
        if info.unavailable is not None:
            continue
        tool = registry.get(info.name)
        if tool is None:
            print(f"{info.name}: not in the registry", file=sys.stderr)
            return 1
        arguments = sample_arguments(tool_schema(tool))
        prepared = registry.prepare(info.name, json.dumps(arguments))
        verdict = prepared.message if isinstance(prepared, ToolErrorInfo) else "valid"
        print(f"{info.name}({json.dumps(arguments)}): {verdict}", flush=True)
    return 0


async def _accept_defaults(request: ElicitationRequest) -> ElicitationAnswer:
    answer = accept_defaults(request)
    print(f"elicitation ({request.message!r}): {answer.action} {answer.content}", flush=True)
    return answer


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m agent_tui.core.mcp.client.conformance_client URL", file=sys.stderr)
        return 2
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    try:
        context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    except json.JSONDecodeError:
        context = {}
    context = context if isinstance(context, dict) else {}
    with tempfile.TemporaryDirectory(prefix="agent-tui-conformance-") as tmp:
        os.environ["AGENT_TUI_DATA_DIR"] = str(Path(tmp) / "data")  # the tokens stay in here
        return asyncio.run(run(args[0], scenario, Path(tmp), context))


if __name__ == "__main__":
    raise SystemExit(main())
