"""What every part of the UI shares: text helpers (``format``), the steady footer, copying to
the clipboard (``clipboard``), a screen's first width class (``width_class``). It imports no
other part of the UI."""
