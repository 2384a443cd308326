"""Screens: the main screen and the modals pushed over it."""
