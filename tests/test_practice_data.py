"""The shipped practice positions (puzzles/data/practice_positions.tsv, issue 42): every line
replays to mate in its moves and shows the patterns it says (the recogniser run again); a
fixed sample is proved again by the solver: an exact mate with one key."""
from __future__ import annotations

import random

import pytest

from puzzles.generate import PRACTICE_FILE, check_candidate, read_practice
from puzzles.paths import DATA_DIR
from puzzles.patterns import recognise
from xiangqi import Board, Move

ROWS = read_practice(DATA_DIR / PRACTICE_FILE)


def test_the_file_is_shipped_whole() -> None:
    text = (DATA_DIR / PRACTICE_FILE).read_text(encoding="utf-8")
    assert len(ROWS) == len(text.splitlines()) - 1      # no row cut short or malformed
    assert len({row["fen"] for row in ROWS}) == len(ROWS)
    assert len({row["source"] for row in ROWS}) == len(ROWS)


def test_every_line_mates_and_shows_its_patterns() -> None:
    for row in ROWS:
        board = Board(row["fen"])
        moves = row["solution_iccs"].split()
        shows = tuple(match.pattern_id for match in recognise(board, moves))
        assert shows == tuple(row["shows"].split()), row["fen"]
        assert row["pattern_id"] in shows
        end = board.copy(stack=False)
        for text in moves:
            end.push(Move.from_iccs(text))
        assert not end.has_legal_move() and len(moves) == 2 * int(row["moves"]) - 1


@pytest.mark.parametrize("row", random.Random(42).sample(ROWS, min(6, len(ROWS))),
                         ids=lambda row: row["source"])
def test_a_sample_is_proved_again(row) -> None:
    position = check_candidate(Board(row["fen"]), row["pattern_id"])
    assert position is not None
    assert (position.moves, position.stipulation, position.solution_iccs) == \
        (int(row["moves"]), row["stipulation"], row["solution_iccs"])
