"""The app shell: the main screen, the prompt, the status bar, the palette, themes, sessions,
start-up, and the adapter that turns core events into messages; and the app's collaborators
(``opening``, ``background``, ``turns``, ``session_views``, ``session_changes``, ``quitting``,
``event_view``, ``permission_modes``, ``slash_actions``), each handed the app through a
protocol of its own that names what it uses. It may import the UI's features, the call model,
``common`` and the core; never ``ui.app``."""
