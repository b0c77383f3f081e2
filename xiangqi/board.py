"""The Board: a position with its move history, in the style of python-chess.

>>> board = Board()
>>> len(board.legal_moves)
44
>>> board.push(Move.from_iccs("h2e2"))
>>> board.fen()
'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1'
>>> board.pop()
Move.from_iccs('h2e2')
>>> Board("3k5/2R6/9/9/9/9/9/9/9/4K4 b").outcome()
Outcome(termination=<Termination.STALEMATE: '困毙'>, winner=0)
"""
from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from ._core import BaseBoard, IllegalMoveError, InvalidMoveError, Move
from .fen import CLOCK_LIMIT, STARTING_FEN, FenError, kings_facing, parse_fen, placement_fen
from .pieces import BLACK, COLOR_NAMES, KING, RED, Color, Piece, mirror_square, square_name

_BLACK_DIAGRAM = {4: "馬", 5: "車", 6: "砲"}


class Termination(enum.Enum):
    """Why a game ended."""
    CHECKMATE = "将死"   # no legal move while in check
    STALEMATE = "困毙"   # no legal move, not in check: also a loss in Xiangqi


@dataclass(frozen=True)
class Outcome:
    termination: Termination
    winner: Color | None

    def result(self) -> str:
        """``1-0`` if Red won, ``0-1`` if Black won, ``1/2-1/2`` for a draw."""
        if self.winner is None:
            return "1/2-1/2"
        return "1-0" if self.winner == RED else "0-1"


class Board(BaseBoard):
    """A Xiangqi position, its side to move, clocks and the moves played from it."""

    def __init__(self, fen: str | None = STARTING_FEN) -> None:
        if fen is None:
            self._clear()
        else:
            self.set_fen(fen)

    @classmethod
    def empty(cls) -> Board:
        """A board with no pieces (not a legal position until both kings are placed)."""
        return cls(None)

    @classmethod
    def from_codes(cls, codes: bytes | Sequence[int], turn: int = RED, halfmove_clock: int = 0,
                   fullmove_number: int = 1) -> Board:
        """A board from 90 piece codes, square 0 (a0) first, 0 for an empty point (what
        :meth:`codes` gives).  For codes from a trusted source (a table index, a position
        already checked): unlike a FEN they are not checked for a legal position.

        >>> board = Board("3k5/9/9/9/9/9/9/9/9/R3K4 w")
        >>> Board.from_codes(board.codes(), board.turn).fen() == board.fen()
        True
        """
        board = cls(None)
        board._load(codes, turn, halfmove_clock, fullmove_number)
        return board

    def codes(self) -> bytes:
        """The 90 piece codes, square 0 (a0) first, 0 for an empty point (the code of a piece
        is :attr:`Piece.code`); :meth:`from_codes` reads them back."""
        return self._codes()

    # -- FEN ---------------------------------------------------------------------------------

    def set_fen(self, fen: str) -> None:
        """Set the position from ``fen``; raises :class:`FenError` for an illegal position."""
        parsed = parse_fen(fen)
        self._load(parsed.placement, parsed.turn, parsed.halfmove_clock, parsed.fullmove_number)
        other = parsed.turn ^ 1
        if self._king_attacked(other):
            raise FenError(f"{COLOR_NAMES[other]} is in check but {COLOR_NAMES[parsed.turn]} "
                           "is to move")

    def _load(self, codes: bytes | Sequence[int], turn: int, halfmove: int, fullmove: int) -> None:
        self._clear()
        for sq, code in enumerate(codes):
            if code:
                self._set_code(sq, code)
        self.turn_code = turn
        self.halfmove_clock = halfmove
        self.fullmove_number = fullmove
        self._rebuild()

    def board_fen(self) -> str:
        """The placement field of the FEN."""
        return placement_fen(self._codes())

    def fen(self) -> str:
        return (f"{self.board_fen()} {'w' if self.turn_code == RED else 'b'} - - "
                f"{self.halfmove_clock} {min(self.fullmove_number, CLOCK_LIMIT)}")

    # -- pieces ------------------------------------------------------------------------------

    @property
    def turn(self) -> Color:
        """The side to move: ``RED`` (0) or ``BLACK`` (1)."""
        return self.turn_code

    def piece_at(self, square: int) -> Piece | None:
        code = self._code_at(square)
        return Piece.from_code(code) if code else None

    def piece_map(self) -> dict[int, Piece]:
        return {sq: Piece.from_code(c) for sq, c in enumerate(self._codes()) if c}

    def king(self, color: Color) -> int | None:
        """The point of ``color``'s king."""
        codes = self._codes()
        code = KING | (8 if color == BLACK else 0)
        return codes.index(code) if code in codes else None

    # -- game state --------------------------------------------------------------------------

    def is_checkmate(self) -> bool:
        return self.is_check() and not self.has_legal_move()

    def is_stalemate(self) -> bool:
        """No legal move and not in check (困毙): a loss for the side to move."""
        return not self.is_check() and not self.has_legal_move()

    def is_game_over(self) -> bool:
        return not self.has_legal_move()

    def outcome(self) -> Outcome | None:
        """The result if the side to move has no legal move (either way it loses), else None."""
        if self.has_legal_move():
            return None
        termination = Termination.CHECKMATE if self.is_check() else Termination.STALEMATE
        return Outcome(termination, self.turn_code ^ 1)

    def is_repetition(self, count: int = 3) -> bool:
        """True if the position has occurred ``count`` times (this one included) since the
        last capture."""
        return self.repetition_count() + 1 >= count

    # -- transformations ---------------------------------------------------------------------

    def copy(self, stack: bool = True) -> Board:
        """A copy of the board, with its move stack unless ``stack`` is false."""
        other = type(self).__new__(type(self))
        self._copy_into(other, stack)
        return other

    def mirror(self) -> Board:
        """The position reflected left-right (file a <-> i), same side to move, no stack."""
        codes = self._codes()
        mirrored = [0] * 90
        for sq, code in enumerate(codes):
            mirrored[mirror_square(sq)] = code
        other = type(self).empty()
        other._load(mirrored, self.turn_code, self.halfmove_clock, self.fullmove_number)
        return other

    def parse_iccs(self, text: str) -> Move:
        """The legal move written ``text`` in ICCS; raises if it is not legal here."""
        move = Move.from_iccs(text)
        if not self.is_legal(move):
            piece = self.piece_at(move.from_square)
            what = f"no piece on {square_name(move.from_square)}" if piece is None else \
                f"{COLOR_NAMES[piece.color]} {piece.chinese()} cannot move there"
            raise IllegalMoveError(f"illegal move {move.iccs()} ({what}) in {self.fen()}")
        return move

    def push_iccs(self, text: str) -> Move:
        move = self.parse_iccs(text)
        self.push_unchecked(move)
        return move

    def kings_facing(self) -> bool:
        return kings_facing(self._codes())

    # -- comparison and display --------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BaseBoard):
            return NotImplemented
        return (self._codes() == other._codes() and self.turn_code == other.turn_code)

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"Board({self.fen()!r})"

    def __str__(self) -> str:
        lines = []
        for rank in range(9, -1, -1):
            row = []
            for file in range(9):
                piece = self.piece_at(rank * 9 + file)
                row.append(piece.symbol() if piece else ".")
            lines.append(f"{rank} " + " ".join(row))
        lines.append("  a b c d e f g h i")
        return "\n".join(lines)

    def unicode(self) -> str:
        """The board drawn with Chinese piece characters, Red's side at the bottom.  Black's
        horse, rook and cannon are drawn 馬車砲 (as diagrams do) so the sides stay apart
        without colour."""
        lines = []
        for rank in range(9, -1, -1):
            row = []
            for file in range(9):
                piece = self.piece_at(rank * 9 + file)
                if piece is None:
                    row.append("・")
                elif piece.color == BLACK:
                    row.append(_BLACK_DIAGRAM.get(piece.piece_type, piece.chinese()))
                else:
                    row.append(piece.chinese())
            lines.append(f"{rank} " + "".join(row))
        lines.append("  " + "".join(("ａ", "ｂ", "ｃ", "ｄ", "ｅ", "ｆ", "ｇ", "ｈ", "ｉ")))
        return "\n".join(lines)


__all__ = ["Board", "Move", "Outcome", "Termination", "FenError", "IllegalMoveError",
           "InvalidMoveError", "STARTING_FEN"]
