"""Xiangqi rules engine: board, moves, FEN and notations (Cython core in ``_core``)."""
from ._core import IllegalMoveError, InvalidMoveError, Move, PerftInterrupted
from .board import Board, Outcome, Termination
from .fen import STARTING_FEN, FenError
from .pieces import (
    ADVISOR,
    BLACK,
    CANNON,
    ELEPHANT,
    HORSE,
    KING,
    PAWN,
    RED,
    ROOK,
    Piece,
    parse_square,
    square,
    square_file,
    square_name,
    square_rank,
)

__all__ = [
    "Board", "Move", "Outcome", "Termination", "FenError", "IllegalMoveError",
    "InvalidMoveError", "PerftInterrupted", "STARTING_FEN", "Piece", "RED", "BLACK", "KING",
    "ADVISOR",
    "ELEPHANT", "HORSE", "ROOK", "CANNON", "PAWN", "square", "square_file", "square_rank",
    "square_name", "parse_square",
]
