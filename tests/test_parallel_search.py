"""One df-pn search on several processes sharing its table (solver.parallel, ``--threads``):
the same answers as one process, the node budget shared, the flags on the command line."""
import json
import re
from pathlib import Path

import pytest

from solver import Limits, SolverError
from solver._dfpn import MAX_THREADS, PROVEN, Search
from solver.parallel import search_with_helpers
from solver.search import Solver
from tui.cli import main
from xiangqi import Board, Move

BOOK = Path(__file__).resolve().parent.parent / "puzzles" / "data" / "shiqingyaqu551.fen"


def shiqingyaqu(number):
    return re.findall(r'\[FEN "([^"]+)"\]', BOOK.read_text(encoding="utf-8-sig"))[number - 1]


# 《适情雅趣》 No. 195: a quiet-move mate in 11, proven shortest by one process in 110,498 nodes.
QUIET_MATE = shiqingyaqu(195)
# No. 4: unproven within a million nodes (a problem the budget stops).
OUT_OF_BUDGET = shiqingyaqu(4)


def replays_to_mate(fen, line):
    board = Board(fen)
    for move in line:
        assert move in board.legal_moves, (board.fen(), move.iccs())
        board.push(move)
    return not board.has_legal_move()


@pytest.mark.parametrize("threads", [2, 3])
def test_helpers_prove_the_same_shortest_mate(threads):
    alone = Solver(Board(QUIET_MATE), "any", Limits(nodes=2_000_000)).run(30)
    solver = Solver(Board(QUIET_MATE), "any", Limits(nodes=2_000_000, threads=threads))
    together = solver.run(30)
    assert (alone.verdict, alone.length, alone.exact) == ("mate", 11, True)
    assert (together.verdict, together.length, together.exact) == ("mate", 11, True)
    assert len(together.main_line) == 21 and replays_to_mate(QUIET_MATE, together.main_line)
    # The helpers searched (their nodes are in the count) and the main process did less than
    # the whole search alone.
    assert solver.search.helper_nodes > 0
    assert together.nodes - solver.search.helper_nodes < alone.nodes


def test_the_node_budget_counts_every_process():
    budget = 300_000
    solver = Solver(Board(OUT_OF_BUDGET), "any", Limits(nodes=budget, threads=2))
    result = solver.run(30)
    assert result.verdict == "unknown"
    assert solver.search.helper_nodes > 50_000
    # Each process reads the others' counts every 512 nodes: the overshoot is within that.
    assert result.nodes <= budget + 2 * 512


def test_a_helper_that_solves_the_root_ends_the_search():
    """The main process reads a helper's proof from the shared table: the root is proven and
    its move is there, whoever found it."""
    search = Search(16, shared=True)
    board = Board(QUIET_MATE)
    for _ in range(5):
        search.clear_table()
        status, length = search_with_helpers(search, 2, lambda: search.value(board, 11))
        assert (status, length) == (PROVEN, 11)
        assert search.proof_move(board, 11) is not None


def test_threads_are_checked():
    for threads in (0, MAX_THREADS + 1):
        with pytest.raises(SolverError, match="threads must be between 1 and"):
            Limits(threads=threads)
    with pytest.raises(ValueError, match="needs a shared table"):
        Search(10).begin_parallel()


def test_problem_solve_and_verify_with_threads(capsys):
    status = main(["problem", "solve", QUIET_MATE, "--threads", "2", "--nodes", "2000000",
                   "--max-moves", "30", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert status == 0 and data["verdict"] == "mate" and data["moves"] == 11
    assert data["exact"] is True and len(data["main_line"]) == 21
    status = main(["problem", "verify", QUIET_MATE, "--threads", "2", "--nodes", "2000000",
                   "--moves", "11", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert data["moves"] == 11 and "unique_key" in data
    with pytest.raises(SystemExit) as info:
        main(["problem", "solve", QUIET_MATE, "--threads", "0"])
    assert info.value.code == 2 and "--threads: must be from 1 to 64" in capsys.readouterr().err


def test_catalogue_verify_with_threads(tmp_path, capsys):
    status = main(["catalogue", "verify", "--collection", "适情雅趣", "--numbers", "195",
                   "--seconds", "0", "--nodes", "2000000", "--threads", "2",
                   "--db", str(tmp_path / "catalogue.sqlite"), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert status == 0 and data["verified"] == 1
    (row,) = data["compositions"]
    assert (row["stipulation"], row["verdict"], row["moves"]) == ("win", "mate", 11)
    assert replays_to_mate(QUIET_MATE, [Move.from_iccs(m) for m in row["main_line"].split()])


def test_front_ends_search_on_every_core_unless_told(monkeypatch, tmp_path):
    """Issue 53 item 4: ``problem solve``/``verify`` and the studio default to the cores this
    process may use ($XQSTUDIO_THREADS to choose; the library's Limits keeps one)."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    from solver.search import Limits, SolverError, default_search_threads

    cores = len(os.sched_getaffinity(0))
    monkeypatch.delenv("XQSTUDIO_THREADS")
    assert default_search_threads() == min(cores, 64) and Limits().threads == 1
    monkeypatch.setenv("XQSTUDIO_THREADS", "3")
    assert default_search_threads() == 3
    for bad in ("0", "65", "two"):
        monkeypatch.setenv("XQSTUDIO_THREADS", bad)
        with pytest.raises(SolverError, match="XQSTUDIO_THREADS must be a number of processes "
                                              "from 1 to 64"):
            default_search_threads()
    xqstudio = str(Path(sys.executable).parent / "xqstudio")
    done = subprocess.run([xqstudio, "problem", "solve", "3ak4/4a4/9/9/9/9/9/9/9/3K4R w",
                           "--tables", str(tmp_path), "--json"], capture_output=True, text=True,
                          env={**os.environ, "XQSTUDIO_THREADS": "two"}, timeout=60)
    assert done.returncode == 1 and json.loads(done.stdout)["error"].startswith(
        "XQSTUDIO_THREADS must be a number of processes")
    environment = {key: value for key, value in os.environ.items()
                   if key != "XQSTUDIO_THREADS"}
    done = subprocess.run([xqstudio, "problem", "solve", "3ak4/4a4/9/9/9/9/9/9/9/3K4R w",
                           "--tables", str(tmp_path), "--json"], capture_output=True, text=True,
                          env=environment, timeout=60)
    assert json.loads(done.stdout)["moves"] == 3           # on every core, the same mate
