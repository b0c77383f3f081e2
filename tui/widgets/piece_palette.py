"""``PiecePalette``: the fourteen pieces with their letters, for the set-up editor.

Clicking a piece posts :class:`PiecePalette.PiecePicked`; ``pen`` (reactive) is the piece the
editor places on a click or a space and is shown highlighted.
"""
from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual import events
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from xiangqi import BLACK, RED, Piece
from xiangqi.pieces import ADVISOR, CANNON, ELEPHANT, HORSE, KING, PAWN, ROOK

from ..wide_text import display_width
from .board import piece_glyph

PALETTE_ORDER = (KING, ADVISOR, ELEPHANT, HORSE, ROOK, CANNON, PAWN)
_ROW_TITLES = {RED: "Red   ", BLACK: "Black "}
_ITEM_WIDTH = 4          # glyph (2 cells), letter, space


class PiecePalette(Widget):
    """Two rows of pieces, Red then Black; the pen piece is highlighted."""

    COMPONENT_CLASSES = {"piece-palette--red", "piece-palette--black", "piece-palette--pen",
                         "piece-palette--letter"}

    DEFAULT_CSS = """
    PiecePalette { height: 2; width: 34; background: #2b1f14; }
    PiecePalette > .piece-palette--red { color: #ff6b5e; text-style: bold; }
    PiecePalette > .piece-palette--black { color: #f4f4f4; text-style: bold; }
    PiecePalette > .piece-palette--letter { color: #b38d5a; }
    PiecePalette > .piece-palette--pen { background: #2f6db5; }
    """

    class PiecePicked(Message):
        """A piece of the palette was clicked."""

        def __init__(self, palette: PiecePalette, piece: Piece) -> None:
            super().__init__()
            self.palette = palette
            self.piece = piece

        @property
        def control(self) -> PiecePalette:
            return self.palette

    pen: reactive[Piece | None] = reactive(None)

    def render(self) -> Text:
        text = Text(no_wrap=True, end="")
        for color in (RED, BLACK):
            if color == BLACK:
                text.append("\n")
            text.append(_ROW_TITLES[color])
            for piece_type in PALETTE_ORDER:
                piece = Piece(piece_type, color)
                pen = (self.get_component_rich_style("piece-palette--pen", partial=True)
                       if piece == self.pen else Style.null())
                side = "red" if color == RED else "black"
                text.append(piece_glyph(piece),
                            self.get_component_rich_style(f"piece-palette--{side}",
                                                          partial=True) + pen)
                text.append(piece.symbol(), self.get_component_rich_style(
                    "piece-palette--letter", partial=True) + pen)
                text.append(" ")
        return text

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y > 1:
            return
        title_width = display_width(_ROW_TITLES[RED])
        index = (offset.x - title_width) // _ITEM_WIDTH
        if offset.x >= title_width and index < len(PALETTE_ORDER):
            piece = Piece(PALETTE_ORDER[index], RED if offset.y == 0 else BLACK)
            self.pen = piece
            self.post_message(self.PiecePicked(self, piece))
