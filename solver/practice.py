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

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from xiangqi import Board, Move

from ._dfpn import DISPROVEN, PROVEN, UNKNOWN
from .budget import Budget
from .search import DEFAULT_MAX_MOVES, MODES, Limits, Solver, SolverError
from .types import Mode, Verdict

ATTACKER, DEFENDER = "attacker", "defender"
SLOW_MATE_SLACK = 4           # mode "any": moves beyond the shortest mate still judged
TRY_REFUTATION_SECONDS = 3.0      # the whole search for a wrong try's refuting defence


def _require_turn(outcome, to_move: str, side: str, other_call: str) -> None:
    """Refuse a request of ``side`` once the practice is over or while ``to_move`` (the other
    side) is to move, naming ``other_call``, the call that side makes."""
    if outcome is not None:
        raise PracticeError(f"the practice is over ({outcome.result}); take_back() to try "
                            "again")
    if to_move != side:
        raise PracticeError(f"the {to_move} is to move: call {other_call}")


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

    def refutation(self, move: Move, seconds: float = TRY_REFUTATION_SECONDS) -> Move | None:
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
        budget = Budget.fresh(0, seconds)
        board = self.board
        board.push(move)
        try:
            for reply in self.solver.defences(board):
                left = budget.seconds_left()
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
        _require_turn(self.outcome, self.to_move, side, "defend()" if side == ATTACKER
                      else "play(move)")

    def _budget(self, at_most: float | None = None) -> None:
        """Give the next search the limits' seconds and nodes afresh (at most ``at_most``
        seconds, if given)."""
        search = self.solver.search
        search.stopped = 0
        seconds = self.limits.seconds
        if at_most is not None:
            seconds = min(seconds, at_most) if seconds else at_most
        Budget.fresh(search.nodes, seconds, self.limits.nodes).apply(search)

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




# -- draw studies (红先和) -------------------------------------------------------------------

DRAW_PRACTICE_BOUND = 6
"""Black's forced wins looked for after a Red move that no table covers, in Black moves: a
move after which none is found within it is taken as holding (a bound, not a proof)."""
HOLDER, RESISTER = "holder", "resister"


@dataclass(frozen=True)
class DrawMoveEvaluation:
    """The verdict on a move of the side holding the draw, against the position before it.

    ``keeps_draw``: True if the move holds (a table shows at least a draw, or no forced win
    of the opponent within the practice's bound was found, or the move repeats into a draw),
    False if it loses (a table or a search shows the opponent's forced win, the move was a
    known trap, or it completes a repetition the 棋例 forbid to the mover), None if the search
    hit its limit.  ``source`` says what judged it ("table KRKP", "search within 6", "trap of
    the analysis", "棋例 26.1", ...).  For a losing move ``refutation`` is the opponent's
    answer, ``line`` its win from that answer on and ``length`` its moves to mate (when
    known).  ``ending`` is set when the move ends the practice: "repetition", "natural
    limit", "table" (a capture into a table draw) or "mate" (the holder mated: a win)."""
    move: Move
    keeps_draw: bool | None
    source: str
    reason: str
    refutation: Move | None = None
    line: tuple[Move, ...] = ()
    length: int | None = None
    ending: str | None = None


@dataclass(frozen=True)
class DrawOutcome:
    """How a finished draw practice ended: ``result`` "draw" (``termination`` "repetition",
    "natural limit" or "table"), "win" (the holder mated or stalemated the opponent) or
    "draw lost" (the last move lost); ``detail`` in words; ``moves`` the holder's moves."""
    result: str
    termination: str
    detail: str
    moves: int


@dataclass
class DrawTurn:
    """One move of the holder, its evaluation, and the opponent's resistance after it."""
    move: Move
    evaluation: DrawMoveEvaluation
    defence: Move | None = None
    defence_source: str = ""
    ending: tuple[str, str] | None = None   # (termination, detail) once the practice ended


class DrawPractice:
    """A draw study practised: the side to move on ``board`` (Red in a 红先和 study) must keep
    the draw; the program plays the other side's strongest resistance.

    Each holder move is judged before it stands (:meth:`evaluate`): by the table where one
    covers the position after it, by the ``traps`` the analysis found (first moves with
    Black's refutation), as the next move of the analysis' drawing ``line``, or by a bounded
    search: the opponent has no forced win within ``bound`` moves after it.  The resistance
    (:meth:`resist`) is the table's move that keeps the opponent's draw and leaves the holder
    the fewest holding replies, else the drawing line's next move while the game follows it,
    else the first move (repetitions judged a draw, checks, captures, the rest) after which
    the holder has no forced win within ``bound``.  ``rules`` ("chinese", "asian") judges
    every repetition: the practice ends in a draw by a repetition the rules call a draw, by the
    natural limit, or by a capture into a material whose table shows a draw; a holder move
    that completes a repetition the rules forbid to the holder loses.  ``limits.seconds`` and
    ``nodes`` bound each question's search.

    >>> import tempfile
    >>> from tablebases import open_tablebase
    >>> from tablebases.build import build
    >>> directory = tempfile.mkdtemp()
    >>> _ = build("KNKB", directory, log=lambda line: None)
    >>> tablebase = open_tablebase(directory)
    >>> practice = DrawPractice(Board("4k4/9/9/9/9/9/9/B4n3/9/3K5 w"), tablebase=tablebase)
    >>> losing = practice.evaluate(Move.from_iccs("a2c4"))
    >>> losing.keeps_draw, losing.source, losing.refutation.iccs(), losing.length
    (False, 'table KNKB', 'f2d3', 5)
    >>> practice.play(Move.from_iccs("a2c0")).keeps_draw
    True
    >>> practice.resist().iccs(), practice.defence_source
    ('e9e8', 'table KNKB')
    >>> tablebase.close()
    """

    def __init__(self, board: Board, tablebase=None, limits: Limits | None = None,
                 rules: str = "chinese", bound: int = DRAW_PRACTICE_BOUND,
                 line: list[Move] | None = None, traps: list | None = None,
                 progress: Callable[[int, int], bool | None] | None = None) -> None:
        from xiangqi.rules import ruleset

        from .draw import Prover, holds, material_name, table_value

        ruleset(rules)                      # an unknown rule set is refused here
        if bound < 1:
            raise PracticeError(f"the bound must be at least 1 move, not {bound}")
        if not board.has_legal_move():
            raise PracticeError("the side to move has no legal move: the game is already over")
        self.start = board.copy()
        self.board = board.copy()
        self.holder = board.turn
        self.tablebase, self.rules, self.bound = tablebase, rules, bound
        self.limits = replace(limits or Limits(), repetition_rules=rules)
        self.line = list(line or [])
        self.traps = {trap.move: trap for trap in traps or []}
        self.turns: list[DrawTurn] = []
        self.defence_source = ""
        self.prover = Prover(board, self.limits, tablebase, progress)
        value = table_value(tablebase, board)
        if value is not None and not holds(value.wdl):
            raise PracticeError("the table shows the side to move loses: the study is unsound")
        self._start_material = material_name(board)

    # -- state ------------------------------------------------------------------------------

    @property
    def to_move(self) -> str:
        """"holder" (the user) or "resister" (the program)."""
        return HOLDER if self.board.turn == self.holder else RESISTER

    @property
    def played(self) -> list[Move]:
        return [m for turn in self.turns for m in (turn.move, turn.defence) if m is not None]

    @property
    def outcome(self) -> DrawOutcome | None:
        """None while the practice goes on."""
        if not self.turns:
            return None
        last = self.turns[-1]
        if last.evaluation.keeps_draw is False:
            return DrawOutcome("draw lost", "loss", last.evaluation.reason, len(self.turns))
        if last.ending is None:
            return None
        termination, detail = last.ending
        result = "win" if termination == "mate" else "draw"
        return DrawOutcome(result, termination, detail, len(self.turns))

    def is_finished(self) -> bool:
        return self.outcome is not None

    # -- the holder -------------------------------------------------------------------------

    def evaluate(self, move: Move) -> DrawMoveEvaluation:
        """Judge ``move`` of the holder, without playing it."""
        self._require(HOLDER)
        if not self.board.is_legal(move):
            raise PracticeError(f"{move.iccs()} is not a legal move here")
        after = self.board.copy()
        after.push(move)
        return self._judge(move, after)

    def play(self, move: Move) -> DrawMoveEvaluation:
        """Evaluate ``move``, then play it (unless it is unknown whether it holds).  A losing
        move stands too (the practice is then over: :meth:`take_back` to try again)."""
        evaluation = self.evaluate(move)
        if evaluation.keeps_draw is None:
            raise PracticeError(evaluation.reason)
        turn = DrawTurn(move, evaluation)
        self.turns.append(turn)
        self.board.push(move)
        if evaluation.ending is not None:
            turn.ending = self._ending(self.board) or (evaluation.ending, evaluation.reason)
        return evaluation

    def hint(self) -> Move:
        """A holding move: the table's, the drawing line's, or the first a bounded search
        shows to hold."""
        self._require(HOLDER)
        move, _ = self._choose(holding=True)
        return move

    # -- the resister -----------------------------------------------------------------------

    def resist(self) -> Move:
        """Play the opponent's strongest resistance and return it (:attr:`defence_source`
        says what chose it)."""
        self._require(RESISTER)
        move, source = self._choose(holding=False)
        self.board.push(move)
        turn = self.turns[-1]
        turn.defence, turn.defence_source = move, source
        self.defence_source = source
        turn.ending = self._ending(self.board)
        return move

    def take_back(self) -> Move:
        """Undo the last holder move (and the reply to it, if any); return it."""
        if not self.turns:
            raise PracticeError("no move to take back")
        turn = self.turns.pop()
        if turn.defence is not None:
            self.board.pop()
        self.board.pop()
        return turn.move

    # -- judging ----------------------------------------------------------------------------

    def _judge(self, move: Move, after: Board) -> DrawMoveEvaluation:
        from xiangqi.pieces import COLOR_NAMES

        from .draw import holds, material_name, table_value

        name = move.iccs()
        opponent = COLOR_NAMES[self.holder ^ 1]
        if not after.has_legal_move():
            return DrawMoveEvaluation(move, True, "rules", f"{name} leaves {opponent} no move: "
                                      "a win, more than the draw", ending="mate")
        forbidden = self._forbidden_repetition(after)
        if forbidden is not None:
            return DrawMoveEvaluation(move, False, "棋例", f"{name} repeats the position in a way "
                                      f"the {self.rules} rules forbid: {forbidden}")
        ending = self._ending(after)
        value = table_value(self.tablebase, after)
        if value is not None:
            source = f"table {material_name(after)}"
            if holds(-value.wdl):
                return DrawMoveEvaluation(move, True, source, self._holding_words(name, source,
                                          ending), ending=ending[0] if ending else None)
            line = tuple(self.tablebase.best_line(after))
            return DrawMoveEvaluation(move, False, source, f"{name} loses: {opponent} mates "
                                      f"in {((value.dtm or 0) + 1) // 2} ({source})",
                                      line[0] if line else None, line, ((value.dtm or 0) + 1) // 2)
        if ending is not None:
            return DrawMoveEvaluation(move, True, ending[0], f"{name}: {ending[1]}",
                                      ending=ending[0])
        trap = self.traps.get(move) if not self.turns else None
        if trap is not None:
            return DrawMoveEvaluation(move, False, "trap of the analysis",
                                      f"{name} is a trap (陷阱): {opponent} mates in {trap.length}",
                                      trap.refutation, tuple(trap.line), trap.length)
        played = self.played
        if self.line[:len(played) + 1] == played + [move]:
            return DrawMoveEvaluation(move, True, "the analysis' drawing line",
                                      f"{name} follows the drawing line of the analysis")
        return self._search(move, after)

    def _search(self, move: Move, after: Board) -> DrawMoveEvaluation:
        from xiangqi.pieces import COLOR_NAMES

        opponent = COLOR_NAMES[self.holder ^ 1]
        status, length, moves, _ = self.prover.wins(self.holder ^ 1, after, self.bound,
                                                    self.limits.seconds, self.limits.nodes,
                                                    line=True)
        source = f"search within {self.bound}"
        if status == DISPROVEN:
            return DrawMoveEvaluation(move, True, source, f"{move.iccs()} holds: {opponent} "
                                      f"has no forced win within {self.bound} moves (bounded "
                                      "search)")
        if status == PROVEN:
            return DrawMoveEvaluation(move, False, source, f"{move.iccs()} loses: {opponent} "
                                      f"forces mate in {length} (search)",
                                      moves[0] if moves else None, tuple(moves), length)
        return DrawMoveEvaluation(move, None, source, f"unknown: the search hit a limit judging "
                                  f"{move.iccs()}")

    def _holding_words(self, name: str, source: str, ending: tuple[str, str] | None) -> str:
        words = f"{name} holds ({source} shows at least a draw)"
        return f"{words}; {ending[1]}" if ending else words

    def _forbidden_repetition(self, board: Board) -> str | None:
        """The rule a repetition completed by the last move breaks, if its loser is the
        mover."""
        from xiangqi.rules import adjudicate

        verdict = adjudicate(board, self.rules)
        if verdict is None or verdict.loser is None or verdict.loser == board.turn:
            return None
        return verdict.clause

    def _ending(self, board: Board) -> tuple[str, str] | None:
        """(termination, words) if the position after the last move ends the practice in a
        draw: a repetition the rules call a draw, the natural limit, or a table draw reached
        by a capture."""
        from .draw import holds, material_name, rule_ending, table_value

        ending = rule_ending(board, self.rules)
        if ending is not None:
            return ending
        value = table_value(self.tablebase, board)
        material = material_name(board)
        if value is not None and material != self._start_material and holds(value.wdl) \
                and holds(-value.wdl):
            return "table", f"the table {material} shows a draw"
        return None

    def _choose(self, holding: bool) -> tuple[Move, str]:
        """The move of the side to move: the holder's holding move or the resister's
        strongest (see the class), with what chose it."""
        from .draw import search_choice, table_choice, table_value

        board = self.board
        if table_value(self.tablebase, board) is not None:
            step = table_choice(board, self.tablebase, self.rules, holding)
            if step is not None:
                return step.move, step.held.split(":")[0]
        played = self.played
        if self.line[:len(played)] == played and len(self.line) > len(played):
            move = self.line[len(played)]
            if board.is_legal(move):
                return move, "the analysis' drawing line"
        step = search_choice(board, self.tablebase, self.prover, self.rules, self.bound,
                             self.limits.seconds, self.limits.nodes)
        if step is not None:
            return step.move, f"search within {self.bound}"
        raise PracticeError("no move was shown to hold within the search's limits")

    def _require(self, side: str) -> None:
        _require_turn(self.outcome, self.to_move, side, "resist()" if side == HOLDER
                      else "play(move)")


__all__ = ["Practice", "PracticeError", "MoveEvaluation", "PracticeOutcome", "Turn",
           "DrawPractice", "DrawMoveEvaluation", "DrawOutcome", "DrawTurn",
           "DRAW_PRACTICE_BOUND"]
