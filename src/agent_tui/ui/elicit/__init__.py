"""MCP elicitation in the TUI: a server's request for input as a modal form or URL prompt."""
