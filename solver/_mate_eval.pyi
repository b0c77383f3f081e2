"""Type stub for the Cython evaluation-guided mate finder (``solver/_mate_eval.pyx``)."""
from typing import Self

from typing_extensions import disjoint_base

from xiangqi._core import BaseBoard

MAX_MATE_MOVES: int # the longest mate a search may be asked for

@disjoint_base
class EvalMateFinder:
    """An evaluation-guided alpha-beta mate finder with its own table (``table_bits``: log2
    entries); the interface of ``solver._mate_ab.MateFinder``."""

    max_order: int      # unused (the interface's)

    # Its arguments go to __cinit__ (__new__ at runtime): __init__ takes none of its own.
    def __new__(cls, table_bits: int = 20) -> Self: ...
    @property
    def nodes(self) -> int: ...
    @property
    def stopped(self) -> bool: ...
    @property
    def depth(self) -> int:
        """The plies of the last find()'s deepest iteration completed."""
    @property
    def score(self) -> int:
        """That iteration's score, from the attacker's view (a mate: 30000 less its plies)."""
    def find(self, board: BaseBoard, max_moves: int, node_limit: int = 0,
             seconds: float = 0.0, shortest: bool = True) -> int | None:
        """The length of a mate found within ``max_moves`` attacker moves, or None."""
    def line(self) -> list[tuple[int, int]]:
        """The proposed main line, both sides' moves as (from, to) squares (0..89)."""
    def mating_moves(self) -> list[tuple[int, int]]:
        """The attacker's moves of :meth:`line`."""
    def proof_hints(self) -> list[tuple[int, int, int]]:
        """(position key, from, to) of every attacker position the table scores as mate."""
    def cancel(self) -> None: ...
    def clear(self) -> None: ...
