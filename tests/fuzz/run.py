"""The long fuzz run (``make fuzz``): every harness, many cases, fresh seeds each round.

    python tests/fuzz/run.py [--cases N] [--rounds R] [--seed S] [--harness NAME ...]

A failure prints the harness, seed and input, and exits with status 1.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from fuzz_engine import fuzz_engine
from fuzz_frontends import FRONT_END_HARNESSES
from fuzz_harnesses import HARNESSES

# The engine's seeded share runs in tests/test_engine_commands.py (with its figures).
HARNESSES = {**HARNESSES, **FRONT_END_HARNESSES, "engine": fuzz_engine}
# A case of ``argv`` is a whole command (about 80 ms), of the others a parse or a request
# (well under 10 ms): its share keeps one round of ``make fuzz`` within minutes per harness.
CASE_SHARE = {"argv": 0.1}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=20_000, help="cases per harness and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=None, help="first seed (default: random)")
    parser.add_argument("--harness", nargs="*", choices=sorted(HARNESSES), default=None)
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    for round_number in range(args.rounds):
        for name in args.harness or sorted(HARNESSES):
            start = time.perf_counter()
            cases = max(1, int(args.cases * CASE_SHARE.get(name, 1.0)))
            try:
                HARNESSES[name](random.Random(f"{name}:{seed + round_number}"), cases)
            except AssertionError as error:
                print(f"FAIL {name} seed {seed + round_number}: {error!r}")
                return 1
            print(f"{name}: {cases} cases, seed {seed + round_number}, "
                  f"{time.perf_counter() - start:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
