"""Move generation, check and game end compared with Fairy-Stockfish (``pyffish``).

The corpus: seeded random playouts of varied lengths from the start position and from the
perft reference positions, plus random sparse endgame placements (both kings and 1..6 other
pieces, each on a point it can legally occupy).  For every position the legal move set must
equal Fairy-Stockfish's, and the check status and the result of positions without a legal
move must agree with it.  The engine's own invariants (push/pop restores the position, the
incremental Zobrist key equals the key computed from scratch) are checked on the same corpus.

Fairy-Stockfish writes UCI moves with ranks 1..10 (``a10a9``); ours are ICCS ranks 0..9
(``a9a8``).  Every pyffish call rebuilds its position and piece tables (about 2-3 ms), so the
pyffish answers are computed once per module, in a small pool of worker processes.
"""
from __future__ import annotations

import csv
import multiprocessing
import os
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

import pyffish as sf
import pytest

from xiangqi import (
    ADVISOR,
    BLACK,
    CANNON,
    ELEPHANT,
    HORSE,
    KING,
    PAWN,
    RED,
    ROOK,
    STARTING_FEN,
    Board,
    FenError,
    Move,
    Piece,
    Termination,
)
from xiangqi.fen import placement_fen
from xiangqi.pieces import MAX_PIECE_COUNT, legal_points, square_file, square_rank

VARIANT = "xiangqi"
PERFT_FILE = Path(__file__).parent / "data" / "perft.tsv"

START_PLAYOUTS = 36                 # playouts from the start position
REFERENCE_PLAYOUTS_EACH = 3         # playouts from each distinct perft reference position
PLAYOUT_LENGTHS = (2, 6, 15, 30, 60, 90, 130, 180, 250)
CHECK_BIAS = 0.3                    # chance a playout move is picked among checking moves
SPARSE_ATTEMPTS = 2000              # random placements tried (about 70% are legal)
CHECK_SAMPLE_EVERY = 50             # direct sf.gives_check on every n-th playout position
GAME_END_SAMPLE_EVERY = 200         # game-end queries on every n-th position with moves
FEN_COMPARE_EVERY = 25              # push/pop compared by full fen() on every n-th position
MIN_POSITIONS = 5000

_UCI = re.compile(r"([a-i])(10|[1-9])([a-i])(10|[1-9])")
_NON_KINGS = (ADVISOR, ELEPHANT, HORSE, ROOK, CANNON, PAWN)


# -- notation ---------------------------------------------------------------------------------

def uci_to_iccs(uci: str) -> str:
    """Fairy-Stockfish UCI (ranks 1..10) to ICCS (ranks 0..9): ``a10a9`` -> ``a9a8``."""
    match = _UCI.fullmatch(uci)
    assert match, f"unexpected pyffish move {uci!r}"
    f1, r1, f2, r2 = match.groups()
    return f"{f1}{int(r1) - 1}{f2}{int(r2) - 1}"


def iccs_to_uci(iccs: str) -> str:
    return f"{iccs[0]}{int(iccs[1]) + 1}{iccs[2]}{int(iccs[3]) + 1}"


def test_notation_conversion():
    assert uci_to_iccs("a10a9") == "a9a8"
    assert uci_to_iccs("h3e3") == "h2e2"
    assert iccs_to_uci("a9a8") == "a10a9"
    assert sorted(uci_to_iccs(m) for m in sf.legal_moves(VARIANT, STARTING_FEN, [])) == \
        sorted(m.iccs() for m in Board().legal_moves)


# -- corpus -------------------------------------------------------------------------------------

@dataclass
class Sample:
    fen: str
    origin: str
    ours: list[str]                 # legal moves of the board as reached (playout or fresh)
    ours_fresh: list[str]           # legal moves of Board(fen)
    in_check: bool
    outcome: object
    sparse: bool
    zobrist_key: int                # of Board(fen)
    one_between: bool               # kings on one file with a single piece between them
    facing_move: bool               # some pseudo-legal move would make the kings face


@dataclass
class Playout:
    start: str
    moves: list[str] = field(default_factory=list)         # ICCS
    checks: list[bool] = field(default_factory=list)       # is_check() after each move
    keys: list[tuple[int, int, str]] = field(default_factory=list)  # (incremental, fresh, fen)


@dataclass
class Corpus:
    samples: list[Sample]
    playouts: list[Playout]
    sparse_tried: int
    sparse_rejected: int
    pyffish_moves: list[list[str]] = field(default_factory=list)
    pyffish_checks: dict[int, bool] = field(default_factory=dict)     # sample index -> check
    pyffish_san: list[list[str]] = field(default_factory=list)        # per playout
    pyffish_results: dict[int, tuple] = field(default_factory=dict)   # sample index -> results


def _position_key(fen: str) -> str:
    """Placement and side to move: the identity of a position, clocks ignored."""
    return " ".join(fen.split()[:2])


def _reference_fens() -> list[str]:
    with PERFT_FILE.open(encoding="utf-8") as handle:
        fens = [row["fen"] for row in csv.DictReader(handle, delimiter="\t")]
    return sorted(set(fens) - {STARTING_FEN})


def _playout(start: str, seed: int, length: int) -> tuple[Playout, list[Board]]:
    """A seeded random game from ``start``; returns it and the board after each ply (copies,
    with their move stacks)."""
    rng = random.Random(seed)
    board = Board(start)
    playout = Playout(start)
    boards = [board.copy()]
    for _ in range(length):
        moves = board.legal_moves
        if not moves:
            break
        if rng.random() < CHECK_BIAS:
            moves = [m for m in moves if board.gives_check(m)] or moves
        move = rng.choice(moves)
        board.push(move)
        playout.moves.append(move.iccs())
        playout.checks.append(board.is_check())
        boards.append(board.copy())
    return playout, boards


def _sparse_fen(rng: random.Random) -> str:
    """Both kings and 1..6 random pieces, each on a point it can legally occupy.

    Half of the placements crowd the pieces around the king of the side to move, which makes
    checkmates and stalemates (困毙) much more frequent.
    """
    codes = [0] * 90
    for color in (RED, BLACK):
        codes[rng.choice(sorted(legal_points(Piece(KING, color))))] = Piece(KING, color).code
    turn = rng.choice((RED, BLACK))
    king = codes.index(Piece(KING, turn).code)
    crowd = rng.random() < 0.5
    counts: dict[Piece, int] = {}
    wanted = rng.randint(1, 6)
    while sum(counts.values()) < wanted:
        piece = Piece(rng.choice(_NON_KINGS), rng.choice((RED, BLACK)))
        if counts.get(piece, 0) >= MAX_PIECE_COUNT[piece.piece_type]:
            continue
        free = sorted(sq for sq in legal_points(piece) if not codes[sq])
        if crowd:
            free = [sq for sq in free if abs(square_rank(sq) - square_rank(king)) <= 2
                    and abs(square_file(sq) - square_file(king)) <= 2] or free
        codes[rng.choice(free)] = piece.code
        counts[piece] = counts.get(piece, 0) + 1
    return f"{placement_fen(codes)} {'wb'[turn]} - - 0 1"


def _kings_on_file_with_one_between(board: Board) -> bool:
    red, black = board.king(RED), board.king(BLACK)
    if square_file(red) != square_file(black):
        return False
    between = [sq for sq in range(red + 9, black, 9) if board.piece_at(sq) is not None]
    return len(between) == 1


def _has_move_into_facing_kings(board: Board) -> bool:
    """Some pseudo-legal move of the side to move would leave the kings facing each other."""
    if abs(square_file(board.king(RED)) - square_file(board.king(BLACK))) > 1:
        return False
    for move in board.pseudo_legal_moves:
        board.push_unchecked(move)
        facing = board.kings_facing()
        board.pop()
        if facing:
            return True
    return False


def build_corpus() -> Corpus:
    samples: list[Sample] = []
    seen: set[str] = set()
    playouts: list[Playout] = []

    def add(board: Board, fen: str, fresh: Board, origin: str, sparse: bool) -> None:
        key = _position_key(fen)
        if key in seen:
            return
        seen.add(key)
        samples.append(Sample(fen, origin, [m.iccs() for m in board.legal_moves],
                              [m.iccs() for m in fresh.legal_moves], board.is_check(),
                              board.outcome(), sparse, fresh.zobrist_key,
                              _kings_on_file_with_one_between(fresh),
                              _has_move_into_facing_kings(fresh)))

    starts = [STARTING_FEN] * START_PLAYOUTS
    for fen in _reference_fens():
        starts += [fen] * REFERENCE_PLAYOUTS_EACH
    for number, start in enumerate(starts):
        rng = random.Random(1000 + number)
        length = rng.choice(PLAYOUT_LENGTHS)
        playout, boards = _playout(start, 5000 + number, length)
        playouts.append(playout)
        for ply, board in enumerate(boards):
            fen = board.fen()
            fresh = Board(fen)
            if ply:
                playout.keys.append((board.zobrist_key, fresh.zobrist_key, fen))
            add(board, fen, fresh, f"playout {number} ply {ply}", sparse=False)

    rng = random.Random(20240917)
    rejected = 0
    for attempt in range(SPARSE_ATTEMPTS):
        fen = _sparse_fen(rng)
        try:
            board = Board(fen)
        except FenError:
            rejected += 1
            continue
        add(board, board.fen(), board, f"sparse {attempt}", sparse=True)
    return Corpus(samples, playouts, SPARSE_ATTEMPTS, rejected)


def _starmap(pool, function, arguments):
    if pool is None:
        return [function(*args) for args in arguments]
    return pool.starmap(function, arguments, chunksize=32)


def ask_pyffish(corpus: Corpus) -> None:
    """Fill in Fairy-Stockfish's answers, in worker processes when there are cores to spare."""
    samples = corpus.samples
    workers = min(4, os.cpu_count() or 1)
    pool = None
    if workers > 1:
        try:
            pool = multiprocessing.get_context("spawn").Pool(workers)
        except OSError:         # no semaphores in this sandbox: ask in this process
            pool = None
    try:
        corpus.pyffish_moves = _starmap(pool, sf.legal_moves,
                                        [(VARIANT, s.fen, []) for s in samples])
        # Game-end queries: positions without a legal move (by either engine) and a sample.
        ended = [i for i, s in enumerate(samples)
                 if not s.ours or not corpus.pyffish_moves[i] or i % GAME_END_SAMPLE_EVERY == 0]
        checked = sorted({i for i, s in enumerate(samples)
                          if s.sparse or i % CHECK_SAMPLE_EVERY == 0} | set(ended))
        checks = _starmap(pool, sf.gives_check, [(VARIANT, samples[i].fen, []) for i in checked])
        corpus.pyffish_checks = dict(zip(checked, checks))
        immediate = _starmap(pool, sf.is_immediate_game_end,
                             [(VARIANT, samples[i].fen, []) for i in ended])
        # game_result is only meaningful (and only called) without legal moves.
        no_moves = [i for i in ended if not corpus.pyffish_moves[i]]
        results = dict(zip(no_moves, _starmap(pool, sf.game_result,
                                              [(VARIANT, samples[i].fen, []) for i in no_moves])))
        corpus.pyffish_results = {i: (end, results.get(i)) for i, end in zip(ended, immediate)}
        corpus.pyffish_san = _starmap(
            pool, sf.get_san_moves,
            [(VARIANT, p.start, [iccs_to_uci(m) for m in p.moves]) for p in corpus.playouts])
    finally:
        if pool is not None:
            pool.close()
            pool.join()


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    corpus = build_corpus()
    ask_pyffish(corpus)
    return corpus


def _describe(sample: Sample) -> str:
    return f"{sample.fen}  [{sample.origin}]"


# -- the corpus is large and varied -------------------------------------------------------------

def test_corpus_covers_every_category(corpus):
    samples = corpus.samples
    counts = {
        "positions": len(samples),
        "sparse placements accepted": sum(s.sparse for s in samples),
        "sparse placements rejected by Board(fen)": corpus.sparse_rejected,
        "in check": sum(s.in_check for s in samples),
        "checkmate": sum(s.in_check and not s.ours for s in samples),
        "stalemate": sum(not s.in_check and not s.ours for s in samples),
        "kings on one file, one piece between": sum(s.one_between for s in samples),
        "a pseudo-legal move would face the kings": sum(s.facing_move for s in samples),
        "pyffish positions in check": sum(corpus.pyffish_checks.values()),
    }
    assert counts["positions"] >= MIN_POSITIONS, counts
    assert counts["sparse placements accepted"] >= 1000, counts
    assert counts["sparse placements rejected by Board(fen)"] > 0, counts
    assert counts["in check"] >= 200, counts
    assert counts["checkmate"] >= 10, counts
    assert counts["stalemate"] >= 2, counts
    assert counts["kings on one file, one piece between"] >= 50, counts
    assert counts["a pseudo-legal move would face the kings"] >= 50, counts
    assert counts["pyffish positions in check"] > 0, counts


def test_pyffish_accepts_our_fens(corpus):
    rejected = [s.fen for s in corpus.samples if sf.validate_fen(s.fen, VARIANT) != sf.FEN_OK]
    assert not rejected, f"{len(rejected)} of our FENs rejected by pyffish, e.g. {rejected[:5]}"


def test_pyffish_reads_only_w_for_red():
    """We also read ``r`` for Red to move (docs/notation.md); Fairy-Stockfish does not."""
    fen = STARTING_FEN.replace(" w ", " r ")
    assert Board(fen).fen() == STARTING_FEN
    assert sf.validate_fen(fen, VARIANT) != sf.FEN_OK


# -- comparisons with Fairy-Stockfish ----------------------------------------------------------

def test_legal_moves_match_pyffish(corpus):
    mismatches = []
    for sample, theirs_uci in zip(corpus.samples, corpus.pyffish_moves):
        ours = set(sample.ours)
        theirs = {uci_to_iccs(m) for m in theirs_uci}
        assert len(sample.ours) == len(ours), f"duplicate moves in {_describe(sample)}"
        assert len(theirs_uci) == len(theirs)
        if ours != theirs:
            mismatches.append(f"{_describe(sample)}\n    only ours: {sorted(ours - theirs)}"
                              f"\n    only pyffish: {sorted(theirs - ours)}")
    assert not mismatches, (f"{len(mismatches)} of {len(corpus.samples)} positions differ:\n"
                            + "\n".join(mismatches[:10]))


def test_reached_and_fresh_boards_agree(corpus):
    """A board reached by moves (incremental piece lists) generates what Board(fen) does."""
    for sample in corpus.samples:
        assert set(sample.ours) == set(sample.ours_fresh), _describe(sample)


def test_is_check_matches_pyffish_gives_check(corpus):
    # Every sparse placement, every position without moves and a sample of playout positions
    # (every playout position is also compared through pyffish's SAN, below).
    assert len(corpus.pyffish_checks) >= sum(s.sparse for s in corpus.samples) + 50
    wrong = [f"{_describe(corpus.samples[i])}: ours {corpus.samples[i].in_check}, pyffish {check}"
             for i, check in corpus.pyffish_checks.items()
             if corpus.samples[i].in_check != check]
    assert not wrong, "\n".join(wrong[:10])


def test_check_after_every_playout_move_matches_pyffish_san(corpus):
    """Fairy-Stockfish's SAN marks every checking move with + (# for mate)."""
    for playout, san in zip(corpus.playouts, corpus.pyffish_san):
        assert len(san) == len(playout.moves)
        for ply, (move, ours, text) in enumerate(zip(playout.moves, playout.checks, san), 1):
            theirs = text.endswith(("+", "#"))
            assert ours == theirs, (f"check after {move} (ply {ply}) from {playout.start} "
                                    f"after {' '.join(playout.moves[:ply])}: ours {ours}, "
                                    f"pyffish SAN {text!r}")


def test_game_end_matches_pyffish(corpus):
    terminal = 0
    for i, (immediate, result) in corpus.pyffish_results.items():
        sample = corpus.samples[i]
        where = _describe(sample)
        # Xiangqi has no variant-specific immediate end (no material or flag rule); the
        # value is only meaningful when the flag is set.
        assert immediate[0] is False, f"{where}: is_immediate_game_end {immediate}"
        if sample.ours:
            assert sample.outcome is None, where
            continue
        terminal += 1
        turn = RED if sample.fen.split()[1] == "w" else BLACK
        # No legal move loses for the side to move, checkmate or stalemate (困毙) alike.
        assert result == -sf.VALUE_MATE, f"{where}: pyffish game_result {result}"
        assert sample.outcome is not None and sample.outcome.winner == turn ^ 1, where
        expected = Termination.CHECKMATE if corpus.pyffish_checks[i] else Termination.STALEMATE
        assert sample.outcome.termination == expected, where
    assert terminal >= 12


# -- engine invariants on the same corpus --------------------------------------------------------

def _snapshot(board: Board):
    return (board._codes(), board.turn, board.halfmove_clock, board.fullmove_number,
            board.zobrist_key, board.ply_count)


def test_push_pop_restores_position(corpus):
    for index, sample in enumerate(corpus.samples):
        board = Board(sample.fen)
        before = _snapshot(board)
        compare_fen = index % FEN_COMPARE_EVERY == 0
        for iccs in sample.ours:
            move = Move.from_iccs(iccs)
            if compare_fen:
                board.push(move)            # checks legality first
            else:
                board.push_unchecked(move)
            if compare_fen and iccs == sample.ours[0]:
                assert board.zobrist_key == Board(board.fen()).zobrist_key, \
                    f"{_describe(sample)} after {iccs}"
            assert board.pop() == move
            assert _snapshot(board) == before, f"{_describe(sample)}: push/pop {iccs}"
            if compare_fen:
                assert board.fen() == sample.fen, f"{_describe(sample)}: push/pop {iccs}"


def test_incremental_zobrist_key_equals_fresh_key(corpus):
    checked = 0
    for playout in corpus.playouts:
        for incremental, fresh, fen in playout.keys:
            assert incremental == fresh, f"{fen} reached from {playout.start}"
            checked += 1
    assert checked >= 3000


def test_zobrist_keys_distinguish_positions(corpus):
    keys = {}
    for sample in corpus.samples:
        other = keys.setdefault(sample.zobrist_key, sample.fen)
        assert _position_key(other) == _position_key(sample.fen), (other, sample.fen)
