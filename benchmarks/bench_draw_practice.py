"""Draw practice (红先和): the time of one question of :class:`solver.practice.DrawPractice`.

Three kinds of question, as the studio asks them: a move judged by the table and the table's
resistance (《适情雅趣》 No. 550, KNKB), the analysis' drawing line followed (七星聚会, no
table), and a move off the line judged by a bounded search (Black's win within 6 found or
refuted), with the search's resistance after it.

    python benchmarks/bench_draw_practice.py --tables /work/tbdraw
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from solver import Limits  # noqa: E402
from solver.practice import DrawPractice  # noqa: E402
from tablebases import open_tablebase  # noqa: E402
from xiangqi import Board, Move  # noqa: E402

NO_550 = "4k4/9/9/9/9/9/9/B4n3/9/3K5 w - - 0 1"
QIXING = "4rk3/3P5/4bP3/9/9/8P/9/1p2p2C1/3p1p3/4K1RR1 w - - 0 1"
QIXING_LINE = "h2f2 e2f2 f7f8 f9f8".split()


def timed(label: str, question) -> None:
    start = time.perf_counter()
    answer = question()
    print(f"{label:<58} {1000 * (time.perf_counter() - start):9.1f} ms  {answer}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=Path, required=True, help="a directory with KNKB")
    parser.add_argument("--seconds", type=float, default=10.0, help="limit of each question")
    args = parser.parse_args(argv)
    limits = Limits(seconds=args.seconds)
    with open_tablebase(args.tables) as tablebase:
        practice = DrawPractice(Board(NO_550), tablebase=tablebase, limits=limits)
        timed("550 losing move judged (table)",
              lambda: practice.evaluate(Move.from_iccs("a2c4")).source)
        timed("550 holding move played (table)",
              lambda: practice.play(Move.from_iccs("a2c0")).keeps_draw)
        timed("550 resistance (table)", lambda: practice.resist().iccs())
    line = [Move.from_iccs(m) for m in QIXING_LINE]
    practice = DrawPractice(Board(QIXING), limits=limits, line=line)
    timed("七星聚会 line move judged", lambda: practice.play(line[0]).source)
    timed("七星聚会 line resistance", lambda: practice.resist().iccs())
    timed("七星聚会 off-line move judged (search within 6: a loss)",
          lambda: practice.evaluate(Move.from_iccs("g0g9")).reason)
    practice.play(line[2])
    practice.resist()
    timed("七星聚会 off-line move judged (search within 6: holds)",
          lambda: practice.evaluate(Move.from_iccs("g0g8")).reason)
    practice.play(Move.from_iccs("g0g8"))
    timed("七星聚会 resistance off the line (search within 6)",
          lambda: practice.resist().iccs())
    return 0


if __name__ == "__main__":
    sys.exit(main())
