"""The app shell: the main screen, the prompt, the status bar, the palette, themes, sessions,
start-up, and the adapter that turns core events into messages."""
