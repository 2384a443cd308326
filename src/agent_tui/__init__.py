"""agent-tui: a full-screen terminal coding agent built on Textual."""

__version__ = "0.1.0"
