"""``BoardView``: the Xiangqi board drawn with box characters, driven by keys and the mouse.

The view shows a *copy* of a :class:`xiangqi.Board` and never plays a move itself: it posts a
message and the screen that owns the game decides what to do with it.

Public API (other widgets and screens code against this)::

    BoardView(board=None, *, flipped=False, interactive=True, id=None, classes=None)

``board``
    The position to show (``None``: the start position).
``interactive``
    True (analyse mode): Enter, space or a click selects a piece of the side to move, marks its
    legal targets, and a second press on a target posts :class:`BoardView.MoveEntered`.
    False (editors): space or a click posts :class:`BoardView.SquareActivated` with the raw
    point, and Enter, Escape and ``h j k l`` are left to the screen (they are piece letters in
    the set-up editor).
``view.board``
    A copy of the position shown (None while it shows a bare placement, see below).
``view.set_board(board, last_move=None)``
    Show another position (copied) with ``last_move`` marked; drops the selection.
``view.set_placement(pieces)``
    Show pieces (a ``{point: Piece}`` map) that need not form a legal position, as the
    set-up editor does; nothing is selectable and no check is shown.
``view.flipped``
    Reactive: True puts Black's side at the bottom. ``f`` toggles it.
``view.cursor``
    Reactive: the point under the keyboard cursor, 0..89 as in :mod:`xiangqi.pieces`.
``view.selected``
    The selected point, or None.
``view.point_offset(point)`` / ``view.square_at(x, y)``
    Where a point is drawn in the content area, and the point drawn at a cell (or None).
``view.mark_squares(squares, style_name)`` / ``view.clear_marks()``
    Highlight points for a panel (tablebase, solver).  ``style_name`` is one of
    :data:`MARK_STYLES` (themed by the ``board-view--mark-<name>`` component classes) or any
    Rich style string such as ``"on dark_green"``.  A later call wins on a shared point.
Messages
    ``BoardView.MoveEntered(board_view, move)`` (``.move``: a legal :class:`xiangqi.Move`) and
    ``BoardView.SquareActivated(board_view, square)`` (``.square``); both bubble, and
    ``.control`` is the view, so ``@on(BoardView.MoveEntered, "#board")`` works.

Pieces are the simplified characters of :meth:`xiangqi.Board.unicode`: Red 帅仕相马车炮兵,
Black 将士象馬車砲卒, coloured by side.  Files are numbered 九..一 along Red's side and 1..9
along Black's side.  The drawing scales up with the widget: 34x21 cells at the smallest (fits
an 80x24 terminal), 50x30 and 66x39 when there is room.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Offset
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from xiangqi import Board, Move
from xiangqi.pieces import (
    BLACK,
    COLOR_NAMES,
    KING,
    RED,
    Piece,
    square,
    square_file,
    square_name,
    square_rank,
)

from ..wide_text import display_width

MARK_STYLES = ("hint", "win", "draw", "loss")
"""Named mark styles; each has a ``board-view--mark-<name>`` component class."""

# Black's horse, rook and cannon use the diagram forms, as Board.unicode() does.
_BLACK_DIAGRAM_GLYPHS = {4: "馬", 5: "車", 6: "砲"}
_RED_FILE_LABELS = "九八七六五四三二一"          # Red's file 1 is the i-file
_BLACK_FILE_LABELS = "１２３４５６７８９"        # Black's file 1 is the a-file
_EMPTY_TARGET_GLYPH = "〇"
_VI_KEYS = "Move the cursor (vi keys)"

# Box character of an empty point by its lines (up, down, left, right) on screen.
_JUNCTIONS = {
    (True, True, True, True): "┼", (False, True, True, True): "┬",
    (True, False, True, True): "┴", (True, True, False, True): "├",
    (True, True, True, False): "┤", (False, True, False, True): "┌",
    (False, True, True, False): "┐", (True, False, False, True): "└",
    (True, False, True, False): "┘",
}
_PALACE_DIAGONALS = (((3, 0), (4, 1)), ((4, 1), (5, 2)), ((5, 0), (4, 1)), ((4, 1), (3, 2)),
                     ((3, 9), (4, 8)), ((4, 8), (5, 7)), ((5, 9), (4, 8)), ((4, 8), (3, 7)))


def piece_glyph(piece: Piece) -> str:
    """The character drawn for ``piece`` (Black's horse, rook and cannon in diagram form)."""
    if piece.color == BLACK:
        return _BLACK_DIAGRAM_GLYPHS.get(piece.piece_type, piece.chinese())
    return piece.chinese()


def _has_line(file: int, rank: int, d_file: int, d_rank: int) -> bool:
    """Whether a board line leaves point (file, rank) towards (file + d_file, rank + d_rank).
    Only the edge files cross the river."""
    to_file, to_rank = file + d_file, rank + d_rank
    if not (0 <= to_file <= 8 and 0 <= to_rank <= 9):
        return False
    crosses_river = {rank, to_rank} == {4, 5}
    return not crosses_river or file in (0, 8)


@dataclass(frozen=True)
class _Geometry:
    """Where the board sits inside the widget for one size."""
    scale: int        # 2, 3 or 4
    left: int         # column of file 0 on screen (display column 0)
    top: int          # row of the top labels

    @property
    def file_step(self) -> int:
        return 2 * self.scale

    @property
    def rank_step(self) -> int:
        return self.scale

    def point_xy(self, column: int, row: int) -> tuple[int, int]:
        """Screen cell of the display point (column 0..8 from the left, row 0..9 from the top)."""
        return self.left + column * self.file_step, self.top + 1 + row * self.rank_step


class _Canvas:
    """A grid of cells, each a character and a style; a wide character covers two cells."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.cells: list[list[tuple[str, Style]]] = [
            [(" ", Style.null())] * width for _ in range(height)]

    def put(self, x: int, y: int, text: str, style: Style) -> None:
        if not 0 <= y < self.height:
            return
        row = self.cells[y]
        for char in text:
            width = display_width(char)
            if 0 <= x and x + width <= self.width:
                if row[x][0] == "" and x > 0:        # splitting a wide character: blank it
                    row[x - 1] = (" ", row[x - 1][1])
                row[x] = (char, style)
                if width == 2:
                    row[x + 1] = ("", style)
            x += width

    def style_cells(self, x: int, y: int, width: int, style: Style) -> None:
        """Add ``style`` (typically a background) over ``width`` cells."""
        if not 0 <= y < self.height:
            return
        row = self.cells[y]
        for column in range(max(x, 0), min(x + width, self.width)):
            char, old = row[column]
            row[column] = (char, old + style)

    def to_text(self) -> Text:
        text = Text(no_wrap=True, overflow="crop", end="")
        for index, row in enumerate(self.cells):
            if index:
                text.append("\n")
            for char, style in row:
                if char:
                    text.append(char, style)
        return text


def refusal(board: Board, selected: int | None, point: int) -> str:
    """Why picking ``point`` (with ``selected`` already picked, or None) does nothing.

    >>> refusal(Board(), None, square(4, 9))
    "The 将 on e9 is Black's; Red is to move."
    >>> refusal(Board(), square(0, 0), square(0, 5))
    'The 车 on a0 cannot go to a5: not a move it can make.'
    """
    side = COLOR_NAMES[board.turn]
    piece = board.piece_at(point)
    where = square_name(point)
    if selected is None or piece is not None and piece.color == board.turn:
        if piece is None:
            return f"Nothing on {where}: pick one of {side}'s pieces."
        if piece.color != board.turn:
            return f"The {piece.chinese()} on {where} is {COLOR_NAMES[piece.color]}'s; " \
                   f"{side} is to move."
        why = f"{side} is in check" if board.is_check() else "it is blocked or pinned"
        return f"The {piece.chinese()} on {where} has no legal move ({why})."
    mover = board.piece_at(selected)
    name = mover.chinese() if mover is not None else "piece"
    move = Move(selected, point)
    start = square_name(selected)
    if move in board.pseudo_legal_moves:
        if _kings_face(board, move):
            why = "the kings would face each other (对脸)"
        elif board.is_check():
            why = "it does not answer the check"
        else:
            why = "it leaves the king in check"
        return f"The {name} on {start} cannot go to {where}: {why}."
    return f"The {name} on {start} cannot go to {where}: not a move it can make."


def _kings_face(board: Board, move: Move) -> bool:
    """After ``move``, do the two kings stand on one file with nothing between them?"""
    after = board.copy(stack=False)
    after.push_unchecked(move)
    kings = [sq for sq, piece in after.piece_map().items() if piece.piece_type == KING]
    if len(kings) != 2 or square_file(kings[0]) != square_file(kings[1]):
        return False
    low, high = sorted(square_rank(k) for k in kings)
    file = square_file(kings[0])
    return all(after.piece_at(square(file, rank)) is None for rank in range(low + 1, high))


class BoardView(Widget, can_focus=True):
    """The board: a keyboard cursor, piece selection, legal targets and highlights."""

    BINDINGS = [
        Binding("up", "move_cursor(0, -1)", "Move the cursor", show=False),
        Binding("down", "move_cursor(0, 1)", "Move the cursor", show=False),
        Binding("left", "move_cursor(-1, 0)", "Move the cursor", show=False),
        Binding("right", "move_cursor(1, 0)", "Move the cursor", show=False),
        Binding("k", "vim_cursor(0, -1)", _VI_KEYS, show=False),
        Binding("j", "vim_cursor(0, 1)", _VI_KEYS, show=False),
        Binding("h", "vim_cursor(-1, 0)", _VI_KEYS, show=False),
        Binding("l", "vim_cursor(1, 0)", _VI_KEYS, show=False),
        Binding("enter", "select", "Select / move"),
        Binding("space", "activate", "Select / move", show=False),
        Binding("escape", "deselect", "Drop selection", show=False),
        Binding("f", "flip", "Flip"),
    ]

    COMPONENT_CLASSES = {
        "board-view--line", "board-view--river", "board-view--label", "board-view--red",
        "board-view--black", "board-view--cursor", "board-view--selected",
        "board-view--target", "board-view--last-move", "board-view--check",
        *(f"board-view--mark-{name}" for name in MARK_STYLES),
    }

    DEFAULT_CSS = """
    BoardView {
        width: 1fr;
        height: 1fr;
        min-width: 34;
        min-height: 21;
        background: #2b1f14;
        color: #b38d5a;
    }
    BoardView > .board-view--line { color: #b38d5a; }
    BoardView > .board-view--river { color: #d9c49c; text-style: bold; }
    BoardView > .board-view--label { color: #d9c49c; }
    BoardView > .board-view--red { color: #ff6b5e; text-style: bold; }
    BoardView > .board-view--black { color: #f4f4f4; text-style: bold; }
    BoardView > .board-view--cursor { background: #2f6db5; text-style: underline; }
    BoardView > .board-view--selected { background: #9a7a10; }
    BoardView > .board-view--target { background: #27573a; color: #8ee0a0; }
    BoardView > .board-view--last-move { background: #5a4326; }
    BoardView > .board-view--check { background: #b3191b; }
    BoardView > .board-view--mark-hint { background: #35608f; }
    BoardView > .board-view--mark-win { background: #1d6130; }
    BoardView > .board-view--mark-draw { background: #55555a; }
    BoardView > .board-view--mark-loss { background: #74201f; }
    BoardView:focus > .board-view--cursor { background: #3b87e0; text-style: underline; }
    """

    class MoveEntered(Message):
        """The user completed a legal move (the view has not played it)."""

        def __init__(self, board_view: BoardView, move: Move) -> None:
            super().__init__()
            self.board_view = board_view
            self.move = move

        @property
        def control(self) -> BoardView:
            return self.board_view

    class Refused(Message):
        """The user picked a point that selects nothing or a target the selected piece cannot
        reach; ``reason`` says why, for the host's status line."""

        def __init__(self, board_view: BoardView, reason: str) -> None:
            super().__init__()
            self.board_view = board_view
            self.reason = reason

        @property
        def control(self) -> BoardView:
            return self.board_view

    class SelectionChanged(Message):
        """The user picked a piece to move (``selected``, its point) or put it down (None):
        what the host said about an earlier pick no longer holds."""

        def __init__(self, board_view: BoardView, selected: int | None) -> None:
            super().__init__()
            self.board_view = board_view
            self.selected = selected

        @property
        def control(self) -> BoardView:
            return self.board_view

    class SquareActivated(Message):
        """Space or a click on a point of a non-interactive view (editors)."""

        def __init__(self, board_view: BoardView, square: int) -> None:
            super().__init__()
            self.board_view = board_view
            self.square = square

        @property
        def control(self) -> BoardView:
            return self.board_view

    flipped: reactive[bool] = reactive(False)
    cursor: reactive[int] = reactive(square(4, 0))

    def __init__(self, board: Board | None = None, *, flipped: bool = False,
                 interactive: bool = True, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.interactive = interactive
        self._board: Board | None = Board() if board is None else board.copy()
        self._pieces = self._board.piece_map()
        self._last_move: Move | None = None
        self._selected: int | None = None
        self._marks: dict[int, str] = {}
        self.set_reactive(BoardView.flipped, flipped)

    # -- public API --------------------------------------------------------------------------

    @property
    def board(self) -> Board | None:
        """A copy of the position shown, or None for a bare placement."""
        return None if self._board is None else self._board.copy()

    @property
    def selected(self) -> int | None:
        """The selected point (interactive views), or None."""
        return self._selected

    @property
    def shown(self) -> Board | None:
        """A copy of the position shown (None before the first)."""
        return None if self._board is None else self._board.copy()

    def set_board(self, board: Board, last_move: Move | None = None) -> None:
        """Show a copy of ``board`` with ``last_move`` marked; the selection is dropped."""
        self._board = board.copy()
        self._pieces = self._board.piece_map()
        self._last_move = last_move
        self._selected = None
        self.refresh_bindings()
        self.refresh()

    def set_placement(self, pieces: dict[int, Piece]) -> None:
        """Show ``pieces`` without a position behind them (no moves, no check)."""
        self._board = None
        self._pieces = dict(pieces)
        self._last_move = None
        self._selected = None
        self.refresh_bindings()
        self.refresh()

    def mark_squares(self, squares: Iterable[int], style_name: str) -> None:
        """Highlight ``squares`` with a :data:`MARK_STYLES` name or a Rich style string."""
        if style_name not in MARK_STYLES:
            Style.parse(style_name)    # fail here, not at the next repaint
        for point in squares:
            self._marks[point] = style_name
        self.refresh()

    def clear_marks(self) -> None:
        self._marks.clear()
        self.refresh()

    def legal_targets(self) -> set[int]:
        """The points the selected piece can move to."""
        if self._selected is None or self._board is None:
            return set()
        return {move.to_square for move in self._board.legal_moves
                if move.from_square == self._selected}

    # -- reactives ---------------------------------------------------------------------------

    def validate_cursor(self, point: int) -> int:
        return min(max(point, 0), 89)

    def watch_flipped(self) -> None:
        self.refresh()

    def watch_cursor(self) -> None:
        self.refresh()

    # -- actions -----------------------------------------------------------------------------

    def help_bindings(self) -> list[Binding]:
        """The bindings that work on this board as it is set up, for the help: a board
        that moves no pieces (an editor's) leaves h j k l, Enter and Escape to its screen."""
        left = () if self.interactive else ("vim_cursor", "select", "deselect")
        return [binding for binding in Binding.make_bindings(self.BINDINGS)
                if binding.action.partition("(")[0] not in left]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Keys an editor needs for itself fall through to the screen.
        if action in ("vim_cursor", "select"):
            return self.interactive
        if action == "deselect":
            return self._selected is not None
        return True

    def action_move_cursor(self, d_column: int, d_row: int) -> None:
        """Move the cursor by screen direction (right and down positive)."""
        sign = -1 if self.flipped else 1
        file = min(max(square_file(self.cursor) + sign * d_column, 0), 8)
        rank = min(max(square_rank(self.cursor) - sign * d_row, 0), 9)
        self.cursor = square(file, rank)

    def action_vim_cursor(self, d_column: int, d_row: int) -> None:
        """``h j k l``: an action of their own so that editors can leave them to the screen."""
        self.action_move_cursor(d_column, d_row)

    def action_select(self) -> None:
        """Enter: like space, but left to the screen by editors (it accepts there)."""
        self.action_activate()

    def action_activate(self) -> None:
        """Act on the point under the cursor: select, move, or report the raw point."""
        if not self.interactive:
            self.post_message(self.SquareActivated(self, self.cursor))
            return
        point = self.cursor
        piece = self._pieces.get(point)
        if self._board is None:
            self.app.bell()
        elif self._selected is not None and point in self.legal_targets():
            move = Move(self._selected, point)
            self._selected = None
            self.post_message(self.MoveEntered(self, move))
        elif point == self._selected:
            self._select(None)
        elif piece is not None and piece.color == self._board.turn and any(
                move.from_square == point for move in self._board.legal_moves):
            self._select(point)
        else:
            self.app.bell()
            self.post_message(self.Refused(self, refusal(self._board, self._selected, point)))
        self.refresh_bindings()
        self.refresh()

    def _select(self, point: int | None) -> None:
        """Pick up the piece on ``point`` (None: put it down) and tell the host."""
        self._selected = point
        self.post_message(self.SelectionChanged(self, point))

    def action_deselect(self) -> None:
        if self._selected is not None:
            self._select(None)
        self.refresh_bindings()
        self.refresh()

    def action_flip(self) -> None:
        self.flipped = not self.flipped

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        point = self.square_at(offset.x, offset.y)
        if point is not None:
            self.focus()
            self.cursor = point
            self.action_activate()

    # -- geometry ----------------------------------------------------------------------------

    def _geometry(self) -> _Geometry:
        width, height = self.content_size
        scale = 2
        for candidate in (4, 3):
            if 16 * candidate + 2 <= width and 9 * candidate + 3 <= height:
                scale = candidate
                break
        board_width, board_height = 16 * scale + 2, 9 * scale + 3
        return _Geometry(scale, max((width - board_width) // 2, 0),
                         max((height - board_height) // 2, 0))

    def _display(self, point: int) -> tuple[int, int]:
        """Display column and row (from the top left) of a point."""
        file, rank = square_file(point), square_rank(point)
        return (8 - file, rank) if self.flipped else (file, 9 - rank)

    def point_offset(self, point: int) -> Offset:
        """The content cell where ``point`` is drawn (the left half of its piece)."""
        return Offset(*self._geometry().point_xy(*self._display(point)))

    def square_at(self, x: int, y: int) -> int | None:
        """The point drawn at content cell (x, y), or None if (x, y) is off the board."""
        geometry = self._geometry()
        column = round((x - geometry.left - 0.5) / geometry.file_step)
        row = round((y - geometry.top - 1) / geometry.rank_step)
        if not (0 <= column <= 8 and 0 <= row <= 9):
            return None
        return square(8 - column, row) if self.flipped else square(column, 9 - row)

    # -- drawing -----------------------------------------------------------------------------

    def render(self) -> Text:
        width, height = self.content_size
        canvas = _Canvas(width, height)
        geometry = self._geometry()
        self._draw_lines(canvas, geometry)
        self._draw_river(canvas, geometry)
        self._draw_labels(canvas, geometry)
        self._draw_points(canvas, geometry)
        return canvas.to_text()

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"board-view--{name}", partial=True)

    def _screen_lines(self, point: int) -> tuple[bool, bool, bool, bool]:
        """Whether lines leave ``point`` upwards, downwards, leftwards and rightwards on screen."""
        file, rank = square_file(point), square_rank(point)
        north, south = _has_line(file, rank, 0, 1), _has_line(file, rank, 0, -1)
        west, east = _has_line(file, rank, -1, 0), _has_line(file, rank, 1, 0)
        if self.flipped:
            return south, north, east, west
        return north, south, west, east

    def _draw_lines(self, canvas: _Canvas, geometry: _Geometry) -> None:
        line = self._style("line")
        for point in range(90):
            up, down, left, right = self._screen_lines(point)
            x, y = geometry.point_xy(*self._display(point))
            if right:
                canvas.put(x + 1, y, "─" * (geometry.file_step - 1), line)
            if down:
                for step in range(1, geometry.rank_step):
                    canvas.put(x, y + step, "│", line)
        for (file_a, rank_a), (file_b, rank_b) in _PALACE_DIAGONALS:
            xa, ya = geometry.point_xy(*self._display(square(file_a, rank_a)))
            xb, yb = geometry.point_xy(*self._display(square(file_b, rank_b)))
            if ya > yb:
                (xa, ya), (xb, yb) = (xb, yb), (xa, ya)
            glyph = "╲" if xb > xa else "╱"
            for step in range(1, geometry.rank_step):
                canvas.put(xa + round(step * (xb - xa) / geometry.rank_step), ya + step, glyph,
                           line)

    def _draw_river(self, canvas: _Canvas, geometry: _Geometry) -> None:
        gap = " " * (2 * geometry.scale - 3)
        _, river_top = geometry.point_xy(0, 4)
        y = river_top + geometry.rank_step // 2
        for words, (from_column, to_column) in ((f"楚{gap}河", (0, 4)), (f"汉{gap}界", (4, 8))):
            x_from, _ = geometry.point_xy(from_column, 0)
            x_to, _ = geometry.point_xy(to_column, 0)
            x = (x_from + x_to + 1 - display_width(words)) // 2
            canvas.put(x, y, words, self._style("river"))

    def _draw_labels(self, canvas: _Canvas, geometry: _Geometry) -> None:
        label = self._style("label")
        _, bottom = geometry.point_xy(0, 9)
        for column in range(9):
            file = 8 - column if self.flipped else column
            x, _ = geometry.point_xy(column, 0)
            red, black = _RED_FILE_LABELS[file], _BLACK_FILE_LABELS[file]
            canvas.put(x, geometry.top, red if self.flipped else black, label)
            canvas.put(x, bottom + 1, black if self.flipped else red, label)

    def _draw_points(self, canvas: _Canvas, geometry: _Geometry) -> None:
        board = self._board
        targets = self.legal_targets()
        checked_king = (board.king(board.turn) if board is not None and board.is_check()
                        else None)
        last = (() if self._last_move is None
                else (self._last_move.from_square, self._last_move.to_square))
        for point in range(90):
            x, y = geometry.point_xy(*self._display(point))
            piece = self._pieces.get(point)
            if piece is not None:
                canvas.put(x, y, piece_glyph(piece),
                           self._style("red" if piece.color == RED else "black"))
            elif point in targets:
                canvas.put(x, y, _EMPTY_TARGET_GLYPH, self._style("target"))
            else:
                up, down, left, right = self._screen_lines(point)
                canvas.put(x, y, _JUNCTIONS[up, down, left, right] + ("─" if right else " "),
                           self._style("line"))
            overlays = []
            if point in self._marks:
                name = self._marks[point]
                overlays.append(self._style(f"mark-{name}") if name in MARK_STYLES
                                else Style.parse(name))
            if point in last:
                overlays.append(self._style("last-move"))
            if point in targets:
                overlays.append(self._style("target"))
            if point == self._selected:
                overlays.append(self._style("selected"))
            if point == self.cursor:
                overlays.append(self._style("cursor"))
            if point == checked_king:     # over the cursor, which still underlines it
                overlays.append(self._style("check"))
            for overlay in overlays:
                # A piece keeps its side's colour: only background and underline apply.
                canvas.style_cells(x, y, 2, Style(bgcolor=overlay.bgcolor,
                                                  underline=overlay.underline) if piece
                                   else overlay)
