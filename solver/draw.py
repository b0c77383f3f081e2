"""Draw compositions (红先和): tables first, then the traps, the drawing line and the bounded
proofs.

A draw study asks Red to move and hold the draw.  :func:`analyse_draw` answers, in this order:

1. the tables: if the position's material has a table, its value is exact (a draw, or a win
   that makes the composition unsound); if not, the table that would settle it is named with
   its estimated build time and memory (:func:`table_need`, built on request by
   :func:`build_tables`);
2. the bounded proof: "Red has no forced win within N moves" and "Black has no forced win
   within N moves" (full-width df-pn, tablebase leaves, repetitions judged by the 棋例), with
   the nodes, the time and what stayed unproven.  This is never called a draw: only a table
   proves one;
3. the traps (陷阱): Red's tempting first moves (checks and captures first) that lose to a
   forced Black win, each with its refutation and its length;
4. the drawing line: every Red move keeps at least a draw, Black resists (its moves keep its
   own draw and leave Red the fewest holding replies), until the position is a table draw, a
   repetition judged a draw under the rules chosen, or a natural-limit draw.

>>> import tempfile
>>> from tablebases import open_tablebase
>>> from tablebases.build import build
>>> from xiangqi import Board
>>> directory = tempfile.mkdtemp()
>>> _ = build("KCKN", directory, log=lambda line: None)
>>> with open_tablebase(directory) as tablebase:
...     analysis = analyse_draw(Board("2c6/4k4/4N4/9/9/9/9/9/9/4K4 w"), tablebase=tablebase,
...                             line=False, traps=False)
>>> str(analysis.verdict), analysis.settled_by
('draw', 'table KCKN')
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from xiangqi import Board, Move
from xiangqi.notation import write_numbered_line
from xiangqi.output import JsonObject
from xiangqi.pieces import COLOR_NAMES
from xiangqi.quantities import duration_text, memory_text
from xiangqi.rules import adjudicate, natural_limit, ruleset

from ._dfpn import DISPROVEN, PROVEN, UNKNOWN
from .budget import Budget
from .search import DEFAULT_SEARCH_SECONDS, Limits, Solver, SolverError
from .types import DEFAULT_DRAW_BOUND, DrawVerdict, Mode, Verdict

if TYPE_CHECKING:
    from tablebases.probe import Tablebase, TableValue

# A draw search with no time budget given gets this many seconds (the CLI's and the TUI's
# default): an unbounded draw proof can run for hours without a word.
DEFAULT_DRAW_SECONDS = 60.0


def default_seconds(draw_study: bool) -> float:
    """The time budget of a search for which the user set none: a draw analysis's
    (:data:`DEFAULT_DRAW_SECONDS`) or a mate search's
    (:data:`solver.search.DEFAULT_SEARCH_SECONDS`)."""
    return DEFAULT_DRAW_SECONDS if draw_study else DEFAULT_SEARCH_SECONDS


# Plies of the drawing line at most (the natural limit is 120 plies without a capture).
DEFAULT_LINE_PLIES = 160
# The plies of a trap's refutation the text report shows (the JSON has them all); a longer
# one ends in "… (N more plies)".
REPORT_TRAP_PLIES = 9
# Red first moves examined for traps at most (checks and captures first).
DEFAULT_TRAP_MOVES = 40
# Shares of the budget: the proofs for Red and Black, the traps, the line (what a phase leaves
# unused passes to the next).
_SHARES = {"red": 0.3, "black": 0.3, "traps": 0.2, "line": 0.2}
_STATUS_VERDICT = {PROVEN: Verdict.MATE, DISPROVEN: Verdict.NO_MATE, UNKNOWN: Verdict.UNKNOWN}


@dataclass
class TableNeed:
    """The table of a position's material: present, or what building it would cost."""
    material: str               # canonical name (a table serves the colour-flipped material)
    present: bool
    missing: list[str] = field(default_factory=list)   # tables a build makes, smallest first
    seconds: float = 0.0        # estimated build time of ``missing``
    memory: int = 0             # estimated peak bytes of the largest build among them
    available: int = 0          # bytes the machine can give now
    error: str | None = None    # why no table can exist (e.g. too many pieces to index)

    @property
    def fits(self) -> bool:
        return self.error is None and self.memory <= self.available

    def describe(self) -> str:
        if self.present:
            return f"table {self.material} present"
        if self.error is not None:
            return f"no table for {self.material}: {self.error}"
        size = f"about {memory_text(self.memory)} of memory"
        if not self.fits:
            return (f"table {self.material} missing; it needs {size}, more than the "
                    f"{memory_text(self.available)} available here")
        return (f"table {self.material} missing; building it ({len(self.missing)} table(s)) "
                f"takes about {duration_text(self.seconds)} and {size} "
                "(xqstudio tb build " + self.material + ", or --build-tables)")


@dataclass
class SideProof:
    """Whether ``side`` forces a win within ``bound`` moves (full width, bounded)."""
    side: str                   # "Red" or "Black"
    verdict: Verdict            # mate (a forced win), no mate (none within the bound), unknown
    length: int | None          # the winner's moves to mate
    bound: int
    nodes: int
    seconds: float
    line: list[Move] = field(default_factory=list)   # the win, when there is one
    exact: bool = True          # False: a win within ``length`` proven, not its minimality
    held: int = 0               # the largest bound proven to hold (no win within it)

    def describe(self) -> str:
        if self.verdict == Verdict.MATE:
            at_most = "" if self.exact else "at most "
            return f"{self.side} forces a win: mate in {at_most}{self.length}"
        if self.verdict == Verdict.NO_MATE:
            return f"{self.side} has no forced win within {self.bound} moves"
        held = (f"{self.side} has no forced win within {self.held} moves; "
                if self.held else "")
        return f"{held}unproven whether {self.side} forces a win within {self.bound} moves"


@dataclass
class Trap:
    """A tempting Red first move that loses: Black forces mate in ``length`` after it."""
    move: Move
    kind: str                   # "check", "capture", "check and capture" or "quiet"
    refutation: Move | None     # Black's first move of the win
    length: int | None          # Black's moves to mate after ``move``
    line: list[Move] = field(default_factory=list)    # Black's win, from its refutation
    source: str = "search"      # "table MATERIAL" or "search"


@dataclass
class LineStep:
    move: Move
    held: str                   # why the move keeps the mover's draw: a table, a search


@dataclass
class DrawLine:
    steps: list[LineStep]
    end: str                    # "table draw", "repetition", "natural limit", "ply limit",
    #                             "unproven", "game over"
    detail: str                 # the end in words (the rule clause, the table ...)

    @property
    def moves(self) -> list[Move]:
        return [step.move for step in self.steps]

    @property
    def settled(self) -> bool:
        """The line ends in a draw the rules or the tables establish."""
        return self.end in ("table draw", "repetition", "natural limit")


@dataclass
class DrawAnalysis:
    fen: str
    verdict: DrawVerdict
    settled_by: str             # "table KNKB", "search within 20", or "" (nothing settled)
    bound: int
    rules: str
    table: TableNeed | None = None
    # The missing tables of the materials the drawing line and the traps reach by captures
    # (each would give those positions their exact value), smallest build first.
    reached_tables: list[TableNeed] = field(default_factory=list)
    table_value: str | None = None        # the table's value in words
    table_line: list[Move] = field(default_factory=list)   # the win the table shows, if any
    red: SideProof | None = None
    black: SideProof | None = None
    traps: list[Trap] = field(default_factory=list)
    trap_moves_examined: int = 0
    first_moves_held: list[Move] = field(default_factory=list)  # no loss within the bound
    line: DrawLine | None = None
    unproven: list[str] = field(default_factory=list)   # open questions about the verdict
    open: list[str] = field(default_factory=list)       # traps and line left unsettled
    nodes: int = 0
    seconds: float = 0.0

    @property
    def sound(self) -> bool:
        """The composition is a draw as claimed: proven by a table, nothing left open."""
        return self.verdict == DrawVerdict.DRAW and not self.unproven

    @property
    def unsound(self) -> bool:
        """A side forces a win: the draw claim is refuted."""
        return self.verdict in (DrawVerdict.RED_WINS, DrawVerdict.BLACK_WINS)




# -- tables --------------------------------------------------------------------------------

def table_need(board: Board, directory: Path | str | None, threads: int = 1) -> TableNeed:
    """The table of ``board``'s material in ``directory``: present, or the tables a build
    would make with its estimated time and peak memory (:func:`tablebases.plan.plan_material`)."""
    from tablebases.material import Material
    from tablebases.plan import plan_material

    plan = plan_material(Material.from_board(board), directory, threads)
    if plan.present:
        return TableNeed(plan.material, True)
    return TableNeed(plan.material, False, plan.names, plan.seconds, plan.memory,
                     plan.available, plan.error)


def build_tables(need: TableNeed, directory: Path | str, threads: int = 1,
                 log: Callable[[str], None] = print) -> None:
    """Build the table ``need`` names (and its sub-tables) into ``directory``."""
    from tablebases.build import BuildError, build

    if need.present:
        return
    if not need.fits:
        raise BuildError(need.describe())
    Path(directory).mkdir(parents=True, exist_ok=True)
    build(need.material, directory, threads=threads, log=log)


def table_value(tablebase: Tablebase | None, board: Board) -> TableValue | None:
    """The table value of ``board`` for its side to move, or None (no table)."""
    if tablebase is None:
        return None
    from tablebases import MissingTableError

    try:
        return tablebase.probe(board)
    except MissingTableError:
        return None


def material_name(board: Board) -> str:
    """The canonical material of ``board`` (the name of the table that serves it)."""
    from tablebases.material import Material

    return str(Material.from_board(board).canonical())


def holds(wdl: int) -> bool:
    """A value (for the side to move) that is at least a draw under the natural limit."""
    return wdl >= -1


# -- searches --------------------------------------------------------------------------------

class Prover:
    """One df-pn searcher per attacking colour, reused for every query (one transposition
    table each); each query runs within its own time and node budget."""

    def __init__(self, board: Board, limits: Limits, tablebase: Tablebase | None,
                 progress: Callable[[int, int], bool | None] | None) -> None:
        self.solvers: dict[int, Solver] = {}
        self.limits, self.tablebase, self.progress = limits, tablebase, progress
        self.board = board
        self.interrupted = False    # the progress hook asked to stop: every query after is off

    def _hook(self, nodes: int, table_used: int) -> bool:
        if self.progress is not None and self.progress(nodes, table_used):
            self.interrupted = True
        return self.interrupted

    def solver(self, attacker: int) -> Solver:
        solver = self.solvers.get(attacker)
        if solver is None:
            solver = Solver(self.board, Mode.ANY, replace(self.limits, seconds=0, nodes=0),
                            self.tablebase, self._hook)
            solver.attacker = attacker
            self.solvers[attacker] = solver
        return solver

    @property
    def nodes(self) -> int:
        return sum(s.search.nodes for s in self.solvers.values())

    def wins(self, attacker: int, board: Board, bound: int, seconds: float, nodes: int,
             line: bool = False) -> tuple[str, int | None, list[Move], bool]:
        """Does ``attacker`` force mate from ``board`` within ``bound`` moves?  (status,
        length, the line when asked and proven, exact)."""
        if self.interrupted:
            return UNKNOWN, None, [], True
        solver = self.solver(attacker)
        search = solver.search
        search.stopped = 0
        Budget.fresh(search.nodes, seconds, nodes).apply(search)
        solver.board = board.copy()
        solver.best_upper = solver.best_order = None
        status, length = solver.shortest(solver.board, bound)
        exact = solver.exact
        if status == UNKNOWN and solver.best_upper is not None:
            status, length, exact = PROVEN, solver.best_upper, False
        moves: list[Move] = []
        if status == PROVEN and line and length and not self.interrupted:
            # The line after the budget: following the proof in the table costs little.
            search.stopped = 0
            Budget.grace(search.nodes, seconds).apply(search)
            moves = solver.main_line(length, exact=exact)
        return status, length, moves, exact

    def cancelled(self) -> bool:
        return self.interrupted

    def close(self) -> None:
        """Free the transposition tables now (the hook ties each search to this object)."""
        for solver in self.solvers.values():
            solver.search.progress = None
        self.solvers.clear()


class _Phases:
    """The analysis's time and node budget, handed out phase by phase."""

    def __init__(self, seconds: float, nodes: int, prover: Prover) -> None:
        self.budget = Budget.fresh(prover.nodes, seconds, nodes)
        self.prover = prover
        self.phases_left = list(_SHARES)

    def phase(self, name: str) -> tuple[float, int]:
        """(seconds, nodes) for the phase ``name`` (0: no limit)."""
        share = _SHARES[name] / sum(_SHARES[p] for p in self.phases_left)
        self.phases_left.remove(name)
        return self.budget.share_of_left(share, self.prover.nodes, 0.05, 1000)


def _kind(board: Board, move: Move) -> str:
    check, capture = board.gives_check(move), board.is_capture(move)
    if check and capture:
        return "check and capture"
    return "check" if check else "capture" if capture else "quiet"


def tempting_order(board: Board) -> list[Move]:
    """The legal moves, checks first, then captures, then the rest (each in ICCS order)."""
    def key(move: Move) -> tuple[int, str]:
        return ({"check and capture": 0, "check": 1, "capture": 2, "quiet": 3}[_kind(board, move)],
                move.iccs())
    return sorted(board.legal_moves, key=key)


# -- the analysis ----------------------------------------------------------------------------

class DrawOptions(TypedDict, total=False):
    """The options of :func:`analyse_draw` that a draw stipulation's check passes on as they
    are (see :func:`solver.soundness.verify`; it reads ``rules`` itself and ``line`` is its
    solution)."""
    phase: Callable[[str], None] | None
    traps: bool
    trap_moves: int
    line_plies: int
    threads: int


class VerifyDrawOptions(DrawOptions, total=False):
    """What :func:`solver.soundness.verify` passes on to the draw stipulation's check: the
    repetition rules (default: the limits', else Chinese) and :class:`DrawOptions`."""
    rules: str | None


def analyse_draw(board: Board, bound: int = DEFAULT_DRAW_BOUND, tablebase: Tablebase | None = None,
                 limits: Limits | None = None, rules: str = "chinese",
                 progress: Callable[[int, int], bool | None] | None = None,
                 phase: Callable[[str], None] | None = None, traps: bool = True, line: bool = True,
                 trap_moves: int = DEFAULT_TRAP_MOVES, line_plies: int = DEFAULT_LINE_PLIES,
                 threads: int = 1) -> DrawAnalysis:
    """Analyse ``board`` as a draw composition (the side to move holds the draw).

    ``tablebase`` (from :func:`tablebases.open_tablebase`) settles every position whose
    material it has; ``limits`` bounds the searches (its ``seconds`` and ``nodes`` are the
    whole analysis's budget, shared out over its phases); ``rules`` ("chinese" or "asian")
    judges every repetition.  ``phase(text)`` is told what is being searched (the progress
    line's words, with the bound).  ``progress`` is the searches' hook (True cancels)."""
    if bound < 1:
        raise SolverError(f"the draw bound must be at least 1 move, not {bound}")
    if trap_moves < 0 or line_plies < 0:
        raise SolverError("the trap moves and line plies must be 0 or positive")
    ruleset(rules)                  # an unknown rule set is refused here
    if not board.has_legal_move():
        raise SolverError("the side to move has no legal move: the game is already over")
    limits = replace(limits or Limits(), repetition_rules=rules)
    start = time.perf_counter()
    directory = getattr(tablebase, "directory", None)
    analysis = DrawAnalysis(board.fen(), DrawVerdict.UNKNOWN, "", bound, rules,
                            table=table_need(board, directory, threads))
    prover = Prover(board, limits, tablebase, progress)
    try:
        _analyse(analysis, board, bound, tablebase, prover, rules, phase, traps, line,
                 trap_moves, line_plies)
        analysis.nodes = prover.nodes
        analysis.reached_tables = reached_tables(analysis, board, directory, threads)
    finally:
        prover.close()
    analysis.seconds = time.perf_counter() - start
    return analysis


# Positions examined per line for the tables they reach, and tables named at most.
_REACHED_TABLES = 6


def reached_tables(analysis: DrawAnalysis, board: Board, directory: Path | str | None,
                   threads: int = 1) -> list[TableNeed]:
    """The missing tables of the materials that the drawing line and the traps' lines reach
    after a capture (the root's own material left out: :attr:`DrawAnalysis.table` names it),
    each with its build estimate; those that fit first, then by build time.

    >>> from xiangqi import Move
    >>> analysis = DrawAnalysis("", DrawVerdict.UNKNOWN, "", 20, "chinese")
    >>> analysis.traps.append(Trap(Move.from_iccs("a0a9"), "capture", None, None))
    >>> [need.material for need in reached_tables(analysis, Board("r2k5/9/9/9/9/9/9/9/9/R3K4 w"),
    ...                                           None)]
    ['KRK']
    """
    root = material_name(board)
    lines = [analysis.line.moves] if analysis.line is not None else []
    lines += [[trap.move, *trap.line] for trap in analysis.traps]
    needs: dict[str, TableNeed] = {}
    for moves in lines:
        position = board.copy(stack=False)
        for move in moves:
            if not position.is_legal(move):
                break
            capture = position.is_capture(move)
            position.push(move)
            name = material_name(position) if capture else root
            if name == root or name in needs:
                continue
            need = table_need(position, directory, threads)
            if not need.present:
                needs[name] = need
    ordered = sorted(needs.values(), key=lambda need: (not need.fits, need.seconds))
    return ordered[:_REACHED_TABLES]


def _analyse(analysis: DrawAnalysis, board: Board, bound: int, tablebase: Tablebase | None,
             prover: Prover, rules: str, phase: Callable[[str], None] | None, traps: bool,
             line: bool, trap_moves: int, line_plies: int) -> None:
    budget = _Phases(prover.limits.seconds, prover.limits.nodes, prover)
    say = phase or (lambda text: None)
    value = table_value(tablebase, board)
    holder = board.turn
    if value is not None and tablebase is not None:    # (a value comes from a tablebase)
        _from_table(analysis, board, value, tablebase)
    else:
        for side, key in ((holder, "red"), (holder ^ 1, "black")):
            seconds, nodes = budget.phase(key)
            before, clock = prover.nodes, time.perf_counter()
            status, length, moves, exact, held = _deepening(prover, side, board, bound,
                                                            seconds, nodes, say)
            proof = SideProof(COLOR_NAMES[side], _STATUS_VERDICT[status], length, bound,
                              prover.nodes - before, time.perf_counter() - clock, moves, exact,
                              held)
            setattr(analysis, key, proof)
            if status == UNKNOWN:
                analysis.unproven.append(f"whether {COLOR_NAMES[side]} forces a win within "
                                         f"{bound} moves")
        _verdict_from_search(analysis)
    if traps and analysis.verdict != DrawVerdict.BLACK_WINS:
        seconds, nodes = budget.phase("traps")
        _find_traps(analysis, board, tablebase, prover, bound, seconds, nodes, trap_moves, say)
    else:
        budget.phase("traps")
    if line and not analysis.unsound:
        seconds, nodes = budget.phase("line")
        first = (analysis.first_moves_held, [trap.move for trap in analysis.traps])
        analysis.line = _drawing_line(board, tablebase, prover, rules, bound, seconds, nodes,
                                      line_plies, value is not None, say, first)
        if not analysis.line.settled:
            analysis.open.append(f"the drawing line's end ({analysis.line.detail})")


def _from_table(analysis: DrawAnalysis, board: Board, value: TableValue,
                tablebase: Tablebase) -> None:
    from tablebases.probe import describe

    analysis.settled_by = f"table {material_name(board)}"
    analysis.table_value = describe(value, board.turn)
    holder = board.turn
    if holds(value.wdl) and holds(-value.wdl):
        analysis.verdict = DrawVerdict.DRAW
    else:
        winner = holder if value.wdl > 0 else holder ^ 1
        analysis.verdict = DrawVerdict.RED_WINS if winner == 0 else DrawVerdict.BLACK_WINS
        analysis.table_line = tablebase.best_line(board)


# The bounds of the deepening proofs (then the bound asked for).
_DEEPENING = (2, 4, 6, 8, 10, 12, 15)


def _deepening(prover: Prover, side: int, board: Board, bound: int, seconds: float, nodes: int,
               say: Callable[[str], None]) -> tuple[str, int | None, list[Move], bool, int]:
    """Whether ``side`` wins within ``bound``, searched at growing bounds within one budget:
    (status at ``bound``, length, line, exact, the largest bound proven to hold: no win)."""
    budget = Budget.fresh(prover.nodes, seconds, nodes)
    held = 0
    for step in [b for b in _DEEPENING if b < bound] + [bound]:
        left, nodes_left = budget.divided(1, prover.nodes, 0.01, 1)
        say(f"{COLOR_NAMES[side]} wins within {step}? (of {bound})")
        status, length, moves, exact = prover.wins(side, board, step, left, nodes_left,
                                                   line=True)
        if status == PROVEN:
            return status, length, moves, exact, held
        if status == UNKNOWN:
            return status, None, [], True, held
        held = step
        if budget.spent(prover.nodes):
            break
    return (DISPROVEN, None, [], True, held) if held == bound else (UNKNOWN, None, [], True,
                                                                      held)


def _verdict_from_search(analysis: DrawAnalysis) -> None:
    red, black = analysis.red, analysis.black
    assert red is not None and black is not None
    analysis.settled_by = f"search within {analysis.bound}"
    holder_is_red = red.side == "Red"
    if red.verdict == Verdict.MATE:
        analysis.verdict = DrawVerdict.RED_WINS if holder_is_red else DrawVerdict.BLACK_WINS
    elif black.verdict == Verdict.MATE:
        analysis.verdict = DrawVerdict.BLACK_WINS if holder_is_red else DrawVerdict.RED_WINS
    elif red.verdict == black.verdict == Verdict.NO_MATE:
        analysis.verdict = DrawVerdict.NO_WIN
    else:
        analysis.verdict = DrawVerdict.UNKNOWN
        analysis.settled_by = ""


def _find_traps(analysis: DrawAnalysis, board: Board, tablebase: Tablebase | None, prover: Prover,
                bound: int, seconds: float, nodes: int, trap_moves: int,
                say: Callable[[str], None]) -> None:
    holder = board.turn
    candidates = tempting_order(board)[:trap_moves]
    budget = Budget.fresh(prover.nodes, seconds, nodes)
    unsettled = 0
    for index, move in enumerate(candidates):
        if prover.cancelled():
            break
        left = len(candidates) - index
        after = board.copy()
        after.push(move)
        analysis.trap_moves_examined += 1
        value = table_value(tablebase, after)
        if value is not None:
            assert tablebase is not None, "a table value comes from a tablebase"
            if value.wdl == 2:          # the opponent, to move, wins (not saved by the limit)
                reply = tablebase.ranked_moves(after)[0].move if after.has_legal_move() else None
                line_ = tablebase.best_line(after)
                dtm = value.dtm or 0
                analysis.traps.append(Trap(move, _kind(board, move), reply, (dtm + 1) // 2,
                                           line_, f"table {material_name(after)}"))
            continue
        if not after.has_legal_move():
            continue                    # Red mated or stalemated Black: no trap
        if budget.spent(prover.nodes):
            unsettled += 1
            continue
        each_seconds, each_nodes = budget.divided(left, prover.nodes, 0.02, 500)
        say(f"trap {move.iccs()}: {COLOR_NAMES[holder ^ 1]} wins within {bound}?")
        status, length, moves, _ = prover.wins(holder ^ 1, after, bound, each_seconds,
                                               each_nodes, line=True)
        if status == PROVEN:
            analysis.traps.append(Trap(move, _kind(board, move), moves[0] if moves else None,
                                       length, moves))
        elif status == UNKNOWN:
            unsettled += 1
        else:
            analysis.first_moves_held.append(move)
    if unsettled:
        analysis.open.append(f"whether {unsettled} of the {len(candidates)} first moves "
                                 f"examined lose within {bound} moves")


def _drawing_line(root: Board, tablebase: Tablebase | None, prover: Prover, rules: str, bound: int,
                  seconds: float, nodes: int, max_plies: int, root_in_table: bool,
                  say: Callable[[str], None],
                  first: tuple[list[Move], list[Move]] = ([], [])) -> DrawLine:
    """Both sides keep at least a draw; the holder (the side to move at the root) heads for
    a repetition, a capture or a table draw; the other side picks the move that leaves the
    holder the fewest holding replies, avoiding repetitions."""
    holder = root.turn
    board = root.copy()
    steps: list[LineStep] = []
    budget = Budget.fresh(prover.nodes, seconds, nodes)
    # Bounded checks of a move cost a full-width disproof each: a smaller bound than the
    # root's keeps the line affordable (the table answers wherever it can).
    check_bound = min(bound, 6)
    while True:
        if steps:
            # A forbidden repetition is no end: its loser must deviate, and the line goes
            # on (the loser's moves that would repeat it again are not chosen).
            ending = rule_ending(board, rules)
            if ending is not None:
                return DrawLine(steps, *ending)
            value = table_value(tablebase, board)
            if value is not None and not root_in_table and holds(value.wdl) and \
                    holds(-value.wdl):
                return DrawLine(steps, "table draw",
                                f"the table {material_name(board)} shows a draw")
        if not board.has_legal_move():
            return DrawLine(steps, "game over", "the side to move has no legal move")
        if len(steps) >= max_plies:
            return DrawLine(steps, "ply limit", f"stopped after {max_plies} plies")
        if prover.cancelled():
            return DrawLine(steps, "unproven", "interrupted")
        mover = board.turn
        plies_left = max(1, max_plies - len(steps))
        say(f"line ply {len(steps) + 1}: {COLOR_NAMES[mover]} holds within {check_bound}?")
        if tablebase is not None and table_value(tablebase, board) is not None:
            chosen = table_choice(board, tablebase, rules, mover == holder)
        else:
            if budget.spent(prover.nodes):
                return DrawLine(steps, "unproven",
                                f"the time or node budget ran out after {len(steps)} plies")
            each_seconds, each_nodes = budget.divided(min(plies_left, 20), prover.nodes, 0.05,
                                                      1000)
            held, losing = first if not steps else ([], [])
            chosen = None
            if held:        # the traps' searches proved this first move holds at the bound
                chosen = LineStep(held[0], f"no {COLOR_NAMES[mover ^ 1]} win within {bound} "
                                           "(search)")
            if chosen is None:
                chosen = search_choice(board, tablebase, prover, rules, check_bound,
                                        each_seconds, each_nodes, losing)
        if chosen is None:
            return DrawLine(steps, "unproven",
                            f"no move of {COLOR_NAMES[mover]} was shown to hold at ply "
                            f"{len(steps) + 1}")
        steps.append(chosen)
        board.push(chosen.move)


def rule_ending(board: Board, rules: str) -> tuple[str, str] | None:
    """("repetition", the verdict) if the last move on ``board`` completed a repetition the
    ``rules`` call a draw, ("natural limit", words) if 60 moves passed without a capture;
    else None."""
    verdict = adjudicate(board, rules)
    if verdict is not None and verdict.loser is None:
        return "repetition", str(verdict).splitlines()[0]
    if natural_limit(board, rules=rules).reached:
        return "natural limit", f"60 moves without a capture: a draw under the {rules} rules"
    return None


def _repetition_loser(board: Board, rules: str) -> int | None:
    verdict = adjudicate(board, rules)
    return None if verdict is None else verdict.loser


def _occurrences(board: Board) -> int:
    """How often the position after the last move has occurred in the line (itself included)."""
    history = board.copy()
    key = history.fen().split(" ")[:2]
    count = 1
    while history.ply_count:
        history.pop()
        if history.fen().split(" ")[:2] == key:
            count += 1
    return count


def table_choice(board: Board, tablebase: Tablebase, rules: str, holding: bool) -> LineStep | None:
    """The table's move for the side to move on ``board`` (which a table covers), among
    those that keep at least its draw and repeat nothing the rules forbid to it: the
    ``holding`` side heads for a repetition, then a capture; the other side leaves the
    holder the fewest holding replies, avoiding repetitions.  None if every move loses."""
    mover = board.turn
    options = []
    for ranked in tablebase.ranked_moves(board):
        if not holds(ranked.value.wdl):
            continue
        capture = board.is_capture(ranked.move)
        board.push(ranked.move)
        try:
            if _repetition_loser(board, rules) == mover:
                continue                    # a forbidden repetition: the mover must deviate
            seen = _occurrences(board)
            if holding:
                key: tuple[int, int, str] = (-seen, not capture, ranked.move.iccs())
            else:
                replies = sum(1 for r in tablebase.ranked_moves(board)
                              if holds(r.value.wdl)) if board.has_legal_move() else 0
                key = (replies, seen, ranked.move.iccs())
        finally:
            board.pop()
        options.append((key, ranked))
    if not options:
        return None
    _, ranked = min(options, key=lambda option: option[0])
    return LineStep(ranked.move, f"table {material_name(board)}: "
                                 f"{'draw' if ranked.value.wdl == 0 else 'holds'}")


def search_choice(board: Board, tablebase: Tablebase | None, prover: Prover, rules: str, bound: int,
                  seconds: float, nodes: int, losing: list[Move] | None = None) -> LineStep | None:
    """The first move (repetitions judged a draw first, then checks, captures, the rest)
    after which the opponent has no forced win within ``bound`` moves."""
    mover = board.turn
    ordered = [move for move in tempting_order(board) if move not in (losing or [])]
    repeating = []
    for move in ordered:
        board.push(move)
        loser = _repetition_loser(board, rules)
        seen = _occurrences(board)
        board.pop()
        if loser == mover:
            continue
        repeating.append((-seen, move))
    repeating.sort(key=lambda item: item[0])
    candidates = [move for _, move in repeating]
    # The ply's budget goes half to the first candidate, half of the rest to the next ...:
    # the likely moves (repetitions, checks, captures) get the most, and 12 are tried.
    budget = Budget.fresh(prover.nodes, seconds, nodes)
    for move in candidates[:12]:
        if budget.spent(prover.nodes):
            break
        per_seconds, per_nodes = budget.divided(2, prover.nodes, 0.02, 500)
        after = board.copy()
        after.push(move)
        value = table_value(tablebase, after)
        if value is not None:
            if holds(-value.wdl):
                return LineStep(move, f"table {material_name(after)}: "
                                      f"{'draw' if value.wdl == 0 else 'holds'}")
            continue
        if not after.has_legal_move():
            continue
        status, _, _, _ = prover.wins(mover ^ 1, after, bound, per_seconds, per_nodes)
        if status == DISPROVEN:
            return LineStep(move, f"no {COLOR_NAMES[mover ^ 1]} win within {bound} (search)")
    return None


def check_drawing_line(board: Board, moves: list[Move], tablebase: Tablebase | None = None,
                       bound: int = 8, seconds_per_move: float = 20.0,
                       limits: Limits | None = None, rules: str = "chinese",
                       both_sides: bool = True,
                       progress: Callable[[int, int], bool | None] | None = None,
                       phase: Callable[[str], None] | None = None) -> DrawLine:
    """Check a given drawing line (a composition's traditional main line) move by move.

    After each move of the holder (the side to move on ``board``) the opponent must have no
    forced win: the table says so where one covers the position, else a full-width search
    proves that none exists within growing bounds up to ``bound`` moves, within
    ``seconds_per_move`` (each step's ``held`` says the largest bound proven, and whether the
    whole ``bound`` was reached).  With ``both_sides`` the opponent's moves are checked the
    same way (the holder has no forced win after them).  The line stops before a move refuted
    (a forced win found: end "refuted", the move and its refutation in ``detail``), at a
    repetition the rules call a draw, at the natural
    limit or at a table draw reached by a capture; otherwise it ends "line end".

    >>> from xiangqi import Move
    >>> line = check_drawing_line(Board("3k5/9/9/9/9/9/9/9/9/4K4 w"),
    ...                   [Move.from_iccs(m) for m in ("e0f0", "d9d8")], bound=2)
    >>> [step.held for step in line.steps], line.end
    (['no Black win within 2 (search)', 'no Red win within 2 (search)'], 'line end')
    """
    ruleset(rules)
    limits = replace(limits or Limits(), repetition_rules=rules)
    say = phase or (lambda text: None)
    holder = board.turn
    board = board.copy()
    root_material = material_name(board)
    prover = Prover(board, limits, tablebase, progress)
    steps: list[LineStep] = []
    try:
        for ply, move in enumerate(moves, start=1):
            if not board.is_legal(move):
                raise SolverError(f"ply {ply} of the line: {move.iccs()} is not legal in "
                                  f"{board.fen()}")
            mover = board.turn
            board.push(move)
            if mover != holder and not both_sides:
                held = "not checked"
            else:
                say(f"line ply {ply}: {COLOR_NAMES[mover ^ 1]} wins within {bound}?")
                held = _checked_move(board, mover, tablebase, prover, bound, seconds_per_move,
                                     rules)
            if held.startswith(f"{COLOR_NAMES[mover ^ 1]} wins"):
                # The line keeps the moves that hold; the refuted one is named in the end.
                return DrawLine(steps, "refuted", f"ply {ply}, {move.iccs()}: {held}")
            steps.append(LineStep(move, held))
            ending = rule_ending(board, rules)
            if ending is not None:
                return DrawLine(steps, *ending)
            if held.startswith("table") and held.endswith("draw") and \
                    material_name(board) != root_material:
                return DrawLine(steps, "table draw", f"the table {material_name(board)} shows "
                                                     "a draw")
    finally:
        prover.close()
    full = sum(step.held.endswith(f"within {bound} (search)") or step.held.startswith("table")
               for step in steps)
    return DrawLine(steps, "line end", f"the given line ends after {len(steps)} plies; {full} "
                                       f"moves checked to the full bound of {bound} or by a "
                                       "table")


def _checked_move(after: Board, mover: int, tablebase: Tablebase | None, prover: Prover, bound: int,
                  seconds: float, rules: str) -> str:
    """What shows that ``mover``'s last move on ``after`` keeps its draw, in words: a table,
    the largest bound within which a search proved the opponent has no forced win, or the
    opponent's win when one is found."""
    opponent = COLOR_NAMES[mover ^ 1]
    if _repetition_loser(after, rules) == mover:
        return f"{opponent} wins: the move repeats in a way the {rules} rules forbid"
    value = table_value(tablebase, after)
    if value is not None:
        if holds(-value.wdl):
            return f"table {material_name(after)}: {'draw' if value.wdl == 0 else 'holds'}"
        return f"{opponent} wins: table {material_name(after)}"
    if not after.has_legal_move():
        return "the opponent has no move"
    status, length, _, exact, held = _deepening(prover, mover ^ 1, after, bound, seconds, 0,
                                                lambda text: None)
    if status == PROVEN and not length:
        # Won at the root: the search judges a repetition at its second occurrence, and
        # this one the rules make the mover deviate from.
        return (f"{opponent} wins: the move repeats a position, which the {rules} rules "
                f"forbid {COLOR_NAMES[mover]} to keep up (search)")
    if status == PROVEN:
        return f"{opponent} wins: mate in {'at most ' if not exact else ''}{length} (search)"
    if held == bound:
        return f"no {opponent} win within {bound} (search)"
    if held:
        return f"no {opponent} win within {held} (search, {bound} unproven)"
    return f"unproven: no bound reached within {seconds:.0f} s"


# -- the report ------------------------------------------------------------------------------

def report_lines(analysis: DrawAnalysis, board: Board, notation: str = "chinese",
                 max_traps: int = 8) -> list[str]:
    """The analysis in words, one line each (the CLI prints them, the TUI shows them)."""
    from xiangqi.notation import write_line

    lines = [f"Stipulation: draw (红先和); repetitions judged by the {analysis.rules} rules "
             "(棋例)"]
    if analysis.table is not None:
        lines.append(f"Table: {analysis.table.describe()}")
    for need in analysis.reached_tables:
        lines.append(f"  reached by the line or a trap: {need.describe()}")
    if analysis.table_value is not None:
        lines.append(f"  exact value (Red to move): {analysis.table_value}"
                     if board.turn == 0 else f"  exact value: {analysis.table_value}")
    for proof in (analysis.red, analysis.black):
        if proof is not None:
            lines.append(f"  {proof.describe()} ({proof.nodes:,} nodes, {proof.seconds:.1f} s)")
    verdict = {
        DrawVerdict.DRAW: f"draw ({analysis.settled_by}: exact)",
        DrawVerdict.NO_WIN: (f"no forced win for either side within {analysis.bound} moves "
                             "(bounded search: not a proof of a draw)"),
        DrawVerdict.RED_WINS: f"Red wins ({analysis.settled_by}): the draw claim is unsound",
        DrawVerdict.BLACK_WINS: f"Black wins ({analysis.settled_by}): the draw claim is unsound",
        DrawVerdict.UNKNOWN: f"unproven within the budget (bound {analysis.bound} moves)",
    }[analysis.verdict]
    lines.append(f"Verdict: {verdict}")
    win_line = analysis.table_line or next(
        (p.line for p in (analysis.red, analysis.black) if p and p.verdict == Verdict.MATE), [])
    if analysis.unsound and win_line:
        lines.append("  the win: " + write_numbered_line(board, win_line, notation))
    tempting = [t for t in analysis.traps if t.kind != "quiet"]
    quiet = [t for t in analysis.traps if t.kind == "quiet"]
    if analysis.trap_moves_examined:
        examined = analysis.trap_moves_examined
        if tempting:
            losing = (f"{len(tempting)} check/capture first "
                      + ("move loses" if len(tempting) == 1 else "moves lose"))
        else:
            losing = "no check or capture first move loses" if quiet else \
                "no first move loses"
        lines.append(f"Traps (陷阱): {losing} ({examined} first "
                     f"{'move' if examined == 1 else 'moves'} examined)")
        for trap in tempting[:max_traps]:
            after = board.copy()
            after.push(trap.move)
            name = write_line(board, [trap.move], notation)[0]
            refutation = write_line(after, [trap.refutation], notation)[0] \
                if trap.refutation is not None else "-"
            cut = len(trap.line) - REPORT_TRAP_PLIES
            lines.append(f"  {name} ({trap.kind}): refuted by {refutation}, mate in "
                         f"{trap.length} ({trap.source}): "
                         + write_numbered_line(after, trap.line[:REPORT_TRAP_PLIES], notation)
                         + (f" \u2026 ({cut} more {'ply' if cut == 1 else 'plies'})"
                            if cut > 0 else ""))
        if len(tempting) > max_traps:
            lines.append(f"  ... and {len(tempting) - max_traps} more")
        if quiet:
            names = [write_line(board, [t.move], notation)[0] for t in quiet[:6]]
            more = f" and {len(quiet) - 6} more" if len(quiet) > 6 else ""
            label = "quiet first move that loses" if len(quiet) == 1 else \
                "quiet first moves that lose"
            lines.append(f"  {label}{' too' if tempting else ''}: {' '.join(names)}{more}")
    if analysis.line is not None:
        drawing = analysis.line
        plies = len(drawing.steps)
        lines.append(f"Drawing line ({plies} {'ply' if plies == 1 else 'plies'}; "
                     f"ends: {drawing.end}): "
                     + write_numbered_line(board, drawing.moves, notation))
        lines.append(f"  {drawing.detail}")
        sources = sorted({step.held for step in drawing.steps})
        if sources:
            lines.append("  each move checked by: " + "; ".join(sources))
    for item in analysis.unproven:
        lines.append(f"unproven: {item}")
    for item in analysis.open:
        lines.append(f"not settled: {item}")
    lines.append(f"{analysis.nodes:,} nodes in {analysis.seconds:.1f} s")
    return lines


def analysis_json(analysis: DrawAnalysis) -> JsonObject:
    """The analysis as JSON data (ICCS moves)."""
    def moves(line: list[Move]) -> list[str]:
        return [m.iccs() for m in line]

    def proof(p: SideProof | None) -> JsonObject | None:
        if p is None:
            return None
        return {"side": p.side, "verdict": p.verdict, "length": p.length, "bound": p.bound,
                "nodes": p.nodes, "seconds": round(p.seconds, 3), "exact": p.exact,
                "held": p.held,
                "line": moves(p.line)}

    def need_json(need: TableNeed) -> JsonObject:
        return {"material": need.material, "present": need.present, "missing": need.missing,
                "estimated_seconds": round(need.seconds, 1), "memory_bytes": need.memory,
                "fits": need.fits, "error": need.error, "text": need.describe()}

    table = analysis.table
    return {
        "fen": analysis.fen, "verdict": analysis.verdict, "settled_by": analysis.settled_by,
        "bound": analysis.bound, "rules": analysis.rules, "sound": analysis.sound,
        "unsound": analysis.unsound,
        "table": None if table is None else need_json(table),
        "reached_tables": [need_json(need) for need in analysis.reached_tables],
        "table_value": analysis.table_value, "table_line": moves(analysis.table_line),
        "red": proof(analysis.red), "black": proof(analysis.black),
        "traps": [{"move": t.move.iccs(), "kind": t.kind,
                   "refutation": t.refutation.iccs() if t.refutation else None,
                   "length": t.length, "line": moves(t.line), "source": t.source}
                  for t in analysis.traps],
        "trap_moves_examined": analysis.trap_moves_examined,
        "line": None if analysis.line is None else {
            "moves": moves(analysis.line.moves), "end": analysis.line.end,
            "detail": analysis.line.detail, "held": [s.held for s in analysis.line.steps]},
        "unproven": analysis.unproven, "open": analysis.open,
        "nodes": analysis.nodes, "seconds": round(analysis.seconds, 3),
    }
