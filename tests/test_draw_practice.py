"""Draw practice (红先和): the user holds the draw, the program resists; losing moves are caught
by the table, a trap of the analysis, a bounded search or the 棋例, and explained."""
from __future__ import annotations

import pytest

from solver import Limits
from solver.draw import Trap, check_drawing_line
from solver.practice import DrawPractice, PracticeError
from tablebases import open_tablebase
from tablebases.build import build
from xiangqi import Board, Move

# 《适情雅趣》 No. 550 孤雁折群（单相和马）: elephant against horse, Red to move and draw.
NO_550 = "4k4/9/9/9/9/9/9/B4n3/9/3K5 w - - 0 1"
# Its drawing line (draw_analyses.tsv): Red's king and elephant shuffle into a repetition.
LINE_550 = ("a2c0 e9e8 c0e2 e8e7 d0d1 e7e8 d1d0 e8e9 e2c0 e9f9 c0e2 f9f8 d0d1 f8e8 "
            "d1d0").split()
# Rook against rook, no table: i0i1 lets Black mate in 2; i0i5 holds.
ROOKS = "3k5/9/9/9/9/9/9/9/r8/4K3R w"


def moves(text: list[str] | str) -> list[Move]:
    return [Move.from_iccs(m) for m in (text.split() if isinstance(text, str) else text)]


@pytest.fixture(scope="module")
def knkb(tmp_path_factory):
    directory = tmp_path_factory.mktemp("draw-practice-tables")
    build(["KNKB"], directory, log=lambda line: None)
    with open_tablebase(directory) as tablebase:
        yield tablebase


def test_the_table_judges_every_move_and_the_resistance(knkb):
    board = Board(NO_550)
    practice = DrawPractice(board, tablebase=knkb)
    for ranked in knkb.ranked_moves(board):
        verdict = practice.evaluate(ranked.move)
        assert verdict.source == "table KNKB"
        # The table's value after the move, for Red, decides; a loss comes with its win.
        assert verdict.keeps_draw == (ranked.value.wdl >= -1), ranked.move.iccs()
        if not verdict.keeps_draw:
            after = board.copy()
            after.push(ranked.move)
            assert verdict.refutation == knkb.ranked_moves(after)[0].move
            assert 2 * verdict.length - 1 == knkb.probe_dtm(after)
    losing = practice.evaluate(Move.from_iccs("a2c4"))
    assert losing.keeps_draw is False and losing.line[0] == losing.refutation
    practice.play(Move.from_iccs("a2c0"))
    reply = practice.resist()
    after = board.copy()
    for move in (Move.from_iccs("a2c0"), reply):
        after.push(move)
    assert practice.defence_source == "table KNKB"
    assert knkb.probe(after).wdl == 0                   # Black keeps its own draw
    assert practice.played == [Move.from_iccs("a2c0"), reply]


def test_a_losing_move_ends_the_practice_until_taken_back(knkb):
    practice = DrawPractice(Board(NO_550), tablebase=knkb)
    practice.play(Move.from_iccs("a2c4"))
    assert practice.outcome.result == "draw lost" and "mates in 5" in practice.outcome.detail
    with pytest.raises(PracticeError, match="over"):
        practice.resist()
    assert practice.take_back() == Move.from_iccs("a2c4")
    assert practice.outcome is None and practice.board.fen() == Board(NO_550).fen()


def test_the_drawing_line_is_followed_to_its_repetition():
    # No table: Red's moves on the line hold as the analysis' line, Black plays the line's
    # moves, and Red's last move completes a repetition the Chinese rules call a draw.
    line = moves(LINE_550)
    practice = DrawPractice(Board(NO_550), line=line)
    for red, black in zip(line[::2], line[1::2]):
        verdict = practice.play(red)
        assert verdict.keeps_draw and verdict.source == "the analysis' drawing line"
        assert practice.resist() == black
        assert practice.defence_source == "the analysis' drawing line"
    last = practice.play(line[-1])
    assert last.ending == "repetition"
    outcome = practice.outcome
    assert (outcome.result, outcome.termination, outcome.moves) == ("draw", "repetition", 8)
    assert outcome.detail.startswith("Draw by repetition")


def test_a_trap_of_the_analysis_is_refuted_by_its_move():
    refutation = Move.from_iccs("f2d3")
    trap = Trap(Move.from_iccs("a2c4"), "quiet", refutation, 5, [refutation])
    practice = DrawPractice(Board(NO_550), traps=[trap])
    verdict = practice.evaluate(Move.from_iccs("a2c4"))
    assert (verdict.keeps_draw, verdict.source, verdict.refutation, verdict.length) == (
        False, "trap of the analysis", refutation, 5)


def test_a_bounded_search_judges_moves_no_table_covers():
    practice = DrawPractice(Board(ROOKS), limits=Limits(seconds=5), bound=3)
    losing = practice.evaluate(Move.from_iccs("i0i1"))
    assert (losing.keeps_draw, losing.length, losing.source) == (False, 2, "search within 3")
    # The refutation and its line are a real mate: played out, Red has no move.
    after = Board(ROOKS)
    after.push(Move.from_iccs("i0i1"))
    for move in losing.line:
        after.push(move)
    assert losing.line[0] == losing.refutation and not after.has_legal_move()
    holding = practice.play(Move.from_iccs("i0i5"))
    assert holding.keeps_draw and "no forced win within 3" in holding.reason
    before = practice.board.copy()
    reply = practice.resist()
    assert practice.defence_source == "search within 3" and practice.board.peek() == reply
    # The resistance keeps Black's draw: Red has no forced win within 3 after it.
    checked = check_drawing_line(before, [reply], bound=3)
    assert checked.steps[0].held == "no Red win within 3 (search)"


def test_the_natural_limit_ends_the_practice_in_a_draw(knkb):
    practice = DrawPractice(Board(NO_550.replace(" 0 1", " 119 60")), tablebase=knkb)
    verdict = practice.play(Move.from_iccs("a2c0"))
    assert verdict.ending == "natural limit"
    assert (practice.outcome.result, practice.outcome.termination) == ("draw", "natural limit")


def test_a_losing_start_and_bad_requests_are_refused(knkb):
    with pytest.raises(PracticeError, match="unsound"):
        DrawPractice(Board("4k4/9/9/9/9/9/9/3n5/9/2BK5 w"), tablebase=knkb)  # a lost 相
    practice = DrawPractice(Board(NO_550))
    with pytest.raises(PracticeError, match="not a legal move"):
        practice.evaluate(Move.from_iccs("a2a3"))
    with pytest.raises(PracticeError, match="holder is to move"):
        practice.resist()
    with pytest.raises(PracticeError, match="at least 1"):
        DrawPractice(Board(NO_550), bound=0)


def test_check_drawing_line_reports_what_checked_each_move(knkb):
    line = check_drawing_line(Board(NO_550), moves(LINE_550[:4]), knkb, bound=4)
    assert [step.held for step in line.steps] == ["table KNKB: draw"] * 4
    assert line.end == "line end"
    # The line stops before the first move refuted; its end names it and the win.
    searched = check_drawing_line(Board(ROOKS), moves("i0i5 a1b1"), bound=3, seconds_per_move=5)
    assert [step.held for step in searched.steps] == ["no Black win within 3 (search)"]
    assert (searched.end, searched.detail) == (
        "refuted", "ply 2, a1b1: Red wins: mate in 1 (search)")
    with pytest.raises(ValueError, match="ply 1 of the line: a2a3 is not legal"):
        check_drawing_line(Board(NO_550), moves("a2a3"))


def test_a_capture_into_a_table_draw_ends_the_practice(knkb):
    # No. 550 with a Red pawn on g4: no table for KNKPB; the horse takes the pawn (马6退7,
    # the first capture of the resistance) and the KNKB table shows a draw.
    practice = DrawPractice(Board("4k4/9/9/9/9/6P2/9/B4n3/9/3K5 w"), tablebase=knkb,
                            limits=Limits(seconds=10), bound=3)
    verdict = practice.play(Move.from_iccs("a2c0"))
    assert verdict.keeps_draw and verdict.source == "search within 3"
    assert practice.resist() == Move.from_iccs("f2g4")
    outcome = practice.outcome
    assert (outcome.result, outcome.termination) == ("draw", "table")
    assert outcome.detail == "the table KNKB shows a draw"
