"""Type stub for the Cython df-pn searcher (``solver/_dfpn.pyx``).

Only the Python-visible API: the C-level declarations are in ``_dfpn.pxd``.
"""
from collections.abc import Callable, Iterable
from typing import Literal

from typing_extensions import disjoint_base

from tablebases._probe import LeafProber
from xiangqi._core import BaseBoard

PROVEN: Literal["proven"]
DISPROVEN: Literal["disproven"]
UNKNOWN: Literal["unknown"]
FULL: int           # the full-width "order": every legal attacker move
MAX_ORDER: int      # the highest λ order a search may be asked for
MAX_THREADS: int    # the most processes of one parallel search (solver.parallel)
ENTRY_BYTES: int    # bytes of one transposition-table entry

_Status = Literal["proven", "disproven", "unknown"]

@disjoint_base
class Search:
    """A df-pn searcher with its own transposition table (``table_bits``: log2 entries)."""

    checks_only: int
    nodes: int
    node_limit: int
    deadline: float
    stopped: int
    # callable(90 piece codes, side to move) -> tablebase code, or -1
    tablebase_probe: Callable[[bytes, int], int] | None
    tablebase_max_pieces: int
    leaf_prober: LeafProber | None      # tables answered at C level
    tb_leaves: int                      # leaves a tablebase answered
    # callable(nodes, table entries used); a true result cancels the search
    progress: Callable[[int, int], object] | None
    progress_every: int
    progress_interval: float            # seconds between progress calls
    perpetual_check_rule: int
    # callable(cycle's first position's codes, side to move, moves as (from, to)) -> loser or -1
    repetition_judge: Callable[[bytes, int, list[tuple[int, int]]], int] | None
    judge_calls: int
    order: int                  # λ order of the running root search (FULL: full width)
    root_from_table: int        # the last query's root was answered by a table
    threat_tests: int           # threat searches entered (a pass searched)
    threat_answers: int         # threat tests the table answered without a search
    threat_nodes_spent: int     # nodes searched after a pass (the outermost ones)
    tempo_frontier: int         # λ orders > 1 try every move with this few moves left
    gate_pn: int                # proof number a quiet move's threat test adds
    epsilon_num: int            # threshold growth 1 + epsilon_num/4 for the second-best child
    threat_horizon: int         # threat tests look this many moves ahead at most (0: all left)
    hints_taken: int            # move lists generated with a hinted move first
    helper_nodes: int           # of ``nodes``, those the helpers of parallel searches searched
    @property
    def worker(self) -> int:
        """0 in the main process, the helper's number in a helper (solver.parallel)."""

    # Its arguments go to __cinit__ (__new__ at runtime): __init__ takes none of its own.
    def __new__(cls, table_bits: int = 20, shared: bool = False) -> Search: ...
    @property
    def shared(self) -> bool:
        """The table is shared with processes forked from now on."""
    def begin_parallel(self) -> None:
        """Before the helpers are forked: clear the shared flags and counts."""
    def become_helper(self, worker: int) -> None:
        """In a forked process: search as helper ``worker`` (1 .. MAX_THREADS - 1)."""
    def finish_helper(self, solved: bool) -> None:
        """In a helper, its search over: publish its nodes; ``solved``: every worker stops."""
    def stop_helpers(self) -> None:
        """In the main process, its search over: the helpers stop."""
    def end_parallel(self) -> int:
        """After the helpers have exited: their nodes, added to ``nodes``."""
    @property
    def table_entries(self) -> int: ...
    @property
    def table_used(self) -> int:
        """Entries written so far (an upper bound on the fill)."""
    def clear_table(self) -> None: ...
    def set_hints(self, hints: Iterable[tuple[int, int, int]]) -> None:
        """Moves to try first, as (position key, from, to); at λ orders above 1 a hinted
        quiet move needs no threat test.  Empty: no hints."""
    @property
    def hint_count(self) -> int:
        """Positions with a hinted move."""
    def cancel(self) -> None: ...
    def set_position(self, board: BaseBoard) -> None:
        """Search from ``board``'s position; its side to move is the attacker."""
    def prove(self, remaining: int, order: int = ...) -> tuple[_Status, int | None]:
        """(status, proof length in attacker moves or None) with ``remaining`` attacker moves
        at λ ``order``."""
    def value(
        self, board: BaseBoard, remaining: int, or_node: bool = True, order: int = ...
    ) -> tuple[_Status, int | None]:
        """(status, length) of ``board`` from the table or a fresh search at ``order``."""
    def proof_move(self, board: BaseBoard, remaining: int) -> tuple[int, int] | None:
        """(from, to) of a stored proof's move that mates within ``remaining``, or None."""
    def _run(self, or_node: bool, remaining: int, order: int) -> tuple[_Status, int | None]: ...
