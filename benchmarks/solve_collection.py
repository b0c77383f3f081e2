"""Solve every composition of 《适情雅趣》 and write the verdicts the catalogue records.

    python benchmarks/solve_collection.py [--any-seconds 60] [--jobs 2] [--numbers 1-40,316]
    python benchmarks/solve_collection.py --any-seconds 0 --any-nodes 1000000 --jobs 2
    python benchmarks/solve_collection.py --tables DIR ...    # tablebases answer the leaves
    python benchmarks/solve_collection.py --tables DIR --build-tables 15 ...  # build some first
    python benchmarks/solve_collection.py --cluster tcp://HOST:8786 ...   # on a Dask cluster
    python benchmarks/solve_collection.py --workers 2 ...     # on a Dask LocalCluster here
    python benchmarks/solve_collection.py --refute-recorded --refute-seconds 0 \
        --refute-nodes 5000000 --jobs 2        # only refute the recorded unproven wins
    python benchmarks/solve_collection.py --numbers 431-438 --update ...  # those rows again

Each position is first solved as a continuous-check problem (every Red move checks, up to
``--checks-moves`` moves, ``--checks-seconds`` each); if that proves no such mate, quiet moves
are allowed (λ-search, then full width) up to ``--any-moves`` moves within ``--any-seconds``;
with ``--tables DIR`` the tables there answer every leaf whose material they cover (the figures
then say how many leaves they answered); ``--build-tables MINUTES`` first builds there the
table of every composition's material (with its sub-tables) whose build is estimated at MINUTES
or less on two threads, so that the table set behind the verdicts is named by the command, not
by what a machine happened to have built. Compositions whose titles say 和 are draw studies:
they get the draw stipulation and are not searched here (their analysis is a separate task).
Each search runs on one thread; ``--jobs`` runs that many problems at once; ``--cluster
ADDRESS`` (a ``dask scheduler``) or ``--workers N`` (a LocalCluster here) makes each problem a
Dask task instead (``puzzles.cluster``; the extra ``xqstudio[cluster]``), the verdicts
collected by this process and the file written once at the end, as without a cluster.

Writes puzzles/data/shiqingyaqu551_verdicts.tsv (number, stipulation, verdict, moves,
order, main_line) unless ``--no-write`` or ``--numbers`` (without ``--update``) is given:
verdict "mate" (shortest length proven), "mate within N" (a mate proven with its line, its
minimality not within the budget), "no mate within N" (the full-width search proved none),
"unproven", "refuted" (no mate proven, and Black mates in ``moves`` whatever Red plays: the
position is lost as set; its line is Red's longest resistance, then Black's mate;
``--refute-seconds``) or "refuted within N", "table draw" (a table covers the position and
gives Red neither a win nor a loss, however many moves), or for draw studies "unverified".
With a table, the bound of the quiet-move search (and of the refutation) is the table's mate
if that is longer.  Prints one line per problem and the figures of the benchmark: the share
of the wins without a continuous-check solution proved with a main line and with the exact
length, the continuous-check ones still exact, the refuted ones and the table draws.
"""
from __future__ import annotations

import argparse
import csv
import os
import re
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from puzzles.catalogue import (
    TABLE_DRAW,
    composition_numbers,
    refutation_bound,
    refutation_verdict,
    replay_fault,
    search_verdict,
    table_plies,
    win_bound,
)
from solver import Limits, solve
from solver.refute import refute
from tablebases import open_tablebase
from xiangqi import Board, Move

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "puzzles" / "data" / "shiqingyaqu551.fen"
TARGET = ROOT / "puzzles" / "data" / "shiqingyaqu551_verdicts.tsv"
# More pieces than this never fit a table here (and their index would not fit 64 bits).
MAX_TABLE_PIECES = 9
COLUMNS = ["number", "stipulation", "verdict", "moves", "order", "main_line"]


def problems() -> list[tuple[int, str, str]]:
    """(number, FEN, title) of every composition, in the book's order."""
    text = SOURCE.read_text(encoding="utf-8-sig")
    fens = re.findall(r'\[FEN "([^"]+)"\]', text)
    titles = re.findall(r'\[EVENT "([^"]+)"\]', text)
    return [(number, fen, title) for number, (fen, title) in enumerate(zip(fens, titles), 1)]


def is_draw_study(title: str) -> bool:
    """The title names the result: 《适情雅趣》's endgame studies say 和 (e.g. 马双兵和双卒双士)."""
    return "和" in title


def cheap_tables(every: list[tuple[int, str, str]], minutes: float) -> list[str]:
    """The materials of the compositions (not the draw studies) whose tables build within
    ``minutes`` on two threads by the builder's estimate (sub-tables not counted), smallest
    first.

    >>> cheap_tables([(1, "3k5/9/9/9/9/9/9/9/4R4/4K4 w", "单车"),
    ...               (2, "3k5/9/9/9/9/9/9/9/4R4/4K4 w", "单车和")], 1.0)
    ['KRK']
    """
    from tablebases.build import estimated_seconds
    from tablebases.material import Material, indexer_for

    sizes: dict[str, int] = {}
    for _number, fen, title in every:
        if is_draw_study(title):
            continue
        material = Material.from_board(Board(fen)).canonical()
        if material.piece_count() > MAX_TABLE_PIECES or str(material) in sizes:
            continue
        size = indexer_for(material).size
        if estimated_seconds(size, 2, material=material) <= minutes * 60:
            sizes[str(material)] = size
    return sorted(sizes, key=lambda name: (sizes[name], name))


def verdict_of(task: tuple) -> dict:
    number, fen, title, args = task
    start = time.perf_counter()
    if is_draw_study(title):
        return {"number": number, "stipulation": "draw", "verdict": "unverified", "moves": "",
                "order": "", "main_line": "", "seconds": 0.0, "tb_leaves": 0}
    board = Board(fen)
    tables = open_tablebase(args.tables) if args.tables else None
    result = solve(board, mode="checks", max_moves=args.checks_moves,
                   limits=Limits(seconds=args.checks_seconds), tablebases=tables)
    stipulation = "checks"
    tb_leaves = result.tb_leaves
    if result.verdict == "no mate":
        result = solve(board, mode="any", max_moves=win_bound(board, args.any_moves, tables),
                       limits=Limits(seconds=args.any_seconds, nodes=args.any_nodes,
                                     lambda_orders=args.orders), tablebases=tables)
        stipulation = "win"
        tb_leaves += result.tb_leaves
    verdict = search_verdict(result)
    order = ""
    if result.verdict == "mate":
        order = "full" if result.order is None else str(result.order)
    row = {"number": number, "stipulation": stipulation, "verdict": verdict,
           "moves": result.length if result.verdict == "mate" else "", "order": order,
           "main_line": " ".join(m.iccs() for m in result.main_line), "tb_leaves": tb_leaves}
    if stipulation == "win" and result.verdict != "mate":
        if table_plies(board, tables) == 0:
            row["verdict"] = TABLE_DRAW
        elif args.refute_seconds or args.refute_nodes:
            row = refuted_row(row, board, tables, args)
    return {**row, "seconds": time.perf_counter() - start}


def refuted_row(row: dict, board: Board, tables, args: argparse.Namespace) -> dict:
    """``row`` (a win without a proven mate) after a refutation within its budget: a refuted
    one's verdict, Black's mate length, order and line, else the row as it was."""
    refutation = refute(board, refutation_bound(board, args.refute_moves, tables), tables,
                        Limits(seconds=args.refute_seconds, nodes=args.refute_nodes,
                               lambda_orders=args.orders))
    row = {**row, "tb_leaves": row.get("tb_leaves", 0) + refutation.tb_leaves}
    if refutation.refuted:
        verdict, moves = refutation_verdict(refutation)
        row.update(verdict=verdict, moves=moves,
                   order="full" if refutation.order is None else str(refutation.order),
                   main_line=" ".join(m.iccs() for m in refutation.main_line))
    return row


def refutation_of(task: tuple) -> dict:
    """``--refute-recorded``: a recorded row of a win without a proven mate, refuted if the
    refutation proves within its budget that Black mates whatever Red plays, else as it was."""
    row, fen, args = task
    start = time.perf_counter()
    tables = open_tablebase(args.tables) if args.tables else None
    row = refuted_row(row, Board(fen), tables, args)
    return {**row, "seconds": time.perf_counter() - start}


def recorded_rows() -> list[dict]:
    with TARGET.open(encoding="utf-8", newline="") as handle:
        return [{**row, "number": int(row["number"]), "seconds": 0.0, "tb_leaves": 0}
                for row in csv.DictReader(handle, delimiter="\t")]


def summary(rows: list[dict], elapsed: float) -> list[str]:
    quiet = [r for r in rows if r["stipulation"] == "win"]
    checks = [r for r in rows if r["stipulation"] == "checks"]
    proved = [r for r in quiet if r["verdict"].startswith("mate")]
    with_line = [r for r in proved if r["main_line"]]
    exact = [r for r in quiet if r["verdict"] == "mate"]
    checks_exact = [r for r in checks if r["verdict"] == "mate"]

    def share(part: list, whole: list) -> str:
        return f"{len(part)} of {len(whole)} ({100.0 * len(part) / max(1, len(whole)):.1f}%)"

    seconds = sorted(r["seconds"] for r in quiet if r["verdict"].startswith("mate"))
    median = seconds[len(seconds) // 2] if seconds else 0.0
    return [
        f"{len(rows)} positions in {elapsed:.0f} s",
        f"continuous check: {share(checks_exact, checks)} exact",
        f"quiet-move wins (no continuous-check solution, title not 和): proved with a main "
        f"line {share(with_line, quiet)}, exact length {share(exact, quiet)}; median time of "
        f"a proof {median:.1f} s",
        "quiet-move proofs by order: " + ", ".join(
            f"{order or '-'}: {sum(1 for r in proved if r['order'] == order)}"
            for order in sorted({r["order"] for r in proved})),
        f"refuted (lost for Red as set: Black mates whatever Red plays): "
        f"{share([r for r in quiet if r['verdict'].startswith('refuted')], quiet)}",
        f"drawn by their tables (not a win as set, however long): "
        f"{share([r for r in quiet if r['verdict'] == TABLE_DRAW], quiet)}",
        f"draw studies (title says 和): {sum(1 for r in rows if r['stipulation'] == 'draw')}",
        f"tablebase leaves: {sum(r['tb_leaves'] for r in rows):,} in "
        f"{sum(1 for r in rows if r['tb_leaves'])} problems",
    ]


def line_fault(row: dict, fen: str) -> str | None:
    """What is wrong with a proved row's main line, or None: it must replay to mate (checking
    on every Red move of a continuous-check problem) in the stated number of moves (at most
    that many for "mate within N": its defence is not proven the longest)."""
    try:
        moves = [Move.from_iccs(text) for text in row["main_line"].split()]
    except ValueError as error:
        return str(error)
    refuted = row["verdict"].startswith("refuted")
    fault = replay_fault(Board(fen), moves, row["stipulation"] == "checks" and not refuted,
                         refutation=refuted)
    if fault is not None:
        return fault
    # A refutation's line is Red's move, then Black's mate: two plies a Black move.
    stated = 2 * int(row["moves"]) - (0 if refuted else 1)
    if len(moves) > stated or (row["verdict"] in ("mate", "refuted")
                               and len(moves) != stated):
        return f"the line takes {len(moves)} plies, the verdict {stated}"
    return None


def write(rows: list[dict]) -> None:
    """Replace the verdicts file: a temporary file in its directory, renamed when complete."""
    fd, temp = tempfile.mkstemp(dir=TARGET.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, COLUMNS, delimiter="\t", lineterminator="\n",
                                    extrasaction="ignore")
            writer.writeheader()
            writer.writerows(rows)
        os.replace(temp, TARGET)
    except BaseException:
        os.unlink(temp)
        raise


def on_cluster(tasks: list[tuple], args: argparse.Namespace, show) -> list[dict]:
    """The rows of ``tasks``, one Dask task each (keys from the problem and the budget, so two
    runs asking the same of one scheduler share the searches), in the order of ``tasks``."""
    import hashlib

    from puzzles.cluster import ClusterError, connect, dashboard_note, run_tasks

    budget = repr([args.checks_seconds, args.checks_moves, args.any_seconds, args.any_moves,
                   args.any_nodes, args.orders, args.tables, args.refute_seconds,
                   args.refute_nodes, args.refute_moves])
    token = "0" + hashlib.sha1(budget.encode()).hexdigest()[:11]
    try:
        with connect(args.cluster, args.workers) as client:
            print(f"on {args.cluster or f'a LocalCluster of {args.workers} workers'}; "
                  f"{dashboard_note(client, not args.cluster)}", flush=True)
            return run_tasks(client, verdict_of, [(task,) for task in tasks],
                             [f"solve-collection-{token}-{task[0]}" for task in tasks],
                             lambda i, row: show(row))
    except ClusterError as error:
        raise SystemExit(str(error)) from None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    # Ten seconds: No. 7's exact mate in 20 takes 4.4 s alone and more on a shared machine
    # (at 4 s it came out "within 20" under load 6-8).
    parser.add_argument("--checks-seconds", type=float, default=10.0)
    parser.add_argument("--checks-moves", type=int, default=80)
    parser.add_argument("--any-seconds", type=float, default=60.0)
    parser.add_argument("--any-moves", type=int, default=30)
    parser.add_argument("--any-nodes", type=int, default=0,
                        help="node budget of a quiet-move search (0: none); unlike seconds, "
                             "the verdicts then do not depend on the machine or its load")
    parser.add_argument("--orders", type=int, default=3, help="λ orders before full width")
    parser.add_argument("--refute-seconds", type=float, default=10.0,
                        help="a win without a proven mate: time to prove that Black mates "
                             "whatever Red plays (0 with --refute-nodes 0: no refutation)")
    parser.add_argument("--refute-nodes", type=int, default=0,
                        help="node budget of a refutation (0: none)")
    parser.add_argument("--refute-moves", type=int, default=30,
                        help="bound on Black's moves in a refutation")
    parser.add_argument("--refute-recorded", action="store_true",
                        help="only refute the recorded wins without a proven mate (the other "
                             "rows of the verdicts file are kept) and write the file again")
    parser.add_argument("--jobs", type=int, default=1, help="problems solved at once")
    parser.add_argument("--cluster", default=None, metavar="ADDRESS",
                        help="a Dask scheduler (tcp://host:8786): one task per problem")
    parser.add_argument("--workers", type=int, default=None, metavar="N",
                        help="a Dask LocalCluster of N single-thread workers here")
    parser.add_argument("--numbers", default=None,
                        help="e.g. 1-40,316 (implies --no-write, unless --update)")
    parser.add_argument("--update", action="store_true",
                        help="with --numbers: put their new rows in the verdicts file, the "
                             "other rows kept, and write it")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--tables", default=None, metavar="DIR",
                        help="tablebase directory whose tables answer the leaves (default: none, "
                             "so the verdicts do not depend on what a machine has built)")
    parser.add_argument("--build-tables", type=float, default=None, metavar="MINUTES",
                        help="first build into --tables every composition's table estimated "
                             "to build within MINUTES on two threads (with its sub-tables)")
    args = parser.parse_args()
    if args.build_tables is not None and args.build_tables < 0:
        parser.error(f"--build-tables: minutes must be at least 0, not {args.build_tables}")
    if args.tables and not Path(args.tables).is_dir():
        parser.error(f"--tables: {args.tables} is not a directory")
    if args.tables:
        args.tables = str(Path(args.tables).resolve())     # the same path on every worker
    if args.update and not args.numbers:
        parser.error("--update needs --numbers (the rows to solve again)")
    if args.update and args.refute_recorded:
        parser.error("--update and --refute-recorded: one or the other")
    if args.cluster and args.workers:
        parser.error("--cluster and --workers: one or the other")
    if args.build_tables is not None and not args.tables:
        parser.error("--build-tables needs --tables DIR (where to build them)")
    every = problems()
    if args.build_tables is not None:
        from tablebases.build import build

        wanted = cheap_tables(every, args.build_tables)
        print(f"tables built or present first ({len(wanted)}): {' '.join(wanted)}", flush=True)
        build(wanted, args.tables, threads=2, log=lambda line: print(line, flush=True))
    chosen = set(composition_numbers(args.numbers) if args.numbers
                 else range(1, len(every) + 1))
    tasks = [(number, fen, title, args) for number, fen, title in every if number in chosen]
    solve_one = verdict_of
    recorded: dict[int, dict] = {}
    if args.refute_recorded:
        if not (args.refute_seconds or args.refute_nodes):
            parser.error("--refute-recorded needs a refutation budget (--refute-seconds or "
                         "--refute-nodes)")
        recorded = {row["number"]: row for row in recorded_rows()}
        fens = {number: fen for number, fen, _ in every}
        tasks = [(row, fens[number], args) for number, row in recorded.items()
                 if number in chosen and row["stipulation"] == "win"
                 and not row["verdict"].startswith(("mate", "refuted"))]
        solve_one = refutation_of
    start = time.perf_counter()
    rows = []

    def show(row: dict) -> None:
        print(f"{row['number']:3d} {row['stipulation']:<6} {row['verdict']:<18} "
              f"{row['moves']!s:>3} {row['order']:>4} {row['seconds']:6.1f} s", flush=True)

    if args.cluster or args.workers:
        if args.refute_recorded:
            parser.error("--refute-recorded runs here (--jobs), not on a cluster")
        rows = on_cluster(tasks, args, show)
    else:
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            for row in pool.map(solve_one, tasks):
                rows.append(row)
                show(row)
    if args.update:
        recorded = {row["number"]: row for row in recorded_rows()}
    if args.refute_recorded or args.update:
        recorded.update((row["number"], row) for row in rows)
        rows = [recorded[number] for number in sorted(recorded)]
    fens = {number: fen for number, fen, _ in every}
    faults = [(row, fault) for row in rows
              if row["verdict"].startswith(("mate", "refuted"))
              and (fault := line_fault(row, fens[row["number"]])) is not None]
    for row, fault in faults:
        # The proof stands, but a line that does not show it is no answer to store: the
        # row is recorded as unproven (and the fault named) rather than the run lost.
        print(f"No. {row['number']}: {fault}; recorded as unproven (was {row['verdict']})")
        row.update(verdict="unproven", moves="", order="", main_line="")
    for line in summary(rows, time.perf_counter() - start):
        print(line)
    if faults:
        print(f"main lines failing the replay check: {len(faults)} "
              f"({', '.join(str(row['number']) for row, _ in faults)})")
    if not args.no_write and (args.update or not args.numbers):
        write(rows)
        print(f"-> {TARGET}")


if __name__ == "__main__":
    main()
