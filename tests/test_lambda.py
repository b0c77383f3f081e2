"""λ-search inside the df-pn: quiet-move problems by order, exact lengths, lines that always
come with a mate, tablebase leaves, and "unknown" (never "no mate") when an order fails."""
import re

import pytest

from solver import Limits, solve
from solver._dfpn import DISPROVEN, FULL, PROVEN
from solver.search import Solver
from solver.soundness import check_recorded_line, verify
from tablebases import open_tablebase
from xiangqi import Board, Move


def replay(board: Board, line: list[Move]) -> Board:
    board = board.copy()
    for move in line:
        board.push(move)            # raises if the line is not legal
    return board


def ends_in_mate(board: Board, line: list[Move]) -> bool:
    end = replay(board, line)
    return bool(line) and not end.has_legal_move() and end.turn != board.turn


# (FEN, forced length, the lowest λ order that proves it)
BY_ORDER = [
    # 《适情雅趣》 No. 39: every Red move checks (连照), so order 1 already proves it.
    ("2bak1b2/4aR2C/6N1n/9/9/9/5c3/4BC3/3p1r1n1/4K2c1 w", 4, 1),
    # Rook against two advisors: the king's quiet step threatens a continuous-check mate.
    ("3ak4/4a4/9/9/9/9/9/9/9/3K4R w", 3, 2),
    # Rook against an elephant: the first quiet move threatens an order-2 win.
    ("4k4/9/4b4/9/9/9/9/9/9/3K1R3 w", 4, 3),
]


@pytest.mark.parametrize("fen,length,order", BY_ORDER)
def test_each_order_proves_its_problem_and_the_order_below_does_not(fen, length, order):
    board = Board(fen)
    result = solve(board, mode="any", max_moves=10)
    assert (result.verdict, result.length, result.exact) == ("mate", length, True)
    # Orders 1 and 2 run first; full width at small bounds comes before order 3 (see
    # Solver._schedule), and may prove a short mate first.
    assert result.order == order if order <= 2 else result.order in (order, None)
    assert len(result.main_line) == 2 * length - 1 and ends_in_mate(board, result.main_line)
    # Orders are asked with the problem's bound (a threat may need more moves than the mate),
    # each by a fresh solver (a proof in the table answers at every order).
    assert Solver(board, "any").value_at(board, 10, order)[0] == PROVEN
    if order > 1:
        assert Solver(board, "any").value_at(board, 10, order - 1)[0] == DISPROVEN
    solver = Solver(board, "any")
    # One move less fails at every order: that full-width disproof makes the length exact.
    assert solver.value_at(board, length - 1, FULL)[0] == DISPROVEN


def test_order_two_answers_a_counter_check_with_a_quiet_evasion():
    # 《适情雅趣》 No. 228 流星赶月, mate in 17: Black's counter-checks must be met by blocks and
    # king steps that neither check nor threaten on their own.  Above order 1 an attacker in
    # check may play any evasion; with every quiet evasion threat-tested, order 2 disproved it.
    board = Board("9/9/3ak1P2/5PR2/6C2/9/9/9/nr2p1pp1/R4K3 w")
    solver = Solver(board, "any", Limits(nodes=3_000_000))
    assert solver.value_at(board, 17, 2) == (PROVEN, 17)
    solver.best_order = 2
    line = solver.main_line(17, order=2, exact=False)
    assert ends_in_mate(board, line) and len(line) <= 33
    walk, quiet_evasions = board.copy(), 0
    for ply, move in enumerate(line):
        if ply % 2 == 0 and walk.is_check():
            quiet_evasions += not walk.gives_check(move) and walk.piece_at(move.to_square) is None
        walk.push(move)
    assert quiet_evasions >= 1


def test_only_solution_starts_with_a_quiet_sacrifice():
    # 卧槽马 example of the catalogue: 车四进五 offers the rook on f8 without checking.
    board = Board("N2ak4/4acr2/4b4/p8/9/4P4/P4R1np/2n1B4/5C3/2BAKA3 w")
    report = verify(board, "win")
    key = report.key
    assert (report.verdict, report.length, key.iccs()) == ("mate", 2, "f3f8")
    assert not report.cooks and not report.unproven           # the key is unique
    assert not board.gives_check(key)
    after = replay(board, [key])
    assert any(reply.to_square == key.to_square for reply in after.legal_moves)   # en prise
    assert ends_in_mate(board, report.main_line)


def test_a_checking_key_needs_no_pass():
    # The key checks (no pass would be legal after it); the quiet moves come later.
    board = Board("4k4/4a4/9/9/9/9/9/2RK5/9/9 w")
    result = solve(board, mode="any", max_moves=8)
    assert (result.length, result.exact, result.order) == (4, True, 2)
    line = result.main_line
    assert board.gives_check(line[0])
    quiet = [move for ply, move in enumerate(line) if ply % 2 == 0
             and not replay(board, line[:ply]).gives_check(move)]
    assert quiet and ends_in_mate(board, line)


def test_zugzwang_finish_with_a_waiting_move():
    # Rook, advisors and elephant against a lone advisor: 相五进七 threatens nothing (were
    # Black to pass, no mate in one follows), yet every Black move then allows mate.
    board = Board("3a5/R8/3k5/9/9/9/9/3AB4/9/3AK4 w - - 5 7")
    result = solve(board, mode="any", max_moves=2)
    assert (result.verdict, result.length, result.exact) == ("mate", 2, True)
    key = result.main_line[0]
    assert key.iccs() == "e2c0" and not board.gives_check(key)
    passed = replay(board, [key])
    passed.turn_code = board.turn                   # the pass a threat test makes
    assert solve(passed, mode="any", max_moves=1).verdict == "no mate"
    assert ends_in_mate(board, result.main_line)
    # Without trying every move near the end of the bound, order 2 cannot see the waiting
    # move; the full-width search still can.
    solver = Solver(board, "any")
    solver.search.tempo_frontier = 0
    assert solver.value_at(board, 2, 2)[0] == DISPROVEN
    assert solver.value_at(board, 2, FULL) == (PROVEN, 2)


def test_stalemating_quiet_move_is_a_win_at_every_order_above_one():
    # 车一进八 leaves the black king no move without being in check: 困毙, a loss.
    board = Board("3k5/9/9/9/9/9/9/9/9/R3K4 w")
    solver = Solver(board, "any")
    after = replay(board, [Move.from_iccs("a0a8")])
    assert not after.has_legal_move() and not after.is_check()
    assert solver.value_at(board, 1, 2) == (PROVEN, 1)


def test_mate_in_8_agrees_with_dtm_and_its_line_follows_the_table(krkab_tables):
    oracle_dir, leaves_dir = krkab_tables
    board = Board("9/4k4/5a3/9/6b2/9/9/9/9/R2K5 w")      # KRKAB's longest win
    with open_tablebase(oracle_dir) as oracle, open_tablebase(leaves_dir) as leaves:
        dtm = oracle.probe_dtm(board)
        assert dtm == 15
        result = solve(board, mode="any", max_moves=12, tablebase=leaves)
        assert (result.verdict, result.length, result.exact) == ("mate", (dtm + 1) // 2, True)
        assert result.tb_leaves > 0
        # Along the line the attacker keeps to the fastest mate and the defender to the
        # slowest: the table's distance falls by one ply a move.
        position = board.copy()
        for ply, move in enumerate(result.main_line):
            position.push(move)
            if position.has_legal_move():
                assert abs(oracle.probe_dtm(position)) == dtm - ply - 1, (ply, move.iccs())
        assert not position.has_legal_move()


def test_a_root_table_raises_the_default_bound_and_names_its_mate(krkab_tables, monkeypatch,
                                                                  capsys):
    """A table answers the root without a search: a default bound below its mate would only
    hide the answer, and a bound the user chose that is too small says how far the mate is."""
    import solver.search as search
    from tui.cli import main

    oracle_dir, _ = krkab_tables
    fen = "9/4k4/5a3/9/6b2/9/9/9/9/R2K5 w"                # KRKAB's longest win: mate in 8
    with open_tablebase(oracle_dir) as oracle:
        board = Board(fen)
        assert search.table_mate_moves(board, "any", oracle) == 8
        assert search.table_mate_moves(board, "checks", oracle) is None
        assert search.table_mate_moves(board, "any", None) is None
        monkeypatch.setitem(search.DEFAULT_MAX_MOVES, "any", 5)
        assert search.default_bound(board, "any", oracle) == 8
        assert search.default_bound(board, "any", None) == 5
    assert main(["solve", fen, "--tables", str(oracle_dir)]) == 0
    assert capsys.readouterr().out.startswith(
        "Mate in 8 (15 plies), quiet moves allowed, from the tablebase")
    assert main(["solve", fen, "--tables", str(oracle_dir), "--max-moves", "6"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "No mate within 6 moves", "The tablebase gives mate in 8: run with --max-moves 8"]


def test_node_rate_with_tables_stays_close_to_the_rate_without(krkab_tables):
    """Tables are probed at C level: no Python call per leaf."""
    _, leaves_dir = krkab_tables
    board = Board("9/4k4/5a3/9/6b2/9/9/9/9/R2K5 w")
    with open_tablebase(leaves_dir) as leaves:
        solver = Solver(board, "any", Limits(nodes=300_000, lambda_orders=0), leaves)
        solver.value_at(board, 7, FULL)
        assert solver.search.tb_leaves > 1000
        assert solver.search.leaf_prober.hits >= solver.search.tb_leaves


def test_failed_orders_give_unknown_never_no_mate():
    # Mate in 8 (K R A A B against K A B) that no order up to 3 finds: within a small node
    # budget the answer must be "unknown".
    board = Board("3ak4/9/4b4/9/9/9/9/4B4/4A4/3AK1R2 w")
    solver = Solver(board, "any", Limits(nodes=40_000))
    for order in (1, 2, 3):
        assert solver.value_at(board, 8, order)[0] == DISPROVEN
    result = solve(board, mode="any", max_moves=8, limits=Limits(nodes=40_000))
    assert result.verdict == "unknown" and result.length is None


@pytest.mark.parametrize("nodes", [300, 1_000, 3_000, 10_000])
def test_a_mate_always_comes_with_its_line(nodes):
    board = Board("R2ak4/9/9/9/9/9/9/3K5/9/9 w")
    result = solve(board, mode="any", max_moves=6,
                   limits=Limits(nodes=nodes, table_bits=2))
    if result.verdict == "mate":
        assert ends_in_mate(board, result.main_line), (nodes, result)
        assert len(result.main_line) <= 2 * result.length - 1


def test_unforced_recorded_line_names_the_escaping_defence():
    board = Board("2bak1b2/4aR2C/6N1n/9/9/9/5c3/4BC3/3p1r1n1/4K2c1 w")     # 《适情雅趣》 No. 39
    solver = Solver(board, "checks")
    failing = None
    for move in solver.attacker_moves(board):
        after = replay(board, [move])
        if solver.value(after, 3)[0] == DISPROVEN:
            failing = move
            break
    assert failing is not None
    after = replay(board, [failing])
    reply = sorted(after.legal_moves, key=Move.iccs)[0]
    attacker_next = sorted(replay(after, [reply]).legal_moves, key=Move.iccs)[0]
    check = check_recorded_line(solver, board,
                                [m.iccs() for m in (failing, reply, attacker_next)], 4)
    assert not check.forced
    assert re.match(r"at ply 2 Black's \S+ escapes: no continuous-check mate follows within "
                    r"the 1 move the line has left", check.problem), check.problem
