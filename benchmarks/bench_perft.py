"""Perft speed: nodes per second, single thread, bulk counting (the last ply is counted from
the legal-move list, as Stockfish-family engines do).

Usage: python benchmarks/bench_perft.py [--quick]
"""
import csv
import sys
import time
from pathlib import Path

from xiangqi import STARTING_FEN, Board

ROOT = Path(__file__).resolve().parent.parent
PERFT_FILE = ROOT / "tests" / "data" / "perft.tsv"


def run(quick: bool = False) -> None:
    cases = [(STARTING_FEN, 4 if quick else 5, 3290240 if quick else 133312995, "start position")]
    with PERFT_FILE.open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            depth = int(row["depth"])
            if row["fen"] != STARTING_FEN and depth >= 4:
                cases.append((row["fen"], depth, int(row["nodes"]), row["note"]))
    total_nodes = total_time = 0.0
    print(f"{'position':34} {'depth':>5} {'nodes':>12} {'seconds':>8} {'M nodes/s':>10}")
    for fen, depth, expected, note in cases:
        board = Board(fen)
        start = time.perf_counter()
        nodes = board.perft(depth)
        elapsed = time.perf_counter() - start
        status = "" if nodes == expected else f"  WRONG (expected {expected})"
        rate = nodes / elapsed / 1e6
        print(f"{note:34} {depth:>5} {nodes:>12} {elapsed:>8.3f} {rate:>10.1f}{status}")
        total_nodes += nodes
        total_time += elapsed
    print(f"perft total: {total_nodes / total_time / 1e6:.1f} M nodes/s (bulk counting, 1 thread)")


if __name__ == "__main__":
    run(quick="--quick" in sys.argv)
