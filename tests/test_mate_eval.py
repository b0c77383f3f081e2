"""The evaluation-guided mate finder (``solver._mate_eval``, issue 53 item 1): it proposes;
df-pn proves.  Its lines are checked by replay, its hints by the solver's proof."""
from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest
from replay import replays_to_mate

from solver import Limits, SolverError
from solver._mate_eval import MAX_MATE_MOVES, EvalMateFinder
from solver.search import Solver
from xiangqi import Board, Move

PATTERNS = Path(__file__).resolve().parent.parent / "puzzles" / "data" / \
    "kill_pattern_examples.tsv"
XQSTUDIO = str(Path(sys.executable).parent / "xqstudio")
ROOK_QUIET_MATE_IN_3 = "3ak4/4a4/9/9/9/9/9/9/9/3K4R w"   # 帅六平五 first: no check


def pattern_rows() -> list[dict[str, str]]:
    with PATTERNS.open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def test_a_quiet_first_move_is_found_at_once():
    finder = EvalMateFinder()
    assert finder.find(Board(ROOK_QUIET_MATE_IN_3), 10, node_limit=100_000) == 3
    line = finder.line()
    assert len(line) == 5 and replays_to_mate(ROOK_QUIET_MATE_IN_3, line)
    assert Move(*line[0]).iccs() == "d0e0"              # 帅六平五, a quiet key
    assert Board(ROOK_QUIET_MATE_IN_3).zobrist_key in {key for key, _, _ in
                                                       finder.proof_hints()}


def test_the_kill_pattern_examples_are_mated_no_later_than_published():
    rows = pattern_rows()
    assert len(rows) > 60
    for row in rows:
        finder = EvalMateFinder()
        length = finder.find(Board(row["fen"]), int(row["moves"]), node_limit=300_000)
        assert length is not None and length <= int(row["moves"]), row["pattern_id"]
        assert replays_to_mate(row["fen"], finder.line()), row["pattern_id"]


def test_arguments_and_limits():
    finder = EvalMateFinder()
    with pytest.raises(ValueError, match="max_moves must be between 1"):
        finder.find(Board(ROOK_QUIET_MATE_IN_3), MAX_MATE_MOVES + 1)
    start = Board()
    assert finder.find(start, 30, node_limit=5_000) is None
    assert 5_000 <= finder.nodes < 6_000 and finder.stopped and finder.line() == []
    with pytest.raises(SolverError, match="the proposer must be one of threats, eval"):
        Limits(proposer="engine")


def test_the_solver_proves_what_the_eval_proposer_proposes():
    limits = Limits(nodes=200_000, proposer_share=0.3, proposer="eval")
    solver = Solver(Board(ROOK_QUIET_MATE_IN_3), "any", limits)
    result = solver.run(10)
    assert solver.proposed_length == 3
    assert (result.verdict, result.length, result.exact) == ("mate", 3, True)
    assert replays_to_mate(ROOK_QUIET_MATE_IN_3, [(m.from_square, m.to_square)
                                                  for m in result.main_line])


def test_problem_solve_with_the_eval_proposer(tmp_path):
    done = subprocess.run([XQSTUDIO, "problem", "solve", ROOK_QUIET_MATE_IN_3, "--nodes",
                           "200000", "--proposer", "eval", "--proposer-share", "0.3",
                           "--tables", str(tmp_path), "--json"],
                          capture_output=True, text=True, timeout=120)
    document = json.loads(done.stdout)
    assert (document["verdict"], document["moves"], document["exact"]) == ("mate", 3, True)
