"""Few pieces, long quiet solutions: problems of 《少子百局谱》 (issue 13, item 6(b)).

Usage:
    python benchmarks/bench_few_pieces.py                       # 60 s a problem, no tables
    python benchmarks/bench_few_pieces.py --seconds 20 --tables DIR
    python benchmarks/bench_few_pieces.py --tables DIR --build-tables   # build them first
    python benchmarks/bench_few_pieces.py --tables DIR --build-root-tables   # and the roots
    python benchmarks/bench_few_pieces.py --replay-only          # check the recorded lines
Options: --max-moves N (bound of the search, default 60), --only NAME ... (those problems),
--tables-only (with --tables: only the run with tablebase leaves).

The problems and their recorded lines are in ``benchmarks/data/shaozi_few_pieces.tsv``
(walker8088/cchess, GPL-3.0; see ``benchmarks/data/SOURCES.md``): one row per recorded line
(the book's main line and its variations), all with the result 1-0 (红胜).

For each problem the script first replays every recorded line (an illegal move is reported
with its ply; a line that ends without mate is counted) and, with ``--tables``, probes the
table's DTM at the end of each such line whose material the tables cover.  Then it solves the
position (mode "any", the given bound and budget) without tablebase leaves and, with
``--tables``, again with them, and prints verdict, length, exact, λ order, nodes and seconds,
beside the recorded length (Red moves of the longest recorded line).
"""
from __future__ import annotations

import argparse
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

from solver import Limits, solve
from tablebases import Tablebase, open_tablebase
from xiangqi import Board

DATA = Path(__file__).resolve().parent / "data" / "shaozi_few_pieces.tsv"

# Sub-tables that the captures of these problems reach and that build in minutes on two
# cores (KCNKP about 2 minutes; KCNKPP itself would take about an hour).  Their own
# sub-tables (KCKP, KNKP, KCNK, ...) are built with them.
CHEAP_TABLES = ["KCKPP", "KNKPP", "KCCKP", "KCNKP"]
# The problems' own materials whose tables (with their sub-tables) build in minutes on two
# cores here (KCPAAKC with KCPAKC and the smaller ones: 13 minutes): a table at the root
# answers the problem exactly, with its line.  KCCKPP is estimated at about half an hour,
# KNCKPP at an hour, KCPAKCP and the larger ones at hours or more than the memory here.
ROOT_TABLES = ["KCPAAKC"]


@dataclass
class Problem:
    name: str
    fen: str
    lines: list[list[str]] = field(default_factory=list)


def load(path: Path = DATA) -> list[Problem]:
    problems: OrderedDict[str, Problem] = OrderedDict()
    with path.open(encoding="utf-8") as handle:
        next(handle)
        for row in handle:
            name, fen, _number, _plies, moves = row.rstrip("\n").split("\t")
            problems.setdefault(name, Problem(name, fen)).lines.append(moves.split())
    return list(problems.values())


def material(board: Board) -> str:
    text = board.board_fen()
    return "".join(sorted(c for c in text if c.isupper())) + "-" + \
        "".join(sorted(c for c in text if c.islower()))


@dataclass
class Replay:
    lines: int = 0
    illegal: list[str] = field(default_factory=list)
    mates: int = 0
    longest_plies: int = 0
    longest_mate_plies: int = 0
    table_notes: list[str] = field(default_factory=list)


def replay(problem: Problem, tables=None) -> Replay:
    report = Replay(lines=len(problem.lines))
    for number, moves in enumerate(problem.lines, 1):
        board = Board(problem.fen)
        try:
            for move in moves:
                board.push_iccs(move)
        except ValueError as error:      # IllegalMoveError / InvalidMoveError
            ply = len(board.move_stack) + 1
            report.illegal.append(f"line {number} ply {ply} {moves[ply - 1]}: {error}")
            continue
        report.longest_plies = max(report.longest_plies, len(moves))
        if board.is_checkmate() or board.is_stalemate():
            report.mates += 1
            report.longest_mate_plies = max(report.longest_mate_plies, len(moves))
        elif tables is not None:
            dtm = tables.get_dtm(board)
            if dtm is not None:
                side = "Red" if board.turn == 0 else "Black"
                verdict = "draw" if dtm == 0 else ("win" if dtm > 0 else "loss")
                report.table_notes.append(
                    f"line {number} ends in {material(board)}, {side} to move: table {verdict}"
                    + (f" (DTM {abs(dtm)} plies)" if dtm else ""))
    return report


def red_moves(plies: int) -> int:
    return (plies + 1) // 2


def run_solve(problem: Problem, max_moves: int, seconds: float, tables) -> tuple:
    start = time.perf_counter()
    result = solve(Board(problem.fen), mode="any", max_moves=max_moves,
                   limits=Limits(seconds=seconds), tablebase=tables)
    return result, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--max-moves", type=int, default=60)
    parser.add_argument("--tables", type=Path, help="table directory for tablebase leaves")
    parser.add_argument("--build-tables", action="store_true",
                        help=f"first build {', '.join(CHEAP_TABLES)} into --tables")
    parser.add_argument("--build-root-tables", action="store_true",
                        help=f"first build {', '.join(ROOT_TABLES)} into --tables too")
    parser.add_argument("--only", nargs="+", help="run only the problems of these names")
    parser.add_argument("--tables-only", action="store_true",
                        help="with --tables, skip the run without tablebase leaves")
    parser.add_argument("--replay-only", action="store_true")
    args = parser.parse_args()

    tables: Tablebase | None = None
    if args.tables is not None:
        if args.build_tables or args.build_root_tables:
            from tablebases.build import build
            wanted = CHEAP_TABLES + (ROOT_TABLES if args.build_root_tables else [])
            build(wanted, args.tables, threads=2, log=lambda line: None)
        tables = open_tablebase(args.tables)

    problems = [p for p in load() if args.only is None or p.name in args.only]
    print("Recorded lines (replayed):")
    print(f"{'problem':<10} {'material':<14} {'lines':>5} {'illegal':>7} {'mate':>4} "
          f"{'longest':>7} {'longest mate':>12}")
    replays = {}
    for problem in problems:
        report = replays[problem.name] = replay(problem, tables)
        mate = (f"{red_moves(report.longest_mate_plies)} moves"
                if report.longest_mate_plies else "-")
        print(f"{problem.name:<10} {material(Board(problem.fen)):<14} {report.lines:>5} "
              f"{len(report.illegal):>7} {report.mates:>4} "
              f"{red_moves(report.longest_plies):>7} {mate:>12}")
        for note in report.illegal + report.table_notes:
            print(f"    {note}")
    if args.replay_only:
        return

    runs: list[tuple[str, Tablebase | None]] = []
    runs += [] if tables is not None and args.tables_only else [("no tables", None)]
    runs += [("tables", tables)] if tables is not None else []
    print(f"\nSolver (mode any, bound {args.max_moves} moves, {args.seconds:g} s a problem):")
    print(f"{'problem':<10} {'leaves':<9} {'verdict':<8} {'moves':>5} {'exact':>5} "
          f"{'order':>5} {'nodes':>12} {'seconds':>8} {'tb leaves':>9} {'recorded':>8}")
    totals = {label: [0, 0, 0.0] for label, _ in runs}       # solved, exact, seconds
    for problem in problems:
        recorded = red_moves(replays[problem.name].longest_plies)
        for label, source in runs:
            result, elapsed = run_solve(problem, args.max_moves, args.seconds, source)
            solved = result.verdict == "mate"
            totals[label][0] += solved
            totals[label][1] += solved and result.exact
            totals[label][2] += elapsed
            print(f"{problem.name:<10} {label:<9} {result.verdict:<8} "
                  f"{result.length if solved else '-'!s:>5} "
                  f"{result.exact if solved else '-'!s:>5} {result.order or '-'!s:>5} "
                  f"{result.nodes:>12,} {elapsed:>8.2f} {result.tb_leaves:>9,} {recorded:>8}",
                  flush=True)
    print()
    for label, (solved, exact, seconds) in totals.items():
        print(f"{label}: {solved} of {len(problems)} solved ({exact} exact), "
              f"{seconds:.1f} s in all")
    if tables is not None:
        tables.close()


if __name__ == "__main__":
    main()
