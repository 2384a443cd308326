"""The spill browser: the screen (``browser``), its state and what each key does to it
(``model``, no Textual), its widgets, the search runner and the directory watch."""
