"""The calls the studio's widgets make to the layers below (and the tablebase calls of its
screens), in one place.

The table panel probes, plans, builds and counts; the solver panel solves, verifies and
analyses draws; the solver panel and draw practice open a directory's tables when there are
any.  They import these names from here rather than from ``tablebases``' modules one by one
(``build``, ``format``, ``plan``, ``probe``, ``stats``) and ``solver``'s (``draw``,
``search``, ``soundness``, ``types``): a change of where a package keeps something is then
one change in this module.  The rules of what a widget shows stay in the widget; what a
table or a search says stays in its package.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from solver.draw import (
    DrawAnalysis,
    analyse_draw,
    default_seconds,
    report_lines,
)
from solver.search import (
    DEFAULT_MAX_MOVES,
    Limits,
    Solver,
    SolverError,
    SolveResult,
    default_bound,
    default_search_threads,
    game_position_text,
    order_name,
    search_ran_out_text,
)
from solver.soundness import SoundnessReport, verify
from solver.types import DEFAULT_DRAW_BOUND, DrawVerdict
from tablebases import (
    Material,
    MissingTableError,
    Tablebase,
    TablebaseError,
    TableValue,
    describe,
    open_tablebase,
)
from tablebases.build import BuildError, build, default_threads
from tablebases.format import table_path
from tablebases.plan import MaterialPlan, plan_material
from tablebases.probe import RankedMove
from tablebases.stats import SideStats, table_stats
from xiangqi.output import JsonObject
from xiangqi.quantities import memory_text

__all__ = [
    "DEFAULT_DRAW_BOUND",
    "DEFAULT_MAX_MOVES",
    "DrawAnalysis",
    "DrawVerdict",
    "Limits",
    "Solver",
    "SolverError",
    "SolveResult",
    "SoundnessReport",
    "analyse_draw",
    "default_bound",
    "default_search_threads",
    "default_seconds",
    "game_position_text",
    "order_name",
    "report_lines",
    "search_ran_out_text",
    "verify",
    "BuildError",
    "Material",
    "MaterialPlan",
    "MissingTableError",
    "RankedMove",
    "SideStats",
    "TableValue",
    "Tablebase",
    "TablebaseError",
    "TooLargeError",
    "build_plan",
    "default_threads",
    "describe",
    "finished_tables",
    "open_tablebase",
    "plan_build",
    "table_stats",
    "tables_if_any",
]


class TooLargeError(ValueError):
    """The material's table is beyond what can be built here."""


def plan_build(material: Material, directory: Path, threads: int) -> MaterialPlan:
    """The plan for ``material``'s table (:func:`tablebases.plan.plan_material`); raises
    :class:`TooLargeError` when the table cannot be indexed or would not fit in the memory
    available."""
    plan = plan_material(material, directory, threads)
    if plan.error is not None:
        raise TooLargeError(plan.error)
    if not plan.fits:
        raise TooLargeError(f"a table for {plan.material} would have {plan.positions:,} "
                            f"positions and need about {memory_text(plan.memory)} of memory "
                            f"({memory_text(plan.available)} available)")
    return plan


def build_plan(plan: MaterialPlan, directory: Path, threads: int, log: Callable[[str], None],
               progress: Callable[[str, int, int], None]) -> dict[str, JsonObject]:
    """Build the plan's missing tables in ``directory`` (:func:`tablebases.build.build`,
    whose ``progress`` hook may raise to cancel); the summary of each table built, by
    name."""
    return build(plan.material, directory, threads=threads, log=log, progress=progress)


def finished_tables(plan: MaterialPlan, directory: Path) -> list[str]:
    """The plan's tables whose files exist in ``directory`` (after a cancelled build: those
    finished before it stopped)."""
    return [name for name in plan.names if table_path(directory, name).exists()]


def tables_if_any(directory: Path) -> Tablebase | None:
    """The tables of ``directory``, or None when it does not exist: the solver and draw
    practice then search without tables rather than fail."""
    return open_tablebase(directory) if directory.is_dir() else None
