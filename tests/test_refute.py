"""Refutations: the other side mates whatever the side to move plays (a win stipulation that
is false as set), proven by one df-pn search from an AND root."""
import json
import re
from pathlib import Path

import pytest

from solver import Limits
from solver.refute import refute
from solver.soundness import verify
from tablebases import open_tablebase
from tui.cli import main
from xiangqi import Board

# 《适情雅趣》, the copy the catalogue ships.
BOOK = Path(__file__).resolve().parent.parent / "puzzles" / "data" / "shiqingyaqu551.fen"
FENS = re.findall(r'\[FEN "([^"]+)"\]',
                  (BOOK).read_text(encoding="utf-8-sig"))
# 《适情雅趣》 No. 267, titled 红先胜: as set, Black mates in 8 against every Red move.
NO_267 = FENS[267 - 1]
NO_267_REFUTATION = ("e6e7 d7d8 e7d7 d8d7 f7e5 d7e7 d9d1 a1a5 d1a1 a5a1 e0d0 a1a0 d0d1 h9h1 "
                     "d1d2 a0a2").split()
KRKAB_LONGEST = "9/4k4/5a3/9/6b2/9/9/9/9/R2K5 w"   # Red mates in 8 (15 plies)


def iccs(moves):
    return [move.iccs() for move in moves]


def replay(fen, moves):
    board = Board(fen)
    for move in moves:
        assert move in board.legal_moves, (board.fen(), move.iccs())
        board.push(move)
    return board


def test_a_book_win_that_is_lost_for_red_is_refuted_with_its_longest_resistance():
    answer = refute(Board(NO_267), limits=Limits(seconds=60))
    assert (answer.verdict, answer.length, answer.exact) == ("refuted", 8, True)
    assert iccs(answer.main_line) == NO_267_REFUTATION
    end = replay(NO_267, answer.main_line)
    assert end.turn == 0 and not end.has_legal_move()       # Red is mated


def test_a_real_win_is_not_refuted_within_the_bound():
    # No. 1 is a continuous-check win: some Red move leaves Black no mate in 5 (proved
    # full width), so the answer is "not refuted" and there is no line.
    answer = refute(Board(FENS[0]), max_moves=5, limits=Limits(seconds=60))
    assert (answer.verdict, answer.length, answer.main_line) == ("not refuted", None, [])


def test_a_spent_budget_is_unknown_never_not_refuted():
    answer = refute(Board(NO_267), limits=Limits(nodes=2_000))
    assert answer.verdict == "unknown" and answer.length is None and not answer.exact


@pytest.mark.parametrize("tables", ["none", "leaves", "oracle"])
def test_refutation_agrees_with_the_table_and_resists_longest(krkab_tables, tables):
    """After Red's best first move Black loses in 14 plies: the refutation of Black's position
    is a mate in 7, whether searched, answered at the leaves or at the root by a table, and
    along its line the table's distance falls by one ply a move."""
    oracle_dir, leaves_dir = krkab_tables
    after = replay(KRKAB_LONGEST, [])
    with open_tablebase(oracle_dir) as oracle, open_tablebase(leaves_dir) as leaves:
        after.push(oracle.ranked_moves(after)[0].move)     # Red's fastest mate
        assert oracle.probe_dtm(after) == -14
        table = {"none": None, "leaves": leaves, "oracle": oracle}[tables]
        answer = refute(after, max_moves=10, tablebases=table)
        assert (answer.verdict, answer.length, answer.exact) == ("refuted", 7, True)
        assert (answer.tb_leaves > 0) == (tables != "none")
        position = after.copy()
        for ply, move in enumerate(answer.main_line):
            position.push(move)
            if position.has_legal_move():
                assert abs(oracle.probe_dtm(position)) == 14 - ply - 1, (ply, move.iccs())
        assert len(answer.main_line) == 14 and not position.has_legal_move()


def test_verify_says_that_a_problem_without_a_mate_is_refuted():
    report = verify(Board(NO_267), "win", limits=Limits(seconds=60))
    assert report.verdict == "no mate" and not report.sound
    assert report.refutation is not None and report.refutation.refuted
    assert (report.refutation.length, iccs(report.refutation.main_line)) == (
        8, NO_267_REFUTATION)
    assert verify(Board(NO_267), "win", limits=Limits(seconds=60),
                  refutation=False).refutation is None
    # A mate found: nothing to refute.
    assert verify(Board("3k5/9/9/9/9/9/9/9/9/R3K4 w"), "checks").refutation is None


def test_problem_refute_command(capsys):
    assert main(["problem", "refute", NO_267, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["verdict"], data["length"], data["exact"]) == ("refuted", 8, True)
    assert data["main_line"] == NO_267_REFUTATION and data["nodes"] > 0
    assert main(["problem", "refute", NO_267]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Refuted: whatever Red plays, Black mates in 8 (16 plies)"
    assert out[2] == "1. 兵五进一 将4退1" and out[-1] == "8. 帅六进一 车1退2"
    assert main(["problem", "refute", FENS[0], "--max-moves", "3"]) == 1
    assert capsys.readouterr().out.startswith("Not refuted: Red has a move after which Black")
    assert main(["problem", "verify", NO_267, "--seconds", "30", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["refutation"]["verdict"] == "refuted" and data["refutation"]["length"] == 8


def test_catalogue_verify_records_a_refutation_with_its_line():
    from puzzles.catalogue import replay_fault
    from puzzles.verification import VerifySettings, verify_composition

    result = verify_composition(NO_267, "win", VerifySettings.uniform(seconds=30))
    assert (result["stipulation"], result["verdict"], result["moves"]) == ("win", "refuted", 8)
    assert result["main_line"].split() == NO_267_REFUTATION
    assert result["main_line_zh"].startswith("兵五进一 将4退1")
    assert replay_fault(Board(NO_267), replay_moves(NO_267_REFUTATION), checks=False,
                        refutation=True) is None
    # Read the other way (a mate by the side to move), the same line is a fault.
    assert replay_fault(Board(NO_267), replay_moves(NO_267_REFUTATION),
                        checks=False) == "the line does not end in mate"


def replay_moves(texts):
    from xiangqi import Move

    return [Move.from_iccs(text) for text in texts]


# Black to move: his elephant takes the unguarded rook, and K A B cannot mate a bare king.
ROOK_TAKEN = "2b1k4/4a4/4R4/9/9/9/9/9/9/3K5 b"


def test_catalogue_verify_takes_the_word_of_the_positions_own_table(krkab_tables):
    """A position its table covers: a loss is refuted at the table's length (the bound follows
    the table), a draw is recorded as a draw as set, whatever the budget."""
    from puzzles.catalogue import replay_fault
    from puzzles.verification import TABLE_DRAW, VerifySettings, verify_composition

    oracle_dir, _ = krkab_tables
    after = replay(KRKAB_LONGEST, [])
    with open_tablebase(oracle_dir) as oracle:
        after.push(oracle.ranked_moves(after)[0].move)      # Black to move, lost in 14 plies
        assert oracle.probe_dtm(Board(ROOK_TAKEN)) == 0
    lost = verify_composition(after.fen(), "win", VerifySettings.uniform(
        seconds=10, tables=str(oracle_dir)))
    assert (lost["stipulation"], lost["verdict"], lost["moves"]) == ("win", "refuted", 7)
    assert replay_fault(after, replay_moves(lost["main_line"].split()), checks=False,
                        refutation=True) is None
    drawn = verify_composition(ROOK_TAKEN, "win", VerifySettings.uniform(
        seconds=10, tables=str(oracle_dir)))
    assert (drawn["verdict"], drawn["moves"], drawn["main_line"]) == (TABLE_DRAW, None, "")
    # Without the table the search can only bound it.
    bounded = verify_composition(ROOK_TAKEN, "win", VerifySettings.uniform(nodes=20_000))
    assert bounded["verdict"] != TABLE_DRAW
