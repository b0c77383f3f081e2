"""The practice rating's features (puzzles.difficulty) counted on known solutions."""
from __future__ import annotations

import pytest

from puzzles.difficulty import features, rating
from xiangqi import Board


def test_a_sacrifice_is_counted() -> None:
    # 闷杀: the rook is given up on e8 and the advisor that takes it blocks the king.
    f = features(Board("2nak1b2/8R/3a5/5N3/3C5/9/1p7/p8/9/5K3 w - - 0 1"), "i8e8 d7e8 f6g8")
    assert (f.moves, f.quiet, f.sacrifices) == (2, 0, 1)


def test_quiet_moves_and_tries_are_counted() -> None:
    # 重炮 built by the generator: three of its four moves give no check.
    board = Board("5k3/9/9/3C2C2/9/9/9/9/9/3K5 w - - 0 1")
    f = features(board, "d0e0 f9f8 d6d1 f8f7 d1f1 f7f8 g6f6")
    assert (f.moves, f.quiet) == (4, 3)             # d0e0, d6d1, d1f1
    assert f.tries == sum(board.gives_check(m) for m in board.legal_moves)   # the key is quiet
    assert f.replies > 0


def test_the_rating_grows_with_the_work() -> None:
    one = rating(features(Board("r4k3/9/9/9/9/4R4/9/9/9/4K4 w - - 0 1"), "e4f4"))
    four = rating(features(Board("5k3/9/9/3C2C2/9/9/9/9/9/3K5 w - - 0 1"),
                           "d0e0 f9f8 d6d1 f8f7 d1f1 f7f8 g6f6"))
    assert 800 <= one < 1100 < four


def test_an_illegal_move_is_named() -> None:
    with pytest.raises(ValueError, match="move 1 of the line, e4d5"):
        features(Board("r4k3/9/9/9/9/4R4/9/9/9/4K4 w - - 0 1"), "e4d5 f9f8")
