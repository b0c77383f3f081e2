"""Verifying a composition: the searches behind a recorded verdict, in one place.

``xqstudio catalogue verify`` (one process or a Dask cluster) and the collection runner
``benchmarks/solve_collection.py`` (resumable runs of a whole book) both judge a
composition with :func:`verify_composition`: a draw study by the draw analysis; any other
first as a continuous-check problem and, if that proves none, with quiet moves; a win
without a proven mate is a table draw when its table says so, else the other side's mate
against every move is sought (:func:`solver.refute.refute`).  What the searches may spend is
a :class:`VerifySettings`.

Verdicts as the catalogue records them: "mate", "mate within N", "no mate within N",
"unproven", "refuted", "refuted within N", "table draw"; a draw study's "draw", "no win
within N", "unproven within N" ....
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from solver import Limits, Solver
from solver.draw import DrawAnalysis
from solver.refute import DEFAULT_REFUTATION_MOVES, Refutation, refute
from solver.search import (
    DEFAULT_LAMBDA_ORDERS,
    DEFAULT_PROPOSER,
    DEFAULT_PROPOSER_SHARE,
    SolveResult,
    table_mate_moves,
)
from tablebases import open_tablebase
from xiangqi import Board, Move
from xiangqi.notation import write_line
from xiangqi.output import JsonObject

if TYPE_CHECKING:
    from tablebases.probe import Tablebase

# Moves of a composition's continuous-check search.
CHECKS_BOUND = 80
# Moves of its quiet-move search (a longer mate of the position's table raises it).
WIN_BOUND = 30
# A win stipulation whose position a table covers and gives the side to move neither a win
# nor a loss: a draw as set, whatever the number of moves (the table's value, not a bound).
TABLE_DRAW = "table draw"


@dataclass(frozen=True)
class VerifySettings:
    """What the searches of one composition may spend (seconds and nodes each, 0: no limit)
    and their bounds; ``tables``: a directory of tablebases answering leaves (one every
    worker of a cluster sees), or None.  ``refute``: look for the other side's mate when no
    mate is proven."""
    checks_seconds: float = 60.0
    checks_nodes: int = 0
    checks_moves: int = CHECKS_BOUND
    any_seconds: float = 60.0
    any_nodes: int = 0
    any_moves: int = WIN_BOUND
    refute: bool = True
    refute_seconds: float = 60.0
    refute_nodes: int = 0
    refute_moves: int = DEFAULT_REFUTATION_MOVES
    orders: int = DEFAULT_LAMBDA_ORDERS
    proposer_share: float = DEFAULT_PROPOSER_SHARE
    proposer: str = DEFAULT_PROPOSER
    threads: int = 1
    tables: str | None = None

    @classmethod
    def uniform(cls, seconds: float = 60.0, nodes: int = 0, max_moves: int = WIN_BOUND,
                tables: str | None = None, threads: int = 1) -> VerifySettings:
        """The same ``seconds`` and ``nodes`` for every search (``catalogue verify``)."""
        return cls(checks_seconds=seconds, checks_nodes=nodes, any_seconds=seconds,
                   any_nodes=nodes, any_moves=max_moves, refute_seconds=seconds,
                   refute_nodes=nodes, tables=tables, threads=threads)

    def budget_text(self, stipulation: str) -> str:
        """What a verdict of ``stipulation`` was searched within, in words (recorded beside
        it, so that "unproven" says under what budget):

        >>> VerifySettings(any_seconds=0, any_nodes=5_000_000).budget_text("win")
        'budget 5,000,000 nodes'
        >>> VerifySettings(checks_seconds=30).budget_text("checks")
        'budget 30 s'
        """
        if stipulation == "checks":
            return f"budget {limits_text(self.checks_seconds, self.checks_nodes)}"
        return f"budget {limits_text(self.any_seconds, self.any_nodes)}"

    def checks_limits(self) -> Limits:
        return Limits(seconds=self.checks_seconds, nodes=self.checks_nodes, threads=self.threads)

    def any_limits(self) -> Limits:
        return Limits(seconds=self.any_seconds, nodes=self.any_nodes, lambda_orders=self.orders,
                      proposer_share=self.proposer_share, proposer=self.proposer,
                      threads=self.threads)

    def refute_limits(self) -> Limits:
        return Limits(seconds=self.refute_seconds, nodes=self.refute_nodes,
                      lambda_orders=self.orders, threads=self.threads)


def limits_text(seconds: float, nodes: int) -> str:
    """``30 s``, ``5,000,000 nodes``, ``60 s and 1,000,000 nodes`` or ``no limit``."""
    parts = ([f"{seconds:g} s"] if seconds else []) + ([f"{nodes:,} nodes"] if nodes else [])
    return " and ".join(parts) or "no limit"


def search_verdict(result: SolveResult) -> str:
    """A :func:`solver.solve` answer as a recorded verdict: "mate" (the length the shortest),
    "mate within N", "no mate within N" (a full-width search's bound) or "unproven".

    >>> from solver import solve
    >>> search_verdict(solve(Board("3k5/9/9/9/9/9/9/9/4R4/4K4 w"), mode="any", max_moves=2))
    'mate'
    """
    if result.verdict == "mate":
        return "mate" if result.exact else f"mate within {result.length}"
    if result.verdict == "no mate":
        return f"no mate within {result.max_moves}"
    return "unproven"


def draw_verdict(analysis: DrawAnalysis) -> str:
    """A draw analysis's answer as a recorded verdict: "draw", "no win within N" (each side
    proven not to win within the bound), "unproven within N", or the analysis's own words
    ("Red wins" ...)."""
    return {"no win within the bound": f"no win within {analysis.bound}",
            "unknown": f"unproven within {analysis.bound}"}.get(str(analysis.verdict),
                                                               str(analysis.verdict))


def table_plies(board: Board, tables: Tablebase | None) -> int | None:
    """The DTM of ``board``'s table in plies (positive: the side to move mates, negative: it
    is mated, 0: a draw), or None when no table covers it."""
    get_dtm = getattr(tables, "get_dtm", None)
    return None if get_dtm is None else get_dtm(board, None)


def win_bound(board: Board, moves: int, tables: Tablebase | None) -> int:
    """The bound of a quiet-move search: ``moves``, or the mate of the position's table if
    longer (a table answers at once; a smaller bound would only hide its mate)."""
    return max(moves, table_mate_moves(board, "any", tables) or 0)


def refutation_bound(board: Board, moves: int, tables: Tablebase | None) -> int:
    """The bound of a refutation (the other side's moves): ``moves``, or the table's mate
    against the side to move if longer."""
    plies = table_plies(board, tables)
    return max(moves, -plies // 2 if plies is not None and plies < 0 else 0)


def refutation_verdict(refutation: Refutation) -> tuple[str, int | None]:
    """A :func:`solver.refute.refute` answer as a recorded verdict and its length (the
    mating side's moves): "refuted" (the length the shortest), "refuted within N", or the
    usual "unproven" (not refuted, or not within the budget: the win is still open).

    >>> refutation_verdict(refute(Board("3k5/9/9/9/9/9/9/r8/9/4K4 w"), max_moves=3))
    ('refuted', 2)
    """
    if not refutation.refuted:
        return "unproven", None
    if refutation.exact:
        return "refuted", refutation.length
    return f"refuted within {refutation.length}", refutation.length


class WatchedSolver(Solver):
    """A solver that notes the order its search had reached when the search for the mate
    ended, before the main line (where a budget ran out in an inexact mate)."""

    stopped_order = ""

    def line_within_reserve(self, length: int, exact: bool, cancelled: bool) -> list[Move]:
        self.stopped_order = self.current_order
        return super().line_within_reserve(length, exact, cancelled)


def ran_out(result: SolveResult, solver: WatchedSolver) -> str:
    """Where the budget of ``solver``'s search (its result ``result``) ran out: "checks" (the
    continuous-check search), "order N" or "full width" (the quiet-move search at that order),
    "line" (the main line, after the proof: it may be cut short), or "" (the search finished:
    an exact mate or a disproof).  An inexact mate whose line ran out too: both, with "; "."""
    phases = []
    if result.verdict == "unknown" or (result.verdict == "mate" and not result.exact):
        order = solver.current_order if result.verdict == "unknown" else solver.stopped_order
        phases.append("checks" if solver.mode == "checks" else order)
    if result.verdict == "mate" and not result.line_complete:
        phases.append("line")
    return "; ".join(phases)


def verify_composition(fen: str, stipulation: str, settings: VerifySettings) -> JsonObject:
    """One composition's verdict (a pure function of its arguments, so that it runs as a
    cluster task): a draw study (``stipulation`` "draw") by the draw analysis within the
    quiet-move budget; any other first as a continuous-check problem and, if that proves
    none, with quiet moves (see the module's docstring).

    Returns stipulation, verdict, moves (None if none), exact (None unless a proof or a
    refutation), order ("full", "1", "2" ... or ""), main_line (ICCS, spaced), main_line_zh,
    nodes, tb_leaves, threat_tests (all the searches together), ran_out (where a budget ran
    out, "" if none did), budget (what the verdict's search had, in words) and seconds."""
    start = time.perf_counter()
    board = Board(fen)
    tables = open_tablebase(settings.tables) if settings.tables else None
    try:
        if stipulation == "draw":
            row = _draw_row(board, tables, settings)
        else:
            row = _win_row(board, tables, settings)
            if row["stipulation"] == "win" and row["verdict"] not in ("mate",) and \
                    not row["verdict"].startswith("mate within"):
                if table_plies(board, tables) == 0:
                    row["verdict"] = TABLE_DRAW
                elif settings.refute:
                    row = with_refutation(row, board, tables, settings)
    finally:
        if tables is not None:
            tables.close()
    line = [Move.from_iccs(text) for text in row["main_line"].split()]
    row["main_line_zh"] = " ".join(write_line(board, line, "chinese"))
    row["budget"] = settings.budget_text(row["stipulation"])
    row["seconds"] = round(time.perf_counter() - start, 3)
    return row


def _draw_row(board: Board, tables: Tablebase | None, settings: VerifySettings) -> JsonObject:
    from solver.draw import analyse_draw

    analysis = analyse_draw(board, tablebase=tables, limits=settings.any_limits(), traps=False)
    line = analysis.line.moves if analysis.line is not None else []
    return {"stipulation": "draw", "verdict": draw_verdict(analysis), "moves": None,
            "exact": None, "order": "", "main_line": " ".join(m.iccs() for m in line),
            "nodes": analysis.nodes, "tb_leaves": 0, "threat_tests": 0, "ran_out": ""}


def _win_row(board: Board, tables: Tablebase | None, settings: VerifySettings) -> JsonObject:
    solver = WatchedSolver(board, "checks", settings.checks_limits(), tables)
    result = solver.run(settings.checks_moves)
    stipulation = "checks"
    nodes, tb_leaves, threat_tests = result.nodes, result.tb_leaves, result.threat_tests
    if result.verdict == "no mate":
        solver = WatchedSolver(board, "any", settings.any_limits(), tables)
        result = solver.run(win_bound(board, settings.any_moves, tables))
        stipulation = "win"
        nodes += result.nodes
        tb_leaves += result.tb_leaves
        threat_tests += result.threat_tests
    mate = result.verdict == "mate"
    order = ("full" if result.order is None else str(result.order)) if mate else ""
    return {"stipulation": stipulation, "verdict": search_verdict(result),
            "moves": result.length if mate else None, "exact": result.exact if mate else None,
            "order": order, "main_line": " ".join(m.iccs() for m in result.main_line),
            "nodes": nodes, "tb_leaves": tb_leaves, "threat_tests": threat_tests,
            "ran_out": ran_out(result, solver)}


def with_refutation(row: JsonObject, board: Board, tables: Tablebase | None,
                    settings: VerifySettings) -> JsonObject:
    """``row`` (a win without a proven mate) after a refutation within the settings' budget:
    a refuted one's verdict, the other side's mate length, order and line, else the row as
    it was (its nodes and leaves counted, and "refutation" added to ``ran_out`` if that
    budget ran out too)."""
    refutation = refute(board, refutation_bound(board, settings.refute_moves, tables), tables,
                        settings.refute_limits())
    row = {**row, "tb_leaves": int(row.get("tb_leaves") or 0) + refutation.tb_leaves,
           "nodes": int(row.get("nodes") or 0) + refutation.nodes}
    if refutation.refuted:
        verdict, moves = refutation_verdict(refutation)
        row.update(verdict=verdict, moves=moves, exact=refutation.exact,
                   order="full" if refutation.order is None else str(refutation.order),
                   main_line=" ".join(m.iccs() for m in refutation.main_line))
    if refutation.verdict == "unknown" or (refutation.refuted and not refutation.exact):
        row["ran_out"] = "; ".join(p for p in [row.get("ran_out", ""), "refutation"] if p)
    return row
