"""Images the user attaches and the tools return: prepared, kept, sent.

``prepare``: bytes → an image within the bounds (Pillow, imported lazily), or ``ImageError``;
``store``: the session's content-addressed image store and the base64 a request sends;
``vision``: which models take images, and the error when one refuses them; ``paths``: the
image files a pasted text names; ``clipboard``: an image from the system clipboard through
``wl-paste``, ``xclip`` or ``pngpaste``. The reference the transcript keeps is
``core.attachments.ImageRef``.

It may import only the shared vocabulary (``attachments``, ``transcript``): the built-in
tools, the mentions, the agent and the front ends import it.
"""
