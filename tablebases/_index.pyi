"""Type stub for the Cython position index (``tablebases/_index.pyx``).

Only the Python-visible API: the C-level API (``IndexData``, ``ix_*``) is in ``_index.pxd``.
"""
from collections.abc import Iterable

from xiangqi._core import BaseBoard

DEFENDERS: tuple[int, int, int]
ATTACKER_KINDS: tuple[int, int, int, int]

class Indexer:
    """Index of one material; ``pieces`` is one (colour, kind) pair per piece, kings included."""

    def __init__(self, pieces: list[tuple[int, int]]) -> None: ...
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
    def placement(self, index: int) -> list[int] | None:
        """The 90 piece codes of ``index`` (None if two pieces overlap)."""
