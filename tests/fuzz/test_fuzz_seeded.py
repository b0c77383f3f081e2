"""A small seeded run of every fuzz harness (seconds); ``make fuzz`` runs them for long."""
import random

import pytest
from fuzz_harnesses import HARNESSES

CASES = {"fen": 2000, "setters": 1000, "tables": 600}


@pytest.mark.parametrize("name", sorted(HARNESSES))
@pytest.mark.parametrize("seed", [16, 2026])
def test_fuzz_seeded(name, seed):
    HARNESSES[name](random.Random(f"{name}:{seed}"), CASES[name])
