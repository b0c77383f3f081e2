"""Solving: prove a mate with df-pn, then find its exact length, main line and tree.

>>> from xiangqi import Board
>>> result = solve(Board("3k5/9/9/9/9/9/9/9/9/R3K4 w"), mode="checks")
>>> str(result.verdict), result.length, [m.iccs() for m in result.main_line]
('mate', 1, ['a0d0'])
"""
from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tablebases import MissingTableError
from tablebases.build import available_memory
from xiangqi import Board, Move
from xiangqi.quantities import memory_text
from xiangqi.rules import adjudicate, ruleset

from ._dfpn import DISPROVEN, ENTRY_BYTES, FULL, MAX_ORDER, MAX_THREADS, PROVEN, UNKNOWN, Search
from ._mate_ab import MAX_MATE_MOVES, MateFinder
from ._mate_eval import MAX_MATE_MOVES as MAX_EVAL_MATE_MOVES
from ._mate_eval import EvalMateFinder
from .budget import Budget, within
from .parallel import search_with_helpers
from .types import MODES, Mode, Verdict

if TYPE_CHECKING:
    from tablebases.probe import Tablebase

DEFAULT_MAX_MOVES: dict[str, int] = {Mode.CHECKS: 200, Mode.ANY: 20}
# The time budget of a solve, verify or refutation for which the user set none (the command
# line, the studio): a search as first typed ends.  ``--seconds 0`` asks for no limit.
DEFAULT_SEARCH_SECONDS = 60.0
# λ orders tried, lowest first, before the full-width search in "any" mode (see _dfpn).
DEFAULT_LAMBDA_ORDERS = 3
# "any" mode: the small bounds searched full width before the one asked for (see
# Solver._schedule).
FULL_WIDTH_STEPS = (3, 6, 10)
# Of a time or node budget, the share the proof may use before the main line is extracted:
# a mate that is found always comes with its line.
LINE_RESERVE = 0.15
# Minimality of a mate found at a λ order needs a full-width disproof of one move less, whose
# cost grows steeply with the bound.  It is run only if its cost, extrapolated
# from full-width searches at two of these smaller bounds, is within reach of the budget left
# (see Solver.full_width_estimate); those that the schedule did not run are measured first, each
# within MEASURE_SHARE of the budget left.
MEASURED_BOUNDS = (2, *FULL_WIDTH_STEPS)
MEASURE_SHARE = 0.1
# The extrapolation errs high, and a skipped search saves nodes but never improves an answer:
# the search is run while its estimate is at most MINIMALITY_REACH times the nodes left.
# 《适情雅趣》 at 5 M nodes: No. 303's 8 moves were estimated at 4.3 M with 3.95 M left and
# are proved within 2.7 M; Nos. 189, 322, 383 were estimated at 1.3-2.4x what was left.
MINIMALITY_REACH = 3.0
# Attacker moves a query may ask for: a larger bound would overflow the search's C ints.
MAX_MOVES_BOUND = 10_000
# The transposition table: 2**bits entries of 32 bytes (2**22: 128 MiB), bits within the range.
DEFAULT_TABLE_BITS = 22
TABLE_BITS_RANGE = (2, 34)
# "any" mode: the share of the budget (nodes and time) that the alpha-beta mate finder
# (solver._mate_ab) may use before df-pn, which then tries the moves of its proofs first (see
# Solver._propose).  Its nodes count against the budget.  Off by default: on the 41-problem
# sample at 2 M nodes each (solve_collection.py --sample), shares 0, 0.1 and 0.25 proved the
# same 18 (8 exact) with 50.1 M, 51.9 M and 52.9 M nodes; the finder proposes only mates that
# df-pn proves cheaply anyway (at 2 M nodes alone it finds 8 of the 41, all among the 18),
# and its hints saved nodes on one (No. 314: 562,546 -> 543,959 with the finder's 47,640).
# At 10 s a problem (benchmarks/bench_quiet_sample.py, 2026-12-07): off 19 found (8 exact);
# the evaluation-guided finder at 0.1 and 0.3 the same 19; the threat-based one at 0.3 18.
DEFAULT_PROPOSER_SHARE = 0.0
# The proposers: "threats", solver._mate_ab's boolean search admitting quiet moves by threat
# tests; "eval", solver._mate_eval's evaluation-guided alpha-beta, every move searched.
PROPOSERS = ("threats", "eval")
DEFAULT_PROPOSER = "threats"
# The largest share: df-pn, which gives the answer, keeps a tenth of the budget at least.
MAX_PROPOSER_SHARE = 0.9
# The proposer's nodes when the solve has no budget to take a share of.
PROPOSER_UNBUDGETED_NODES = 2_000_000


def order_name(order: int | None) -> str:
    """``order 2`` or ``full width`` (the progress line's and the reports' words)."""
    return "full width" if order is None or order == FULL else f"order {order}"


def table_mate_moves(board: Board, mode: str, tablebase: Tablebase | None) -> int | None:
    """In "any" mode, the attacker moves of the mate that ``board``'s table gives (its DTM),
    or None: no table covers it, or it gives the side to move no win.  (In "checks" mode a
    table's mate need not check on every move.)"""
    get_dtm = getattr(tablebase, "get_dtm", None)
    if mode != Mode.ANY or get_dtm is None:
        return None
    plies = get_dtm(board, None)
    return (plies + 1) // 2 if plies is not None and plies > 0 else None


# The environment variable that sets the processes of a search by default (the front ends'
# --threads default, the studio's solver): else every core this process may use.
THREADS_VARIABLE = "XQSTUDIO_THREADS"


def default_search_threads() -> int:
    """The processes a solve or verify of the front ends uses unless told: $XQSTUDIO_THREADS,
    else the cores this process may run on (at most MAX_THREADS).  The library's
    :class:`Limits` keeps one: a search on several processes finds its proofs in an order
    that depends on timing (the answers hold; which one is found first may not repeat).
    Raises :class:`SolverError` for a variable that is not a number from 1 to MAX_THREADS."""
    configured = os.environ.get(THREADS_VARIABLE, "").strip()
    if configured:
        if not configured.isdigit() or not 1 <= int(configured) <= MAX_THREADS:
            raise SolverError(f"{THREADS_VARIABLE} must be a number of processes from 1 to "
                              f"{MAX_THREADS}, not {configured!r}")
        return int(configured)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else \
        (os.cpu_count() or 1)
    return max(1, min(MAX_THREADS, cores))


def default_bound(board: Board, mode: str, tablebase: Tablebase | None = None) -> int:
    """The bound of a search for which none is asked: :data:`DEFAULT_MAX_MOVES`, or the mate
    of ``board``'s table if longer (the table answers without a search, so a smaller bound
    would only hide its answer: K R vs K A A B B, a mate in 23, came out "no mate within
    20")."""
    return max(DEFAULT_MAX_MOVES[mode], table_mate_moves(board, mode, tablebase) or 0)


# A position with this many pieces or more is a game's, not a composition's (the start has
# 32; the compositions of the shipped collections have at most 25): a forced mate from it is
# beyond any search, so a solve without a bound asked for is refused (see game_position_text).
GAME_POSITION_PIECES = 28


def game_position_text(board: Board) -> str | None:
    """``a game position (32 pieces), not a composition`` for a position with
    :data:`GAME_POSITION_PIECES` or more, else None.

    >>> game_position_text(Board())
    'a game position (32 pieces), not a composition'
    >>> game_position_text(Board("3ak4/4a4/9/9/9/9/9/9/9/3K4R w")) is None
    True
    """
    pieces = len(board.piece_map())
    if pieces < GAME_POSITION_PIECES:
        return None
    return f"a game position ({pieces} pieces), not a composition"


@dataclass(frozen=True)
class MinimalitySkip:
    """Why a proven mate's minimality was not searched: the full-width search of ``bound``
    moves that would rule out a shorter mate was estimated to cost more than the budget left
    (extrapolated from smaller full-width searches, see :meth:`Solver.full_width_estimate`)."""
    bound: int
    estimated_nodes: float
    nodes_left: float

    def text(self) -> str:
        """``a full-width search of 12 moves, estimated at 35,000,000 nodes, exceeds the
        3,200,000 left``"""
        return (f"a full-width search of {self.bound} moves, estimated at "
                f"{self.estimated_nodes:,.0f} nodes, exceeds the {self.nodes_left:,.0f} left")


class SolverError(ValueError):
    """A request the solver cannot run (bad mode or bound, position already over)."""


@dataclass
class Limits:
    """Budgets; running out of any gives the verdict "unknown", never "no mate"."""
    nodes: int = 0              # 0: no limit
    seconds: float = 0.0        # 0: no limit
    table_bits: int = DEFAULT_TABLE_BITS    # transposition table of 2**table_bits entries
    # 单方面长将 (棋例 26.1): a defender who can escape only by checking for ever must deviate,
    # so such a repetition counts as a win for the attacker.  Off: every repetition is a draw.
    perpetual_check_rule: bool = True
    # The full repetition rules (棋例: chase, mate threat, mixtures) judged by
    # ``xiangqi.rules`` at every repetition where the defender may be attacking throughout:
    # "chinese" or "asian", or None (perpetual check only; faster).  Draw verification uses
    # "chinese" unless told otherwise.
    repetition_rules: str | None = None
    # Nodes between calls of the progress hook (it is also called every 0.1 s).  The search
    # holds the GIL in between, so an interactive front end running it in a thread asks for
    # calls more often than a CLI does.
    progress_nodes: int = 100_000
    # λ-search ("any" mode): orders 1 .. lambda_orders are tried before the full-width search
    # (0: full width only).  Order 1 admits checks, order n the moves that threaten an order
    # n - 1 win.  A proof at any order is a forced mate; only full width proves "no mate".
    lambda_orders: int = DEFAULT_LAMBDA_ORDERS
    # "any" mode: the share of the budget for the alpha-beta mate finder that proposes moves
    # for df-pn to try first (0: none).  Whatever it finds, the answer is df-pn's proof.
    proposer_share: float = DEFAULT_PROPOSER_SHARE
    proposer: str = DEFAULT_PROPOSER          # which finder takes that share (PROPOSERS)
    # Processes searching the root's queries together on one shared table (solver.parallel);
    # the node budget counts the nodes of all of them.
    threads: int = 1

    def __post_init__(self) -> None:
        if self.nodes < 0:
            raise SolverError(f"the node budget must be 0 (none) or positive, not {self.nodes}")
        if self.seconds < 0:
            raise SolverError(f"the time budget must be 0 (none) or positive, not {self.seconds}")
        low, high = TABLE_BITS_RANGE
        if not low <= self.table_bits <= high:
            raise SolverError(f"table bits must be between {low} and {high}, "
                              f"not {self.table_bits}")
        problem = table_memory_problem(self.table_bits)
        if problem is not None:
            raise SolverError(problem)
        if not 0 <= self.lambda_orders <= MAX_ORDER:
            raise SolverError(f"lambda orders must be between 0 and {MAX_ORDER}, "
                              f"not {self.lambda_orders}")
        if not 1 <= self.threads <= MAX_THREADS:
            raise SolverError(f"threads must be between 1 and {MAX_THREADS}, not {self.threads}")
        if self.proposer not in PROPOSERS:
            raise SolverError(f"the proposer must be one of {', '.join(PROPOSERS)}, "
                              f"not {self.proposer!r}")
        if not 0 <= self.proposer_share <= MAX_PROPOSER_SHARE:
            raise SolverError(f"the proposer's share must be from 0 to {MAX_PROPOSER_SHARE}, "
                              f"not {self.proposer_share}")


def search_ran_out_text() -> str:
    """Why an unproven search stopped before its budget's end (a solve of 60 s stops at
    51 s): the share kept back for a proof's main line, in words."""
    kept = round(100 * LINE_RESERVE)
    return (f"the search did not finish within its share of the budget ({100 - kept}%; the "
            f"other {kept}% is kept to extract a proven mate's main line)")


def table_bytes(table_bits: int) -> int:
    """The memory of a transposition table of ``2**table_bits`` entries."""
    return ENTRY_BYTES << table_bits


def table_memory_problem(table_bits: int) -> str | None:
    """Why a table of ``2**table_bits`` entries cannot be had (more than the memory the
    machine has available), or None.  Refused up front: the allocation would fail with a
    MemoryError, or succeed on an overcommitting system and be killed once filled."""
    need, have = table_bytes(table_bits), available_memory()
    if need <= have:
        return None
    fits = max((bits for bits in range(TABLE_BITS_RANGE[0], table_bits)
                if table_bytes(bits) <= have), default=None)
    most = f"at most {fits} table bits fit" if fits is not None else "no table fits"
    return (f"table bits {table_bits}: a transposition table of 2^{table_bits} entries needs "
            f"{memory_text(need)} of memory, and {memory_text(have)} is available ({most})")


@dataclass
class TreeNode:
    """A solution tree: the attacker's chosen move at OR nodes, every defence at AND nodes."""
    move: Move | None
    length: int                 # attacker moves to mate from the position after ``move``
    children: list[TreeNode] = field(default_factory=list)


@dataclass
class SolveResult:
    verdict: str                # "mate", "no mate" (within the bound) or "unknown"
    length: int | None          # attacker moves of the shortest forced mate
    main_line: list[Move]
    mode: str
    max_moves: int
    nodes: int
    seconds: float
    table_used: int
    table_entries: int
    tree: TreeNode | None = None
    exact: bool = True          # False: a mate within ``length`` is proven, not yet its minimality
    order: int | None = None    # λ order of the proof (None: full width, or no proof)
    tb_leaves: int = 0          # leaves the tablebases answered
    threat_tests: int = 0       # λ threat searches entered (searches after a pass)
    # "any" mode, a root whose material has a table: the attacker moves of the table's mate
    # (None: no table, or it gives the attacker no win), so that "no mate within N" can say
    # how far the table's mate is.
    table_moves: int | None = None
    # False: the budget ran out after the proof and before its whole line (``main_line`` is
    # what was extracted, maybe nothing).
    line_complete: bool = True
    # A mate whose minimality was not searched, its cost being estimated beyond the budget.
    minimality_skip: MinimalitySkip | None = None

    @property
    def plies(self) -> int | None:
        return None if self.length is None else 2 * self.length - 1

    @property
    def line_moves(self) -> int:
        """The attacker's moves in ``main_line`` (the mate it shows, if it ends in one)."""
        return (len(self.main_line) + 1) // 2

    @property
    def line_shorter_than_mate(self) -> bool:
        """An exact mate whose complete main line mates sooner than ``length``: its defence is
        not the longest (the line is still a forced mate; the solver extracted it twice, the
        second time emptying the table before each defence, see
        :meth:`Solver.line_within_reserve`)."""
        return (self.verdict == Verdict.MATE and self.exact and self.line_complete
                and self.plies is not None and 0 < len(self.main_line) < self.plies)

    @property
    def line_shorter_than_bound(self) -> bool:
        """A mate proven within ``length`` (not exact) whose complete main line mates sooner:
        the line follows the proof's stored defences, which need not be the longest, and the
        mate's own length lies between the two (``Mate in at most 19`` beside a line of 17
        moves)."""
        return (self.verdict == Verdict.MATE and not self.exact and self.line_complete
                and self.plies is not None and 0 < len(self.main_line) < self.plies)

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


def repetition_judge(rules: str) -> Callable[[bytes, int, list[tuple[int, int]]], int]:
    """The search's judge of a repeated cycle: given the cycle's first position (90 piece
    codes and the side to move) and its moves, the colour that must deviate, or -1."""
    ruleset(rules)      # an unknown rule set is refused here, not inside the search

    def judge(codes: bytes, turn: int, moves: list[tuple[int, int]]) -> int:
        board = Board.from_codes(codes, turn)
        for from_square, to_square in moves:
            board.push_unchecked(Move(from_square, to_square))
        verdict = adjudicate(board, rules, min_occurrences=2)
        return -1 if verdict is None or verdict.loser is None else verdict.loser
    return judge


class Solver:
    """One searcher for one position's attacker; reuse it for queries about the same problem.

    In "any" mode a query tries the λ orders first (cheap, incomplete) and the full-width
    search last (complete): a proof at any order is a forced mate, and only a full-width
    disproof is an answer of "no mate".  In "checks" mode the stipulation is order 1 itself."""

    def __init__(self, board: Board, mode: str = "checks", limits: Limits | None = None,
                 tablebase: Tablebase | None = None,
                 progress: Callable[[int, int], bool | None] | None = None) -> None:
        if mode not in MODES:
            raise SolverError(f"unknown mode {mode!r}: use one of {', '.join(MODES)}")
        self.board = board.copy()
        self.mode = mode
        self.limits = limits or Limits()
        self.search = Search(self.limits.table_bits, shared=self.limits.threads > 1)
        self.search.checks_only = 1 if mode == Mode.CHECKS else 0
        self.search.perpetual_check_rule = 1 if self.limits.perpetual_check_rule else 0
        if self.limits.repetition_rules is not None:
            self.search.repetition_judge = repetition_judge(self.limits.repetition_rules)
        # The orders a query goes through: the λ orders, then the complete one.
        self.full_order = 1 if mode == Mode.CHECKS else FULL
        self.lambda_orders = ([] if mode == Mode.CHECKS
                              else list(range(1, self.limits.lambda_orders + 1)))
        self.attacker = board.turn
        self.best_upper: int | None = None   # smallest proven bound at the root so far
        self.best_order: int | None = None   # the order that proved it
        self.exact = True                    # the last :meth:`shortest` proved its minimality
        # Nodes of each full-width disproof at the root, by bound (see :meth:`_fits_budget`),
        # and the root they were measured at (a caller may move the root: solver.draw).
        self.full_width_nodes: dict[int, int] = {}
        self._measured_root = self.board.fen()
        # Set when the last :meth:`shortest` at the root left minimality unproven because
        # its estimated cost did not fit the budget (rather than running out of it).
        self.minimality_skip: MinimalitySkip | None = None
        # Lines finished after the budget ran out take the stored proof's move first (no
        # search) instead of the first mating move in ICCS order.
        self._follow_stored_proof = False
        # Set while a main line is extracted again: the table is emptied before each defence
        # is chosen (see :meth:`line_within_reserve`).
        self._fresh_defences = False
        # The alpha-beta proposer (see :meth:`_propose`): run once, at the root's first query.
        self._finder: MateFinder | EvalMateFinder | None = None
        self.proposed_length: int | None = None  # the mate it proposed (not a proof)
        self.proposer_nodes = 0
        self.start = time.time()
        Budget(self.start + self.limits.seconds if self.limits.seconds else 0.0,
               self.limits.nodes).apply(self.search)
        if progress is not None:
            self.search.progress = progress
            self.search.progress_every = self.limits.progress_nodes
        self.tablebase = tablebase
        if tablebase is not None:
            self._attach_tablebase(tablebase)

    def _attach_tablebase(self, tablebase: Tablebase) -> None:
        """Leaves whose material has a table are answered by it (``tablebase``: an object of
        :func:`tablebases.open_tablebase`)."""
        from tablebases import LeafProber

        directory = getattr(tablebase, "directory", None)
        if directory is not None:
            # Probed at C level: each material's table is loaded once, on first meeting.
            self.search.leaf_prober = LeafProber(directory)
        else:                           # any object with the Tablebase probing interface
            self.search.tablebase_probe = tablebase.probe_codes
            self.search.tablebase_max_pieces = tablebase.max_pieces()

    def cancel(self) -> None:
        self.search.cancel()
        if self._finder is not None:
            self._finder.cancel()

    @property
    def stopped(self) -> bool:
        return bool(self.search.stopped)

    @property
    def current_order(self) -> str:
        """The order of the search running now, in words (for progress lines)."""
        return order_name(self.search.order if self.mode == Mode.ANY else None)

    def value_at(self, board: Board, remaining: int, order: int) -> tuple[str, int | None]:
        """Status of ``board`` with ``remaining`` attacker moves at one λ ``order`` (a
        disproof below the full order says only that this order found nothing)."""
        if self.search.stopped:
            return UNKNOWN, None
        return self.search.value(board, remaining, board.turn == self.attacker, order)

    def value(self, board: Board, remaining: int) -> tuple[str, int | None]:
        """Status of ``board`` with ``remaining`` attacker moves (OR node if the attacker is
        to move there): PROVEN at the first order that proves it, DISPROVEN only by the
        complete search, else UNKNOWN."""
        for order in self.lambda_orders:
            status, length = self.value_at(board, remaining, order)
            if status == PROVEN:
                return status, length
            if status == UNKNOWN:
                return status, None
        return self.value_at(board, remaining, self.full_order)

    def shortest(self, board: Board, upper: int) -> tuple[str, int | None]:
        """The number of attacker moves to mate from ``board``, searching up to ``upper``.

        Returns (PROVEN, n), (DISPROVEN, None) or (UNKNOWN, None).  In "any" mode the searches
        of :meth:`_schedule` run in turn, each within a share of the budget left.  A mate
        found at a λ order is first made as short as that order can make it; its
        minimality then needs a complete (full-width) disproof of one move less.
        :attr:`exact` says whether that held (False: a mate in ``n`` is proven, a shorter one
        not ruled out within the budget); it is True for a proven "no mate within ``upper``"
        and False for UNKNOWN."""
        self.exact = True
        attacker_to_move = board.turn == self.attacker
        if not attacker_to_move and not board.has_legal_move():
            return PROVEN, 0
        root = board == self.board and board.ply_count == self.board.ply_count
        found_order = None
        length = None
        status: str = UNKNOWN
        if root:
            self.minimality_skip = None
            if board.fen() != self._measured_root:
                self.full_width_nodes.clear()
                self._measured_root = board.fen()
            if self._finder is None and self.mode == Mode.ANY and self.limits.proposer_share:
                self._propose(board, upper)
        for bound, order, share in self._schedule(upper):
            status, length = self._measured(board, bound, order, share, root)
            if status == PROVEN:
                # A table's answer at the root is the whole game's, whatever the order.
                found_order = self.full_order if self.search.root_from_table else order
                break
            if status == UNKNOWN and self.search.stopped:
                self.exact = False        # nothing is exact about an unknown
                return UNKNOWN, None      # the budget is spent, or the user cancelled
            if status == DISPROVEN and order == self.full_order and bound == upper:
                return DISPROVEN, None
        if found_order is None:
            self.exact = status == DISPROVEN
            return (DISPROVEN if status == DISPROVEN else UNKNOWN), None
        assert length is not None       # a proof has its length
        if root:
            self.best_upper, self.best_order = length, found_order
        # Shorter mates are sought from the top: a disproof of one move less than the best
        # proof rules out every shorter mate at once, and proofs are usually near-minimal,
        # so this costs fewer searches than bisecting (《适情雅趣》 No. 7: 28% fewer nodes).
        floor = 0 if attacker_to_move else -1     # a bound that fails whatever the order
        orders = [found_order] if found_order == self.full_order else [found_order, self.full_order]
        high = length
        for order in orders:
            while high - 1 > floor:
                if root and order == FULL and order != found_order:
                    skip, shorter = self._fits_budget(board, high - 1)
                    if shorter is not None:
                        high = shorter
                        self.best_upper, self.best_order = shorter, order
                        continue
                    if skip is not None:
                        self.exact = False
                        self.minimality_skip = skip
                        return PROVEN, high
                status, found = self._measured(board, high - 1, order, 1.0, root)
                if status == PROVEN:
                    assert found is not None
                    high = found
                    if root:
                        self.best_upper, self.best_order = found, order
                elif status == DISPROVEN:
                    break
                else:
                    self.exact = False
                    return PROVEN, high
        return PROVEN, high

    def _propose(self, board: Board, upper: int) -> None:
        """Run the alpha-beta mate finder within :attr:`Limits.proposer_share` of the budget
        left (its nodes are charged to the search's) and give the moves of the proofs it
        found to df-pn as hints, to be tried first (a quiet one without its threat test).
        Nothing it finds is an answer: df-pn still proves every mate reported."""
        share = self.limits.proposer_share
        finder: MateFinder | EvalMateFinder
        if self.limits.proposer == "eval":
            finder = self._finder = EvalMateFinder()
        else:
            finder = self._finder = MateFinder()
            finder.max_order = max(1, self.limits.lambda_orders)
        if self.search.stopped:
            return                      # cancelled before it started
        budget = Budget.of(self.search)
        seconds, node_limit = budget.share_of_left(share, self.search.nodes, 1e-3, 1)
        if not budget.node_limit and not budget.deadline:
            node_limit = PROPOSER_UNBUDGETED_NODES
        self.proposed_length = finder.find(board, min(upper, MAX_MATE_MOVES,
                                                      MAX_EVAL_MATE_MOVES), node_limit, seconds)
        self.proposer_nodes = finder.nodes
        self.search.nodes += finder.nodes
        if self.proposed_length is not None:
            self.search.set_hints(finder.proof_hints())

    def _schedule(self, upper: int) -> list[tuple[int, int, float]]:
        """The searches a query runs until one proves a mate: (bound, order, share of the
        budget left).  λ orders 1 and 2 at the bound asked for (a larger bound admits more
        threats, so their proofs come sooner; 《适情雅趣》 No. 181: 1.9 s at 30 moves against
        7.2 s at 10); full width at small bounds (endgames: No. 455, mate in 5, in 1.8 s at 10
        moves, not within 10 s at 30); the higher orders; full width at the bound asked for,
        with all that is left."""
        if self.mode == Mode.CHECKS:
            return [(upper, self.full_order, 1.0)]
        low = [order for order in self.lambda_orders if order <= 2]
        high = [order for order in self.lambda_orders if order > 2]
        schedule = [(upper, order, 0.6) for order in low]
        schedule += [(bound, self.full_order, 0.3) for bound in FULL_WIDTH_STEPS
                     if bound < upper]
        schedule += [(upper, order, 0.5) for order in high]
        return schedule + [(upper, self.full_order, 1.0)]

    def _measured(self, board: Board, remaining: int, order: int, share: float,
                  root: bool) -> tuple[str, int | None]:
        """:meth:`_sliced`, recording the nodes of a full-width disproof at the root."""
        before = self.search.nodes
        status, length = self._sliced(board, remaining, order, share)
        if root and order == FULL and status == DISPROVEN:
            self.full_width_nodes[remaining] = self.search.nodes - before
        return status, length

    def nodes_left(self) -> float | None:
        """The nodes the budget still allows (a time limit converted at the rate so far), or
        None if there is no limit."""
        budget = Budget.of(self.search)
        lefts: list[float] = []
        if budget.node_limit:
            lefts.append(budget.nodes_left(self.search.nodes))
        if budget.deadline:
            rate = self.search.nodes / max(time.time() - self.start, 1e-3)
            lefts.append(budget.seconds_left() * rate)
        return min(lefts) if lefts else None

    def full_width_estimate(self, bound: int) -> float | None:
        """The nodes of a full-width search at ``bound``, extrapolated from the two largest of
        the :data:`MEASURED_BOUNDS` below it whose disproofs at the root were recorded (None:
        not both), as a power of the bound: the growth per move falls as the bound rises
        (《适情雅趣》 No. 228: 4.4x from 2 to 3 moves, 1.9x a move from 6 to 10), so a
        geometric extrapolation errs high by 2-5x and would give up minimality proofs that
        fit (No. 380: 10 moves exact within 5 M nodes).  The power errs low on long mates
        (No. 228 at 16 moves: 0.3 M for 1.8 M), and then the search is only started in vain."""
        below = [b for b in MEASURED_BOUNDS if b < bound][-2:]
        if len(below) < 2 or any(b not in self.full_width_nodes for b in below):
            return None
        low, high = below
        low_nodes, high_nodes = (max(self.full_width_nodes[b], 1) for b in below)
        exponent = math.log(max(high_nodes / low_nodes, 1.0)) / math.log(high / low)
        return float(high_nodes * (bound / high) ** exponent)

    def _fits_budget(self, board: Board,
                     bound: int) -> tuple[MinimalitySkip | None, int | None]:
        """May the full-width search at ``bound`` (of the root ``board``) run?  Yes with no
        budget or a bound below the second of :data:`MEASURED_BOUNDS` (there is nothing to
        extrapolate from, and such searches cost little: a mate in 4 whose 3 moves were left
        unsearched came out "mate within 4"), else if its
        :meth:`full_width_estimate` is at most MINIMALITY_REACH times the nodes left.  The
        bounds that estimate needs are searched first (smallest first), each within
        MEASURE_SHARE of the budget.
        Returns (why not, or None if it may; the length of a mate that a measuring search
        proved shorter than ``bound`` + 1, or None).

        A measuring search that runs out of its share leaves nothing to extrapolate from,
        and the search at ``bound`` runs with what is left: the measuring search's cost is
        only a lower bound, and a run-out there is no sign that ``bound`` is out of reach
        (taking it as one lost the exact mates of Nos. 46, 294, 303 and 417, whose
        full-width searches fit the 3 M nodes they had: 0.3 M for No. 46's 11 moves, 0.9 M
        for No. 294's 7)."""
        if self.nodes_left() is None or bound <= MEASURED_BOUNDS[1]:
            return None, None
        for step in [b for b in MEASURED_BOUNDS if b < bound][-2:]:
            if step in self.full_width_nodes:
                continue
            status, length = self._measured(board, step, FULL, MEASURE_SHARE, True)
            if status == PROVEN:
                return None, length
            if status == UNKNOWN:
                return None, None
        estimate = self.full_width_estimate(bound)
        left = self.nodes_left() or 0.0
        if estimate is not None and estimate > MINIMALITY_REACH * left:
            return MinimalitySkip(bound, estimate, left), None
        return None, None

    def _sliced(self, board: Board, remaining: int, order: int,
                share: float) -> tuple[str, int | None]:
        """:meth:`value_at` within ``share`` of the time and nodes left.  A slice that runs
        out gives UNKNOWN and leaves the solver running (the budget is not spent)."""
        budget = Budget.of(self.search)
        part = budget.slice(share, self.search.nodes) if share < 1.0 else budget
        with within(self.search, part):
            status, length = search_with_helpers(
                self.search, self.limits.threads,
                lambda: self.value_at(board, remaining, order))
        if status == UNKNOWN and share < 1.0 and self.search.stopped:
            if part.spent(self.search.nodes) and not budget.spent(self.search.nodes):
                self.search.stopped = 0
        return status, length

    def attacker_moves(self, board: Board) -> list[Move]:
        moves = sorted(board.legal_moves, key=Move.iccs)
        if self.mode == Mode.CHECKS:
            moves = [m for m in moves if board.gives_check(m)]
        return moves

    def main_line(self, length: int, order: int | None = None,
                  exact: bool | None = None) -> list[Move]:
        """The attacker mates as fast as possible, the defender resists as long as possible.

        ``order``: the λ order whose proofs the line follows (default: the one that proved the
        root).  With ``exact`` (default: the last :meth:`shortest` was exact) a defence is
        the longest only if the complete search shows that no faster mate follows it.
        Ties: among equally fast mates the first in ICCS order that the proving order finds
        (a line finished after the budget ran out follows the stored proof instead); among
        equally long defences, the first in ICCS order."""
        order = order or self.best_order or self.full_order
        exact = self.exact if exact is None else exact
        board = self.board.copy()
        line: list[Move] = []
        remaining = length
        while remaining > 0:
            if board.turn == self.attacker:
                # A fastest mate: a move after which the mate needs ``remaining - 1`` more.
                chosen = self._mating_move(board, remaining, order)
            else:
                replies = self.defences(board)
                if not replies:
                    break
                chosen, remaining = self._longest_defence(board, replies, remaining, order, exact)
            if chosen is None:
                return line
            line.append(chosen)
            board.push_unchecked(chosen)
            if board.turn != self.attacker:
                remaining -= 1
        return line

    def defences(self, board: Board) -> list[Move]:
        """The defender's moves at ``board`` in ICCS order, less the perpetual checks that a
        table covering the position forbids him (its values, which the search used as
        leaves, are those of the game without them)."""
        replies = sorted(board.legal_moves, key=Move.iccs)
        forbidden_moves = getattr(self.tablebase, "forbidden_moves", None)
        if forbidden_moves is None or self.mode == Mode.CHECKS:
            return replies
        try:
            forbidden = set(forbidden_moves(board))
        except MissingTableError:
            return replies
        return [move for move in replies if move not in forbidden]

    @staticmethod
    def _repeats(board: Board, move: Move) -> bool:
        board.push_unchecked(move)
        try:
            return board.repetition_count() > 0
        finally:
            board.pop()

    def _mating_move(self, board: Board, remaining: int, order: int) -> Move | None:
        """A move after which the attacker mates within ``remaining - 1`` moves."""
        candidates = self.attacker_moves(board)
        # A move back into a position of the line wins nothing (only the defender's
        # perpetual check makes him deviate): tried last, so that a line from a proof that
        # is not minimal does not go round a cycle and run out of moves.
        candidates.sort(key=lambda move: self._repeats(board, move))
        if self._follow_stored_proof:
            stored = self.search.proof_move(board, remaining)
            if stored is not None:
                move = Move(*stored)
                if move in candidates and not self._repeats(board, move):
                    candidates.remove(move)
                    candidates.insert(0, move)
        # The proving order first; the other orders (full width last) only if its proof is
        # no longer in the table and a fresh search at that order misses it.
        queries: list[Callable[[Board], tuple[str, int | None]]] = [
            lambda b: self.value_at(b, remaining - 1, order),
            lambda b: self.value(b, remaining - 1)]
        for query in queries:
            for move in candidates:
                board.push_unchecked(move)
                status: str = PROVEN              # mate (or 困毙) now, unless:
                if board.turn == self.attacker or board.has_legal_move():
                    status, _ = query(board)
                board.pop()
                if status == PROVEN:
                    return move
                if status == UNKNOWN:
                    return None
            if order == self.full_order:
                break
        return None

    def _longest_defence(self, board: Board, replies: list[Move], remaining: int, order: int,
                         exact: bool) -> tuple[Move | None, int]:
        """The first reply after which no mate in ``remaining - 1`` follows, with the moves
        the attacker then needs.  Along a minimal line one exists; a line from an inexact
        proof may have none (every reply loses faster), and then a shorter count is tried.
        A line finished after the budget ran out takes the reply whose stored proof is
        longest instead (no search where the proof is still in the table)."""
        if self._follow_stored_proof:
            longest, chosen = -1, None
            for reply in replies:
                board.push_unchecked(reply)
                status, found = self.value_at(board, remaining, order)
                if status == DISPROVEN and order != self.full_order:
                    # The proof of this reply is gone from the table and the order alone
                    # does not find it again: the other orders, full width last, may.
                    status, found = self.value(board, remaining)
                board.pop()
                if status != PROVEN or found is None:
                    return None, remaining
                if found > longest:
                    longest, chosen = found, reply
            return chosen, longest
        if self._fresh_defences:
            self.search.clear_table()
        while remaining >= 1:
            for reply in replies:
                board.push_unchecked(reply)
                status, _ = self.value_at(board, remaining - 1, order)
                if status == DISPROVEN and exact and order != self.full_order:
                    status, _ = self.value_at(board, remaining - 1, self.full_order)
                board.pop()
                if status == DISPROVEN:
                    return reply, remaining
                if status == UNKNOWN:
                    return None, remaining
            remaining -= 1
        return None, remaining

    def tree(self, length: int, max_nodes: int = 2000) -> TreeNode | None:
        """The full solution tree (every defence), or None if it has more than ``max_nodes``."""
        count = [0]

        def build(board: Board, move: Move | None, remaining: int) -> TreeNode | None:
            count[0] += 1
            if count[0] > max_nodes:
                return None
            node = TreeNode(move, remaining)
            if remaining == 0 and board.turn != self.attacker:
                return node
            if board.turn == self.attacker:
                for candidate in self.attacker_moves(board):
                    board.push_unchecked(candidate)
                    status, n = self.shortest(board, remaining - 1)
                    if status == PROVEN and n == remaining - 1:
                        child = build(board, candidate, n)
                        board.pop()
                        if child is None:
                            return None
                        node.children.append(child)
                        return node
                    board.pop()
                return None
            for reply in self.defences(board):
                board.push_unchecked(reply)
                status, n = self.shortest(board, remaining)
                child = build(board, reply, n) if status == PROVEN and n is not None else None
                board.pop()
                if child is None:
                    return None
                node.children.append(child)
            return node

        return build(self.board.copy(), None, length)

    def reserve_for_line(self) -> Budget:
        """Shorten the budget so that part of it is left for the main line; returns the full
        one, to apply again for the line."""
        full = Budget.of(self.search)
        full.reserve(LINE_RESERVE, self.search.nodes).apply(self.search)
        return full

    def run(self, max_moves: int, tree: bool = False) -> SolveResult:
        """Solve this solver's position within ``max_moves`` attacker moves (see :func:`solve`).

        A front end that keeps the Solver can call :meth:`cancel` and read :attr:`best_upper`
        while this runs in another thread."""
        if max_moves < 1:
            raise SolverError(f"max_moves must be at least 1, not {max_moves}")
        if not self.board.has_legal_move():
            raise SolverError("the side to move has no legal move: the game is already over")
        start = time.perf_counter()
        full_budget = self.reserve_for_line()
        status, length = self.shortest(self.board, max_moves)
        cancelled = bool(self.search.stopped) and not self.limit_reached()
        exact = self.exact
        if status == UNKNOWN and self.best_upper is not None:
            status, length, exact = PROVEN, self.best_upper, False
        line: list[Move] = []
        solution_tree = None
        if status == PROVEN:
            assert length is not None
            full_budget.apply(self.search)
            line = self.line_within_reserve(length, exact, cancelled)
            if tree and exact:
                solution_tree = self.tree(length)
        verdict = {PROVEN: Verdict.MATE, DISPROVEN: Verdict.NO_MATE,
                   UNKNOWN: Verdict.UNKNOWN}[status]
        order = self.best_order if status == PROVEN and self.best_order != FULL else None
        if self.mode == Mode.CHECKS:
            order = 1 if status == PROVEN else None
        return SolveResult(verdict, length, line, self.mode, max_moves, self.search.nodes,
                           time.perf_counter() - start, self.search.table_used,
                           self.search.table_entries, solution_tree, exact, order,
                           self.search.tb_leaves, self.search.threat_tests,
                           table_mate_moves(self.board, self.mode, self.tablebase)
                           if self.search.root_from_table else None,
                           status != PROVEN or self.line_complete(line),
                           self.minimality_skip if status == PROVEN and not exact else None)

    def limit_reached(self) -> bool:
        """Did the search stop at a budget (rather than by :meth:`cancel`)?"""
        return Budget.of(self.search).spent(self.search.nodes)

    def line_within_reserve(self, length: int, exact: bool, cancelled: bool) -> list[Move]:
        """The main line of a proven mate.  Its proof is in the table, so the line costs
        little: an exact mate's line is searched (the longest defence proven), an inexact
        one follows the stored proof.  If the reserve still runs out (or the user
        cancelled), the line is finished past the budget by following the stored proof,
        within a cap of its own; past that cap it is cut short (see :meth:`line_complete`)."""
        self.search.stopped = 0
        if not cancelled:
            self._follow_stored_proof = not exact
            try:
                line = self.main_line(length, exact=exact)
                if exact and self.line_complete(line) and len(line) < 2 * length - 1:
                    # An exact mate's line that mates sooner took a defence that is not the
                    # longest: a table entry proved along another move order, whose history
                    # (the repetitions it forbids) is not this line's, read as this
                    # position's (No. 310: mate in 12, a line of 11 moves).  Extracted
                    # again with the table emptied at every defence, each defence's values
                    # are searched along the line itself (emptied once, the searches of the
                    # line's first moves stored such an entry again: No. 310 with tables).
                    self._fresh_defences = True
                    line = self.main_line(length, exact=exact)
            finally:
                self._follow_stored_proof = False
                self._fresh_defences = False
            if self.line_complete(line):
                return line
        progress = self.search.progress
        # Re-proving evicted parts costs about what proving them did: capped at twice the
        # nodes so far and at the time budget again.
        grace = Budget.grace(self.search.nodes, self.limits.seconds, 2 * self.search.nodes)
        self.search.progress = None
        self.search.stopped = 0
        self._follow_stored_proof = True
        try:
            with within(self.search, grace):
                return self.main_line(length, exact=False)
        finally:
            self._follow_stored_proof = False
            self.search.progress = progress

    def line_complete(self, line: list[Move]) -> bool:
        """Does ``line`` end in the defender mated (or with no move: 困毙)?"""
        board = self.board.copy()
        for move in line:
            board.push_unchecked(move)
        return bool(line) and not board.has_legal_move() and board.turn != self.attacker


def solve(board: Board, mode: str = "checks", max_moves: int | None = None,
          tablebases: Tablebase | None = None, limits: Limits | None = None,
          progress: Callable[[int, int], bool | None] | None = None,
          tree: bool = False, tablebase: Tablebase | None = None) -> SolveResult:
    """Prove that the side to move mates, in ``mode`` "checks" (every attacker move checks,
    连照杀) or "any", within ``max_moves`` attacker moves.

    The verdict is "mate" with the exact shortest length and the main line, "no mate" when
    the search proved there is none within the bound, or "unknown" when a limit stopped it.
    ``progress(nodes, table_used)`` is called now and then; returning True cancels.
    ``tablebases`` (from :func:`tablebases.open_tablebase`; ``tablebase`` is accepted too)
    answers leaves whose material it covers.  If a limit stops the search after a mate was
    proven but before its shortest length was, the verdict is "mate" with ``exact`` False and
    ``length`` the best bound found.
    """
    tablebase = tablebases if tablebases is not None else tablebase
    if max_moves is None:
        max_moves = DEFAULT_MAX_MOVES.get(mode, 20)
    return Solver(board, mode, limits, tablebase, progress).run(max_moves, tree)
