"""The kill-pattern recogniser (``puzzles.patterns``, issue 42) measured: recall and precision
per pattern on labelled mates.

Usage:
    python benchmarks/bench_patterns.py                  # both sets
    python benchmarks/bench_patterns.py --set examples   # the catalogue's examples only
    python benchmarks/bench_patterns.py --set hand       # the hand-labelled practice sample

The sets:

* ``examples``: the catalogue's verified examples (``puzzles/data/kill_pattern_examples.tsv``),
  one pattern each, with their solution lines.  The rules were written with these in view,
  so this is the recogniser's training set.
* ``diagrams``: the labelled diagrams of walker8088/cchess (``benchmarks/data/
  kill_pattern_diagrams.tsv``, see SOURCES.md) that are not among the examples and whose label
  names one of the catalogue's patterns (its name or an alias): held out.  Each is solved
  first (continuous checks within ``--moves``, else any moves within 7, at ``--nodes`` a
  search) and the recogniser reads the solver's main line.

* ``hand``: 45 shipped practice positions (``benchmarks/data/kill_pattern_hand_labels.tsv``)
  whose final pictures a reader labelled by hand against the seeds' descriptions
  (``kill_patterns.toml``): every pattern the mate shows, none, or several, with a note
  saying why.  30 (one drawn per pattern) tuned the rules; 15 drawn after are held out.
  Here every name the recogniser gives is judged, so precision is exact per pattern, over
  all names: what a student practising the shipped positions is told.  Recall is an upper
  bound: the reader saw the recogniser's names first.

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
from puzzles.generate import PRACTICE_FILE, read_practice
from puzzles.paths import DATA_DIR
from puzzles.patterns import RULES, recognise
from solver import Limits, solve
from xiangqi import Board

DIAGRAMS = Path(__file__).resolve().parent / "data" / "kill_pattern_diagrams.tsv"
HAND_LABELS = Path(__file__).resolve().parent / "data" / "kill_pattern_hand_labels.tsv"
# The first 30 hand labels (one practice position drawn per pattern) were read before five
# rules were tightened on what they showed wrong (a pawn taking the centre advisor is not
# 大胆穿心, ...): they tuned the rules.  The next 15 were drawn and read after: held out.
HAND_SAMPLES = ("tuning", "held-out")


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


def measure_hand(sample: str, path: Path = HAND_LABELS) -> str:
    """Precision and recall per pattern of every name the recogniser gives, against the
    patterns a reader saw in each mate of ``sample``."""
    with path.open(encoding="utf-8") as handle:
        rows = [row for row in csv.DictReader(handle, delimiter="\t")
                if row["sample"] == sample]
    right: collections.Counter[str] = collections.Counter()
    named: collections.Counter[str] = collections.Counter()
    seen: collections.Counter[str] = collections.Counter()
    # The pattern each position is practised for, as the shipped file has it now (a position
    # the file no longer holds, its pattern no longer read in its line, counts as wrong).
    shipped = {r["fen"]: r["pattern_id"] for r in read_practice(DATA_DIR / PRACTICE_FILE)}
    practised_right = 0
    wrong = []
    for row in rows:
        got = {m.pattern_id for m in recognise(Board(row["fen"]), row["solution_iccs"].split())}
        truth = set(row["labels"].split())
        named.update(got)
        seen.update(truth)
        right.update(got & truth)
        practised_right += shipped.get(row["fen"], "") in truth
        if got != truth:
            wrong.append(f"  {row['fen']}: named {sorted(got)}, seen {sorted(truth)}: "
                         f"{row['note']}")
    total_right, total_named, total_seen = (sum(c.values()) for c in (right, named, seen))
    lines = [f"hand-labelled practice sample, {sample}: {len(rows)} mates; the pattern each "
             f"is practised "
             f"for right in {practised_right} ({practised_right / max(1, len(rows)):.0%}); "
             f"all names: precision {total_right}/{total_named} "
             f"({total_right / max(1, total_named):.0%}), recall {total_right}/{total_seen} "
             f"({total_right / max(1, total_seen):.0%})",
             f"  {'pattern':<24} {'named':>5} {'right':>5} {'seen':>5}"]
    for pattern_id in RULES:
        if named[pattern_id] or seen[pattern_id]:
            lines.append(f"  {pattern_id:<24} {named[pattern_id]:>5} {right[pattern_id]:>5} "
                         f"{seen[pattern_id]:>5}")
    return "\n".join(lines + wrong)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=("examples", "diagrams", "hand", "both"),
                        default="both", help="both: the examples and the diagrams")
    parser.add_argument("--nodes", type=int, default=2_000_000,
                        help="node budget of each solve of a diagram")
    parser.add_argument("--moves", type=int, default=10, help="continuous-check bound")
    args = parser.parse_args(argv)
    if args.set in ("examples", "both"):
        start = time.perf_counter()
        print(measure("examples (training)", examples()))
        print(f"  {time.perf_counter() - start:.1f} s")
    if args.set == "hand":
        for sample in HAND_SAMPLES:
            print(measure_hand(sample))
    if args.set in ("diagrams", "both"):
        start = time.perf_counter()
        print(measure("diagrams (held out)", diagrams(args.nodes, args.moves)))
        print(f"  {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
