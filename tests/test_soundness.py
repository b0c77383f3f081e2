"""Soundness reports: key, cooks, tries, duals, recorded lines and draw stipulations."""
import json
import re
from pathlib import Path

import pytest

from solver import Limits, SolverError
from solver.search import Solver
from solver.soundness import verify
from tui.cli import main
from xiangqi import Board

# 《适情雅趣》, the copy the catalogue ships.
BOOK = Path(__file__).resolve().parent.parent / "puzzles" / "data" / "shiqingyaqu551.fen"
FENS = re.findall(r'\[FEN "([^"]+)"\]',
                  (BOOK).read_text(encoding="utf-8-sig"))
ROOK_MATES = "3k5/9/9/9/9/9/9/9/9/R3K4 w"   # Ra0-a8 (困毙) and Ra0-d0 (将死) both win at once


def iccs(moves):
    return [m.iccs() for m in moves]


def test_cooked_key():
    report = verify(Board(ROOK_MATES), "win")
    assert (report.verdict, report.length, report.key.iccs()) == ("mate", 1, "a0a8")
    assert [(c.move.iccs(), c.length) for c in report.cooks] == [("a0d0", 1)]
    assert not report.sound


def test_unique_key_and_tries_in_check_problem():
    report = verify(Board(ROOK_MATES), "checks")
    assert report.key.iccs() == "a0d0" and report.cooks == [] and report.sound
    # Ra0-a9 checks too but the king escapes to d8: the only defence.
    assert [(t.move.iccs(), t.refutation.iccs()) for t in report.tries] == [("a0a9", "d9d8")]


@pytest.mark.parametrize("number,ply,dual,length", [(8, 14, "c6d6", 2), (12, 6, "f4f8", 2)])
def test_duals_on_the_main_line(number, ply, dual, length):
    report = verify(Board(FENS[number - 1]), "checks")
    assert report.sound
    assert [(d.ply, d.move.iccs(), d.length) for d in report.duals] == [(ply, dual, length)]
    board = Board(FENS[number - 1])
    for move in report.main_line[:ply]:
        board.push(move)
    board.push_iccs(dual)                   # the dual is legal where it is reported


def test_recorded_line_longer_than_forced_mate():
    report = verify(Board(ROOK_MATES), "win", line="a0a1 d9d8 a1d1")
    check = report.intended
    assert check.legal and check.ends_in_mate and check.forced and not check.minimal
    assert check.problem == "the recorded line takes 2 moves; a forced mate in 1 exists"


def test_recorded_line_errors():
    illegal = verify(Board(ROOK_MATES), "win", line="a0a1 d9d7").intended
    assert not illegal.legal and "d9d7" in illegal.problem
    not_forced = verify(Board(FENS[0]), "checks", line="e4a4 g3e2 d8d9").intended
    assert not not_forced.ends_in_mate and not not_forced.forced


def test_recorded_line_in_chinese_notation():
    report = verify(Board(FENS[0]), "checks",
                    line="炮五平九 马7进5 兵六进一 将5进1 车七进八 将5进1 马二进四 将5平6 "
                         "马八进六 将6退1 马六退五 将6进1 马五退三")
    assert report.intended.minimal and report.intended.forced and report.intended.problem is None


def test_draw_stipulation():
    assert verify(Board(ROOK_MATES), "draw", moves=2).verdict == "Red wins"
    black_rook = verify(Board("3k5/9/9/9/9/9/9/9/r8/4K4 w"), "draw", moves=4)
    assert black_rook.verdict == "Black wins" and black_rook.draw.black_wins == "mate"
    # Neither side wins within 2 moves: a bounded result, never called a draw.
    qixing = verify(Board("4rk3/3P5/4bP3/9/9/8P/9/1p2p2C1/3p1p3/4K1RR1 w"), "draw", moves=2,
                    traps=False, line=False)
    assert qixing.verdict == "no win within the bound" and qixing.unproven == []
    assert qixing.draw.red_wins == qixing.draw.black_wins == "no mate" and qixing.draw.bound == 2


def test_bad_stipulation():
    with pytest.raises(SolverError):
        verify(Board(), "stalemate")


def test_verify_command(capsys):
    # Cooked, so not sound: exit status 1.
    assert main(["verify", ROOK_MATES, "--notation", "iccs"]) == 1
    out = capsys.readouterr().out
    assert "Key: a0a8 (cooked)" in out and "Not sound" in out
    assert "cook: a0d0 also mates in 1" in out
    assert main(["verify", FENS[0], "--stipulation", "checks", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "mate" and data["moves"] == 7 and data["unique_key"]


def test_solve_command(capsys):
    assert main(["solve", FENS[0], "--checks", "--notation", "iccs"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "Mate in 7 (13 plies), every move a check"
    assert out.splitlines()[1] == "1. e4a4 g3e2"
    # No mate: a negative answer, exit status 1.
    assert main(["solve", FENS[3], "--checks", "--max-moves", "10", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["verdict"] == "no mate"


def test_repetition_judge_applies_the_full_rules():
    from solver.search import repetition_judge
    from xiangqi import Move
    from xiangqi.rules import RulesError

    def cycle(fen: str, moves: list[str], rules: str) -> int:
        codes = Board(fen)._codes()
        pairs = [(Move.from_iccs(m).from_square, Move.from_iccs(m).to_square) for m in moves]
        return repetition_judge(rules)(codes, Board(fen).turn, pairs)

    chase = ("5k3/9/1c7/9/2R6/9/9/9/9/3K5 w", ["c5b5", "b7c7", "b5c5", "c7b7"])
    assert cycle(*chase, "chinese") == 0                   # Red's 长捉: Red must deviate
    protected = ("5k3/9/rc7/9/2R6/9/9/9/9/3K5 w", ["c5b5", "b7c7", "b5c5", "c7b7"])
    assert cycle(*protected, "chinese") == -1
    mixed = ("4k4/9/R1n6/9/9/9/9/9/9/3K5 w", ["a7a9", "e9e8", "a9a7", "e8e9"])
    assert cycle(*mixed, "chinese") == 0 and cycle(*mixed, "asian") == -1
    with pytest.raises(RulesError):
        repetition_judge("fide")


def test_draw_verification_judges_repetitions_by_the_rules():
    # Rook against rook: a draw.  Every repetition in which the defender might be attacking
    # throughout is judged by the 棋例, and the verdict says which rules applied.
    board = Board("3k5/9/9/9/9/9/9/2r6/9/4K1R2 w")
    report = verify(board, "draw", moves=3, traps=False, line=False)
    assert report.verdict == "no win within the bound" and report.draw.rules == "chinese"
    judged = Solver(board, "any", Limits(repetition_rules="chinese"))
    plain = Solver(board, "any")
    assert judged.search.value(board, 4, True) == plain.search.value(board, 4, True) == \
        ("disproven", None)
    assert judged.search.judge_calls > 0 and plain.search.judge_calls == 0
