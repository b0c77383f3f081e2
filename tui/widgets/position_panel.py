"""``PositionPanel``: the FEN of the position shown and its outcome, for the side panels."""
from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from xiangqi import Board

from .status_line import describe_position


class PositionPanel(Static):
    """The FEN (selectable, wraps) and the state of the game."""

    DEFAULT_CSS = """
    PositionPanel { height: auto; padding: 0 1; }
    """

    def show_position(self, board: Board) -> None:
        moves = len(board.legal_moves)
        text = Text()
        text.append("FEN\n", style="bold")
        text.append(board.fen() + "\n\n")
        text.append(describe_position(board) + "\n")
        text.append(f"{moves} legal move{'s' if moves != 1 else ''}")
        self.update(text)
