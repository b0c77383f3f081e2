"""Material signatures such as ``KRKAABB``: Red's pieces, then Black's, each starting with K.

Letters are FEN's (K A B N R C P; H and E read as N and B).  Within a side the canonical
order is K R N C P A B.  A table is built for the canonical colouring (the stronger side as
Red) and serves the colour-flipped material too.

>>> m = Material.parse("KAABBKR")
>>> str(m), str(m.canonical()), m.is_canonical()
('KAABBKR', 'KRKAABB', False)
>>> [str(s) for s in Material.parse("KRKA").captures()]
['KKA', 'KRK']
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import total_ordering
from typing import TYPE_CHECKING

from xiangqi.pieces import (
    ADVISOR,
    BLACK,
    CANNON,
    ELEPHANT,
    HORSE,
    KING,
    MAX_PIECE_COUNT,
    PAWN,
    RED,
    ROOK,
    Piece,
)

from ._index import Indexer

if TYPE_CHECKING:
    from xiangqi import Board

ORDER = "KRNCPAB"
ATTACKERS = "RNCP"
_VALUES = {"R": 9.0, "N": 4.0, "C": 4.5, "P": 1.5, "A": 2.0, "B": 2.0, "K": 0.0}
_LETTER_TYPE = {"K": KING, "A": ADVISOR, "B": ELEPHANT, "N": HORSE, "R": ROOK, "C": CANNON,
                "P": PAWN}
_ALIASES = {"H": "N", "E": "B"}


class MaterialError(ValueError):
    """A material signature that cannot be parsed or describes no legal position."""


def _side_key(letters: str) -> tuple[float, float, str]:
    attack = sum(_VALUES[c] for c in letters if c in ATTACKERS)
    total = sum(_VALUES[c] for c in letters)
    return (attack, total, "".join(sorted(letters, key=ORDER.index, reverse=True)))


@total_ordering
@dataclass(frozen=True)
class Material:
    red: str    # e.g. "KR" (canonical order)
    black: str  # e.g. "KAABB"

    @classmethod
    def parse(cls, text: str) -> Material:
        raw = text.strip().upper()
        letters = "".join(_ALIASES.get(c, c) for c in raw)
        if not re.fullmatch(r"K[RNCPAB]*K[RNCPAB]*", letters):
            raise MaterialError(
                f"not a material signature: {text!r} (Red's pieces then Black's, each starting "
                "with K, letters K A B N R C P; e.g. KRKAABB)")
        split = letters.index("K", 1)
        red, black = letters[:split], letters[split:]
        for side, pieces in (("Red", red), ("Black", black)):
            for letter in ORDER:
                limit = MAX_PIECE_COUNT[_LETTER_TYPE[letter]]
                if pieces.count(letter) > limit:
                    raise MaterialError(f"{side} has {pieces.count(letter)} of {letter!r} in "
                                        f"{text!r}; at most {limit}")
        return cls(_sorted(red), _sorted(black))

    def __str__(self) -> str:
        return self.red + self.black

    def __lt__(self, other: Material) -> bool:
        return (self.piece_count(), str(self)) < (other.piece_count(), str(other))

    def piece_count(self) -> int:
        return len(self.red) + len(self.black)

    def flipped(self) -> Material:
        """The same material with colours swapped."""
        return Material(self.black, self.red)

    def is_canonical(self) -> bool:
        return _side_key(self.red) >= _side_key(self.black)

    def canonical(self) -> Material:
        return self if self.is_canonical() else self.flipped()

    def counts(self, color: int) -> dict[int, int]:
        """Piece type -> count for ``color``."""
        letters = self.red if color == RED else self.black
        return {_LETTER_TYPE[c]: letters.count(c) for c in ORDER if c in letters}

    def pieces(self) -> list[Piece]:
        return [Piece(_LETTER_TYPE[c], color)
                for color, letters in ((RED, self.red), (BLACK, self.black)) for c in letters]

    def captures(self) -> list[Material]:
        """The materials one capture away (each non-king piece removed once), sorted."""
        result = set()
        for color in (RED, BLACK):
            letters = self.red if color == RED else self.black
            for letter in set(letters) - {"K"}:
                reduced = letters.replace(letter, "", 1)
                result.add(Material(reduced, self.black) if color == RED
                           else Material(self.red, reduced))
        return sorted(result)

    def has_attackers(self) -> bool:
        return any(c in ATTACKERS for c in self.red + self.black)

    def side_has_attackers(self, color: int) -> bool:
        """Whether Red (0) or Black (1) has a rook, horse, cannon or pawn."""
        return any(c in ATTACKERS for c in (self.black if color else self.red))

    def build_order(self) -> list[Material]:
        """Every canonical material this one's table depends on, smallest first, itself last."""
        seen: dict[str, Material] = {}

        def visit(material: Material) -> None:
            canonical = material.canonical()
            if str(canonical) in seen:
                return
            for sub in canonical.captures():
                visit(sub)
            seen[str(canonical)] = canonical

        visit(self)
        return list(seen.values())

    @classmethod
    def from_board(cls, board: Board) -> Material:
        red: list[str] = []
        black: list[str] = []
        for piece in board.piece_map().values():
            (red if piece.color == RED else black).append(piece.symbol().upper())
        return cls(_sorted("".join(red)), _sorted("".join(black)))

    def indexer(self) -> Indexer:
        """The index of this material's placements (see :func:`indexer_for`)."""
        return indexer_for(self)


def indexer_for(material: Material) -> Indexer:
    """The index of ``material``'s placements, one entry per placement and side to move; a
    table is stored for the canonical material, so ask with ``material.canonical()``.

    >>> indexer_for(Material.parse("KRK")).size > 0
    True
    """
    return Indexer([(p.color, p.piece_type) for p in material.pieces()])


def _sorted(letters: str) -> str:
    return "".join(sorted(letters, key=ORDER.index))
