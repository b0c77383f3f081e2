"""What building tables takes, worked out in one place: the tables a material's build makes
(its sub-tables first), each one's size, peak memory and estimated time, and whether a table
on disk is usable.  ``tb build`` on a cluster (:mod:`tablebases.cluster`), the draw analysis
(:func:`solver.draw.table_need`) and the studio's table panel all plan with it, so the
estimate a player reads before a build is the one the build works from.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from . import build
from .build import (
    BuildError,
    estimated_seconds,
    index_problem,
    memory_needed,
    table_problem,
)
from .format import read_header, table_path
from .material import Material, indexer_for


@dataclass
class TablePlan:
    """One table of a set: its index size (entries per side), memory need (bytes), estimated
    seconds on the build's threads, direct sub-tables, and whether it is to be built (with
    the reason) or is present and sound."""
    name: str
    size: int
    memory: int
    estimate: float
    subs: tuple[str, ...]
    build: bool
    reason: str = ""
    path: Path = field(default_factory=Path)


def table_memory(material: Material) -> int:
    """Peak bytes of ``material``'s build, with its direct sub-tables loaded."""
    subs = {sub.canonical() for sub in material.captures()}
    return memory_needed(material, indexer_for(material).size,
                         [indexer_for(sub).size for sub in subs])


def plan_tables(materials: Sequence[str | Material], directory: Path | str | None,
                threads: int = 1,
                rebuild: bool = False, verify: bool = True,
                inspect: bool = True) -> list[TablePlan]:
    """Every table of ``materials``' build orders, smallest first, each either present or to
    be built, as :func:`tablebases.build.build` decides.  ``inspect``: a table on disk is
    present only if sound (and verified, with ``verify``); without it a file on disk counts
    as present (what a player's "is it there?" needs, without reading headers).
    ``rebuild``: the materials asked for are rebuilt even if present.  ``directory`` None:
    no table is there yet."""
    requested = []
    for item in materials:
        material = (item if isinstance(item, Material) else Material.parse(item)).canonical()
        try:
            indexer_for(material)
        except ValueError as error:
            raise BuildError(f"{material}: {error}") from None
        requested.append(material)
    order: list[Material] = []
    for material in requested:
        for sub in material.build_order():
            if sub not in order:
                order.append(sub)
    names = {str(m) for m in requested}
    plans = []
    for material in order:
        name = str(material)
        path = table_path(Path(directory), name) if directory is not None else Path()
        reason = "missing"
        if directory is not None and path.exists():
            reason = ""
            if rebuild and name in names:
                reason = "rebuild asked for"
            elif inspect:
                problem = table_problem(path)
                if problem is not None:
                    reason = f"damaged or of an older format ({problem})"
                elif verify and read_header(path).extra.get("unverified"):
                    reason = "built without the re-check"
        plans.append(TablePlan(
            name, indexer_for(material).size, table_memory(material),
            estimated_seconds(indexer_for(material).size, threads, material=material),
            tuple(sorted({str(s.canonical()) for s in material.captures()})),
            bool(reason), reason, path))
    return plans


@dataclass(frozen=True)
class MaterialPlan:
    """What a material's table takes here: the tables still missing (sub-tables first) with
    their estimated seconds, the peak memory among those builds, the memory available, and
    why no table can be built at all (``error``: too many pieces to index, or more memory
    than the machine has)."""
    material: str                                  # canonical name
    positions: int                                 # of the material's own table, both sides
    present: bool = False                          # the material's own table is on disk
    missing: tuple[tuple[str, float], ...] = ()    # its sub-tables may be missing even so
    memory: int = 0
    available: int = 0
    error: str | None = None

    @property
    def seconds(self) -> float:
        return sum(seconds for _, seconds in self.missing)

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.missing]

    @property
    def fits(self) -> bool:
        return self.error is None and self.memory <= self.available


def plan_material(material: Material, directory: Path | str | None,
                  threads: int = 1) -> MaterialPlan:
    """The plan for ``material``'s table in ``directory`` (None: no table is there).  A
    material that cannot be indexed gets ``error``; one whose own build alone exceeds the
    memory available is planned as that one table, its sub-tables not listed (for a large
    material that list alone takes very long)."""
    canonical = material.canonical()
    name = str(canonical)
    problem = index_problem(canonical)
    if problem is not None:
        return MaterialPlan(name, 0, available=build.available_memory(), error=problem)
    size = indexer_for(canonical).size
    present = directory is not None and table_path(Path(directory), name).exists()
    available = build.available_memory()
    own = memory_needed(canonical, size, [])
    if own > available and not present:
        return MaterialPlan(name, 2 * size, False,
                            ((name, estimated_seconds(size, threads, material=canonical)),),
                            own, available)
    todo = [plan for plan in plan_tables([canonical], directory, threads, inspect=False)
            if plan.build]
    return MaterialPlan(name, 2 * size, present,
                        tuple((plan.name, plan.estimate) for plan in todo),
                        max((plan.memory for plan in todo), default=0), available)
