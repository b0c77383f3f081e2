"""Python API speed: legal-move lists per second through ``Board.legal_moves``.

A fixed set of middlegame and endgame positions; each iteration reads ``board.legal_moves``
of every position once.
"""
import time

from xiangqi import Board

POSITIONS = [
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
    "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
    "1cbak4/9/n2a5/2p1p3p/5cp2/2n2N3/6PCP/3AB4/2C6/3A1K1N1 w - - 0 1",
    "4rk3/3P5/4bP3/9/9/8P/9/1p2p2C1/3p1p3/4K1RR1 w - - 0 1",
    "3ak4/9/4b4/9/9/9/9/4B4/4A4/3AK1R2 w - - 0 1",
    "9/3k5/3aP4/9/9/9/9/9/9/4K4 w - - 0 1",
    "4k4/9/4b4/9/9/2N6/9/9/4A4/4K4 b - - 0 1",
    "2bak4/4a4/4b4/9/9/9/9/9/4C4/3K5 w - - 0 1",
]


def run(seconds: float = 2.0) -> None:
    boards = [Board(fen) for fen in POSITIONS]
    lists = moves = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for board in boards:
            moves += len(board.legal_moves)
        lists += len(boards)
    elapsed = time.perf_counter() - start
    print(f"Board.legal_moves: {lists / elapsed:,.0f} lists/s "
          f"({moves / elapsed / 1e6:.2f} M moves/s, {len(POSITIONS)} positions)")


if __name__ == "__main__":
    run()
