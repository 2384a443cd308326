"""The UI-free engine of agent-tui. Nothing under this package imports textual or rich."""
