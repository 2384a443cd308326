"""``.mcp.json``: format, merge order, ``${VAR}`` expansion, visible errors, editing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.core.mcp.config.edit import ConfigEditError, add_server, remove_server
from agent_tui.core.mcp.config.load import (
    config_paths,
    load_config,
    project_config_path,
    user_config_path,
)
from agent_tui.core.mcp.config.spec import DEFAULT_STARTUP_TIMEOUT, DEFAULT_TIMEOUT
from tests.core.mcp.conftest import write_config


def _load(tmp_path: Path, *files: dict, environ: dict | None = None):  # type: ignore[no-untyped-def]
    paths = []
    for i, servers in enumerate(files):
        paths.append(write_config(tmp_path / f"{i}.json", servers))
    return load_config(tmp_path, paths=paths, environ=environ or {})


def test_stdio_and_http_entries(tmp_path: Path) -> None:
    config = _load(
        tmp_path,
        {
            "files": {
                "command": "npx",
                "args": ["-y", "pkg", "."],
                "env": {"A": "1"},
                "cwd": "sub",
            },
            "remote": {
                "type": "http",
                "url": "http://127.0.0.1:9/mcp",
                "headers": {"X-Key": "k"},
                "timeout": 5,
                "startup_timeout": 2,
            },
            "implicit": {"url": "http://127.0.0.1:9/other"},
        },
    )
    assert config.problems == []
    files, remote, implicit = (config.servers[n] for n in ("files", "remote", "implicit"))
    assert (files.transport, files.command, files.args, files.env) == (
        "stdio",
        "npx",
        ["-y", "pkg", "."],
        {"A": "1"},
    )
    assert files.cwd == str(tmp_path / "sub")
    assert (files.timeout, files.startup_timeout) == (DEFAULT_TIMEOUT, DEFAULT_STARTUP_TIMEOUT)
    assert (remote.transport, remote.url, remote.headers) == (
        "http",
        "http://127.0.0.1:9/mcp",
        {"X-Key": "k"},
    )
    assert (remote.timeout, remote.startup_timeout) == (5, 2)
    assert implicit.transport == "http"
    assert list(config.servers) == sorted(config.servers)


def test_default_files_user_then_project(tmp_path: Path) -> None:
    assert config_paths(tmp_path) == [user_config_path(), project_config_path(tmp_path)]
    assert project_config_path(tmp_path).name == ".mcp.json"
    user = user_config_path()
    user.parent.mkdir(parents=True, exist_ok=True)
    write_config(user, {"a": {"command": "user-a"}, "b": {"command": "user-b"}})
    write_config(project_config_path(tmp_path), {"b": {"command": "project-b", "args": ["x"]}})
    config = load_config(tmp_path)
    assert config.servers["a"].command == "user-a"
    # A project server cannot take the name of one of the user's own (issue 37): the user's
    # stays, the project's entry is refused, and a problem says so (``test_server_names``).
    assert (config.servers["b"].command, config.servers["b"].source) == ("user-b", user)
    [problem] = config.problems
    assert (problem.path, problem.server) == (project_config_path(tmp_path), "b")
    assert "has the name of your own server 'b'" in problem.message


def test_variable_expansion_in_every_string(tmp_path: Path) -> None:
    config = _load(
        tmp_path,
        {
            "s": {
                "command": "${TOOL_DIR}/run",
                "args": ["--level=${LEVEL:-info}", "${EMPTY:-fallback}", "$${NOT_A_VAR"],
                "env": {"TOKEN": "${SECRET}", "${KEY_NAME}": "v"},
            },
            "h": {
                "type": "http",
                "url": "http://${HOST:-127.0.0.1}:8/mcp",
                "headers": {"Authorization": "Bearer ${SECRET}"},
            },
        },
        environ={"TOOL_DIR": "/opt/t", "SECRET": "s3", "EMPTY": "", "KEY_NAME": "K"},
    )
    s, h = config.servers["s"], config.servers["h"]
    assert s.command == "/opt/t/run"
    assert s.args == ["--level=info", "fallback", "$${NOT_A_VAR"]
    assert s.env == {"TOKEN": "s3", "K": "v"}
    assert h.url == "http://127.0.0.1:8/mcp"
    assert h.headers == {"Authorization": "Bearer s3"}


def test_missing_variable_is_an_error_for_that_entry_only(tmp_path: Path) -> None:
    config = _load(tmp_path, {"bad": {"command": "${NOPE}"}, "good": {"command": "ok"}})
    assert config.servers["bad"].error
    assert "NOPE" in config.servers["bad"].error
    assert config.servers["good"].error is None
    [problem] = config.problems
    assert problem.server == "bad"
    assert "NOPE" in str(problem)
    assert "0.json" in str(problem)


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        ({"args": ["x"]}, "$.command"),
        ({"command": 3}, "$.command"),
        ({"command": "x", "timeout": -1}, "$.timeout"),
        ({"command": "x", "args": "not a list"}, "$.args"),
        ({"type": "sse", "url": "http://127.0.0.1:1"}, "unsupported type 'sse'"),
        ({"type": "http"}, "$.url"),
        ("just a string", "must be an object"),
    ],
)
def test_invalid_entries_are_listed_with_the_reason(
    tmp_path: Path, entry: object, words: str
) -> None:
    config = _load(tmp_path, {"broken": entry, "fine": {"command": "ok"}})
    broken = config.servers["broken"]
    assert broken.error is not None
    assert words in broken.error, broken.error
    assert config.servers["fine"].error is None
    assert [p.server for p in config.problems] == ["broken"]


def test_unknown_keys_are_warnings_not_errors(tmp_path: Path) -> None:
    config = _load(tmp_path, {"s": {"command": "x", "autoApprove": ["a"]}})
    assert config.servers["s"].error is None
    assert config.servers["s"].warnings == ["unknown key 'autoApprove' ignored"]


def test_broken_file_is_reported_and_the_other_file_still_loads(tmp_path: Path) -> None:
    good = write_config(tmp_path / "good.json", {"a": {"command": "a"}})
    bad = tmp_path / "bad.json"
    bad.write_text('{"mcpServers": {"b": {"command": "b",}}}')
    config = load_config(tmp_path, paths=[good, bad], environ={})
    assert list(config.servers) == ["a"]
    [problem] = config.problems
    assert problem.path == bad
    assert "not valid JSON" in problem.message
    assert "line 1" in problem.message

    wrong = tmp_path / "wrong.json"
    wrong.write_text('{"mcpServers": []}')
    config = load_config(tmp_path, paths=[good, wrong], environ={})
    assert "must be an object" in config.problems[0].message


def test_missing_and_empty_files_are_fine(tmp_path: Path) -> None:
    empty = tmp_path / "empty.json"
    empty.write_text("  \n")
    config = load_config(tmp_path, paths=[tmp_path / "nope.json", empty], environ={})
    assert config.servers == {}
    assert config.problems == []


def test_disabled_flag(tmp_path: Path) -> None:
    config = _load(tmp_path, {"off": {"command": "x", "disabled": True}})
    assert config.servers["off"].disabled is True


def test_add_and_remove_keep_the_rest_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / ".mcp.json"
    path.write_text(json.dumps({"$comment": "mine", "mcpServers": {"keep": {"command": "k"}}}))
    assert add_server(path, "new", {"command": "n", "args": ["1"]}) is False
    raw = json.loads(path.read_text())
    assert raw["$comment"] == "mine"
    assert raw["mcpServers"] == {"keep": {"command": "k"}, "new": {"command": "n", "args": ["1"]}}
    with pytest.raises(ConfigEditError, match="already exists"):
        add_server(path, "new", {"command": "other"})
    assert add_server(path, "new", {"command": "other"}, replace=True) is True
    remove_server(path, "new")
    assert json.loads(path.read_text())["mcpServers"] == {"keep": {"command": "k"}}
    with pytest.raises(ConfigEditError, match=r"no server named 'ghost'.*keep"):
        remove_server(path, "ghost")


def test_a_file_broken_on_reload_keeps_its_servers_and_says_so(tmp_path: Path) -> None:
    user = write_config(tmp_path / "user.json", {"u": {"command": "user-u"}})
    project = write_config(tmp_path / ".mcp.json", {"a": {"command": "a"}, "b": {"command": "b"}})
    first = load_config(tmp_path, paths=[user, project], environ={})
    project.write_text('{"mcpServers": ')

    again = load_config(tmp_path, paths=[user, project], environ={}, previous=first)
    assert {n: s.command for n, s in again.servers.items()} == {"a": "a", "b": "b", "u": "user-u"}
    [problem] = again.problems
    assert (problem.path, problem.unread, problem.kept) == (project, True, ("a", "b"))
    assert "its servers (a, b) stay as before this change" in problem.message

    fresh = load_config(tmp_path, paths=[user, project], environ={})  # a start: nothing kept
    assert {n: s.command for n, s in fresh.servers.items()} == {"u": "user-u"}
    [problem] = fresh.problems
    assert (problem.unread, problem.kept) == (True, ())
    assert problem.message.endswith("; no server of this file is loaded")


def test_add_creates_the_file_and_refuses_bad_names_and_broken_files(tmp_path: Path) -> None:
    path = tmp_path / "sub" / ".mcp.json"
    add_server(path, "fresh", {"command": "x"})
    assert json.loads(path.read_text()) == {"mcpServers": {"fresh": {"command": "x"}}}
    for name in ("has space", "a__b", "", "dot.name"):
        with pytest.raises(ConfigEditError):
            add_server(path, name, {"command": "x"})
    broken = tmp_path / "broken.json"
    broken.write_text("{oops")
    with pytest.raises(ConfigEditError, match="not valid JSON"):
        add_server(broken, "x", {"command": "x"})
    assert broken.read_text() == "{oops"
