"""``MoveList``: the moves of a line, numbered in pairs, in one of four notations.

``set_line(board, moves, ply)`` shows ``moves`` played from ``board`` with the move that led to
ply ``ply`` highlighted (ply 0 is the starting position).  ``notation`` is reactive
(``chinese``, ``wxf``, ``iccs``, ``code3``); :meth:`MoveList.cycle_notation` steps through
them.  A click on a move posts :class:`MoveList.PlySelected`.
"""
from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from xiangqi import BLACK, Board, Move
from xiangqi.notation import write_line

from ..wide_text import display_width, fit_to_width

NOTATION_CYCLE = ("chinese", "wxf", "iccs", "code3")
NOTATION_TITLES = {"chinese": "中文 Chinese", "wxf": "WXF", "iccs": "ICCS", "code3": "一字三码"}


class MoveList(ScrollView, can_focus=False):
    """The line being analysed, two plies a row; clicking a move jumps to it."""

    COMPONENT_CLASSES = {"move-list--number", "move-list--move", "move-list--current",
                         "move-list--empty"}

    DEFAULT_CSS = """
    MoveList { height: 1fr; }
    MoveList > .move-list--number { color: $text-muted; }
    MoveList > .move-list--current { background: $accent; color: $text; text-style: bold; }
    MoveList > .move-list--empty { color: $text-muted; text-style: italic; }
    """

    class PlySelected(Message):
        """A move was clicked: ``ply`` is the number of moves played to reach it."""

        def __init__(self, move_list: MoveList, ply: int) -> None:
            super().__init__()
            self.move_list = move_list
            self.ply = ply

        @property
        def control(self) -> MoveList:
            return self.move_list

    notation: reactive[str] = reactive("chinese")

    def __init__(self, *, notation: str = "chinese", id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.set_reactive(MoveList.notation, notation)
        self._board = Board()
        self._moves: list[Move] = []
        self._texts: list[str] = []
        self._ply = 0

    # -- public API --------------------------------------------------------------------------

    @property
    def texts(self) -> list[str]:
        """The moves written in the current notation."""
        return list(self._texts)

    @property
    def ply(self) -> int:
        return self._ply

    def set_line(self, board: Board, moves: list[Move], ply: int) -> None:
        """Show ``moves`` played from ``board``, the move leading to ply ``ply`` highlighted."""
        self._board = board.copy(stack=False)
        self._moves = list(moves)
        self._ply = ply
        self._rewrite()

    def cycle_notation(self) -> str:
        """Switch to the next notation and return its name."""
        self.notation = NOTATION_CYCLE[(NOTATION_CYCLE.index(self.notation) + 1)
                                       % len(NOTATION_CYCLE)]
        return self.notation

    def line_text(self) -> str:
        """The line as one string, numbered: ``1. 炮二平五 马8进7 2. 马二进三``."""
        words = []
        for index, text in enumerate(self._texts):
            slot = index + self._black_first
            if slot % 2 == 0:
                words.append(f"{self._first_number + slot // 2}.")
            elif index == 0:
                words.append(f"{self._first_number}...")
            words.append(text)
        return " ".join(words)

    # -- layout ------------------------------------------------------------------------------

    @property
    def _black_first(self) -> int:
        """1 when the line starts with Black's move (its first row has an empty Red cell)."""
        return 1 if self._board.turn == BLACK else 0

    @property
    def _first_number(self) -> int:
        return self._board.fullmove_number

    @property
    def _row_count(self) -> int:
        return (len(self._texts) + self._black_first + 1) // 2

    def _column_widths(self) -> tuple[int, int]:
        """Width of the move-number column and of each move column."""
        last_number = self._first_number + max(self._row_count - 1, 0)
        move_width = max((display_width(text) for text in self._texts), default=4)
        return len(str(last_number)) + 1, move_width + 2

    def watch_notation(self) -> None:
        self._rewrite()

    def _rewrite(self) -> None:
        self._texts = write_line(self._board, self._moves, self.notation)
        number_width, move_width = self._column_widths()
        self.virtual_size = Size(number_width + 2 * move_width, max(self._row_count, 1))
        self.refresh()
        self.call_after_refresh(self._scroll_to_current)

    def _scroll_to_current(self) -> None:
        if self._ply:
            row = (self._ply - 1 + self._black_first) // 2
            self.scroll_to_region(Region(0, row, 1, 1), animate=False)

    # -- drawing and mouse -------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        row = y + scroll_y
        base = self.rich_style
        text = self._row_text(row)
        segments = list(text.render(self.app.console))
        strip = Strip(Segment.apply_style(segments, base), display_width(text.plain))
        return strip.crop_extend(scroll_x, scroll_x + self.size.width, base)

    def _row_text(self, row: int) -> Text:
        text = Text(no_wrap=True, end="")
        if not self._texts:
            if row == 0:
                text.append("no moves yet", self.get_component_rich_style("move-list--empty",
                                                                          partial=True))
            return text
        if row >= self._row_count:
            return text
        number_width, move_width = self._column_widths()
        number = f"{self._first_number + row}.".rjust(number_width)
        text.append(number, self.get_component_rich_style("move-list--number", partial=True))
        for column in (0, 1):
            index = 2 * row + column - self._black_first
            if index < 0:
                cell = "…"
            elif index < len(self._texts):
                cell = self._texts[index]
            else:
                break
            style = (self.get_component_rich_style("move-list--current", partial=True)
                     if index == self._ply - 1 else Style.null())
            text.append(" " + fit_to_width(cell, move_width - 1), style)
        return text

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        number_width, move_width = self._column_widths()
        x = offset.x + self.scroll_offset.x - number_width
        if x < 0 or x >= 2 * move_width:
            return
        index = 2 * (offset.y + self.scroll_offset.y) + x // move_width - self._black_first
        if 0 <= index < len(self._texts):
            self.post_message(self.PlySelected(self, index + 1))
