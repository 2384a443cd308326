"""A synthetic catalog of MCP-like tools for disclosure tests: realistic names, descriptions
and parameters across many servers (300+ tools), plus a retrieval set with expected answers."""

from __future__ import annotations

from typing import Any

from agent_tui.core.tools import Tool, ToolContext, ToolOutput, ToolRegistry
from agent_tui.core.tools.base import JsonInput

SERVERS: dict[str, list[tuple[str, str, list[str]]]] = {
    "github": [
        ("create_issue", "Create a new issue in a GitHub repository", ["owner", "repo", "title"]),
        ("list_pull_requests", "List pull requests of a repository", ["owner", "repo", "state"]),
        ("merge_pull_request", "Merge a pull request", ["owner", "repo", "number"]),
        ("get_file_contents", "Get the contents of a file in a repository", ["path", "ref"]),
        ("search_code", "Search code across GitHub repositories", ["query"]),
        ("create_branch", "Create a new branch from a ref", ["branch", "from_ref"]),
        ("add_issue_comment", "Comment on an issue", ["issue_number", "body"]),
        ("list_commits", "List commits of a branch", ["sha", "per_page"]),
    ],
    "slack": [
        ("post_message", "Post a message to a Slack channel", ["channel", "text"]),
        ("list_channels", "List the channels of the workspace", ["limit"]),
        ("get_thread_replies", "Read the replies in a message thread", ["channel", "ts"]),
        ("add_reaction", "Add an emoji reaction to a message", ["channel", "ts", "emoji"]),
        ("search_messages", "Search Slack messages by keyword", ["query"]),
    ],
    "postgres": [
        ("run_query", "Run a read-only SQL query against the database", ["sql"]),
        ("list_tables", "List the tables of a schema", ["schema"]),
        ("describe_table", "Show the columns and types of a table", ["table"]),
        ("explain_query", "Show the query plan of a SQL statement", ["sql"]),
    ],
    "calendar": [
        ("create_event", "Schedule a calendar event (meeting) at a time", ["title", "start"]),
        ("list_events", "List upcoming calendar events", ["days"]),
        ("delete_event", "Cancel a calendar event", ["event_id"]),
        ("find_free_slot", "Find a free time slot for a meeting", ["duration", "attendees"]),
    ],
    "weather": [
        ("get_forecast", "Weather forecast for a city for the next days", ["city", "days"]),
        ("get_current_weather", "Current temperature and conditions", ["city"]),
    ],
    "browser": [
        ("navigate", "Open a URL in the browser", ["url"]),
        ("screenshot", "Take a screenshot of the current page", ["full_page"]),
        ("click", "Click an element by CSS selector", ["selector"]),
        ("fill_form", "Type text into a form field", ["selector", "value"]),
    ],
    "translate": [
        ("translate_text", "Translate text into another language 翻译文本", ["text", "target"]),
        ("detect_language", "Detect the language of a text 检测语言", ["text"]),
    ],
    "notes": [
        ("create_note", "新建一条笔记 Create a note", ["title", "content"]),
        ("search_notes", "搜索笔记内容 Search notes", ["query"]),
        ("delete_note", "删除笔记 Delete a note", ["note_id"]),
    ],
}

# (query, expected tool)
RETRIEVAL: list[tuple[str, str]] = [
    ("create github issue", "mcp__github__create_issue"),
    ("open a new issue", "mcp__github__create_issue"),
    ("merge PR", "mcp__github__merge_pull_request"),
    ("list pull requests", "mcp__github__list_pull_requests"),
    ("post message to slack channel", "mcp__slack__post_message"),
    ("emoji reaction", "mcp__slack__add_reaction"),
    ("sql query database", "mcp__postgres__run_query"),
    ("table columns", "mcp__postgres__describe_table"),
    ("schedule a meeting", "mcp__calendar__create_event"),
    ("weather forecast", "mcp__weather__get_forecast"),
    ("take screenshot of page", "mcp__browser__screenshot"),
    ("translate text", "mcp__translate__translate_text"),
    ("翻译", "mcp__translate__translate_text"),
    ("检测语言", "mcp__translate__detect_language"),
    ("新建笔记", "mcp__notes__create_note"),
    ("搜索笔记", "mcp__notes__search_notes"),
    ("删除笔记", "mcp__notes__delete_note"),
    ("mcp__calendar__delete_event", "mcp__calendar__delete_event"),
    ("find_free_slot", "mcp__calendar__find_free_slot"),
    ("github: commits", "mcp__github__list_commits"),
]


def mcp_tool(server: str, name: str, description: str, params: list[str]) -> Tool[Any]:
    schema = {
        "type": "object",
        "properties": {p: {"type": "string", "description": f"the {p}"} for p in params},
        "required": params[:1],
    }

    async def call(inp: JsonInput, ctx: ToolContext) -> ToolOutput:
        return ToolOutput(f"{name} ran with {inp.model_dump()}")

    return Tool(
        name=f"mcp__{server}__{name}",
        description=description,
        input_model=JsonInput,
        call=call,
        input_schema=schema,
    )


def filler(count: int) -> list[Tool[Any]]:
    """Plausible but unrelated tools, to make the catalog large."""
    verbs = ["get", "list", "update", "sync", "export", "archive", "count", "validate"]
    nouns = [
        "invoice",
        "ticket",
        "asset",
        "deployment",
        "metric",
        "record",
        "bucket",
        "secret",
        "pipeline",
        "report",
        "user",
        "token",
        "cluster",
        "backup",
    ]
    tools = []
    for i in range(count):
        verb, noun = verbs[i % len(verbs)], nouns[(i // len(verbs)) % len(nouns)]
        server = f"svc{i % 17}"
        tools.append(
            mcp_tool(
                server,
                f"{verb}_{noun}_{i}",
                f"{verb.title()} a {noun} entry in the {server} system",
                [f"{noun}_id"],
            )
        )
    return tools


def catalog_tools(extra: int = 0) -> list[Tool[Any]]:
    tools = [mcp_tool(s, n, d, p) for s, entries in SERVERS.items() for n, d, p in entries]
    return tools + filler(extra)


def registry_with(tools: list[Tool[Any]]) -> ToolRegistry:
    from agent_tui.core.tools.builtin import builtin_tools

    return ToolRegistry([*builtin_tools(), *tools])
