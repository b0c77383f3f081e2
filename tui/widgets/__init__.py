"""Widgets of the studio, one a module: the board, the move list, the status line, the
position panel and the set-up editor's piece palette."""
