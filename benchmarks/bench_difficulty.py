"""The practice rating (``puzzles.difficulty``, issue 42, item 3) against the effort of finding
the key: for every shipped practice position, its rating, the nodes the solver needs to
prove its mate (df-pn, the stipulated mode, bound its length) and the nodes a simple search
needs to find it (``solver._mate_ab.MateFinder``, the alpha-beta mate finder: iterative
deepening, no proof of the defence's every reply); the figures are the Spearman rank
correlations (1: the rating orders positions exactly as the search's effort does).

Usage:
    python benchmarks/bench_difficulty.py [--limit N]
"""
from __future__ import annotations

import argparse
import sys
import time

from puzzles.difficulty import features, rating
from puzzles.generate import PRACTICE_FILE, read_practice
from puzzles.paths import DATA_DIR
from solver import Limits, solve
from solver._mate_ab import MateFinder
from xiangqi import Board


def ranks(values: list[float]) -> list[float]:
    """Ranks from 1, ties given their mean rank."""
    order = sorted(range(len(values)), key=values.__getitem__)
    result = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            result[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return result


def spearman(a: list[float], b: list[float]) -> float:
    ra, rb = ranks(a), ranks(b)
    mean_a, mean_b = sum(ra) / len(ra), sum(rb) / len(rb)
    cov = sum((x - mean_a) * (y - mean_b) for x, y in zip(ra, rb))
    var_a = sum((x - mean_a) ** 2 for x in ra)
    var_b = sum((y - mean_b) ** 2 for y in rb)
    return cov / (var_a * var_b) ** 0.5 if var_a and var_b else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=0, help="the first N positions only")
    args = parser.parse_args(argv)
    rows = read_practice(DATA_DIR / PRACTICE_FILE)
    if args.limit:
        rows = rows[:args.limit]
    start = time.perf_counter()
    ratings, nodes, lengths, simple = [], [], [], []
    finder = MateFinder(table_bits=18)
    for row in rows:
        board = Board(row["fen"])
        ratings.append(float(rating(features(board, row["solution_iccs"]))))
        mode = "checks" if row["stipulation"] == "checks" else "any"
        result = solve(board, mode=mode, max_moves=int(row["moves"]),
                       limits=Limits(nodes=2_000_000))
        nodes.append(float(result.nodes))
        finder.clear()
        finder.find(board, int(row["moves"]), node_limit=2_000_000)
        simple.append(float(finder.nodes))
        lengths.append(float(row["moves"]))
    median = sorted(ratings)[len(ratings) // 2]
    print(f"{len(rows)} practice positions in {time.perf_counter() - start:.0f} s: rating "
          f"{min(ratings):.0f}-{max(ratings):.0f} (median {median:.0f}); "
          f"Spearman rank correlation with the solver's nodes {spearman(ratings, nodes):.2f} "
          f"(the mate's length alone: {spearman(lengths, nodes):.2f}), with the simple "
          f"search's {spearman(ratings, simple):.2f} (length alone "
          f"{spearman(lengths, simple):.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
