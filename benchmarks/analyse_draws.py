"""The draw studies: the 52 和 compositions of 《适情雅趣》 (Nos. 469-551) and the 江湖 entries,
each analysed by :func:`solver.draw.analyse_draw` (tables first, bounded proofs, traps, the
drawing line).

For each study: its material, whether its table is present (or what building it would take,
and whether it fits this machine), the verdict and what settled it, the time, the nodes and
the process's peak memory so far.  ``--write`` rewrites ``puzzles/data/draw_analyses.tsv``,
which the catalogue reads (verdict, drawing line, traps); ``--markdown`` prints the table for
BENCHMARKS.md.

    python benchmarks/analyse_draws.py --tables /work/tbdraw --seconds 20 --write --markdown
    python benchmarks/analyse_draws.py --numbers 550 551 --build-up-to 60
    python benchmarks/analyse_draws.py --tables /work/tbdraw --numbers 1 --write \
        --main-line-file benchmarks/data/qixing_juhui_main_line.txt --line-bound 10

``--main-line-file`` replaces the drawing line the analysis finds by a given one (a study's
traditional main line; ``#`` comments, move numbers and any notation accepted), checked move
by move by :func:`solver.draw.check_drawing_line`; the ``line_checks`` column then says, per ply,
what showed the move keeps the mover's draw (a table, or the bound within which a full-width
search proved the opponent has no forced win).
"""
from __future__ import annotations

import argparse
import csv
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from puzzles.catalogue import load_compositions, load_great_four  # noqa: E402
from solver import Limits  # noqa: E402
from solver.draw import analyse_draw, build_tables, check_drawing_line, table_need  # noqa: E402
from tablebases import open_tablebase  # noqa: E402
from xiangqi import Board  # noqa: E402
from xiangqi.notation import parse_line  # noqa: E402

OUTPUT = ROOT / "puzzles" / "data" / "draw_analyses.tsv"
COLUMNS = ["collection", "number", "title", "material", "verdict", "settled_by", "bound",
           "red_held", "black_held", "seconds", "nodes", "table", "line_end", "line", "traps",
           "line_checks"]


def studies(numbers: list[int] | None) -> list[dict]:
    rows = [r for r in load_compositions("shiqingyaqu") if r["stipulation"] == "draw"]
    rows += load_great_four()
    if numbers:
        rows = [r for r in rows if r["number"] in numbers]
    return rows


def read_line(path: Path, board: Board) -> list:
    """The moves of a line file: ``#`` comments and move numbers (``12.``) skipped."""
    words = [word for text in path.read_text(encoding="utf-8").splitlines()
             for word in text.split("#")[0].split() if not word.rstrip(".").isdigit()]
    return parse_line(board, words)


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=Path, required=True, help="table directory")
    parser.add_argument("--seconds", type=float, default=20.0, help="budget per study")
    parser.add_argument("--bound", type=int, default=20, help="moves each side searches")
    parser.add_argument("--numbers", type=int, nargs="*", help="only these numbers")
    parser.add_argument("--build-up-to", type=float, default=0.0,
                        help="build a missing table first if its estimate is at most this "
                             "many seconds")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--write", action="store_true", help=f"rewrite {OUTPUT.name}")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--main-line-file", type=Path,
                        help="check this line (one study) instead of finding a drawing line")
    parser.add_argument("--line-bound", type=int, default=8,
                        help="moves the opponent's win is searched after each line move")
    parser.add_argument("--line-seconds", type=float, default=20.0,
                        help="search time for each move of --main-line-file")
    args = parser.parse_args(argv)
    results = []
    for row in studies(args.numbers):
        board = Board(row["fen"])
        need = table_need(board, args.tables, args.threads)
        if not need.present and need.fits and 0 < need.seconds <= args.build_up_to:
            build_tables(need, args.tables, args.threads, log=lambda line: None)
            need = table_need(board, args.tables, args.threads)
        start = time.perf_counter()
        with open_tablebase(args.tables) as tablebase:
            analysis = analyse_draw(board, args.bound, tablebase,
                                    Limits(seconds=args.seconds), trap_moves=20,
                                    line=args.main_line_file is None)
            if args.main_line_file is not None:
                analysis.line = check_drawing_line(
                    board, read_line(args.main_line_file, board), tablebase, args.line_bound,
                    args.line_seconds, phase=lambda text: print(text, file=sys.stderr,
                                                                flush=True))
        elapsed = time.perf_counter() - start
        collection = "shiqingyaqu" if row["collection"] == "适情雅趣" else "jianghu"
        traps = ";".join(f"{t.move.iccs()}>{t.refutation.iccs() if t.refutation else '-'}"
                         f"/{t.length}" for t in analysis.traps if t.kind != "quiet")
        line = analysis.line
        result = {
            "collection": collection, "number": row["number"], "title": row["title"],
            "material": need.material, "verdict": analysis.verdict,
            "settled_by": analysis.settled_by or "-", "bound": analysis.bound,
            "red_held": analysis.red.held if analysis.red else "-",
            "black_held": analysis.black.held if analysis.black else "-",
            "seconds": f"{elapsed:.1f}", "nodes": analysis.nodes,
            "table": "present" if need.present else
            (f"missing: ~{need.seconds:,.0f} s, {need.memory / 2**30:,.2f} GiB"
             + ("" if need.fits else " (does not fit)") if need.error is None else "no table"),
            # A given line's end says how far it was checked and why it stops there.
            "line_end": "-" if line is None else line.end if args.main_line_file is None
            else f"given line checked, {len(line.steps)} plies; it stops: {line.detail}",
            "line": " ".join(m.iccs() for m in line.moves) if line is not None else "",
            "traps": traps,
            "line_checks": ";".join(step.held for step in line.steps) if line else "",
        }
        results.append(result)
        print(f"{collection} {row['number']:>3} {need.material:<14} {analysis.verdict:<24} "
              f"{analysis.settled_by or '-':<18} {elapsed:6.1f} s  {analysis.nodes:>11,} nodes  "
              f"peak {peak_mib():,.0f} MiB  line {len(line.moves) if line else 0} plies "
              f"({line.end if line else '-'})", file=sys.stderr, flush=True)
    if args.write:
        if args.numbers and OUTPUT.exists():      # keep the other studies' rows
            with OUTPUT.open(encoding="utf-8", newline="") as handle:
                kept = [r for r in csv.DictReader(handle, delimiter="\t")
                        if (r["collection"], int(r["number"])) not in
                        {(n["collection"], n["number"]) for n in results}]
            order = {(r["collection"], int(r["number"])): r for r in [*kept, *results]}
            results = sorted(order.values(), key=lambda r: (r["collection"] != "shiqingyaqu",
                                                            int(r["number"])))
        with OUTPUT.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, COLUMNS, delimiter="\t", lineterminator="\n")
            writer.writeheader()
            writer.writerows(results)
        print(f"wrote {OUTPUT}", file=sys.stderr)
    if args.markdown:
        print("| study | material | table | verdict | settled by | no win within (Red/Black) "
              "| s | nodes | line (plies, end) |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for r in results:
            plies = len(r["line"].split())
            print(f"| {r['collection']} {r['number']} {r['title']} | {r['material']} | "
                  f"{r['table']} | {r['verdict']} | {r['settled_by']} | "
                  f"{r['red_held']}/{r['black_held']} | {r['seconds']} | "
                  f"{int(r['nodes']):,} | {plies}, {r['line_end']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
