"""Refutations of 《适情雅趣》 红先胜 problems that are lost for Red as set (solver.refute).

    python benchmarks/bench_refute.py [--seconds 30] [--numbers 20,190,267,496,506]

The five are the ones Pikafish (2026-09-06, 16 threads, ``go mate``) calls lost for Red.  For
each: the verdict, Black's mate length and whether it is proven the shortest, the λ order,
nodes, seconds and nodes/s, one thread, no tables.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from puzzles.catalogue import composition_numbers
from solve_collection import problems
from solver import Limits
from solver.refute import refute
from xiangqi import Board


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--numbers", default="20,190,267,496,506")
    args = parser.parse_args(argv)
    fens = {number: fen for number, fen, _ in problems()}
    for number in composition_numbers(args.numbers):
        answer = refute(Board(fens[number]), limits=Limits(seconds=args.seconds))
        rate = answer.nodes / max(answer.seconds, 1e-9)
        length = "" if answer.length is None else (
            f"mate in {'' if answer.exact else 'at most '}{answer.length}")
        print(f"No. {number:3d}: {answer.verdict:<11} {length:<18} order "
              f"{answer.order or 'full':<4} {answer.nodes:>12,} nodes {answer.seconds:6.1f} s "
              f"{rate / 1e3:6.0f} k nodes/s", flush=True)


if __name__ == "__main__":
    main()
