"""The spill browser: the screen (``browser``), its state and what each key does to it
(``model``, no Textual; its search is ``finder``), its widgets, the search runner, the
directory watch, and the ``d`` key's checked deletion (``deleting``)."""
