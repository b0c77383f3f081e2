"""Repetition rules: moves classified per second (将/杀/捉/闲, ``xiangqi.rules.classify_move``)
and cycles judged per second (``adjudicate``).

Every legal move of the positions of ``bench_legal_moves`` is classified; a 4-move chase
cycle played twice is judged repeatedly.  The TUI classifies each move a user plays, so the
figure to watch is the per-move time on busy middlegame positions.
"""
import time

from bench_legal_moves import POSITIONS
from xiangqi import Board
from xiangqi.rules import adjudicate, classify_move

CYCLE_FEN = "4k4/9/R1n6/9/9/9/9/9/9/3K5 w"
CYCLE = ["a7a9", "e9e8", "a9a7", "e8e9"]


def run(seconds: float = 2.0) -> None:
    boards = [Board(fen) for fen in POSITIONS]
    classified = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for board in boards:
            for move in board.legal_moves:
                classify_move(board, move)
                classified += 1
    elapsed = time.perf_counter() - start
    print(f"classify_move: {classified / elapsed:,.0f} moves/s "
          f"({elapsed / classified * 1e3:.3f} ms a move, {len(POSITIONS)} positions)")

    game = Board(CYCLE_FEN)
    for text in CYCLE * 2:
        game.push_iccs(text)
    judged = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds / 2:
        adjudicate(game)
        judged += 1
    elapsed = time.perf_counter() - start
    print(f"adjudicate: {judged / elapsed:,.0f} cycles/s (8 plies of history, 4-move cycle)")


if __name__ == "__main__":
    run()
