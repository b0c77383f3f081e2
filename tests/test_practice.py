"""Practice mode (solver.practice): judging attacker moves against the exact shortest mate,
the longest defence, hints, the main line, the end of a practice; and agreement with the
tablebase on a rook-against-advisor ending.

The positions are kill-pattern examples from puzzles/data/kill_pattern_examples.tsv (forced
mates in 1 to 3, continuous checks) and the rook-against-two-advisors mate of the README."""
import pytest

from solver import Limits, solve
from solver.practice import Practice, PracticeError
from tablebases import open_tablebase
from tablebases.build import build
from xiangqi import Board, Move

FACING_KINGS_1 = "r4k3/9/9/9/9/4R4/9/9/9/4K4 w - - 0 1"                       # mate in 1
STAGGERED_ROOKS = "1R3ab2/3kaRC2/9/p5p1p/9/2B3P2/P7P/2r6/9/3AKArc1 w - - 0 1"   # mate in 2
FACING_KINGS_2 = "3a5/4ak3/9/9/4R4/2R6/9/B8/1rr6/2B1K4 w - - 0 1"              # mate in 3
ROOKS_FLANK = "3ak4/3R1R3/3ab4/9/9/9/1pp6/p8/1C7/3K5 w - - 0 1"                # mate in 3
ROOK_TWO_ADVISORS = "3ak4/4a4/9/9/9/9/9/9/9/3K4R w"                           # mode any, in 3


def iccs(moves):
    return [m.iccs() for m in moves]


def mate_length(board, mode):
    """The exact shortest mate of ``board`` (attacker to move) by a fresh solver; 0 if the
    side to move is already mated."""
    if not board.has_legal_move():
        return 0
    result = solve(board, mode=mode, max_moves=10)
    assert result.verdict == "mate" and result.exact
    return result.length


def reply_lengths(board, mode):
    """For each reply of the defender to move: the attacker's shortest mate after it."""
    lengths = {}
    for reply in board.legal_moves:
        board.push(reply)
        lengths[reply.iccs()] = mate_length(board, mode)
        board.pop()
    return lengths


def longest_defences(board, mode):
    """The replies of the side to move with the most attacker moves left, in ICCS order."""
    lengths = reply_lengths(board, mode)
    longest = max(lengths.values())
    return sorted(move for move, length in lengths.items() if length == longest)


def test_mate_in_one_finishes_the_practice():
    practice = Practice(Board(FACING_KINGS_1))
    assert (practice.length, practice.remaining, practice.to_move) == (1, 1, "attacker")
    assert practice.hint().iccs() == "e4f4"
    assert practice.solution() == [Move.from_iccs("e4f4")]
    verdict = practice.play(Move.from_iccs("e4f4"))
    assert (verdict.mates, verdict.keeps_mate, verdict.moves, verdict.plies) == (True, True, 1, 1)
    assert verdict.fastest and verdict.reason == "e4f4 mates"
    assert practice.is_finished()
    outcome = practice.outcome
    assert (outcome.result, outcome.termination, outcome.attacker_moves, outcome.par,
            outcome.optimal) == ("mate", "checkmate", 1, 1, True)
    with pytest.raises(PracticeError, match="the practice is over"):
        practice.hint()
    assert practice.solution() == []


def test_the_right_move_keeps_mate_in_n_minus_one():
    practice = Practice(Board(STAGGERED_ROOKS))
    assert practice.length == 2 and practice.hint().iccs() == "f8e8"
    verdict = practice.play(Move.from_iccs("f8e8"))
    assert (verdict.keeps_mate, verdict.fastest, verdict.moves, verdict.plies) == \
        (True, True, 2, 3)
    assert practice.to_move == "defender" and practice.remaining == 1
    assert practice.defend().iccs() == "d8d7"
    assert practice.remaining == 1 and practice.to_move == "attacker"
    assert practice.hint().iccs() == "b9b7"
    assert practice.play(Move.from_iccs("b9b7")).mates
    assert practice.outcome.optimal and practice.outcome.attacker_moves == 2


def test_a_slower_move_keeps_the_mate_with_its_length():
    practice = Practice(Board(STAGGERED_ROOKS))
    verdict = practice.evaluate(Move.from_iccs("f8f3"))
    assert (verdict.keeps_mate, verdict.fastest, verdict.moves, verdict.plies) == \
        (True, False, 3, 5)
    assert (verdict.fastest_move.iccs(), verdict.fastest_moves, verdict.fastest_plies) == \
        ("f8e8", 2, 3)
    # A fresh solver agrees: against the best defence, two more attacker moves.
    after = Board(STAGGERED_ROOKS)
    after.push(Move.from_iccs("f8f3"))
    assert max(reply_lengths(after, "checks").values()) == 2
    assert "slower than the fastest is f8e8, mate in 2 (3 plies)" in verdict.reason
    practice.play(Move.from_iccs("f8f3"))
    assert practice.remaining == 2 and not practice.is_finished()


def test_a_wrong_move_loses_the_forced_mate_and_names_the_fastest():
    practice = Practice(Board(STAGGERED_ROOKS))
    checking = practice.evaluate(Move.from_iccs("f8f7"))      # a check, but Black escapes
    assert (checking.keeps_mate, checking.moves, checking.fastest) == (False, None, False)
    assert (checking.fastest_move.iccs(), checking.fastest_moves) == ("f8e8", 2)
    assert checking.reason == ("f8f7 loses the forced mate (none within 199 more moves); the "
                               "fastest is f8e8, mate in 2 (3 plies)")
    quiet = practice.evaluate(Move.from_iccs("a3a4"))          # not a check at all
    assert quiet.keeps_mate is False and quiet.reason.startswith("a3a4 is not a check")
    practice.play(Move.from_iccs("f8f7"))
    outcome = practice.outcome
    assert (outcome.result, outcome.termination, outcome.optimal) == ("mate lost", None, False)
    with pytest.raises(PracticeError, match="the practice is over"):
        practice.defend()
    assert practice.take_back().iccs() == "f8f7"
    assert practice.board.fen() == Board(STAGGERED_ROOKS).fen() and practice.remaining == 2
    assert not practice.is_finished() and practice.hint().iccs() == "f8e8"


def test_defend_picks_the_longest_defence():
    # After 炮八平五 (b1e1) four replies: three allow mate in 1, only d9e8 holds for 2 more.
    practice = Practice(Board(ROOKS_FLANK))
    assert practice.length == 3 and practice.hint().iccs() == "b1e1"
    practice.play(Move.from_iccs("b1e1"))
    after = Board(ROOKS_FLANK)
    after.push(Move.from_iccs("b1e1"))
    assert longest_defences(after, "checks") == ["d9e8"]
    assert practice.defend().iccs() == "d9e8"
    assert practice.remaining == 2
    assert iccs(practice.solution()) == ["f8e8", "d7e8", "d8d9"]
    for move in ("f8e8", "d8d9"):
        verdict = practice.play(Move.from_iccs(move))
        assert verdict.fastest
        if not verdict.mates:
            assert practice.defend().iccs() == "d7e8"
    assert practice.outcome.result == "mate" and practice.outcome.optimal


def test_hint_is_a_fastest_move_and_ties_go_to_the_first_in_iccs_order():
    # Two keys mate in 3: c4f4 and e5f5.  The hint is the first of them in ICCS order.
    practice = Practice(Board(FACING_KINGS_2))
    board = Board(FACING_KINGS_2)
    fastest = []
    for move in sorted(board.legal_moves, key=Move.iccs):
        verdict = practice.evaluate(move)
        if verdict.fastest:
            fastest.append(move.iccs())
            board.push(move)
            assert max(reply_lengths(board, "checks").values()) == practice.length - 1
            board.pop()
    assert fastest == ["c4f4", "e5f5"]
    assert practice.hint().iccs() == "c4f4"
    assert practice.solution() == solve(Board(FACING_KINGS_2), mode="checks").main_line


def test_quiet_moves_in_mode_any():
    practice = Practice(Board(ROOK_TWO_ADVISORS), mode="any")
    assert (practice.length, practice.max_moves) == (3, 7)
    assert iccs(practice.solution()) == ["d0e0", "e9f9", "i0f0", "e8f7", "f0f7"]
    slow = practice.evaluate(Move.from_iccs("i0i8"))
    assert (slow.keeps_mate, slow.moves, slow.fastest) == (True, 6, False)
    practice.play(Move.from_iccs("d0e0"))
    assert practice.defend().iccs() == "e9f9" and practice.remaining == 2
    assert practice.evaluate(Move.from_iccs("i0f0")).fastest
    # In mode "checks" the same position has no mate at all.
    with pytest.raises(PracticeError, match="no forced continuous-check mate within 200 moves"):
        Practice(Board(ROOK_TWO_ADVISORS), mode="checks")


def test_requests_out_of_turn_and_illegal_moves():
    practice = Practice(Board(STAGGERED_ROOKS))
    with pytest.raises(PracticeError, match="the attacker is to move: call play"):
        practice.defend()
    with pytest.raises(PracticeError, match="a0a9 is not a legal move here"):
        practice.evaluate(Move.from_iccs("a0a9"))
    practice.play(Move.from_iccs("f8e8"))
    with pytest.raises(PracticeError, match="the defender is to move: call defend"):
        practice.hint()
    with pytest.raises(PracticeError, match="unknown mode"):
        Practice(Board(STAGGERED_ROOKS), mode="fast")
    with pytest.raises(PracticeError, match="already over"):
        Practice(Board("3k5/2R6/9/9/9/9/9/9/9/4K4 b"))


@pytest.fixture(scope="module")
def krka(tmp_path_factory):
    directory = tmp_path_factory.mktemp("practice-tables")
    build(["KRKA"], directory, log=lambda line: None)
    with open_tablebase(directory) as tablebase:
        yield tablebase


def test_agrees_with_the_tablebase(krka):
    """Rook against advisor: every move's length and the longest defences match the table."""
    board = Board("9/5k3/5a3/9/9/9/9/2R1K4/9/9 w")
    practice = Practice(board, mode="any", tablebase=krka)
    assert 2 * practice.length - 1 == krka.probe_dtm(board) == 5
    for ranked in krka.ranked_moves(board):
        verdict = practice.evaluate(ranked.move)
        table_moves = (ranked.value.dtm + 1) // 2 if ranked.value.wdl > 0 else None
        if table_moves is not None and table_moves > practice.max_moves:
            table_moves = None                       # beyond the practice's bound: lost
        assert verdict.moves == table_moves, ranked.move.iccs()
    assert practice.hint() == krka.ranked_moves(board)[0].move
    while not practice.is_finished():
        if practice.to_move == "attacker":
            practice.play(practice.hint())
        else:
            expected = krka.ranked_moves(practice.board)[0].move   # longest loss, ICCS ties
            assert practice.defend() == expected
            assert 2 * practice.remaining - 1 == krka.probe_dtm(practice.board)
    assert practice.outcome.result == "mate" and practice.outcome.attacker_moves == 3


def test_limits_apply_to_each_question():
    # 20 000 nodes settle the start position and the hint, not the slower i0f0 (it needs
    # more to prove there is no mate within 6 more moves): "unknown", and nothing is played.
    practice = Practice(Board(ROOK_TWO_ADVISORS), mode="any", limits=Limits(nodes=20_000))
    verdict = practice.evaluate(Move.from_iccs("i0f0"))
    assert verdict.keeps_mate is None and verdict.moves is None
    assert verdict.reason == "unknown: the search hit a limit judging i0f0"
    with pytest.raises(PracticeError, match="unknown: the search hit a limit"):
        practice.play(Move.from_iccs("i0f0"))
    assert not practice.turns and practice.to_move == "attacker"
    # The budget is given afresh to the next question.
    assert practice.play(Move.from_iccs("d0e0")).fastest
