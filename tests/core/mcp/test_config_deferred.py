"""The MCP configuration's entry models are built by the first server read, not at import
(issue 45): the TUI imports ``core.mcp.config.load`` at every start, and most sessions
configure no server. Checked in a fresh process (another test may have built them here)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fresh_python import python_on_src

PROBE = """
import json, sys
from pathlib import Path
from agent_tui.core.mcp.config import load
from agent_tui.core.mcp.config.oauth_entry import OAuthEntry

models = (load._StdioEntry, load._HttpEntry, OAuthEntry)
before = [m.__pydantic_complete__ for m in models]
config = load.load_config(Path.cwd(), paths=[Path(sys.argv[1])], environ={})
after = [m.__pydantic_complete__ for m in models]
servers = {name: s.transport for name, s in config.servers.items()}
scopes = config.servers["remote"].oauth.scopes
problems = [str(p) for p in config.problems]
seen = {"before": before, "after": after, "servers": servers, "problems": problems}
print(json.dumps({**seen, "scopes": scopes}))
"""


def test_entry_models_are_built_by_the_first_server_read(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    servers = {
        "files": {"command": "npx", "args": ["-y", "pkg"]},
        "remote": {"type": "http", "url": "http://127.0.0.1:9/mcp", "oauth": {"scopes": ["a"]}},
    }
    path.write_text(json.dumps({"mcpServers": servers}))
    done = python_on_src(["-c", PROBE, str(path)], tmp_path)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["before"] == [False, False, False]
    assert seen["problems"] == []
    assert seen["servers"] == {"files": "stdio", "remote": "http"}
    assert seen["scopes"] == ["a"]
    # the entries are built; the OAuth entry's schema went into the HTTP entry's, and its own
    # validator waits for a use of its own (a token store's default)
    assert seen["after"][:2] == [True, True]
