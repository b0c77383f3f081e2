"""Soundness of a composed problem: key, cooks, duals, tries, the intended line, and draws.

Terms as composers use them:
  * the key is the first move of the solution; it is unique when no other first move also
    meets the stipulation (within the stipulated number of moves); every other such move is
    a cook;
  * a dual is a second attacker move, later in the main line, that also forces mate within
    the moves left;
  * a try is a first move that fails to a single defence (the refutation).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from xiangqi import Board, Move
from xiangqi.notation import NotationError, parse_line, write_line
from xiangqi.pieces import COLOR_NAMES

from ._dfpn import DISPROVEN, PROVEN, UNKNOWN
from .refute import Refutation, refute
from .search import DEFAULT_MAX_MOVES, Limits, Solver, SolverError
from .types import (
    DEFAULT_DRAW_BOUND,
    STIPULATIONS,
    DrawVerdict,
    Mode,
    Stipulation,
    Verdict,
    mode_of,
)

if TYPE_CHECKING:
    from .draw import DrawAnalysis

# A verify whose mate search has no budget gives its refutation this many seconds.
REFUTATION_CAP_SECONDS = 30.0

_VERDICTS = {PROVEN: Verdict.MATE, DISPROVEN: Verdict.NO_MATE}   # else Verdict.UNKNOWN


@dataclass
class Alternative:
    move: Move
    length: int | None          # attacker moves to mate after this first move (None: fails)
    refutation: Move | None = None


@dataclass
class Dual:
    ply: int                    # index in the main line of the attacker move it duplicates
    move: Move
    length: int


@dataclass
class LineCheck:
    """How an intended (recorded) line compares with the truth."""
    legal: bool
    problem: str | None         # first problem found, in words
    moves: int                  # attacker moves in the line
    ends_in_mate: bool
    forced: bool                # every attacker move keeps a forced mate within the line's length
    minimal: bool               # the line is as short as the forced mate


@dataclass
class DrawCheck:
    red_wins: Verdict           # mate, no mate or unknown within the bound
    red_length: int | None
    black_wins: Verdict
    black_length: int | None
    bound: int
    rules: str = "chinese"      # the repetition rules (棋例) the searches applied


@dataclass
class SoundnessReport:
    stipulation: Stipulation
    verdict: Verdict | DrawVerdict   # a draw stipulation's verdict is a DrawVerdict
    length: int | None
    bound: int
    main_line: list[Move] = field(default_factory=list)
    key: Move | None = None
    cooks: list[Alternative] = field(default_factory=list)
    duals: list[Dual] = field(default_factory=list)
    tries: list[Alternative] = field(default_factory=list)
    intended: LineCheck | None = None
    exact: bool = True          # False: a mate in ``length`` is proven, a shorter one not ruled out
    draw: DrawCheck | None = None
    unproven: list[str] = field(default_factory=list)
    analysis: DrawAnalysis | None = None     # a draw stipulation's full analysis
    # When no mate is proven: whether the other side mates whatever the side to move plays
    # (a win stipulation that is false as set).
    refutation: Refutation | None = None
    # False: a mate is proven but the budget ran out before its whole main line was found.
    line_complete: bool = True

    @property
    def sound(self) -> bool:
        return self.verdict == Verdict.MATE and not self.cooks and not self.unproven


def verify(board: Board, stipulation: str = Stipulation.WIN, moves: int | None = None,
           line: str | list[str] | None = None, tablebase=None,
           limits: Limits | None = None,
           progress: Callable[[int, int], bool | None] | None = None,
           refutation: bool = True, **draw_options) -> SoundnessReport:
    """Check a problem: ``stipulation`` "win" (mate, quiet moves allowed), "checks" (every
    attacker move checks) or "draw" (红先和: neither side can force a win).  ``moves`` is the
    stipulated number of attacker moves (default: the forced length).  ``progress`` is the
    searches' hook as in :func:`solver.search.solve`; returning True cancels, and the report
    is then incomplete.  ``draw_options`` go to :func:`solver.draw.analyse_draw` (``rules``,
    ``phase``, ``traps``, ``line``, ``trap_moves``, ``line_plies``).

    When no mate is proven (and the user did not cancel), ``refutation`` runs
    :func:`solver.refute.refute` within the same budget again (:data:`REFUTATION_CAP_SECONDS`
    when the budget is unlimited): a problem whose side to move is mated whatever it plays
    says so, with the longest resistance and the mate against it."""
    if stipulation not in STIPULATIONS:
        raise SolverError(f"unknown stipulation {stipulation!r}: use win, checks or draw")
    if stipulation == Stipulation.DRAW:
        return _verify_draw(board, moves or DEFAULT_DRAW_BOUND, tablebase, limits, progress,
                            **draw_options)
    if draw_options:
        raise SolverError(f"{', '.join(draw_options)}: options of the draw stipulation only")
    mode = mode_of(stipulation)
    solver = Solver(board, mode, limits, tablebase, progress)
    search_bound = moves or DEFAULT_MAX_MOVES[mode]
    full_budget = solver.reserve_for_line()
    status, length = solver.shortest(solver.board, search_bound)
    cancelled = bool(solver.search.stopped) and not solver.limit_reached()
    full_budget.apply(solver.search)
    report = SoundnessReport(Stipulation(stipulation), _VERDICTS.get(status, Verdict.UNKNOWN),
                             length, moves or (length or search_bound))
    if line is not None:
        report.intended = check_recorded_line(solver, board, line, length)
    if status != PROVEN or length is None:
        report.exact = solver.exact     # a proven "no mate within N" is; an unknown is not
        if status != DISPROVEN:
            report.unproven.append("the mate search hit a limit")
        if refutation and not (status == UNKNOWN and solver.stopped and
                               not solver.limit_reached()):
            report.refutation = refute(board, tablebases=tablebase,
                                       limits=_refutation_limits(limits), progress=progress)
        return report
    report.exact = solver.exact
    if not solver.exact:
        skipped = solver.minimality_skip
        report.unproven.append(f"whether a mate shorter than {length} exists" +
                               (f" ({skipped.text()})" if skipped is not None else ""))
    bound = report.bound
    report.main_line = solver.line_within_reserve(length, solver.exact, cancelled)
    if not solver.line_complete(report.main_line):
        # The budget ended after the proof and before its line: say what is known.
        report.line_complete = False
        report.unproven.append(f"the main line: not extracted within the budget "
                               f"({len(report.main_line)} of {2 * length - 1} plies)")
        if not report.main_line:
            return report
    first = report.main_line[0]
    report.key = first
    # Every first move: meets the stipulation within the bound (cook) or fails (maybe a try).
    for move in solver.attacker_moves(solver.board):
        if move == first:
            continue
        after = solver.board.copy()
        after.push_unchecked(move)
        status, n = solver.shortest(after, bound - 1)
        if status == PROVEN and n is not None:
            report.cooks.append(Alternative(move, n + 1))
        elif status == DISPROVEN:
            defence = _single_refutation(solver, after, bound - 1)
            if defence is not None:
                report.tries.append(Alternative(move, None, defence))
        else:
            report.unproven.append(f"first move {move.iccs()}")
    report.duals = _duals(solver, report.main_line, length)
    return report


def _refutation_limits(limits: Limits | None) -> Limits:
    """The refutation's budget: the mate search's again, with a cap when it has none."""
    limits = limits or Limits()
    if limits.seconds or limits.nodes:
        return limits
    return replace(limits, seconds=REFUTATION_CAP_SECONDS)


def _single_refutation(solver: Solver, after: Board, remaining: int) -> Move | None:
    """The only defence that escapes (all others lose within ``remaining``), if exactly one."""
    escapes = []
    for reply in solver.defences(after):
        after.push_unchecked(reply)
        status, _ = solver.value(after, remaining)
        after.pop()
        if status != PROVEN:
            escapes.append(reply)
            if len(escapes) > 1:
                return None
    return escapes[0] if escapes else None


def _duals(solver: Solver, main_line: list[Move], length: int) -> list[Dual]:
    duals = []
    board = solver.board.copy()
    remaining = length
    for ply, move in enumerate(main_line):
        if ply % 2 == 0:
            if ply > 0:
                for other in solver.attacker_moves(board):
                    if other == move:
                        continue
                    board.push_unchecked(other)
                    status, n = solver.shortest(board, remaining - 1)
                    board.pop()
                    if status == PROVEN and n is not None:
                        duals.append(Dual(ply, other, n + 1))
            remaining -= 1
        board.push_unchecked(move)
        if ply % 2 == 1:
            status, n = solver.shortest(board, remaining)
            remaining = n if status == PROVEN and n is not None else remaining
    return duals


def check_recorded_line(solver: Solver, board: Board, line: str | list[str],
               forced_length: int | None) -> LineCheck:
    """Is the recorded line legal, forced and minimal?"""
    try:
        moves = parse_line(board, line)
    except NotationError as error:
        return LineCheck(False, str(error), 0, False, False, False)
    attacker_moves = (len(moves) + 1) // 2
    replay = board.copy()
    forced = True
    problem = None
    for ply, move in enumerate(moves):
        if ply % 2 == 0 and solver.mode == Mode.CHECKS and not replay.gives_check(move):
            problem = problem or f"move {ply // 2 + 1} ({move.iccs()}) is not a check"
            forced = False
        replay.push(move)
        if ply % 2 == 0:
            left = attacker_moves - ply // 2 - 1
            status, _ = solver.value(replay, left)
            if status != PROVEN:
                forced = False
                problem = problem or _refutation_words(solver, replay, ply + 1, left, move)
    ends_in_mate = not replay.has_legal_move() and replay.turn != board.turn
    if not ends_in_mate:
        problem = problem or "the line does not end in mate"
    minimal = forced_length is not None and attacker_moves == forced_length
    if ends_in_mate and forced_length is not None and attacker_moves > forced_length:
        problem = problem or (f"the recorded line takes {attacker_moves} moves; a forced mate "
                              f"in {forced_length} exists")
    return LineCheck(True, problem, attacker_moves, ends_in_mate, forced and ends_in_mate,
                     minimal)


def _refutation_words(solver: Solver, after: Board, ply: int, left: int, move: Move) -> str:
    """Why the line is not forced after the attacker's ``move``: the first defence (in ICCS
    order) after which no mate follows within the ``left`` moves the line has left, named
    with its ply (1 = the key), or, if no defence is shown to escape within the budget, that
    no forced mate was proven."""
    kind = "continuous-check mate" if solver.mode == Mode.CHECKS else "mate"
    for reply in solver.defences(after):
        after.push_unchecked(reply)
        status, _ = solver.value(after, left)
        after.pop()
        if status == DISPROVEN:
            name = write_line(after, [reply], "chinese")[0]
            return (f"at ply {ply + 1} {COLOR_NAMES[after.turn]}'s {name} escapes: no {kind} "
                    f"follows within the {_moves(left)} the line has left")
        if status != PROVEN:
            break
    return (f"after move {ply // 2 + 1} ({move.iccs()}) no forced {kind} in the {_moves(left)} "
            f"the line has left was proven")


def _moves(count: int) -> str:
    return f"{count} move" if count == 1 else f"{count} moves"


def _verify_draw(board: Board, bound: int, tablebase, limits: Limits | None, progress,
                 **options) -> SoundnessReport:
    """The draw stipulation: :func:`solver.draw.analyse_draw` (tables first, then the bounded
    proofs for each side, the traps and the drawing line), as a soundness report.  A draw
    that rests on a forbidden perpetual attack is no draw: every repetition is judged by the
    full 棋例 (the Chinese rules unless ``rules`` or the limits name others)."""
    from .draw import analyse_draw

    rules = options.pop("rules", None) or (limits.repetition_rules if limits else None) \
        or "chinese"
    analysis = analyse_draw(board, bound, tablebase, limits, rules, progress, **options)
    red, black = analysis.red, analysis.black
    if red is None or black is None:        # settled by the table: exact, for any length
        winner = {DrawVerdict.RED_WINS: 0, DrawVerdict.BLACK_WINS: 1}.get(analysis.verdict)
        length = (len(analysis.table_line) + 1) // 2 if winner is not None else None
        red_verdict = Verdict.MATE if winner == board.turn else Verdict.NO_MATE
        black_verdict = Verdict.MATE if winner == board.turn ^ 1 else Verdict.NO_MATE
        check = DrawCheck(red_verdict, length if winner == board.turn else None,
                          black_verdict, length if winner == board.turn ^ 1 else None,
                          bound, rules)
    else:
        check = DrawCheck(red.verdict, red.length, black.verdict, black.length, bound, rules)
    main_line = analysis.table_line or next(
        (proof.line for proof in (red, black) if proof and proof.verdict == Verdict.MATE), [])
    report = SoundnessReport(Stipulation.DRAW, analysis.verdict, None, bound,
                             main_line=list(main_line), draw=check,
                             unproven=list(analysis.unproven))
    report.analysis = analysis
    return report
