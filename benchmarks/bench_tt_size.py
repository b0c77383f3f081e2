"""The transposition table's size against a node budget (issue 37, item 3): the same
quiet-move problems of 《适情雅趣》 solved with tables of 2^B entries, B from ``--bits``.

    python benchmarks/bench_tt_size.py --numbers 4,16,37,56,74 --bits 22 24 --nodes 10000000 \\
        --out benchmarks/data/tt_size.tsv

Resumable: one row per (problem, bits) is appended to ``--out`` as it finishes, and the pairs
already there are skipped, so a long comparison runs in slices.  One thread, no tablebases,
quiet moves allowed (λ orders then full width), the bound 30 moves.  The columns: number,
bits, nodes budget, verdict, moves, exact, order, nodes, seconds, table fill (entries used
of the table's).
"""
from __future__ import annotations

import argparse
import csv
import re
import time
from pathlib import Path

from puzzles.catalogue import composition_numbers
from solver.search import Limits, Solver
from solver.types import Mode
from xiangqi import Board

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "tests" / "data" / "shiqingyaqu551.fen"
COLUMNS = ["number", "bits", "node_budget", "verdict", "moves", "exact", "order", "nodes",
           "seconds", "table_fill"]


def book_fens() -> list[str]:
    return re.findall(r'\[FEN "([^"]+)"\]', BOOK.read_text(encoding="utf-8-sig"))


def done_pairs(out: Path) -> set[tuple[int, int, int]]:
    if not out.exists():
        return set()
    with out.open(encoding="utf-8", newline="") as handle:
        return {(int(row["number"]), int(row["bits"]), int(row["node_budget"]))
                for row in csv.DictReader(handle, delimiter="\t")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--numbers", required=True, help="book numbers, e.g. 4,16,37")
    parser.add_argument("--bits", type=int, nargs="+", default=[22, 24])
    parser.add_argument("--nodes", type=int, default=10_000_000)
    parser.add_argument("--max-moves", type=int, default=30)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    fens = book_fens()
    done = done_pairs(args.out)
    new_file = not args.out.exists()
    with args.out.open("a", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, delimiter="\t")
        if new_file:
            writer.writerow(COLUMNS)
        for number in composition_numbers(args.numbers):
            for bits in args.bits:
                if (number, bits, args.nodes) in done:
                    continue
                board = Board(fens[number - 1])
                start = time.perf_counter()
                solver = Solver(board, Mode.ANY, Limits(nodes=args.nodes, table_bits=bits))
                result = solver.run(args.max_moves)
                row = [number, bits, args.nodes, result.verdict, result.length or "",
                       result.exact, result.order if result.order is not None else "",
                       result.nodes, round(time.perf_counter() - start, 1),
                       round(result.table_used / result.table_entries, 3)]
                writer.writerow(row)
                handle.flush()
                print("\t".join(map(str, row)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
