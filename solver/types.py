"""The solver's vocabulary: search modes, verdicts and stipulations.

Each is a :class:`~enum.StrEnum` whose values are the strings the solver has always used, so
``Mode.CHECKS == "checks"`` and code or JSON that compares with the bare strings keeps working.

>>> Mode("checks") is Mode.CHECKS, Verdict.NO_MATE == "no mate", str(Stipulation.DRAW)
(True, True, 'draw')
"""
from __future__ import annotations

from enum import StrEnum
from typing import Final


class Mode(StrEnum):
    """Which attacker moves a search admits."""
    CHECKS = "checks"      # every attacker move checks (连照杀)
    ANY = "any"            # quiet moves allowed


class Verdict(StrEnum):
    """A search's answer within its bound of attacker moves."""
    MATE = "mate"          # a forced mate (``exact`` says whether it is the shortest)
    NO_MATE = "no mate"    # none within the bound (only a full-width search says so)
    UNKNOWN = "unknown"    # a limit (nodes, time, Ctrl-C) stopped the search first


class DrawVerdict(StrEnum):
    """The verdict of a draw stipulation (红先和): can either side force a win?"""
    DRAW = "draw"                       # proven: a table shows it
    NO_WIN = "no win within the bound"  # neither side forces a win within N: not a proof
    RED_WINS = "Red wins"
    BLACK_WINS = "Black wins"
    UNKNOWN = "unknown"


class Stipulation(StrEnum):
    """What a composed problem asks."""
    WIN = "win"            # mate, quiet moves allowed (先胜)
    CHECKS = "checks"      # mate by continuous checks (连照杀)
    DRAW = "draw"          # neither side can force a win (红先和)


# What an unbounded draw check searches to, for each side.
DEFAULT_DRAW_BOUND: Final = 20

MODES: Final = tuple(str(m) for m in Mode)
STIPULATIONS: Final = tuple(str(s) for s in Stipulation)


def mode_of(stipulation: str) -> Mode:
    """The search mode that proves ``stipulation`` (checks for checks, any otherwise)."""
    return Mode.CHECKS if stipulation == Stipulation.CHECKS else Mode.ANY
