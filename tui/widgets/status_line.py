"""``StatusLine``: who is to move, check, and the outcome (将死 / 困毙) of the position shown."""
from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from xiangqi import BLACK, RED, Board, Termination

SIDE_NAMES = {RED: "Red 红方", BLACK: "Black 黑方"}
TERMINATION_NAMES = {Termination.CHECKMATE: "checkmate 将死",
                     Termination.STALEMATE: "stalemate 困毙"}


def describe_position(board: Board) -> str:
    """One line about ``board``: the side to move and check, or how the game ended.

    >>> describe_position(Board())
    'Red 红方 to move'
    >>> describe_position(Board("3k5/2R6/9/9/9/9/9/9/9/4K4 b"))
    'Black 黑方 is in stalemate 困毙: Red 红方 wins (1-0)'
    """
    outcome = board.outcome()
    side = SIDE_NAMES[board.turn]
    if outcome is not None:
        assert outcome.winner is not None   # checkmate and stalemate both lose
        return (f"{side} is in {TERMINATION_NAMES[outcome.termination]}: "
                f"{SIDE_NAMES[outcome.winner]} wins ({outcome.result()})")
    if board.is_check():
        return f"{side} to move, in check 将军"
    return f"{side} to move"


class StatusLine(Static):
    """The status of the position: side to move, check, mate or stalemate."""

    DEFAULT_CSS = """
    StatusLine { height: auto; padding: 0 1; background: $boost; }
    StatusLine.-red { color: $text-error; }
    StatusLine.-over { text-style: bold; background: $error 30%; }
    """

    def show_position(self, board: Board, detail: str = "") -> None:
        """Describe ``board``; ``detail`` (e.g. the ply) is added after a separator."""
        text = describe_position(board)
        self.update(Text(f"{text} · {detail}" if detail else text))
        self.set_class(board.turn == RED, "-red")
        self.set_class(board.outcome() is not None, "-over")
