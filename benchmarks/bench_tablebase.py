"""Tablebase builds: time, positions per second per thread per pass, and peak memory.

Usage:
    python benchmarks/bench_tablebase.py                 # a quick set (seconds)
    python benchmarks/bench_tablebase.py --set single    # the 324 one-attacker endgames
    python benchmarks/bench_tablebase.py --set named     # KRKR, KRNKAABB, KCPABKAABB
    python benchmarks/bench_tablebase.py KRKAABB ...     # any materials
Options: --threads N (default: all cores), --dir DIR (default: a temporary directory).
Each line: material, positions (both sides to move), build seconds (wall clock: all three
metrics, their re-checks and the file), the build's CPU seconds (all threads), M
positions/s/thread/pass, the peak memory of that table's build (each table is built in a
process of its own), the memory its largest arrays need (one metric of the table and of its
direct sub-tables, both sides to move, as the builder holds them), and the verdict figures
that `xqstudio tb stats` prints.

The rate is index entries (both sides) times retrograde passes, over the CPU seconds of the
metrics' builds.  Those seconds include the first sweep, which evaluates every position from
its captures and is not counted as a pass, and the perpetual-check search; not the
re-checks.  CPU time rather than wall-clock time, so that a figure taken while other work
shares the cores still says what a thread does.
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from tablebases.build import build, default_threads, indexer_for
from tablebases.material import Material

QUICK = ["KRKAA", "KNKA", "KRKAABB", "KRKN"]
NAMED = ["KRKR", "KRNKAABB", "KCPABKAABB"]


def single_attacker_set() -> list[str]:
    """One attacking piece (R, N, C or P) with any advisors/elephants on either side, against a
    defender without attacking pieces: 4 x 9 x 9 = 324 materials."""
    guards = ["".join(p) for p in itertools.product(["", "A", "AA"], ["", "B", "BB"])]
    return [f"K{attacker}{mine}K{theirs}" for attacker in "RNCP" for mine in guards
            for theirs in guards]


def pass_rate(info: dict) -> float:
    """M index entries per CPU second per pass (wall-clock seconds times threads for metrics
    resumed from a checkpoint of a builder that did not record CPU time)."""
    counts = info["counts"]
    entries = 2 * sum(counts["red"][k] for k in ("wins", "draws", "losses", "illegal"))
    metrics = ("dtm", "dtc", "dtc60")
    passes = sum(info[f"{m}_passes"] for m in metrics)
    seconds = sum(info.get(f"{m}_cpu_seconds", info[f"{m}_seconds"] * info["threads"])
                  for m in metrics)
    return entries * passes / seconds / 1e6 if seconds else 0.0


def result_line(name: str, info: dict, elapsed: float, cpu: float, peak_mib: float) -> str:
    """One table's figures: positions, seconds, rate, peak memory and its verdict."""
    counts = info["counts"]
    positions = sum(counts[s][k] for s in ("red", "black") for k in ("wins", "draws", "losses"))
    rate = pass_rate(info)
    red = counts["red"]
    return (f"{name:<14} {positions:>14,} {elapsed:>9.2f} {cpu:>9.2f} {rate:>17.1f} "
            f"{peak_mib:>9.0f} "
            f"{arrays_mib(name):>10.1f}  {red['wins']:,}/{red['draws']:,}/{red['losses']:,}, "
            f"DTM {red['longest_dtm_plies']} plies, DTC {red['longest_dtc_plies']} plies, "
            f"cursed {red['cursed_wins']:,}")


def arrays_mib(name: str) -> float:
    """One metric's codes of the table and of its direct sub-tables, both sides to move."""
    material = Material.parse(name)
    sizes = [indexer_for(material).size]
    sizes += [indexer_for(sub).size for sub in {s.canonical() for s in material.captures()}]
    return sum(sizes) * 2 * 2 / 2**20


def build_in_child(material: str, directory: Path,
                   threads: int) -> tuple[dict, float, float, float]:
    """Build ``material`` (its sub-tables exist) in a forked process, so that the peak memory
    and the CPU time are that build's alone.  Returns (summary, seconds, CPU seconds, peak
    MiB)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:                     # the child: build, report through the pipe, leave
        os.close(read)
        try:
            start = time.perf_counter()
            summary = build(material, directory, threads=threads, log=lambda line: None)
            payload = {"summary": summary, "elapsed": time.perf_counter() - start}
        except BaseException as error:   # reported by the parent
            payload = {"error": f"{type(error).__name__}: {error}"}
        with os.fdopen(write, "w") as out:
            json.dump(payload, out)
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        text = pipe.read()
    _, status, usage = os.wait4(pid, 0)
    payload = json.loads(text) if text else {"error": f"build process ended with status {status}"}
    if "error" in payload:
        raise RuntimeError(f"{material}: {payload['error']}")
    return (payload["summary"], payload["elapsed"], usage.ru_utime + usage.ru_stime,
            usage.ru_maxrss / 1024)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("materials", nargs="*")
    parser.add_argument("--set", choices=("quick", "single", "named"), default=None)
    parser.add_argument("--threads", type=int, default=default_threads())
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args(argv)
    materials = args.materials or {"quick": QUICK, "single": single_attacker_set(),
                                   "named": NAMED, None: QUICK}[args.set]
    directory = args.dir or Path(tempfile.mkdtemp(prefix="xqtb-bench-"))
    print(f"tables in {directory}, {args.threads} threads")
    print(f"{'material':<14} {'positions':>14} {'seconds':>9} {'CPU s':>9} "
          f"{'M pos/s/thr/pass':>17} "
          f"{'peak MiB':>9} {'arrays MiB':>9}  verdict (Red to move: wins/draws/losses, "
          "longest DTM, DTC)")
    total_start = time.perf_counter()
    for requested in materials:
        # Table by table, so each line appears (and each file stays) as soon as it is built.
        for material in Material.parse(requested).build_order():
            summary, elapsed, cpu, peak = build_in_child(str(material), directory,
                                                         args.threads)
            for name, info in summary.items():
                print(result_line(name, info, elapsed, cpu, peak), flush=True)
    print(f"total {time.perf_counter() - total_start:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
