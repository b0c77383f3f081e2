"""Tablebase leaf probes: the C-level LeafProber against Tablebase.probe_codes (what the
solver called per node before), on the same sample of positions.

Usage:
    python benchmarks/bench_tb_probe.py                 # builds a few small tables (seconds)
    python benchmarks/bench_tb_probe.py --dir DIR       # the tables already in DIR
Options: --positions N (default 20000), --seconds S per measurement (default 1.0).

The sample: random legal index positions of each table, half of them with colours swapped
(the table's flip path), both sides to move, and one position in ten of a material without a
table (the remembered-absent path).  Lines: probes/s for the leaf prober looping in C
(LeafProber.codes, the solver's path without Python per probe), the leaf prober called
from Python once per position (LeafProber.code), and Tablebase.probe_codes; then the first
meeting cost (opening and loading the tables) and the prober's counters.
"""
from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

from tablebases._probe import LeafProber
from tablebases.build import build, indexer_for
from tablebases.material import Material
from tablebases.probe import Tablebase
from tablebases.values import ILLEGAL
from xiangqi import Board

MATERIALS = ["KRKA", "KNKA", "KPKA", "KCKA"]
ABSENT = "KRKB"     # never built here: its probes take the remembered-absent path


def colour_swapped(codes: list[int]) -> list[int]:
    swapped = [0] * 90
    for sq, code in enumerate(codes):
        if code:
            swapped[(9 - sq // 9) * 9 + sq % 9] = code ^ 8
    return swapped


def sample_positions(directory: Path, count: int, rng: random.Random) -> list[Board]:
    """``count`` boards: legal positions of the tables in ``directory`` (four pieces at most,
    the solver's typical leaves) and a tenth of ``ABSENT``."""
    tablebase = Tablebase(directory)
    names = [m for m in tablebase.materials() if len(m) >= 3] or tablebase.materials()
    absent = Material.parse(ABSENT)
    if str(absent) in names:
        absent = None
    boards = []
    while len(boards) < count:
        use_absent = absent is not None and len(boards) % 10 == 9
        material = absent if use_absent else Material.parse(rng.choice(names))
        indexer = indexer_for(material)
        codes = indexer.placement(rng.randrange(indexer.size))
        if codes is None:
            continue
        if rng.random() < 0.5:
            codes = colour_swapped(codes)
        board = Board(None)
        board._load(codes, rng.randrange(2), 0, 1)
        if not use_absent and tablebase.dtm_code(board) in (ILLEGAL, -1):
            continue            # the solver's leaves are legal positions
        boards.append(board)
    tablebase.close()
    return boards


def tables_for(directory: Path | None, scratch: Path, materials: list[str]) -> Path:
    """``directory``, or else ``materials`` and their sub-tables built in ``scratch``."""
    if directory is not None:
        return directory
    started = time.perf_counter()
    build(materials, scratch, log=lambda line: None)
    print(f"built {', '.join(materials)} and their sub-tables in "
          f"{time.perf_counter() - started:.1f} s")
    return scratch


def rate(call, items: int, seconds: float) -> float:
    """Probes per second of ``call()`` (which probes ``items`` positions), repeated for at
    least ``seconds``."""
    call()                      # warm: tables loaded, caches filled
    start = time.perf_counter()
    rounds = 0
    while True:
        call()
        rounds += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return rounds * items / elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, help="tables to probe (default: build a few)")
    parser.add_argument("--positions", type=int, default=20_000)
    parser.add_argument("--seconds", type=float, default=1.0)
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as scratch:
        directory = tables_for(args.dir, Path(scratch), MATERIALS)
        boards = sample_positions(directory, args.positions, random.Random(2026))
        placements = [(bytes(board._codes()), board.turn_code) for board in boards]

        started = time.perf_counter()
        prober = LeafProber(directory)
        first = prober.codes(boards)
        meeting = time.perf_counter() - started
        tablebase = Tablebase(directory)
        expected = [tablebase.probe_codes(codes, turn) for codes, turn in placements]
        if first != expected:
            print("the probers disagree", file=sys.stderr)
            return 1

        c_rate = rate(lambda: prober.codes(boards), len(boards), args.seconds)
        python_call_rate = rate(lambda: [prober.code(board) for board in boards], len(boards),
                                args.seconds)
        probe_codes = tablebase.probe_codes
        old_rate = rate(lambda: [probe_codes(codes, turn) for codes, turn in placements],
                        len(placements), args.seconds)
        print(f"{len(boards)} positions of {', '.join(prober.loaded_materials)} "
              f"(a tenth {ABSENT}, no table)")
        print(f"LeafProber, loop in C:         {c_rate:14,.0f} probes/s")
        print(f"LeafProber.code from Python:   {python_call_rate:14,.0f} probes/s")
        print(f"Tablebase.probe_codes:         {old_rate:14,.0f} probes/s")
        print(f"speed-up (C loop / probe_codes): {c_rate / old_rate:,.0f}x")
        print(f"first meeting: {prober.tables_loaded} tables, {prober.bytes_loaded:,} bytes "
              f"loaded, {prober.absent_materials} material absent, first pass over the sample "
              f"{meeting * 1000:.0f} ms")
        print(f"counters: {prober.probes:,} probes, {prober.hits:,} hits")
        prober.close()
        tablebase.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
