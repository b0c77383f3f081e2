"""Reading, writing and validating Xiangqi FEN.

``rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1``: ranks from
rank 9 (Black's back rank) down to rank 0, files a..i inside a rank.  Red is upper case.
On input ``r`` is read as Red to move, ``H``/``E`` as horse/elephant, and missing fields
3..6 as ``- - 0 1``.

>>> parse_fen("3k5/9/9/9/9/9/9/9/9/4K4 b").turn
1
>>> parse_fen("3k5/9/9/9/9/9/9/9/9/4X4 w - - 0 1")
Traceback (most recent call last):
...
xiangqi.fen.FenError: unknown piece letter 'X' at e0 (FEN rank 10, character 2)
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .pieces import (
    BLACK,
    COLOR_NAMES,
    KING,
    MAX_PIECE_COUNT,
    PIECE_TYPE_NAMES,
    RED,
    Piece,
    legal_points,
    square,
    square_file,
    square_name,
)

# The largest halfmove clock and move number a FEN may give; the engine holds them in 32 bits
# and its halfmove clock stops counting here, so every FEN it writes reads back.
CLOCK_LIMIT = 100_000

STARTING_FEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"

_PLACE_NAMES = {
    1: "palace", 2: "advisor points of its palace", 3: "seven elephant points of its side",
    7: "points a pawn of its side can reach",
}


class FenError(ValueError):
    """A FEN that cannot describe a legal Xiangqi position; the message says what and where."""


@dataclass(frozen=True)
class ParsedFen:
    placement: tuple[int, ...]   # 90 piece codes, a0 first (0 = empty)
    turn: int
    halfmove_clock: int
    fullmove_number: int


def parse_placement(text: str) -> list[int]:
    """The 90 piece codes of a FEN placement field; checks its shape and letters only."""
    ranks = text.split("/")
    if len(ranks) != 10:
        raise FenError(f"expected 10 ranks separated by '/', found {len(ranks)} in {text!r}")
    codes = [0] * 90
    for fen_rank, row in enumerate(ranks, start=1):
        rank = 10 - fen_rank
        file = 0
        for column, char in enumerate(row, start=1):
            where = f"(FEN rank {fen_rank}, character {column})"
            if char.isdigit() and char.isascii():
                if char == "0":
                    raise FenError(f"empty-point count 0 on rank {rank} {where}")
                file += int(char)
                if file > 9:
                    raise FenError(f"rank {rank} has more than 9 files {where}")
                continue
            if file >= 9:
                raise FenError(f"rank {rank} has more than 9 files {where}")
            try:
                piece = Piece.from_symbol(char)
            except ValueError:
                raise FenError(
                    f"unknown piece letter {char!r} at {square_name(square(file, rank))} {where}"
                ) from None
            codes[square(file, rank)] = piece.code
            file += 1
        if file != 9:
            raise FenError(
                f"rank {rank} has {file} files, expected 9 (FEN rank {fen_rank}: {row!r})")
    return codes


def validate_placement(codes: list[int] | tuple[int, ...]) -> None:
    """Raise :class:`FenError` unless every piece may stand where it is, with legal counts.

    Checks: at most 1 king, 2 advisors, 2 elephants, 2 horses, 2 rooks, 2 cannons and 5 pawns
    per side; each side has its king; kings and advisors in their palace; elephants on their
    seven points; pawns on points they can reach.
    """
    counts: dict[tuple[int, int], int] = {}
    for sq, code in enumerate(codes):
        if not code:
            continue
        piece = Piece.from_code(code)
        if sq not in legal_points(piece):
            raise FenError(
                f"{COLOR_NAMES[piece.color]} {PIECE_TYPE_NAMES[piece.piece_type].lower()} on "
                f"{square_name(sq)} is outside the {_PLACE_NAMES[piece.piece_type]}"
            )
        key = (piece.color, piece.piece_type)
        counts[key] = counts.get(key, 0) + 1
        if counts[key] > MAX_PIECE_COUNT[piece.piece_type]:
            raise FenError(
                f"too many {COLOR_NAMES[piece.color]} "
                f"{PIECE_TYPE_NAMES[piece.piece_type].lower()}s: the one on {square_name(sq)} "
                f"exceeds the limit of {MAX_PIECE_COUNT[piece.piece_type]}"
            )
    for color in (RED, BLACK):
        if (color, KING) not in counts:
            raise FenError(f"{COLOR_NAMES[color]} has no king")


def kings_facing(codes: Sequence[int]) -> bool:
    """True if the two kings stand on one file with no piece between them."""
    red = codes.index(KING)
    black = codes.index(KING | 8)
    if square_file(red) != square_file(black):
        return False
    return all(codes[sq] == 0 for sq in range(red + 9, black, 9))


def parse_fen(text: str) -> ParsedFen:
    """Parse and validate the placement, side and clocks of a FEN (not the check rule)."""
    if not isinstance(text, str):
        raise FenError(f"FEN must be a string, not {type(text).__name__}")
    fields = text.split()
    if not fields:
        raise FenError("empty FEN")
    if len(fields) > 6:
        raise FenError(f"too many fields: {len(fields)} (at most 6), extra {fields[6]!r}")
    codes = parse_placement(fields[0])
    validate_placement(codes)
    turn = RED
    if len(fields) > 1:
        side = fields[1].lower()
        if side in ("w", "r"):
            turn = RED
        elif side == "b":
            turn = BLACK
        else:
            raise FenError(f"side to move must be 'w' (or 'r') or 'b', not {fields[1]!r} (field 2)")
    for number in (2, 3):
        if len(fields) > number and fields[number] != "-":
            raise FenError(f"field {number + 1} must be '-', not {fields[number]!r}")
    halfmove, fullmove = 0, 1
    if len(fields) > 4:
        halfmove = _clock(fields[4], "halfmove clock (field 5)", 0)
    if len(fields) > 5:
        fullmove = _clock(fields[5], "move number (field 6)", 1)
    if kings_facing(codes):
        red, black = codes.index(KING), codes.index(KING | 8)
        raise FenError(f"the kings on {square_name(red)} and {square_name(black)} face each other "
                       "on an open file")
    return ParsedFen(tuple(codes), turn, halfmove, fullmove)


def _clock(text: str, name: str, minimum: int) -> int:
    if not (text.isascii() and text.isdigit()):
        raise FenError(f"{name} must be a whole number, not {text!r}")
    digits = text.lstrip("0") or "0"     # leading zeros do not make a number large
    if len(digits) > 12:  # (int() refuses strings of over 4300 digits with a plain ValueError)
        raise FenError(f"{name} is implausibly large: {digits[:12]}... ({len(digits)} digits)")
    value = int(digits)
    if value < minimum:
        raise FenError(f"{name} must be at least {minimum}, not {value}")
    if value > CLOCK_LIMIT:
        raise FenError(f"{name} is implausibly large: {value} (at most {CLOCK_LIMIT:,})")
    return value


def placement_fen(codes: list[int] | tuple[int, ...] | bytes) -> str:
    """The FEN placement field of 90 piece codes."""
    rows = []
    for rank in range(9, -1, -1):
        row, empty = [], 0
        for file in range(9):
            code = codes[square(file, rank)]
            if not code:
                empty += 1
                continue
            if empty:
                row.append(str(empty))
                empty = 0
            row.append(Piece.from_code(code).symbol())
        if empty:
            row.append(str(empty))
        rows.append("".join(row))
    return "/".join(rows)


__all__ = ["STARTING_FEN", "FenError", "ParsedFen", "parse_fen", "parse_placement",
           "validate_placement", "kings_facing", "placement_fen"]
