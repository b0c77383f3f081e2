"""Solver speed on composed problems: exact length, nodes, time and nodes per second.

Usage:
    python benchmarks/bench_solver.py                    # the fixed set below
    python benchmarks/bench_solver.py --scan 100         # the first N of 适情雅趣 (checks mode)
    python benchmarks/bench_solver.py --lambda           # quiet-move problems (λ-search)
Options: --seconds S (budget per problem, default 120).
The fixed set: continuous-check problems of 5-30 moves from 《适情雅趣》 and quiet-move
problems of 3-10 moves; each line states the exact forced length found (proven minimal).
``--lambda``: quiet-move problems of 《适情雅趣》 and endgames, with the λ order that proved
each, the share of nodes spent in threat tests, and the node rate with tablebase leaves
against the rate without (K R vs K A B, its sub-tables built in a temporary directory).
"""
from __future__ import annotations

import argparse
import re
import time
from pathlib import Path

from solver import Limits, solve
from xiangqi import Board

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "shiqingyaqu551.fen"

CHECK_PROBLEMS = [1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12]     # numbers in 适情雅趣
# The longest continuous-check composition we have: a mate in 59 (tests/data/perft.tsv).
LONG_PROBLEMS = [
    ("long composition (perft.tsv)", "5r1C1/7C1/3k5/8R/3P2p2/2B3pnc/6p1P/6pN1/1n1Kc3r/7p1 w"),
]

QUIET_PROBLEMS = [
    ("rook against two advisors", "3ak4/4a4/9/9/9/9/9/9/9/3K4R w"),
    ("rook against advisor and elephant", "3ak4/9/4b4/9/9/9/9/4B4/4A4/3AK1R2 w"),
    ("rook against elephant", "4k4/9/4b4/9/9/9/9/9/9/3K1R3 w"),
    ("horse against advisor", "4k4/4a4/9/9/9/9/9/9/9/N2K5 w"),
]


def compositions() -> tuple[list[str], list[str]]:
    text = DATA.read_text(encoding="utf-8-sig")
    return re.findall(r'\[FEN "([^"]+)"\]', text), re.findall(r'\[EVENT "([^"]+)"\]', text)


def run_one(label: str, fen: str, mode: str, max_moves: int, seconds: float) -> tuple:
    start = time.perf_counter()
    result = solve(Board(fen), mode=mode, max_moves=max_moves, limits=Limits(seconds=seconds))
    elapsed = time.perf_counter() - start
    length = "-" if result.length is None else str(result.length)
    print(f"{label:<34} {mode:<6} {result.verdict:<8} {length:>6} {result.nodes:>12,} "
          f"{elapsed:>8.2f} {result.nodes / elapsed / 1e3 if elapsed else 0:>9.0f}", flush=True)
    return result, elapsed


# Quiet-move problems of 《适情雅趣》 that the λ-search proves (numbers in the book).
LAMBDA_PROBLEMS = [189, 316, 337, 358]


def run_lambda(seconds: float) -> None:
    import tempfile

    from solver.search import Solver
    from tablebases import open_tablebase
    from tablebases.build import build

    fens, names = compositions()
    print(f"{'problem':<34} {'verdict':<8} {'moves':>5} {'exact':>5} {'order':>5} "
          f"{'nodes':>11} {'seconds':>8} {'k nodes/s':>9} {'threat %':>8}")
    for number in LAMBDA_PROBLEMS:
        board = Board(fens[number - 1])
        solver = Solver(board, "any", Limits(seconds=seconds))
        start = time.perf_counter()
        result = solver.run(30)
        elapsed = time.perf_counter() - start
        share = 100.0 * solver.search.threat_nodes_spent / max(1, result.nodes)
        label = f"适情雅趣 {number:03d} {names[number - 1].split()[-1]}"
        print(f"{label:<34} "
              f"{result.verdict:<8} {result.length!s:>5} {result.exact!s:>5} "
              f"{result.order or 'full'!s:>5} {result.nodes:>11,} {elapsed:>8.2f} "
              f"{result.nodes / elapsed / 1e3:>9.0f} {share:>8.1f}", flush=True)
    # Tablebase leaves: the same full-width search with and without the sub-tables.
    board = Board("9/4k4/5a3/9/6b2/9/9/9/9/R2K5 w")       # KRKAB's longest win, mate in 8
    with tempfile.TemporaryDirectory() as directory:
        build(["KRKA", "KRKB"], directory, log=lambda line: None)
        with open_tablebase(directory) as tables:
            for label, tablebase in (("without tables", None), ("with KRKA, KRKB", tables)):
                solver = Solver(board, "any", Limits(seconds=seconds, lambda_orders=0),
                                tablebase)
                start = time.perf_counter()
                result = solver.run(10)
                elapsed = time.perf_counter() - start
                prober = solver.search.leaf_prober
                probes = f", {prober.probes:,} probes, {prober.hits:,} answered" if prober else ""
                print(f"K R vs K A B, full width, {label:<16} {result.verdict} in "
                      f"{result.length}, {result.nodes:,} nodes in {elapsed:.2f} s, "
                      f"{result.nodes / elapsed / 1e3:.0f} k nodes/s, {result.tb_leaves:,} "
                      f"tablebase leaves{probes}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scan", type=int, default=0)
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--lambda", dest="lambda_", action="store_true",
                        help="quiet-move problems (λ-search) and tablebase leaves")
    args = parser.parse_args()
    if args.lambda_:
        run_lambda(args.seconds)
        return
    fens, names = compositions()
    print(f"{'problem':<34} {'mode':<6} {'verdict':<8} {'moves':>6} {'nodes':>12} "
          f"{'seconds':>8} {'k nodes/s':>9}")
    numbers = range(1, args.scan + 1) if args.scan else CHECK_PROBLEMS
    longest = (0, None)
    for number in numbers:
        label = f"适情雅趣 {number:03d} {names[number - 1].split()[-1]}"
        result, _ = run_one(label, fens[number - 1], "checks", 100, args.seconds)
        if result.verdict == "mate" and result.length > longest[0]:
            longest = (result.length, label)
    if not args.scan:
        for label, fen in LONG_PROBLEMS:
            result, _ = run_one(label, fen, "checks", 100, args.seconds)
            if result.verdict == "mate" and result.length > longest[0]:
                longest = (result.length, label)
        for label, fen in QUIET_PROBLEMS:
            run_one(label, fen, "any", 12, args.seconds)
    if longest[1]:
        print(f"longest continuous-check mate solved: {longest[1]}, {longest[0]} moves")


if __name__ == "__main__":
    main()
