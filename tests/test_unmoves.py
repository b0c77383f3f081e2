"""Un-move generation (used by the retrograde builder) is the exact inverse of move generation."""
import random

from xiangqi import Board, Move

FENS = [
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
    "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
    "4rk3/3P5/4bP3/9/9/8P/9/1p2p2C1/3p1p3/4K1RR1 w - - 0 1",
    "3ak4/9/4b4/9/9/9/9/4B4/4A4/3AK1R2 w - - 0 1",
]


def positions(count=300, seed=7):
    rng = random.Random(seed)
    for i in range(count):
        board = Board(FENS[i % len(FENS)])
        for _ in range(rng.randrange(0, 40)):
            moves = board.legal_moves
            if not moves:
                break
            board.push_unchecked(rng.choice(moves))
        yield Board(board.fen())


def test_unmoves_invert_quiet_moves():
    checked = 0
    for board in positions():
        mover = board.turn ^ 1  # the side that just moved
        # Every un-move leads to a placement from which the piece moves back by a legal-shape move.
        for point, origin in board._unmoves(mover):
            before = board.copy(stack=False)
            before._set_code(origin, before._code_at(point))
            before._set_code(point, 0)
            before.turn_code = mover
            if before._king_attacked(mover ^ 1):
                continue  # illegal predecessor: the side to move could capture the king
            assert Move(origin, point) in before.pseudo_legal_moves, (board.fen(), origin, point)
            checked += 1
        # Every quiet move of the side to move is undone by an un-move from its result.
        for move in board.legal_moves:
            if board.is_capture(move):
                continue
            after = board.copy(stack=False)
            after.push_unchecked(move)
            assert (move.to_square, move.from_square) in after._unmoves(board.turn), \
                (board.fen(), move)
    assert checked > 5000


def test_check_prefilter_never_misses_a_check():
    checks = 0
    for board in positions(count=400, seed=19):
        for move in board.legal_moves:
            if board.gives_check(move):
                checks += 1
                assert board._may_give_check(move), (board.fen(), move)
    assert checks > 200
