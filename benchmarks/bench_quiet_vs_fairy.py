"""Quiet-move wins of the development sample against Fairy-Stockfish's ``go mate N`` (issue 37,
item 5): how many each finds in the same time, one thread each.

Usage:
    python benchmarks/bench_quiet_vs_fairy.py --engine PATH --resume FILE [--seconds 60]
    python benchmarks/bench_quiet_vs_fairy.py --engine PATH --resume FILE --numbers 37,95
    python benchmarks/bench_quiet_vs_fairy.py --summary FILE       # the figures of a run

The problems: the 41 of ``solve_collection.py --sample`` (or ``--numbers``), as the book sets
them, Red to play and win.  Each engine gets ``--seconds`` per problem and the bound
``--moves`` (default 30, what a user who does not know the length would ask):

* ours: ``solve(Board(fen), mode="any", max_moves=MOVES)`` with ``Limits(seconds=SECONDS)``,
  no tables unless ``--tables DIR``; it counts as found when the verdict is "mate" and its main
  line replays to mate (a proof, whether or not its minimality was proven).
* Fairy-Stockfish: UCI_Variant xiangqi, Threads 1, Hash ``--hash``, ``go mate MOVES``, stopped
  after SECONDS; it counts as found when its last exact score is ``mate K`` with K > 0 (a
  claim from its search, not a proof).

The two run one after the other on each problem.  ``--resume FILE`` appends one row per
problem as it finishes and skips the problems already there, so the run can be killed and
taken up again (its header records the settings; a run with other settings is refused).
Without an engine (neither ``--engine`` nor XQ_FAIRY_STOCKFISH) it prints a line and skips.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

from bench_vs_fairy import Engine
from resume_rows import append_row, read_rows
from solve_collection import chosen_positions
from solver import Limits, solve
from xiangqi import Board

COLUMNS = ["number", "pieces", "ours", "ours_moves", "ours_exact", "ours_seconds", "ours_nodes",
           "fsf_mate", "fsf_seconds", "fsf_nodes"]
TITLE = "# bench_quiet_vs_fairy.py resume file: one row per problem, appended as it finishes"


def settings_lines(args: argparse.Namespace, engine_name: str) -> list[str]:
    return [f"# setting {name}={value}" for name, value in
            (("seconds", args.seconds), ("moves", args.moves), ("hash", args.hash),
             ("tables", args.tables or ""), ("engine", engine_name))]


def summary(rows: dict[int, dict[str, str]], moves: int = 30) -> str:
    """The counts of a run: found by each, by both, by one only.  Fairy-Stockfish's mates
    longer than the bound (``go mate 30`` may answer ``mate 58``) are counted apart: ours
    searches within the bound only."""
    ours = {n for n, row in rows.items() if row["ours"] == "mate"}
    claims = {n: int(row["fsf_mate"]) for n, row in rows.items()
              if row["fsf_mate"] not in ("", "none") and int(row["fsf_mate"]) > 0}
    fsf = {n for n, mate in claims.items() if mate <= moves}
    beyond = sorted(n for n, mate in claims.items() if mate > moves)
    exact = sum(rows[n]["ours_exact"] == "yes" for n in ours)
    ours_time = sum(float(row["ours_seconds"]) for row in rows.values())
    fsf_time = sum(float(row["fsf_seconds"]) for row in rows.values())
    return "\n".join([
        f"{len(rows)} problems: ours found {len(ours)} ({exact} exact), "
        f"Fairy-Stockfish {len(fsf)} within {moves} moves; both {len(ours & fsf)}",
        "Fairy-Stockfish beyond the bound: " + (", ".join(
            f"{n} (mate {claims[n]})" for n in beyond) or "none"),
        "only ours: " + (", ".join(map(str, sorted(ours - fsf))) or "none"),
        "only Fairy-Stockfish: " + (", ".join(map(str, sorted(fsf - ours))) or "none"),
        f"time in all: ours {ours_time:.0f} s, Fairy-Stockfish {fsf_time:.0f} s"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default=os.environ.get("XQ_FAIRY_STOCKFISH", ""))
    parser.add_argument("--resume", type=Path, help="append rows here, skip those there")
    parser.add_argument("--summary", type=Path, help="print the figures of a resume file")
    parser.add_argument("--numbers", default="", help="comma-separated numbers in 适情雅趣")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--moves", type=int, default=30)
    parser.add_argument("--hash", type=int, default=256)
    parser.add_argument("--tables", default="", help="our tablebase directory (default none)")
    args = parser.parse_args(argv)
    if args.summary:
        print(summary(read_rows(args.summary, COLUMNS)[1], args.moves))
        return 0
    if not args.engine:
        print("bench_quiet_vs_fairy: skipped (no engine: give --engine PATH or "
              "XQ_FAIRY_STOCKFISH)")
        return 0
    if shutil.which(args.engine) is None:
        print(f"bench_quiet_vs_fairy: skipped (engine {args.engine!r} is not an executable)")
        return 0
    fens = chosen_positions(args.numbers)
    numbers = list(fens)
    tablebase = None
    if args.tables:
        from tablebases import open_tablebase
        tablebase = open_tablebase(args.tables)

    engine = Engine(args.engine, args.hash)
    done: dict[int, dict[str, str]] = {}
    if args.resume and args.resume.exists():
        header, done = read_rows(args.resume, COLUMNS)
        wanted = settings_lines(args, engine.name)
        if header != wanted:
            engine.close()
            print(f"error: {args.resume} was made with other settings:\n" + "\n".join(header),
                  file=sys.stderr)
            return 2
    elif args.resume:
        args.resume.write_text("\n".join([TITLE, *settings_lines(args, engine.name),
                                          "\t".join(COLUMNS)]) + "\n", encoding="utf-8")
    print(f"# {engine.name}, Threads 1, Hash {args.hash}; ours one thread; "
          f"{args.seconds:g} s and {args.moves} moves each", flush=True)
    try:
        for number in numbers:
            if number in done:
                continue
            board = Board(fens[number])
            start = time.perf_counter()
            result = solve(board, mode="any", max_moves=args.moves,
                           limits=Limits(seconds=args.seconds), tablebase=tablebase)
            ours_seconds = time.perf_counter() - start
            found = str(result.verdict) == "mate" and result.line_complete
            fsf_seconds, mate, fsf_nodes, _ = engine.mate(fens[number], args.moves,
                                                          args.seconds)
            row = {"number": str(number), "pieces": str(len(board.piece_map())),
                   "ours": "mate" if found else str(result.verdict),
                   "ours_moves": str(result.length or "") if found else "",
                   "ours_exact": ("yes" if result.exact else "no") if found else "",
                   "ours_seconds": f"{ours_seconds:.2f}", "ours_nodes": str(result.nodes),
                   "fsf_mate": "none" if mate is None else str(mate),
                   "fsf_seconds": f"{fsf_seconds:.2f}", "fsf_nodes": str(fsf_nodes)}
            done[number] = row
            print("\t".join(row[c] for c in COLUMNS), flush=True)
            if args.resume:
                append_row(args.resume, row, COLUMNS)
    finally:
        engine.close()
    print(summary(done, args.moves))
    return 0


if __name__ == "__main__":
    sys.exit(main())
