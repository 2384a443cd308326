"""The Textual UI: one consumer of the core's event stream (``AgentApp`` in ``ui.app``)."""
