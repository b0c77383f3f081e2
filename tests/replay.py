"""Replaying a proposed line: the mate finders' tests share it."""
from __future__ import annotations

from xiangqi import Board, Move


def replays_to_mate(fen: str, line: list[tuple[int, int]]) -> bool:
    """Every (from, to) move of ``line`` is legal in turn from ``fen`` (an AssertionError
    names the first that is not), and the last leaves the side to move without a move."""
    board = Board(fen)
    for from_square, to_square in line:
        move = Move(from_square, to_square)
        assert move in board.legal_moves, (board.fen(), move.iccs())
        board.push(move)
    return not board.has_legal_move()
