"""One search on several processes (``--threads``, ``solver.parallel``) against one process, on
quiet-move wins of 《适情雅趣》: the same node budget in all, the wall time to the answer.

Usage:
    python benchmarks/bench_threads.py --threads 1 --resume t1.tsv [--nodes 2000000]
    python benchmarks/bench_threads.py --threads 2 --resume t2.tsv
    python benchmarks/bench_threads.py --summary t1.tsv t2.tsv

Each problem: ``Solver(board, "any", Limits(nodes=NODES, threads=THREADS)).run(30)``; a row
has the verdict, the length, exactness, the nodes of all processes, those of the main process
(the helpers' are ``Search.helper_nodes``: the main process's count is the search's critical
path), the wall seconds and the CPU seconds of this process and its helpers.  The default
problems are the 18 of the development sample that one process proves within 2,000,000 nodes
(so that both runs time the same work); ``--numbers`` picks others.  ``--resume FILE``
appends one row per problem as it finishes and skips those already there (the settings are
in its header; a run with others is refused).  Compare wall times only from runs on a quiet
machine: under load the helpers wait for a core.
"""
from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

from resume_rows import append_row, read_rows
from solve_collection import problems
from solver import Limits, Solver
from xiangqi import Board

COLUMNS = ["number", "verdict", "moves", "exact", "nodes", "main_nodes", "seconds",
           "cpu_seconds"]
TITLE = "# bench_threads.py resume file: one row per problem, appended as it finishes"
# The development sample's problems that one process proves within 2 M nodes (session 17).
PROVED = [37, 63, 95, 195, 228, 249, 285, 300, 314, 321, 336, 344, 351, 358, 401, 408, 429,
          464]
BOUND = 30


def cpu_seconds() -> float:
    """CPU time of this process and of its children that have exited (the helpers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def solve_one(fen: str, nodes: int, threads: int) -> dict[str, str]:
    solver = Solver(Board(fen), "any", Limits(nodes=nodes, threads=threads))
    start, cpu = time.perf_counter(), cpu_seconds()
    result = solver.run(BOUND)
    return {"verdict": str(result.verdict), "moves": str(result.length or ""),
            "exact": "yes" if result.exact else "no", "nodes": str(result.nodes),
            "main_nodes": str(result.nodes - solver.search.helper_nodes),
            "seconds": f"{time.perf_counter() - start:.3f}",
            "cpu_seconds": f"{cpu_seconds() - cpu:.3f}"}


def summary(paths: list[Path]) -> list[str]:
    """Per file: proofs, and over the problems every file proved the same way, the nodes, the
    main process's nodes, wall and CPU seconds."""
    tables = [read_rows(path, COLUMNS)[1] for path in paths]
    common = sorted(set.intersection(*[{n for n, r in rows.items() if r["verdict"] == "mate"}
                                       for rows in tables]))
    lines = [f"problems proved in every file: {len(common)}"]
    for path, rows in zip(paths, tables):
        proved = sum(1 for r in rows.values() if r["verdict"] == "mate")
        total = {c: sum(float(rows[n][c]) for n in common)
                 for c in ("nodes", "main_nodes", "seconds", "cpu_seconds")}
        lines.append(f"{path.name}: {proved} of {len(rows)} proved; on the common ones "
                     f"{total['nodes']:,.0f} nodes, {total['main_nodes']:,.0f} in the main "
                     f"process, {total['seconds']:.1f} s wall, {total['cpu_seconds']:.1f} s CPU")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--nodes", type=int, default=2_000_000)
    parser.add_argument("--numbers", default=",".join(map(str, PROVED)))
    parser.add_argument("--resume", type=Path, default=None)
    parser.add_argument("--summary", type=Path, nargs="+", default=None)
    args = parser.parse_args(argv)
    if args.summary:
        print("\n".join(summary(args.summary)))
        return
    if args.resume is None:
        parser.error("--resume FILE is needed (or --summary FILES)")
    settings = [f"# setting threads={args.threads}", f"# setting nodes={args.nodes}",
                f"# setting bound={BOUND}"]
    done: dict[int, dict[str, str]] = {}
    if args.resume.exists():
        header, done = read_rows(args.resume, COLUMNS)
        if header != settings:
            sys.exit(f"{args.resume}: made with other settings ({'; '.join(header)})")
    else:
        args.resume.write_text("\n".join([TITLE, *settings, "\t".join(COLUMNS)]) + "\n",
                               encoding="utf-8")
    fens = {number: fen for number, fen, _ in problems()}
    for number in (int(text) for text in args.numbers.split(",")):
        if number in done:
            continue
        row = {"number": str(number), **solve_one(fens[number], args.nodes, args.threads)}
        append_row(args.resume, row, COLUMNS)
        print("\t".join(row[c] for c in COLUMNS), flush=True)


if __name__ == "__main__":
    main()
