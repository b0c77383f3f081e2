"""The 32 piece slots shared by DhtmlXQ ``binit`` and the XQF header.

Both formats list the pieces in one fixed order, Red's sixteen then Black's sixteen:
车 马 相 仕 帅 仕 相 马 车 炮 炮 兵 兵 兵 兵 兵 (rook, horse, elephant, advisor, king, advisor,
elephant, horse, rook, cannon, cannon, five pawns).  A slot's index gives the piece; what it
holds is a point (or "not on the board").
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from xiangqi import ADVISOR, BLACK, CANNON, ELEPHANT, HORSE, KING, PAWN, RED, ROOK, square_name
from xiangqi.pieces import COLOR_NAMES, PIECE_TYPE_NAMES, Piece, legal_points

SLOT_TYPES = (ROOK, HORSE, ELEPHANT, ADVISOR, KING, ADVISOR, ELEPHANT, HORSE, ROOK,
              CANNON, CANNON, PAWN, PAWN, PAWN, PAWN, PAWN)
SLOT_PIECES = tuple(Piece(t, RED) for t in SLOT_TYPES) + tuple(Piece(t, BLACK) for t in SLOT_TYPES)
# The slots of each piece, in the order they are filled when writing.
_SLOTS_OF = {
    ROOK: (0, 8), HORSE: (1, 7), ELEPHANT: (2, 6), ADVISOR: (3, 5), KING: (4,),
    CANNON: (9, 10), PAWN: (11, 12, 13, 14, 15),
}


def piece_name(piece: Piece) -> str:
    return f"{COLOR_NAMES[piece.color]} {PIECE_TYPE_NAMES[piece.piece_type].lower()}"


def slots_to_codes(points: Sequence[int | None],
                   error: Callable[[int, str], Exception]) -> list[int]:
    """The 90 piece codes of 32 slot points (None: not on the board).

    ``error(slot, message)`` makes the exception raised for a bad slot: two pieces on one
    point, a piece on a point it can never reach, a missing king.
    """
    codes = [0] * 90
    holder: dict[int, int] = {}
    for slot, sq in enumerate(points):
        piece = SLOT_PIECES[slot]
        if sq is None:
            if piece.piece_type == KING:
                raise error(slot, f"the {piece_name(piece)} is not on the board")
            continue
        if sq in holder:
            raise error(slot, f"the {piece_name(piece)} is put on {square_name(sq)}, where the "
                              f"{piece_name(SLOT_PIECES[holder[sq]])} (slot {holder[sq]}) "
                              "already stands")
        if sq not in legal_points(piece):
            raise error(slot, f"the {piece_name(piece)} cannot stand on {square_name(sq)}")
        holder[sq] = slot
        codes[sq] = piece.code
    return codes


def codes_to_slots(codes: Sequence[int], order: Callable[[int, int], tuple[int, int]]
                   ) -> list[int | None]:
    """The 32 slot points of a position; the pieces of one kind fill their slots in the order
    of ``order(square, color)``."""
    points: list[int | None] = [None] * 32
    for color in (RED, BLACK):
        squares = sorted((sq for sq, code in enumerate(codes)
                          if code and Piece.from_code(code).color == color),
                         key=lambda sq: order(sq, color))
        used = {t: 0 for t in _SLOTS_OF}
        for sq in squares:
            piece_type = codes[sq] & 7
            slots = _SLOTS_OF[piece_type]
            if used[piece_type] >= len(slots):
                raise ValueError(f"too many {piece_name(Piece(piece_type, color))}s for the "
                                 "32 slots")
            points[color * 16 + slots[used[piece_type]]] = sq
            used[piece_type] += 1
    return points
