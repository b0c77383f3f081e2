"""Endgame tablebases: build (retrograde analysis), store, verify and probe.

>>> from tablebases import open_tablebase, MissingTableError
"""
import os

# The builder's OpenMP threads (libgomp, linked by _builder alone, reads this as it loads)
# sleep at the end of a parallel loop instead of spinning: on a machine shared with other
# work spinning burns the CPU seconds the others need (KRKR, 2 threads, load 8: 3.7 -> 1.9
# CPU s, and the wall time too).  A policy the user set wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from ._probe import LeafProber
from .format import CorruptTableError, TablebaseError
from .material import Material, MaterialError
from .probe import MissingTableError, Tablebase, TableValue, describe, open_tablebase

__all__ = ["open_tablebase", "Tablebase", "TableValue", "MissingTableError", "CorruptTableError",
           "TablebaseError", "Material", "MaterialError", "describe", "LeafProber"]
