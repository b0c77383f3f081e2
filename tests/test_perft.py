"""Perft counts: the start position and every reference line up to depth 4."""
import csv
from pathlib import Path

import pytest

from xiangqi import STARTING_FEN, Board

PERFT_FILE = Path(__file__).parent / "data" / "perft.tsv"


def reference_lines(max_depth):
    with PERFT_FILE.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return [(r["fen"], int(r["depth"]), int(r["nodes"]), r["note"])
            for r in rows if int(r["depth"]) <= max_depth]


@pytest.mark.parametrize("depth,nodes", [(1, 44), (2, 1920), (3, 79666), (4, 3290240)])
def test_start_position(depth, nodes):
    assert Board(STARTING_FEN).perft(depth) == nodes


@pytest.mark.parametrize("fen,depth,nodes,note", reference_lines(4),
                         ids=[line[3] for line in reference_lines(4)])
def test_reference_positions(fen, depth, nodes, note):
    assert Board(fen).perft(depth) == nodes


def test_perft_leaves_board_unchanged():
    board = Board("r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1")
    before = (board.fen(), board.zobrist_key)
    board.perft(3)
    assert (board.fen(), board.zobrist_key) == before


def test_divide_sums_to_total():
    board = Board()
    divide = board.perft_divide(3)
    assert len(divide) == 44
    assert sum(count for _, count in divide) == 79666
