"""The spill browser: the screen (``browser``), its widgets, and its controllers (search,
paging, the listing, deletion and the directory watch)."""
