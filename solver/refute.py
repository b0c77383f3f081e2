"""Refuting a win stipulation: the other side mates whatever the side to move plays.

Books print some 红先胜 positions that are lost for Red as set (a transcription fault, or a
composition that a later defence busts).  When the mate search finds nothing, a composer
wants to know whether that is because the problem is hard or because it is wrong.
:func:`refute` answers the second question with a proof: one df-pn search whose root is an
AND node (the side to move is the defender there, the other side the attacker), quiet moves
allowed, λ orders first and full width last, with the same tables and repetition rules as a
mate search.  Searching every first move at once shares the proof of their common
continuations: the 《适情雅趣》 No. 506 refutation took 28.5 M nodes that way, while one
search per first move ran out of a 30-second budget.

A refutation is a fact, like a mate: every first move is followed by a forced mate, and the
main line is the first move that resists longest, then the mate against it.  "not refuted"
is a fact too, but only within the bound (a full-width proof that some first move escapes a
mate of at most ``bound`` moves).  Running out of budget gives "unknown".

>>> from xiangqi import Board
>>> refute(Board("4k4/9/9/9/9/9/9/9/r8/3K1r3 w")).length        # mated already
0
>>> answer = refute(Board("3k5/9/9/9/9/9/9/r8/9/4K4 w"), max_moves=3)
>>> answer.verdict, answer.length, answer.exact, [m.iccs() for m in answer.main_line]
('refuted', 2, True, ['e0e1', 'a2a1', 'e1e0', 'a1f1'])
>>> refute(Board("3k5/9/9/9/9/9/9/r8/9/4K4 w"), max_moves=1).verdict
'not refuted'
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from xiangqi import Board, Move
from xiangqi.output import JsonObject
from xiangqi.pieces import COLOR_NAMES

from .search import Limits, Solver
from .types import Mode, Verdict

if TYPE_CHECKING:
    from tablebases.probe import Tablebase

# The other side's mate is searched within this many of its moves unless told otherwise.
DEFAULT_REFUTATION_MOVES = 30


@dataclass
class Refutation:
    """Whether the side to move is mated against every move (see the module's docstring)."""
    verdict: str                # "refuted", "not refuted" (within the bound) or "unknown"
    length: int | None          # the mating side's moves against the longest resistance
    exact: bool                 # that length is proven the shortest (a full-width disproof)
    main_line: list[Move] = field(default_factory=list)   # resistance first, then the mate
    bound: int = DEFAULT_REFUTATION_MOVES
    order: int | None = None    # the λ order that proved it (None: full width or a table)
    nodes: int = 0
    seconds: float = 0.0
    tb_leaves: int = 0

    @property
    def refuted(self) -> bool:
        return self.verdict == "refuted"

    def describe(self, board: Board) -> str:
        """The verdict in words, for ``board`` (the refuted position).

        >>> board = Board("3k5/9/9/9/9/9/9/r8/9/4K4 w")
        >>> refute(board).describe(board)
        'Refuted: whatever Red plays, Black mates in 2 (4 plies)'
        """
        side, other = COLOR_NAMES[board.turn], COLOR_NAMES[1 - board.turn]
        if self.verdict == "refuted" and self.length == 0:
            return f"Refuted: {side} has no legal move (mated or stalemated already)"
        if self.verdict == "refuted":
            at_most = "" if self.exact else "at most "
            return (f"Refuted: whatever {side} plays, {other} mates in {at_most}{self.length} "
                    f"({2 * (self.length or 0)} plies)")
        if self.verdict == "not refuted":
            return (f"Not refuted: {side} has a move after which {other} has no forced mate "
                    f"within {self.bound} moves")
        return f"Refutation unknown: a search limit was reached within {self.bound} moves"

    def to_dict(self) -> JsonObject:
        """The JSON form (``xqstudio verify --json``'s ``refutation``)."""
        return {"verdict": self.verdict, "length": self.length, "exact": self.exact,
                "main_line": [move.iccs() for move in self.main_line], "bound": self.bound,
                "order": self.order, "nodes": self.nodes, "seconds": round(self.seconds, 3),
                "tb_leaves": self.tb_leaves}


def refute(board: Board, max_moves: int | None = None, tablebases: Tablebase | None = None,
           limits: Limits | None = None,
           progress: Callable[[int, int], bool | None] | None = None) -> Refutation:
    """Prove that the side to move of ``board`` is mated whatever it plays, the other side's
    mate within ``max_moves`` of its moves (default 30), within ``limits``."""
    bound = max_moves or DEFAULT_REFUTATION_MOVES
    start = time.perf_counter()
    if not board.has_legal_move():
        # Mated or stalemated (both lose in Xiangqi): refuted before a move is made.
        return Refutation("refuted", 0, True, bound=bound)
    solver = Solver(board, Mode.ANY, limits, tablebases, progress)
    # The root is an AND node: the side to move defends, the other side attacks.
    solver.attacker = 1 - board.turn
    answer = solver.run(bound)
    verdicts: dict[str, str] = {Verdict.MATE: "refuted", Verdict.NO_MATE: "not refuted"}
    verdict = verdicts.get(answer.verdict, "unknown")
    return Refutation(verdict, answer.length if verdict == "refuted" else None,
                      answer.exact and verdict == "refuted", list(answer.main_line), bound,
                      answer.order, answer.nodes, time.perf_counter() - start,
                      answer.tb_leaves)
