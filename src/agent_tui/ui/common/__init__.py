"""What every part of the UI shares: text helpers (``format``) and the steady footer."""
