"""``@`` mentions: a prompt names workspace files and directories, and the model gets them.

- ``index``: the workspace's paths in memory (walked once in a thread, ignore files honoured)
  and the fast fuzzy query the picker runs on every keystroke; ``watch`` keeps it current;
- ``completer``: the picker's side of the completion menu (``core.text.completion``);
- ``syntax``: how a mention is written (``@path``, ``@"a b.txt"``, ``@dir/``);
- ``expand``: a submitted prompt's mentions attached for the model, within the workspace and
  the read guard, and the typed ``Mention`` list the chat shows as chips;
- ``resources``: where MCP resources (``@server:uri``) will plug in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.core import lazy

if TYPE_CHECKING:
    from agent_tui.core.mentions.completer import MentionCompleter
    from agent_tui.core.mentions.expand import Expansion, MentionExpander
    from agent_tui.core.mentions.index import FileIndex, Hit, Result
    from agent_tui.core.mentions.resources import MentionResources
    from agent_tui.core.mentions.watch import IndexWatcher
else:
    __getattr__ = lazy.exports(
        __name__,
        {
            "MentionCompleter": "completer",
            "Expansion": "expand",
            "MentionExpander": "expand",
            "FileIndex": "index",
            "Hit": "index",
            "Result": "index",
            "MentionResources": "resources",
            "IndexWatcher": "watch",
        },
    )

__all__ = [
    "Expansion",
    "FileIndex",
    "Hit",
    "IndexWatcher",
    "MentionCompleter",
    "MentionExpander",
    "MentionResources",
    "Result",
]
