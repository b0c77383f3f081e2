"""Practice: the user plays the attacker of a forced mate, the program defends.

The position starts with the attacker to move and a forced mate (continuous checks in mode
"checks", 连照杀; any moves in mode "any").  Each attacker move is judged against the exact
shortest mate the solver proves (with the tablebase answering the positions it covers):
it mates, keeps the forced mate -- the fastest or a slower one, with its length -- or loses
it, and then the fastest move is named.  The program answers with the defence that holds out
longest.  For a move that loses the mate, :meth:`Practice.refutation` finds the defence that
shows why: a reply after which the attacker no longer mates within the moves left (the
trainer shows it instead of the right move, which :meth:`Practice.hint` gives on request).

Ties, here as in :meth:`solver.Solver.main_line`: among equally fast mates and among equally
long defences, the first move in ICCS order (``a0a1`` < ``a0b0`` < ... < ``i9i8``) is taken,
so the same position always gets the same hint and the same defence.

The practice ends when the attacker mates (or stalemates: 困毙 loses too) or plays a move
that loses the forced mate; :meth:`Practice.take_back` undoes the last attacker move (and the
defence after it) to try again.

>>> from xiangqi import Board, Move
>>> practice = Practice(Board("3ak4/4a4/9/9/9/9/9/9/9/3K4R w"), mode="any")
>>> practice.length, practice.hint().iccs()
(3, 'd0e0')
>>> verdict = practice.play(Move.from_iccs("d0e0"))
>>> verdict.keeps_mate, verdict.fastest, verdict.moves, verdict.plies
(True, True, 3, 5)
>>> practice.defend().iccs(), practice.remaining
('e9f9', 2)
>>> slow = practice.evaluate(Move.from_iccs("i0i8"))
>>> slow.keeps_mate, slow.moves, slow.fastest, slow.fastest_move.iccs()
(True, 5, False, 'i0f0')
>>> [m.iccs() for m in practice.solution()]
['i0f0', 'e8f7', 'f0f7']
>>> practice.evaluate(Move.from_iccs("e0d0")).keeps_mate
False
>>> practice.refutation(Move.from_iccs("e0d0")).iccs()      # the start position again
'f9e9'
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from xiangqi import Board, Move

from ._dfpn import DISPROVEN, PROVEN, UNKNOWN
from .search import DEFAULT_MAX_MOVES, MODES, Limits, Solver, SolverError
from .types import Mode, Verdict

ATTACKER, DEFENDER = "attacker", "defender"
SLOW_MATE_SLACK = 4           # mode "any": moves beyond the shortest mate still judged
REFUTATION_SECONDS = 3.0      # the whole search for a wrong try's refuting defence


class PracticeError(SolverError):
    """A position that cannot be practised (no forced mate found) or a request out of turn."""


@dataclass(frozen=True)
class MoveEvaluation:
    """The verdict on an attacker move, against the position before it.

    ``keeps_mate``: True if a forced mate remains (or the move mates), False if the move
    loses it (none within the practice's bound of moves, or in mode "checks" the move is
    not a check), None if a search limit stopped the search before it knew.  ``moves`` is
    the length of the fastest forced mate that starts with this move, in attacker moves
    (1: the move mates; None unless ``keeps_mate``).  ``fastest_moves`` and
    ``fastest_move`` are the shortest mate of the position and the move that gives it (the
    hint); ``fastest`` says whether this move is as fast.  ``reason`` says it in words.
    """
    move: Move
    keeps_mate: bool | None
    moves: int | None
    fastest: bool
    fastest_moves: int
    fastest_move: Move
    mates: bool
    reason: str

    @property
    def plies(self) -> int | None:
        """The forced mate after this move, in plies counted from this move."""
        return None if self.moves is None else 2 * self.moves - 1

    @property
    def fastest_plies(self) -> int:
        return 2 * self.fastest_moves - 1


@dataclass(frozen=True)
class PracticeOutcome:
    """How a finished practice ended: ``result`` "mate" (``termination`` "checkmate" or
    "stalemate") or "mate lost"; ``attacker_moves`` played; ``par`` the shortest forced mate
    of the start position; ``optimal`` True if every attacker move was a fastest one."""
    result: str
    termination: str | None
    attacker_moves: int
    par: int
    optimal: bool


@dataclass
class Turn:
    """One attacker move, its evaluation, and the defence played after it (if any)."""
    move: Move
    evaluation: MoveEvaluation
    remaining_before: int
    defence: Move | None = None


class Practice:
    """A practice session on ``board`` (the attacker to move, with a forced mate).

    ``mode`` "checks" or "any"; ``tablebase`` (:func:`tablebases.open_tablebase`) answers
    the positions its tables cover; ``limits`` bound every single search (its seconds and
    nodes apply to each question, not to the whole session; ``table_bits`` sizes the
    transposition table kept for the session).  ``max_moves`` bounds the mates looked for:
    a move after which no mate is forced within it "loses the forced mate".  By default the
    start position is solved within 200 moves in mode "checks" and 20 in mode "any"; in mode
    "any" moves are then judged within the problem's length plus 4 (at most 20), since a
    slower quiet mate takes seconds to prove where a fast one takes milliseconds.
    ``progress(nodes, table_used)`` is called now and then during a search, as in
    :func:`solver.search.solve`; returning True stops that search, whose answer is then
    "unknown" (the next question searches afresh).  Raises :class:`PracticeError` if no
    forced mate is found.

    ``length`` is the shortest forced mate of the start position, ``remaining`` the attacker
    moves still needed against the best defence, ``board`` the current position (read it,
    do not change it), ``turns`` the attacker moves played so far (:class:`Turn`).
    """

    def __init__(self, board: Board, mode: str = Mode.CHECKS, tablebase=None,
                 limits: Limits | None = None, max_moves: int | None = None,
                 progress: Callable[[int, int], bool | None] | None = None) -> None:
        if mode not in MODES:
            raise PracticeError(f"unknown mode {mode!r}: use one of {', '.join(MODES)}")
        if not board.has_legal_move():
            raise PracticeError("the side to move has no legal move: the game is already over")
        self.board = board.copy()
        self.mode = mode
        self.attacker = board.turn
        self.limits = limits or Limits()
        bound = DEFAULT_MAX_MOVES[mode] if max_moves is None else max_moves
        self.turns: list[Turn] = []
        self.solver = Solver(self.board, mode, self.limits, tablebase, progress)
        self._budget()
        status, length = self.solver.shortest(self.board, bound)
        if status == DISPROVEN:
            kind = "continuous-check " if mode == Mode.CHECKS else ""
            raise PracticeError(f"no forced {kind}mate within {bound} moves")
        if status != PROVEN:
            raise PracticeError("the search hit a limit before it proved a forced mate")
        assert length is not None       # PROVEN comes with its length
        self.length: int = length
        self.remaining: int = length
        if max_moves is None and mode == Mode.ANY:
            # Proving a slow quiet mate costs far more than a fast one (seconds, not
            # milliseconds, a few moves longer): judge moves against a near bound.
            bound = min(bound, length + SLOW_MATE_SLACK)
        self.max_moves: int = bound

    # -- state ------------------------------------------------------------------------------

    @property
    def to_move(self) -> str:
        """"attacker" or "defender"."""
        return ATTACKER if self.board.turn == self.attacker else DEFENDER

    def is_finished(self) -> bool:
        return self.outcome is not None

    @property
    def outcome(self) -> PracticeOutcome | None:
        """None while the practice goes on."""
        if not self.turns:
            return None
        last = self.turns[-1].evaluation
        optimal = all(turn.evaluation.fastest for turn in self.turns)
        if last.mates:
            ending = self.board.outcome()
            assert ending is not None   # the last move mated
            return PracticeOutcome(Verdict.MATE, ending.termination.name.lower(), len(self.turns),
                                   self.length, optimal)
        if last.keeps_mate is False:
            return PracticeOutcome("mate lost", None, len(self.turns), self.length, False)
        return None

    # -- the attacker -----------------------------------------------------------------------

    def evaluate(self, move: Move) -> MoveEvaluation:
        """Judge ``move`` for the attacker to move, without playing it."""
        self._require(ATTACKER)
        if not self.board.is_legal(move):
            raise PracticeError(f"{move.iccs()} is not a legal move here")
        best = self.hint()
        fastest: dict[str, Any] = dict(fastest_moves=self.remaining, fastest_move=best)
        if self.mode == Mode.CHECKS and not self.board.gives_check(move):
            return MoveEvaluation(move, False, None, False, mates=False,
                                  reason=f"{move.iccs()} is not a check: every move must check; "
                                         f"{self._fastest_words(best)}", **fastest)
        self.board.push(move)
        try:
            if not self.board.has_legal_move():
                return MoveEvaluation(move, True, 1, True, mates=True,
                                      reason=f"{move.iccs()} mates", **fastest)
            self._budget()
            status, after = self.solver.shortest(self.board, self.max_moves - 1)
        finally:
            self.board.pop()
        if status == PROVEN:
            assert after is not None    # PROVEN comes with its length
            moves = after + 1
            quick = moves == self.remaining
            words = (f"{move.iccs()} keeps the forced mate in {moves} ({2 * moves - 1} plies)"
                     + ("" if quick else f", slower than {self._fastest_words(best)}"))
            return MoveEvaluation(move, True, moves, quick, mates=False, reason=words, **fastest)
        if status == DISPROVEN:
            return MoveEvaluation(move, False, None, False, mates=False,
                                  reason=f"{move.iccs()} loses the forced mate (none within "
                                         f"{self.max_moves - 1} more moves); "
                                         f"{self._fastest_words(best)}", **fastest)
        return MoveEvaluation(move, None, None, False, mates=False,
                              reason=f"unknown: the search hit a limit judging {move.iccs()}",
                              **fastest)

    def play(self, move: Move) -> MoveEvaluation:
        """Evaluate ``move``, then play it (unless it is unknown whether it keeps the mate)."""
        evaluation = self.evaluate(move)
        if evaluation.keeps_mate is None:
            raise PracticeError(evaluation.reason)
        self.turns.append(Turn(move, evaluation, self.remaining))
        self.board.push(move)
        if evaluation.keeps_mate:
            assert evaluation.moves is not None     # a move that keeps the mate has its length
            self.remaining = evaluation.moves - 1
        return evaluation

    def hint(self) -> Move:
        """A fastest mating move: the first in ICCS order of those that mate soonest."""
        self._require(ATTACKER)
        move = self._first_move(self.board, self.solver.attacker_moves(self.board),
                                self.remaining - 1, PROVEN)
        if move is None:
            raise PracticeError("the search hit a limit before it found the fastest move")
        return move

    # -- the defender -----------------------------------------------------------------------

    def refutation(self, move: Move, seconds: float = REFUTATION_SECONDS) -> Move | None:
        """The defence that refutes ``move``, a try of the attacker to move that loses the
        forced mate: the first reply in ICCS order after which the attacker has no forced
        mate within the moves left (:attr:`max_moves` less the try), proven by the complete
        search -- or, as the solver counts it, a reply that (not giving check) repeats a
        position of the line since the last capture.  None if no such reply is proven
        within ``seconds`` in all (each reply's search also within the session's limits), or
        if ``move`` mates.  Nothing is played.
        """
        self._require(ATTACKER)
        if not self.board.is_legal(move):
            raise PracticeError(f"{move.iccs()} is not a legal move here")
        deadline = time.time() + seconds
        board = self.board
        board.push(move)
        try:
            for reply in self.solver.defences(board):
                left = deadline - time.time()
                if left <= 0:
                    return None
                board.push(reply)
                try:
                    if board.repetition_count() and not board.is_check():
                        return reply
                    self._budget(left)
                    status, _ = self.solver.value(board, self.max_moves - 1)
                finally:
                    board.pop()
                if status == DISPROVEN:
                    return reply
            return None
        finally:
            board.pop()

    def defend(self) -> Move:
        """Play the defender's longest resistance (ties: the first in ICCS order) and return
        it; the attacker is to move again and needs :attr:`remaining` moves."""
        self._require(DEFENDER)
        move = self._first_move(self.board, self.solver.defences(self.board),
                                self.remaining - 1, DISPROVEN)
        if move is None:
            raise PracticeError("the search hit a limit before it found the longest defence")
        self.board.push(move)
        self.turns[-1].defence = move
        return move

    # -- both -------------------------------------------------------------------------------

    def solution(self) -> list[Move]:
        """The main line from the current position: the attacker mates fastest, the defender
        resists longest (ties: first in ICCS order)."""
        if self.is_finished():
            return []
        board = self.board.copy()
        line: list[Move] = []
        remaining = self.remaining
        while remaining > 0 and board.has_legal_move():
            attacking = board.turn == self.attacker
            if attacking:
                move = self._first_move(board, self.solver.attacker_moves(board), remaining - 1,
                                        PROVEN)
            else:
                move = self._first_move(board, self.solver.defences(board), remaining - 1,
                                        DISPROVEN)
            if move is None:
                raise PracticeError("the search hit a limit before the main line was complete")
            line.append(move)
            board.push(move)
            if attacking:
                remaining -= 1
        return line

    def take_back(self) -> Move:
        """Undo the last attacker move (and the defence played after it, if there was one:
        after the mate there is none); return it."""
        if not self.turns:
            raise PracticeError("no attacker move to take back")
        turn = self.turns.pop()
        if turn.defence is not None:
            self.board.pop()
        self.board.pop()
        self.remaining = turn.remaining_before
        return turn.move

    # -- helpers ----------------------------------------------------------------------------

    def _require(self, side: str) -> None:
        outcome = self.outcome
        if outcome is not None:
            raise PracticeError(f"the practice is over ({outcome.result}); take_back() to "
                                "try again")
        if self.to_move != side:
            other = "defend()" if side == ATTACKER else "play(move)"
            raise PracticeError(f"the {self.to_move} is to move: call {other}")

    def _budget(self, at_most: float | None = None) -> None:
        """Give the next search the limits' seconds and nodes afresh (at most ``at_most``
        seconds, if given)."""
        search = self.solver.search
        search.stopped = 0
        seconds = self.limits.seconds
        if at_most is not None:
            seconds = min(seconds, at_most) if seconds else at_most
        search.deadline = time.time() + seconds if seconds else 0
        search.node_limit = search.nodes + self.limits.nodes if self.limits.nodes else 0

    def _first_move(self, board: Board, moves: list[Move], remaining: int,
                    wanted: str) -> Move | None:
        """The first of ``moves`` on ``board`` after which the attacker's mate within
        ``remaining`` moves is ``wanted`` (PROVEN: a fastest attacking move; DISPROVEN: a
        longest defence)."""
        for move in moves:
            board.push(move)
            try:
                self._budget()
                status, _ = self.solver.value(board, remaining)
            finally:
                board.pop()
            if status == wanted:
                return move
            if status == UNKNOWN:
                return None
        return None

    def _fastest_words(self, best: Move) -> str:
        plies = 2 * self.remaining - 1
        return f"the fastest is {best.iccs()}, mate in {self.remaining} ({plies} " \
               f"{'ply' if plies == 1 else 'plies'})"


__all__ = ["Practice", "PracticeError", "MoveEvaluation", "PracticeOutcome", "Turn"]
