"""Why the quiet-move wins of a collection run are unproven: one row per problem not proved
with a line, and a count per class (issue 37, item 2).

    python benchmarks/failure_taxonomy.py benchmarks/data/sample_5M.resume.tsv \\
        [--out benchmarks/data/sample_5M.taxonomy.tsv]

Reads a resume file of ``solve_collection.py --resume`` (its rows: verdict, nodes, threat
tests, where the budget ran out) and the positions of 《适情雅趣》.  Each unproven win gets
its pieces (both sides, and the attacker's beside the king), the threat tests per thousand
nodes, the phase where the budget ran out, and the first class that fits:

* ``lost or drawn as set``: refuted, or a table draw (no search can prove it a win);
* ``no mate within the bound``: the full-width search proved it (Red may have no piece
  left that can mate: the book's draws by meaning, which the tables settle);
* ``few pieces: a table's job``: at most :data:`TABLE_PIECES` pieces, so a table of its
  material (built on first use) answers where a search of a long endgame runs out;
* ``many pieces``: at least :data:`MANY_PIECES` pieces on the board (the branching of every
  defender node, and the many quiet attacker moves, make the tree wide);
* ``threat tests``: at least :data:`THREAT_HEAVY` threat tests per thousand nodes (the λ
  orders spend the budget deciding which quiet moves threaten);
* ``budget``: none of those: the tree is deep rather than wide (a long solution).

The classes are rules over measured figures, not a verdict on the problem: the summary says
how many of each, so that the next change is chosen from the largest class.
"""
from __future__ import annotations

import argparse
import csv
import re
from collections import Counter
from pathlib import Path

from xiangqi import Board

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "puzzles" / "data" / "shiqingyaqu551.fen"
MANY_PIECES = 16
TABLE_PIECES = 8        # the largest tables built here have 7-8 pieces (KCPABKAABB: 10)
THREAT_HEAVY = 40.0
COLUMNS = ["number", "verdict", "pieces", "attackers", "nodes", "threat_tests_per_k",
           "ran_out", "class"]


def read_rows(path: Path) -> list[dict]:
    lines = [line for line in path.read_text(encoding="utf-8").splitlines()
             if line and not line.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t"))


def attacking_pieces(board: Board) -> int:
    """The side to move's rooks, horses, cannons and pawns (the pieces that can mate)."""
    placement = board.fen().split()[0]
    letters = "RNCP" if board.turn == 0 else "rncp"
    return sum(placement.count(letter) for letter in letters)


def classify(row: dict, pieces: int, threats_per_k: float) -> str:
    verdict = row["verdict"]
    if verdict.startswith("refuted") or verdict == "table draw":
        return "lost or drawn as set"
    if verdict.startswith("no mate"):
        return "no mate within the bound"
    if pieces <= TABLE_PIECES:
        return "few pieces: a table's job"
    if pieces >= MANY_PIECES:
        return "many pieces"
    if threats_per_k >= THREAT_HEAVY:
        return "threat tests"
    return "budget"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("resume", type=Path)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    fens = re.findall(r'\[FEN "([^"]+)"\]', BOOK.read_text(encoding="utf-8-sig"))
    table = []
    for row in read_rows(args.resume):
        if row["stipulation"] != "win" or row["verdict"].startswith("mate"):
            continue
        board = Board(fens[int(row["number"]) - 1])
        pieces = sum(1 for char in board.fen().split()[0] if char.isalpha())
        nodes = int(row["nodes"] or 0)
        threats = 1000.0 * int(row["threat_tests"] or 0) / nodes if nodes else 0.0
        table.append({"number": row["number"], "verdict": row["verdict"], "pieces": pieces,
                      "attackers": attacking_pieces(board), "nodes": nodes,
                      "threat_tests_per_k": round(threats, 1), "ran_out": row["ran_out"],
                      "class": classify(row, pieces, threats)})
    if args.out is not None:
        with args.out.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, COLUMNS, delimiter="\t")
            writer.writeheader()
            writer.writerows(table)
    for item in table:
        print("\t".join(str(item[column]) for column in COLUMNS))
    counts = Counter(item["class"] for item in table)
    print(f"{len(table)} unproven: " + ", ".join(f"{name} {count}"
                                              for name, count in counts.most_common()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
