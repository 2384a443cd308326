"""The render state of tool calls (``state``, folded from core events by ``book``), shared by
the chat, the lane and the approval prompt, with how a call's input and diff are shown."""
