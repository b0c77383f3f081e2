"""FEN reading, writing and validation, and the Board API built on it.

Every FenError names the problem and where it is; the parser is also fuzzed with random text
and with random edits of valid FENs: it either succeeds (and then round-trips) or raises
FenError, never anything else.
"""
from __future__ import annotations

import csv
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xiangqi import (
    ADVISOR,
    BLACK,
    CANNON,
    ELEPHANT,
    HORSE,
    KING,
    PAWN,
    RED,
    ROOK,
    STARTING_FEN,
    Board,
    FenError,
    IllegalMoveError,
    Move,
    Piece,
    Termination,
    parse_square,
    square_name,
)
from xiangqi.fen import placement_fen
from xiangqi.pieces import MAX_PIECE_COUNT, flip_square

START_PLACEMENT = STARTING_FEN.split()[0]
PERFT_FILE = Path(__file__).parent / "data" / "perft.tsv"


def fen_of(pieces: dict[str, str], turn: str = "w") -> str:
    """A FEN from ``{"e0": "K", ...}`` (no validation)."""
    codes = [0] * 90
    for name, letter in pieces.items():
        codes[parse_square(name)] = Piece.from_symbol(letter).code
    return f"{placement_fen(codes)} {turn} - - 0 1"


def fen_error(fen: str) -> str:
    with pytest.raises(FenError) as info:
        Board(fen)
    assert isinstance(info.value, ValueError)
    return str(info.value)


def reference_fens() -> list[str]:
    with PERFT_FILE.open(encoding="utf-8") as handle:
        return sorted({row["fen"] for row in csv.DictReader(handle, delimiter="\t")})


# -- shape of the placement -----------------------------------------------------------------------

def test_fen_error_is_a_value_error():
    assert issubclass(FenError, ValueError)


@pytest.mark.parametrize("placement,count", [
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/RNBAKABNR", 9),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/9/RNBAKABNR", 11),
    ("rnbakabnr", 1),
])
def test_wrong_number_of_ranks(placement, count):
    message = fen_error(f"{placement} w - - 0 1")
    assert "expected 10 ranks" in message and f"found {count}" in message


@pytest.mark.parametrize("placement,rank,fen_rank,detail", [
    # Too many files: a digit or a letter past the ninth file.
    ("rnbakabnr/9/1c5c11/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR", 7, 3, "more than 9 files"),
    ("rnbakabnrr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR", 9, 1, "more than 9 files"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR1", 0, 10, "more than 9 files"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR9", 0, 10, "more than 9 files"),
    # Too few files.
    ("rnbakabnr/9/1c5c/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR", 7, 3, "has 8 files"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABN", 0, 10, "has 8 files"),
    ("rnbakabnr/8/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR", 8, 2, "has 8 files"),
    ("rnbakabnr//1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR", 8, 2, "has 0 files"),
])
def test_rank_with_wrong_number_of_files(placement, rank, fen_rank, detail):
    message = fen_error(f"{placement} w - - 0 1")
    assert detail in message
    assert f"rank {rank} " in message and f"FEN rank {fen_rank}" in message


def test_zero_empty_count():
    message = fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKAB0NR w")
    assert "0" in message and "rank 0" in message and "FEN rank 10, character 8" in message


@pytest.mark.parametrize("placement,char,point,where", [
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNX", "X", "i0",
     "FEN rank 10, character 9"),
    ("xnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR", "x", "a9",
     "FEN rank 1, character 1"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/4Q4/P1P1P1P1P/1C5C1/9/RNBAKABNR", "Q", "e4",
     "FEN rank 6, character 2"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBA帅ABNR", "帅", "e0",
     "FEN rank 10, character 5"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/９/RNBAKABNR", "９", "a1",
     "FEN rank 9, character 1"),
])
def test_unknown_letter_names_point_and_position(placement, char, point, where):
    message = fen_error(f"{placement} w - - 0 1")
    assert f"unknown piece letter {char!r}" in message
    assert f"at {point}" in message and where in message


# -- pieces and where they stand ------------------------------------------------------------------

# Red pieces, MAX + 1 of each kind, on points that kind may occupy; Black's are the flips.
TOO_MANY = {
    KING: ["d0", "e1"],
    ADVISOR: ["d0", "f0", "e1"],
    ELEPHANT: ["c0", "g0", "e2"],
    HORSE: ["a0", "b5", "h9"],
    ROOK: ["a4", "b4", "i8"],
    CANNON: ["c5", "d5", "g6"],
    PAWN: ["a3", "c3", "e3", "g3", "i3", "d6"],
}
TYPE_NAMES = {KING: "king", ADVISOR: "advisor", ELEPHANT: "elephant", HORSE: "horse",
              ROOK: "rook", CANNON: "cannon", PAWN: "pawn"}


@pytest.mark.parametrize("color", [RED, BLACK], ids=["red", "black"])
@pytest.mark.parametrize("piece_type", sorted(TOO_MANY), ids=lambda t: TYPE_NAMES[t])
def test_too_many_pieces_of_a_kind(piece_type, color):
    names = TOO_MANY[piece_type]
    assert len(names) == MAX_PIECE_COUNT[piece_type] + 1
    if color == BLACK:
        names = [square_name(flip_square(parse_square(n))) for n in names]
    letter = Piece(piece_type, color).symbol()
    pieces = {n: letter for n in names}
    # Kings on d1 / f8 (never on one file), unless the kings are what is counted.
    if piece_type != KING:
        pieces.setdefault("d1" if color == RED else "f8", "K" if color == RED else "k")
    pieces.setdefault("f8" if color == RED else "d1", "k" if color == RED else "K")
    message = fen_error(fen_of(pieces))
    side = "Red" if color == RED else "Black"
    last = max(names, key=parse_square)     # the parser reads points a0, b0, ... i9
    assert f"too many {side} {TYPE_NAMES[piece_type]}s" in message
    assert f"on {last}" in message
    assert f"limit of {MAX_PIECE_COUNT[piece_type]}" in message


def test_full_armies_are_within_the_limits():
    board = Board()
    for color in (RED, BLACK):
        for piece_type, limit in MAX_PIECE_COUNT.items():
            count = sum(1 for p in board.piece_map().values()
                        if p == Piece(piece_type, color))
            assert count == limit


@pytest.mark.parametrize("fen,side", [
    ("9/9/9/9/9/9/9/9/9/4K4 w", "Black"),
    ("4k4/9/9/9/9/9/9/9/9/9 w", "Red"),
    ("9/9/9/9/9/9/9/9/9/9 w", "Red"),
])
def test_missing_king(fen, side):
    assert f"{side} has no king" in fen_error(fen)


@pytest.mark.parametrize("pieces,what,point,place", [
    ({"a0": "K", "e9": "k"}, "Red king", "a0", "palace"),
    ({"d3": "K", "e9": "k"}, "Red king", "d3", "palace"),
    ({"e0": "K", "e6": "k"}, "Black king", "e6", "palace"),
    ({"e0": "K", "c9": "k"}, "Black king", "c9", "palace"),
    ({"d0": "K", "e9": "k", "e0": "A"}, "Red advisor", "e0", "advisor points"),
    ({"d0": "K", "e9": "k", "d1": "A"}, "Red advisor", "d1", "advisor points"),
    ({"d0": "K", "e9": "k", "e7": "a"}, "Black advisor", "e7", "advisor points"),
    ({"d0": "K", "e9": "k", "c6": "a"}, "Black advisor", "c6", "advisor points"),
    ({"d0": "K", "f9": "k", "e1": "B"}, "Red elephant", "e1", "seven elephant points"),
    ({"d0": "K", "f9": "k", "e6": "B"}, "Red elephant", "e6", "seven elephant points"),
    ({"d0": "K", "f9": "k", "c7": "b"}, "Black elephant", "c7", "seven elephant points"),
    ({"d0": "K", "f9": "k", "c4": "b"}, "Black elephant", "c4", "seven elephant points"),
    ({"d0": "K", "f9": "k", "b3": "P"}, "Red pawn", "b3", "a pawn of its side can reach"),
    ({"d0": "K", "f9": "k", "h4": "P"}, "Red pawn", "h4", "a pawn of its side can reach"),
    ({"d0": "K", "f9": "k", "a2": "P"}, "Red pawn", "a2", "a pawn of its side can reach"),
    ({"d0": "K", "f9": "k", "e0": "P"}, "Red pawn", "e0", "a pawn of its side can reach"),
    ({"d0": "K", "f9": "k", "b6": "p"}, "Black pawn", "b6", "a pawn of its side can reach"),
    ({"d0": "K", "f9": "k", "a7": "p"}, "Black pawn", "a7", "a pawn of its side can reach"),
    ({"d0": "K", "f9": "k", "i9": "p"}, "Black pawn", "i9", "a pawn of its side can reach"),
])
def test_piece_off_its_points(pieces, what, point, place):
    message = fen_error(fen_of(pieces))
    assert f"{what} on {point} is outside the" in message and place in message


@pytest.mark.parametrize("pieces,point", [
    ({"b3": "P"}, "b3"), ({"d3": "P"}, "d3"), ({"f4": "P"}, "f4"), ({"b1": "P"}, "b1"),
    ({"b6": "p"}, "b6"), ({"h5": "p"}, "h5"), ({"c8": "p"}, "c8"),
])
def test_pawn_on_a_point_it_never_reaches(pieces, point):
    """Before crossing the river a pawn stays on its file: odd files of ranks 3-4 (5-6 for
    Black) are unreachable, as is every point behind its start rank."""
    message = fen_error(fen_of({"d0": "K", "f9": "k", **pieces}))
    assert point in message and "pawn" in message


@pytest.mark.parametrize("pieces", [
    {"e0": "K", "e9": "k"},
    {"d2": "K", "d7": "k"},
    {"f0": "K", "f9": "k", "a5": "R"},
])
def test_kings_facing(pieces):
    red = next(n for n, letter in pieces.items() if letter == "K")
    black = next(n for n, letter in pieces.items() if letter == "k")
    for turn in "wb":
        message = fen_error(fen_of(pieces, turn))
        assert f"kings on {red} and {black} face each other" in message


def test_kings_on_one_file_with_a_piece_between_are_legal():
    assert Board(fen_of({"e0": "K", "e9": "k", "e5": "p"})).kings_facing() is False


@pytest.mark.parametrize("pieces,turn,in_check", [
    ({"d0": "K", "e9": "k", "e5": "R"}, "w", "Black"),      # rook
    ({"d0": "K", "e9": "k", "d7": "N"}, "w", "Black"),      # horse
    ({"d0": "K", "e9": "k", "e5": "C", "e6": "P"}, "w", "Black"),   # cannon over a screen
    ({"d0": "K", "e8": "k", "e7": "P"}, "w", "Black"),      # pawn in front
    ({"d0": "K", "e8": "k", "f8": "P"}, "w", "Black"),      # pawn beside
    ({"d0": "K", "e9": "k", "d5": "r"}, "b", "Red"),
    ({"d1": "K", "e9": "k", "e3": "n"}, "b", "Red"),
    ({"d1": "K", "f9": "k", "d2": "p"}, "b", "Red"),
])
def test_side_not_to_move_in_check(pieces, turn, in_check):
    to_move = "Red" if turn == "w" else "Black"
    message = fen_error(fen_of(pieces, turn))
    assert f"{in_check} is in check but {to_move} is to move" in message
    # The same position with the checked side to move is legal, and in check.
    other = Board(fen_of(pieces, "b" if turn == "w" else "w"))
    assert other.is_check()


# -- side to move, clocks, fields ---------------------------------------------------------------

@pytest.mark.parametrize("side", ["x", "white", "red", "B1", "-", "0"])
def test_bad_side_to_move(side):
    message = fen_error(f"{START_PLACEMENT} {side} - - 0 1")
    assert "side to move" in message and repr(side) in message and "field 2" in message


@pytest.mark.parametrize("fields,detail", [
    ("a 1", "halfmove clock (field 5) must be a whole number, not 'a'"),
    ("-1 1", "halfmove clock (field 5) must be a whole number, not '-1'"),
    ("1.5 1", "halfmove clock (field 5) must be a whole number, not '1.5'"),
    ("0 x", "move number (field 6) must be a whole number, not 'x'"),
    ("0 -3", "move number (field 6) must be a whole number, not '-3'"),
    ("0 0", "move number (field 6) must be at least 1, not 0"),
    ("0 1x", "move number (field 6) must be a whole number, not '1x'"),
    ("999999 1", "halfmove clock (field 5) is implausibly large"),
    ("0 " + "9" * 5000, "move number (field 6) is implausibly large"),
])
def test_bad_clocks(fields, detail):
    assert detail in fen_error(f"{START_PLACEMENT} w - - {fields}")


@pytest.mark.parametrize("fields,detail", [
    ("w x - 0 1", "field 3 must be '-'"),
    ("w - KQ 0 1", "field 4 must be '-'"),
])
def test_fields_3_and_4_must_be_dashes(fields, detail):
    assert detail in fen_error(f"{START_PLACEMENT} {fields}")


def test_too_many_fields():
    message = fen_error(f"{STARTING_FEN} extra")
    assert "too many fields: 7" in message and "'extra'" in message


@pytest.mark.parametrize("text", ["", "   ", "\n"])
def test_empty_fen(text):
    assert "empty" in fen_error(text)


def test_non_string_fen():
    assert "string" in fen_error(b"rnbakabnr")   # type: ignore[arg-type]


# -- accepted variants ----------------------------------------------------------------------------

def test_r_is_read_as_red():
    assert Board(f"{START_PLACEMENT} r - - 0 1").fen() == STARTING_FEN
    assert Board(f"{START_PLACEMENT} R").turn == RED
    assert Board(f"{START_PLACEMENT} B").turn == BLACK


def test_h_and_e_letters():
    board = Board("rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR w - - 0 1")
    assert board.fen() == STARTING_FEN
    assert board.piece_at(parse_square("b0")) == Piece(HORSE, RED)
    assert board.piece_at(parse_square("c9")) == Piece(ELEPHANT, BLACK)


@pytest.mark.parametrize("text,expected", [
    (START_PLACEMENT, STARTING_FEN),
    (f"{START_PLACEMENT} w", STARTING_FEN),
    (f"{START_PLACEMENT} b", f"{START_PLACEMENT} b - - 0 1"),
    (f"{START_PLACEMENT} w -", STARTING_FEN),
    (f"{START_PLACEMENT} w - -", STARTING_FEN),
    (f"{START_PLACEMENT} w - - 7", f"{START_PLACEMENT} w - - 7 1"),
    (f"{START_PLACEMENT} b - - 7 23", f"{START_PLACEMENT} b - - 7 23"),
    (f"  {START_PLACEMENT}\tw  -  - 0  1 \n", STARTING_FEN),
])
def test_missing_fields_default(text, expected):
    assert Board(text).fen() == expected


def round_trip_fens() -> list[str]:
    fens = reference_fens()
    rng = random.Random(7)
    for start in list(fens):
        board = Board(start)
        for _ in range(rng.randint(10, 80)):
            moves = board.legal_moves
            if not moves:
                break
            board.push(rng.choice(moves))
            fens.append(board.fen())
    return fens


def test_round_trip_many_positions():
    fens = round_trip_fens()
    assert len(fens) >= 300
    for fen in fens:
        board = Board(fen)
        assert board.fen() == fen
        assert Board(board.fen()) == board


# -- the Board API ---------------------------------------------------------------------------------

def test_push_pop_and_legal_moves():
    board = Board()
    assert len(board.legal_moves) == 44
    move = Move.from_iccs("h2e2")
    assert move in board.legal_moves
    board.push(move)
    assert board.turn == BLACK and board.ply_count == 1 and board.move_stack == [move]
    assert board.peek() == move
    assert board.fen() == "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"
    board.push_iccs("h9g7")
    assert board.fen().endswith(" w - - 2 2")
    assert board.pop() == Move.from_iccs("h9g7")
    assert board.pop() == move
    assert board.fen() == STARTING_FEN and board.zobrist_key == Board().zobrist_key


def test_capture_resets_halfmove_clock_and_pop_restores_it():
    board = Board()
    for iccs in ("h2e2", "h9g7", "e2e6"):          # 炮二平五, 马8进7, 炮五进四 (takes e6)
        board.push_iccs(iccs)
    assert board.fen() == "rnbakab1r/9/1c4nc1/p1p1C1p1p/9/9/P1P1P1P1P/1C7/9/RNBAKABNR b - - 0 2"
    board.pop()
    assert board.halfmove_clock == 2


def test_is_check():
    board = Board("3k5/9/9/9/9/9/9/9/2R6/4K4 w")
    assert not board.is_check()
    board.push_iccs("c1d1")
    assert board.is_check()
    assert Board("3k5/9/9/9/9/9/9/9/9/3RK4 b").is_check()


def test_checkmate_outcome():
    board = Board("3k5/9/9/9/9/9/9/9/2R6/4K4 w")
    assert board.outcome() is None and not board.is_game_over()
    board.push_iccs("c1d1")                   # the black king can neither stay nor face e0
    assert board.legal_moves == []
    assert board.is_checkmate() and not board.is_stalemate() and board.is_game_over()
    outcome = board.outcome()
    assert outcome.termination == Termination.CHECKMATE
    assert outcome.termination.value == "将死"
    assert outcome.winner == RED and outcome.result() == "1-0"


@pytest.mark.parametrize("fen,winner,result", [
    ("3k5/2R6/9/9/9/9/9/9/9/4K4 b", RED, "1-0"),
    ("4k4/9/9/9/9/9/9/9/6r2/5K3 w", BLACK, "0-1"),
])
def test_stalemate_is_a_loss(fen, winner, result):
    board = Board(fen)
    assert not board.is_check() and board.legal_moves == []
    assert board.is_stalemate() and not board.is_checkmate()
    outcome = board.outcome()
    assert outcome.termination == Termination.STALEMATE
    assert outcome.termination.value == "困毙"
    assert outcome.winner == winner and outcome.result() == result


def test_copy_is_independent():
    board = Board()
    board.push_iccs("h2e2")
    board.push_iccs("h9g7")
    copy = board.copy()
    assert copy == board and copy.fen() == board.fen() and copy.move_stack == board.move_stack
    assert copy.zobrist_key == board.zobrist_key
    copy.push_iccs("h0g2")
    assert board.ply_count == 2 and board.turn == RED
    assert copy.pop() == Move.from_iccs("h0g2")
    assert copy.pop() == Move.from_iccs("h9g7")
    assert board.move_stack == [Move.from_iccs("h2e2"), Move.from_iccs("h9g7")]
    board.pop()
    assert copy.move_stack == [Move.from_iccs("h2e2")]
    assert copy.fen() == board.fen()


def test_copy_without_stack():
    board = Board()
    board.push_iccs("h2e2")
    copy = board.copy(stack=False)
    assert copy.fen() == board.fen() and copy.zobrist_key == board.zobrist_key
    assert copy.move_stack == [] and copy.ply_count == 0
    with pytest.raises(IndexError):
        copy.pop()
    copy.push_iccs("h9g7")
    assert board.turn == BLACK and board.ply_count == 1


def test_copy_preserves_long_stack():
    board = Board()
    cycle = ["h0g2", "h9g7", "g2h0", "g7h9"]
    for _ in range(80):                       # 320 plies, beyond the initial undo capacity
        for iccs in cycle:
            board.push_iccs(iccs)
    copy = board.copy()
    assert copy.ply_count == 320
    for _ in range(320):
        copy.pop()
    assert copy.fen() == STARTING_FEN
    assert board.ply_count == 320


def test_mirror():
    assert Board().mirror() == Board()
    for fen in reference_fens():
        board = Board(fen)
        mirrored = board.mirror()
        assert mirrored.mirror().fen() == board.fen()
        assert mirrored.turn == board.turn
        assert mirrored.perft(3) == board.perft(3)
        for square, piece in board.piece_map().items():
            assert mirrored.piece_at(square - square % 9 + 8 - square % 9) == piece
    asymmetric = Board("r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w")
    assert asymmetric.mirror() != asymmetric


def test_is_repetition_after_a_four_move_cycle():
    board = Board()
    cycle = ["h0g2", "h9g7", "g2h0", "g7h9"]
    assert not board.is_repetition(2)
    for iccs in cycle:
        board.push_iccs(iccs)
    assert board.repetition_count() == 1
    assert board.is_repetition(2) and not board.is_repetition(3) and not board.is_repetition()
    for iccs in cycle:
        board.push_iccs(iccs)
    assert board.repetition_count() == 2 and board.is_repetition(3) and board.is_repetition()
    board.pop()                               # back to a position seen once before
    assert board.repetition_count() == 1 and not board.is_repetition(3)


def test_repetition_counts_from_the_last_capture():
    board = Board("4k4/9/9/9/4p4/9/9/9/4A4/3AK1R2 w")
    for iccs in ("g0g5", "e9f9", "g5e5"):      # the rook takes the pawn
        board.push_iccs(iccs)
    assert board.repetition_count() == 0
    for iccs in ("f9f8", "e5a5", "f8f9", "a5e5"):
        board.push_iccs(iccs)
    assert board.repetition_count() == 1 and board.is_repetition(2)


@pytest.mark.parametrize("iccs", ["a0a5", "b2b8", "e0e2", "h2h8", "a3a5", "b0b2"])
def test_push_illegal_move_raises(iccs):
    board = Board()
    with pytest.raises(IllegalMoveError) as info:
        board.push(Move.from_iccs(iccs))
    assert isinstance(info.value, ValueError)
    with pytest.raises(IllegalMoveError):
        board.push_iccs(iccs)
    assert board.fen() == STARTING_FEN and board.ply_count == 0


def test_push_move_into_facing_kings_raises():
    board = Board("3k5/9/9/9/9/9/9/9/9/4K4 b")
    with pytest.raises(IllegalMoveError):
        board.push(Move.from_iccs("d9e9"))


def test_pop_on_empty_board_raises():
    with pytest.raises(IndexError):
        Board().pop()


# -- fuzzing the parser ----------------------------------------------------------------------------

FEN_ALPHABET = "rnbakcpRNBAKCPheHE0123456789/ -wbr\t"
VALID_FENS = [STARTING_FEN, "3k5/2R6/9/9/9/9/9/9/9/4K4 b - - 0 1",
              "4k4/9/4b4/9/9/2N6/9/9/4A4/4K4 b - - 0 1"] + reference_fens()


def check_parse(text: str) -> None:
    try:
        board = Board(text)
    except FenError:
        return
    fen = board.fen()
    assert Board(fen).fen() == fen
    assert not board.kings_facing()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=120), st.text(alphabet=FEN_ALPHABET, max_size=120)))
def test_fuzz_random_text(text):
    check_parse(text)


@st.composite
def mutated_fens(draw):
    text = draw(st.sampled_from(VALID_FENS))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["insert", "delete", "replace"]))
        position = draw(st.integers(0, max(len(text) - 1, 0)))
        char = draw(st.one_of(st.sampled_from(FEN_ALPHABET), st.characters()))
        if kind == "insert":
            text = text[:position] + char + text[position:]
        elif kind == "delete":
            text = text[:position] + text[position + 1:]
        else:
            text = text[:position] + char + text[position + 1:]
    return text


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_fens())
def test_fuzz_mutated_fens(text):
    check_parse(text)


def test_fuzz_finds_both_outcomes():
    """The mutation strategy produces both valid and invalid FENs (it is not degenerate)."""
    rng = random.Random(3)
    results = {"ok": 0, "error": 0}
    for _ in range(300):
        text = rng.choice(VALID_FENS)
        position = rng.randrange(len(text))
        text = text[:position] + rng.choice(FEN_ALPHABET) + text[position + 1:]
        try:
            Board(text)
            results["ok"] += 1
        except FenError:
            results["error"] += 1
    assert results["ok"] > 20 and results["error"] > 20, results
