"""Table sets on a Dask LocalCluster against one process (issue 19).

Usage:
    python benchmarks/bench_cluster.py                       # the representative subset
    python benchmarks/bench_cluster.py --set single          # all 324 one-attacker tables
    python benchmarks/bench_cluster.py KRKAABB ...           # any materials
Options: --workers N (default 2, one thread each), --threads T (the one process's, default
2), --dir DIR (default: a temporary directory), --machines M (the estimate, default 16).

Builds the set twice from nothing: in one process with T threads (a forked child, so its
peak memory is its own), then on a LocalCluster of N single-thread worker processes
(``tablebases.cluster``), and checks that the two directories hold byte-identical tables.
Prints the wall time of each (the cluster's with and without its start), the peak memory
of the process and of each worker, the measured seconds per index entry of the cluster's
tables, and from those the estimated wall time of the whole 324-table one-attacker set and
of the two-attacker sets (two of R N C P with any guards against guards: 810 tables and
their sub-tables) on M machines, each a worker of ``--threads`` threads: the longer of the
set's critical path (the chain of tables each waiting for the last) and its total over the
machines.
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import tempfile
import time
from pathlib import Path

from bench_tablebase import single_attacker_set
from tablebases.build import build, memory_needed
from tablebases.cluster import build_on_cluster, connect, worker_peaks
from tablebases.material import Material, indexer_for

# Every attacker with an advisor and an elephant against an advisor and an elephant: 74
# tables of the 324 set's 369, 24.8 M index entries a side (the whole set: 1,843 M).
SUBSET = ["KRABKAB", "KNABKAB", "KCABKAB", "KPABKAB"]
GUARDS = ["".join(p) for p in itertools.product(["", "A", "AA"], ["", "B", "BB"])]


def two_attacker_set() -> list[str]:
    """Two attacking pieces (any two of R N C P, a pair of one kind too) with any guards,
    against guards only: 10 x 9 x 9 = 810 materials."""
    pairs = ["".join(p) for p in itertools.combinations_with_replacement("RNCP", 2)]
    return [f"K{pair}{mine}K{theirs}" for pair in pairs for mine in GUARDS for theirs in GUARDS]


def closure(materials: list[str]) -> list[Material]:
    """Every table of the materials' build orders, sub-tables first."""
    order: list[Material] = []
    seen: set[str] = set()
    for text in materials:
        for material in Material.parse(text).build_order():
            if str(material) not in seen:
                seen.add(str(material))
                order.append(material)
    return order


def serial_in_child(materials: list[str], directory: Path,
                    threads: int) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak MiB) of ``build(materials)`` in a forked process."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        start = time.perf_counter()
        build(materials, directory, threads=threads, log=lambda line: None)
        with os.fdopen(write, "w") as out:
            json.dump({"elapsed": time.perf_counter() - start}, out)
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        text = pipe.read()
    _, status, usage = os.wait4(pid, 0)
    if not text:
        raise RuntimeError(f"the serial build ended with status {status}")
    return json.loads(text)["elapsed"], usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def estimate(materials: list[str], per_entry: float, machines: int) -> dict:
    """Wall seconds of the set on ``machines`` workers at ``per_entry`` seconds per index entry
    (a side) and table: max(critical path, total / machines); and the largest table's memory."""
    order = closure(materials)
    sizes = {str(m): indexer_for(m).size for m in order}
    seconds = {name: size * per_entry for name, size in sizes.items()}
    chain: dict[str, float] = {}
    for material in order:
        subs = {str(s.canonical()) for s in material.captures()}
        chain[str(material)] = seconds[str(material)] + max((chain[s] for s in subs),
                                                            default=0.0)
    largest = max(order, key=lambda m: sizes[str(m)])
    need = memory_needed(largest, sizes[str(largest)],
                         [sizes[str(s.canonical())] for s in set(largest.captures())])
    total = sum(seconds.values())
    return {"tables": len(order), "entries": sum(sizes.values()), "total": total,
            "critical": max(chain.values()), "wall": max(max(chain.values()), total / machines),
            "largest": str(largest), "largest_gib": need / 2**30,
            "over_24_gib": sum(1 for m in order if memory_needed(
                m, sizes[str(m)], [sizes[str(s.canonical())] for s in set(m.captures())])
                > 24 * 2**30)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("materials", nargs="*")
    parser.add_argument("--set", choices=("subset", "single"), default=None)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--machines", type=int, default=16)
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args(argv)
    materials = args.materials or (single_attacker_set() if args.set == "single" else SUBSET)
    base = args.dir or Path(tempfile.mkdtemp(prefix="xqtb-cluster-bench-"))
    order = closure(materials)
    entries = sum(indexer_for(m).size for m in order)
    print(f"{len(order)} tables, {entries:,} index entries a side, in {base}; load "
          f"{os.getloadavg()[0]:.1f}", flush=True)

    serial_seconds, serial_cpu, serial_peak = serial_in_child(materials, base / "serial",
                                                              args.threads)
    print(f"one process, {args.threads} threads: {serial_seconds:.1f} s "
          f"({serial_cpu:.1f} CPU s), peak "
          f"{serial_peak:.0f} MiB; load {os.getloadavg()[0]:.1f}", flush=True)

    start = time.perf_counter()
    with connect(workers=args.workers, dashboard=None) as client:
        client.wait_for_workers(args.workers, timeout=120)
        started = time.perf_counter()
        results = build_on_cluster(client, materials, base / "cluster", threads=1,
                                   log=lambda line: None)
        built = time.perf_counter()
        peaks = worker_peaks(client)
    print(f"LocalCluster, {args.workers} workers x 1 thread: {built - started:.1f} s "
          f"({built - start:.1f} s with the cluster's start); peak per worker "
          + ", ".join(f"{peak:.0f} MiB" for peak in sorted(peaks.values()))
          + f"; load {os.getloadavg()[0]:.1f}", flush=True)
    per_worker: dict[str, float] = {}
    for result in results.values():
        per_worker[str(result["worker"])] = per_worker.get(str(result["worker"]), 0.0) + \
            result["seconds"]
    print("task seconds per worker: " + ", ".join(f"{w}: {s:.1f}"
                                                  for w, s in sorted(per_worker.items()))
          + f"; CPU s of the tasks {sum(r['cpu_seconds'] for r in results.values()):.1f}")
    identical = all((base / "serial" / p.name).read_bytes() == p.read_bytes()
                    for p in (base / "cluster").glob("*.xqtb"))
    count = len(list((base / "cluster").glob("*.xqtb")))
    print(f"{count} tables, byte-identical to the one process's: {identical}")

    sizes = {name: indexer_for(Material.parse(name)).size for name in results}
    big = [n for n in results if sizes[n] >= 200_000]
    per_entry = sum(results[n]["seconds"] for n in big) / sum(sizes[n] for n in big)
    print(f"measured: {per_entry * 1e6:.2f} microseconds per index entry (a side) and table "
          f"on one thread, over the {len(big)} tables of 200,000 entries or more")
    for label, names in (("324 one-attacker set", single_attacker_set()),
                         ("810 two-attacker sets", two_attacker_set())):
        figures = estimate(names, per_entry / max(1.0, 0.8 * args.threads), args.machines)
        print(f"{label}: {figures['tables']} tables, {figures['entries']:,} entries; "
              f"{figures['total'] / 3600:,.1f} h of builds on {args.threads} threads; on "
              f"{args.machines} machines about {figures['wall'] / 3600:,.2f} h (critical path "
              f"{figures['critical'] / 3600:,.2f} h); largest {figures['largest']} needs "
              f"{figures['largest_gib']:,.1f} GiB; {figures['over_24_gib']} tables need more "
              "than 24 GiB")


if __name__ == "__main__":
    main()
