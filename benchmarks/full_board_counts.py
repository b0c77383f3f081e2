"""Full-board win/draw/loss counts of tables, to compare with other generators' (the
reference file's rows: every placement of the pieces, both sides to move, legal positions
only), under the default rules and under a rule set's tables.

Usage:
    python benchmarks/full_board_counts.py DIR [--rules chinese] MATERIAL ...

An index entry stands for a position and its mirror image: it counts twice, once when the
position is its own mirror image, and once when its mirror image has an entry of its own
(a twin).  Prints one tab-separated row per material, in the reference file's columns.
"""
from __future__ import annotations

import argparse
import time

from tablebases.build import rules_directory
from tablebases.format import TableFile, table_path
from tablebases.material import Material, indexer_for
from tablebases.values import ILLEGAL, decode
from xiangqi import Board
from xiangqi.fen import placement_fen


def mirrored(placement: list[int]) -> list[int]:
    """The placement reflected left to right (file f to 8 - f)."""
    return [placement[rank * 9 + 8 - file] for rank in range(10) for file in range(9)]


def full_board_counts(directory, material: str) -> dict[str, list[int]]:
    """{side: [legal, win, draw, loss]} over every full-board position of ``material``."""
    canonical = Material.parse(material).canonical()
    indexer = indexer_for(canonical)
    table = TableFile(table_path(directory, str(canonical)))
    try:
        codes = [table.load_codes("dtm", side) for side in (0, 1)]
    finally:
        table.close()
    result = {}
    for side, name in ((0, "red"), (1, "black")):
        counts = [0, 0, 0, 0]
        for index in range(indexer.size):
            code = codes[side][index]
            if code == ILLEGAL:
                continue
            placement = indexer.placement(index)
            assert placement is not None
            mirror = mirrored(placement)
            if mirror == placement:
                weight = 1
            else:
                board = Board(f"{placement_fen(mirror)} {'wb'[side]} - - 0 1")
                weight = 1 if indexer.index_of(board) != index else 2
            wdl, _ = decode(code)
            counts[0] += weight
            counts[1 if wdl > 0 else 2 if wdl == 0 else 3] += weight
        result[name] = counts
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory")
    parser.add_argument("--rules", default=None)
    parser.add_argument("materials", nargs="+")
    args = parser.parse_args()
    directory = args.directory if args.rules is None else \
        rules_directory(args.directory, args.rules)
    print("material\trules\tred_legal\tred_win\tred_draw\tred_loss\tblack_legal\tblack_win"
          "\tblack_draw\tblack_loss\tseconds")
    for material in args.materials:
        start = time.perf_counter()
        counts = full_board_counts(directory, material)
        print("\t".join([material, args.rules or "check", *map(str, counts["red"]),
                         *map(str, counts["black"]), f"{time.perf_counter() - start:.1f}"]),
              flush=True)


if __name__ == "__main__":
    main()
