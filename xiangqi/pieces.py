"""Colours, piece types, pieces and points of the board.

Points are numbered 0..89 as ``rank * 9 + file``; files ``a``..``i`` run from Red's left,
ranks 0..9 from Red's side, so Red's king starts on ``e0`` (4) and Black's on ``e9`` (85).

>>> square_name(4), parse_square("e9")
('e0', 85)
>>> Piece.from_symbol("n")
Piece(HORSE, BLACK)
>>> Piece.from_symbol("n").chinese()
'马'
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Final

Color = int
RED: Final[Color] = 0
BLACK: Final[Color] = 1
COLORS: Final = (RED, BLACK)
COLOR_NAMES: Final = ("Red", "Black")

PieceType = int
KING: Final[PieceType] = 1
ADVISOR: Final[PieceType] = 2
ELEPHANT: Final[PieceType] = 3
HORSE: Final[PieceType] = 4
ROOK: Final[PieceType] = 5
CANNON: Final[PieceType] = 6
PAWN: Final[PieceType] = 7
PIECE_TYPES: Final = (KING, ADVISOR, ELEPHANT, HORSE, ROOK, CANNON, PAWN)
PIECE_TYPE_NAMES: Final = ("", "KING", "ADVISOR", "ELEPHANT", "HORSE", "ROOK", "CANNON", "PAWN")
PIECE_SYMBOLS: Final = "_kabnrcp"
# Letters read as synonyms on input: H for horse, E for elephant.
SYMBOL_ALIASES: Final = {"h": HORSE, "e": ELEPHANT}
MAX_PIECE_COUNT: Final = {KING: 1, ADVISOR: 2, ELEPHANT: 2, HORSE: 2, ROOK: 2, CANNON: 2, PAWN: 5}

# Simplified characters written; traditional ones are read too (see CHINESE_PIECE_ALIASES).
CHINESE_PIECES: Final = {
    RED: {KING: "帅", ADVISOR: "仕", ELEPHANT: "相", HORSE: "马",
          ROOK: "车", CANNON: "炮", PAWN: "兵"},
    BLACK: {KING: "将", ADVISOR: "士", ELEPHANT: "象", HORSE: "马",
            ROOK: "车", CANNON: "炮", PAWN: "卒"},
}
CHINESE_PIECE_ALIASES: Final = {
    "帅": KING, "帥": KING, "将": KING, "將": KING,
    "仕": ADVISOR, "士": ADVISOR,
    "相": ELEPHANT, "象": ELEPHANT,
    "马": HORSE, "馬": HORSE, "傌": HORSE, "碼": HORSE,
    "车": ROOK, "車": ROOK, "俥": ROOK, "伡": ROOK,
    "炮": CANNON, "砲": CANNON, "包": CANNON,
    "兵": PAWN, "卒": PAWN,
}

FILE_NAMES: Final = "abcdefghi"
SQUARES: Final = range(90)
SQUARE_NAMES: Final = tuple(f + str(r) for r in range(10) for f in FILE_NAMES)


def square(file: int, rank: int) -> int:
    """The point on ``file`` (0..8, a..i) and ``rank`` (0..9)."""
    return rank * 9 + file


def square_file(sq: int) -> int:
    return sq % 9


def square_rank(sq: int) -> int:
    return sq // 9


def square_name(sq: int) -> str:
    return SQUARE_NAMES[sq]


def parse_square(name: str) -> int:
    """Parse a point name such as ``e0``; raises ``ValueError`` for anything else."""
    try:
        return SQUARE_NAMES.index(name.strip().lower())
    except ValueError:
        raise ValueError(f"not a point name: {name!r} (files a-i, ranks 0-9, e.g. 'e0')") from None


def mirror_square(sq: int) -> int:
    """The point reflected left-right (file a <-> i)."""
    return sq - sq % 9 + 8 - sq % 9


def flip_square(sq: int) -> int:
    """The point seen from the other side (rank r <-> 9 - r, file f <-> 8 - f)."""
    return 89 - sq


@dataclass(frozen=True, slots=True)
class Piece:
    piece_type: PieceType
    color: Color

    @property
    def code(self) -> int:
        """The engine's piece code: type, plus 8 for Black."""
        return self.piece_type | (8 if self.color == BLACK else 0)

    @classmethod
    def from_code(cls, code: int) -> Piece:
        return cls(code & 7, BLACK if code & 8 else RED)

    @classmethod
    def from_symbol(cls, symbol: str) -> Piece:
        """``K``, ``n``, ... (Red upper case); ``H`` and ``E`` are read as horse and elephant."""
        lower = symbol.lower()
        if len(symbol) != 1 or not symbol.isascii() or not symbol.isalpha():
            raise ValueError(f"not a piece letter: {symbol!r}")
        if lower in SYMBOL_ALIASES:
            piece_type = SYMBOL_ALIASES[lower]
        elif lower in PIECE_SYMBOLS[1:]:
            piece_type = PIECE_SYMBOLS.index(lower)
        else:
            raise ValueError(f"not a piece letter: {symbol!r} (use K A B N R C P, or H/E)")
        return cls(piece_type, RED if symbol.isupper() else BLACK)

    def symbol(self) -> str:
        letter = PIECE_SYMBOLS[self.piece_type]
        return letter.upper() if self.color == RED else letter

    def chinese(self) -> str:
        return CHINESE_PIECES[self.color][self.piece_type]

    def __repr__(self) -> str:
        return f"Piece({PIECE_TYPE_NAMES[self.piece_type]}, {COLOR_NAMES[self.color].upper()})"

    def __str__(self) -> str:
        return self.symbol()


def _points(names: str) -> frozenset[int]:
    return frozenset(parse_square(n) for n in names.split())


PALACE: Final = {RED: _points("d0 e0 f0 d1 e1 f1 d2 e2 f2"),
                 BLACK: _points("d7 e7 f7 d8 e8 f8 d9 e9 f9")}
ADVISOR_POINTS: Final = {RED: _points("d0 f0 e1 d2 f2"), BLACK: _points("d9 f9 e8 d7 f7")}
ELEPHANT_POINTS: Final = {RED: _points("c0 g0 a2 e2 i2 c4 g4"),
                          BLACK: _points("c9 g9 a7 e7 i7 c5 g5")}
PAWN_POINTS: Final = {
    RED: frozenset(square(f, r) for r in range(3, 10) for f in range(9) if r >= 5 or f % 2 == 0),
    BLACK: frozenset(square(f, r) for r in range(0, 7) for f in range(9) if r <= 4 or f % 2 == 0),
}


def legal_points(piece: Piece) -> frozenset[int]:
    """The points ``piece`` can ever stand on.

    >>> len(legal_points(Piece(PAWN, RED))), len(legal_points(Piece(ELEPHANT, BLACK)))
    (55, 7)
    """
    if piece.piece_type == KING:
        return PALACE[piece.color]
    if piece.piece_type == ADVISOR:
        return ADVISOR_POINTS[piece.color]
    if piece.piece_type == ELEPHANT:
        return ELEPHANT_POINTS[piece.color]
    if piece.piece_type == PAWN:
        return PAWN_POINTS[piece.color]
    return frozenset(SQUARES)
