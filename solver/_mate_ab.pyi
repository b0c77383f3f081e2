"""Type stub for the Cython alpha-beta mate finder (``solver/_mate_ab.pyx``)."""
from typing import Self

from typing_extensions import disjoint_base

from xiangqi._core import BaseBoard

MAX_ORDER: int      # the highest λ order a search may use
MAX_MATE_MOVES: int # the longest mate a search may be asked for
THREAT_STAGES: tuple[int, ...]  # threat caps of find()'s stages

@disjoint_base
class MateFinder:
    """An alpha-beta mate finder with its own table (``table_bits``: log2 entries)."""

    max_order: int      # λ orders 1 .. max_order are tried at each bound
    threat_caps: tuple[int, ...]    # the stages' threat caps (default THREAT_STAGES)
    tempo_frontier: int             # every move is tried with this few moves left

    # Its arguments go to __cinit__ (__new__ at runtime): __init__ takes none of its own.
    def __new__(cls, table_bits: int = 20) -> Self: ...
    @property
    def nodes(self) -> int: ...
    @property
    def stopped(self) -> bool: ...
    @property
    def order(self) -> int:
        """The λ order of the last mate found (0: none)."""
    def find(self, board: BaseBoard, max_moves: int, node_limit: int = 0,
             seconds: float = 0.0, shortest: bool = True) -> int | None:
        """The length of a mate found within ``max_moves`` attacker moves, or None."""
    def line(self) -> list[tuple[int, int]]:
        """The proposed main line, both sides' moves as (from, to) squares (0..89)."""
    def mating_moves(self) -> list[tuple[int, int]]:
        """The attacker's moves of :meth:`line`."""
    def proof_hints(self) -> list[tuple[int, int, int]]:
        """(position key, from, to) of every proof's move in the table."""
    def cancel(self) -> None: ...
    def clear(self) -> None: ...
