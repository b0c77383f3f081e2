"""The kill-pattern recogniser (``puzzles.patterns``, issue 42) measured: recall and precision
per pattern on labelled mates.

Usage:
    python benchmarks/bench_patterns.py                  # both sets
    python benchmarks/bench_patterns.py --set examples   # the catalogue's examples only

The sets:

* ``examples``: the catalogue's verified examples (``puzzles/data/kill_pattern_examples.tsv``),
  one pattern each, with their solution lines.  The rules were written with these in view,
  so this is the recogniser's training set.
* ``diagrams``: the labelled diagrams of walker8088/cchess (``benchmarks/data/
  kill_pattern_diagrams.tsv``, see SOURCES.md) that are not among the examples and whose label
  names one of the catalogue's patterns (its name or an alias): held out.  Each is solved
  first (continuous checks within ``--moves``, else any moves within 7, at ``--nodes`` a
  search) and the recogniser reads the solver's main line.

A label counts as found when the recogniser names it.  The recogniser may name more patterns
than the single label (a 马后炮 made from the trough is a 卧槽马 too): those are counted as
"other" (not errors by themselves, since one mate often shows two patterns); precision is
reported both ways: against the single label (a lower bound) and with the other names a
reader confirmed (none are confirmed here: the figure is the lower bound).
"""
from __future__ import annotations

import argparse
import collections
import csv
import sys
import time
from pathlib import Path

from puzzles.catalogue import load_patterns
from puzzles.paths import DATA_DIR
from puzzles.patterns import RULES, recognise
from solver import Limits, solve
from xiangqi import Board

DIAGRAMS = Path(__file__).resolve().parent / "data" / "kill_pattern_diagrams.tsv"


def pattern_ids_by_name() -> dict[str, str]:
    """Every name and alias of the catalogue's patterns: its id."""
    names = {}
    for pattern in load_patterns():
        names[pattern["name_zh"]] = pattern["id"]
        for alias in pattern["aliases_zh"]:
            names[alias] = pattern["id"]
    return names


def examples() -> list[tuple[str, str, list[str]]]:
    """(label, FEN, line) of the catalogue's examples."""
    with (DATA_DIR / "kill_pattern_examples.tsv").open(encoding="utf-8") as handle:
        return [(row["pattern_id"], row["fen"], row["solution_iccs"].split())
                for row in csv.DictReader(handle, delimiter="\t")]


def diagrams(nodes: int, moves: int) -> list[tuple[str, str, list[str]]]:
    """(label, FEN, line) of the held-out diagrams, each line found by the solver (a diagram
    the solver does not solve within the budget is left out, and said so)."""
    names = pattern_ids_by_name()
    taken = {fen for _, fen, _ in examples()}
    found = []
    with DIAGRAMS.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    for row in rows:
        label = names.get(row["pattern_zh"])
        if label is None or row["fen"] in taken:
            continue
        board = Board(row["fen"])
        result = solve(board, mode="checks", max_moves=moves, limits=Limits(nodes=nodes))
        if str(result.verdict) != "mate":
            result = solve(board, mode="any", max_moves=7, limits=Limits(nodes=nodes))
        if str(result.verdict) != "mate" or not result.main_line:
            print(f"  not solved within the budget, left out: {row['pattern_zh']} {row['fen']}",
                  file=sys.stderr)
            continue
        found.append((label, row["fen"], [move.iccs() for move in result.main_line]))
    return found


def measure(name: str, cases: list[tuple[str, str, list[str]]]) -> str:
    hits: collections.Counter[str] = collections.Counter()
    labelled: collections.Counter[str] = collections.Counter()
    named: collections.Counter[str] = collections.Counter()
    missed = []
    for label, fen, line in cases:
        got = {match.pattern_id for match in recognise(Board(fen), line)}
        labelled[label] += 1
        for pattern_id in got:
            named[pattern_id] += 1
        if label in got:
            hits[label] += 1
        else:
            missed.append(f"  missed {label}: {fen} {' '.join(line)} (named {sorted(got)})")
    total_named = sum(named.values())
    lines = [f"{name}: {len(cases)} mates, {sum(hits.values())} labels found "
             f"(recall {sum(hits.values()) / max(1, len(cases)):.0%}); "
             f"{total_named} names given, {total_named - sum(hits.values())} beside the label "
             f"(precision against the single label {sum(hits.values()) / max(1, total_named):.0%})"]
    lines.append(f"  {'pattern':<24} {'labelled':>8} {'found':>5} {'named':>5}")
    for pattern_id in RULES:
        if labelled[pattern_id] or named[pattern_id]:
            lines.append(f"  {pattern_id:<24} {labelled[pattern_id]:>8} {hits[pattern_id]:>5} "
                         f"{named[pattern_id]:>5}")
    return "\n".join(lines + missed)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=("examples", "diagrams", "both"), default="both")
    parser.add_argument("--nodes", type=int, default=2_000_000,
                        help="node budget of each solve of a diagram")
    parser.add_argument("--moves", type=int, default=10, help="continuous-check bound")
    args = parser.parse_args(argv)
    if args.set in ("examples", "both"):
        start = time.perf_counter()
        print(measure("examples (training)", examples()))
        print(f"  {time.perf_counter() - start:.1f} s")
    if args.set in ("diagrams", "both"):
        start = time.perf_counter()
        print(measure("diagrams (held out)", diagrams(args.nodes, args.moves)))
        print(f"  {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
