"""Statistics of a table: counts per side to move, distance histograms, the longest win."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from xiangqi import Board
from xiangqi.fen import placement_fen
from xiangqi.pieces import COLOR_NAMES

from ._builder import histogram
from .build import indexer_for
from .format import TableFile, table_path
from .material import Material
from .values import ILLEGAL


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
    """Per side to move (0 Red, 1 Black): counts, histograms and the longest win."""
    canonical = Material.parse(material).canonical()
    table = TableFile(table_path(directory, str(canonical)))
    indexer = indexer_for(canonical)
    result = {}
    try:
        for side in (0, 1):
            stats = SideStats()
            dtm = table.load("dtm", side)
            for code, count in histogram(dtm).items():
                if code == ILLEGAL:
                    stats.illegal = count
                elif code == 0:
                    stats.draws = count
                else:
                    plies = code - 1
                    if plies % 2:
                        stats.wins += count
                    else:
                        stats.losses += count
                    stats.dtm_histogram[plies] = count
            marks = table.load_array(f"rules/chase_{('red', 'black')[side]}")
            stats.chase_marked = sum(bin(word).count("1") for word in marks)
            dtc = table.load("dtc", side)
            for code, count in histogram(dtc).items():
                if code not in (0, ILLEGAL):
                    stats.dtc_histogram[code - 1] = count
            turn = "w" if side == 0 else "b"
            win_plies = [p for p in stats.dtm_histogram if p % 2]
            if win_plies:
                stats.longest_win_plies = max(win_plies)
                index = dtm.index(stats.longest_win_plies + 1)
                stats.longest_win_fen = f"{placement_fen(indexer.placement(index))} {turn} - - 0 1"
            conversion_plies = [p for p in stats.dtc_histogram if p % 2]
            if conversion_plies:
                stats.longest_conversion_plies = max(conversion_plies)
                index = dtc.index(stats.longest_conversion_plies + 1)
                stats.longest_conversion_fen = \
                    f"{placement_fen(indexer.placement(index))} {turn} - - 0 1"
            del dtm, dtc
            result[side] = stats
    finally:
        table.close()
    return result


def format_histogram(histogram_: dict[int, int], width: int = 40) -> list[str]:
    if not histogram_:
        return ["  (none)"]
    top = max(histogram_.values())
    return [f"  {plies:>4} plies {count:>12,} {'#' * max(1, round(width * count / top))}"
            for plies, count in sorted(histogram_.items())]


def side_name(side: int) -> str:
    return COLOR_NAMES[side]


def board_of(fen: str) -> Board:
    return Board(fen)
