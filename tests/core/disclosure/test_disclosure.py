"""Buckets, the catalog, search and unmasking, the exposed array per protocol, accounting."""

from __future__ import annotations

import time

import pytest

from agent_tui.core.disclosure import Disclosure, DisclosureSettings
from agent_tui.core.disclosure.marks import exposure
from agent_tui.core.disclosure.state import CATALOG_CHARS, CATALOG_SUMMARIES, server_of
from tests.core.disclosure.catalog import RETRIEVAL, catalog_tools, registry_with


def test_few_tools_stay_direct_and_many_defer_mcp_tools_only() -> None:
    few = Disclosure(registry_with(catalog_tools()[:2]), DisclosureSettings(deferred="auto:20"))
    assert few.deferred() == []
    many = Disclosure(registry_with(catalog_tools()))
    # the MCP tools, and the rarely needed built-ins with them
    assert {t.name for t in many.deferred()} == {t.name for t in catalog_tools()} | {
        "update_plan",
        "web_fetch",
    }
    assert "read_file" in {t.name for t in many.direct()}
    exposed = [t.name for t in many.exposed()]
    assert "run_tool" in exposed
    assert "search_tool" in exposed
    assert not any(name.startswith("mcp__") for name in exposed)
    assert exposed == sorted(exposed)


def test_off_auto0_always_load_and_promote() -> None:
    off = Disclosure(registry_with(catalog_tools()), DisclosureSettings(deferred="off"))
    assert off.deferred() == []
    always = Disclosure(registry_with(catalog_tools()[:1]), DisclosureSettings(deferred="auto:0"))
    assert [t.name for t in always.deferred()] == [
        "mcp__github__create_issue",
        "update_plan",
        "web_fetch",
    ]
    settings = DisclosureSettings(always_load=["slack"], promote=["mcp__github__create_*"])
    mixed = Disclosure(registry_with(catalog_tools()), settings)
    direct = {t.name for t in mixed.direct()}
    assert "mcp__slack__post_message" in direct
    assert "mcp__github__create_issue" in direct
    assert "mcp__github__create_branch" in direct
    assert "mcp__github__merge_pull_request" not in direct


def test_bad_deferred_setting_is_rejected() -> None:
    with pytest.raises(ValueError, match="auto:N"):
        DisclosureSettings(deferred="sometimes")


def test_catalog_lists_deferred_tools_in_the_search_tool_description() -> None:
    few = Disclosure(
        registry_with(catalog_tools()[:CATALOG_SUMMARIES]),
        DisclosureSettings(deferred="auto:0", defer_builtins=False),
    )
    few.exposed()
    search = few.registry.get("search_tool")
    assert search is not None
    assert f"Deferred tools ({CATALOG_SUMMARIES}):" in search.description
    assert "- mcp__github__create_issue: Create a new issue" in search.description
    # past a few tools: names grouped by server, every one of them, and no summaries
    for disclosure in (
        Disclosure(registry_with(catalog_tools())),
        Disclosure(registry_with(catalog_tools(extra=300))),
    ):
        disclosure.exposed()
        description = disclosure.registry.get("search_tool").description  # type: ignore[union-attr]
        assert "by server:" in description
        assert "mcp__github__*: add_issue_comment, create_branch, create_issue" in description
        assert "Create a new issue" not in description
        for tool in [t for t in disclosure.deferred() if server_of(t.name)]:
            server, name = tool.name.split("__")[1:]
            line = next(x for x in description.splitlines() if x.startswith(f"- mcp__{server}__*:"))
            assert name in line.split(": ", 1)[1].split(", "), tool.name
    # the summary comes back through search_tool instead
    hits = disclosure.search("create github issue", 1)
    assert [t.name for t in hits] == ["mcp__github__create_issue"]
    assert hits[0].description.startswith("Create a new issue")


def test_retrieval_top1_and_top3_over_a_300_tool_catalog(capsys: pytest.CaptureFixture) -> None:
    disclosure = Disclosure(registry_with(catalog_tools(extra=300)))
    index = disclosure._search_index()
    top1 = top3 = 0
    misses = []
    for query, expected in RETRIEVAL:
        names = [doc.name for doc, _ in index.search(query, 3)]
        top1 += bool(names) and names[0] == expected
        top3 += expected in names
        if expected not in names:
            misses.append((query, names))
    n = len(RETRIEVAL)
    with capsys.disabled():
        print(
            f"\nsearch_tool retrieval over {len(index.docs)} tools: "
            f"top-1 {top1}/{n} ({top1 / n:.0%}), top-3 {top3}/{n} ({top3 / n:.0%})"
        )
    assert top3 / n >= 0.9, misses
    assert top1 / n >= 0.8, misses


def test_search_unmasks_and_strict_protocol_appends_unmasked_tools_once() -> None:
    disclosure = Disclosure(registry_with(catalog_tools()), protocol="strict")
    before = disclosure.view().anthropic_tools_json()
    assert disclosure.view().anthropic_tools_json() == before
    found = disclosure.search("weather forecast", 1)
    assert [t.name for t in found] == ["mcp__weather__get_forecast"]
    after = disclosure.view().anthropic_tools_json()
    assert after != before
    assert '"name":"mcp__weather__get_forecast"' in after
    assert disclosure.view().anthropic_tools_json() == after
    free = Disclosure(registry_with(catalog_tools()), protocol="free-text")
    array = free.view().openai_tools_json()
    free.search("weather forecast", 1)
    assert free.view().openai_tools_json() == array


def test_plan_mode_and_denied_tools_are_filtered() -> None:
    disclosure = Disclosure(registry_with(catalog_tools()))
    plan = [t.name for t in disclosure.exposed(read_only_only=True)]
    assert "write_file" not in plan
    assert "read_file" in plan
    denied = [t.name for t in disclosure.exposed(denied=["run_shell"])]
    assert "run_shell" not in denied


def test_estimate_shows_what_disclosure_saves() -> None:
    disclosure = Disclosure(registry_with(catalog_tools(extra=100)))
    cost = disclosure.estimate()
    assert cost["without_disclosure_tokens"] > 2 * cost["total_tokens"]
    assert cost["deferred_count"] == len(catalog_tools(extra=100)) + 2  # update_plan, web_fetch


def test_search_over_1000_tools_is_fast() -> None:
    index = Disclosure(registry_with(catalog_tools(extra=1000)))._search_index()
    started = time.perf_counter()
    for query, _ in RETRIEVAL:
        index.search(query, 5)
    per_query = (time.perf_counter() - started) / len(RETRIEVAL)
    assert per_query < 0.25  # generous: the figure itself is in benchmarks/README.md


def test_the_catalog_stays_bounded_with_thousands_of_tools() -> None:
    huge = Disclosure(registry_with(catalog_tools(extra=3000)))
    catalog = huge.catalog()
    assert len(catalog) <= CATALOG_CHARS + 200
    assert f"Deferred tools ({len(huge.deferred())})" in catalog
    assert "\n- built-in: update_plan, web_fetch" in catalog
    servers = {server_of(t.name) for t in huge.deferred()} - {""}
    for server in servers:  # every server is still named, with a way to its tools
        assert f"mcp__{server}__*:" in catalog
    collapsed = [line for line in catalog.splitlines() if "not listed" in line]
    assert collapsed
    assert 'search_tool(query="' in collapsed[0]
    # and a collapsed server's tools are still found
    name = collapsed[0].split("__")[1]
    assert huge.search(f"{name}:", limit=3)


def test_rarely_needed_built_ins_defer_with_the_mcp_tools_unless_kept_direct() -> None:
    """web_fetch, update_plan (and task) leave the array while MCP tools are deferred, are
    named on a built-in line of the catalog (not as an ``mcp__`` pattern), and are found by
    search; ``defer_builtins: false`` or ``promote`` keeps them direct; below the threshold
    they are direct like every tool."""
    many = Disclosure(registry_with(catalog_tools()))
    exposed = {t.name for t in many.exposed()}
    assert not exposed & {"web_fetch", "update_plan"}
    assert exposure(many, ["web_fetch"])["web_fetch"].kind == "deferred"
    assert {"read_file", "edit_file", "run_shell", "grep"} <= exposed
    description = many.registry.get("search_tool").description  # type: ignore[union-attr]
    line = next(x for x in description.splitlines() if x.startswith("- built-in: "))
    assert line.split(": ", 1)[1].split(", ") == ["update_plan", "web_fetch"]
    assert "mcp____" not in description
    assert [t.name for t in many.search("fetch this web page", 1)] == ["web_fetch"]
    assert [t.name for t in many.search("plan steps", 1)] == ["update_plan"]
    kept = Disclosure(registry_with(catalog_tools()), DisclosureSettings(defer_builtins=False))
    assert {"web_fetch", "update_plan"} <= {t.name for t in kept.exposed()}
    assert all(server_of(t.name) for t in kept.deferred())
    one = Disclosure(registry_with(catalog_tools()), DisclosureSettings(promote=["web_fetch"]))
    assert "web_fetch" in {t.name for t in one.exposed()}
    assert "update_plan" not in {t.name for t in one.exposed()}
    few = Disclosure(registry_with([]), DisclosureSettings(deferred="auto:20"))
    assert {"web_fetch", "update_plan"} <= {t.name for t in few.exposed()}
    marks = exposure(few, ["web_fetch", "read_file"])
    assert marks["web_fetch"].kind == "direct"
    assert "defer_builtins" in marks["web_fetch"].why
