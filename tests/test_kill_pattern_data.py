"""The kill-pattern source data (puzzles/data/kill_patterns.toml and kill_pattern_examples.tsv):
well-formed, and every example is a forced mate of exactly the stated length, whose stored
solution replays legally to mate."""
import csv
import tomllib
from collections import Counter
from pathlib import Path

import pytest

from solver import Limits, solve
from xiangqi import Board, Move
from xiangqi.pieces import RED

DATA = Path(__file__).resolve().parent.parent / "puzzles" / "data"
PATTERN_KEYS = ("id", "name_zh", "aliases_zh", "name_en", "description_zh", "description_en",
                "pieces", "tags")
EXAMPLE_COLUMNS = ["pattern_id", "fen", "stipulation", "moves", "solution_iccs", "source", "note"]
STIPULATION_MODES = {"checks": "checks", "win": "any"}
MAX_MOVES = 8          # every example is short: the solver bound stays small


def load_patterns():
    with (DATA / "kill_patterns.toml").open("rb") as handle:
        return tomllib.load(handle)["pattern"]


def load_examples():
    with (DATA / "kill_pattern_examples.tsv").open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        assert reader.fieldnames == EXAMPLE_COLUMNS
        return list(reader)


PATTERNS = load_patterns()
EXAMPLES = load_examples()


def example_ids():
    seen = Counter()
    ids = []
    for row in EXAMPLES:
        seen[row["pattern_id"]] += 1
        ids.append(f"{row['pattern_id']}-{seen[row['pattern_id']]}")
    return ids


def test_patterns_are_complete_and_unique():
    ids = [pattern["id"] for pattern in PATTERNS]
    assert len(ids) == len(set(ids)), [i for i, n in Counter(ids).items() if n > 1]
    names = [pattern["name_zh"] for pattern in PATTERNS]
    assert len(names) == len(set(names))
    for pattern in PATTERNS:
        assert set(pattern) == set(PATTERN_KEYS), pattern["id"]
        assert pattern["id"].isascii() and pattern["id"] == pattern["id"].lower()
        for key in ("name_zh", "name_en", "description_zh", "description_en"):
            assert isinstance(pattern[key], str) and pattern[key].strip(), (pattern["id"], key)
        for key in ("aliases_zh", "pieces", "tags"):
            assert isinstance(pattern[key], list), (pattern["id"], key)
        assert pattern["pieces"] and set(pattern["pieces"]) <= set("KABNRCP"), pattern["id"]
        assert pattern["tags"], pattern["id"]
        assert pattern["name_zh"] not in pattern["aliases_zh"], pattern["id"]


def test_every_pattern_has_two_examples_and_every_example_a_pattern():
    counts = Counter(row["pattern_id"] for row in EXAMPLES)
    known = {pattern["id"] for pattern in PATTERNS}
    assert set(counts) <= known, set(counts) - known
    assert {pattern_id: counts[pattern_id] for pattern_id in known if counts[pattern_id] < 2} == {}


@pytest.mark.parametrize("row", EXAMPLES, ids=example_ids())
def test_example(row):
    assert row["stipulation"] in STIPULATION_MODES
    assert row["source"].strip()
    moves = int(row["moves"])
    assert 1 <= moves <= MAX_MOVES
    board = Board(row["fen"])                       # raises for an illegal position
    assert board.turn == RED, "Red must be to move"

    # The stored solution replays legally to mate, checking at every Red move if required.
    line = [Move.from_iccs(text) for text in row["solution_iccs"].split()]
    assert len(line) == 2 * moves - 1
    replay = board.copy()
    for ply, move in enumerate(line):
        assert replay.is_legal(move), (ply + 1, move.iccs())
        if ply % 2 == 0 and row["stipulation"] == "checks":
            assert replay.gives_check(move), (ply + 1, move.iccs())
        replay.push(move)
    assert replay.is_checkmate() or replay.is_stalemate()

    # The solver proves the stated length is the shortest forced mate.
    result = solve(board, mode=STIPULATION_MODES[row["stipulation"]], max_moves=moves,
                   limits=Limits(seconds=10))
    assert result.verdict == "mate" and getattr(result, "exact", True)
    assert result.length == moves
