"""Type stub for the Cython position index (``tablebases/_index.pyx``).

Only the Python-visible API: the C-level API (``IndexData``, ``ix_*``) is in ``_index.pxd``.
"""
from collections.abc import Iterable
from typing import Self

from typing_extensions import disjoint_base

from xiangqi._core import BaseBoard

DEFENDERS: tuple[int, int, int]
ATTACKER_KINDS: tuple[int, int, int, int]

@disjoint_base
class Indexer:
    """Index of one material; ``pieces`` is one (colour, kind) pair per piece, kings included."""

    # Its arguments go to __cinit__ (__new__ at runtime): __init__ takes none of its own.
    def __new__(cls, pieces: list[tuple[int, int]]) -> Self: ...
    @property
    def size(self) -> int:
        """Positions per side to move."""
    @property
    def group_counts(self) -> list[int]:
        """Placements per group, Red's defender group first."""
    def index_of(self, board: BaseBoard, flip: int = False) -> int:
        """Index of a board's position (-1 if its pieces do not match)."""
    def decoded_in_turn(self, indexes: Iterable[int],
                        incremental: bool = True) -> list[tuple[list[int], list[int]] | None]:
        """Decode ``indexes`` one after another onto one board (``incremental``: only the
        changed groups moved); per index None if two pieces overlap, else Red's and Black's
        piece points in piece-list order."""
    def quiet_move_index(self, index: int, from90: int, to90: int, tables: bool = True) -> int:
        """Index after the quiet move of the piece on point ``from90`` to ``to90`` from
        ``index``, by the builder's move tables (``tables``) or the re-check's keys; -1 if no
        placement of the material, -2 if the re-check leaves it to the full encode."""
    def placement(self, index: int) -> list[int] | None:
        """The 90 piece codes of ``index`` (None if two pieces overlap)."""
