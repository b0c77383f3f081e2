"""Exactness where it is cheap (issue 37, item 4): a mate found at a λ order is proven
shortest only when the full-width search of one move less is estimated within reach of the
budget left (at most MINIMALITY_REACH times it); otherwise the answer comes at once, "mate
within N", saying why."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from solver import Limits, search
from solver.search import MinimalitySkip, Solver
from tui.cli import main
from xiangqi import Board, Move

XQSTUDIO = str(Path(sys.executable).with_name("xqstudio"))
BOOK = Path(__file__).parent.parent / "puzzles" / "data" / "shiqingyaqu551.fen"


def shiqingyaqu() -> list[str]:
    return re.findall(r'\[FEN "([^"]+)"\]', BOOK.read_text(encoding="utf-8-sig"))


def solve_json(fen: str, nodes: int) -> dict:
    """``problem solve FEN --nodes N --no-tables --json``, its document."""
    text = subprocess.run([XQSTUDIO, "problem", "solve", fen, "--nodes", str(nodes),
                           "--no-tables", "--json"], capture_output=True, text=True,
                          timeout=300)
    assert text.returncode == 0, text.stderr
    return json.loads(text.stdout)


def replay(fen: str, line) -> Board:
    board = Board(fen)
    for move in line:
        board.push(move)          # raises if the line is not legal
    return board


def test_the_estimate_is_a_power_of_the_bound_from_the_two_largest_measured_bounds():
    solver = Solver(Board(shiqingyaqu()[62]), "any", Limits(nodes=1_000_000))
    assert solver.full_width_estimate(9) is None            # nothing measured yet
    solver.full_width_nodes.update({3: 27, 6: 216})         # the cube of the bound
    assert solver.full_width_estimate(9) == pytest.approx(729)
    assert solver.full_width_estimate(6) is None            # needs 2 and 3
    solver.full_width_nodes[10] = 1000
    assert solver.full_width_estimate(12) == pytest.approx(1728)


def test_a_cheap_minimality_is_proven():
    """No. 63: mate in 6 at order 2; full width at 5 moves costs about 7,000 nodes."""
    fen = shiqingyaqu()[62]
    solver = Solver(Board(fen), "any", Limits(nodes=5_000_000))
    result = solver.run(30)
    assert (result.verdict, result.length, result.exact) == ("mate", 6, True)
    assert result.minimality_skip is None and result.nodes < 100_000
    assert replay(fen, result.main_line).is_checkmate()
    assert Solver(Board(fen), "any", Limits()).nodes_left() is None   # no budget: always run


@pytest.mark.slow
def test_a_measuring_search_that_runs_out_does_not_give_up_the_minimality():
    """No. 46: mate in 12 at order 2 in about 350,000 nodes.  The full-width search at 10 moves
    that the estimate for 11 needs runs out of its tenth of the budget; 11 moves are searched
    all the same (about 310,000 nodes) and the mate is proven shortest (it came out "mate
    within 12" with 2.2 M of its 3 M nodes unused when a run-out meant "out of reach")."""
    fen = shiqingyaqu()[45]
    solver = Solver(Board(fen), "any", Limits(nodes=3_000_000))
    result = solver.run(30)
    assert (result.verdict, result.length, result.exact) == ("mate", 12, True)
    assert result.minimality_skip is None
    assert 10 not in solver.full_width_nodes and 11 in solver.full_width_nodes
    assert replay(fen, result.main_line).is_checkmate()


@pytest.mark.slow
def test_an_exact_mate_comes_with_the_longest_defence():
    """No. 310: mate in 12, proved shortest within 3 M nodes.  The line's first extraction
    mated in 11: at the 12th ply it read a table entry proved along another move order (the
    rook's checks f1e1/e1f1 repeat differently there) and took d8d7, after which Red mates in
    5, for f1e1, after which he needs 6.  Extracted again with the table emptied, the line
    has the 23 plies of the mate."""
    fen = shiqingyaqu()[309]
    document = solve_json(fen, 3_000_000)
    assert (document["verdict"], document["moves"], document["exact"]) == ("mate", 12, True)
    line = [Move.from_iccs(move) for move in document["main_line"]]
    assert len(line) == 23 and document["line_shorter_than_mate"] is False
    assert document["main_line"][:12] == \
        "h5h9 e7g9 h9g9 e8f9 d2d9 e9d9 g9f9 d9d8 f9e9 e1f1 f0e0 f1e1".split()
    assert replay(fen, line).is_checkmate()
    # The defence the first extraction took is mated in 5 (a mate of 11 in all).
    board = replay(fen, line[:11])
    board.push_iccs("d8d7")
    shorter = Solver(board, "any", Limits(nodes=1_000_000)).run(5)
    assert (shorter.verdict, shorter.length) == ("mate", 5)


def test_a_minimality_estimated_beyond_the_budget_is_left_out():
    """No. 228: mate in 17 at order 2 in about 660,000 nodes.  With the full-width searches
    at 6 and 10 moves measured as if they grew 10,000-fold, 16 moves are not tried."""
    fen = shiqingyaqu()[227]
    solver = Solver(Board(fen), "any", Limits(nodes=2_000_000))
    solver.full_width_nodes.update({6: 1_000, 10: 10_000_000})
    result = solver.run(30)
    assert (result.verdict, result.length, result.exact) == ("mate", 17, False)
    skip = result.minimality_skip
    assert isinstance(skip, MinimalitySkip) and skip.bound == 16
    assert skip.estimated_nodes is not None and skip.estimated_nodes > 10_000_000 > \
        skip.nodes_left
    assert result.nodes < 1_000_000 and result.line_complete
    assert replay(fen, result.main_line).is_checkmate()
    assert f"a full-width search of 16 moves, estimated at {skip.estimated_nodes:,.0f} " \
        f"nodes, exceeds the {skip.nodes_left:,.0f} left" == skip.text()


@pytest.mark.slow
def test_the_command_line_says_why_the_mate_is_not_proven_shortest(monkeypatch, capsys):
    """No. 228 within 1 M nodes (bound 20): the proof, then full width at 6 and 10 moves
    measured; 16 moves are estimated at about 1.1 times the nodes left.  With the search
    run only where its estimate fits what is left (a reach of 1), the command line says
    why it was not."""
    fen = shiqingyaqu()[227]
    monkeypatch.setattr(search, "MINIMALITY_REACH", 1.0)
    assert main(["problem", "solve", fen, "--nodes", "1000000", "--no-tables"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    found = re.fullmatch(
        r"Mate in at most 17 \(quiet moves allowed, found at order 2; a shorter mate not "
        r"searched for: a full-width search of 16 moves, estimated at ([\d,]+) nodes, exceeds "
        r"the ([\d,]+) left\)", first)
    assert found is not None, first
    estimate, left = (int(group.replace(",", "")) for group in found.groups())
    assert left < estimate < 3 * left         # within the default reach, 3
    assert main(["problem", "solve", fen, "--nodes", "1000000", "--no-tables", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert (document["verdict"], document["moves"], document["exact"]) == ("mate", 17, False)
    skipped = document["minimality_skipped"]
    assert skipped["bound"] == 16 and skipped["estimated_nodes"] > skipped["nodes_left"]
    assert document["nodes"] < 1_000_000 and document["line_complete"]


@pytest.mark.slow
def test_a_search_within_reach_of_the_budget_is_tried():
    """No. 228 within 1 M nodes again, at the default reach (3): the 16-move search
    estimated at 1.1 times the nodes left is run; it does not end within them, and the
    command line says that a limit was reached before a shorter mate was ruled out."""
    fen = shiqingyaqu()[227]
    document = solve_json(fen, 1_000_000)
    assert (document["verdict"], document["moves"], document["exact"]) == ("mate", 17, False)
    assert document["minimality_skipped"] is None and document["nodes"] > 800_000
    assert replay(fen, [Move.from_iccs(m) for m in document["main_line"]]).is_checkmate()
    plain = subprocess.run([XQSTUDIO, "problem", "solve", fen, "--nodes", "1000000",
                            "--no-tables"], capture_output=True, text=True, timeout=120)
    assert plain.stdout.splitlines()[0] == (
        "Mate in at most 17 (quiet moves allowed, found at order 2; a search limit was "
        "reached before a shorter mate was ruled out)")


def test_a_short_mate_is_proven_shortest_within_a_small_budget():
    """A mate in 4 found at a λ order: its 3 moves have only one measured bound below them (2),
    nothing to extrapolate from, so they are searched, not skipped (the kill-pattern example
    moon-from-sea-bottom came out "mate within 4" with 235,000 nodes left)."""
    fen = "3CR4/3k5/9/9/3r5/9/9/p8/9/5K3 w - - 0 1"
    result = Solver(Board(fen), "any", Limits(nodes=300_000)).run(4)
    assert (result.verdict, result.length, result.exact) == ("mate", 4, True)
    assert result.minimality_skip is None
    assert replay(fen, result.main_line).is_checkmate()
