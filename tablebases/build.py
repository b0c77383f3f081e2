"""Building tables: sub-tables first, DTM and DTC by retrograde analysis, a full re-check,
then an atomic write.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as directory:
...     summary = build("KRK", directory, log=lambda line: None)
>>> summary["KRK"]["verified"]
True
"""
from __future__ import annotations

import array
import json
import math
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import NamedTuple, TypeAlias

from xiangqi.output import JsonObject
from xiangqi.pieces import legal_points
from xiangqi.quantities import duration_text, memory_text
from xiangqi.rules import NATURAL_LIMIT_PLIES

from ._builder import (
    RuleRounds,
    chase_sensitive_draws,
    narrow_codes,
    outcome_bitmaps,
    pack_outcomes,
    perpetual_check_sets,
    recheck_all,
    retrograde,
)
from ._chase import AttackRules
from ._index import Indexer
from .format import (
    SIDES,
    SUFFIX,
    CorruptTableError,
    TableFile,
    TableHeader,
    TableWriter,
    build_info_path,
    read_header,
    table_path,
    zeroed_codes,
    zeroed_words,
)
from .material import Material, indexer_for
from .values import RULES, rules_for, summarise_metric

# indexer_for lives with Material (tablebases.material); it is imported here for the callers
# that still take it from the builder.
__all__ = ["build", "verify_file", "table_problem", "indexer_for", "BuildError", "METRICS",
           "Metric", "MetricRules", "METRIC_RULES", "SubTableSpec", "RuleBitmaps", "DtmBitmaps",
           "NATURAL_LIMIT_PLIES", "default_threads", "estimated_seconds", "checkpoint_path",
           "memory_needed", "rules_directory", "two_sided"]


class Metric(StrEnum):
    """The stored metrics, in build order."""
    DTM = "dtm"        # distance to mate
    DTC = "dtc"        # distance to the first capture or mate
    DTC60 = "dtc60"    # ... that keeps the win within the natural limit


METRICS: tuple[str, ...] = tuple(str(m) for m in Metric)


class MetricRules(NamedTuple):
    """How a metric counts: does a capture end the count (``capture_resets``), and beyond how
    many plies a sub-table's value no longer counts (``capture_limit``, 0: never; DTC60:
    conversions must come within the natural limit, each phase anew)."""
    capture_resets: bool
    capture_limit: int


METRIC_RULES: dict[str, MetricRules] = {
    Metric.DTM: MetricRules(capture_resets=False, capture_limit=0),
    Metric.DTC: MetricRules(capture_resets=True, capture_limit=0),
    Metric.DTC60: MetricRules(capture_resets=True, capture_limit=NATURAL_LIMIT_PLIES),
}


# A bitmap, one bit per index entry: uint64 words (an array, or a view of a mapping of its own).
# (Quoted: array.array takes no type argument at runtime before Python 3.12.)
Bitmap: TypeAlias = "array.array[int] | memoryview"
# A metric's codes for one side to move, uint16 each (an array, or a view of a mapping).
Codes: TypeAlias = "array.array[int] | memoryview"
# A value that fails verify_file's re-derivation: (metric, side to move, index, stored, expected).
Mismatch = tuple[str, int, int, int, int]
# What one metric's build gives: (red's codes, black's codes, its info, its bitmaps).
BuiltMetric = tuple[Codes, Codes, JsonObject, "DtmBitmaps | None"]


class SubTableSpec(NamedTuple):
    """A sub-table as the builder takes it: the table reached by capturing a piece of
    ``color`` and ``piece_type``, its index, its codes of one metric per side to move, and
    whether it is stored for the colour-flipped material (a tuple, so ``_builder`` unpacks it
    as ``(color, kind, indexer, red, black, flip)``)."""
    color: int
    piece_type: int
    indexer: Indexer
    red: Codes
    black: Codes
    flip: int


class RuleBitmaps(NamedTuple):
    """The perpetual-check sets settled on DTM, one bit per index entry: positions whose side
    to move must stop checking (``checker_*``) and the positions its forbidden checks lead to
    (``victim_*``); the builder takes them in this order."""
    checker_red: Bitmap
    checker_black: Bitmap
    victim_red: Bitmap
    victim_black: Bitmap


class DtmBitmaps(NamedTuple):
    """What a DTM build settles besides its codes: the perpetual-check sets and the chase
    marks (red, black)."""
    rules: RuleBitmaps
    chase: tuple[Bitmap, Bitmap]
SMALL_TABLE = 200_000    # positions per side below which a build runs on one thread
CHECKPOINT_SIZE = 20_000_000   # from this many positions per side, finished metrics are kept


class BuildError(RuntimeError):
    """A build that cannot run (memory) or whose result failed its own re-check."""


def available_memory() -> int:
    """Bytes the machine can still give (MemAvailable), or a large number if unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 1 << 62


def memory_needed(material: Material, size: int, sub_sizes: list[int], metrics: int = 3,
                  verify: bool = True) -> int:
    """Peak bytes of a build of ``metrics`` distinct metrics (3, or 2 when DTC60 is DTC).
    The metrics are built one after the other, each with that metric of the sub-tables (for
    DTC and DTC60 only their outcomes, two bits per entry), the earlier metrics' arrays kept
    for the re-check, and the candidate, frontier, next-frontier, tentative, rule,
    outcome-hint and chase bitmaps (one bit per entry and side each).  The re-check then
    reads every metric at once: the table's arrays and the sub-tables' of every metric, and
    the rule bitmaps."""
    own = size * 2 * 2
    # DTM's, two bytes an entry (read in one where every code fits a byte, _load_for_captures:
    # this stays an upper bound); the later metrics' take an eighth of that
    subs = sum(sub_sizes) * 2 * 2
    bitmaps = (2 + 2 + 2 + 2 + 4 + 4 + 2) * size // 8
    kept = metrics if verify else 1
    building = kept * own + subs + bitmaps
    checking = metrics * own + subs + (metrics - 1) * subs // 8 + 4 * size // 8 \
        if verify else 0
    return max(building, checking)


def table_problem(path: Path) -> str | None:
    """Why the table at ``path`` cannot be used (an older format, a bad header, a damaged
    block or a data checksum that does not match), or None for a sound table.  Every block
    is read and checked: the cost of decompressing the file once."""
    try:
        table = TableFile(path)
    except CorruptTableError as error:
        return str(error)
    try:
        table.check_data_checksum()
    except CorruptTableError as error:
        return str(error)
    finally:
        table.close()
    return None


# Build timings vary from run to run: they go to the side file, not into the table's bytes,
# with the work the rule searches did (how a build went, as its threads and seconds).
def _is_timing(key: str) -> bool:
    return key in ("threads", "rule_search_tested") or key.endswith("_seconds")


def split_timings(info: JsonObject) -> tuple[JsonObject, JsonObject]:
    """(what the table stores, the timings kept in its build-info side file)."""
    stored = {k: v for k, v in info.items() if not _is_timing(k)}
    timings = {k: v for k, v in info.items() if _is_timing(k)}
    return stored, timings


def _write_build_info(path: Path, timings: JsonObject) -> None:
    info_path = build_info_path(path)
    temp = info_path.with_name(f"{info_path.name}.{os.getpid()}.tmp")
    temp.write_text(json.dumps(timings, sort_keys=True, indent=1) + "\n", encoding="utf-8")
    os.replace(temp, info_path)


def index_problem(material: Material) -> str | None:
    """Why ``material`` has no table index (too many pieces), or None."""
    canonical = material.canonical()
    # The index's size is a 64-bit count: ask for it only when every placement of every
    # piece, multiplied out, stays well below that (the index itself may wrap around).
    if math.prod(len(legal_points(piece)) for piece in canonical.pieces()) >= 2**62:
        return (f"{canonical} ({canonical.piece_count()} pieces) has too many placements to "
                "index: a table covers a few pieces, not a whole game")
    try:
        indexer_for(canonical)
    except (ValueError, OverflowError) as error:
        return f"{canonical} cannot be indexed ({error})"
    return None


def too_large_reason(material: Material) -> str | None:
    """Why ``material``'s table cannot be built on this machine (it cannot be indexed, or it
    would not fit in the memory available), or None.  Checked before its sub-tables are
    listed: for a large material that list alone takes very long."""
    canonical = material.canonical()
    problem = index_problem(canonical)
    if problem is not None:
        return problem
    size = indexer_for(canonical).size
    need = memory_needed(canonical, size, [])
    have = available_memory()
    if need > have:
        return (f"a table for {canonical} would have {2 * size:,} positions and need at least "
                f"{memory_text(need)} of memory ({memory_text(have)} available)")
    return None


def _refuse_if_too_large(material: Material) -> None:
    reason = too_large_reason(material)
    if reason is not None:
        raise BuildError(reason)


class _Loaded:
    """A finished table's arrays in memory, for use as a sub-table."""

    def __init__(self, material: Material, indexer: Indexer,
                 arrays: Mapping[str, Codes]):
        self.material = material
        self.indexer = indexer
        self.arrays = arrays


def _sub_specs(material: Material, loaded: dict[str, _Loaded],
               metric: str) -> list[SubTableSpec]:
    """The sub-table of every capture of ``material``, with its codes of ``metric``."""
    specs: list[SubTableSpec] = []
    for piece in material.pieces():
        if piece.piece_type == 1:
            continue
        letters = (material.red if piece.color == 0 else material.black)
        reduced = letters.replace(piece.symbol().upper(), "", 1)
        sub = (Material(reduced, material.black) if piece.color == 0
               else Material(material.red, reduced))
        canonical = sub.canonical()
        table = loaded[str(canonical)]
        flip = 0 if canonical == sub else 1
        specs.append(SubTableSpec(piece.color, piece.piece_type, table.indexer,
                                  table.arrays[f"{metric}/red"], table.arrays[f"{metric}/black"],
                                  flip))
    return specs


def build(materials: str | list[str], directory: Path | str, threads: int = 1,
          rebuild: bool = False, log: Callable[[str], None] = print,
          progress: Callable[[str, int, int], None] | None = None,
          verify: bool = True, sub_tables: bool = True,
          rules: str | None = None, verbose: bool = False) -> dict[str, JsonObject]:
    """Build the tables of ``materials`` and every sub-table they need into ``directory``.

    ``rules`` (``"chinese"``): the two-sided tables apply that rule set's chase rule too and
    go into its own directory (:func:`rules_directory`), where the one-sided tables, the
    same under every rule set, are links to the files of ``directory``.

    Existing files are reused unless ``rebuild``.  ``verify`` False skips the full re-check
    of every metric (about a quarter of the build's time): the header then says ``unverified``
    and ``xqstudio tb verify`` can run the check later; a verified build rebuilds such a
    table when it needs it.  ``sub_tables`` False builds only ``materials`` themselves, whose
    sub-tables the caller has made sure of (a cluster task: ``tablebases.cluster``).  Returns
    a summary per built material.

    ``log`` gets a short line per metric built (``KRKN dtm: 27 passes, 0.4 s``); ``verbose``
    adds the developer figures to it and to the re-check's line: the positions per second per
    thread per pass and the CPU seconds of each phase (``tb build --verbose``).  The summary
    and the build-info side file hold every figure either way.
    """
    if isinstance(materials, str):
        materials = [materials]
    directory = Path(directory)
    for text in materials:
        _refuse_if_too_large(Material.parse(text).canonical())
    order: list[Material] = []
    for text in materials:
        wanted = Material.parse(text)
        for material in wanted.build_order() if sub_tables else [wanted.canonical()]:
            if material not in order:
                order.append(material)
    requested = {str(Material.parse(t).canonical()) for t in materials}
    header_rules = rules_for(rules)
    summary: dict[str, JsonObject] = {}
    for material in order:
        name = str(material)
        if rules is not None:
            _link_shared_table(material, directory, rules)
        where = rules_directory(directory, rules) if rules and two_sided(material) else directory
        attacks = AttackRules.RULES_CHINESE if where != directory else AttackRules.RULES_CHECK
        path = table_path(where, name)
        if path.exists() and not (rebuild and name in requested):
            problem = table_problem(path)
            if problem is None and verify and read_header(path).extra.get("unverified"):
                # A verified build stands on verified sub-tables only.
                log(f"{name}: {path} was built without the re-check; building it again")
            elif problem is None:
                continue
            else:
                log(f"{name}: {path} is damaged or of an older format ({problem}); "
                    "rebuilding it")
        if rules is not None and where == directory:
            summary.update(build(name, directory, threads, rebuild and name in requested, log,
                                 progress, verify, sub_tables=False, verbose=verbose))
            _link_shared_table(material, directory, rules)
            continue
        indexer = indexer_for(material)
        sub_sizes = [indexer_for(sub).size for sub in {s.canonical() for s in material.captures()}]
        need = memory_needed(material, indexer.size, sub_sizes)
        have = available_memory()
        log(f"{name}: {indexer.size * 2:,} positions, needs about {memory_text(need)} "
            f"(available {memory_text(have)})")
        if need > have:
            raise BuildError(f"{name} needs about {memory_text(need)} of memory but only "
                             f"{memory_text(have)} is available")
        estimate = estimated_seconds(indexer.size, threads,
                                     chase=attacks != AttackRules.RULES_CHECK, material=material)
        log(f"{name}: estimated {duration_text(estimate)} on {threads} "
            f"{'thread' if threads == 1 else 'threads'}")
        if progress is not None and hasattr(progress, "start_table"):
            progress.start_table(name, estimate)
        if rebuild and name in requested:
            remove_checkpoints(where, name)
        writer = TableWriter(path, 1 if indexer.size < SMALL_TABLE else threads)
        try:
            counts, info = _build_one(material, indexer, where, threads, log, progress, writer,
                                      verify, attacks, verbose)
            stored, timings = split_timings(info)
            finish_start = time.perf_counter()
            writer.finish(TableHeader(material=name, size=indexer.size, metrics=list(METRICS),
                                      rules=header_rules if where != directory else RULES,
                                      counts=counts, extra=stored))
            # The header and the copy of the compressed blocks into the file.
            info["finish_seconds"] = timings["finish_seconds"] = \
                round(time.perf_counter() - finish_start, 3)
        finally:
            writer.close()
        _write_build_info(path, timings)
        remove_checkpoints(where, name)
        log(f"{name}: written {path} ({path.stat().st_size / 2**20:.2f} MiB)")
        summary[name] = {**info, "counts": counts, "path": str(path), "verified": verify}
    return summary


def two_sided(material: Material) -> bool:
    """Whether both sides have attacking pieces: only such a table's values can depend on
    the chase rule (a one-sided table is the same under every rule set).

    >>> two_sided(Material.parse("KRKN")), two_sided(Material.parse("KRKAABB"))
    (True, False)
    """
    return material.side_has_attackers(0) and material.side_has_attackers(1)


def rules_directory(directory: Path | str, rules: str) -> Path:
    """Where the tables built under the rule set ``rules`` live: a directory of that name in
    ``directory`` (which keeps the tables that apply perpetual check only).

    >>> str(rules_directory("/tables", "chinese"))
    '/tables/chinese'
    """
    rules_for(rules)                    # an unknown rule set is refused here
    return Path(directory) / rules


def _link_shared_table(material: Material, directory: Path, rules: str) -> None:
    """Make a one-sided ``material``'s table (built in ``directory``) visible in the rule
    set's directory, by a relative symbolic link: it is the same under every rule set."""
    if two_sided(material):
        return
    target = table_path(directory, str(material))
    link = table_path(rules_directory(directory, rules), str(material))
    link.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists() or link.is_symlink() or link.exists():
        return
    temp = link.with_name(f"{link.name}.{os.getpid()}.tmp")
    temp.unlink(missing_ok=True)
    temp.symlink_to(os.path.relpath(target, link.parent))
    os.replace(temp, link)


# Seconds per index entry (one side to move) and thread for the whole build: three metrics,
# their re-checks and the perpetual-check rounds, measured on the benchmark machine (the
# median over 15 tables of 1.3 M to 51.8 M entries, 2026-11-30: 7.9 microseconds).
SECONDS_PER_ENTRY = 8e-6
# What the chase rule's rounds add to a two-sided table built under the Chinese rules, per
# entry and thread: the perpetual-attack search (the chase and mate-threat tests on the
# drawing moves of every draw), measured on KRKR (2.7 microseconds, 2026-12-02, load 8).
# Only the first round's search tests every draw (the later ones what their round changed),
# so one search is counted; a round that finds positions also rebuilds DTM, as the
# perpetual-check rounds of the default build do.
CHASE_SECONDS_PER_ENTRY = 2.7e-6
# A rook on each side and at least five pieces (K R P vs K R, K R C vs K R, K R N vs K R):
# long mates, so many DTM passes, and perpetual checks everywhere, so long perpetual-check
# rounds.  Measured CPU seconds an entry (2026-12-02, load 5-11): KRPKR 28.1, KRCKR 29.6,
# KRNKR 17.7 µs (the other two-sided tables 1.8-7.9, the one-sided 1.0-2.6): 25 µs an
# entry, 3× the general figure.  Under the Chinese rules KRNKR took 58.3 µs: the chase
# rounds rebuild DTM several times (8 rounds), so they add 35 µs an entry there.
ROOK_PAIR_SECONDS_PER_ENTRY = 25e-6
ROOK_PAIR_CHASE_SECONDS_PER_ENTRY = 35e-6


def _rook_pair(material: Material | None) -> bool:
    """A rook on each side, five pieces or more (see ROOK_PAIR_SECONDS_PER_ENTRY).

    >>> _rook_pair(Material.parse("KRPKR")), _rook_pair(Material.parse("KRKR"))
    (True, False)
    """
    return (material is not None and material.piece_count() >= 5
            and "R" in material.red and "R" in material.black)


def estimated_seconds(size: int, threads: int, chase: bool = False,
                      material: Material | None = None) -> float:
    """A rough time estimate for building a table of ``size`` entries per side (``chase``:
    a two-sided table under the Chinese rules, with the chase rule's rounds; ``material``,
    when given, picks the figure of its kind: see ROOK_PAIR_SECONDS_PER_ENTRY).

    >>> estimated_seconds(1_000_000, 1), estimated_seconds(1_000_000, 1, chase=True)
    (8.0, 10.7)
    >>> estimated_seconds(1_000_000, 1, material=Material.parse("KRPKR"))
    25.0
    """
    speedup = 1 if size < SMALL_TABLE else max(1.0, 0.8 * threads)
    if _rook_pair(material):
        per_entry = ROOK_PAIR_SECONDS_PER_ENTRY + (
            ROOK_PAIR_CHASE_SECONDS_PER_ENTRY if chase else 0.0)
    else:
        per_entry = SECONDS_PER_ENTRY + (CHASE_SECONDS_PER_ENTRY if chase else 0.0)
    return size * per_entry / speedup


def _load_sub_tables(material: Material, directory: Path,
                     metrics: tuple[str, ...] = METRICS,
                     into: dict[str, _Loaded] | None = None) -> dict[str, _Loaded]:
    """The direct sub-tables of ``material`` (only ``metrics``), read from their files;
    ``into``: sub-tables already loaded (with other metrics), which gain the missing ones."""
    loaded = {} if into is None else into
    for sub in material.captures():
        canonical = sub.canonical()
        known = loaded.get(str(canonical))
        missing = [m for m in metrics
                   if known is None or f"{m}/red" not in known.arrays]
        if not missing:
            continue
        indexer = indexer_for(canonical)
        table = TableFile(table_path(directory, str(canonical)))
        try:
            arrays = {f"{m}/{s}": _load_for_captures(table, m, i, indexer.size)
                      for m in missing for i, s in enumerate(("red", "black"))}
        finally:
            table.close()
        if known is None:
            loaded[str(canonical)] = _Loaded(canonical, indexer, arrays)
        else:
            known.arrays = {**known.arrays, **arrays}
    return loaded


def _load_for_captures(table: TableFile, metric: str, side: int,
                       entries: int) -> Codes:
    """A sub-table's codes of ``metric`` as the builder reads them after a capture: DTM's in
    full; for the metrics whose count ends at the capture (DTC, DTC60) only the outcome, two
    bits per entry (``pack_outcomes``: all those metrics read of a sub-table's code, an
    eighth of its memory), for at least the ``entries`` of its index (a file of another
    size, a damaged one, then fails the re-check instead of the loading)."""
    resets, limit = METRIC_RULES[metric]
    name = f"{metric}/{SIDES[side]}"
    if not resets:
        narrow = _narrow_for_captures(table, name, entries)
        return narrow if narrow is not None else table.load_codes(metric, side)
    packed = _zeroed_bitmaps(2 * max(entries, table.header.lengths.get(name, table.header.size)),
                             1)[0]
    for start, block in table.blocks(name):
        pack_outcomes(block, packed, start, limit)
    return packed


def _narrow_for_captures(table: TableFile, name: str, entries: int) -> memoryview | None:
    """Array ``name`` of ``table`` (DTM's codes, which the builder reads in full after a
    capture) in a byte per entry (``narrow_codes``: half the memory of the codes), for at
    least ``entries``, filled block by block; None if a code does not fit in a byte."""
    length = max(entries, table.header.lengths.get(name, table.header.size))
    narrow = zeroed_words((length + 7) // 8).cast("B")[:length]
    for start, block in table.blocks(name):
        if not narrow_codes(block, narrow, start):
            return None
    return narrow


def _zeroed_bitmaps(size: int, count: int = 4) -> list[memoryview]:
    """``count`` zeroed bitmaps of one bit per index entry (the outcome hints: draw red,
    draw black, loss red, loss black), each in a mapping of its own (returned to the system
    when dropped)."""
    words = (size + 63) // 64
    return [zeroed_words(words) for _ in range(count)]


def _zeroed_rules(size: int) -> RuleBitmaps:
    return RuleBitmaps(*_zeroed_bitmaps(size, 4))


def _zeroed_chase(size: int) -> tuple[Bitmap, Bitmap]:
    red, black = _zeroed_bitmaps(size, 2)
    return red, black


def _bitmap_to_u16(bits: Bitmap) -> memoryview | array.array[int]:
    """The bitmap as the little-endian uint16 words the file stores (a view, no copy, on a
    little-endian machine)."""
    if sys.byteorder == "little":
        return memoryview(bits).cast("B").cast("H")
    out = array.array("H")
    out.frombytes(_swap64(bits))
    return out


def _u16_to_bitmap(words: array.array[int], size: int) -> array.array[int]:
    out = array.array("Q")
    out.frombytes(words.tobytes()[: 8 * ((size + 63) // 64)])
    return out


def _swap64(bits: Bitmap) -> bytes:
    swapped = array.array("Q", bits)
    swapped.byteswap()
    return swapped.tobytes()


RULE_ARRAYS = ("rules/checker_red", "rules/checker_black", "rules/victim_red", "rules/victim_black")
CHASE_ARRAYS = ("rules/chase_red", "rules/chase_black")


def chase_marks(material: Material, indexer: Indexer, red: Codes,
                black: Codes, subs: list[SubTableSpec],
                threads: int) -> tuple[tuple[Bitmap, Bitmap], int]:
    """The chase-rule marks (bitmaps per side to move) of a finished DTM build: the draws
    whose value the chase rule could change.  Only tables where both sides have attacking
    pieces can hold a chase cycle; the others get empty marks."""
    marks = _zeroed_chase(indexer.size)
    if not (material.side_has_attackers(0) and material.side_has_attackers(1)):
        return marks, 0
    count = chase_sensitive_draws(indexer, red, black, subs, marks[0], marks[1],
                                  threads=threads)
    return marks, count


def _dtc60_is_dtc(material: Material, directory: Path) -> bool:
    """Whether ``material``'s DTC60 must equal its DTC: every direct sub-table's DTC60 is its
    DTC and none of their distances exceeds the natural limit, so the two builds would read
    the same code for every capture (within a table the limit does not cut distances)."""
    for sub in {s.canonical() for s in material.captures()}:
        header = read_header(table_path(directory, str(sub)))
        if not header.extra.get("dtc60_is_dtc"):
            return False
        if any(header.counts[side]["longest_dtc_plies"] > NATURAL_LIMIT_PLIES
               for side in ("red", "black")):
            return False
    return True


def checkpoint_path(directory: Path, name: str, metric: str) -> Path:
    """Where a build keeps a finished, re-checked metric until the table is written."""
    return table_path(directory, name).with_name(f"{name}{SUFFIX}.{metric}-partial")


def remove_checkpoints(directory: Path, name: str) -> None:
    for metric in METRICS:
        checkpoint_path(directory, name, metric).unlink(missing_ok=True)


def _load_checkpoint(directory: Path, name: str, size: int, metric: str) -> BuiltMetric | None:
    """(red, black, info, bitmaps) of a metric an interrupted build finished, or None."""
    path = checkpoint_path(directory, name, metric)
    if not path.exists():
        return None
    try:
        table = TableFile(path)
        try:
            header = table.header
            if header.material != name or header.size != size or \
                    header.extra.get("checkpoint_of") != metric:
                raise CorruptTableError(path, 8, "not a checkpoint of this build")
            red, black = table.load_codes(metric, 0), table.load_codes(metric, 1)
            bitmaps = None
            if table.has_array(RULE_ARRAYS[0]):
                rules = RuleBitmaps(*(_u16_to_bitmap(table.load_array(n), size)
                                      for n in RULE_ARRAYS))
                chase_red, chase_black = (_u16_to_bitmap(table.load_array(n), size)
                                          for n in CHASE_ARRAYS)
                bitmaps = DtmBitmaps(rules, (chase_red, chase_black))
        finally:
            table.close()
    except CorruptTableError:
        path.unlink(missing_ok=True)
        return None
    return red, black, header.extra, bitmaps


def _checkpoint_writer(directory: Path, name: str, metric: str,
                       keep: bool) -> TableWriter | None:
    """The writer of a metric's checkpoint (a large build's), or None."""
    return TableWriter(checkpoint_path(directory, name, metric)) if keep else None


def _finish_checkpoint(checkpoint: TableWriter, directory: Path, name: str, size: int,
                       metric: str, info: JsonObject, bitmaps: DtmBitmaps | None) -> None:
    """Write a finished metric's checkpoint: its codes were stored in ``checkpoint`` as the
    table's writer compressed them; DTM adds the perpetual-check sets and chase marks."""
    if bitmaps is not None:
        for array_name, bits in zip(RULE_ARRAYS + CHASE_ARRAYS,
                                    (*bitmaps.rules, *bitmaps.chase)):
            checkpoint.add(array_name, _bitmap_to_u16(bits))
    checkpoint.finish(TableHeader(material=name, size=size, metrics=[metric], rules=RULES,
                                  extra={**info, "checkpoint_of": metric}))


def _build_one(material: Material, indexer: Indexer, directory: Path, threads: int,
               log: Callable[[str], None], progress: Callable[[str, int, int], None] | None,
               writer: TableWriter, verify: bool = True,
               attacks: int = AttackRules.RULES_CHECK,
               verbose: bool = False) -> tuple[JsonObject, JsonObject]:
    """Build the metrics one after the other, each with only its own sub-table arrays in
    memory, and hand each to ``writer`` as soon as it is built; then re-check every metric
    at once (each position's successors read once for all of them).  Each finished metric is
    also kept as a checkpoint, so that an interrupted build of a large table resumes with
    the next metric (the re-check at the end covers the resumed metrics too).  ``attacks``:
    what the rule rounds forbid (AttackRules).  Returns (counts, info)."""
    name = str(material)
    counts: dict[str, JsonObject] = {}
    # Small tables finish faster on one thread than the threads take to synchronise per pass.
    threads = 1 if indexer.size < SMALL_TABLE else threads
    info: JsonObject = {"threads": threads}
    if not verify:
        info["unverified"] = True       # stored in the header: no re-check was run
    rules = _zeroed_rules(indexer.size)
    chase = _zeroed_chase(indexer.size)
    hints = None        # DTM's draws and losses, for the later metrics
    # Where DTM's first sweep leaves code 0, so does every later metric's (retrograde):
    # the first half of the hints, set by DTM's build.
    sweep_zeros = _zeroed_bitmaps(indexer.size, 2)
    dtc60_is_dtc = _dtc60_is_dtc(material, directory)
    info["dtc60_is_dtc"] = dtc60_is_dtc
    keep_checkpoints = indexer.size >= CHECKPOINT_SIZE
    writing: dict[str, float] = {}
    dtc: tuple[Codes, Codes] | None = None
    # The arrays of each distinct metric, for the re-check.
    built: dict[str, tuple[Codes, Codes]] = {}
    loaded: dict[str, _Loaded] = {}     # the sub-tables of the last metric built
    for metric in METRICS:
        checkpoint = None
        if metric == "dtc60" and dtc60_is_dtc:
            # Same sub-table codes, none beyond the limit: the build would repeat DTC's.
            log(f"{name} dtc60: no conversion below reaches the natural limit; DTC60 is DTC")
            info.update(dtc60_passes=0, dtc60_seconds=0.0, dtc60_cpu_seconds=0.0)
            assert dtc is not None, "METRICS builds DTC before DTC60"
            red, black = dtc
        else:
            saved = _load_checkpoint(directory, name, indexer.size, metric) \
                if keep_checkpoints else None
            loaded.clear()
            if saved is not None:
                red, black, metric_info, bitmaps = saved
                log(f"{name} {metric}: resumed from {checkpoint_path(directory, name, metric)}")
            else:
                red, black, metric_info, bitmaps = _build_metric(
                    material, indexer, directory, metric, threads, rules, hints, log, progress,
                    loaded, attacks, sweep_zeros if metric == "dtm" else None, verbose)
                checkpoint = _checkpoint_writer(directory, name, metric, keep_checkpoints)
            if metric == "dtm" and bitmaps is not None:
                rules, chase = bitmaps.rules, bitmaps.chase
            info.update({k: v for k, v in metric_info.items()
                         if k not in ("checkpoint_of", "unverified")})
            if verify:
                built[metric] = (red, black)
        try:
            with _phase(writing, "write"):      # compression of the arrays into the scratch file
                for side, values in (("red", red), ("black", black)):
                    summarise_metric(metric, side, values, counts)
                    writer.add(f"{metric}/{side}", values, copy_to=checkpoint)
                if checkpoint is not None:
                    _finish_checkpoint(checkpoint, directory, name, indexer.size, metric,
                                       metric_info, bitmaps)
        finally:
            if checkpoint is not None:
                checkpoint.close()
        if metric == "dtm":
            # zero red, zero black (DTM's draws added), loss red, loss black
            hints = [*sweep_zeros, *_zeroed_bitmaps(indexer.size, 2)]
            sweep_zeros = []            # the hints hold them now (freed with the hints)
            outcome_bitmaps(red, hints[0], hints[2])
            outcome_bitmaps(black, hints[1], hints[3])
        if metric == "dtc" and dtc60_is_dtc:
            dtc = red, black            # stored again as DTC60
        del red, black
    del hints, dtc
    if verify:
        with _phase(info, "recheck"):
            _recheck_built(material, indexer, directory, built, loaded, rules, threads, attacks)
        cpu = f" (CPU s {info['recheck_cpu_seconds']:.2f})" if verbose else ""
        log(f"{name}: re-check of {', '.join(built)} at once in "
            f"{_seconds(info['recheck_seconds'], verbose)}{cpu}")
        for key in ("recheck_seconds", "recheck_cpu_seconds"):
            info[key] = round(info[key], 3)
    else:
        log(f"{name}: not re-checked (xqstudio tb verify {name} checks it later)")
    built.clear()
    loaded.clear()
    for side, marks in zip(("red", "black"), chase):
        counts[side]["chase_marked"] = sum(bin(word).count("1") for word in marks)
    info["perpetual_check_positions"] = sum(bin(w).count("1") for w in rules.checker_red) + \
        sum(bin(w).count("1") for w in rules.checker_black)
    with _phase(writing, "write"):
        for array_name, bits in zip(RULE_ARRAYS + CHASE_ARRAYS, (*rules, *chase)):
            writer.add(array_name, _bitmap_to_u16(bits))
    info.update({key: round(seconds, 3) for key, seconds in writing.items()})
    return counts, info


def _recheck_built(material: Material, indexer: Indexer, directory: Path,
                   built: dict[str, tuple[Codes, Codes]], loaded: dict[str, _Loaded],
                   rules: RuleBitmaps, threads: int,
                   attacks: int = AttackRules.RULES_CHECK) -> None:
    """Re-derive every value of the ``built`` metrics from its successors, all metrics at
    once (``loaded``: sub-tables already in memory, completed with the other metrics);
    raise BuildError at the first failing values."""
    name = str(material)
    _load_sub_tables(material, directory, tuple(built), into=loaded)
    metrics = [(red, black, _sub_specs(material, loaded, metric), *METRIC_RULES[metric])
               for metric, (red, black) in built.items()]
    bad, examples = recheck_all(indexer, metrics, threads=threads, max_report=3,
                                rules=(*rules, attacks))
    if any(bad):
        names = list(built)
        failing = ", ".join(f"{names[k]} {count}" for k, count in enumerate(bad) if count)
        raise BuildError(f"{name}: values fail the re-check ({failing}), e.g. "
                         f"{[(names[k], *rest) for k, *rest in examples[:3]]} "
                         "(metric, side, index, stored, expected)")


def _build_metric(material: Material, indexer: Indexer, directory: Path, metric: str,
                  threads: int, rules: RuleBitmaps, hints: Sequence[Bitmap] | None,
                  log: Callable[[str], None],
                  progress: Callable[[str, int, int], None] | None,
                  loaded: dict[str, _Loaded] | None = None,
                  attacks: int = AttackRules.RULES_CHECK,
                  sweep_zeros: Sequence[Bitmap] | None = None,
                  verbose: bool = False) -> BuiltMetric:
    """One metric by retrograde analysis (the re-check comes once all metrics are built):
    (red, black, info, bitmaps), the bitmaps being, for DTM, the perpetual-check sets it
    settled (``rules``, filled in place) and the chase marks.  ``loaded`` receives the
    sub-tables it read.  ``attacks`` RULES_CHINESE: each round also settles the perpetual
    attacks (checks and chases) of the Chinese rules, and no chase marks are made (the
    values are final under those rules).  ``sweep_zeros``: two bitmaps (red, black) that
    receive the entries the last round's first sweep left at code 0 (retrograde).
    ``verbose``: the metric's log line has the rate and the CPU seconds of each phase."""
    name = str(material)
    loaded = _load_sub_tables(material, directory, (metric,), into=loaded)
    subs = _sub_specs(material, loaded, metric)
    resets, limit = METRIC_RULES[metric]
    apply_rule = material.has_attackers()
    info: JsonObject = {}
    bitmaps: DtmBitmaps | None = None

    def report(n: int, found: int) -> None:
        if progress is not None:
            progress(f"{name} {metric}", n, found)

    start = time.perf_counter()
    cpu_start = time.process_time()     # every thread's: the per-thread rate on a busy machine
    passes = rounds = 0
    # Wall and CPU seconds per phase (retrograde's own, then the rule's).
    phases: dict[str, float] = {}
    # The rule searches' candidates and draws from round to round: a round tests again only
    # the positions whose successors' values changed.
    searches = RuleRounds(indexer) if metric == "dtm" and apply_rule else None
    examined: list[int] = []            # positions each round's searches tested
    red = black = None
    while True:
        del red, black                  # a new round's arrays replace the last round's
        red = zeroed_codes(indexer.size)
        black = zeroed_codes(indexer.size)
        passes += retrograde(indexer, red, black, subs, capture_resets=resets,
                             capture_limit=limit, threads=threads, progress=report,
                             rules=(*rules, attacks), hints=hints, timings=phases,
                             sweep_zeros=sweep_zeros)
        # The perpetual-check rule is settled on DTM; the other metrics reuse its sets.
        if metric != "dtm" or not apply_rule:
            break
        assert searches is not None
        before = searches.examined_total
        with _phase(phases, "perpetual_check"):
            found = perpetual_check_sets(indexer, red, black, subs, *rules, threads=threads,
                                         cache=searches)
        chased = 0
        if attacks != AttackRules.RULES_CHECK:
            with _phase(phases, "chase"):
                chased = perpetual_check_sets(indexer, red, black, subs, *rules,
                                              threads=threads, attacks=attacks, cache=searches)
        examined.append(searches.examined_total - before)
        if not found and not chased:
            break
        rounds += 1
        attacking = f", {chased:,} must stop attacking (checks and chases)" \
            if attacks != AttackRules.RULES_CHECK else ""
        log(f"{name}: perpetual-check round {rounds}: {found:,} positions must stop "
            f"checking{attacking} ({examined[-1]:,} positions tested); rebuilding")
    elapsed = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu_start
    rate = indexer.size * 2 * passes / elapsed / threads if elapsed > 0 else 0.0
    if verbose:
        log(f"{name} {metric}: {passes} passes in {elapsed:.2f} s "
            f"({rate / 1e6:.1f} M positions/s per thread per pass); "
            f"CPU s: {_phase_summary(phases)}")
    else:
        log(f"{name} {metric}: {passes} {'pass' if passes == 1 else 'passes'}, "
            f"{_seconds(elapsed)}")
    info[f"{metric}_passes"] = passes
    info[f"{metric}_seconds"] = round(elapsed, 3)
    info[f"{metric}_cpu_seconds"] = round(cpu_seconds, 3)
    for key, seconds in phases.items():
        info[f"{metric}_{key}"] = round(seconds, 3)
    if metric == "dtm":
        info["perpetual_check_rounds"] = rounds
        info["rule_search_tested"] = examined
        chase_time: dict[str, float] = {}
        with _phase(chase_time, "chase_marks"):
            chase, marked = chase_marks(material, indexer, red, black, subs, threads) \
                if attacks == AttackRules.RULES_CHECK else (_zeroed_chase(indexer.size), 0)
        info["chase_marked_positions"] = marked
        info.update({key: round(seconds, 3) for key, seconds in chase_time.items()})
        if marked:
            log(f"{name}: {marked:,} drawn positions could change under the chase rule")
        bitmaps = DtmBitmaps(rules, chase)
    return red, black, info, bitmaps


# The phases of a metric's build, in the order they run (the build-info keys
# ``<metric>_<phase>_seconds`` and ``<metric>_<phase>_cpu_seconds``).
# The re-check, of every metric at once, is timed apart (``recheck_seconds``,
# ``recheck_cpu_seconds``).
PHASES = ("first_sweep", "unmoves", "candidates", "settle", "perpetual_check", "chase")


@contextmanager
def _phase(phases: dict[str, float], phase: str) -> Iterator[None]:
    """Add the wall and CPU seconds of the block to ``phases`` (as retrograde does for its
    own phases)."""
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        yield
    finally:
        for key, spent in ((f"{phase}_seconds", time.perf_counter() - wall),
                           (f"{phase}_cpu_seconds", time.process_time() - cpu)):
            phases[key] = phases.get(key, 0.0) + spent


def _seconds(seconds: float, verbose: bool = False) -> str:
    """``14.3 s`` (``0.04 s`` under a tenth; two decimals always when ``verbose``)."""
    return f"{seconds:.2f} s" if verbose or seconds < 0.1 else f"{seconds:.1f} s"


def _phase_summary(phases: dict[str, float]) -> str:
    return ", ".join(f"{phase} {phases[f'{phase}_cpu_seconds']:.2f}" for phase in PHASES
                     if f"{phase}_cpu_seconds" in phases)


def verify_file(material: str, directory: Path | str, threads: int = 1,
                examples: list[Mismatch] | None = None,
                rules: str | None = None) -> dict[str, int]:
    """Re-derive every stored value of ``material``'s file from its successors.

    Returns the mismatch count per metric (all zero for a sound table), and under "rule
    rounds" how many drawn positions the repetition rules of the table's rule set would
    still decide (its perpetual-check and, under ``rules`` "chinese", perpetual-attack
    rounds run afresh on the stored values: 0 when the values obey them).  ``examples``, if
    given, receives the first mismatches of each metric as (metric, side to move, index,
    stored code, expected code)."""
    material_obj = Material.parse(material).canonical()
    directory = Path(directory)
    if rules is not None and two_sided(material_obj):
        directory = rules_directory(directory, rules)
    path = table_path(directory, str(material_obj))
    if not path.exists():
        raise FileNotFoundError(f"missing table {path}")
    for sub in material_obj.captures():
        sub_path = table_path(directory, str(sub.canonical()))
        if not sub_path.exists():
            raise FileNotFoundError(f"missing table {sub_path} (needed to verify {material_obj})")
    table = TableFile(path)
    try:
        table.check_data_checksum()
        bitmaps = RuleBitmaps(*(_u16_to_bitmap(table.load_array(n), table.header.size)
                                for n in RULE_ARRAYS))
        stored_chase = [_u16_to_bitmap(table.load_array(n), table.header.size)
                        for n in CHASE_ARRAYS]
        attacks = AttackRules.RULES_CHINESE \
            if table.header.rules.get("rule_set_name") == "chinese" else AttackRules.RULES_CHECK
        arrays = {f"{m}/{s}": table.load_codes(m, i) for m in METRICS
                  for i, s in enumerate(("red", "black"))}
    finally:
        table.close()
    indexer = indexer_for(material_obj)
    loaded = _load_sub_tables(material_obj, directory)
    metrics = [(arrays[f"{m}/red"], arrays[f"{m}/black"], _sub_specs(material_obj, loaded, m),
                *METRIC_RULES[m]) for m in METRICS]
    bad, first = recheck_all(indexer, metrics, threads=threads, max_report=5,
                             rules=(*bitmaps, attacks))
    result = {}
    for number, metric in enumerate(METRICS):
        result[metric] = bad[number]
        if examples is not None:
            examples.extend((metric, *mismatch[1:]) for mismatch in first
                            if mismatch[0] == number)
        if metric == "dtm":
            chase, _ = chase_marks(material_obj, indexer, arrays["dtm/red"], arrays["dtm/black"],
                                   metrics[0][2], threads) \
                if attacks == AttackRules.RULES_CHECK else (_zeroed_chase(indexer.size), 0)
            result["chase marks"] = sum(bin(a ^ b).count("1") for stored, fresh in
                                        zip(stored_chase, chase) for a, b in zip(stored, fresh))
    result["rule rounds"] = _rule_rounds_left(material_obj, indexer, arrays["dtm/red"],
                                              arrays["dtm/black"], metrics[0][2], threads, attacks)
    return result


def _rule_rounds_left(material: Material, indexer: Indexer, red: Codes,
                      black: Codes, subs: list[SubTableSpec], threads: int,
                      attacks: int) -> int:
    """The drawn positions the rule rounds would still decide on finished DTM values, found
    with fresh bitmaps (not the stored sets): the build's last round found none."""
    if not material.has_attackers():
        return 0
    fresh = _zeroed_rules(indexer.size)
    found = perpetual_check_sets(indexer, red, black, subs, *fresh, threads=threads)
    if attacks != AttackRules.RULES_CHECK:
        found += perpetual_check_sets(indexer, red, black, subs, *fresh, threads=threads,
                                      attacks=attacks)
    return found


def default_threads() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)
