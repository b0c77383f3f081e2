"""Solving: prove a mate with df-pn, then find its exact length, main line and tree.

>>> from xiangqi import Board
>>> result = solve(Board("3k5/9/9/9/9/9/9/9/9/R3K4 w"), mode="checks")
>>> result.verdict, result.length, [m.iccs() for m in result.main_line]
('mate', 1, ['a0d0'])
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from xiangqi import Board, Move
from xiangqi.rules import adjudicate, ruleset

from ._dfpn import DISPROVEN, PROVEN, UNKNOWN, Search

MODES = ("checks", "any")
DEFAULT_MAX_MOVES = {"checks": 200, "any": 20}


class SolverError(ValueError):
    """A request the solver cannot run (bad mode or bound, position already over)."""


@dataclass
class Limits:
    """Budgets; running out of any gives the verdict "unknown", never "no mate"."""
    nodes: int = 0              # 0: no limit
    seconds: float = 0.0        # 0: no limit
    table_bits: int = 22        # transposition table of 2**table_bits entries (32 bytes each)
    # 单方面长将 (棋例 26.1): a defender who can escape only by checking for ever must deviate,
    # so such a repetition counts as a win for the attacker.  Off: every repetition is a draw.
    perpetual_check_rule: bool = True
    # The full repetition rules (棋例: chase, mate threat, mixtures) judged by
    # ``xiangqi.rules`` at every repetition where the defender may be attacking throughout:
    # "chinese" or "asian", or None (perpetual check only; faster).  Draw verification uses
    # "chinese" unless told otherwise.
    repetition_rules: str | None = None
    # Nodes between calls of the progress hook.  The search holds the GIL in between, so an
    # interactive front end running it in a thread asks for calls more often than a CLI does.
    progress_nodes: int = 100_000


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

    @property
    def plies(self) -> int | None:
        return None if self.length is None else 2 * self.length - 1

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


def repetition_judge(rules: str) -> Callable[[bytes, int, list], int]:
    """The search's judge of a repeated cycle: given the cycle's first position (90 piece
    codes and the side to move) and its moves, the colour that must deviate, or -1."""
    ruleset(rules)      # an unknown rule set is refused here, not inside the search

    def judge(codes: bytes, turn: int, moves: list[tuple[int, int]]) -> int:
        board = Board.empty()
        board._load(list(codes), turn, 0, 1)
        for from_square, to_square in moves:
            board.push_unchecked(Move(from_square, to_square))
        verdict = adjudicate(board, rules, min_occurrences=2)
        return -1 if verdict is None or verdict.loser is None else verdict.loser
    return judge


class Solver:
    """One searcher for one position's attacker; reuse it for queries about the same problem."""

    def __init__(self, board: Board, mode: str = "checks", limits: Limits | None = None,
                 tablebase=None, progress: Callable[[int, int], bool | None] | None = None):
        if mode not in MODES:
            raise SolverError(f"unknown mode {mode!r}: use one of {', '.join(MODES)}")
        self.board = board.copy()
        self.mode = mode
        self.limits = limits or Limits()
        self.search = Search(self.limits.table_bits)
        self.search.checks_only = 1 if mode == "checks" else 0
        self.search.perpetual_check_rule = 1 if self.limits.perpetual_check_rule else 0
        if self.limits.repetition_rules is not None:
            self.search.repetition_judge = repetition_judge(self.limits.repetition_rules)
        self.attacker = board.turn
        self.best_upper: int | None = None   # smallest proven bound at the root so far
        self.start = time.time()
        if self.limits.seconds:
            self.search.deadline = self.start + self.limits.seconds
        if self.limits.nodes:
            self.search.node_limit = self.limits.nodes
        if progress is not None:
            self.search.progress = progress
            self.search.progress_every = self.limits.progress_nodes
        if tablebase is not None:
            self._attach_tablebase(tablebase)

    def _attach_tablebase(self, tablebase) -> None:
        """Leaves whose material has a table are answered by it (``tablebase``: an object of
        :func:`tablebases.open_tablebase`)."""
        self.search.tablebase_probe = tablebase.probe_codes
        self.search.tablebase_max_pieces = tablebase.max_pieces()

    def cancel(self) -> None:
        self.search.cancel()

    @property
    def stopped(self) -> bool:
        return bool(self.search.stopped)

    def value(self, board: Board, remaining: int) -> tuple[str, int | None]:
        """Status of ``board`` with ``remaining`` attacker moves (OR node if the attacker is
        to move there)."""
        if self.search.stopped:
            return UNKNOWN, None
        return self.search.value(board, remaining, board.turn == self.attacker)

    def shortest(self, board: Board, upper: int) -> tuple[str, int | None]:
        """The exact number of attacker moves to mate from ``board``, searching up to ``upper``.

        Returns (PROVEN, n), (DISPROVEN, None) or (UNKNOWN, None)."""
        status, length = self.value(board, upper)
        if status != PROVEN:
            return status, None
        root = board == self.board and board.ply_count == self.board.ply_count
        if root:
            self.best_upper = length
        low, high = 0 if board.turn == self.attacker else -1, length   # low fails, high proves
        if board.turn != self.attacker and not board.has_legal_move():
            return PROVEN, 0
        while high - low > 1:
            middle = (low + high) // 2
            status, found = self.value(board, middle)
            if status == PROVEN:
                high = found
                if root:
                    self.best_upper = found
            elif status == DISPROVEN:
                low = middle
            else:
                return UNKNOWN, None
        return PROVEN, high

    def attacker_moves(self, board: Board) -> list[Move]:
        moves = sorted(board.legal_moves, key=Move.iccs)
        if self.mode == "checks":
            moves = [m for m in moves if board.gives_check(m)]
        return moves

    def main_line(self, length: int) -> list[Move]:
        """The attacker mates as fast as possible, the defender resists as long as possible.

        Ties: among equally fast mates, and among equally long defences, the first move in
        ICCS order is taken."""
        board = self.board.copy()
        line: list[Move] = []
        remaining = length
        while remaining > 0:
            if board.turn == self.attacker:
                # A fastest mate: a move after which the mate needs ``remaining - 1`` more.
                chosen = self._first_with(board, self.attacker_moves(board), remaining - 1,
                                          PROVEN)
            else:
                # Along a minimal line this defender node needs exactly ``remaining`` more
                # attacker moves, so the longest defences are the replies after which the
                # attacker cannot mate in ``remaining - 1``.
                replies = sorted(board.legal_moves, key=Move.iccs)
                if not replies:
                    break
                chosen = self._first_with(board, replies, remaining - 1, DISPROVEN)
            if chosen is None:
                return line
            line.append(chosen)
            board.push_unchecked(chosen)
            if board.turn != self.attacker:
                remaining -= 1
        return line

    def _first_with(self, board: Board, moves: list[Move], remaining: int,
                    wanted: str) -> Move | None:
        """The first of ``moves`` after which ``value(remaining)`` is ``wanted`` (None if
        none is, or a limit stopped the search)."""
        for move in moves:
            board.push_unchecked(move)
            status, _ = self.value(board, remaining)
            board.pop()
            if status == wanted:
                return move
            if status == UNKNOWN:
                return None
        return None

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
            for reply in sorted(board.legal_moves, key=Move.iccs):
                board.push_unchecked(reply)
                status, n = self.shortest(board, remaining)
                child = build(board, reply, n) if status == PROVEN else None
                board.pop()
                if child is None:
                    return None
                node.children.append(child)
            return node

        return build(self.board.copy(), None, length)

    def run(self, max_moves: int, tree: bool = False) -> SolveResult:
        """Solve this solver's position within ``max_moves`` attacker moves (see :func:`solve`).

        A front end that keeps the Solver can call :meth:`cancel` and read :attr:`best_upper`
        while this runs in another thread."""
        if max_moves < 1:
            raise SolverError(f"max_moves must be at least 1, not {max_moves}")
        if not self.board.has_legal_move():
            raise SolverError("the side to move has no legal move: the game is already over")
        start = time.perf_counter()
        status, length = self.shortest(self.board, max_moves)
        line: list[Move] = []
        solution_tree = None
        if status == PROVEN:
            line = self.main_line(length)
            if tree:
                solution_tree = self.tree(length)
        verdict = {PROVEN: "mate", DISPROVEN: "no mate", UNKNOWN: "unknown"}[status]
        exact = True
        if status == UNKNOWN and self.best_upper is not None:
            verdict, length, exact = "mate", self.best_upper, False
        return SolveResult(verdict, length, line, self.mode, max_moves, self.search.nodes,
                           time.perf_counter() - start, self.search.table_used,
                           self.search.table_entries, solution_tree, exact)


def solve(board: Board, mode: str = "checks", max_moves: int | None = None,
          tablebases=None, limits: Limits | None = None,
          progress: Callable[[int, int], bool | None] | None = None,
          tree: bool = False, tablebase=None) -> SolveResult:
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
