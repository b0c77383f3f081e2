"""Continuous-check mode (连照杀) against Fairy-Stockfish's ``go mate N`` (issue 13, item 6(d)).

Usage:
    python benchmarks/bench_vs_fairy.py --engine /usr/games/fairy-stockfish
    XQ_FAIRY_STOCKFISH=/path/to/fairy-stockfish python benchmarks/bench_vs_fairy.py
    python benchmarks/bench_vs_fairy.py --engine PATH --numbers 7,12,24
Options: --count K (default 40), --timeout S (Fairy-Stockfish's budget per problem, default
120), --hash MB (default 256).

The problem set (reproducible): the first ``--count`` rows of
puzzles/data/shiqingyaqu551_verdicts.tsv, in number order, whose stipulation is ``checks``,
verdict ``mate`` and length at most 25 moves (every such row today is at most 25).  N is that
row's exact length.  For each problem:

* ours: ``solve(Board(fen), mode="checks", max_moves=N)``, ``time.perf_counter()`` around the
  call (the solver is single-threaded); its length must equal the TSV's.
* Fairy-Stockfish: UCI_Variant xiangqi, Threads 1, Hash 256, ``ucinewgame`` and ``position
  fen`` and ``isready`` first, then the clock runs from the moment ``go mate N`` is sent until
  ``bestmove`` arrives (solver time only: start-up and hash clearing are not counted).  Its last
  ``score mate K`` must have 0 < K <= N (K in moves; Fairy-Stockfish is free to use quiet moves,
  so K may be below N).  After ``--timeout`` seconds ``stop`` is sent and the problem counts as
  a timeout (its time, the timeout, is listed separately and kept out of the ratio).

Without an engine (neither --engine nor XQ_FAIRY_STOCKFISH) it prints a line and skips.
"""
from __future__ import annotations

import argparse
import math
import os
import queue
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FENS = ROOT / "tests" / "data" / "shiqingyaqu551.fen"
VERDICTS = ROOT / "puzzles" / "data" / "shiqingyaqu551_verdicts.tsv"
MAX_LENGTH = 25


def collection() -> tuple[list[str], list[str]]:
    text = FENS.read_text(encoding="utf-8-sig")
    fens = re.findall(r'\[FEN "([^"]+)"\]', text)
    names = [event.split()[-1] for event in re.findall(r'\[EVENT "([^"]+)"\]', text)]
    return fens, names


def check_problems() -> dict[int, int]:
    """number -> exact length, for every ``checks``/``mate`` row of at most MAX_LENGTH moves."""
    problems = {}
    lines = VERDICTS.read_text(encoding="utf-8").splitlines()
    header = lines[0].split("\t")
    for line in lines[1:]:
        row = dict(zip(header, line.split("\t")))
        if row["stipulation"] == "checks" and row["verdict"] == "mate" and row["moves"]:
            if int(row["moves"]) <= MAX_LENGTH:
                problems[int(row["number"])] = int(row["moves"])
    return problems


class Engine:
    """A UCI engine in a child process; lines are read by a thread into a queue."""

    def __init__(self, path: str, hash_mb: int = 256):
        self.process = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.send("uci")
        self.name = ""
        options = set()
        for line in self.until("uciok", 30):
            if line.startswith("id name "):
                self.name = line[len("id name "):]
            found = re.match(r"option name (.+?) type ", line)
            if found:
                options.add(found.group(1))
        if "Use NNUE" in options:       # no network file here: the classical evaluation
            self.send("setoption name Use NNUE value false")
        self.send("setoption name UCI_Variant value xiangqi")
        self.send("setoption name Threads value 1")
        self.send(f"setoption name Hash value {hash_mb}")
        self.ready()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, command: str) -> None:
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()

    def until(self, prefix: str, seconds: float) -> list[str]:
        """The lines up to and including the first that starts with ``prefix``."""
        deadline = time.monotonic() + seconds
        seen = []
        while True:
            line = self.lines.get(timeout=max(0.001, deadline - time.monotonic()))
            if line is None:
                raise RuntimeError("the engine exited")
            seen.append(line)
            if line.startswith(prefix):
                return seen

    def ready(self) -> None:
        self.send("isready")
        self.until("readyok", 60)

    def mate(self, fen: str, moves: int, timeout: float) -> tuple[float, int | None, int, bool]:
        """(seconds from ``go`` to ``bestmove``, last ``score mate`` K or None, nodes, timed
        out)."""
        self.send("ucinewgame")
        self.send(f"position fen {fen}")
        self.ready()
        start = time.perf_counter()
        self.send(f"go mate {moves}")
        mate, nodes, timed_out = None, 0, False
        deadline = start + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.001, deadline - time.perf_counter()))
            except queue.Empty:
                if timed_out:
                    raise RuntimeError("the engine does not answer 'stop'") from None
                timed_out = True
                self.send("stop")
                deadline = time.perf_counter() + 30
                continue
            if line is None:
                raise RuntimeError("the engine exited")
            if line.startswith("info"):
                found = re.search(r"\bscore mate (-?\d+)", line)
                if found and " lowerbound" not in line and " upperbound" not in line:
                    mate = int(found.group(1))
                found = re.search(r"\bnodes (\d+)", line)
                if found:
                    nodes = int(found.group(1))
            elif line.startswith("bestmove"):
                elapsed = time.perf_counter() - start
                return (timeout if timed_out else elapsed), mate, nodes, timed_out

    def close(self) -> None:
        try:
            self.send("quit")
            self.process.wait(5)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default=os.environ.get("XQ_FAIRY_STOCKFISH", ""))
    parser.add_argument("--numbers", default="", help="comma-separated numbers in 适情雅趣")
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--hash", type=int, default=256)
    args = parser.parse_args(argv)
    if not args.engine:
        print("bench_vs_fairy: skipped (no engine: give --engine PATH or XQ_FAIRY_STOCKFISH)")
        return 0
    if shutil.which(args.engine) is None:
        print(f"bench_vs_fairy: skipped (engine {args.engine!r} is not an executable)")
        return 0

    from solver import solve
    from xiangqi import Board

    fens, names = collection()
    problems = check_problems()
    if args.numbers:
        numbers = [int(n) for n in args.numbers.split(",") if n.strip()]
        unknown = [n for n in numbers if n not in problems]
        if unknown:
            parser.error(f"not checks/mate rows of at most {MAX_LENGTH} moves: {unknown}")
    else:
        numbers = sorted(problems)[:args.count]

    engine = Engine(args.engine, args.hash)
    print(f"# engine: {engine.name} ({args.engine}), Threads 1, Hash {args.hash}; "
          f"{len(numbers)} problems, timeout {args.timeout:g} s")
    print(f"{'no.':>4} {'name':<6} {'moves':>5} {'ours s':>8} {'nodes':>10} "
          f"{'FSF s':>8} {'FSF mate':>8} {'FSF nodes':>11} {'ratio':>7}", flush=True)
    ours_total = fsf_total = 0.0
    rows, timeouts, disagreements = [], [], []
    try:
        for number in numbers:
            fen, moves = fens[number - 1], problems[number]
            start = time.perf_counter()
            result = solve(Board(fen), mode="checks", max_moves=moves)
            ours = time.perf_counter() - start
            if result.verdict != "mate" or result.length != moves:
                disagreements.append(f"No. {number}: ours {result.verdict} {result.length}, "
                                     f"the TSV {moves}")
            fsf, mate, nodes, timed_out = engine.mate(fen, moves, args.timeout)
            if timed_out:
                timeouts.append((number, mate))
            elif mate is None or not 0 < mate <= moves:
                disagreements.append(f"No. {number}: Fairy-Stockfish score mate {mate}, N {moves}")
            if not timed_out:
                ours_total += ours
                fsf_total += fsf
            rows.append((number, ours, fsf, timed_out))
            ratio = "timeout" if timed_out else f"{fsf / ours:.1f}x" if ours > 0 else "-"
            print(f"{number:>4} {names[number - 1]:<6} {moves:>5} {ours:>8.3f} "
                  f"{result.nodes:>10,} {fsf:>8.3f} {str(mate):>8} {nodes:>11,} {ratio:>7}",
                  flush=True)
    finally:
        engine.close()

    solved = len(rows) - len(timeouts)
    ratio = fsf_total / ours_total if ours_total else 0
    print(f"total over the {solved} problems Fairy-Stockfish solved in time: ours "
          f"{ours_total:.2f} s, Fairy-Stockfish {fsf_total:.2f} s, ratio {ratio:.1f}x")
    if timeouts:
        ours_out = sum(ours for number, ours, _, out in rows if out)
        print(f"Fairy-Stockfish timeouts ({args.timeout:g} s each, not in the ratio): "
              f"{len(timeouts)}: "
              + ", ".join(f"No. {n} (last mate score {m})" for n, m in timeouts)
              + f"; ours on them {ours_out:.2f} s")
    ratios = sorted(fsf / ours for _, ours, fsf, out in rows if not out and ours > 0)
    if ratios:
        geometric = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"per-problem ratio: geometric mean {geometric:.1f}x, median "
              f"{statistics.median(ratios):.1f}x, range {ratios[0]:.1f}-{ratios[-1]:.1f}x; "
              f"below 1x on {sum(r < 1 for r in ratios)}")
    if timeouts:
        ours_all = sum(ours for _, ours, _, _ in rows)
        fsf_all = sum(fsf for _, _, fsf, _ in rows)
        print(f"counting each timeout as {args.timeout:g} s: ratio at least "
              f"{fsf_all / ours_all:.1f}x")
    slowest = sorted(rows, key=lambda row: -row[1])[:5]
    print("our slowest: " + ", ".join(f"No. {n} {names[n - 1]} {ours:.2f} s"
                                       for n, ours, _, _ in slowest))
    print("disagreements: " + ("; ".join(disagreements) if disagreements else "none"))
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
