"""Reading and writing moves in four notations, as specified in ``docs/notation.md``.

* ``iccs``: coordinates, ``h2e2``; ``H2-E2`` is read too.
* ``wxf``: ``C2.5``, ``H8+7``, ``R+.3`` (``=`` is read as ``.``, ``B``/``N`` as ``E``/``H``).
* ``chinese`` (四字记谱): ``炮二平五``, ``马8进7``; Red writes 一..九, Black 1..9.
* ``code3`` (一字三码): ``炮253`` -- piece, from-file, to-file, to-rank (rank 10 written 0);
  ``马进25`` when two pieces on one file reach the same point.

Files are numbered 1..9 from the mover's own right, so Red's file 1 is the ``i``-file and
Black's file 1 is the ``a``-file.  A move is written from the position *before* it is played.

>>> from xiangqi import Board
>>> board = Board()
>>> [write_move(board, Move.from_iccs("h2e2"), n) for n in NOTATIONS]
['h2e2', 'C2.5', '炮二平五', '炮253']
>>> parse_move(board, "炮二平五"), parse_move(board, "H2+3"), parse_move(board, "相353")
(Move.from_iccs('h2e2'), Move.from_iccs('h0g2'), Move.from_iccs('g0e2'))
>>> board.push(Move.from_iccs("h2e2"))
>>> write_line(board, [Move.from_iccs("h9g7"), Move.from_iccs("h0g2")], "chinese")
['马8进7', '马二进三']
>>> parse_move(board, "马2进4")
Traceback (most recent call last):
...
xiangqi.notation.NotationError: '马2进4' is not legal: the horse's leg (c9) is blocked

Pawns.  Two on one file are 前兵/后兵 (``P+``/``P-``), three 前兵/中兵/后兵 (``P+``, ``P<file>``,
``P-``).  In Chinese, when more than three stand on one file, or two files each hold more than
one, the pawns on those files are numbered 一二三四五 (for Black too, as xqbase writes 一卒平５),
ordered by file from the mover's right, then front to back (the xqbase rule).  The traditional
spelling that keeps the file, 前兵三进一 or 前三进一, is read as well.  In WXF four or five pawns
on one file are ``++ P+ (P<file>) P- --``, and with two such files the file digit replaces
``P``: ``3+``, ``33``, ``3-``.

Reading is lenient where that cannot mislead: a plain file (``车二进一``, ``R2+1``) is accepted for
one of two pieces on that file when only one of them can make the move, advisors and elephants
may be named 前/后, traditional characters, full-width digits and 上/下 (for 进/退) are read, and
Red's and Black's numerals are read for either side.  Every text that is not a legal move raises
:class:`NotationError`, whose message says what is wrong.
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from enum import StrEnum
from typing import Final

from ._core import IllegalMoveError, InvalidMoveError, Move
from .board import Board
from .pieces import (
    ADVISOR,
    BLACK,
    CANNON,
    CHINESE_PIECE_ALIASES,
    CHINESE_PIECES,
    COLOR_NAMES,
    ELEPHANT,
    FILE_NAMES,
    HORSE,
    KING,
    PALACE,
    PAWN,
    RED,
    ROOK,
    Color,
    Piece,
    PieceType,
    square,
    square_name,
)


class Notation(StrEnum):
    """The move notations: a member equals its name as a string (``Notation.WXF == "wxf"``)."""
    ICCS = "iccs"          # h2e2
    WXF = "wxf"            # C2.5
    CHINESE = "chinese"    # 炮二平五
    CODE3 = "code3"        # 炮253 (一字三码)


NOTATIONS: Final = tuple(str(n) for n in Notation)   # ("iccs", "wxf", "chinese", "code3")

# Kinds of NotationError.
SYNTAX: Final = "syntax"          # the text is not written in the notation at all
NO_PIECE: Final = "no-piece"      # it names no piece of the side to move
AMBIGUOUS: Final = "ambiguous"    # it fits more than one legal move
ILLEGAL: Final = "illegal"        # it names a piece, but no legal move fits

WXF_LETTERS: Final[dict[PieceType, str]] = {
    KING: "K", ADVISOR: "A", ELEPHANT: "E", HORSE: "H", ROOK: "R", CANNON: "C", PAWN: "P",
}
_LETTER_TYPES: Final[dict[str, PieceType]] = {letter: t for t, letter in WXF_LETTERS.items()}
_PIECE_NAMES: Final[dict[PieceType, str]] = {
    KING: "king", ADVISOR: "advisor", ELEPHANT: "elephant", HORSE: "horse", ROOK: "rook",
    CANNON: "cannon", PAWN: "pawn",
}
# Pieces whose 进/退 (+/-) count steps; the others (horse, advisor, elephant) name a file.
_STEPPING: Final = frozenset({ROOK, CANNON, KING, PAWN})

RED_NUMERALS: Final = "一二三四五六七八九"
BLACK_NUMERALS: Final = "123456789"
ORDINALS: Final = "一二三四五"           # numbering of pawns on multi-pawn files, both sides
_CHINESE_OPS: Final = {"+": "进", ".": "平", "-": "退"}
_LABELS: Final = "前中后"

# WXF labels of the pawns on the only multi-pawn file, front to rear; None is ``P<file>``.
_WXF_PAWN_LABELS: Final[dict[int, tuple[str | None, ...]]] = {
    2: ("P+", "P-"),
    3: ("P+", None, "P-"),
    4: ("++", "P+", "P-", "--"),
    5: ("++", "P+", None, "P-", "--"),
}
# Chinese labels of pawns on multi-pawn files by how many there are in all (xqbase rule).
_CHINESE_PAWN_LABELS: Final[dict[int, str]] = {2: "前后", 3: "前中后", 4: "1234", 5: "12345"}
# Front/middle/rear of the pawns on one file (the traditional, per-file labels).
_FILE_LABELS: Final[dict[int, str]] = {2: "前后", 3: "前中后"}

_EXAMPLES: Final[dict[str, str]] = {
    "iccs": "'h2e2' or 'H2-E2'",
    "wxf": "'C2.5', 'H8+7', 'R+.3' or 'P+.4'",
    "chinese": "'炮二平五', '马8进7', '前车进一' or '前兵平四'",
    "code3": "'马325', '将451', '车220' or '马进25'",
}


class NotationError(InvalidMoveError, IllegalMoveError):
    """Text that is not a legal move in the position, in the notation it was read in.

    ``kind`` is ``"syntax"`` (not the notation at all), ``"no-piece"`` (it names no piece of
    the side to move), ``"ambiguous"`` (``candidates`` holds the legal moves it fits) or
    ``"illegal"`` (a piece is named, but no legal move fits).  It is a ``ValueError`` and also
    both of the core's :class:`InvalidMoveError` and :class:`IllegalMoveError`, so callers
    catching those catch it too; the parse functions raise nothing else for bad text.
    """

    def __init__(self, message: str, kind: str = SYNTAX, candidates: Iterable[Move] = ()) -> None:
        super().__init__(message)
        self.kind = kind
        self.candidates: tuple[Move, ...] = tuple(candidates)

    def __reduce__(self) -> tuple[type[NotationError], tuple[str, str, tuple[Move, ...]]]:
        return (type(self), (str(self), self.kind, self.candidates))


# -- geometry seen from the mover ---------------------------------------------------------------

def file_number(file: int, color: Color) -> int:
    """The file ``file`` (0..8 = a..i) numbered 1..9 from ``color``'s own right.

    >>> file_number(7, RED), file_number(7, BLACK)
    (2, 8)
    """
    return 9 - file if color == RED else file + 1


def file_index(number: int, color: Color) -> int:
    """The file (0..8 = a..i) that ``color`` numbers ``number``."""
    return 9 - number if color == RED else number - 1


def rank_number(rank: int, color: Color) -> int:
    """The rank ``rank`` (0..9) counted 1..10 from ``color``'s own back rank (for code3)."""
    return rank + 1 if color == RED else 10 - rank


def _ahead(color: Color, from_square: int, to_square: int) -> int:
    """How many ranks the move goes forward for ``color`` (negative: back)."""
    ranks = to_square // 9 - from_square // 9
    return ranks if color == RED else -ranks


def _suffix(piece_type: PieceType, color: Color, from_square: int, to_square: int) -> str:
    """The last two symbols of a WXF move: ``+``/``-``/``.`` then steps or a file number."""
    ahead = _ahead(color, from_square, to_square)
    to_file = file_number(to_square % 9, color)
    if ahead == 0:
        return f".{to_file}"
    op = "+" if ahead > 0 else "-"
    return f"{op}{abs(ahead)}" if piece_type in _STEPPING else f"{op}{to_file}"


def _destination(piece_type: PieceType, color: Color, from_square: int, suffix: str) -> int | None:
    """The point a ``suffix`` (``+1``, ``.5``) takes a piece to, by shape only; None if none."""
    op, number = suffix[0], int(suffix[1])
    file, rank = from_square % 9, from_square // 9
    if op == ".":
        to_file = file_index(number, color)
        if piece_type not in _STEPPING or to_file == file:
            return None
        return square(to_file, rank)
    forward = (1 if op == "+" else -1) * (1 if color == RED else -1)
    if piece_type in _STEPPING:
        to_rank = rank + forward * number
        return square(file, to_rank) if 0 <= to_rank <= 9 else None
    to_file = file_index(number, color)
    across = abs(to_file - file)
    ranks = {HORSE: {1: 2, 2: 1}, ADVISOR: {1: 1}, ELEPHANT: {2: 2}}[piece_type].get(across)
    if ranks is None or not 0 <= rank + forward * ranks <= 9:
        return None
    return square(to_file, rank + forward * ranks)


def _board_order(sq: int, color: Color) -> tuple[int, int]:
    """Sort key: by file from ``color``'s right, then front to rear."""
    return file_number(sq % 9, color), -rank_number(sq // 9, color)


def _by_file(codes: bytes, color: Color, piece_type: PieceType) -> dict[int, list[int]]:
    """``color``'s pieces of ``piece_type`` grouped by file number, each group front to rear."""
    code = bytes([piece_type | (8 if color == BLACK else 0)])
    groups: dict[int, list[int]] = {}
    sq = codes.find(code)
    while sq >= 0:
        groups.setdefault(file_number(sq % 9, color), []).append(sq)
        sq = codes.find(code, sq + 1)
    if color == RED:                  # squares ascend by rank: Red's front is the highest
        for squares in groups.values():
            squares.reverse()
    return groups


# -- naming the pieces --------------------------------------------------------------------------
# A namer gives every piece of one type its canonical designation and the alternatives that
# are also read.  Designations are normalised: WXF letters for pieces, ASCII digits, 前中后;
# a Chinese ordinal (一兵) is "1P", a traditional file-keeping label (前兵三) is "前P3".

Names = dict[int, tuple[str, tuple[str, ...]]]


def _piece_names(groups: dict[int, list[int]], piece_type: PieceType, front: str,
                 rear: str) -> Names:
    """Designations of pieces other than pawns: the file (``R2``), or front/rear (``R+``,
    ``前R``) for two on one file -- except advisors and elephants, whose move tells them apart;
    the other form is read too."""
    letter = WXF_LETTERS[piece_type]
    names: Names = {}
    for number, squares in groups.items():
        plain = f"{letter}{number}"
        if len(squares) == 1:
            names[squares[0]] = (plain, ())
            continue
        for sq, twin in zip(squares, (front, rear)):
            names[sq] = (plain, (twin,)) if piece_type in (ADVISOR, ELEPHANT) else (twin, (plain,))
    return names


def _wxf_names(codes: bytes, color: Color, piece_type: PieceType) -> Names:
    """WXF designations: ``R2``, ``R+``, ``P+``, ``++``, ``3+``, ``33``, ..."""
    letter = WXF_LETTERS[piece_type]
    groups = _by_file(codes, color, piece_type)
    if piece_type != PAWN:
        return _piece_names(groups, piece_type, f"{letter}+", f"{letter}-")
    names: Names = {}
    multi = sorted(number for number, squares in groups.items() if len(squares) > 1)
    for number, squares in groups.items():
        plain = f"P{number}"
        if len(squares) == 1:
            names[squares[0]] = (plain, ())
        elif len(multi) == 1:
            for sq, label in zip(squares, _WXF_PAWN_LABELS[len(squares)]):
                names[sq] = (label, (plain,)) if label else (plain, ())
        else:                                          # tandem: the file digit replaces P
            marks = ("+", "-") if len(squares) == 2 else ("+", str(number), "-")
            for sq, mark in zip(squares, marks):
                alternatives = (plain, f"P{mark}") if mark in "+-" else (plain,)
                names[sq] = (f"{number}{mark}", alternatives)
    return names


def _chinese_names(codes: bytes, color: Color, piece_type: PieceType) -> Names:
    """Chinese designations, normalised: ``C2`` (炮二), ``前R`` (前车), ``1P`` (一兵), ..."""
    letter = WXF_LETTERS[piece_type]
    groups = _by_file(codes, color, piece_type)
    if piece_type != PAWN:
        return _piece_names(groups, piece_type, f"前{letter}", f"后{letter}")
    names: Names = {}
    multi = sorted(number for number, squares in groups.items() if len(squares) > 1)
    stacked = [sq for number in multi for sq in groups[number]]   # right to left, front to rear
    labels = _CHINESE_PAWN_LABELS.get(len(stacked), "")
    for number, squares in groups.items():
        plain = f"P{number}"
        if len(squares) == 1:
            names[squares[0]] = (plain, ())
            continue
        per_file = _FILE_LABELS.get(len(squares))
        for index, sq in enumerate(squares):
            label = labels[stacked.index(sq)]
            alternatives = [plain]
            if per_file:                               # 前兵三 / 前三, and 前兵 if unique
                alternatives += [f"{per_file[index]}P{number}", f"{per_file[index]}P"]
            elif index in (0, len(squares) - 1):       # four or five: 前 and 后 for the ends
                end = "前" if index == 0 else "后"
                alternatives += [f"{end}P{number}", f"{end}P"]
            names[sq] = (f"{label}P", tuple(a for a in alternatives if a != f"{label}P"))
    return names


_NAMERS: Final[dict[str, Callable[[bytes, Color, PieceType], Names]]] = {
    "wxf": _wxf_names, "chinese": _chinese_names,
}


# -- why a move is not legal --------------------------------------------------------------------

def _between(from_square: int, to_square: int) -> list[int]:
    """The points strictly between two points on one line, nearest ``from_square`` first."""
    step = 9 if from_square % 9 == to_square % 9 else 1
    if to_square < from_square:
        step = -step
    return list(range(from_square + step, to_square, step))


def _shape_broken(piece: Piece, from_square: int, to_square: int) -> str | None:
    """Which movement rule of ``piece`` the move's shape breaks, on an empty board."""
    files = to_square % 9 - from_square % 9
    ranks = to_square // 9 - from_square // 9
    kind, color = piece.piece_type, piece.color
    name = _PIECE_NAMES[kind]
    if kind in (KING, ADVISOR) and to_square not in PALACE[color]:
        return f"the {name} may not leave the palace"
    if kind == KING and abs(files) + abs(ranks) != 1:
        return "the king moves one point along a line"
    if kind == ADVISOR and not abs(files) == abs(ranks) == 1:
        return "the advisor moves one point diagonally"
    if kind == ELEPHANT:
        if not abs(files) == abs(ranks) == 2:
            return "the elephant moves two points diagonally"
        if (to_square // 9 >= 5) if color == RED else (to_square // 9 <= 4):
            return "the elephant may not cross the river"
    if kind == HORSE and sorted((abs(files), abs(ranks))) != [1, 2]:
        return "the horse moves one point along a line, then one diagonally"
    if kind in (ROOK, CANNON) and files and ranks:
        return f"the {name} moves along a line"
    if kind == PAWN:
        ahead = ranks if color == RED else -ranks
        crossed = (from_square // 9 >= 5) if color == RED else (from_square // 9 <= 4)
        if ahead < 0:
            return "a pawn never moves back"
        if abs(files) + abs(ranks) != 1:
            return "a pawn moves one point at a time"
        if files and not crossed:
            return "a pawn moves sideways only after crossing the river"
    return None


def _blocked(codes: bytes, piece: Piece, from_square: int, to_square: int) -> str | None:
    """Which piece in the way stops a move of the right shape (a capture's target aside)."""
    files = to_square % 9 - from_square % 9
    ranks = to_square // 9 - from_square // 9
    kind = piece.piece_type
    if kind == ELEPHANT:
        eye = from_square + files // 2 + 9 * (ranks // 2)
        if codes[eye]:
            return f"the elephant's eye ({square_name(eye)}) is blocked"
    elif kind == HORSE:
        leg = from_square + (files // 2 if abs(files) == 2 else 9 * (ranks // 2))
        if codes[leg]:
            return f"the horse's leg ({square_name(leg)}) is blocked"
    elif kind in (ROOK, CANNON):
        screens = [sq for sq in _between(from_square, to_square) if codes[sq]]
        if kind == CANNON and codes[to_square]:
            if not screens:
                return f"the cannon needs a screen to capture on {square_name(to_square)}"
            if len(screens) > 1:
                return (f"the cannon may jump one piece only, not {len(screens)} "
                        f"({', '.join(square_name(sq) for sq in screens)})")
        elif screens:
            return f"the path is blocked at {square_name(screens[0])}"
    return None


def game_over(board: Board) -> str | None:
    """Why the side to move of ``board`` has lost with no move to make (in words), or None
    if it has a legal move.

    >>> game_over(Board("3k5/3R5/3R5/9/9/9/9/9/9/4K4 b"))
    'Black is checkmated'
    >>> game_over(Board()) is None
    True
    """
    if board.has_legal_move():
        return None
    loser = COLOR_NAMES[board.turn]
    return f"{loser} is checkmated" if board.is_check() else \
        f"{loser} has no legal move (stalemated, 困毙: a loss)"


def _end_word(board: Board) -> str:
    """``mate`` or ``stalemate``: how the game ended in ``board`` (no legal move there)."""
    return "mate" if board.is_check() else "stalemate (困毙)"


def why_illegal(board: Board, move: Move) -> str | None:
    """Why ``move`` is not legal in ``board`` (in words), or None if it is legal.

    >>> why_illegal(Board(), Move.from_iccs("b0c2")) is None
    True
    >>> why_illegal(Board("4k4/9/9/9/9/9/9/9/7r1/3K3N1 w"), Move.from_iccs("h0g2"))
    "the horse's leg (h1) is blocked"
    >>> why_illegal(Board(), Move.from_iccs("b2b7"))
    'the cannon needs a screen to capture on b7'
    """
    if board.is_legal(move):
        return None
    codes = board.codes()
    color = board.turn
    over = game_over(board)
    if over is not None:
        return f"the game is over: {over}"
    frm, to = move.from_square, move.to_square
    if not codes[frm]:
        return f"there is no piece on {square_name(frm)}"
    piece = Piece.from_code(codes[frm])
    if piece.color != color:
        return (f"the {_PIECE_NAMES[piece.piece_type]} on {square_name(frm)} is "
                f"{COLOR_NAMES[piece.color]}'s and {COLOR_NAMES[color]} is to move")
    if frm == to:
        return "a move must leave its point"
    broken = _shape_broken(piece, frm, to)
    if broken:
        return broken
    if codes[to] and Piece.from_code(codes[to]).color == color:
        return f"{square_name(to)} is occupied by a {COLOR_NAMES[color]} piece"
    blocked = _blocked(codes, piece, frm, to)
    if blocked:
        return blocked
    after = board.copy(stack=False)
    after.push_unchecked(move)
    if after.kings_facing():
        return "the two kings would face each other"
    if board.is_check():
        return f"the {COLOR_NAMES[color]} king is in check and this does not parry it"
    return f"it would leave the {COLOR_NAMES[color]} king in check"


# -- shared parsing helpers ---------------------------------------------------------------------

def _clean(text: object) -> str:
    """``text`` in NFKC form (full-width digits and letters become ASCII), without spaces."""
    if not isinstance(text, str):
        raise NotationError(f"a move must be given as a string, not {type(text).__name__}")
    return "".join(unicodedata.normalize("NFKC", text).split())


def _require_legal(board: Board, move: Move) -> Piece:
    """The piece that plays ``move``; raises :class:`NotationError` if it is not legal."""
    if not isinstance(move, Move):
        raise NotationError(f"expected a Move, not {type(move).__name__}", ILLEGAL)
    reason = why_illegal(board, move)
    if reason is not None:
        raise NotationError(f"{move.iccs()} is not legal in {board.fen()}: {reason}", ILLEGAL)
    return Piece.from_code(board._code_at(move.from_square))


def _ambiguous(board: Board, text: str, moves: Sequence[Move], notation: str) -> NotationError:
    spelled = " or ".join(write_move(board, m, notation) for m in moves)
    return NotationError(
        f"{text!r} is ambiguous: it fits {', '.join(m.iccs() for m in moves)}; write {spelled}",
        AMBIGUOUS, moves)


def _not_legal(board: Board, text: str, tries: Sequence[tuple[int, int | None]],
               piece_type: PieceType) -> NotationError:
    """The error for a text naming the pieces on ``tries``, each with the point the text sends
    it to (None if the text describes no move of that piece's shape), none of them legal."""
    shaped = [Move(frm, to) for frm, to in tries if to is not None]
    if not shaped:
        where = ", ".join(square_name(frm) for frm, _ in tries)
        plural = "s" if len(tries) > 1 else ""
        return NotationError(f"{text!r} is not legal: the {_PIECE_NAMES[piece_type]}{plural} on "
                             f"{where} cannot move that way", ILLEGAL)
    reasons = [(move.iccs(), why_illegal(board, move) or "not legal") for move in shaped]
    if len(reasons) == 1:
        detail = reasons[0][1]
    else:
        detail = "; ".join(f"{iccs}: {reason}" for iccs, reason in reasons)
    return NotationError(f"{text!r} is not legal: {detail}", ILLEGAL)


def _pick(board: Board, text: str, notation: str, moves: list[Move]) -> Move | None:
    """The only move of ``moves``; None if there is none; raises if there are several."""
    if len(moves) > 1:
        moves = sorted(moves, key=lambda m: (m.from_square, m.to_square))
        raise _ambiguous(board, text, moves, notation)
    return moves[0] if moves else None


# -- ICCS ---------------------------------------------------------------------------------------

_ICCS_RE: Final = re.compile(r"([a-i])([0-9])-?([a-i])([0-9])")


def move_to_iccs(board: Board, move: Move) -> str:
    """``h2e2``: the lowercase engine form.

    >>> move_to_iccs(Board(), Move.from_iccs("h2e2"))
    'h2e2'
    """
    _require_legal(board, move)
    return move.iccs()


def parse_iccs(board: Board, text: str) -> Move:
    """The legal move written ``h2e2`` or ``H2-E2``.

    >>> parse_iccs(Board(), "H2-E2")
    Move.from_iccs('h2e2')
    >>> parse_iccs(Board(), "a0a3")
    Traceback (most recent call last):
    ...
    xiangqi.notation.NotationError: 'a0a3' is not legal: a3 is occupied by a Red piece
    """
    cleaned = _clean(text)
    if cleaned == "0000":
        raise NotationError("'0000' is the null move, not a move on the board", ILLEGAL)
    match = _ICCS_RE.fullmatch(cleaned.lower())
    if not match:
        raise NotationError(f"not an ICCS move: {text!r} (expected e.g. {_EXAMPLES['iccs']})")
    f1, r1, f2, r2 = match.groups()
    move = Move(square(FILE_NAMES.index(f1), int(r1)), square(FILE_NAMES.index(f2), int(r2)))
    reason = why_illegal(board, move)
    if reason is not None:
        raise NotationError(f"{text!r} is not legal: {reason}", ILLEGAL)
    return move


# -- WXF and Chinese ----------------------------------------------------------------------------

_WXF_RE: Final = re.compile(r"([KAEHRCP1-9+-])([1-9+-])([+.-])([1-9])")

_CHINESE_READ: Final[dict[str, str]] = {
    **{char: WXF_LETTERS[t] for char, t in CHINESE_PIECE_ALIASES.items()},
    **{numeral: str(i) for i, numeral in enumerate(RED_NUMERALS, start=1)},
    **{digit: digit for digit in BLACK_NUMERALS},
    "进": "+", "進": "+", "上": "+", "退": "-", "下": "-", "平": ".",
    "前": "前", "中": "中", "后": "后", "後": "后",
}
# 炮二 / 前车 / 一兵 / 前兵三 / 前三, then 进一.
_CHINESE_RE: Final = re.compile(
    r"(?:(?P<piece>[KAEHRCP])(?P<file>[1-9])"
    r"|(?P<label>[前中后])(?P<lpiece>[KAEHRCP])(?P<lfile>[1-9])?"
    r"|(?P<ordinal>[1-5])(?P<opiece>[KAEHRCP])"
    r"|(?P<plabel>[前中后])(?P<pfile>[1-9]))"
    r"(?P<op>[+.-])(?P<n>[1-9])")


def _wxf_tokens(text: str) -> str:
    tokens = text.upper().replace("=", ".")
    if tokens[:1] in ("B", "N"):
        tokens = {"B": "E", "N": "H"}[tokens[0]] + tokens[1:]
    return tokens


def _read_wxf(text: str) -> tuple[PieceType, str, str] | None:
    """(piece type, designation, suffix) of a WXF text, or None if it is not WXF."""
    match = _WXF_RE.fullmatch(_wxf_tokens(_clean(text)))
    if not match:
        return None
    first, second, op, n = match.groups()
    if first in _LETTER_TYPES:
        return _LETTER_TYPES[first], first + second, op + n
    return PAWN, first + second, op + n              # ++, --, 3+, 33: pawns only


def _read_chinese(text: str) -> tuple[PieceType, str, str] | None:
    """(piece type, normalised designation, suffix) of a Chinese text, or None."""
    cleaned = _clean(text)
    if not cleaned or any(char not in _CHINESE_READ for char in cleaned):
        return None
    match = _CHINESE_RE.fullmatch("".join(_CHINESE_READ[char] for char in cleaned))
    if not match:
        return None
    g = match.groupdict()
    suffix = g["op"] + g["n"]
    if g["piece"]:
        return _LETTER_TYPES[g["piece"]], g["piece"] + g["file"], suffix
    if g["lpiece"]:
        return _LETTER_TYPES[g["lpiece"]], g["label"] + g["lpiece"] + (g["lfile"] or ""), suffix
    if g["opiece"]:
        return _LETTER_TYPES[g["opiece"]], g["ordinal"] + g["opiece"], suffix
    return PAWN, g["plabel"] + "P" + g["pfile"], suffix


def _chinese_numeral(number: int | str, color: Color) -> str:
    return (RED_NUMERALS if color == RED else BLACK_NUMERALS)[int(number) - 1]


def _render_chinese(designation: str, suffix: str, color: Color) -> str:
    """Chinese text of a normalised designation and a suffix: ``C2`` + ``.5`` -> 炮二平五."""
    def char(letter: str) -> str:
        return CHINESE_PIECES[color][_LETTER_TYPES[letter]]

    first, rest = designation[0], designation[1:]
    if first in _LABELS:
        head = first + char(rest[0]) + (_chinese_numeral(rest[1], color) if rest[1:] else "")
    elif first.isdigit():
        head = ORDINALS[int(first) - 1] + char(rest)
    else:
        head = char(first) + _chinese_numeral(rest, color)
    return head + _CHINESE_OPS[suffix[0]] + _chinese_numeral(suffix[1], color)


def _render(notation: str, designation: str, suffix: str, color: Color) -> str:
    if notation == "wxf":
        return designation + suffix
    return _render_chinese(designation, suffix, color)


def _designation_of(board: Board, move: Move, notation: str) -> tuple[Piece, str, str]:
    piece = _require_legal(board, move)
    names = _NAMERS[notation](board.codes(), piece.color, piece.piece_type)
    suffix = _suffix(piece.piece_type, piece.color, move.from_square, move.to_square)
    return piece, names[move.from_square][0], suffix


def move_to_wxf(board: Board, move: Move) -> str:
    """The move in WXF notation, e.g. ``C2.5``, ``H8+7``, ``R+.3``.

    >>> board = Board("3k5/9/9/9/9/9/2R6/9/2R6/4K4 w")
    >>> [move_to_wxf(board, Move.from_iccs(m)) for m in ("c3f3", "c1c2")]
    ['R+.4', 'R-+1']
    """
    _, designation, suffix = _designation_of(board, move, "wxf")
    return designation + suffix


def move_to_chinese(board: Board, move: Move) -> str:
    """The move in Chinese notation, e.g. ``炮二平五``, ``马8进7``, ``前车进一``.

    >>> board = Board("3k5/9/9/9/9/9/2R6/9/2R6/4K4 w")
    >>> [move_to_chinese(board, Move.from_iccs(m)) for m in ("c3f3", "c1c2")]
    ['前车平四', '后车进一']
    """
    piece, designation, suffix = _designation_of(board, move, "chinese")
    return _render_chinese(designation, suffix, piece.color)


def _parse_named(board: Board, text: str, notation: str) -> Move:
    """Parse WXF or Chinese ``text``: find the named pieces, then the legal move that fits."""
    reader = _read_wxf if notation == "wxf" else _read_chinese
    what = "a WXF" if notation == "wxf" else "a Chinese"
    read = reader(text)
    if read is None:
        raise NotationError(f"not {what} move: {text!r} (expected e.g. {_EXAMPLES[notation]})")
    piece_type, designation, suffix = read
    color = board.turn
    names = _NAMERS[notation](board.codes(), color, piece_type)
    named = ([sq for sq, (canonical, _) in names.items() if canonical == designation]
             or [sq for sq, (_, alternatives) in names.items() if designation in alternatives])
    if not named:
        raise _no_piece(text, notation, color, piece_type, designation, names)
    moves = [m for m in board.legal_moves if m.from_square in named
             and _suffix(piece_type, color, m.from_square, m.to_square) == suffix]
    move = _pick(board, text, notation, moves)
    if move is None:
        tries = [(sq, _destination(piece_type, color, sq, suffix)) for sq in sorted(named)]
        raise _not_legal(board, text, tries, piece_type)
    return move


def _no_piece(text: str, notation: str, color: Color, piece_type: PieceType, designation: str,
              names: Names) -> NotationError:
    side, name = COLOR_NAMES[color], _PIECE_NAMES[piece_type]
    if not names:
        return NotationError(f"{text!r}: {side} has no {name}", NO_PIECE)
    if designation[0] in _LETTER_TYPES and designation[1:].isdigit():
        problem = f"no {side} {name} stands on file {designation[1:]}"
    else:
        problem = f"no {side} {name} is named so"
    spelled = ", ".join(_render(notation, names[sq][0], ".1", color)[:-2]
                        for sq in sorted(names, key=lambda sq: _board_order(sq, color)))
    return NotationError(f"{text!r}: {problem} (the {side} {name}s here are {spelled})",
                         NO_PIECE)


def parse_wxf(board: Board, text: str) -> Move:
    """The legal move written ``text`` in WXF (``=`` read as ``.``, ``B``/``N`` as ``E``/``H``).

    >>> parse_wxf(Board(), "c2=5"), parse_wxf(Board(), "N2+3")
    (Move.from_iccs('h2e2'), Move.from_iccs('h0g2'))
    """
    return _parse_named(board, text, "wxf")


def parse_chinese(board: Board, text: str) -> Move:
    """The legal move written ``text`` in Chinese (traditional characters, full-width digits
    and 上/下 are read too).

    >>> parse_chinese(Board(), "傌二上三")
    Move.from_iccs('h0g2')
    >>> parse_chinese(Board(), "马二进四")
    Traceback (most recent call last):
    ...
    xiangqi.notation.NotationError: '马二进四' is not legal: the horse's leg (g0) is blocked
    """
    return _parse_named(board, text, "chinese")


# -- 一字三码 (code3) ----------------------------------------------------------------------------

_CODE3_READ: Final[dict[str, str]] = {
    **{char: WXF_LETTERS[t] for char, t in CHINESE_PIECE_ALIASES.items()},
    **{digit: digit for digit in "0123456789"},
    "进": "+", "進": "+", "上": "+", "退": "-", "下": "-",
}
_CODE3_RE: Final = re.compile(r"([KAEHRCP])([1-9]|[+-])([1-9])([0-9])")


def _read_code3(text: str) -> tuple[PieceType, str, int, int] | None:
    """(piece type, from-file digit or ``+``/``-``, to-file number, to-rank number)."""
    cleaned = _clean(text)
    if not cleaned or any(char not in _CODE3_READ for char in cleaned):
        return None
    match = _CODE3_RE.fullmatch("".join(_CODE3_READ[char] for char in cleaned))
    if not match:
        return None
    letter, selector, to_file, to_rank = match.groups()
    return _LETTER_TYPES[letter], selector, int(to_file), int(to_rank) or 10


def move_to_code3(board: Board, move: Move) -> str:
    """The move in 一字三码: piece, from-file, to-file, to-rank (10 written 0).

    >>> [move_to_code3(Board(), Move.from_iccs(m)) for m in ("h0g2", "a0a2")]
    ['马233', '车993']
    >>> board = Board("3k5/9/9/7N1/9/9/9/7N1/9/4K4 w")   # both horses on file 2 reach g4
    >>> [move_to_code3(board, Move.from_iccs(m)) for m in ("h2g4", "h6g4", "h6g8")]
    ['马进35', '马退35', '马239']
    """
    piece = _require_legal(board, move)
    color, to = piece.color, move.to_square
    head = CHINESE_PIECES[color][piece.piece_type]
    tail = f"{file_number(to % 9, color)}{rank_number(to // 9, color) % 10}"
    same_file = _by_file(board.codes(), color, piece.piece_type)[
        file_number(move.from_square % 9, color)]
    if any(sq != move.from_square and board.is_legal(Move(sq, to)) for sq in same_file):
        return head + ("进" if _ahead(color, move.from_square, to) > 0 else "退") + tail
    return head + str(file_number(move.from_square % 9, color)) + tail


def parse_code3(board: Board, text: str) -> Move:
    """The legal move written ``text`` in 一字三码 (``马325``, ``将451``, ``马进25``).

    >>> parse_code3(Board(), "炮253"), parse_code3(Board(), "马２３３")
    (Move.from_iccs('h2e2'), Move.from_iccs('h0g2'))
    """
    read = _read_code3(text)
    if read is None:
        raise NotationError(f"not a code3 move: {text!r} (expected e.g. {_EXAMPLES['code3']})")
    piece_type, selector, to_file, to_rank = read
    color = board.turn
    side, name = COLOR_NAMES[color], _PIECE_NAMES[piece_type]
    to = square(file_index(to_file, color), to_rank - 1 if color == RED else 10 - to_rank)
    groups = _by_file(board.codes(), color, piece_type)
    if not groups:
        raise NotationError(f"{text!r}: {side} has no {name}", NO_PIECE)
    if selector.isdigit():
        named = groups.get(int(selector), [])
        if not named:
            where = ", ".join(str(number) for number in sorted(groups))
            raise NotationError(f"{text!r}: no {side} {name} stands on file {selector} (the "
                                f"{side} {name}s stand on files {where})", NO_PIECE)
    else:                                   # 进/退: the piece moving forward / back to ``to``
        sign = 1 if selector == "+" else -1
        named = [sq for squares in groups.values() for sq in squares
                 if _ahead(color, sq, to) * sign > 0]
        if not named:
            way = "forward" if sign > 0 else "back"
            raise NotationError(
                f"{text!r} is not legal: no {side} {name} could move {way} to {square_name(to)}",
                ILLEGAL)
    moves = [m for m in board.legal_moves if m.from_square in named and m.to_square == to]
    move = _pick(board, text, "code3", moves)
    if move is None:
        raise _not_legal(board, text, [(sq, to) for sq in sorted(named)], piece_type)
    return move


# -- any notation -------------------------------------------------------------------------------

def detect_notation(text: str) -> str | None:
    """The notation ``text`` is written in, judged by its form only; None if none fits.

    >>> [detect_notation(t) for t in ("H2-E2", "C2=5", "炮二平五", "炮253", "hello")]
    ['iccs', 'wxf', 'chinese', 'code3', None]
    """
    cleaned = _clean(text)
    if cleaned == "0000" or _ICCS_RE.fullmatch(cleaned.lower()):
        return "iccs"
    if _read_code3(cleaned):
        return "code3"
    if _read_chinese(cleaned):
        return "chinese"
    if _read_wxf(cleaned):
        return "wxf"
    return None


_WRITERS: Final[dict[str, Callable[[Board, Move], str]]] = {
    "iccs": move_to_iccs, "wxf": move_to_wxf, "chinese": move_to_chinese, "code3": move_to_code3,
}
_PARSERS: Final[dict[str, Callable[[Board, str], Move]]] = {
    "iccs": parse_iccs, "wxf": parse_wxf, "chinese": parse_chinese, "code3": parse_code3,
}


def _check_notation(notation: str) -> None:
    if notation not in NOTATIONS:
        raise NotationError(f"unknown notation {notation!r} (choose from {', '.join(NOTATIONS)})")


def write_move(board: Board, move: Move, notation: str) -> str:
    """``move`` (legal in ``board``, the position before it) written in ``notation``."""
    _check_notation(notation)
    return _WRITERS[notation](board, move)


def parse_move(board: Board, text: str, notation: str | None = None) -> Move:
    """The legal move of ``board`` that ``text`` names; ``notation`` None detects it.

    >>> board = Board()
    >>> [parse_move(board, t).iccs() for t in ("h2e2", "C2.5", "炮二平五", "炮253")]
    ['h2e2', 'h2e2', 'h2e2', 'h2e2']
    """
    if notation is None:
        detected = detect_notation(text)
        if detected is None:
            examples = "; ".join(f"{n} {e}" for n, e in _EXAMPLES.items())
            raise NotationError(f"not a move in any notation: {text!r} (expected e.g. {examples})")
        notation = detected
    _check_notation(notation)
    return _PARSERS[notation](board, text)


def write_line(board: Board, moves: Iterable[Move], notation: str) -> list[str]:
    """The moves, played one after another from ``board``, written in ``notation``
    (``board`` itself is not changed)."""
    _check_notation(notation)
    work = board.copy(stack=False)
    written = []
    for move in moves:
        written.append(_WRITERS[notation](work, move))
        work.push_unchecked(move)
    return written


def write_numbered_line(board: Board, moves: Iterable[Move], notation: str = "chinese") -> str:
    """The moves from ``board`` written in ``notation`` and numbered from 1, as a book prints
    a solution (``1. ... move`` when Black moves first).

    >>> write_numbered_line(Board(), [Move.from_iccs("h2e2"), Move.from_iccs("h9g7"),
    ...                               Move.from_iccs("h0g2")])
    '1. 炮二平五 马8进7 2. 马二进三'
    """
    names = write_line(board, moves, notation)
    parts, number, index = [], 1, 0
    if board.turn == BLACK and names:
        parts.append(f"1. ... {names[0]}")
        index, number = 1, 2
    while index < len(names):
        parts.append(f"{number}. " + " ".join(names[index:index + 2]))
        index += 2
        number += 1
    return " ".join(parts)


_MOVE_NUMBER_RE: Final = re.compile(r"\d+\.(\.\.)?")


def parse_line(board: Board, texts: str | Iterable[str], notation: str | None = None) -> list[Move]:
    """The moves of a line played from ``board`` (which is not changed).

    ``texts`` is one string of moves separated by spaces or commas, or a list of such
    strings (a command line's arguments, one quoted argument holding several moves); move
    numbers standing alone (``1.``, ``1...``) are skipped.

    >>> parse_line(Board(), "1. 炮二平五 马8进7 2. 马二进三")
    [Move.from_iccs('h2e2'), Move.from_iccs('h9g7'), Move.from_iccs('h0g2')]
    >>> parse_line(Board(), ["h2e2 h9g7", "h0g2"])
    [Move.from_iccs('h2e2'), Move.from_iccs('h9g7'), Move.from_iccs('h0g2')]
    """
    tokens = [token for text in ([texts] if isinstance(texts, str) else texts)
              for token in re.split(r"[\s,;，；、]+", text)
              if token and not _MOVE_NUMBER_RE.fullmatch(token)]
    work = board.copy(stack=False)
    moves = []
    for ply, text in enumerate(tokens, start=1):
        if not work.has_legal_move():
            # Every move is illegal after the game's end: say so, not why this one is.
            end = _end_word(work)
            where = f"after {end} at ply {ply - 1}" if ply > 1 else \
                f"from a position that is already {end}"
            raise NotationError(f"ply {ply}: the line goes on {where} ({text!r})", ILLEGAL)
        try:
            move = parse_move(work, text, notation)
        except NotationError as error:
            raise NotationError(f"ply {ply}: {error}", error.kind, error.candidates) from None
        work.push_unchecked(move)
        moves.append(move)
    return moves


__all__ = [
    "NOTATIONS", "NotationError", "SYNTAX", "NO_PIECE", "AMBIGUOUS", "ILLEGAL",
    "write_move", "parse_move", "write_line", "parse_line", "detect_notation", "why_illegal",
    "game_over",
    "move_to_iccs", "parse_iccs", "move_to_wxf", "parse_wxf", "move_to_chinese", "parse_chinese",
    "move_to_code3", "parse_code3", "file_number", "file_index", "rank_number",
]
