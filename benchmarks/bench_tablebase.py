"""Tablebase builds: time, positions per second per thread per pass, and peak memory.

Usage:
    python benchmarks/bench_tablebase.py                 # a quick set (seconds)
    python benchmarks/bench_tablebase.py --set single    # the 324 one-attacker endgames
    python benchmarks/bench_tablebase.py --set named     # KRKR, KRNKAABB, KCPABKAABB
    python benchmarks/bench_tablebase.py KRKAABB ...     # any materials
Options: --threads N (default: all cores), --dir DIR (default: a temporary directory).
Each line: material, positions (both sides to move), build seconds (all three metrics and
their re-checks), M positions/s/thread/pass, peak RSS of the process so far, and the verdict
figures that `xqstudio tb stats` prints.
"""
from __future__ import annotations

import argparse
import itertools
import resource
import sys
import tempfile
import time
from pathlib import Path

from tablebases.build import build, default_threads
from tablebases.material import Material

QUICK = ["KRKAA", "KNKA", "KRKAABB", "KRKN"]
NAMED = ["KRKR", "KRNKAABB", "KCPABKAABB"]


def single_attacker_set() -> list[str]:
    """One attacking piece (R, N, C or P) with any advisors/elephants on either side, against a
    defender without attacking pieces: 4 x 9 x 9 = 324 materials."""
    guards = ["".join(p) for p in itertools.product(["", "A", "AA"], ["", "B", "BB"])]
    return [f"K{attacker}{mine}K{theirs}" for attacker in "RNCP" for mine in guards
            for theirs in guards]


def result_line(name: str, info: dict, elapsed: float) -> str:
    """One table's figures: positions, seconds, rate, peak memory and its verdict."""
    counts = info["counts"]
    positions = sum(counts[s][k] for s in ("red", "black") for k in ("wins", "draws", "losses"))
    seconds = sum(info[f"{m}_seconds"] for m in ("dtm", "dtc", "dtc60"))
    passes = sum(info[f"{m}_passes"] for m in ("dtm", "dtc", "dtc60"))
    entries = 2 * sum(counts["red"][k] for k in ("wins", "draws", "losses", "illegal"))
    rate = entries * passes / seconds / info["threads"] / 1e6 if seconds else 0.0
    red = counts["red"]
    return (f"{name:<14} {positions:>14,} {elapsed:>9.2f} {rate:>17.1f} {peak_rss_mib():>9.0f}  "
            f"{red['wins']:,}/{red['draws']:,}/{red['losses']:,}, "
            f"DTM {red['longest_dtm_plies']} plies, DTC {red['longest_dtc_plies']} plies, "
            f"cursed {red['cursed_wins']:,}")


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


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
    print(f"{'material':<14} {'positions':>14} {'seconds':>9} {'M pos/s/thr/pass':>17} "
          f"{'peak MiB':>9}  verdict (Red to move: wins/draws/losses, longest DTM, DTC)")
    total_start = time.perf_counter()
    for requested in materials:
        # Table by table, so each line appears (and each file stays) as soon as it is built.
        for material in Material.parse(requested).build_order():
            start = time.perf_counter()
            summary = build(str(material), directory, threads=args.threads,
                            log=lambda line: None)
            elapsed = time.perf_counter() - start
            for name, info in summary.items():
                print(result_line(name, info, elapsed), flush=True)
    print(f"total {time.perf_counter() - total_start:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
