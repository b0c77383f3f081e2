"""Rules-engine subcommands: ``perft``, ``moves``, ``fen check`` and ``judge``."""
from __future__ import annotations

import argparse
import json
import sys
import time
import unicodedata
from typing import Any

from ._core import PerftInterrupted
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
    try:
        if args.divide:
            total = 0
            for move, count in sorted(board.perft_divide(args.depth),
                                      key=lambda mc: mc[0].iccs()):
                print(f"{move.iccs()}: {count}")
                total += count
            print()
        else:
            total = board.perft(args.depth)
    except PerftInterrupted as stop:
        # What is known: the exact count under each root move finished before Ctrl-C.
        elapsed = time.perf_counter() - start
        print(f"interrupted after {elapsed:.1f} s: {len(stop.done)} of "
              f"{len(stop.done) + stop.remaining} root moves counted", file=sys.stderr)
        for move, count in stop.done:
            print(f"{move.iccs()}: {count}")
        print(f"partial total (the root moves above): {stop.partial_total}")
        return 130
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


def cmd_judge(args: argparse.Namespace) -> int:
    from .notation import NotationError, parse_line, write_move
    from .rules import adjudicate, classify_move, natural_limit

    board = _board(args.fen)
    if board is None:
        return 1
    start = board.copy(stack=False)
    try:
        moves = parse_line(board.copy(stack=False), args.moves)
    except NotationError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    rows: list[dict[str, Any]] = []
    for number, move in enumerate(moves, 1):
        mc = classify_move(board, move, args.rules)
        rows.append({"ply": number, "move": move.iccs(),
                     "written": write_move(board, move, args.notation),
                     "side": "red" if mc.color == 0 else "black", "kind": mc.kind.name.lower(),
                     "label": mc.label, "chases": [str(c) for c in mc.chases],
                     "notes": list(mc.notes)})
        board.push_unchecked(move)
    verdict = adjudicate(board, args.rules, min_occurrences=args.occurrences)
    limit = natural_limit(board, rules=args.rules)
    if args.json:
        print(json.dumps({
            "fen": start.fen(), "rules": args.rules, "moves": rows,
            "verdict": None if verdict is None else {
                "result": verdict.result,
                "loser": None if verdict.loser is None else ("red", "black")[verdict.loser],
                "clause": verdict.clause,
                "cycle_start_ply": verdict.cycle.start_ply,
                "cycle_moves": [m.iccs() for m in verdict.cycle.moves],
                "occurrences": verdict.cycle.occurrences,
                "conduct": {("red", "black")[c.color]: {"label": c.label, "forbidden": c.forbidden,
                                                        "reason": c.reason}
                            for c in verdict.conduct}},
            "natural_limit": {"reached": limit.reached, "counted_plies": limit.counted_plies,
                              "plies_without_capture": limit.plies_without_capture,
                              "claimant_checks": limit.claimant_checks},
        }, ensure_ascii=False, indent=2))
        return 0
    for row in rows:
        detail = "; ".join(row["chases"] + row["notes"])
        print(f"{row['ply']:>3}. {_pad(row['written'], 10)} {row['label']}"
              + (f"  ({detail})" if detail else ""))
    if verdict is None:
        print(f"No repetition judged yet (needs the position {args.occurrences} times).")
    else:
        print(verdict)
    print(limit)
    return 0


def _pad(text: str, cells: int) -> str:
    """``text`` padded to ``cells`` terminal columns (Chinese characters take two)."""
    width = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
    return text + " " * max(0, cells - width)


def whole_number(minimum: int, maximum: int | None = None):
    """An argparse type: an integer from ``minimum`` (to ``maximum``), else a usage error."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number, not {text!r}") from None
        if value < minimum or (maximum is not None and value > maximum):
            bound = f"from {minimum} to {maximum}" if maximum is not None else f"at least {minimum}"
            raise argparse.ArgumentTypeError(f"must be {bound}, not {value}")
        return value
    parse.__name__ = "whole number"
    return parse


def register(subparsers: argparse._SubParsersAction) -> None:
    perft = subparsers.add_parser("perft", help="count leaf nodes of the legal move tree")
    perft.add_argument("fen", metavar="FEN")
    perft.add_argument("depth", metavar="DEPTH", type=whole_number(0))
    perft.add_argument("--divide", action="store_true", help="show the count under each move")
    perft.add_argument("-v", "--verbose", action="store_true", help="print time and speed")
    perft.set_defaults(handler=cmd_perft)

    moves = subparsers.add_parser("moves", help="list the legal moves of a position")
    moves.add_argument("fen", metavar="FEN")
    moves.add_argument("--notation", choices=NOTATIONS, default="iccs")
    moves.set_defaults(handler=cmd_moves)

    fen = subparsers.add_parser("fen", help="FEN utilities")
    fen_commands = fen.add_subparsers(dest="fen_command", metavar="ACTION", required=True)
    judge = subparsers.add_parser(
        "judge", help="classify moves by the repetition rules (将/杀/捉/闲) and judge a cycle")
    judge.add_argument("fen", metavar="FEN", help="the position before the moves")
    judge.add_argument("moves", metavar="MOVE", nargs="*",
                       help="moves in ICCS, WXF, Chinese or 一字三码 (detected)")
    judge.add_argument("--rules", choices=("chinese", "asian"), default="chinese",
                       help="rule set: chinese (中国象棋竞赛规则) or asian (AXF)")
    judge.add_argument("--occurrences", type=whole_number(2), default=3,
                       help="judge once the final position has occurred this often (default 3)")
    judge.add_argument("--notation", choices=NOTATIONS, default="chinese")
    judge.add_argument("--json", action="store_true", help="machine-readable output")
    judge.set_defaults(handler=cmd_judge)

    check = fen_commands.add_parser("check", help="validate a FEN: OK, or what is wrong")
    check.add_argument("fen", metavar="FEN")
    check.set_defaults(handler=cmd_fen_check)
