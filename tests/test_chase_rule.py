"""The chase rule (长捉) of the Chinese rules in the tablebases.

The builder's chase test (tablebases._chase) against the judge (xiangqi.rules, what
``xqstudio judge`` runs) move by move, one real repeated game per rule clause; then tables
built with ``--rules chinese``: the header, the files, probing, ``tb verify`` re-deriving the
rule rounds, and the judge on a repeated game from positions the rule decides.
"""
from __future__ import annotations

import json
import random

import pytest

from tablebases._chase import Attack, attack_of
from tablebases.build import build, rules_directory, verify_file
from tablebases.format import read_header, table_path
from tablebases.probe import Tablebase
from tui.cli import main
from xiangqi import Board, Move
from xiangqi.rules import Kind, adjudicate, classify_move

# What the perpetual-attack rule forbids (a pawn's chase is idle unless mutual, 27.2).
FORBIDDEN = Attack.ATTACK_CHECK | Attack.ATTACK_CHASE | Attack.ATTACK_MATE_THREAT


def played_twice(fen: str, cycle: list[str]) -> Board:
    """``fen`` with the moves of ``cycle`` played twice (its position then occurs thrice)."""
    board = Board(fen)
    for text in cycle * 2:
        board.push_iccs(text)
    return board


def along_cycle(fen: str, cycle: list[str], measure) -> list[int]:
    """``measure(board, move)`` of each move of ``cycle`` from ``fen``, the move then played."""
    board = Board(fen)
    values = []
    for text in cycle:
        move = Move.from_iccs(text)
        values.append(measure(board, move))
        board.push(move)
    return values


def builder_bits(fen: str, cycle: list[str]) -> list[int]:
    """The chase test's attack bits of each move of ``cycle`` from ``fen``."""
    return along_cycle(fen, cycle,
                       lambda board, move: attack_of(board, move.from_square, move.to_square))


def judge_bits(fen: str, cycle: list[str]) -> list[int]:
    """The same from the judge's classification of each move."""
    def bits(board: Board, move: Move) -> int:
        kind = classify_move(board, move, "chinese")
        return ({Kind.CHECK: Attack.ATTACK_CHECK, Kind.CHASE: Attack.ATTACK_CHASE,
                 Kind.MATE_THREAT: Attack.ATTACK_MATE_THREAT}.get(kind.kind, 0)
                | (Attack.ATTACK_PAWN_CHASE if kind.kind in (Kind.CHASE, Kind.IDLE)
                   and kind.pawn_chases else 0))
    return along_cycle(fen, cycle, bits)


# (clause, start, cycle, Red's conduct, Black's conduct, who loses by repeating)
CLAUSES = [
    ("a rook chases an unprotected horse: 长捉 against idle moves loses",
     "9/3k5/9/9/9/9/9/3n5/7R1/5K3 w - - 0 1", ["h1h2", "d2b1", "h2h1", "b1d2"],
     "长捉", "闲", 0),
    ("a rook attacks a horse its advisor protects: idle, a draw",
     "4k4/4a4/3n5/9/9/9/9/9/R8/3K5 w - - 0 1", ["a1a7", "e9f9", "a7a1", "f9e9"],
     "闲", "闲", None),
    ("a check and a chase in turn (一将一捉) against idle moves loses",
     "1n5R1/9/4k4/9/9/9/9/5K3/9/9 w - - 0 1", ["h9h7", "e7e8", "h7h9", "e8e7"],
     "一将一捉", "闲", 0),
    ("a mate threat on every move (长杀) against idle moves loses",
     "9/3k5/9/9/9/9/9/2n2R3/9/4K4 w - - 0 1", ["f2f3", "c2b4", "f3f2", "b4c2"],
     "长杀", "闲", 0),
    ("a horse chases a crossed pawn on every move against idle pawn moves: the horse loses "
     "(from a K N vs K P P position whose value the Chinese rules change: a draw by default)",
     "4k4/9/9/9/9/9/4N4/3p5/p8/3K5 w - - 0 1", ["e3c4", "d2c2", "c4e3", "c2d2"],
     "长捉", "闲", 0),
    ("both sides chase on every move (mutual chase): a draw",
     "5k3/9/9/9/9/2B5r/2N6/7c1/R6n1/3K5 w - - 0 1", ["a1a2", "i4i3", "a2a1", "i3i4"],
     "长捉", "长捉", None),
]


@pytest.mark.parametrize("clause, fen, cycle, red, black, loser", CLAUSES,
                         ids=[clause.split(":")[0] for clause, *_ in CLAUSES])
def test_chase_test_matches_the_judge_on_a_repeated_game(clause, fen, cycle, red, black, loser):
    verdict = adjudicate(played_twice(fen, cycle), "chinese")
    assert verdict is not None, clause
    assert (verdict.conduct[0].label, verdict.conduct[1].label) == (red, black), str(verdict)
    assert verdict.loser == loser, str(verdict)
    assert builder_bits(fen, cycle) == judge_bits(fen, cycle)
    # The builder's rule then forbids exactly the side the judge makes deviate: a side
    # attacking on every move against a side with an idle move.
    attacking = [all(bits & FORBIDDEN for bits in builder_bits(fen, cycle)[side::2])
                 for side in (0, 1)]
    expected = None if attacking[0] == attacking[1] else attacking.index(True)
    assert expected == loser


def test_chase_test_matches_the_judge_on_random_positions():
    """Every legal move of random positions with one or two attackers a side, mate threats
    (杀) included."""
    rng = random.Random(18)
    compared = threats = 0
    materials = ["KRkn", "KRkr", "KNkn", "KRkc", "KPkp", "KRAkna", "KRNkr", "KCAkn"]
    for fen in _random_positions(rng, materials, 80):
        board = Board(fen)
        for move in board.legal_moves:
            judged = classify_move(board, move, "chinese")
            threats += judged.kind is Kind.MATE_THREAT
            compared += 1
            assert attack_of(board, move.from_square, move.to_square) == \
                judge_bits(fen, [move.iccs()])[0], (fen, move.iccs(), str(judged))
    assert compared > 500 and threats > 0


def _random_positions(rng: random.Random, materials: list[str], count: int) -> list[str]:
    """``count`` legal positions, each of a random one of ``materials`` (Red's letters, then
    Black's in lower case), kings in their palaces, the other pieces anywhere."""
    found: list[str] = []
    while len(found) < count:
        letters = rng.choice(materials)
        squares = rng.sample(range(90), len(letters))
        squares[letters.index("K")] = rng.choice([3, 4, 5, 12, 13, 14, 21, 22, 23])
        squares[letters.index("k")] = rng.choice([66, 67, 68, 75, 76, 77, 84, 85, 86])
        if len(set(squares)) < len(squares):
            continue
        grid = dict(zip(squares, letters))
        rows = []
        for rank in range(9, -1, -1):
            row, empty = "", 0
            for file in range(9):
                piece = grid.get(rank * 9 + file)
                if piece is None:
                    empty += 1
                    continue
                row += (str(empty) if empty else "") + piece
                empty = 0
            rows.append(row + (str(empty) if empty else ""))
        fen = "/".join(rows) + " " + rng.choice("wb") + " - - 0 1"
        try:
            board = Board(fen)
        except ValueError:
            continue
        board.turn_code ^= 1
        opponent_in_check = board.is_check()
        board.turn_code ^= 1
        if not opponent_in_check and any(True for _ in board.legal_moves):
            found.append(fen)
    return found


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    """KPKP built under the default rules and under the Chinese rules (two seconds each)."""
    directory = tmp_path_factory.mktemp("chase_tables")
    build("KPKP", directory, log=lambda line: None)
    build("KPKP", directory, log=lambda line: None, rules="chinese")
    return directory


def test_chinese_tables_have_their_own_files_and_header(tables):
    chinese = rules_directory(tables, "chinese")
    header = read_header(table_path(chinese, "KPKP"))
    assert header.rules["rule_set_name"] == "chinese"
    assert "rule_set_name" not in read_header(table_path(tables, "KPKP")).rules
    # One-sided sub-tables are the same under every rule set: links to the shared files.
    assert table_path(chinese, "KPK").is_symlink()
    assert table_path(chinese, "KPK").resolve() == table_path(tables, "KPK").resolve()


def test_probing_says_which_rule_set_answered(tables):
    board = Board("3k5/9/9/9/4p4/4P4/9/9/9/5K3 w - - 0 1")
    with Tablebase(rules_directory(tables, "chinese")) as chinese, Tablebase(tables) as plain:
        assert chinese.probe(board).rule_set == "chinese"
        assert plain.probe(board).rule_set is None
        assert chinese.probe(board).wdl == plain.probe(board).wdl


def test_verify_re_derives_the_rule_rounds(tables):
    result = verify_file("KPKP", tables, rules="chinese")
    assert result == {"dtm": 0, "dtc": 0, "dtc60": 0, "chase marks": 0, "rule rounds": 0}


def test_the_command_line_takes_the_rule_set(tables, capsys):
    fen = "3k5/9/9/9/4p4/4P4/9/9/9/5K3 w - - 0 1"
    assert main(["tb", "probe", fen, "--rules", "chinese", "--tables", str(tables),
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["value"]["rule_set"] == "chinese"
    assert main(["tb", "verify", "KPKP", "--rules", "chinese", "--tables", str(tables),
                 "--json"]) == 0
    verified = json.loads(capsys.readouterr().out)
    assert verified["ok"] and verified["mismatches"]["rule rounds"] == 0
    # A cluster build of a rule set's tables is not there yet: a usage error, not a default.
    assert main(["tb", "build", "KPKP", "--rules", "chinese", "--workers", "2", "--tables",
                 str(tables)]) == 2
    assert "--rules cannot be combined" in capsys.readouterr().err


def test_incremental_rule_rounds_equal_a_fresh_search(tmp_path):
    """A build's later rounds test again only the positions whose successors changed
    (RuleRounds); on KRKN's values before and after its perpetual-check round, the searches
    kept from round to round find the same sets as fresh searches, testing fewer positions."""
    from tablebases._builder import RuleRounds, perpetual_check_sets, retrograde
    from tablebases._chase import AttackRules
    from tablebases.build import _load_sub_tables, _sub_specs, _zeroed_rules
    from tablebases.format import TableFile
    from tablebases.material import Material, indexer_for

    build("KRKN", tmp_path, log=lambda line: None)
    material = Material.parse("KRKN")
    indexer = indexer_for(material)
    subs = _sub_specs(material, _load_sub_tables(material, tmp_path, ("dtm",)), "dtm")
    table = TableFile(table_path(tmp_path, "KRKN"))
    final = [table.load_codes("dtm", 0), table.load_codes("dtm", 1)]
    table.close()
    first = [memoryview(bytearray(2 * indexer.size)).cast("H") for _ in range(2)]
    retrograde(indexer, first[0], first[1], subs)      # before any rule round
    rounds = RuleRounds(indexer)
    for attacks in (AttackRules.RULES_CHECK, AttackRules.RULES_CHINESE):
        perpetual_check_sets(indexer, *first, subs, *_zeroed_rules(indexer.size),
                             attacks=attacks, cache=rounds)
    full = rounds.examined_total
    for attacks in (AttackRules.RULES_CHECK, AttackRules.RULES_CHINESE):
        kept, fresh = _zeroed_rules(indexer.size), _zeroed_rules(indexer.size)
        found = perpetual_check_sets(indexer, *final, subs, *kept, attacks=attacks,
                                     cache=rounds)
        assert found == perpetual_check_sets(indexer, *final, subs, *fresh, attacks=attacks)
        assert [bytes(bits) for bits in kept] == [bytes(bits) for bits in fresh]
    assert rounds.full_scans == 2
    assert 0 < rounds.examined_total - full < full
