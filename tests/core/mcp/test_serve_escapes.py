"""Red team for ``agent-tui mcp serve``: no way out of the served directory, no denied file.

Each attack runs for real against canary files: a sibling directory outside ROOT holds a
canary file (and a file whose unique name must never be listed), ROOT holds a ``.env`` that a
deny rule protects and a key file an ask rule protects, each with a unique secret string. The
attacks drive the real ``ToolServer.call_tool`` handler, and the last tests go through the
real stdio server with the SDK's client, as ``test_serve.py`` does.

Some results depend on the file tools withholding, file by file, what ``ctx.reads`` withholds
(grep walking into a symlink, glob and list_dir listing a denied name); those tests say so.
"""

from __future__ import annotations

import json
import secrets
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from agent_tui.core.mcp.server.tool_server import ToolServer, glob_escape
from tests.core.mcp.conftest import ROOT

SERVED = ["glob", "grep", "list_dir", "read_file", "search_files"]


@dataclass(frozen=True)
class Tree:
    root: Path
    outside: Path
    config: Path
    canary: str
    """Content of the canary file outside ROOT."""
    outside_name: str
    """Name of a file outside ROOT: listing the outside directory would show it."""
    secret: str
    """Content of ROOT/.env (denied by ``read_file(.env)``)."""
    key_secret: str
    """Content of ROOT/private/id.key (an ask rule: withheld, nobody can be asked)."""
    grep_secret: str
    """Content of ROOT/secret/notes.txt (``grep(secret/**)`` is denied)."""

    def leaks(self, text: str) -> list[str]:
        markers = (self.canary, self.outside_name, self.secret, self.key_secret)
        return [m for m in markers if m in text]


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    token = secrets.token_hex(8)
    outside = tmp_path / "outside"
    outside.mkdir()
    canary = f"CANARY-{token}"
    outside_name = f"only-outside-{token}.txt"
    (outside / "canary.txt").write_text(f"{canary}\n")
    (outside / outside_name).write_text(f"{canary} too\n")
    root = tmp_path / "served"
    (root / ".agent-tui").mkdir(parents=True)
    (root / ".agent-tui" / "settings.json").write_text(
        json.dumps(
            {
                "permissions": {
                    "deny": ["read_file(.env)", "grep(secret/**)"],
                    "ask": ["read_file(private/*.key)"],
                }
            }
        )
    )
    secret = f"SECRET-{token}"
    (root / ".env").write_text(f"API_KEY={secret}\n")
    (root / "private").mkdir()
    key_secret = f"KEY-{token}"
    (root / "private" / "id.key").write_text(f"{key_secret}\n")
    (root / "secret").mkdir()
    grep_secret = f"GREPPED-{token}"
    (root / "secret" / "notes.txt").write_text(f"{grep_secret}\n")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print('hello')\n")
    (root / "sub").mkdir()
    (root / "canary-link").symlink_to(outside / "canary.txt")
    (root / "dirlink").symlink_to(outside)
    (root / "innocent.txt").symlink_to(root / ".env")
    config = tmp_path / "config"
    config.mkdir()
    return Tree(root, outside, config, canary, outside_name, secret, key_secret, grep_secret)


@pytest.fixture
def server(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> ToolServer:
    monkeypatch.setenv("AGENT_TUI_CONFIG_DIR", str(tree.config))
    return ToolServer(tree.root)


def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content)


async def _call(server: ToolServer, name: str, **arguments: Any) -> tuple[bool, str]:
    result = await server.call_tool(name, arguments)
    return bool(result.is_error), _text(result)


# -- escaping the served directory ------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        ("../*", "contains '..'"),
        ("sub/../../*", "contains '..'"),
        ("**/../../*", "contains '..'"),
        ("{..,src}/*", "contains '..'"),
        ("../outside/*", "contains '..'"),
        ("/etc/*", "is absolute"),
        ("//etc/*", "is absolute"),
        ("{/etc,src}/*", "is absolute"),
        ("dirlink/*", "outside the directory this server serves"),
        ("dirlink/**/*.txt", "outside the directory this server serves"),
    ],
)
async def test_glob_patterns_cannot_leave_the_root(
    server: ToolServer, tree: Tree, pattern: str, why: str
) -> None:
    error, text = await _call(server, "glob", pattern=pattern)
    assert error, text
    assert why in text
    assert tree.leaks(text) == []
    assert "hostname" not in text
    assert "passwd" not in text


async def test_glob_path_outside_the_root_is_refused(server: ToolServer, tree: Tree) -> None:
    for path in ("..", "dirlink", str(tree.outside), "sub/../.."):
        error, text = await _call(server, "glob", pattern="*", path=path)
        assert error, (path, text)
        assert "outside the directory this server serves" in text
        assert tree.leaks(text) == []


async def test_ordinary_globs_still_work(server: ToolServer) -> None:
    error, text = await _call(server, "glob", pattern="src/*.py")
    assert not error, text
    assert text.splitlines()[0] == "src/app.py"
    error, text = await _call(server, "glob", pattern="*.py", path="src")
    assert not error, text
    assert "src/app.py" in text


def test_glob_escape_reads_the_pattern_like_the_glob_tool(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    (root / "a").mkdir()
    assert glob_escape("**/*.py", root, root) is None
    assert glob_escape("a/b/*.py", root, root) is None
    assert glob_escape("./a/*", root, root) is None
    assert glob_escape("a..b/*", root, root) is None  # '..' inside a name is no segment
    assert glob_escape("../*", root / "a", root) is not None
    assert glob_escape("*", root / "a", root) is None


async def test_read_file_and_list_dir_through_symlinks_pointing_out(
    server: ToolServer, tree: Tree
) -> None:
    error, text = await _call(server, "read_file", path="canary-link")
    assert error
    assert "outside the directory this server serves" in text
    error, text = await _call(server, "read_file", path="dirlink/canary.txt")
    assert error
    error, text = await _call(server, "list_dir", path="dirlink")
    assert error
    assert "outside the directory this server serves" in text
    assert tree.leaks(text) == []
    error, text = await _call(server, "read_file", path=str(tree.outside / "canary.txt"))
    assert error
    assert tree.leaks(text) == []


async def test_grep_over_the_root_does_not_follow_a_symlink_out(
    server: ToolServer, tree: Tree
) -> None:
    """Needs grep to consult ``ctx.reads`` for each file it searches (the RootGuard withholds
    ``canary-link``, whose target is outside)."""
    _, text = await _call(server, "grep", pattern="CANARY")
    assert tree.canary not in text, text
    _, text = await _call(server, "grep", pattern=".", path=".")
    assert tree.leaks(text) == [], text


async def test_search_files_does_not_list_links_pointing_out(
    server: ToolServer, tree: Tree
) -> None:
    error, text = await _call(server, "search_files", query="canary")
    assert not error, text
    assert "canary-link" not in text.split("[")[0]
    assert "withheld" in text
    assert "outside the directory this server serves" in text
    assert tree.leaks(text) == []
    error, text = await _call(server, "search_files", query="x", path="dirlink")
    assert error
    assert tree.leaks(text) == []


# -- the project's deny and ask rules ---------------------------------------------------------


async def test_read_file_of_a_denied_file_is_refused_naming_the_rule(
    server: ToolServer, tree: Tree
) -> None:
    settings = tree.root / ".agent-tui" / "settings.json"
    for path in (".env", "./.env", "src/../.env", "innocent.txt", str(tree.root / ".env")):
        error, text = await _call(server, "read_file", path=path)
        assert error, (path, text)
        assert f"denied by the rule read_file(.env) (from {settings})" in text
        assert tree.secret not in text


async def test_an_ask_rule_refuses_too_since_nobody_can_be_asked(
    server: ToolServer, tree: Tree
) -> None:
    error, text = await _call(server, "read_file", path="private/id.key")
    assert error
    assert "read_file(private/*.key)" in text
    assert "nobody can be asked over MCP" in text
    assert tree.key_secret not in text


async def test_a_deny_rule_for_another_tool_refuses_that_tool(
    server: ToolServer, tree: Tree
) -> None:
    error, text = await _call(server, "grep", pattern="GREPPED", path="secret/notes.txt")
    assert error
    assert "denied by the rule grep(secret/**)" in text
    assert tree.grep_secret not in text
    # read_file is not covered by a grep rule: the pipeline would allow it too.
    error, text = await _call(server, "read_file", path="secret/notes.txt")
    assert not error
    assert tree.grep_secret in text


async def test_grep_over_the_root_withholds_denied_and_asked_files(
    server: ToolServer, tree: Tree
) -> None:
    """Needs grep to consult ``ctx.reads`` for each file it searches."""
    error, text = await _call(server, "grep", pattern="SECRET|KEY-", path=".")
    assert tree.secret not in text, text
    assert tree.key_secret not in text, text
    error, text = await _call(server, "grep", pattern="API_KEY", path=".env")
    assert error
    assert tree.secret not in text


async def test_glob_and_list_dir_do_not_list_denied_names(server: ToolServer, tree: Tree) -> None:
    """Needs glob and list_dir to consult ``ctx.reads`` for each entry they would show."""
    _, text = await _call(server, "glob", pattern="**/*")
    assert tree.leaks(text) == []
    for name in (".env", "innocent.txt", "private/id.key", "canary-link"):
        assert name not in text.splitlines(), text
    _, text = await _call(server, "glob", pattern=".env*")
    assert tree.secret not in text
    assert ".env" not in text.splitlines(), text
    _, text = await _call(server, "list_dir", path=".")
    assert tree.leaks(text) == []
    assert not any(line.endswith("  .env") for line in text.splitlines()), text


async def test_search_files_withholds_denied_and_asked_files(
    server: ToolServer, tree: Tree
) -> None:
    error, text = await _call(server, "search_files", query="env")
    assert not error, text
    listed = [line for line in text.splitlines() if not line.startswith(("[", "No file"))]
    assert ".env" not in listed
    assert "innocent.txt" not in listed
    assert "withheld" in text
    assert "read_file(.env)" in text
    error, text = await _call(server, "search_files", query="key")
    assert "private/id.key" not in text.splitlines()
    assert "withheld" in text
    error, text = await _call(server, "search_files", query="app")
    assert text.splitlines() == ["src/app.py", "[1 matching file]"]


async def test_a_denied_directory_refuses_the_walks_inside_it(
    tree: Tree, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_TUI_CONFIG_DIR", str(tree.config))
    (tree.config / "settings.json").write_text(
        json.dumps({"permissions": {"deny": ["read_file(private)"]}})
    )
    server = ToolServer(tree.root)
    for name, arguments in (
        ("list_dir", {"path": "private"}),
        ("grep", {"pattern": "KEY", "path": "private"}),
        ("glob", {"pattern": "*", "path": "private"}),
        ("search_files", {"query": "id", "path": "private"}),
    ):
        error, text = await _call(server, name, **arguments)
        assert error, (name, text)
        assert "withheld (the rule read_file(private)" in text
        assert tree.key_secret not in text


async def test_user_settings_rules_apply_too(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_TUI_CONFIG_DIR", str(tree.config))
    (tree.config / "settings.json").write_text(
        json.dumps({"permissions": {"deny": ["read_file(src/*.py)"]}})
    )
    error, text = await _call(ToolServer(tree.root), "read_file", path="src/app.py")
    assert error
    assert "read_file(src/*.py)" in text
    assert str(tree.config / "settings.json") in text


async def test_a_broken_settings_file_is_reported_and_the_other_rules_still_apply(
    tree: Tree, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_TUI_CONFIG_DIR", str(tree.config))
    local = tree.root / ".agent-tui" / "settings.local.json"
    local.write_text('{"permissions": {"deny": [')
    (tree.config / "settings.json").write_text(
        json.dumps({"permissions": {"deny": ["read_file(", "read_file(*.md)"]}})
    )
    server = ToolServer(tree.root)
    assert any(str(local) in p and "not valid JSON" in p for p in server.problems)
    assert any("read_file(" in p for p in server.problems)
    error, text = await _call(server, "read_file", path=".env")
    assert error
    assert tree.secret not in text
    (tree.root / "README.md").write_text("readme\n")
    error, text = await _call(server, "read_file", path="README.md")
    assert error
    assert "read_file(*.md)" in text
    error, text = await _call(server, "read_file", path="src/app.py")
    assert not error
    assert "print('hello')" in text


async def test_run_tool_and_the_writing_tools_are_not_served(server: ToolServer) -> None:
    assert [t.name for t in server.list_tools()] == SERVED
    for name, arguments in (
        ("run_tool", {"name": "read_file", "input": {"path": ".env"}}),
        ("search_tool", {"query": "read"}),
        ("run_shell", {"command": "cat .env"}),
        ("write_file", {"path": "x", "content": "y"}),
    ):
        with pytest.raises(MCPError) as caught:
            await server.call_tool(name, arguments)
        assert caught.value.code == -32602
        assert caught.value.data["code"] == "unknown_tool"
        assert name not in caught.value.data["tools"]


# -- the same, through the real stdio server --------------------------------------------------


def _params(tree: Tree) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "agent_tui", "mcp", "--cwd", str(tree.root), "serve"],
        env={"PYTHONPATH": str(ROOT / "src"), "AGENT_TUI_CONFIG_DIR": str(tree.config)},
    )


async def test_attacks_through_the_stdio_server(tree: Tree, tmp_path: Path) -> None:
    errlog_path = tmp_path / "serve.err"
    with errlog_path.open("w") as errlog:
        async with Client(
            stdio_client(_params(tree), errlog=errlog), read_timeout_seconds=30
        ) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            assert names == SERVED
            refused = [
                ("glob", {"pattern": "../*"}),
                ("glob", {"pattern": "/etc/*"}),
                ("glob", {"pattern": "**/../../*"}),
                ("glob", {"pattern": "dirlink/*"}),
                ("read_file", {"path": "canary-link"}),
                ("list_dir", {"path": "dirlink"}),
                ("read_file", {"path": ".env"}),
                ("read_file", {"path": "innocent.txt"}),
                ("read_file", {"path": "private/id.key"}),
            ]
            for name, arguments in refused:
                result = await client.call_tool(name, arguments)
                text = _text(result)
                assert result.is_error, (name, arguments, text)
                assert tree.leaks(text) == [], (name, arguments, text)
            search = await client.call_tool("search_files", {"query": "e"})
            assert not search.is_error
            listed = _text(search).splitlines()
            assert ".env" not in listed
            assert "canary-link" not in listed
            assert tree.leaks(_text(search)) == []
            fine = await client.call_tool("read_file", {"path": "src/app.py"})
            assert not fine.is_error
            assert "print('hello')" in _text(fine)
            with pytest.raises(MCPError):
                await client.call_tool("run_tool", {"name": "read_file", "input": {}})


async def test_the_stdio_server_reports_a_broken_settings_file_and_serves(
    tree: Tree, tmp_path: Path
) -> None:
    local = tree.root / ".agent-tui" / "settings.local.json"
    local.write_text("{not json")
    errlog_path = tmp_path / "serve.err"
    with errlog_path.open("w") as errlog:
        async with Client(
            stdio_client(_params(tree), errlog=errlog), read_timeout_seconds=30
        ) as client:
            denied = await client.call_tool("read_file", {"path": ".env"})
            assert denied.is_error
            assert tree.secret not in _text(denied)
            fine = await client.call_tool("read_file", {"path": "src/app.py"})
            assert not fine.is_error
    logged = errlog_path.read_text()
    assert f"agent-tui mcp serve: settings: {local}: is not valid JSON" in logged
    assert "serving with the permission rules that could be read" in logged


async def test_grep_through_the_stdio_server_leaks_nothing(tree: Tree, tmp_path: Path) -> None:
    """Needs grep to consult ``ctx.reads`` for each file it searches."""
    with (tmp_path / "serve.err").open("w") as errlog:
        async with Client(
            stdio_client(_params(tree), errlog=errlog), read_timeout_seconds=30
        ) as client:
            result = await client.call_tool("grep", {"pattern": "."})
            assert tree.leaks(_text(result)) == [], _text(result)
