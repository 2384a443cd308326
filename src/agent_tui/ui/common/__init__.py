"""What every part of the UI shares: text helpers (``format``), the steady footer, copying to
the clipboard (``clipboard``)."""
