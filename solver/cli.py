"""Solver subcommands: ``solve`` and ``verify``."""
from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from pathlib import Path

from xiangqi import Board, FenError
from xiangqi.notation import write_line

from .search import Limits, SolverError, solve


def _open_tables(directory: Path | None):
    from tablebases import open_tablebase
    from tablebases.paths import default_directory

    directory = directory or default_directory()
    if not directory.exists():
        return None
    tablebase = open_tablebase(directory)
    return tablebase if tablebase.materials() else None


class LiveProgress:
    """Nodes, speed, table fill and time on one stderr line; Ctrl-C cancels the search."""

    def __init__(self, quiet: bool) -> None:
        self.start = time.perf_counter()
        self.quiet = quiet or not sys.stderr.isatty()
        self.cancelled = False
        self.entries = 1

    def __call__(self, nodes: int, table_used: int) -> bool:
        if not self.quiet:
            elapsed = time.perf_counter() - self.start
            rate = nodes / elapsed if elapsed > 0 else 0.0
            sys.stderr.write(f"\r{nodes:>12,} nodes  {rate / 1e3:8.0f} k nodes/s  table "
                             f"{100.0 * table_used / self.entries:5.1f}%  {elapsed:7.1f} s")
            sys.stderr.flush()
        return self.cancelled

    def finish(self) -> None:
        if not self.quiet:
            sys.stderr.write("\r" + " " * 78 + "\r")


def _board(fen: str) -> Board | None:
    try:
        return Board(fen)
    except FenError as error:
        print(f"error: invalid FEN: {error}", file=sys.stderr)
        return None


def cmd_solve(args: argparse.Namespace) -> int:
    board = _board(args.fen)
    if board is None:
        return 1
    progress = LiveProgress(args.json)
    progress.entries = 1 << args.table_bits
    previous = signal.signal(signal.SIGINT, lambda *_: setattr(progress, "cancelled", True))
    try:
        result = solve(board, mode="checks" if args.checks else "any", max_moves=args.max_moves,
                       tablebase=None if args.no_tables else _open_tables(args.tables),
                       limits=Limits(nodes=args.nodes, seconds=args.seconds,
                                     table_bits=args.table_bits),
                       progress=progress)
    except SolverError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    finally:
        signal.signal(signal.SIGINT, previous)
        progress.finish()
    line = write_line(board, result.main_line, args.notation)
    if args.json:
        print(json.dumps({
            "fen": board.fen(), "mode": result.mode, "max_moves": result.max_moves,
            "verdict": result.verdict, "moves": result.length, "plies": result.plies,
            "main_line": [m.iccs() for m in result.main_line], "main_line_text": line,
            "nodes": result.nodes, "seconds": round(result.seconds, 3),
            "interrupted": progress.cancelled,
        }, ensure_ascii=False))
        return 0
    if result.verdict == "mate":
        print(f"Mate in {result.length} ({result.plies} plies), "
              f"{'every move a check' if result.mode == 'checks' else 'quiet moves allowed'}")
        print(_numbered(line, board.turn))
    elif result.verdict == "no mate":
        kind = "continuous-check " if result.mode == "checks" else ""
        print(f"No {kind}mate within {result.max_moves} moves")
    else:
        reason = "interrupted" if progress.cancelled else "a search limit was reached"
        print(f"Unknown: {reason} before the search finished")
    print(f"{result.nodes:,} nodes in {result.seconds:.2f} s "
          f"({result.nodes_per_second / 1e3:.0f} k nodes/s)", file=sys.stderr)
    return 0


def _numbered(moves: list[str], first_turn: int) -> str:
    parts = []
    number = 1
    index = 0
    if first_turn == 1 and moves:
        parts.append(f"1. ... {moves[0]}")
        index, number = 1, 2
    while index < len(moves):
        pair = moves[index:index + 2]
        parts.append(f"{number}. " + " ".join(pair))
        index += 2
        number += 1
    return "\n".join(parts)


def register(subparsers: argparse._SubParsersAction) -> None:
    solve_ = subparsers.add_parser("solve", help="prove a mate for the side to move")
    solve_.add_argument("fen", metavar="FEN")
    solve_.add_argument("--checks", action="store_true",
                        help="continuous-check problem (连照杀): every attacker move checks")
    solve_.add_argument("--max-moves", type=int, default=None,
                        help="bound on the attacker's moves (default 200 with --checks, else 20)")
    solve_.add_argument("--notation", choices=("iccs", "wxf", "chinese", "code3"),
                        default="chinese")
    solve_.add_argument("--json", action="store_true", help="one JSON object on stdout")
    solve_.add_argument("--nodes", type=int, default=0, help="node budget (0: none)")
    solve_.add_argument("--seconds", type=float, default=0.0, help="time budget (0: none)")
    solve_.add_argument("--table-bits", type=int, default=22,
                        help="transposition table of 2^N entries, 32 bytes each (default 22)")
    solve_.add_argument("--tables", type=Path, default=None,
                        help="tablebase directory for leaves (default: the tablebases' own)")
    solve_.add_argument("--no-tables", action="store_true", help="do not probe tablebases")
    solve_.set_defaults(handler=cmd_solve)
