"""Practice positions for the kill patterns (issue 42, item 2): mined from the compositions'
main lines and built at random around a king, each kept only when it is a sound short problem
that shows the pattern.

A candidate is kept when the solver proves a forced mate of 1-:data:`MAX_PRACTICE_MOVES` moves
(by continuous checks if there is one that short, else with quiet moves), exactly (no shorter
mate), with a unique first move (no cook: :func:`solver.soundness.verify`), a main line of
the longest defence that ends in mate, and the recogniser (:mod:`puzzles.patterns`) finds the
wanted pattern in that line.  The searches have node budgets, so what is kept does not depend
on the machine's speed or load: the same seed gives the same positions.

Candidates:

* mined: every position of a composition's main line, the attacker to move, from which the
  line's mate is at most :data:`MAX_PRACTICE_MOVES` moves away (a composition's last moves
  are the classic pictures);
* built: around a king, the pattern's pieces and defenders placed at random.  Where the
  pattern has pictures (positions known to show it: the catalogue's examples and practice
  positions), a candidate takes the attacking pieces of one picture as they stand, and places
  the defenders anew: the king kept, each other defender kept or dropped, up to
  :data:`ADDED_DEFENDERS` pieces added on random points, the attacker's king moved in his
  palace.  Without pictures, the pattern's pieces (its ``pieces`` in ``kill_patterns.toml``)
  go at random in the defender's half near his palace, against a king in his palace with 0-2
  advisors and 0-2 elephants on their points.  A candidate the rules forbid (a side in check
  that is not to move, kings facing) is skipped; one whose main line is a known position's
  (the same problem with a bystander changed) is not kept.

The random pictures-free placement keeps almost nothing for the rarer patterns (双车胁士:
no position in 1,400 candidates), hence the pictures.
"""
from __future__ import annotations

import csv
import os
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from solver import Limits, solve
from solver.soundness import verify
from xiangqi import Board, FenError, Move
from xiangqi.fen import validate_placement
from xiangqi.pieces import (
    ADVISOR,
    ADVISOR_POINTS,
    ELEPHANT,
    ELEPHANT_POINTS,
    KING,
    PALACE,
    RED,
    Color,
    Piece,
    legal_points,
)

from .patterns import depth, recognise

MAX_PRACTICE_MOVES: Final = 7
# Node budgets of a candidate's searches: the mate search, then the soundness check (every
# first move searched again).  A candidate that needs more is not a practice position.
FIND_NODES: Final = 200_000
VERIFY_NODES: Final = 1_000_000
# Built candidates: the attacking pieces stand within this many ranks of the defender's back
# rank (his palace and the two ranks in front of it, where the pictures are made).
NEAR_RANKS: Final = 5
# Built from a picture: at most this many defending pieces added at random.
ADDED_DEFENDERS: Final = 3
# The defenders added are drawn from these (rooks and horses make the defence active, pawns
# and the guards block).
DEFENDER_LETTERS: Final = "RNCPAB"


@dataclass(frozen=True)
class PracticePosition:
    """A kept candidate: the position, its stipulation ("checks" when a continuous-check mate
    is as short as any), its length in attacker moves, the main line (ICCS), the patterns the
    line shows (ids), and where it came from."""
    fen: str
    stipulation: str
    moves: int
    solution_iccs: str
    shows: tuple[str, ...]
    source: str


def check_candidate(board: Board, wanted: str | None = None,
                    max_moves: int = MAX_PRACTICE_MOVES, source: str = "",
                    find_nodes: int = FIND_NODES,
                    verify_nodes: int = VERIFY_NODES) -> PracticePosition | None:
    """``board`` as a practice position, or None if it is not one: a forced mate within
    ``max_moves`` proven exactly, with a unique key, a main line that ends in mate, showing
    ``wanted`` (a pattern id; None: any pattern)."""
    if not board.has_legal_move():
        return None
    found = solve(board, mode="any", max_moves=max_moves, limits=Limits(nodes=find_nodes))
    if str(found.verdict) != "mate" or not found.exact or found.length is None:
        return None
    length = found.length
    stipulation = "win"
    checks = solve(board, mode="checks", max_moves=length, limits=Limits(nodes=find_nodes))
    if str(checks.verdict) == "mate" and checks.length == length:
        stipulation = "checks"
    report = verify(board, stipulation, moves=length, limits=Limits(nodes=verify_nodes),
                    refutation=False)
    if not report.sound or not report.exact or not report.line_complete or \
            report.length != length:
        return None
    line = [move.iccs() for move in report.main_line]
    shows = tuple(match.pattern_id for match in recognise(board, line))
    if not shows or (wanted is not None and wanted not in shows):
        return None
    return PracticePosition(board.fen(), stipulation, length, " ".join(line), shows, source)


def mined_candidates(compositions: Iterable[tuple[str, str, str]],
                     max_moves: int = MAX_PRACTICE_MOVES) -> Iterator[tuple[Board, str]]:
    """(position, source) for every position of the main lines, the attacker to move, whose
    line's mate is at most ``max_moves`` away.  ``compositions``: (reference, FEN, main line
    in ICCS) with the line ending in mate."""
    for reference, fen, line in compositions:
        moves = line.split()
        board = Board(fen)
        for ply, text in enumerate(moves):
            left = (len(moves) - ply + 1) // 2
            if ply % 2 == 0 and left <= max_moves:
                yield board.copy(stack=False), f"{reference} ply {ply}"
            try:
                board.push(Move.from_iccs(text))
            except ValueError:
                break


def _random_point(rng: random.Random, points: Iterable[int], taken: set[int]) -> int | None:
    free = sorted(set(points) - taken)
    return rng.choice(free) if free else None


def built_candidate(rng: random.Random, pieces: list[str],
                    attacker: Color = RED) -> Board | None:
    """One random position with ``pieces`` (FEN letters of the attacker's pieces besides his
    king, as a pattern lists them) near the defender's palace, or None when the drawn
    placement is not a legal position."""
    defender = 1 - attacker
    taken: set[int] = set()
    placed: dict[int, Piece] = {}

    def put(piece: Piece, points: Iterable[int]) -> bool:
        point = _random_point(rng, points, taken)
        if point is None:
            return False
        taken.add(point)
        placed[point] = piece
        return True

    put(Piece(KING, defender), PALACE[defender])
    put(Piece(KING, attacker), PALACE[attacker])
    for _ in range(rng.randint(0, 2)):
        put(Piece(ADVISOR, defender), ADVISOR_POINTS[defender])
    for _ in range(rng.randint(0, 2)):
        put(Piece(ELEPHANT, defender), ELEPHANT_POINTS[defender])
    for letter in pieces:
        if letter.upper() == "K":
            continue                            # the king is there already
        piece = Piece.from_symbol(letter.upper() if attacker == RED else letter.lower())
        near = [sq for sq in legal_points(piece) if depth(sq, defender) < NEAR_RANKS]
        if not put(piece, near):
            return None
    return _legal_position(placed, attacker)


def varied_candidate(rng: random.Random, picture: Board) -> Board | None:
    """A position with the attacking pieces of ``picture`` (the side to move's) where they
    stand, its king moved at random in the palace, the defender's king kept, each other
    defender kept or dropped at random, and up to :data:`ADDED_DEFENDERS` defenders added on
    random legal points; None when the drawn placement is not a legal position."""
    attacker = picture.turn
    defender = 1 - attacker
    placed = {point: piece for point, piece in picture.piece_map().items()
              if piece.color == attacker and piece.piece_type != KING}
    for point, piece in picture.piece_map().items():
        if piece.color == defender and (piece.piece_type == KING or rng.random() < 0.5):
            placed[point] = piece
    taken = set(placed)
    king = _random_point(rng, PALACE[attacker], taken)
    if king is None:
        return None
    placed[king] = Piece(KING, attacker)
    taken.add(king)
    for _ in range(rng.randint(0, ADDED_DEFENDERS)):
        letter = rng.choice(DEFENDER_LETTERS)
        piece = Piece.from_symbol(letter.lower() if defender != RED else letter)
        free = _random_point(rng, legal_points(piece), taken)
        if free is not None:
            placed[free] = piece
            taken.add(free)
    return _legal_position(placed, attacker)


def _legal_position(placed: dict[int, Piece], attacker: Color) -> Board | None:
    """The position of the pieces ``placed``, ``attacker`` to move, or None when the rules
    forbid it: too many pieces of a kind (a third elephant drawn), the side not to move in
    check, the kings facing."""
    codes = [0] * 90
    for point, piece in placed.items():
        codes[point] = piece.code
    try:
        validate_placement(codes)
    except FenError:
        return None
    board = Board.from_codes(codes, turn=attacker)
    if board._king_attacked(1 - attacker) or board.kings_facing():
        return None
    return board


def built_candidates(pattern_pieces: list[str], seed: int, start: int = 0,
                     pictures: Sequence[Board] = ()) -> Iterator[tuple[int, Board | None]]:
    """(index, candidate or None) from ``start`` on: candidate ``i`` of a seed is always the
    same position (given the same pictures), so a run can be taken up where it stopped."""
    index = start
    while True:
        rng = random.Random(f"{seed}:{index}:{' '.join(pattern_pieces)}")
        if pictures:
            yield index, varied_candidate(rng, rng.choice(pictures))
        else:
            yield index, built_candidate(rng, pattern_pieces)
        index += 1


def generate(pattern_id: str, pattern_pieces: list[str], count: int, seed: int,
             start: int = 0, attempts: int = 100_000,
             progress: Callable[[int, int, PracticePosition | None], None] | None = None,
             pictures: Sequence[Board] = (), known_lines: Iterable[str] = ()
             ) -> Iterator[tuple[int, PracticePosition]]:
    """Built practice positions of one pattern: (candidate index, position), until ``count``
    are kept or ``attempts`` candidates were drawn.  ``pictures``: positions known to show
    the pattern, to build from (see the module's docstring); a position whose main line is
    one of ``known_lines`` (ICCS) or of one kept before is not kept.  ``progress(index,
    kept, position)`` is called after each candidate."""
    kept = 0
    seen = set(known_lines)
    for index, board in built_candidates(pattern_pieces, seed, start, pictures):
        if kept >= count or index - start >= attempts:
            return
        position = None
        if board is not None:
            position = check_candidate(board, pattern_id,
                                       source=f"{seed_prefix(pattern_id, seed)}{index}")
        if position is not None and position.solution_iccs in seen:
            position = None
        if position is not None:
            seen.add(position.solution_iccs)
            kept += 1
            yield index, position
        if progress is not None:
            progress(index, kept, position)



def mine(compositions: Iterable[tuple[str, str, str]], pattern_id: str | None, count: int,
         start: int = 0, attempts: int = 100_000,
         progress: Callable[[int, int, PracticePosition | None], None] | None = None
         ) -> Iterator[tuple[int, PracticePosition]]:
    """Practice positions mined from the compositions' main lines (:func:`mined_candidates`,
    in their order): (candidate index, position) from ``start`` on, showing ``pattern_id``
    (None: any pattern), until ``count`` are kept or ``attempts`` candidates were looked at."""
    kept = 0
    for index, (board, where) in enumerate(mined_candidates(compositions)):
        if index < start:
            continue
        if kept >= count or index - start >= attempts:
            return
        position = check_candidate(board, pattern_id, source=f"{MINED_PREFIX}{index} {where}")
        if position is not None:
            kept += 1
            yield index, position
        if progress is not None:
            progress(index, kept, position)


# -- the practice file: the shipped positions, and what ``catalogue generate --output`` writes

PRACTICE_FILE: Final = "practice_positions.tsv"
PRACTICE_COLUMNS: Final = ("pattern_id", "fen", "stipulation", "moves", "solution_iccs", "shows",
                           "source")


def practice_row(pattern_id: str, position: PracticePosition) -> dict[str, str]:
    return {"pattern_id": pattern_id, "fen": position.fen, "stipulation": position.stipulation,
            "moves": str(position.moves), "solution_iccs": position.solution_iccs,
            "shows": " ".join(position.shows), "source": position.source}


def balanced_labels(rows: Sequence[dict[str, str]], target: int = 50) -> list[dict[str, str]]:
    """``rows`` (of a practice file) with each position's ``pattern_id`` chosen among the
    patterns its line shows so that as many patterns as can have ``target`` positions to
    practise: the patterns are served rarest first (fewest positions showing them), each
    taking up to ``target`` positions not yet taken, its own first, then those that show
    fewest patterns.  A position no pattern took keeps its label, if its line shows it (else
    takes the first pattern it shows).  The order of the rows is kept.

    >>> rows = [{"pattern_id": "a", "shows": "a b"}, {"pattern_id": "a", "shows": "a"},
    ...         {"pattern_id": "a", "shows": "a b"}]
    >>> [r["pattern_id"] for r in balanced_labels(rows, target=2)]
    ['b', 'a', 'b']
    """
    showing: dict[str, list[int]] = {}
    for index, row in enumerate(rows):
        for pattern in row["shows"].split():
            showing.setdefault(pattern, []).append(index)
    labels: dict[int, str] = {}
    for pattern in sorted(showing, key=lambda p: (len(showing[p]), p)):
        free = [i for i in showing[pattern] if i not in labels]
        free.sort(key=lambda i: (rows[i]["pattern_id"] != pattern, len(rows[i]["shows"].split()),
                                 i))
        for index in free[:target]:
            labels[index] = pattern
    return [{**row, "pattern_id": labels.get(index, _own_or_first(row))}
            for index, row in enumerate(rows)]


def _own_or_first(row: dict[str, str]) -> str:
    """A row's label if its line shows it, else the first pattern its line shows."""
    shows = row["shows"].split()
    return row["pattern_id"] if row["pattern_id"] in shows else shows[0]


def read_practice(path: Path) -> list[dict[str, str]]:
    """The rows of a practice file (none if it does not exist); a row cut short by a stopped
    run is left out."""
    if not path.exists():
        return []
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return [row for row in rows if all(row.get(c) not in (None, "") for c in PRACTICE_COLUMNS)]


def append_practice(path: Path, rows: list[dict[str, str]]) -> None:
    """``rows`` at the end of the practice file (its header first if new), synced to disk:
    one batch at a time, so a stopped run loses at most the batch it was making."""
    new = not path.exists()
    with path.open("a", encoding="utf-8", newline="") as handle:
        if new:
            handle.write("\t".join(PRACTICE_COLUMNS) + "\n")
        for row in rows:
            handle.write("\t".join(row[c] for c in PRACTICE_COLUMNS) + "\n")
        handle.flush()
        os.fsync(handle.fileno())


def seed_prefix(pattern_id: str, seed: int) -> str:
    """How the sources of the positions built for a pattern with a seed begin (``generated
    double-cannon seed S #I``): each pattern draws its own candidates."""
    return f"generated {pattern_id} seed {seed} #"


MINED_PREFIX: Final = "mined #"
"""How the sources of mined positions begin (``mined #I 适情雅趣:7 ply 12``)."""


def next_candidate(sources: Iterable[str], prefix: str) -> int:
    """The first candidate index not yet looked at, from the sources of the kept positions
    that begin with ``prefix`` (:func:`seed_prefix`, :data:`MINED_PREFIX`) and go on with
    the candidate's index: a resumed run starts after the last kept one."""
    indices = [int(s[len(prefix):].split()[0]) for s in sources if s.startswith(prefix)]
    return max(indices) + 1 if indices else 0
