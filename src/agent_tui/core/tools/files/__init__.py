"""What the file tools share with the rest of the core: opening files without following
links (``safe_open``), walking a tree as the ignore files say (``walk``), paths as the model
sees them and binary detection (``paths``), numbered windows of a file (``read_window``),
unified diffs (``diff``), files withheld from the model (``withheld``).

May import: the tools' base vocabulary (``tools.base``, ``tools.errors``, ``tools.reads``),
``core.text`` and ``core.workspace``; never a tool module, the agent or the UI.
"""
