"""``PositionPanel``: the FEN of the position shown and its outcome, for the side panels."""
from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from xiangqi import Board

from ..wide_text import TokenWrappedText
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
        fen_start = len(text)
        text.append(board.fen() + "\n\n")
        # A FEN wider than the panel wraps after a rank's slash or between its fields, never
        # inside a rank; the description below wraps between its words.
        starts = [fen_start + index + 1 for index, char in enumerate(board.fen())
                  if char in "/ "]
        described = len(text)
        text.append(describe_position(board) + "\n")
        text.append(f"{moves} legal move{'s' if moves != 1 else ''}")
        starts += [described + index + 1 for index, char in enumerate(text.plain[described:])
                   if char == " "]
        self.update(TokenWrappedText(text, starts))
