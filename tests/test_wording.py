"""The wording a player reads (issue 38 item 5): what the commands say, on real cases."""
from __future__ import annotations

import json

import pytest

from puzzles.catalogue import replay_fault
from tui.cli import main
from xiangqi import Board, Move
from xiangqi.notation import NotationError, game_over, parse_line, parse_move

# Red mates at once: 车九进九 (a0a9), the rook on b8 guarding the Black king's only step.
MATE_IN_ONE = "3k5/1R7/9/9/9/9/9/9/9/R3K4 w - - 0 1"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# -- a) a move after mate -----------------------------------------------------------------------

def test_a_line_that_goes_on_after_mate_says_so():
    board = Board(MATE_IN_ONE)
    with pytest.raises(NotationError) as caught:
        parse_line(board, "车九进九 将4进1 车八平七")
    assert str(caught.value) == "ply 2: the line goes on after mate at ply 1 ('将4进1')"
    assert "parry" not in str(caught.value)
    mated = board.copy()
    mated.push(Move.from_iccs("a0a9"))
    assert game_over(mated) == "Black is checkmated"
    with pytest.raises(NotationError, match="the game is over: Black is checkmated"):
        parse_move(mated, "将4进1")
    with pytest.raises(NotationError, match="from a position that is already mate"):
        parse_line(mated, "d9d8")


def test_judge_of_a_line_that_goes_on_after_mate(capsys):
    status, _, err = run(capsys, "position", "judge", MATE_IN_ONE, "车九进九", "将4进1")
    assert status == 1
    assert "the line goes on after mate at ply 1" in err and "parry" not in err


def test_a_solution_that_goes_on_after_mate():
    board = Board(MATE_IN_ONE)
    moves = [Move.from_iccs(m) for m in ("a0a9", "d9d8", "a9a8")]
    assert replay_fault(board, moves, checks=True, name="solution") == \
        "the solution goes on after mate at ply 1"
    assert replay_fault(board, moves[:1], checks=True) is None


def test_judge_takes_several_moves_in_one_quoted_argument(capsys):
    fen = "4k4/9/R1n6/9/9/9/9/9/9/3K5 w"
    assert main(["position", "judge", fen, "a7a9 e9e8", "a9a7", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert [row["move"] for row in document["moves"]] == ["a7a9", "e9e8", "a9a7"]


# -- b) a histogram's one-ply row ---------------------------------------------------------------

def test_the_histogram_says_one_ply(capsys, tmp_path):
    """K R vs K: Red mates in one ply from 1,350 positions; the row says "1 ply"."""
    assert main(["tb", "build", "KRK", "--tables", str(tmp_path)]) == 0
    capsys.readouterr()
    status, out, _ = run(capsys, "tb", "stats", "KRK", "--tables", str(tmp_path))
    assert status == 0
    rows = [line.split() for line in out.splitlines() if line.strip().startswith("1 pl")]
    assert rows and all(row[:2] == ["1", "ply"] for row in rows)
    assert ["1", "ply", "1,350"] == rows[0][:3]
