"""The mate solver: known lengths, exact main lines, limits, repetition, and agreement with
the tablebases."""
import random
import re
from pathlib import Path

import pytest

from solver import Limits, SolverError, solve
from solver._dfpn import FULL
from solver.search import Solver
from tablebases import open_tablebase
from tablebases.build import build, indexer_for
from tablebases.material import Material
from xiangqi import Board
from xiangqi.fen import placement_fen

# 《适情雅趣》, the copy the catalogue ships.
BOOK = Path(__file__).resolve().parent.parent / "puzzles" / "data" / "shiqingyaqu551.fen"


def shiqingyaqu():
    text = (BOOK).read_text(encoding="utf-8-sig")
    return re.findall(r'\[FEN "([^"]+)"\]', text)


def replay(fen, line):
    board = Board(fen)
    for move in line:
        board.push(move)          # raises if the line is not legal
    return board


# Lengths found by this solver and checked by replaying the line to mate; the continuous-check
# ones were also checked by hand for a few moves against the published solutions.
@pytest.mark.parametrize("number,length", [(1, 7), (3, 9), (8, 9), (10, 8), (11, 7), (12, 5)])
def test_shiqingyaqu_continuous_check_lengths(number, length):
    fen = shiqingyaqu()[number - 1]
    result = solve(Board(fen), mode="checks", max_moves=40)
    assert (result.verdict, result.length) == ("mate", length)
    assert len(result.main_line) == 2 * length - 1
    board = Board(fen)
    for ply, move in enumerate(result.main_line):
        if ply % 2 == 0:
            assert board.gives_check(move), (ply, move)
        board.push(move)
    assert board.is_checkmate() or board.is_stalemate()


def test_no_continuous_check_mate_is_reported_as_such():
    # 良将安边 (No. 4) does not start with a check: no continuous-check mate exists.
    result = solve(Board(shiqingyaqu()[3]), mode="checks", max_moves=60)
    assert result.verdict == "no mate" and result.length is None


def test_checks_mode_against_any_mode():
    fen = "3ak4/4a4/9/9/9/9/9/9/9/3K4R w"
    assert solve(Board(fen), mode="checks", max_moves=10).verdict == "no mate"
    result = solve(Board(fen), mode="any", max_moves=10)
    assert (result.verdict, result.length) == ("mate", 3)
    assert replay(fen, result.main_line).is_checkmate()


def test_stalemate_counts_as_the_win():
    # Ra0-a8 leaves the black king no move without a check (困毙); Ra0-d0 mates.  Both are
    # wins in one move; the ICCS-first one, the stalemate, is the main line.
    result = solve(Board("3k5/9/9/9/9/9/9/9/9/R3K4 w"), mode="any", max_moves=3)
    assert result.length == 1 and [m.iccs() for m in result.main_line] == ["a0a8"]
    assert replay("3k5/9/9/9/9/9/9/9/9/R3K4 w", result.main_line).is_stalemate()


def test_limits_give_unknown_never_no_mate():
    result = solve(Board(shiqingyaqu()[1]), mode="checks", max_moves=60,
                   limits=Limits(nodes=200))
    assert result.verdict == "unknown" and result.length is None


def test_bound_on_moves():
    fen = shiqingyaqu()[0]               # mate in 7 by continuous checks
    assert solve(Board(fen), mode="checks", max_moves=6).verdict == "no mate"
    assert solve(Board(fen), mode="checks", max_moves=7).length == 7


def test_defender_escapes_by_repetition():
    # Red can check forever with the rook but never mate; the search must end by repetition
    # and answer "no mate" even with a very large bound.
    fen = "3k5/4a4/9/9/9/9/9/9/4A4/R2AK4 w"
    result = solve(Board(fen), mode="checks", max_moves=500)
    assert result.verdict == "no mate"


def test_defender_perpetual_check_must_stop():
    # K R against K N, Black to move: the horse can check the red king for ever, and that is
    # Black's only way not to be mated.  One-sided perpetual check loses (棋例 26.1), so Red
    # wins; with the rule switched off every repetition is a draw and Red cannot force mate.
    board = Board("4k4/9/9/9/2R6/9/9/9/5K1n1/9 b - - 0 1")
    ruled = Solver(board, "any")
    # Black checks until a check would repeat a position, then he must deviate: mate in 7.
    # Red's move back into a repeated position wins nothing by itself (it did, and then the
    # search said 6).  A table counts 5 (10 plies): its rule makes Black stop checking at once.
    assert ruled.search.value(board, 8, False) == ("proven", 8)
    assert ruled.search.value(board, 7, False)[0] == "proven"
    assert ruled.search.value(board, 6, False) == ("disproven", None)
    unruled = Solver(board, "any", Limits(perpetual_check_rule=False))
    assert unruled.search.value(board, 8, False) == ("disproven", None)
    # The rule concerns the defender only: the attacker's own perpetual check stays a draw.
    assert solve(Board("3k5/4a4/9/9/9/9/9/9/4A4/R2AK4 w"), "checks", 50).verdict == "no mate"


def test_a_disproof_from_another_line_does_not_hide_a_forbidden_perpetual_check():
    """《适情雅趣》 No. 323 along a line where Black's rook checks the king to and fro (the
    line of a first proof, which the main-line extraction re-searched).  Red's 帅6退1 (d1d0)
    goes back to a position of the line, and now Black, who checked on every move of the
    cycle, must deviate: mate in 2 more.  Reached from its FEN alone the same position
    allows the check again (no mate in 2), and that disproof, made first, must not answer
    for the line (it did, and the line stopped short of mate)."""
    start = Board(shiqingyaqu()[322])
    board = start.copy()
    for move in ("g8g9 e7g9 h7c7 e8d9 i7g8 e6f8 d8f8 f1e1 d0e1 i1e1 e0d0 e1e0 d0d1 "
                 "e0e1").split():
        board.push(board.parse_iccs(move))
    back = board.copy()
    back.push(back.parse_iccs("d1d0"))
    assert back.repetition_count() == 1
    solver = Solver(start, "any")
    assert solver.value_at(Board(back.fen()), 2, FULL) == ("disproven", None)
    assert solver.value_at(board, 3, FULL) == ("proven", 3)


def test_solver_errors():
    with pytest.raises(SolverError, match="mode"):
        solve(Board(), mode="fast")
    with pytest.raises(SolverError, match="max_moves"):
        solve(Board(), max_moves=0)
    with pytest.raises(SolverError, match="no legal move"):
        solve(Board("3k5/2R6/9/9/9/9/9/9/9/4K4 b"))


def test_solution_tree_covers_every_defence():
    fen = shiqingyaqu()[11]
    result = solve(Board(fen), mode="checks", max_moves=10, tree=True)
    assert result.tree is not None and result.tree.length == result.length

    def walk(node, board, attacker_to_move):
        if not node.children:
            assert not board.has_legal_move()
            return
        if attacker_to_move:
            assert len(node.children) == 1
        else:
            assert {c.move for c in node.children} == set(board.legal_moves)
        for child in node.children:
            board.push(child.move)
            walk(child, board, not attacker_to_move)
            board.pop()

    walk(result.tree, Board(fen), True)


@pytest.fixture(scope="module")
def small_tables(tmp_path_factory):
    directory = tmp_path_factory.mktemp("solver-tables")
    build(["KRKA", "KNKA", "KRKN"], directory, log=lambda line: None)
    return directory


@pytest.mark.parametrize("material", ["KRKA", "KNK", "KRK"])
def test_solver_agrees_with_tablebase(small_tables, material):
    """The solver's shortest mate, found by search alone, equals the tables' DTM."""
    tablebase = open_tablebase(small_tables)
    indexer = indexer_for(Material.parse(material))
    rng = random.Random(5)
    checked = 0
    while checked < 12:
        codes = indexer.placement(rng.randrange(indexer.size))
        if codes is None:
            continue
        try:
            board = Board(placement_fen(codes) + " w")
        except ValueError:
            continue
        value = tablebase.probe(board)
        if value.wdl <= 0 or value.dtm > 9:
            continue
        result = solve(board, mode="any", max_moves=6)
        assert result.verdict == "mate" and 2 * result.length - 1 == value.dtm, board.fen()
        checked += 1
    tablebase.close()


def test_tablebase_leaves(small_tables):
    tablebase = open_tablebase(small_tables)
    board = Board("9/9/3ak4/9/9/9/9/9/9/N2K5 w")
    result = solve(board, mode="any", max_moves=25, tablebase=tablebase)
    assert result.length == (tablebase.probe_dtm(board) + 1) // 2 == 19
    assert not replay(board.fen(), result.main_line).has_legal_move()   # ends in 困毙
    tablebase.close()


def test_the_tables_perpetual_check_rule_at_a_root_and_along_the_line(small_tables):
    """Black holds K R vs K N only by checking for ever.  The table's rule makes him stop
    at once (mate in 5, 10 plies); the solver answers such a root from the table, as it
    would a leaf, and its lines never play the checks the table takes away.  (Without the
    table Black checks until a check would repeat a position: mate in 7, see
    test_defender_perpetual_check_must_stop.)"""
    tablebase = open_tablebase(small_tables)
    board = Board("4k4/9/9/9/2R6/9/9/9/5K1n1/9 b - - 0 1")
    assert tablebase.probe(board).must_stop_checking
    solver = Solver(board, "any", tablebase=tablebase)
    assert solver.search.value(board, 8, False) == ("proven", 5)
    assert solver.search.value(board, 4, False) == ("disproven", None)
    # Red to move; the table's line passes a position where Black must stop checking.
    board = Board("9/R8/4k4/9/9/9/9/9/1n1K5/9 w")
    result = solve(board, mode="any", max_moves=10, tablebase=tablebase)
    assert result.verdict == "mate" and result.exact
    assert 2 * result.length - 1 == tablebase.probe_dtm(board) == len(result.main_line) == 7
    walk = board.copy()
    for move in result.main_line:
        assert move not in tablebase.forbidden_moves(walk), walk.fen()
        walk.push(move)
    assert not walk.has_legal_move()
    tablebase.close()


def test_shortest_on_a_solver_instance():
    solver = Solver(Board(shiqingyaqu()[0]), mode="checks")
    assert solver.shortest(solver.board, 30) == ("proven", 7)


def test_no_moves_left_is_no_mate_even_next_to_a_mate():
    solver = Solver(Board("3k5/9/9/9/9/9/9/9/9/R3K4 w"), mode="checks")
    assert solver.value(solver.board, 0) == ("disproven", None)
    assert solver.value(solver.board, 1) == ("proven", 1)


@pytest.mark.slow
def test_limit_after_the_proof_keeps_the_bound():
    # Mate in 20 is proven quickly (with a longer proof); showing 20 is shortest takes more.
    fen = shiqingyaqu()[6]
    quick = solve(Board(fen), mode="checks", max_moves=60, limits=Limits(nodes=60_000))
    assert quick.verdict == "mate" and not quick.exact and quick.length >= 20
    full = solve(Board(fen), mode="checks", max_moves=60)
    assert full.exact and full.length == 20
