"""Checkpoints: what each turn changed in files, kept so a rewind can put it back.

``records``: the typed records a session file keeps (one chronological log); ``blobs``: the
content-addressed store of the contents kept (beside the session file); ``snapshot``: keeping
a file's content; ``turn``: a turn's recorder (the file tools' ``ToolContext.changes``) and its
workspace watch (scans around ``run_shell``); ``scan``: the bounded workspace scan; ``plan``:
what a rewind would do; ``restore``: doing it. ``core.conversation.rewind`` puts it together with
the transcript.
"""
