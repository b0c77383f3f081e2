"""solver.budget: the one place a search's deadline and node mark are set and shared out."""
import re
import time
from pathlib import Path

from solver._dfpn import Search
from solver.budget import GRACE_NODES, GRACE_SECONDS, Budget, within

ROOT = Path(__file__).resolve().parent.parent


def test_slice_reserve_and_parts_share_what_is_left():
    now = time.time()
    budget = Budget(deadline=now + 100.0, node_limit=1_000_000)
    part = budget.slice(0.3, nodes_now=400_000)
    assert part.node_limit == 400_000 + 180_000
    assert 29.0 < part.deadline - now < 30.5
    kept = budget.reserve(0.15, nodes_now=400_000)
    assert kept.node_limit == 1_000_000 - 90_000
    assert 84.0 < kept.deadline - now < 85.5
    seconds, nodes = budget.divided(4, nodes_now=600_000, min_seconds=0.02, min_nodes=500)
    assert nodes == 100_000 and 24.0 < seconds <= 25.0
    assert budget.share_of_left(0.5, 999_900, 0.05, 1000)[1] == 1000     # the floor
    # No limit of a kind stays no limit, whatever is shared.
    assert Budget().slice(0.5, 10) == Budget() and Budget().divided(3, 10, 1.0, 9) == (0.0, 0)


def test_spent_and_fresh():
    assert Budget(node_limit=100).spent(100) and not Budget(node_limit=100).spent(99)
    assert Budget(deadline=time.time() - 1).spent(0) and not Budget().spent(10**12)
    fresh = Budget.fresh(5_000, seconds=0, nodes=1_000)
    assert fresh == Budget(0.0, 6_000)
    grace = Budget.grace(5_000)
    assert grace.node_limit == 5_000 + GRACE_NODES
    assert GRACE_SECONDS - 1 < grace.deadline - time.time() <= GRACE_SECONDS


def test_within_restores_the_searchers_budget():
    search = Search(8)
    search.deadline, search.node_limit = 0.0, 777
    with within(search, Budget(123.0, 456)):
        assert (search.deadline, search.node_limit) == (123.0, 456)
    assert (search.deadline, search.node_limit) == (0.0, 777)


def test_only_the_budget_module_sets_the_searchers_limits():
    """The searcher's ``deadline`` and ``node_limit`` are written in solver/budget.py only."""
    writes = re.compile(r"\.(deadline|node_limit)\s*(=[^=]|,[^\n]*=[^=])")
    offenders = []
    for package in ("solver", "puzzles", "tui", "tablebases", "benchmarks"):
        for path in (ROOT / package).rglob("*.py"):
            if path.name == "budget.py" and package == "solver":
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if writes.search(line):
                    offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == []
