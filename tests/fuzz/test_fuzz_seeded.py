"""A small seeded run of every fuzz harness (seconds); ``make fuzz`` runs them for long."""
import random

import pytest
from fuzz_frontends import FRONT_END_HARNESSES
from fuzz_harnesses import HARNESSES

ALL = {**HARNESSES, **FRONT_END_HARNESSES}
CASES = {"fen": 2000, "setters": 1000, "tables": 600, "argv": 100, "web": 400}
# Over 5 s a seed (the argv cases run the command line: 10 to 28 s on two busy cores): slow.
SLOW_HARNESSES = {"argv"}
HARNESS_NAMES = [pytest.param(name, marks=pytest.mark.slow) if name in SLOW_HARNESSES else name
                 for name in sorted(ALL)]


@pytest.mark.parametrize("name", HARNESS_NAMES)
@pytest.mark.parametrize("seed", [16, 2026])
def test_fuzz_seeded(name, seed):
    ALL[name](random.Random(f"{name}:{seed}"), CASES[name])
