"""Statistics of a table: counts per side to move, distance histograms, the longest win."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from xiangqi import Board
from xiangqi.fen import placement_fen
from xiangqi.output import JsonObject
from xiangqi.pieces import COLOR_NAMES

from ._index import Indexer
from .format import SIDES, TableFile, table_path
from .material import Material, indexer_for
from .values import summarise_metric


@dataclass
class SideStats:
    wins: int = 0
    draws: int = 0
    losses: int = 0
    illegal: int = 0
    dtm_histogram: dict[int, int] = field(default_factory=dict)   # plies -> positions
    dtc_histogram: dict[int, int] = field(default_factory=dict)
    longest_win_fen: str | None = None
    longest_win_plies: int = 0
    longest_conversion_fen: str | None = None   # the win with the most plies before a capture
    longest_conversion_plies: int = 0           # or mate (DTC)
    chase_marked: int = 0        # draws the chase rule (长捉) could change


def table_stats(material: str, directory: Path | str) -> dict[int, SideStats]:
    """Per side to move (0 Red, 1 Black): counts, histograms and the longest win.

    Read from the file's header, where the build stores them; files whose header lacks them
    have their arrays read instead."""
    canonical = Material.parse(material).canonical()
    table = TableFile(table_path(directory, str(canonical)))
    indexer = indexer_for(canonical)
    try:
        return {side: _side_stats(table, indexer, side) for side in (0, 1)}
    finally:
        table.close()


def _side_stats(table: TableFile, indexer: Indexer, side: int) -> SideStats:
    summary = table.header.counts.get(SIDES[side], {})
    if "dtm_histogram" not in summary or "chase_marked" not in summary:
        summary = _summary_from_arrays(table, side)
    turn = "w" if side == 0 else "b"
    stats = SideStats(wins=summary["wins"], draws=summary["draws"], losses=summary["losses"],
                      illegal=summary["illegal"], chase_marked=summary["chase_marked"])
    for metric, histogram_ in (("dtm", stats.dtm_histogram), ("dtc", stats.dtc_histogram)):
        histogram_.update({int(plies): n for plies, n in summary[f"{metric}_histogram"].items()})
    if "longest_dtm_win_index" in summary:
        stats.longest_win_plies = max(p for p in stats.dtm_histogram if p % 2)
        stats.longest_win_fen = _fen(indexer, summary["longest_dtm_win_index"], turn)
    if "longest_dtc_win_index" in summary:
        stats.longest_conversion_plies = max(p for p in stats.dtc_histogram if p % 2)
        stats.longest_conversion_fen = _fen(indexer, summary["longest_dtc_win_index"], turn)
    return stats


def _summary_from_arrays(table: TableFile, side: int) -> JsonObject:
    """What the build stores in the header, computed from the arrays."""
    counts: dict[str, JsonObject] = {}
    for metric in ("dtm", "dtc"):
        summarise_metric(metric, SIDES[side], table.load(metric, side), counts)
    marks = table.load_array(f"rules/chase_{SIDES[side]}")
    counts[SIDES[side]]["chase_marked"] = sum(bin(word).count("1") for word in marks)
    return counts[SIDES[side]]


def _fen(indexer: Indexer, index: int, turn: str) -> str:
    placement = indexer.placement(index)
    assert placement is not None, "the longest win's index is a placement of the pieces"
    return f"{placement_fen(placement)} {turn} - - 0 1"


def format_histogram(histogram_: dict[int, int], width: int = 40) -> list[str]:
    if not histogram_:
        return ["  (none)"]
    top = max(histogram_.values())
    return [f"  {plies:>4} {'ply  ' if plies == 1 else 'plies'} {count:>12,} "
            f"{'#' * max(1, round(width * count / top))}"
            for plies, count in sorted(histogram_.items())]


def side_name(side: int) -> str:
    return COLOR_NAMES[side]


def board_of(fen: str) -> Board:
    return Board(fen)
