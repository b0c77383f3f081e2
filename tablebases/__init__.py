"""Endgame tablebases: build (retrograde analysis), store, verify and probe.

>>> from tablebases import open_tablebase, MissingTableError
"""
from ._probe import LeafProber
from .format import CorruptTableError
from .material import Material, MaterialError
from .probe import MissingTableError, Tablebase, TableValue, describe, open_tablebase

__all__ = ["open_tablebase", "Tablebase", "TableValue", "MissingTableError", "CorruptTableError",
           "Material", "MaterialError", "describe", "LeafProber"]
