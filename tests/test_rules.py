"""Repetition rules (棋例): one case or more per clause, each asserting the class of every
move of the cycle and the verdict under both rule sets."""
from __future__ import annotations

import json

import pytest

from tui.cli import main
from xiangqi import BLACK, RED, Board, Move
from xiangqi.rules import (
    Kind,
    RulesError,
    adjudicate,
    classify_line,
    classify_move,
    find_cycle,
    natural_limit,
    ruleset,
)


def played(fen: str, cycle: list[str], times: int = 2) -> Board:
    board = Board(fen)
    for text in cycle * times:
        board.push_iccs(text)
    return board


def labels(fen: str, cycle: list[str], rules: str = "chinese") -> list[str]:
    return [mc.label for mc in classify_line(Board(fen), [Move.from_iccs(m) for m in cycle],
                                             rules)]


# Each case: FEN, the cycle (Red moves first), the labels of its moves under Chinese rules,
# and the verdict (loser or None for a draw) under Chinese and Asian rules.
CASES = {
    # 长将 against idle king moves: the checker loses (26.1 / AXF 6).
    "long check": ("3k5/R8/9/9/9/9/9/9/9/4K4 w", ["a8a9", "d9d8", "a9a8", "d8d9"],
                   ["将", "闲", "将", "闲"], RED, RED),
    # 双方长将: each side answers check with a check (the advisor and the horse are the
    # screens of the two cannons in turn): a draw (26.3 / AXF 7).
    "mutual long check": ("3k5/9/9/9/9/9/9/3A5/c2n1K3/3C5 w", ["d2e1", "d1c3", "e1d2", "c3d1"],
                          ["将", "将", "将", "将"], None, None),
    # 长捉 of an unprotected cannon by a rook: the chaser must deviate (26.4).
    "long chase": ("5k3/9/1c7/9/2R6/9/9/9/9/3K5 w", ["c5b5", "b7c7", "b5c5", "c7b7"],
                   ["捉", "闲", "捉", "闲"], RED, RED),
    # The same with the cannon protected by a rook: taking it loses the rook, so no chase.
    "protected piece": ("5k3/9/rc7/9/2R6/9/9/9/9/3K5 w", ["c5b5", "b7c7", "b5c5", "c7b7"],
                        ["闲", "闲", "闲", "闲"], None, None),
    # A cannon attacking a protected rook wins material in the exchange: a chase.
    "cannon on protected rook": ("5k3/9/rr7/9/9/1pp6/9/2C6/9/3K5 w",
                                 ["c2b2", "b7c7", "b2c2", "c7b7"],
                                 ["捉", "闲", "捉", "闲"], RED, RED),
    # 一将一捉: forbidden by the Chinese rules, allowed by the Asian rules (AXF 12).
    "one check one chase": ("4k4/9/R1n6/9/9/9/9/9/9/3K5 w", ["a7a9", "e9e8", "a9a7", "e8e9"],
                            ["将", "闲", "捉", "闲"], RED, None),
    # A pawn's own chase is idle (27.2); the Asian rules let pawns chase.
    "pawn chase": ("4k4/9/3c5/4P4/9/9/9/9/9/5K3 w", ["e6d6", "d7e7", "d6e6", "e7d7"],
                   ["闲", "闲", "闲", "闲"], None, None),
    # The king's own chase is idle (27.1).
    "king chase": ("5k3/9/9/9/9/9/9/9/3K5/4p4 w", ["d1e1", "e0d0", "e1d1", "d0e0"],
                   ["闲", "闲", "闲", "闲"], None, None),
    # False protection (假根): the elephant cannot take back, it is pinned by the facing kings.
    "false protection": ("4k4/9/4b4/9/2c6/9/9/9/6R2/4K4 w", ["g1c1", "c5g5", "c1g1", "g5c5"],
                         ["捉", "闲", "捉", "闲"], RED, RED),
    # The same with the king off the file: the elephant protects, no chase.
    "real protection": ("4k4/9/4b4/9/2c6/9/9/9/6R2/3K5 w", ["g1c1", "c5g5", "c1g1", "g5c5"],
                        ["闲", "闲", "闲", "闲"], None, None),
    # Chasing two pieces in turn: 长捉 for the Chinese rules (一子或数子, 28.12); the Asian
    # rules forbid only the chase of the same piece.
    "alternating chase": ("4k4/1nc6/9/9/2R6/9/9/9/9/3K5 w", ["c5b5", "e9e8", "b5c5", "e8e9"],
                          ["捉", "闲", "捉", "闲"], RED, None),
    # 相互长打 with a pawn (27.2): the pawn chases the cannon while the cannon chases a horse
    # on every move; the pawn's chases then count, both sides are forbidden: a draw (26.3).
    "mutual attack with a pawn": ("3k5/9/3c5/4P4/3PP4/9/3NN4/9/9/4K4 w",
                                  ["e6d6", "d7e7", "d6e6", "e7d7"],
                                  ["闲", "捉", "闲", "捉"], None, None),
    # 长杀: the rook threatens mate on every move; the Asian rules allow it.
    "long mate threat": ("3kN4/9/3a1a3/7R1/9/9/9/4K4/9/9 w", ["h6h9", "d9d8", "h9h6", "d8d9"],
                         ["杀", "闲", "杀", "闲"], RED, None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_cycle_classification_and_verdict(name):
    fen, cycle, expected_labels, chinese_loser, asian_loser = CASES[name]
    assert labels(fen, cycle) == expected_labels
    board = played(fen, cycle)
    chinese = adjudicate(board, "chinese")
    asian = adjudicate(board, "asian")
    assert chinese.loser == chinese_loser
    assert asian.loser == asian_loser
    assert chinese.rules == "chinese" and "中国象棋竞赛规则" in chinese.clause
    assert asian.rules == "asian" and "AXF" in asian.clause
    assert chinese.result == ("draw" if chinese_loser is None else "loss")
    assert chinese.cycle.occurrences == 3 and len(chinese.cycle.moves) == 4


def test_conduct_labels_name_the_forbidden_pattern():
    long_check = adjudicate(played(*CASES["long check"][:2]))
    assert (long_check.conduct[RED].label, long_check.conduct[BLACK].label) == ("长将", "闲")
    assert long_check.conduct[RED].perpetual_check
    assert "26.1" in long_check.clause
    mixed = adjudicate(played(*CASES["one check one chase"][:2]))
    assert mixed.conduct[RED].label == "一将一捉" and mixed.conduct[RED].forbidden
    assert "26.4" in mixed.clause
    asian = adjudicate(played(*CASES["one check one chase"][:2]), "asian")
    assert not asian.conduct[RED].forbidden
    threat = adjudicate(played(*CASES["long mate threat"][:2]))
    assert threat.conduct[RED].label == "长杀"
    assert "26.2" in adjudicate(played(*CASES["pawn chase"][:2])).clause
    both = adjudicate(played(*CASES["mutual long check"][:2]))
    assert both.conduct[RED].perpetual_check and both.conduct[BLACK].perpetual_check
    assert "双方长将" in both.clause
    assert "AXF rule 7" in adjudicate(played(*CASES["mutual long check"][:2]), "asian").clause
    mutual = adjudicate(played(*CASES["mutual attack with a pawn"][:2]))
    assert (mutual.conduct[RED].label, mutual.conduct[BLACK].label) == ("长捉", "长捉")
    assert "26.3" in mutual.clause


def test_chase_details_name_attacker_and_victim():
    board = Board(CASES["long chase"][0])
    chase = classify_move(board, Move.from_iccs("c5b5"))
    assert chase.kind is Kind.CHASE
    assert [(c.attacker_piece.symbol(), c.victim_piece.symbol()) for c in chase.chases] == \
        [("R", "c")]
    pawn = classify_move(Board(CASES["pawn chase"][0]), Move.from_iccs("e6d6"))
    assert pawn.kind is Kind.IDLE and len(pawn.pawn_chases) == 1
    king = classify_move(Board(CASES["king chase"][0]), Move.from_iccs("d1e1"))
    assert king.kind is Kind.IDLE and any("27.1" in note for note in king.notes)


def test_a_chase_that_allows_mate_is_idle():
    # From i3 the rook attacks the horse on i1, but taking it leaves 车c9-f9 mate: on i1 the
    # rook could no longer block the f-file.  Not a chase (29.4).
    board = Board("2r6/4k4/9/9/9/9/7R1/3A5/5K2n/9 w")
    assert classify_move(board, Move.from_iccs("h3i3")).kind is Kind.IDLE
    # Without the black rook the same move is a chase.
    safe = Board("9/4k4/9/9/9/9/7R1/3A5/5K2n/9 w")
    assert classify_move(safe, Move.from_iccs("h3i3")).kind is Kind.CHASE


def test_unadvanced_pawn_is_not_material_but_a_crossed_one_is():
    home = Board("3aka3/9/9/2p6/9/9/9/9/7R1/3K5 w")    # black pawn on c6, its own side
    assert classify_move(home, Move.from_iccs("h1c1")).kind is Kind.IDLE
    crossed = Board("3aka3/9/9/9/9/2p6/9/9/7R1/3K5 w") # black pawn on c4, across the river
    assert classify_move(crossed, Move.from_iccs("h1c1")).kind is Kind.CHASE


def test_keeping_up_an_old_attack_is_not_a_new_chase():
    # The rook already attacks the cannon along the rank; stepping closer keeps the attack
    # (从捉到捉) and creates none: idle.  Arriving from elsewhere is a chase.
    keep = Board("4k4/9/9/9/2c2R3/9/9/9/9/3K5 w")
    assert classify_move(keep, Move.from_iccs("f5d5")).kind is Kind.IDLE
    arrive = Board("4k4/9/9/9/2c6/9/9/9/3R5/3K5 w")
    assert classify_move(arrive, Move.from_iccs("d1d5")).kind is Kind.CHASE


def test_check_outranks_chase_and_mate_threat():
    board = Board("4k4/9/R1n6/9/9/9/9/9/9/3K5 w")
    assert classify_move(board, Move.from_iccs("a7a9")).kind is Kind.CHECK


def test_no_verdict_before_the_third_occurrence():
    fen, cycle = CASES["long check"][:2]
    once = played(fen, cycle, times=1)
    assert find_cycle(once).occurrences == 2
    assert adjudicate(once) is None
    assert adjudicate(once, min_occurrences=2).loser == RED


def test_a_capture_ends_the_history():
    board = Board("5k3/9/1c7/9/2R6/9/9/9/9/3K5 w")
    for text in ["c5b5", "b7c7", "b5c5", "c7b7", "c5c7"]:
        board.push_iccs(text)
    assert find_cycle(board) is None


def test_unknown_rule_set_is_named():
    with pytest.raises(RulesError, match="unknown rule set 'fide'"):
        ruleset("fide")
    assert ruleset("axf").name == "asian" and ruleset("CXA").name == "chinese"


def test_natural_limit_counts_at_most_ten_checks_of_the_claimant():
    # A rook shuffles; the claimant (Red) checks on some of its moves.
    board = Board("4k4/9/9/9/9/9/9/9/R8/3K5 w")
    quiet = ["a1b1", "e9f9", "b1a1", "f9e9"]
    for _ in range(30):                      # 120 quiet plies
        for text in quiet:
            board.push_iccs(text)
    limit = natural_limit(board, RED)
    assert (limit.plies_without_capture, limit.counted_plies, limit.reached) == (120, 120, True)
    assert limit.claimant_checks == 0

    checking = Board("4k4/9/9/9/9/9/9/9/R8/3K5 w")
    # 12 checking moves by Red (rook to the 9th rank and back), the rest quiet.
    for _ in range(6):
        for text in ["a1a9", "e9e8", "a9a1", "e8e9"]:
            checking.push_iccs(text)
    for _ in range(24):
        for text in quiet:
            checking.push_iccs(text)
    chinese = natural_limit(checking, RED, "chinese")
    assert chinese.plies_without_capture == 120
    assert chinese.claimant_checks == 6 and chinese.reached     # only 6 checks: all count
    assert natural_limit(checking, RED, "asian").reached


def test_natural_limit_discounts_checks_beyond_ten():
    board = Board("4k4/9/9/9/9/9/9/9/R8/3K5 w")
    for _ in range(30):                      # 120 plies, Red checks on 30 of its 60 moves
        for text in ["a1a9", "e9e8", "a9a1", "e8e9"]:
            board.push_iccs(text)
    chinese = natural_limit(board, RED, "chinese")
    assert chinese.claimant_checks == 30
    assert chinese.counted_plies == 100 and not chinese.reached
    assert not natural_limit(board, RED, "asian").reached
    # Black did not check: for Black as claimant every ply counts.
    assert natural_limit(board, BLACK, "chinese").reached


def test_natural_limit_counts_the_fen_clock_as_quiet():
    board = Board("4k4/9/9/9/9/9/9/9/R8/3K5 w - - 110 60")
    for text in ["a1b1", "e9f9", "b1a1", "f9e9"] * 3:
        board.push_iccs(text)
    limit = natural_limit(board)
    assert limit.plies_without_capture == 122 and limit.unrecorded_plies == 110
    assert limit.reached and "counted as quiet" in str(limit)


def test_judge_command(capsys):
    fen, cycle = CASES["one check one chase"][:2]
    assert main(["judge", fen, *cycle * 2, "--notation", "iccs"]) == 0
    out = capsys.readouterr().out
    assert "a9a7" in out and "捉" in out and "一将一捉" in out and "26.4" in out
    assert main(["judge", fen, *cycle * 2, "--rules", "asian", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"]["result"] == "draw"
    assert [m["label"] for m in data["moves"][:4]] == ["将", "闲", "捉", "闲"]
    assert main(["judge", fen, "a7a8x"]) == 1
    assert "a7a8x" in capsys.readouterr().err
