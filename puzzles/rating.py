"""A student's rating per kill pattern (issue 42, item 3): Glicko-1, as the chess puzzle
sites rate their players, each practice attempt a game between the student and the
position.

The position's rating is its difficulty (:func:`puzzles.difficulty.rating`), held fixed with
a small deviation (:data:`POSITION_DEVIATION`): positions are not rated by results, so a
student's rating on a pattern reads on the same scale as the positions' ("you solve 1600s
clean half of the time").  An attempt is won when the mate is reached without a wrong try,
a hint or the solution shown, and lost at the first of those: the first result of an attempt
counts, once.

A student starts at :data:`START_RATING` with the largest deviation, so the first results
move the rating far (a strong player who solves his first positions clean climbs quickly);
the deviation narrows with each result to :data:`MIN_DEVIATION` and widens again with the
time away (:data:`DEVIATION_GROWTH` per day: a year away, back to the start's uncertainty).

>>> start = StudentRating()
>>> won = update(start, 1500, won=True)
>>> won.rating > start.rating and won.deviation < start.deviation
True
>>> lost = update(start, 1500, won=False)
>>> round(start.rating - lost.rating) == round(won.rating - start.rating)
True
>>> update(StudentRating(1500, 60), 900, won=True).rating - 1500 < 5   # an easy win: little
True
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

START_RATING: Final = 1500.0
"""A new student's rating on every pattern (the scale's average player)."""
MAX_DEVIATION: Final = 200.0
"""A new student's rating deviation, the most uncertain.  Less than Glicko's 350 for
players: the first positions served are the easy examples, and with 350 one wrong try on
one of them cost a new student 500 points."""
MIN_DEVIATION: Final = 50.0
"""The deviation never narrows below this, so that the rating keeps following the
student."""
POSITION_DEVIATION: Final = 80.0
"""The uncertainty of a position's rating, which is computed, not played for."""
DEVIATION_GROWTH: Final = math.sqrt((MAX_DEVIATION ** 2 - MIN_DEVIATION ** 2) / 365)
"""Glicko's c, per day: from the narrowest deviation back to the widest in a year away."""

_Q: Final = math.log(10) / 400


@dataclass(frozen=True)
class StudentRating:
    """A student's Glicko rating on one pattern, its deviation, and the results it comes
    from (``games``, ``wins``)."""
    rating: float = START_RATING
    deviation: float = MAX_DEVIATION
    games: int = 0
    wins: int = 0

    def __str__(self) -> str:
        """``1612 ± 134`` (twice the deviation: a 95% interval)."""
        return f"{round(self.rating)} ± {round(2 * self.deviation)}"


def _g(deviation: float) -> float:
    return 1 / math.sqrt(1 + 3 * _Q ** 2 * deviation ** 2 / math.pi ** 2)


def expected_score(student: StudentRating, position_rating: float) -> float:
    """The chance that the student solves a position of ``position_rating`` clean.

    >>> round(expected_score(StudentRating(1500, 50), 1500), 2)
    0.5
    >>> expected_score(StudentRating(1500, 50), 1900) < 0.15
    True
    """
    return 1 / (1 + 10 ** (-_g(POSITION_DEVIATION) * (student.rating - position_rating) / 400))


def aged(student: StudentRating, days: float) -> StudentRating:
    """The rating after ``days`` without practice: the same value, a wider deviation.

    >>> aged(StudentRating(1500, 50), 365).deviation
    200.0
    """
    deviation = min(MAX_DEVIATION, math.sqrt(student.deviation ** 2 +
                                             DEVIATION_GROWTH ** 2 * max(0.0, days)))
    return StudentRating(student.rating, round(deviation, 6), student.games, student.wins)


def update(student: StudentRating, position_rating: float, won: bool) -> StudentRating:
    """The rating after one attempt at a position of ``position_rating`` (Glicko-1, one game
    in the rating period)."""
    g = _g(POSITION_DEVIATION)
    expected = expected_score(student, position_rating)
    d_squared = 1 / (_Q ** 2 * g ** 2 * expected * (1 - expected))
    precision = 1 / student.deviation ** 2 + 1 / d_squared
    rating = student.rating + _Q / precision * g * (float(won) - expected)
    deviation = max(MIN_DEVIATION, math.sqrt(1 / precision))
    return StudentRating(rating, deviation, student.games + 1, student.wins + int(won))
