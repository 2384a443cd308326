"""Widgets, grouped by feature: ``chat/``, ``lane/``, and the prompt and status bar."""
