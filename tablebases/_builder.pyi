"""Type stub for the Cython retrograde builder (``tablebases/_builder.pyx``).

Code arrays are C-contiguous uint16 buffers (``array('H')``, or the ``memoryview`` of
:func:`tablebases.format.zeroed_codes`), one code per index entry; bitmaps are uint64 buffers
(``array('Q')``), one bit per entry.  The C-level API (``Context``, the codes) is in
``_builder.pxd``.
"""
from collections.abc import Callable, Sequence
from enum import IntEnum
from typing import Self

from typing_extensions import Buffer, disjoint_base

from tablebases._index import Indexer
from tablebases.build import SubTableSpec

class StoredCode(IntEnum):     # the cpdef enum of _builder.pxd
    ILLEGAL = 0xFFFF
    TENTATIVE = 0x8000
    DISTANCE_MASK = 0x7FFF

# (colour, piece type, Indexer, red codes, black codes, flip): one per kind of capture
# (tablebases.build.SubTableSpec, a NamedTuple of these fields).
_SubSpec = tuple[int, int, Indexer, Buffer, Buffer, int]

def request_stop() -> None:
    """Stop the running builder call (or the next one): it raises KeyboardInterrupt within
    milliseconds, returning nothing.  A SIGINT during a builder call does the same."""

def retrograde(
    indexer: Indexer,
    red_values: Buffer,
    black_values: Buffer,
    subs: list[_SubSpec] | list[SubTableSpec],
    capture_resets: bool = False,
    capture_limit: int = 0,
    threads: int = 1,
    progress: Callable[[int, int], object] | None = None,
    rules: Sequence[Buffer | int] | None = None,
    hints: Sequence[Buffer] | None = None,
    timings: dict[str, float] | None = None,
    sweep_zeros: Sequence[Buffer] | None = None,
) -> int:
    """Fill the code arrays with the solved codes; returns the number of passes.
    ``progress(pass, found)``; ``rules``: checker red/black, victim red/black bitmaps (and
    optionally the AttackRules they forbid);
    ``hints``: zero red/black (DTM's draws and the entries its first sweep left at 0), loss
    red/black bitmaps of the DTM build; ``timings``: adds the wall and CPU seconds of each
    phase (``first_sweep``, ``unmoves``, ``candidates``, ``settle``) as ``<phase>_seconds``
    and ``<phase>_cpu_seconds``; ``sweep_zeros``: red/black bitmaps that receive the entries
    the first sweep left at code 0."""

def recheck_all(
    indexer: Indexer,
    metrics: Sequence[tuple[Buffer, Buffer, Sequence[_SubSpec] | Sequence[SubTableSpec], bool,
                            int]],
    threads: int = 1,
    max_report: int = 20,
    rules: Sequence[Buffer | int] | None = None,
) -> tuple[list[int], list[tuple[int, int, int, int, int]]]:
    """Every metric re-derived at once, each position's successors read once for all:
    (mismatch count per metric, first mismatches of each metric as (metric number, side to
    move, index, stored, expected)); ``metrics``: (red, black, subs, capture_resets,
    capture_limit) each, at most three."""

def recheck(
    indexer: Indexer,
    red_values: Buffer,
    black_values: Buffer,
    subs: list[_SubSpec] | list[SubTableSpec],
    capture_resets: bool = False,
    capture_limit: int = 0,
    threads: int = 1,
    max_report: int = 20,
    rules: Sequence[Buffer | int] | None = None,
) -> tuple[int, list[tuple[int, int, int, int]]]:
    """(mismatch count, first mismatches as (side to move, index, stored, expected))."""

def outcome_bitmaps(values: Buffer, draws: Buffer, losses: Buffer) -> None:
    """Set the bits of the drawn and of the lost positions of a finished metric's codes."""

def first_index(values: Buffer, code: int) -> int:
    """The first index holding ``code`` (-1 if none)."""

def histogram(values: Buffer) -> dict[int, int]:
    """Counts per code, illegal entries included."""

def perpetual_check_sets(
    indexer: Indexer,
    red_values: Buffer,
    black_values: Buffer,
    subs: list[_SubSpec] | list[SubTableSpec],
    checker_red: Buffer,
    checker_black: Buffer,
    victim_red: Buffer,
    victim_black: Buffer,
    threads: int = 1,
    attacks: int = 0,
    cache: RuleRounds | None = None,
) -> int:
    """Add the drawn positions the perpetual-check rule decides (``attacks``
    AttackRules.RULES_CHINESE: the perpetual-attack rule, checks and chases); returns the
    checker count.  ``cache``: the build's earlier rounds, so that only the positions whose
    successors changed are tested again."""

@disjoint_base
class RuleRounds:
    """The rule searches' candidates and draws kept from round to round of one build."""
    examined: int           # positions the last search tested
    examined_total: int     # over all searches
    full_scans: int         # searches that tested every draw
    # Its arguments go to __cinit__ (__new__ at runtime): __init__ takes none of its own.
    def __new__(cls, indexer: Indexer) -> Self: ...

@disjoint_base
class PhaseClock:
    """Wall and CPU seconds per phase of a builder call, added into ``timings`` (None:
    nothing is measured); its laps are taken at C level."""
    def __init__(self, timings: dict[str, float] | None) -> None: ...

def chase_sensitive_draws(
    indexer: Indexer,
    red_values: Buffer,
    black_values: Buffer,
    subs: list[_SubSpec] | list[SubTableSpec],
    out_red: Buffer,
    out_black: Buffer,
    threads: int = 1,
) -> int:
    """Mark the drawn positions the chase rule could change; returns their number."""

def narrow_codes(codes: Buffer, narrow: Buffer, start: int = 0) -> bool:
    """Store uint16 ``codes`` into the bytes ``narrow`` from entry ``start`` on (ILLEGAL as
    255); False if a code does not fit in a byte."""

def pack_outcomes(codes: Buffer, packed: Buffer, start: int = 0, capture_limit: int = 0) -> None:
    """Pack ``codes`` from entry ``start`` (a multiple of 32) into ``packed``, two bits per
    entry: 0 draw, 1 lost, 2 won (a code's distance kept as its parity), 3 ILLEGAL; with
    ``capture_limit`` a code beyond it is a draw.  A sub-table in this form serves DTC and
    DTC60, whose counts end at the capture."""
