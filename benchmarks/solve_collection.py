"""Solve every composition of 《适情雅趣》 and write the verdicts the catalogue records.

    python benchmarks/solve_collection.py [--checks-seconds 4] [--any-seconds 5] [--any-moves 10]

Each position is first solved as a continuous-check problem (every Red move checks, up to
80 moves); if that proves no such mate, quiet moves are allowed up to ``--any-moves`` moves.
Writes puzzles/data/shiqingyaqu551_verdicts.tsv (number, stipulation, verdict, moves,
main_line): verdict "mate" (shortest length proven), "mate within N" (a mate proven, its
minimality not within the budget), "no mate" (none within the bound), or "unproven".
"""
from __future__ import annotations

import argparse
import csv
import os
import re
import tempfile
import time
from pathlib import Path

from solver import Limits, solve
from xiangqi import Board

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "puzzles" / "data" / "shiqingyaqu551.fen"
TARGET = ROOT / "puzzles" / "data" / "shiqingyaqu551_verdicts.tsv"


def verdict_of(board: Board, checks_seconds: float, any_seconds: float, any_moves: int) -> dict:
    result = solve(board, mode="checks", max_moves=80, limits=Limits(seconds=checks_seconds))
    stipulation = "checks"
    if result.verdict == "no mate":
        result = solve(board, mode="any", max_moves=any_moves, limits=Limits(seconds=any_seconds))
        stipulation = "win"
    verdict = result.verdict
    if verdict == "mate" and not result.exact:
        verdict = f"mate within {result.length}"
    elif verdict == "no mate":
        verdict = f"no mate within {any_moves}"
    elif verdict == "unknown":
        verdict = "unproven"
    return {"stipulation": stipulation, "verdict": verdict,
            "moves": result.length if result.verdict == "mate" else "",
            "main_line": " ".join(m.iccs() for m in result.main_line)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--checks-seconds", type=float, default=4.0)
    parser.add_argument("--any-seconds", type=float, default=5.0)
    parser.add_argument("--any-moves", type=int, default=10)
    args = parser.parse_args()
    fens = re.findall(r'\[FEN "([^"]+)"\]', SOURCE.read_text(encoding="utf-8-sig"))
    rows = []
    start = time.perf_counter()
    for number, fen in enumerate(fens, start=1):
        row = {"number": number, **verdict_of(Board(fen), args.checks_seconds,
                                              args.any_seconds, args.any_moves)}
        rows.append(row)
        print(f"{number:3d} {row['stipulation']:<6} {row['verdict']:<16} {row['moves']}",
              flush=True)
    fd, temp = tempfile.mkstemp(dir=TARGET.parent, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, ["number", "stipulation", "verdict", "moves", "main_line"],
                                delimiter="\t", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    os.replace(temp, TARGET)
    print(f"{len(rows)} positions in {time.perf_counter() - start:.0f} s -> {TARGET}")


if __name__ == "__main__":
    main()
