"""The alpha-beta mate finder (``solver._mate_ab``, the proposer of issue 37 item 5) alone on the
quiet-move wins of the development sample: which mates it proposes within a node budget, how
fast, and whether each proposed line replays to mate.

Usage:
    python benchmarks/bench_proposer.py --resume FILE [--nodes 1000000]
    python benchmarks/bench_proposer.py --resume FILE --numbers 314,380
    python benchmarks/bench_proposer.py --summary FILE

Each problem: ``MateFinder().find(board, MOVES, node_limit=NODES)`` (every bound from 1 up,
in the stages of ``THREAT_STAGES``), then its ``line()`` replayed on the board: "yes" if
every move is legal and the last leaves the defender without a move.  The proposer proves
nothing the solver reports; ``solve_collection.py --proposer-share`` measures what its
hints do for df-pn.  ``--resume FILE`` appends one row per problem as it finishes and skips
the problems already there (its header records the settings; other settings are refused).

Figures (one thread, bound 30): at 1,000,000 nodes a problem 7 of the 41 proposed (63, 195,
285, 314, 321, 344, 401, each at the length df-pn proves), 24.9 M nodes in all in 36 s; at
2,000,000 also No. 300 (8), 46.1 M nodes.  One stage alone (threat cap 1, 2 or unlimited)
found 5, 4 and 4 at 1 M nodes.  Every one of these is proved by df-pn alone within 2 M
nodes, so on this sample the proposer adds no proof (see solver.search.DEFAULT_PROPOSER_SHARE).
At 10 s a problem (--seconds 10 --nodes 0): the same 8, 191 M nodes in 205 s (0.93 M/s).  Side
by side at 10 s (bench_quiet_vs_fairy.py, Fairy-Stockfish c19b5f6c largeboards, go mate 30):
the solver (df-pn, proposer off) 19 with a proof (9 exact), Fairy-Stockfish 17 claims; only
Fairy-Stockfish 436, 443, 457 (mates in 29, 26, 24), which neither the proposer nor df-pn finds.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from resume_rows import append_row, read_rows, resumed_rows_or_report
from solve_collection import chosen_positions
from solver._mate_ab import MateFinder
from xiangqi import Board, Move

COLUMNS = ["number", "pieces", "proposed", "order", "nodes", "seconds", "replays", "line"]
TITLE = "# bench_proposer.py resume file: one row per problem, appended as it finishes"


def settings_lines(args: argparse.Namespace) -> list[str]:
    return [f"# setting {name}={value}" for name, value in
            (("nodes", args.nodes), ("seconds", args.seconds), ("moves", args.moves))]


def replays_to_mate(board: Board, line: list[tuple[int, int]]) -> bool:
    """Every move of ``line`` is legal in turn and the last leaves the side to move without a
    legal move (mate, or 困毙)."""
    board = board.copy()
    for from_square, to_square in line:
        move = Move(from_square, to_square)
        if move not in board.legal_moves:
            return False
        board.push(move)
    return bool(line) and not board.has_legal_move()


def propose(fen: str, moves: int, nodes: int, seconds: float) -> dict[str, str]:
    board = Board(fen)
    finder = MateFinder()
    start = time.perf_counter()
    length = finder.find(board, moves, node_limit=nodes, seconds=seconds)
    spent = time.perf_counter() - start
    line = finder.line() if length is not None else []
    return {"pieces": str(len(board.piece_map())),
            "proposed": "" if length is None else str(length),
            "order": str(finder.order or ""), "nodes": str(finder.nodes),
            "seconds": f"{spent:.2f}",
            "replays": ("yes" if replays_to_mate(board, line) else "no") if line else "",
            "line": " ".join(Move(f, t).iccs() for f, t in line)}


def summary(rows: dict[int, dict[str, str]]) -> str:
    found = sorted(n for n, row in rows.items() if row["proposed"])
    replayed = sum(rows[n]["replays"] == "yes" for n in found)
    nodes = sum(int(row["nodes"]) for row in rows.values())
    seconds = sum(float(row["seconds"]) for row in rows.values())
    return "\n".join([
        f"{len(rows)} problems: {len(found)} proposed ({replayed} replay to mate): "
        + (", ".join(f"{n} (mate {rows[n]['proposed']})" for n in found) or "none"),
        f"{nodes:,} nodes in {seconds:.0f} s ({nodes / max(seconds, 1e-9) / 1e6:.2f} M/s)"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resume", type=Path, help="append rows here, skip those there")
    parser.add_argument("--summary", type=Path, help="print the figures of a resume file")
    parser.add_argument("--numbers", default="", help="comma-separated numbers in 适情雅趣")
    parser.add_argument("--nodes", type=int, default=1_000_000, help="node budget (0: none)")
    parser.add_argument("--seconds", type=float, default=0.0, help="time budget (0: none)")
    parser.add_argument("--moves", type=int, default=30, help="bound on the mate's moves")
    args = parser.parse_args(argv)
    if args.summary:
        print(summary(read_rows(args.summary, COLUMNS)[1]))
        return 0
    if not args.nodes and not args.seconds:
        parser.error("give a budget: --nodes or --seconds")
    fens = chosen_positions(args.numbers)
    numbers = list(fens)
    done = resumed_rows_or_report(args.resume, TITLE, settings_lines(args), COLUMNS)
    if done is None:
        return 2
    for number in numbers:
        if number in done:
            continue
        row = {"number": str(number), **propose(fens[number], args.moves, args.nodes,
                                                args.seconds)}
        done[number] = row
        print("\t".join(row[c] for c in COLUMNS), flush=True)
        if args.resume:
            append_row(args.resume, row, COLUMNS)
    print(summary({n: done[n] for n in numbers if n in done}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
