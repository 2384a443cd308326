"""What adds tools to an agent's registry in the background (the MCP manager is one)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from agent_tui.core.state.trust import TrustItem


class ToolSource(Protocol):
    """Something that adds tools to the registry in the background (the MCP manager).

    ``ready()`` starts it if needed and returns once the tools still being loaded are in (or
    their loading timed out); it is awaited before each prompt's first model request.
    ``aclose()`` is awaited by ``Agent.close()``; ``trusted()`` by ``Agent.trust_project``."""

    async def ready(self) -> None: ...

    async def aclose(self) -> None: ...

    async def trusted(self, items: Sequence[TrustItem]) -> None:
        """The user trusted these project items (``core.state.trust``): start what they name."""
        ...


__all__ = ["ToolSource"]
