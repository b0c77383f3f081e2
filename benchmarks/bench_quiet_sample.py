"""The quiet-move wins of the development sample at a time budget a problem (issue 53): how
many the solver proves with a main line that replays to mate, and how many exactly, for a
setting of the proposer (``--proposer``, ``--proposer-share``) and of the processes
(``--threads``).  Ours alone; ``bench_quiet_vs_fairy.py`` runs Fairy-Stockfish beside it.

Usage:
    python benchmarks/bench_quiet_sample.py --resume FILE [--seconds 10 | --nodes N]
        [--threads 1] [--proposer threats|eval] [--proposer-share 0.3]
        [--threat-horizon H] [--epsilon-num E]
    python benchmarks/bench_quiet_sample.py --summary FILE [FILE ...]

Each problem: ``Solver(Board(fen), "any", Limits(seconds=SECONDS, nodes=N, threads=THREADS,
proposer=..., proposer_share=...)).run(MOVES)``, no tables.  ``--threat-horizon`` and
``--epsilon-num`` set the df-pn search's knobs of the same names (one process only): a threat
test looks at most H moves ahead (0: every move left), the second-best child's threshold grows
by 1 + E/4 (issue 53, item 3).  The ``threat_share`` column is the share of the nodes searched
after a pass (the threat tests); ``threat_answered`` the share of threat tests that the table
answered without a search (a pass position solved before: a sibling's transposition, an
earlier order or bound).  ``--resume FILE``
appends one row per problem as it finishes and skips the problems already there (its header
records the settings; other settings are refused).  ``--summary`` compares runs: the found
and exact counts, and the problems one run found that another did not.

Figures (2026-12-07, ci-2core; two runs side by side, one process each, 10 s a problem):
proposer off 19 found (8 exact); the evaluation-guided proposer (solver._mate_eval) at a
share of 0.3 the same 19 (8 exact), No. 380's bound 12 instead of 10.  With its defender
reductions and frontier futility (a second pair of runs, ``*_b.tsv``): off 19 (9 exact),
eval 0.3 19 (9 exact), No. 336's bound 18 instead of 15.

Threat tests (issue 53, item 3; 2026-12-07, ci-2core, node budgets, one process): at 1 M nodes
they take 18.5% of all nodes (up to 46% on the unsolved problems), and the table already
answers 7-30% of them (a pass position met again: a sibling's transposition, an earlier order
or bound).  Found (exact) at 1 M / 3 M / 5 M nodes: default 17 (8) / 18 (9) / 19 (13); a
threat horizon of 5 moves 17 / 19 (9) / 19 (12), of 3 17 / 19 (9), of 2 - / 16 (10): one
more problem at 3 M (No. 380) and none at 5 M, so no horizon is the default.  Epsilon 0 and
1/2 instead of 1/4: 17 at 1 M, 18 (10 exact) and 18 (9 exact) at 3 M: 1/4 stays.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from resume_rows import append_row, read_rows, resumed_rows_or_report
from solve_collection import chosen_positions
from solver import Limits
from solver.search import DEFAULT_PROPOSER, DEFAULT_PROPOSER_SHARE, PROPOSERS, Solver
from xiangqi import Board

COLUMNS = ["number", "verdict", "moves", "exact", "replays", "nodes", "seconds", "threat_share",
           "threat_answered"]
TITLE = "# bench_quiet_sample.py resume file: one row per problem, appended as it finishes"


def settings_lines(args: argparse.Namespace) -> list[str]:
    return [f"# setting {name}={getattr(args, name)}" for name in
            ("seconds", "nodes", "moves", "threads", "proposer", "proposer_share",
             "threat_horizon", "epsilon_num")]


def replays_to_mate(board: Board, line: list) -> bool:
    board = board.copy()
    for move in line:
        if move not in board.legal_moves:
            return False
        board.push(move)
    return bool(line) and not board.has_legal_move()


def summary(paths: list[Path]) -> str:
    found: dict[Path, set[int]] = {}
    lines = []
    for path in paths:
        rows = read_rows(path, COLUMNS)[1]
        found[path] = {n for n, row in rows.items() if row["replays"] == "yes"}
        exact = sum(rows[n]["exact"] == "yes" for n in found[path])
        lines.append(f"{path.name}: {len(rows)} problems, {len(found[path])} found "
                     f"({exact} exact)")
    for path in paths:
        others = set().union(*(found[p] for p in paths if p != path)) if len(paths) > 1 else set()
        if len(paths) > 1:
            lines.append(f"only {path.name}: " + (", ".join(map(str, sorted(found[path] -
                                                                              others)))
                                                  or "none"))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resume", type=Path, help="append rows here, skip those there")
    parser.add_argument("--summary", type=Path, nargs="+", help="the figures of resume files")
    parser.add_argument("--numbers", default="", help="comma-separated numbers in 适情雅趣")
    parser.add_argument("--seconds", type=float, default=10.0, help="0: no time limit")
    parser.add_argument("--nodes", type=int, default=0, help="node budget (0: none)")
    parser.add_argument("--moves", type=int, default=30)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--proposer", choices=PROPOSERS, default=DEFAULT_PROPOSER)
    parser.add_argument("--proposer-share", type=float, default=DEFAULT_PROPOSER_SHARE)
    defaults = Solver(Board(), "any", Limits()).search
    parser.add_argument("--threat-horizon", type=int, default=defaults.threat_horizon)
    parser.add_argument("--epsilon-num", type=int, default=defaults.epsilon_num)
    args = parser.parse_args(argv)
    knobs = {"threat_horizon": args.threat_horizon, "epsilon_num": args.epsilon_num}
    if args.threads != 1 and any(getattr(defaults, k) != v for k, v in knobs.items()):
        parser.error("--threat-horizon and --epsilon-num set one process's search: --threads 1")
    if args.summary:
        print(summary(args.summary))
        return 0
    fens = chosen_positions(args.numbers)
    numbers = list(fens)
    done = resumed_rows_or_report(args.resume, TITLE, settings_lines(args), COLUMNS)
    if done is None:
        return 2
    limits = Limits(seconds=args.seconds, nodes=args.nodes, threads=args.threads,
                    proposer=args.proposer, proposer_share=args.proposer_share)
    for number in numbers:
        if number in done:
            continue
        board = Board(fens[number])
        start = time.perf_counter()
        solver = Solver(board, "any", limits)
        for name, value in knobs.items():
            setattr(solver.search, name, value)
        result = solver.run(args.moves)
        replays = str(result.verdict) == "mate" and replays_to_mate(board, result.main_line)
        answered = solver.search.threat_answers
        row = {"number": str(number), "verdict": str(result.verdict),
               "moves": str(result.length or ""), "exact": "yes" if result.exact else "no",
               "replays": "yes" if replays else "no", "nodes": str(result.nodes),
               "seconds": f"{time.perf_counter() - start:.2f}",
               "threat_share": f"{solver.search.threat_nodes_spent / max(1, result.nodes):.3f}",
               "threat_answered": f"{answered / max(1, answered + solver.search.threat_tests):.3f}"}
        print("\t".join(row[c] for c in COLUMNS), flush=True)
        if args.resume:
            append_row(args.resume, row, COLUMNS)
    return 0


if __name__ == "__main__":
    sys.exit(main())
