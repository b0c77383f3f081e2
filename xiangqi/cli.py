"""Rules-engine subcommands: ``perft``, ``moves`` and ``fen check``."""
from __future__ import annotations

import argparse
import sys
import time

from .board import Board
from .fen import FenError

NOTATIONS = ("iccs", "wxf", "chinese", "code3")


def _board(fen: str) -> Board | None:
    try:
        return Board(fen)
    except FenError as error:
        print(f"error: invalid FEN: {error}", file=sys.stderr)
        return None


def cmd_perft(args: argparse.Namespace) -> int:
    board = _board(args.fen)
    if board is None:
        return 1
    start = time.perf_counter()
    if args.divide:
        total = 0
        for move, count in sorted(board.perft_divide(args.depth), key=lambda mc: mc[0].iccs()):
            print(f"{move.iccs()}: {count}")
            total += count
        print()
    else:
        total = board.perft(args.depth)
    elapsed = time.perf_counter() - start
    if args.verbose:
        rate = total / elapsed if elapsed > 0 else float("inf")
        print(f"{elapsed:.3f} s, {rate / 1e6:.2f} M nodes/s", file=sys.stderr)
    print(total)
    return 0


def cmd_moves(args: argparse.Namespace) -> int:
    from .notation import write_move

    board = _board(args.fen)
    if board is None:
        return 1
    moves = sorted(board.legal_moves, key=lambda m: (m.from_square, m.to_square))
    print(" ".join(write_move(board, move, args.notation) for move in moves))
    return 0


def cmd_fen_check(args: argparse.Namespace) -> int:
    try:
        Board(args.fen)
    except FenError as error:
        print(f"invalid: {error}")
        return 1
    print("OK")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    perft = subparsers.add_parser("perft", help="count leaf nodes of the legal move tree")
    perft.add_argument("fen", metavar="FEN")
    perft.add_argument("depth", metavar="DEPTH", type=int)
    perft.add_argument("--divide", action="store_true", help="show the count under each move")
    perft.add_argument("-v", "--verbose", action="store_true", help="print time and speed")
    perft.set_defaults(handler=cmd_perft)

    moves = subparsers.add_parser("moves", help="list the legal moves of a position")
    moves.add_argument("fen", metavar="FEN")
    moves.add_argument("--notation", choices=NOTATIONS, default="iccs")
    moves.set_defaults(handler=cmd_moves)

    fen = subparsers.add_parser("fen", help="FEN utilities")
    fen_commands = fen.add_subparsers(dest="fen_command", metavar="ACTION", required=True)
    check = fen_commands.add_parser("check", help="validate a FEN: OK, or what is wrong")
    check.add_argument("fen", metavar="FEN")
    check.set_defaults(handler=cmd_fen_check)
