"""``SetupScreen``: the set-up editor, keyboard first.

Move the cursor with the arrows and type a piece letter to put it there: Red upper case
``K A B N R C P``, Black lower case, ``H``/``E`` read as horse/elephant (WXF letters).  The last
piece typed (or clicked in the palette) is the *pen*: space or a click puts it on a point, or
takes it off if it is already there.  ``x``/Delete removes, ``ctrl+l`` clears the board but
keeps both kings where they stand, ``s`` sets the start position, ``m`` mirrors left-right,
``w`` swaps the colours (ranks mirrored, colours and side to move exchanged), ``t`` changes
the side to move.  The position is checked by the rules engine after every change and its
complaint is shown under the board's FEN.  Enter (only for a legal position) dismisses the
screen with the :class:`xiangqi.Board`; Escape dismisses it with None.
"""
from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Header, Static

from xiangqi import BLACK, KING, RED, Board, FenError, Piece, square, square_file, square_rank
from xiangqi.fen import STARTING_FEN, placement_fen
from xiangqi.pieces import mirror_square

from ..widgets.board import BoardView
from ..widgets.footer import FittingFooter
from ..widgets.piece_palette import PiecePalette
from ..widgets.status_line import SIDE_NAMES, describe_position
from .studio_screen import StudioScreen

RED_LETTERS = "KABNRCPHE"

_HINT = ("Type K A B N R C P (or H, E) for Red, lower case for Black. Space or a click puts "
         "the pen piece on the cursor point. Enter opens the position, Escape cancels.")


class SetupScreen(StudioScreen[Board | None]):
    """Place pieces on an empty or given board and check the position as it changes."""

    SUB_TITLE = "Set up a position"
    AUTO_FOCUS = "#setup-board"

    BINDINGS = [
        *(Binding(letter, f"place('{letter}')", "Place a Red piece", show=False)
          for letter in RED_LETTERS),
        *(Binding(letter.lower(), f"place('{letter.lower()}')", "Place a Black piece",
                  show=False) for letter in RED_LETTERS),
        Binding("enter", "accept", "Accept"),
        Binding("escape", "cancel", "Cancel"),
        Binding("x,delete,backspace", "remove", "Remove"),
        Binding("ctrl+l", "clear", "Clear"),
        Binding("s", "start_position", "Start"),
        Binding("m", "mirror", "Mirror"),
        Binding("w", "swap_colours", "Swap colours"),
        Binding("t", "toggle_turn", "Side to move"),
    ]

    def __init__(self, board: Board | None = None) -> None:
        super().__init__()
        board = Board() if board is None else board
        self._pieces: dict[int, Piece] = board.piece_map()
        self._turn = board.turn

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="setup-body"):
            yield BoardView(interactive=False, id="setup-board")
            with Vertical(id="setup-side"):
                yield PiecePalette(id="palette")
                yield Static(id="setup-turn", markup=False)
                yield Static(id="setup-validation", markup=False)
                yield Static(id="setup-fen", markup=False)
                yield Static(_HINT, id="setup-hint", markup=False)
        yield FittingFooter()

    def on_mount(self) -> None:
        self._show()

    # -- the position ------------------------------------------------------------------------

    @property
    def pieces(self) -> dict[int, Piece]:
        """The pieces placed, by point."""
        return dict(self._pieces)

    @property
    def turn(self) -> int:
        return self._turn

    def fen(self) -> str:
        """The FEN of the placement and side to move, legal or not."""
        codes = [0] * 90
        for point, piece in self._pieces.items():
            codes[point] = piece.code
        return f"{placement_fen(codes)} {'w' if self._turn == RED else 'b'} - - 0 1"

    def validate(self) -> tuple[Board | None, str]:
        """The position as a Board and a description, or None and what is wrong with it."""
        try:
            board = Board(self.fen())
        except FenError as error:
            return None, str(error)
        return board, describe_position(board)

    def _show(self) -> None:
        self.query_one("#setup-board", BoardView).set_placement(self._pieces)
        self.query_one("#setup-turn", Static).update(f"Side to move: {SIDE_NAMES[self._turn]}")
        board, message = self.validate()
        validation = self.query_one("#setup-validation", Static)
        validation.update(Text(f"✓ Legal: {message}" if board else f"✗ {message}"))
        validation.set_class(board is None, "-invalid")
        self.query_one("#setup-fen", Static).update(self.fen())

    def _cursor(self) -> int:
        return self.query_one("#setup-board", BoardView).cursor

    # -- editing -----------------------------------------------------------------------------

    def action_place(self, letter: str) -> None:
        """Put the piece named ``letter`` on the cursor point; it becomes the pen."""
        piece = Piece.from_symbol(letter)
        self.query_one("#palette", PiecePalette).pen = piece
        self._pieces[self._cursor()] = piece
        self._show()

    def action_remove(self) -> None:
        if self._pieces.pop(self._cursor(), None) is None:
            self.app.bell()
        self._show()

    @on(BoardView.SquareActivated, "#setup-board")
    def toggle_pen_piece(self, event: BoardView.SquareActivated) -> None:
        """Space or a click: put the pen piece there, or take it away if it is there."""
        pen = self.query_one("#palette", PiecePalette).pen
        if pen is None:
            self.notify("Type a piece letter or click a piece in the palette first.",
                        severity="warning", timeout=3)
            return
        if self._pieces.get(event.square) == pen:
            del self._pieces[event.square]
        else:
            self._pieces[event.square] = pen
        self._show()

    @on(PiecePalette.PiecePicked)
    def focus_board(self) -> None:
        self.query_one("#setup-board", BoardView).focus()

    def action_clear(self) -> None:
        """Remove every piece but the kings (a position always needs both)."""
        self._pieces = {point: piece for point, piece in self._pieces.items()
                        if piece.piece_type == KING}
        self._show()

    def action_start_position(self) -> None:
        start = Board(STARTING_FEN)
        self._pieces, self._turn = start.piece_map(), start.turn
        self._show()

    def action_mirror(self) -> None:
        """Reflect the position left-right."""
        self._pieces = {mirror_square(point): piece for point, piece in self._pieces.items()}
        self._show()

    def action_swap_colours(self) -> None:
        """Mirror the ranks and exchange the colours and the side to move: the same problem
        with Black and Red swapped."""
        self._pieces = {
            square(square_file(point), 9 - square_rank(point)):
                Piece(piece.piece_type, BLACK if piece.color == RED else RED)
            for point, piece in self._pieces.items()}
        self._turn ^= 1
        self._show()

    def action_toggle_turn(self) -> None:
        self._turn ^= 1
        self._show()

    def action_flip_board(self) -> None:
        self.query_one("#setup-board", BoardView).action_flip()

    def action_accept(self) -> None:
        board, message = self.validate()
        if board is None:
            self.app.bell()
            self.notify(message, title="Not a legal position", severity="error", markup=False)
            return
        self.dismiss(board)

    def action_cancel(self) -> None:
        self.dismiss(None)
