"""The rewind picker: the turns to go back to, a preview of what going back does, the choice."""
