"""The spill browser's controllers: search, paging, the listing, deletion and the directory
watch. Each works on the ``SpillBrowser`` screen (``ui/screens/spill_browser.py``)."""
