"""Move notations (xiangqi.notation): ICCS, WXF, Chinese and 一字三码, as in docs/notation.md.

Known examples in every notation, the accepted variant spellings, front/rear pieces, stacked and
tandem pawns, the errors and their messages; then round trips over every legal move of a few
hundred positions (random playouts and random pawn-heavy placements), a cross-check of WXF
against Fairy-Stockfish, and fuzzing: bad text raises NotationError and nothing else.
"""
from __future__ import annotations

import argparse
import random

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
    Board,
    FenError,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    Piece,
)
from xiangqi.fen import placement_fen
from xiangqi.notation import (
    AMBIGUOUS,
    ILLEGAL,
    NO_PIECE,
    NOTATIONS,
    SYNTAX,
    NotationError,
    detect_notation,
    move_to_chinese,
    move_to_code3,
    move_to_iccs,
    move_to_wxf,
    parse_chinese,
    parse_code3,
    parse_iccs,
    parse_line,
    parse_move,
    parse_wxf,
    write_line,
    write_move,
)
from xiangqi.pieces import legal_points

M = Move.from_iccs
AFTER_H2E2 = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"


def check(fen: str, iccs: str, notation: str, text: str) -> None:
    """``iccs`` is written ``text`` in ``notation``, and reads back, with and without a hint."""
    board = Board(fen)
    before = board.fen()
    move = M(iccs)
    assert write_move(board, move, notation) == text
    assert parse_move(board, text, notation) == move
    assert parse_move(board, text) == move
    assert detect_notation(text) == notation
    assert board.fen() == before


# -- known examples -----------------------------------------------------------------------------

START = Board().fen()

START_EXAMPLES = [
    # iccs, wxf, chinese, code3 -- Red in the start position
    ("h2e2", "C2.5", "炮二平五", "炮253"),
    ("h0g2", "H2+3", "马二进三", "马233"),
    ("b0c2", "H8+7", "马八进七", "马873"),
    ("c3c4", "P7+1", "兵七进一", "兵775"),
    ("i0i1", "R1+1", "车一进一", "车112"),
    ("a0a2", "R9+2", "车九进二", "车993"),
    ("g0e2", "E3+5", "相三进五", "相353"),
    ("c0a2", "E7+9", "相七进九", "相793"),
    ("f0e1", "A4+5", "仕四进五", "仕452"),
    ("d0e1", "A6+5", "仕六进五", "仕652"),
    ("e0e1", "K5+1", "帅五进一", "帅552"),
    ("b2b9", "C8+7", "炮八进七", "炮880"),
    ("h2h1", "C2-1", "炮二退一", "炮222"),
]

BLACK_EXAMPLES = [
    # Black's replies after 炮二平五: files numbered from Black's right (a = 1)
    ("h9g7", "H8+7", "马8进7", "马873"),
    ("b9c7", "H2+3", "马2进3", "马233"),
    ("h7e7", "C8.5", "炮8平5", "炮853"),
    ("c6c5", "P3+1", "卒3进1", "卒335"),
    ("i9i8", "R9+1", "车9进1", "车992"),
    ("a9a7", "R1+2", "车1进2", "车113"),
    ("e9e8", "K5+1", "将5进1", "将552"),
    ("f9e8", "A6+5", "士6进5", "士652"),
    ("g9e7", "E7+5", "象7进5", "象753"),
    ("b7b0", "C2+7", "炮2进7", "炮220"),
]


@pytest.mark.parametrize("iccs,wxf,chinese,code3", START_EXAMPLES)
def test_start_position_red(iccs, wxf, chinese, code3):
    for notation, text in zip(NOTATIONS, (iccs, wxf, chinese, code3)):
        check(START, iccs, notation, text)


@pytest.mark.parametrize("iccs,wxf,chinese,code3", BLACK_EXAMPLES)
def test_black_replies(iccs, wxf, chinese, code3):
    for notation, text in zip(NOTATIONS, (iccs, wxf, chinese, code3)):
        check(AFTER_H2E2, iccs, notation, text)


def test_per_notation_helpers():
    board, move = Board(), M("h2e2")
    assert (move_to_iccs(board, move), move_to_wxf(board, move), move_to_chinese(board, move),
            move_to_code3(board, move)) == ("h2e2", "C2.5", "炮二平五", "炮253")
    for parse, text in ((parse_iccs, "h2e2"), (parse_wxf, "C2.5"), (parse_chinese, "炮二平五"),
                        (parse_code3, "炮253")):
        assert parse(board, text) == move


@pytest.mark.parametrize("fen,text,iccs", [
    # ICCS: upper case with a hyphen, spaces around
    (START, "H2-E2", "h2e2"), (START, " h2e2 ", "h2e2"), (START, "h2-e2", "h2e2"),
    # WXF: '=' for '.', B for E, N for H, lower case, full-width
    (START, "C2=5", "h2e2"), (START, "c2.5", "h2e2"), (START, "N2+3", "h0g2"),
    (START, "B3+5", "g0e2"), (START, "Ｃ２．５", "h2e2"),
    # Chinese: traditional characters, 上/下, full-width and Arabic digits for Red
    (START, "傌二進三", "h0g2"), (START, "俥一上一", "i0i1"), (START, "炮二下一", "h2h1"),
    (START, "帥五上一", "e0e1"), (START, "兵７进１", "c3c4"), (START, "炮2平5", "h2e2"),
    (START, "炮 二 平 五", "h2e2"),
    (AFTER_H2E2, "馬8進7", "h9g7"), (AFTER_H2E2, "砲８平５", "h7e7"),
    (AFTER_H2E2, "車9進1", "i9i8"), (AFTER_H2E2, "將5上1", "e9e8"),
    (AFTER_H2E2, "包8平5", "h7e7"), (AFTER_H2E2, "马八进七", "h9g7"),
    # code3: full-width digits, traditional pieces
    (START, "炮２５３", "h2e2"), (AFTER_H2E2, "馬873", "h9g7"),
])
def test_variant_spellings_are_read(fen, text, iccs):
    assert parse_move(Board(fen), text) == M(iccs)


# -- pieces sharing a file ----------------------------------------------------------------------

TWO_ROOKS = "3k5/9/9/9/9/9/2R6/9/2R6/4K4 w"          # Red rooks c3 (front) and c1 (rear)
TWO_HORSES = "3k5/9/9/9/4N4/9/9/4N4/9/5K3 w"         # Red horses e5 (front) and e2 (rear)
TWO_ADVISORS = "3k5/9/9/9/9/9/9/3A5/9/3A1K3 w"       # Red advisors d2 and d0


@pytest.mark.parametrize("fen,iccs,wxf,chinese", [
    (TWO_ROOKS, "c3g3", "R+.3", "前车平三"),
    (TWO_ROOKS, "c3c4", "R++1", "前车进一"),
    (TWO_ROOKS, "c1c2", "R-+1", "后车进一"),
    (TWO_ROOKS, "c1a1", "R-.9", "后车平九"),
    (TWO_HORSES, "e2d0", "H--6", "后马退六"),
    (TWO_HORSES, "e5d3", "H+-6", "前马退六"),
    (TWO_HORSES, "e5f7", "H++4", "前马进四"),
    # advisors and elephants keep the file: the move tells the two apart
    (TWO_ADVISORS, "d0e1", "A6+5", "仕六进五"),
    (TWO_ADVISORS, "d2e1", "A6-5", "仕六退五"),
    ("3k5/9/9/9/9/2B6/9/9/9/2B1K4 w", "c4e2", "E7-5", "相七退五"),
    ("3k5/9/9/9/9/2B6/9/9/9/2B1K4 w", "c0e2", "E7+5", "相七进五"),
    # Black: front is the piece nearer Red
    ("5k3/9/9/1c7/9/9/1c7/9/9/4K4 b", "b3b4", "C+-1", "前炮退1"),
    ("5k3/9/9/1c7/9/9/1c7/9/9/4K4 b", "b3b2", "C++1", "前炮进1"),
    ("5k3/9/9/1c7/9/9/1c7/9/9/4K4 b", "b6b5", "C-+1", "后炮进1"),
])
def test_front_and_rear(fen, iccs, wxf, chinese):
    check(fen, iccs, "wxf", wxf)
    check(fen, iccs, "chinese", chinese)


def test_plain_file_for_twins_read_when_unique():
    # 车七进一 could be either rook; both can move, so it is ambiguous ...
    with pytest.raises(NotationError) as info:
        parse_move(Board(TWO_ROOKS), "车七进一")
    assert info.value.kind == AMBIGUOUS
    assert set(info.value.candidates) == {M("c3c4"), M("c1c2")}
    # ... but 车七进六 only fits the front rook (the rear one is blocked by it).
    assert parse_move(Board(TWO_ROOKS), "车七进六") == M("c3c9")
    assert parse_move(Board(TWO_ROOKS), "R7+6") == M("c3c9")
    # front/rear for advisors is read although never written
    assert parse_move(Board(TWO_ADVISORS), "前仕退五") == M("d2e1")
    assert parse_move(Board(TWO_ADVISORS), "A-+5") == M("d0e1")


# -- pawns --------------------------------------------------------------------------------------

THREE_PAWNS = "5k3/9/9/2P1P4/4P4/4P4/6P2/9/9/3K5 w"      # e6 e5 e4 on file 5, c6, g3
FOUR_PAWNS = "5k3/9/9/4P4/4P4/4P4/4P4/9/9/3K5 w"         # e6 e5 e4 e3
FIVE_PAWNS = "5k3/9/4P4/4P4/4P4/4P4/4P4/9/9/3K5 w"       # e7 e6 e5 e4 e3
TANDEM_2_2 = "5k3/9/9/2P1P4/2P1P4/9/6P2/9/9/3K5 w"       # e6 e5 (file 5), c6 c5 (file 7), g3
TANDEM_3_2 = "5k3/9/9/2P1P4/2P1P4/9/4P4/9/9/3K5 w"       # e6 e5 e3 (file 5), c6 c5 (file 7)
BLACK_TANDEM = "3k5/9/9/9/4p4/4p1p2/4p1p2/9/9/5K3 b"     # e3 e4 e5 (file 5), g3 g4 (file 7)


@pytest.mark.parametrize("fen,iccs,wxf,chinese", [
    (THREE_PAWNS, "e6e7", "P++1", "前兵进一"),
    (THREE_PAWNS, "e6d6", "P+.6", "前兵平六"),
    (THREE_PAWNS, "e5f5", "P5.4", "中兵平四"),
    (THREE_PAWNS, "c6c7", "P7+1", "兵七进一"),
    (THREE_PAWNS, "g3g4", "P3+1", "兵三进一"),
    (FOUR_PAWNS, "e6e7", "+++1", "一兵进一"),
    (FOUR_PAWNS, "e6d6", "++.6", "一兵平六"),
    (FOUR_PAWNS, "e5f5", "P+.4", "二兵平四"),
    (FIVE_PAWNS, "e7e8", "+++1", "一兵进一"),
    (FIVE_PAWNS, "e6f6", "P+.4", "二兵平四"),
    (FIVE_PAWNS, "e5d5", "P5.6", "三兵平六"),
    # tandem pawns: WXF puts the file digit for P; Chinese numbers all the stacked pawns,
    # file by file from the mover's right, then front to back (xqbase)
    (TANDEM_2_2, "e6e7", "5++1", "一兵进一"),
    (TANDEM_2_2, "e5d5", "5-.6", "二兵平六"),
    (TANDEM_2_2, "c6c7", "7++1", "三兵进一"),
    (TANDEM_2_2, "c5b5", "7-.8", "四兵平八"),
    (TANDEM_2_2, "g3g4", "P3+1", "兵三进一"),
    (TANDEM_3_2, "e6f6", "5+.4", "一兵平四"),
    (TANDEM_3_2, "e5d5", "55.6", "二兵平六"),
    (TANDEM_3_2, "e3e4", "5-+1", "三兵进一"),
    (TANDEM_3_2, "c6c7", "7++1", "四兵进一"),
    (TANDEM_3_2, "c5d5", "7-.6", "五兵平六"),
    (BLACK_TANDEM, "e3e2", "5++1", "一卒进1"),
    (BLACK_TANDEM, "e3d3", "5+.4", "一卒平4"),
    (BLACK_TANDEM, "e4f4", "55.6", "二卒平6"),
    (BLACK_TANDEM, "g3g2", "7++1", "四卒进1"),
    (BLACK_TANDEM, "g4h4", "7-.8", "五卒平8"),
])
def test_stacked_pawns(fen, iccs, wxf, chinese):
    check(fen, iccs, "wxf", wxf)
    check(fen, iccs, "chinese", chinese)


@pytest.mark.parametrize("fen,text,iccs", [
    # the traditional form keeps the file: 前兵五进一, abbreviated 前五进一
    (TANDEM_2_2, "前兵五进一", "e6e7"), (TANDEM_2_2, "前五进一", "e6e7"),
    (TANDEM_2_2, "后兵七平八", "c5b5"), (TANDEM_2_2, "后七平八", "c5b5"),
    (TANDEM_3_2, "中兵五平六", "e5d5"), (TANDEM_3_2, "中五平六", "e5d5"),
    (BLACK_TANDEM, "前卒5平4", "e3d3"), (BLACK_TANDEM, "前5平4", "e3d3"),
    # ordinals in Arabic or full-width digits, 前/后 for the ends of four or five
    (BLACK_TANDEM, "1卒平4", "e3d3"), (BLACK_TANDEM, "１卒平４", "e3d3"),
    (FOUR_PAWNS, "前兵进一", "e6e7"), (FIVE_PAWNS, "前兵平六", "e7d7"),
    # 前兵 without a file is fine when only one front pawn can make the move
    (TANDEM_2_2, "前兵平四", "e6f6"),
    # a plain file is read when only one pawn on it can make the move
    (THREE_PAWNS, "兵五进一", "e6e7"), (TANDEM_3_2, "P7+1", "c6c7"),
])
def test_pawn_variants_are_read(fen, text, iccs):
    assert parse_move(Board(fen), text) == M(iccs)


def test_tandem_front_pawn_without_file_is_ambiguous():
    with pytest.raises(NotationError) as info:
        parse_move(Board(TANDEM_2_2), "前兵进一")
    assert info.value.kind == AMBIGUOUS
    assert set(info.value.candidates) == {M("e6e7"), M("c6c7")}
    assert "三兵进一 or 一兵进一" in str(info.value)
    with pytest.raises(NotationError) as info:
        parse_move(Board(BLACK_TANDEM), "P++1")
    assert "5++1 or 7++1" in str(info.value)


def test_middle_pawn_name_is_not_reinterpreted():
    # P5 / 兵五 names the middle of three: it cannot go forward (e6 is in the way)
    with pytest.raises(NotationError) as info:
        parse_move(Board(THREE_PAWNS), "P5+1")
    assert info.value.kind == ILLEGAL and "e6 is occupied" in str(info.value)


# -- 一字三码 --------------------------------------------------------------------------------------

@pytest.mark.parametrize("fen,text,iccs", [
    ("3k5/9/9/9/9/9/9/6N2/9/4K4 w", "马325", "g2h4"),      # spec: horse file 3 to file 2, rank 5
    ("3k5/9/9/9/9/7R1/9/9/9/4K4 w", "车220", "h4h9"),      # spec: rook to the far back rank
    ("3k5/9/9/9/9/9/9/9/9/5K3 b", "将451", "d9e9"),        # spec: Black king file 4 to 5
    ("3k5/9/9/6N2/9/9/9/6N2/9/4K4 w", "马进25", "g2h4"),   # two horses on file 3 reach h4
    ("3k5/9/9/6N2/9/9/9/6N2/9/4K4 w", "马退25", "g6h4"),
    ("3k5/9/9/6N2/9/9/9/6N2/9/4K4 w", "马329", "g6h8"),    # only one of them reaches h8
    ("5k3/9/9/6n2/9/9/9/6n2/9/3K5 b", "马进66", "g6f4"),   # Black: 进 is towards Red
    ("5k3/9/9/6n2/9/9/9/6n2/9/3K5 b", "马退66", "g2f4"),
])
def test_code3(fen, text, iccs):
    check(fen, iccs, "code3", text)


def test_code3_variants():
    board = Board("3k5/9/9/6N2/9/9/9/6N2/9/4K4 w")
    with pytest.raises(NotationError) as info:
        parse_code3(board, "马325")
    assert info.value.kind == AMBIGUOUS
    assert set(info.value.candidates) == {M("g2h4"), M("g6h4")}
    assert "马进25 or 马退25" in str(info.value)
    assert parse_code3(board, "马上25") == M("g2h4")
    assert parse_code3(board, "馬下25") == M("g6h4")
    assert parse_code3(Board(), "马进33") == M("h0g2")      # 进 read although not needed


# -- errors -------------------------------------------------------------------------------------

@pytest.mark.parametrize("fen,text,notation,kind,words", [
    (START, "xyz", None, SYNTAX, "not a move in any notation"),
    (START, "", None, SYNTAX, "not a move in any notation"),
    (START, "炮二平五", "wxf", SYNTAX, "not a WXF move"),
    (START, "C2.5", "chinese", SYNTAX, "not a Chinese move"),
    (START, "C2.5", "code3", SYNTAX, "not a code3 move"),
    (START, "i2i9", "wxf", SYNTAX, "not a WXF move"),
    (START, "h2e", "iccs", SYNTAX, "not an ICCS move"),
    (START, "马二平三", None, ILLEGAL, "cannot move that way"),
    (START, "马五进三", None, NO_PIECE, "no Red horse stands on file 5"),
    (START, "H5+3", None, NO_PIECE, "no Red horse stands on file 5"),
    (START, "前车进一", None, NO_PIECE, "no Red rook is named so"),
    (START, "中兵进一", None, NO_PIECE, "the Red pawns here are"),
    (START, "马525", None, NO_PIECE,
     "no Red horse stands on file 5 (the Red horses stand on files 2, 8)"),
    (TANDEM_2_2, "兵九进一", None, NO_PIECE, "the Red pawns here are 兵三, 一兵, 二兵, 三兵, 四兵"),
    (TANDEM_2_2, "四兵退一", None, ILLEGAL, "a pawn never moves back"),
    (TANDEM_2_2, "9+.1", None, NO_PIECE, "the Red pawns here are P3, 5+, 5-, 7+, 7-"),
    (START, "马825", None, ILLEGAL, "the horse moves one point along a line, then one diagonally"),
    (START, "马二进四", None, ILLEGAL, "the horse's leg (g0) is blocked"),
    (START, "H2+4", None, ILLEGAL, "the horse's leg (g0) is blocked"),
    (START, "马242", None, ILLEGAL, "the horse's leg (g0) is blocked"),
    (START, "车一进四", None, ILLEGAL, "the path is blocked at i3"),
    (START, "炮二进五", None, ILLEGAL, "the cannon needs a screen to capture on h7"),
    (START, "C2+9", None, ILLEGAL, "cannot move that way"),
    (START, "相三进一", "chinese", ILLEGAL, None),   # legal, checked separately below
    (START, "兵七平六", None, ILLEGAL, "a pawn moves sideways only after crossing the river"),
    (START, "仕四进四", None, ILLEGAL, "cannot move that way"),
    (START, "帅五进二", None, ILLEGAL, "the king moves one point along a line"),
    (START, "h0h3", None, ILLEGAL, "the horse moves one point along a line, then one diagonally"),
    (START, "e9e8", None, ILLEGAL, "the king on e9 is Black's and Red is to move"),
    (START, "e4e5", None, ILLEGAL, "there is no piece on e4"),
    (START, "a0a3", None, ILLEGAL, "a3 is occupied by a Red piece"),
    (START, "0000", None, ILLEGAL, "null move"),
    ("4k4/9/9/9/4N4/9/9/9/9/4K4 w", "马五进四", None, ILLEGAL,
     "the two kings would face each other"),
    ("3k5/9/9/9/9/9/9/9/3r5/4K4 w", "K5+1", None, ILLEGAL, "it would leave the Red king in check"),
    ("3k5/9/9/9/R8/9/9/9/9/3rK4 w", "车九进一", None, ILLEGAL,
     "the Red king is in check and this does not parry it"),
    (TWO_HORSES, "马五退六", None, AMBIGUOUS, "it fits e2d0, e5d3; write 后马退六 or 前马退六"),
])
def test_errors(fen, text, notation, kind, words):
    board = Board(fen)
    if words is None:          # 相三进一 is legal: make sure the table has no false alarm
        assert parse_move(board, text, notation) == M("g0i2")
        return
    with pytest.raises(NotationError) as info:
        parse_move(board, text, notation)
    assert info.value.kind == kind
    assert words in str(info.value)


def test_error_classes():
    with pytest.raises(NotationError) as info:
        parse_move(Board(), "马二进四")
    error = info.value
    assert isinstance(error, ValueError)
    assert isinstance(error, IllegalMoveError) and isinstance(error, InvalidMoveError)
    assert str(error) == "'马二进四' is not legal: the horse's leg (g0) is blocked"
    with pytest.raises(NotationError):
        parse_move(Board(), "C2.5", "pgn")                     # unknown notation
    with pytest.raises(NotationError):
        parse_move(Board(), 42)                                 # not a string
    with pytest.raises(NotationError, match="not legal"):
        write_move(Board(), M("h0h3"), "chinese")               # writing an illegal move
    with pytest.raises(NotationError, match="no piece on e4"):
        write_move(Board(), M("e4e5"), "wxf")


def test_no_legal_move_at_all():
    board = Board("3k5/2R6/9/9/9/9/9/9/9/4K4 b")                # Black is stalemated (困毙)
    assert board.legal_moves == [] and board.is_stalemate()
    with pytest.raises(NotationError) as info:
        parse_move(board, "将4进1")
    assert info.value.kind == ILLEGAL


# -- lines --------------------------------------------------------------------------------------

def test_lines():
    board = Board()
    moves = [M(m) for m in ("h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "h7i7", "h0h6", "b7b3")]
    texts = write_line(board, moves, "chinese")
    assert texts == ["炮二平五", "马8进7", "马二进三", "车9平8", "车一平二", "炮8平9", "车二进六",
                     "炮2进4"]
    assert board.fen() == Board().fen() and board.ply_count == 0
    assert parse_line(board, texts) == moves
    assert parse_line(board, "1. 炮二平五 马8进7 2. 马二进三，车9平8") == moves[:4]
    assert parse_line(board, "C2.5 H8+7 H2+3 R9.8", "wxf") == moves[:4]
    assert parse_line(board, ["h2e2", "马8进7", "H2+3", "车981"]) == moves[:4]   # mixed
    with pytest.raises(NotationError, match="ply 3"):
        parse_line(board, "炮二平五 马8进7 马二进四")


def test_cli_moves(capsys):
    from xiangqi.cli import cmd_moves
    assert cmd_moves(argparse.Namespace(fen=START, notation="chinese", json=False)) == 0
    out = capsys.readouterr().out.split()
    assert len(out) == 44 and "炮二平五" in out and "帅五进一" in out


# -- round trips --------------------------------------------------------------------------------

def playout_positions(seed: int, games: int, every: int) -> list[str]:
    """FENs from seeded random games from the start position, one every ``every`` plies
    (the start position itself excluded)."""
    rng = random.Random(seed)
    fens = []
    for _ in range(games):
        board = Board()
        for ply in range(rng.randrange(20, 160)):
            moves = board.legal_moves
            if not moves:
                break
            if ply and ply % every == 0:
                fens.append(board.fen())
            board.push(rng.choice(moves))
    return fens


def placed_positions(seed: int, count: int) -> list[str]:
    """Random legal placements rich in stacked pawns and pieces sharing a file."""
    rng = random.Random(seed)
    fens: list[str] = []
    while len(fens) < count:
        codes = [0] * 90
        for color in (RED, BLACK):
            def put(piece_type: int, points: list[int], codes: list[int] = codes,
                    color: int = color) -> int | None:
                free = [sq for sq in points if not codes[sq]]
                if not free:
                    return None
                sq = rng.choice(free)
                codes[sq] = Piece(piece_type, color).code
                return sq
            put(KING, sorted(legal_points(Piece(KING, color))))
            for piece_type in (ADVISOR, ELEPHANT, HORSE, ROOK, CANNON):
                points = sorted(legal_points(Piece(piece_type, color)))
                first = put(piece_type, points) if rng.random() < 0.7 else None
                if first is not None and rng.random() < 0.6:
                    same_file = [sq for sq in points if sq % 9 == first % 9]
                    put(piece_type, same_file if rng.random() < 0.7 else points)
            pawn_points = sorted(legal_points(Piece(PAWN, color)))
            files = rng.sample(range(9), rng.choice((1, 2, 2, 3)))
            for _ in range(rng.randint(1, 5)):
                put(PAWN, [sq for sq in pawn_points if sq % 9 in files])
        fen = f"{placement_fen(codes)} {rng.choice('wb')} - - 0 1"
        try:
            board = Board(fen)
        except FenError:
            continue
        if board.legal_moves:
            fens.append(fen)
    return fens


ROUND_TRIP_FENS = (playout_positions(2024, 25, 12) + placed_positions(7, 100)
                   + [START, AFTER_H2E2, THREE_PAWNS, FOUR_PAWNS, FIVE_PAWNS, TANDEM_2_2,
                      TANDEM_3_2, BLACK_TANDEM, TWO_ROOKS, TWO_HORSES, TWO_ADVISORS])


def test_round_trip_corpus_is_varied():
    assert len(ROUND_TRIP_FENS) >= 250
    stacked = 0
    for fen in ROUND_TRIP_FENS:
        board = Board(fen)
        pawns = [sq % 9 for sq, p in board.piece_map().items()
                 if p.piece_type == PAWN and p.color == board.turn]
        per_file = sorted((pawns.count(f) for f in set(pawns)), reverse=True)
        if per_file[:1] >= [3] or per_file[:2] == [2, 2]:
            stacked += 1
    assert stacked >= 20


@pytest.mark.parametrize("notation", NOTATIONS)
def test_round_trip(notation):
    for fen in ROUND_TRIP_FENS:
        board = Board(fen)
        moves = board.legal_moves
        texts = [write_move(board, move, notation) for move in moves]
        assert len(set(texts)) == len(texts), (fen, sorted(texts))
        for move, text in zip(moves, texts):
            assert parse_move(board, text, notation) == move, (fen, move, text)
            assert detect_notation(text) == notation, (fen, text)


def test_round_trip_auto_detected_and_lines():
    for fen in ROUND_TRIP_FENS[::10]:
        board = Board(fen)
        for notation in NOTATIONS:
            for move in board.legal_moves:
                assert parse_move(board, write_move(board, move, notation)) == move
    rng = random.Random(3)
    board = Board()
    moves = []
    for _ in range(60):
        if not board.legal_moves:
            break
        moves.append(rng.choice(board.legal_moves))
        board.push(moves[-1])
    for notation in NOTATIONS:
        assert parse_line(Board(), write_line(Board(), moves, notation), notation) == moves


def test_wxf_agrees_with_fairy_stockfish():
    """Fairy-Stockfish writes the same WXF, except that it marks two pieces on one file
    front/rear only when the plain file would be ambiguous; we read its form too.  Positions
    with three pawns on a file or two doubled files are left out (its pawn scheme differs)."""
    sf = pytest.importorskip("pyffish")
    for fen in playout_positions(11, 2, 35)[:3]:
        board = Board(fen)
        pawn_files = [sq % 9 for sq, p in board.piece_map().items()
                      if p.piece_type == PAWN and p.color == board.turn]
        counts = sorted((pawn_files.count(f) for f in set(pawn_files)), reverse=True)
        if counts[:1] >= [3] or counts[:2] == [2, 2]:
            continue
        for move in board.legal_moves:
            iccs = move.iccs()
            uci = f"{iccs[0]}{int(iccs[1]) + 1}{iccs[2]}{int(iccs[3]) + 1}"
            theirs = sf.get_san("xiangqi", fen, uci, False, sf.NOTATION_XIANGQI_WXF)
            assert parse_wxf(board, theirs) == move, (fen, iccs, theirs)
            ours = write_move(board, move, "wxf")
            if ours[1] not in "+-":
                assert ours == theirs.replace("=", "."), (fen, iccs, theirs)


# -- fuzzing ------------------------------------------------------------------------------------

FUZZ_FENS = [START, AFTER_H2E2, TANDEM_3_2, BLACK_TANDEM, TWO_HORSES]
FUZZ_BOARDS = [Board(fen) for fen in FUZZ_FENS]
ALPHABET = ("KAEBHNRCPkaebhnrcpxyz0123456789+-.=/ abcdefghi"
            "帅帥将將仕士相象马馬傌车車俥炮砲包兵卒一二三四五六七八九进進退平上下前中后後１２３４５＋")
SOME_TEXT = st.one_of(st.text(max_size=12), st.text(alphabet=ALPHABET, max_size=8))
NOTATION_OR_NONE = st.sampled_from((None,) + NOTATIONS)
FUZZ_SETTINGS = settings(max_examples=150, database=None, deadline=None, derandomize=True,
                         suppress_health_check=[HealthCheck.too_slow])


def parse_or_error(board: Board, text: str, notation: str | None) -> None:
    try:
        move = parse_move(board, text, notation)
    except NotationError as error:
        assert str(error)
        return
    assert move in board.legal_moves


@FUZZ_SETTINGS
@given(st.sampled_from(range(len(FUZZ_BOARDS))), SOME_TEXT, NOTATION_OR_NONE)
def test_fuzz_random_text(index, text, notation):
    parse_or_error(FUZZ_BOARDS[index], text, notation)


EDITS = st.lists(st.tuples(st.sampled_from(("insert", "delete", "replace", "swap")),
                           st.integers(0, 7), st.sampled_from(ALPHABET)), min_size=1, max_size=3)


@FUZZ_SETTINGS
@given(st.data(), NOTATION_OR_NONE)
def test_fuzz_mutated_moves(data, notation):
    board = data.draw(st.sampled_from(FUZZ_BOARDS))
    move = data.draw(st.sampled_from(board.legal_moves))
    text = list(write_move(board, move, data.draw(st.sampled_from(NOTATIONS))))
    for edit, position, char in data.draw(EDITS):
        at = position % (len(text) + 1)
        if edit == "insert":
            text.insert(at, char)
        elif text and at < len(text):
            if edit == "delete":
                del text[at]
            elif edit == "replace":
                text[at] = char
            elif at + 1 < len(text):
                text[at], text[at + 1] = text[at + 1], text[at]
    parse_or_error(board, "".join(text), notation)
