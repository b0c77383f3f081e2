"""How hard a practice position is (issue 42, item 3): features that can be counted on the
position and its solution, and a rating made of them.

The features, for the side that mates:

* ``moves``: the length of the forced mate (attacker moves);
* ``quiet``: attacker moves of the main line that give no check (a quiet move is harder to
  find than a check: it must be seen to threaten);
* ``tries``: first moves that give check besides the key (the plausible tries a solver has
  to refute in his head);
* ``sacrifices``: attacker moves of the main line after which the defender takes the piece
  that moved (giving material up is the hardest decision);
* ``replies``: the defender's legal replies along the main line, on average (his options,
  each one to be answered).

The rating puts them on the scale of the practice ratings (Glicko-style, 1500 an average
player): ``RATING_BASE`` plus a weight per feature (:data:`WEIGHTS`).  The weights are round
numbers chosen so that a mate in one by check is about 900 and a seven-move combination with
quiet moves and sacrifices about 2200; ``benchmarks/bench_difficulty.py`` measures how well
the rating orders positions by the nodes the solver needs to find them.

>>> from xiangqi import Board
>>> f = features(Board("3aka3/9/9/5N2C/9/9/4c2n1/4B4/4A4/3AK4 w - - 0 1"), "f6g8 e9e8 i6i8")
>>> f.moves, f.quiet, f.sacrifices
(2, 0, 0)
>>> rating(f) > rating(features(Board("r4k3/9/9/9/9/4R4/9/9/9/4K4 w - - 0 1"), "e4f4"))
True
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from xiangqi import Board, Move

RATING_BASE: Final = 700
WEIGHTS: Final = {"moves": 150, "quiet": 120, "tries": 15, "sacrifices": 90, "replies": 10}


@dataclass(frozen=True)
class Features:
    moves: int
    quiet: int
    tries: int
    sacrifices: int
    replies: float


def features(board: Board, line: str | Sequence[str]) -> Features:
    """The features of the position ``board`` whose solution (both sides' moves, ICCS) is
    ``line``.  Raises ValueError for a move of the line that is not legal."""
    moves = line.split() if isinstance(line, str) else list(line)
    position = board.copy(stack=False)
    key = Move.from_iccs(moves[0]) if moves else None
    tries = sum(1 for move in position.legal_moves
                if move != key and position.gives_check(move))
    quiet = sacrifices = 0
    replies: list[int] = []
    for ply, text in enumerate(moves):
        move = Move.from_iccs(text)
        if move not in position.legal_moves:
            raise ValueError(f"move {ply + 1} of the line, {text}, is not legal in "
                             f"{position.fen()}")
        if ply % 2 == 0:
            if not position.gives_check(move):
                quiet += 1
            if ply + 1 < len(moves) and Move.from_iccs(moves[ply + 1]).to_square == \
                    move.to_square:
                sacrifices += 1
        position.push(move)
        if ply % 2 == 0 and ply + 1 < len(moves):
            replies.append(len(position.legal_moves))
    average = sum(replies) / len(replies) if replies else 0.0
    return Features((len(moves) + 1) // 2, quiet, tries, sacrifices, round(average, 2))


def rating(f: Features) -> int:
    """The position's difficulty on the practice rating scale (see the module's docstring)."""
    return round(RATING_BASE + WEIGHTS["moves"] * f.moves + WEIGHTS["quiet"] * f.quiet +
                 WEIGHTS["tries"] * f.tries + WEIGHTS["sacrifices"] * f.sacrifices +
                 WEIGHTS["replies"] * f.replies)
