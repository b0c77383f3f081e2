"""Screens of the studio: analyse mode, the set-up editor, the FEN dialog and the help."""
