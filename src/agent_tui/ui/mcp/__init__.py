"""The MCP panel (``panel``) and its parts: server list and details, tool list and summary,
problems, the empty state, the schema dialog, and the panel's data source."""
