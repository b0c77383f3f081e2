"""The alpha-beta mate finder (solver._mate_ab) and the portfolio around it: df-pn with the
finder's moves as hints (Search.set_hints, Limits.proposer_share)."""
import csv
import re
import threading
import time
from pathlib import Path

import pytest
from replay import replays_to_mate

from solver import Limits, SolverError
from solver._dfpn import PROVEN, Search
from solver._mate_ab import MAX_MATE_MOVES, MateFinder
from solver.search import Solver
from xiangqi import Board, Move

PUZZLES = Path(__file__).resolve().parent.parent / "puzzles" / "data"
PATTERNS = PUZZLES / "kill_pattern_examples.tsv"


def shiqingyaqu(number):
    text = (PUZZLES / "shiqingyaqu551.fen").read_text(encoding="utf-8-sig")
    return re.findall(r'\[FEN "([^"]+)"\]', text)[number - 1]


def pattern_rows(stipulation):
    with PATTERNS.open(encoding="utf-8") as handle:
        return [row for row in csv.DictReader(handle, delimiter="\t")
                if row["stipulation"] == stipulation]


@pytest.mark.parametrize("row", [row for row in pattern_rows("win") if int(row["moves"]) <= 4],
                         ids=lambda row: f"{row['pattern_id']}-{row['moves']}")
def test_finder_finds_the_quiet_move_examples_at_their_length(row):
    # The kill-pattern examples whose stipulation is a win (quiet moves allowed): mates in 2
    # and 4, each found at its published length, the line replaying to mate.
    finder = MateFinder()
    assert finder.find(Board(row["fen"]), 10, node_limit=200_000) == int(row["moves"])
    line = finder.line()
    assert len(line) == 2 * int(row["moves"]) - 1
    assert replays_to_mate(row["fen"], line)
    assert [Move(*move).iccs() for move in finder.mating_moves()] == line_iccs(line)[::2]


def line_iccs(line):
    return [Move(*move).iccs() for move in line]


def test_finder_mates_no_later_than_the_continuous_check_examples():
    # Quiet moves allowed, the finder may mate sooner than a continuous-check solution (the
    # side-tiger example of 3 checks has a mate in 2 with a quiet move), never later.
    rows = pattern_rows("checks")
    assert len(rows) > 40
    for row in rows:
        finder = MateFinder()
        length = finder.find(Board(row["fen"]), int(row["moves"]), node_limit=200_000)
        assert length is not None and length <= int(row["moves"]), row["pattern_id"]
        assert replays_to_mate(row["fen"], finder.line()), row["pattern_id"]


def test_finder_proposes_the_book_mate_of_shiqingyaqu_63():
    # 《适情雅趣》 No. 63, a quiet-move win in 6 (proved by df-pn at order 2): the finder's
    # first stage (threats of mate in one) finds it within 20,000 nodes.
    fen = shiqingyaqu(63)
    finder = MateFinder()
    assert finder.find(Board(fen), 30, node_limit=1_000_000) == 6
    assert finder.order == 2 and finder.nodes < 20_000
    assert replays_to_mate(fen, finder.line())
    keys = {key for key, _, _ in finder.proof_hints()}
    assert Board(fen).zobrist_key in keys


def test_finder_limits_and_arguments():
    board = Board(shiqingyaqu(380))          # a mate in 10 that the finder does not find fast
    finder = MateFinder()
    assert finder.find(board, 30, node_limit=5_000) is None
    assert finder.stopped and 5_000 <= finder.nodes <= 5_100
    assert finder.line() == [] and finder.mating_moves() == []
    with pytest.raises(ValueError):
        finder.find(board, 0)
    with pytest.raises(ValueError):
        finder.find(board, MAX_MATE_MOVES + 1)
    finder.max_order = 0
    with pytest.raises(ValueError):
        finder.find(board, 5)
    finder.max_order = 3
    for caps in ((), (0,), (1, 200)):
        finder.threat_caps = caps
        with pytest.raises(ValueError):
            finder.find(board, 5)
    with pytest.raises(ValueError):
        MateFinder(table_bits=40)


def test_finder_stages_share_the_budget():
    # No. 63's mate needs only threats of mate in one: the first of the three stages finds
    # it; with the one stage of unlimited threats it takes more nodes, and with a budget too
    # small for the first stage the later ones are not reached.
    board = Board(shiqingyaqu(63))
    staged, unlimited = MateFinder(), MateFinder()
    unlimited.threat_caps = (127,)
    assert staged.find(board, 30, node_limit=1_000_000) == 6
    assert unlimited.find(board, 30, node_limit=1_000_000) == 6
    assert staged.nodes < unlimited.nodes
    assert MateFinder().find(board, 30, node_limit=3_000) is None


def test_finder_cancel_from_another_thread():
    finder = MateFinder()
    board = Board(shiqingyaqu(380))
    found = []
    worker = threading.Thread(target=lambda: found.append(finder.find(board, 30)))
    worker.start()
    time.sleep(0.2)
    finder.cancel()
    worker.join(5)
    assert not worker.is_alive() and found == [None]


def test_hints_keep_proofs_and_their_length():
    # df-pn with the finder's moves as hints proves the same mate (a hint only puts a move
    # first, or admits it without its threat test).
    board = Board(shiqingyaqu(63))
    finder = MateFinder()
    finder.find(board, 30, node_limit=1_000_000)
    results = []
    for hints in ([], finder.proof_hints()):
        search = Search(18)
        search.set_position(board)
        search.set_hints(hints)
        results.append((search.prove(30, 2), search.prove(6, 2), search.prove(5, 255)))
        assert (search.hints_taken > 0) == bool(hints)
        assert search.hint_count == len({key for key, _, _ in hints})
    assert results[0] == results[1]
    assert results[0][1] == (PROVEN, 6) and results[0][2][0] == "disproven"


def test_no_hints_is_the_search_as_before():
    board = Board(shiqingyaqu(63))
    counts = []
    for clear in (False, True):
        search = Search(18)
        search.set_position(board)
        if clear:
            search.set_hints([(board.zobrist_key, 0, 1)])
            search.set_hints([])
        counts.append((search.prove(30, 2), search.nodes))
    assert counts[0] == counts[1]


def test_set_hints_refuses_squares_off_the_board():
    with pytest.raises(ValueError):
        Search(10).set_hints([(12345, 0, 90)])


@pytest.mark.parametrize("share", [0.0, 0.1])
def test_solver_answer_is_the_same_with_and_without_the_proposer(share):
    fen = shiqingyaqu(63)
    solver = Solver(Board(fen), "any", Limits(nodes=400_000, proposer_share=share))
    result = solver.run(30)
    assert (str(result.verdict), result.length, result.exact) == ("mate", 6, True)
    board = Board(fen)
    for move in result.main_line:
        board.push(move)
    assert board.is_checkmate() or board.is_stalemate()
    if share:
        # The finder proposed the mate within its 10% and its nodes count in the total.
        assert solver.proposed_length == 6
        assert 0 < solver.proposer_nodes <= 0.1 * 400_000 and solver.search.hint_count > 0
    else:
        assert solver.proposed_length is None and solver.proposer_nodes == 0
        assert solver.search.hint_count == 0


def test_proposer_off_gives_the_same_search():
    # proposer_share=0 runs no finder and sets no hint: the same nodes and line as a search
    # whose hints were set and cleared.  (Against the solver before the portfolio, by hand:
    # Nos. 63, 195 and 314 at 600,000 nodes gave the same nodes, lengths and lines.)
    fen = shiqingyaqu(63)
    off = Solver(Board(fen), "any", Limits(nodes=400_000, proposer_share=0)).run(30)
    cleared = Solver(Board(fen), "any", Limits(nodes=400_000, proposer_share=0))
    cleared.search.set_hints([])
    again = cleared.run(30)
    assert (off.nodes, off.length, off.exact, off.main_line) == (
        again.nodes, again.length, again.exact, again.main_line)


def test_proposer_share_is_checked():
    for share in (-0.1, 1.0):
        with pytest.raises(SolverError):
            Limits(proposer_share=share)
