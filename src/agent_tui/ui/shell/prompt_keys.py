"""The prompt's placeholder and newline keys: shared by ``PromptInput`` and the first frame's
``PromptStandIn`` (which must not import the real prompt)."""

from __future__ import annotations

PLACEHOLDER = "Ask the agent…  (Enter send · ctrl+j newline · ↑ history · ^x ^e editor)"
NEWLINE_KEYS = frozenset({"ctrl+j", "shift+enter", "alt+enter", "ctrl+enter"})
