"""``PracticeScreen``: the user plays the attacker of a forced mate, the studio defends.

The screen runs a :class:`solver.practice.Practice` session on a catalogue entry (mode
"checks" for a 连照杀 problem, "any" otherwise) or on a position (continuous checks first,
then any moves).  Each attacker move entered on the board is judged before it stands:

* a move that keeps the forced mate is played; the message gives the mate's length and says
  whether it is the fastest, and the studio answers at once with the longest defence;
* a move that loses the forced mate (in a 连照杀 problem: any move that is not a check) is
  answered with the defence that refutes it (:meth:`solver.practice.Practice.refutation`),
  played on the board for :data:`REFUTATION_SHOWN_SECONDS` and then taken back with the
  wrong try -- the right move is not given away; the wrong move's points stay marked and
  the user tries again (if no refutation is proven in time, the message says only that the
  try fails);
* a move the search cannot judge within its time limit is taken back too, and said so.

Hints come in steps: ``h`` marks the piece to move, ``h`` again the move itself.  Every
solver call runs in a thread worker with a "thinking…" note, and each question gets
:data:`SEARCH_SECONDS`, so a hard problem cannot hang the screen.  The score counts the moves
played (how many were fastest), the wrong tries, the hint steps and whether the solution was
shown; the end says how long the mate took against the fastest.  A repetition the Chinese
rules forbid is announced as in analyse mode.
"""
from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from functools import partial
from typing import Any

import sqlite_utils
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Header, Static
from textual.worker import Worker, WorkerState

from puzzles.catalogue import (
    CatalogueError,
    Entry,
    next_puzzle,
    open_catalogue,
    record_progress,
    student_ratings,
)
from puzzles.rating import StudentRating
from solver.practice import MoveEvaluation, Practice, PracticeError
from solver.search import Limits
from xiangqi import BLACK, Board, Move
from xiangqi.notation import write_line, write_move
from xiangqi.pieces import CHINESE_PIECES

from ..repetition import announce, judge, status_note
from ..settings import INTERACTIVE_PROGRESS_NODES, Settings
from ..widgets.board import BoardView
from ..widgets.footer import FittingFooter
from ..widgets.move_list import MoveList
from ..widgets.status_line import SIDE_NAMES, StatusLine
from .studio_screen import StudioScreen

SEARCH_SECONDS = 10.0
"""Time for each question to the solver (judge a move, defend, hint, solve the start)."""
TABLE_BITS = 20            # a 32 MB transposition table per session
THINKING_GROUP = "practice-thinking"
REFUTATION_SHOWN_SECONDS = 2.0
"""How long a wrong try and the defence refuting it stay on the board before both go."""
MODE_TITLES = {"checks": "连照杀 every move checks", "any": "any moves"}


def numbered_words(words: list[str], black_first: bool, first_number: int = 1) -> str:
    """Moves already written out, numbered in pairs from ``first_number``:
    ``1. 马四进三 将5进1 2. 炮一进二`` (``1. ... 将5进1`` when the line starts with Black)."""
    parts: list[str] = []
    number = first_number
    for ply, word in enumerate(words):
        red_move = (ply + black_first) % 2 == 0
        if red_move:
            parts.append(f"{number}.")
        elif ply == 0:
            parts.append(f"{number}. ...")
        parts.append(word)
        if not red_move:
            number += 1
    return " ".join(parts)


def numbered_line(board: Board, moves: list[Move]) -> str:
    """``moves`` played from ``board``, in Chinese notation, numbered in pairs from the
    board's move number (as the move list numbers them)."""
    return numbered_words(write_line(board, moves, "chinese"), board.turn == BLACK,
                          board.fullmove_number)


def mate_in(moves: int) -> str:
    """``mate in 2 (3 plies)``: attacker moves and the plies they take with the defence."""
    plies = 2 * moves - 1
    return f"mate in {moves} ({plies} {'ply' if plies == 1 else 'plies'})"


def plural(count: int, word: str, words: str | None = None) -> str:
    """``1 move``, ``2 moves``; ``words`` for an irregular plural."""
    return f"{count} {word if count == 1 else words or word + 's'}"


# The practice screens' actions that need a session: hidden from the footer without one.
SESSION_ACTIONS = ("hint", "show_solution", "take_back")


class PracticeBase(StudioScreen[None]):
    """What the practice screens share: the board beside the problem, the messages, the score
    and the moves; the thinking worker that runs every solver question off the UI thread;
    a move entered on the board shown at once and judged in the worker (``_judge``, which the
    screen defines, with ``session``, ``_can_play`` and ``_show``); a refutation shown on the
    board and taken off again."""

    AUTO_FOCUS = "#practice-board"

    thinking: reactive[bool] = reactive(False)
    """True while a solver call runs in the worker; the board takes no moves meanwhile."""

    # Each screen's own: judge a move in the worker (returning what to show), whether the
    # board takes a move now, and bringing the widgets up to the session's position.
    _judge: Callable[[Board, Move], Callable[[], None]]
    _can_play: Callable[[], bool]
    _show: Callable[[], None]
    _find_hint: Callable[[], Callable[[], None]]
    practice: object | None             # each screen's session, None until it opens

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Keys that need a session (a hint, the solution, taking back) are not offered while
        # there is none: before it opens, or on a position that cannot be practised.
        if action in SESSION_ACTIONS and self.practice is None:
            return False
        if action == "next_puzzle" and (self.db is None or self.entry is None):
            return False                # a position from analyse mode: no catalogue order
        return super().check_action(action, parameters)

    def __init__(self, entry_or_board: Entry | Board, settings: Settings) -> None:
        """``entry_or_board``: a catalogue entry, or a position from analyse mode;
        ``settings``: the studio's (the catalogue that keeps the progress, the tables)."""
        super().__init__()
        self.settings = settings
        if isinstance(entry_or_board, Entry):
            self.entry: Entry | None = entry_or_board
            self.start = Board(entry_or_board.fen)
            self.heading = entry_or_board.title + (
                f" · difficulty {entry_or_board.rating}"
                if entry_or_board.kind == "practice" and entry_or_board.rating else "")
        else:
            self.entry = None
            self.start = entry_or_board.copy(stack=False)
            self.heading = "The position from analyse mode"
        self.wrong_tries = 0
        self.hints = 0                        # hint steps shown
        self.refuting = False                 # a wrong try and its refutation are shown
        self._message = ("", "")              # the message shown, and its tone
        self._refused_over: tuple[str, str] | None = None   # what a refusal covers
        self._cancel = threading.Event()      # set when the screen goes: stops the search
        self.db: sqlite_utils.Database | None = None   # where an entry's progress goes
        self.rating_words = ""     # the rating change the entry's first result made

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="practice-body"):
            yield BoardView(self.start, flipped=self.start.turn == BLACK, id="practice-board")
            with Vertical(id="practice-side"):
                yield Static(self.heading, id="practice-problem", markup=False)
                yield StatusLine(id="practice-status")
                yield Static(id="practice-thinking")
                yield Static(id="practice-message", markup=False)
                yield Static(id="practice-score", markup=False)
                yield MoveList(id="practice-moves")
                yield from self._side_extras()
        yield FittingFooter()

    def _side_extras(self) -> list[Widget]:
        """Widgets below the moves (none by default)."""
        return []

    def on_unmount(self) -> None:
        # Textual calls every class's handler along the MRO: the subclasses' own
        # on_unmount runs too, and does not call this one.
        self._cancel.set()
        if self.db is not None:
            self.db.close()
            self.db = None

    # -- the user's progress -----------------------------------------------------------------

    def _open_progress(self) -> None:
        """Open the catalogue that keeps the entry's progress (a screen's on_mount calls it);
        without one (none built, or unreadable) progress is not kept."""
        try:
            self.db = open_catalogue(self.settings.catalogue, build_if_missing=False)
        except (CatalogueError, sqlite3.Error):
            self.db = None

    def _record(self, **counts: Any) -> None:
        """Add to the entry's progress in the catalogue (see
        :func:`puzzles.catalogue.record_progress`); a failure is shown, not raised."""
        if self.db is None or self.entry is None:
            return
        pattern = self.entry.pattern
        try:
            before = student_ratings(self.db).get(pattern or "", StudentRating())
            rated = record_progress(self.db, self.entry, **counts)
        except CatalogueError as error:
            self.notify(str(error), severity="warning")
            return
        if rated is not None:
            # The entry's first result rated the student on its pattern: say by how much.
            self.rating_words = (f"{self.entry.pattern_name} rating {round(rated.rating)} "
                                 f"({round(rated.rating - before.rating):+d})")

    # -- the thinking worker -----------------------------------------------------------------

    @work(thread=True, exclusive=True, group=THINKING_GROUP, exit_on_error=False)
    def _think(self, question: Callable[[], Callable[[], None]]) -> Callable[[], None]:
        """Run ``question`` (solver calls) off the UI thread; it returns what to show."""
        return question()

    def _ask(self, question: Callable[[], Callable[[], None]]) -> None:
        self.thinking = True
        self._think(question)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != THINKING_GROUP or event.state not in (
                WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            return
        self.thinking = False
        self._show()                # the session's position first, then what the answer says
        if event.state == WorkerState.SUCCESS:
            show = event.worker.result
            assert show is not None         # every question returns what to show
            show()
        elif event.state == WorkerState.ERROR:
            self._say(f"The solver failed: {event.worker.error}", "bad")

    def watch_thinking(self, thinking: bool) -> None:
        self.query_one("#practice-thinking", Static).update("thinking…" if thinking else "")
        if thinking:
            self.query_one("#practice-board", BoardView).interactive = False

    def _stop_requested(self, nodes: int, table_used: int) -> bool:
        """The solver's progress hook: stop once the screen has gone."""
        return self._cancel.is_set()

    # -- the user's moves --------------------------------------------------------------------

    @on(BoardView.Refused, "#practice-board")
    def explain_refusal(self, event: BoardView.Refused) -> None:
        """A point that selects nothing, or a target the piece cannot reach: say why, over
        the message it covers until the next pick or move."""
        covered = self._refused_over if self._refused_over is not None else self._message
        self._say(event.reason, "bad")
        self._refused_over = covered

    @on(BoardView.SelectionChanged, "#practice-board")
    def forget_refusal(self) -> None:
        """A piece picked or put down: the refusal goes, the message it covered is back."""
        if self._refused_over is not None:
            self._say(*self._refused_over)

    @on(BoardView.MoveEntered, "#practice-board")
    def judge_move(self, event: BoardView.MoveEntered) -> None:
        """Show the move at once, then judge it (and answer it) in the worker."""
        if not self._can_play():
            self.app.bell()
            return
        before = self._current_board().copy()
        shown = before.copy()
        shown.push(event.move)
        board_view = self.query_one("#practice-board", BoardView)
        board_view.clear_marks()
        board_view.set_board(shown, event.move)
        # What was said belongs to the position before the move (a hint, a refusal, the
        # last answer): under "thinking…" the message waits for the answer to this move.
        self._say("")
        self._ask(partial(self._judge, before, event.move))

    def _current_board(self) -> Board:
        """The session's position (the user is to move in it)."""
        practice = getattr(self, "practice", None)
        assert practice is not None, "no practice session yet"
        board: Board = practice.board
        return board

    def _show_position(self, board: Board, moves: list[Move]) -> None:
        """The board, the moves played from the start and the status line at ``board``."""
        board_view = self.query_one("#practice-board", BoardView)
        board_view.clear_marks()
        board_view.set_board(board, moves[-1] if moves else None)
        board_view.interactive = self._can_play()
        self.query_one("#practice-moves", MoveList).set_line(self.start, moves, len(moves))
        self.query_one("#practice-status", StatusLine).show_position(
            board, status_note(judge(board)))

    def _show_refutation(self, after: Board, refutation: Move, move: Move) -> None:
        """Show ``after`` (the wrong ``move`` and the ``refutation`` played) for
        :data:`REFUTATION_SHOWN_SECONDS`, the move's points marked, then the session's
        position again."""
        board_view = self.query_one("#practice-board", BoardView)
        self.refuting = True
        board_view.set_board(after, refutation)
        board_view.interactive = False
        board_view.mark_squares([move.from_square, move.to_square], "loss")
        self.set_timer(REFUTATION_SHOWN_SECONDS, partial(self._end_refutation, move))

    def action_hint(self) -> None:
        """Ask the screen's ``_find_hint`` in the worker (a bell while it cannot play)."""
        if self._can_play():
            self._ask(self._find_hint)
        else:
            self.app.bell()

    def _end_refutation(self, move: Move | None = None) -> None:
        """Take the wrong try and its refutation off the board (the try's points stay
        marked)."""
        if not self.refuting:
            return
        self.refuting = False
        self._show()
        if move is not None:
            self.query_one("#practice-board", BoardView).mark_squares(
                [move.from_square, move.to_square], "loss")

    def _not_judged(self, before: Board, move: Move, why: str) -> None:
        words = write_move(before, move, "chinese")
        self._say(f"? {words} could not be judged ({why}); it is taken back: try another "
                  "move.", "bad")

    def action_leave(self) -> None:
        self.app.pop_screen()

    def _say(self, message: str, tone: str = "") -> None:
        """Show ``message``; ``tone`` "good" or "bad" colours it."""
        self._message = (message, tone)
        self._refused_over = None
        widget = self.query_one("#practice-message", Static)
        widget.update(message)
        widget.set_class(tone == "good", "-good")
        widget.set_class(tone == "bad", "-bad")


class PracticeScreen(PracticeBase):
    """Play the attacker of a forced mate: each move judged, the defence played back."""

    SUB_TITLE = "Practice"

    BINDINGS = [
        # Over the board's vi key h (the arrows still move the cursor).
        Binding("h", "hint", "Hint", priority=True),
        Binding("s", "show_solution", "Solution"),
        Binding("u", "take_back", "Take back a pair"),
        Binding("r", "restart", "Restart"),
        Binding("n", "next_puzzle", "Next puzzle"),
        Binding("escape", "leave", "Leave the practice"),
    ]

    def __init__(self, entry_or_board: Entry | Board, settings: Settings,
                 mode: str | None = None) -> None:
        """``entry_or_board``: a catalogue entry or a position with the attacker to move.
        ``mode``: "checks" or "any"; by default an entry's stipulation decides, and a
        position is tried with continuous checks first, then with any moves."""
        super().__init__(entry_or_board, settings)
        if isinstance(entry_or_board, Entry):
            self.modes = [mode or ("checks" if entry_or_board.stipulation == "checks"
                                   else "any")]
        else:
            self.modes = [mode] if mode else ["checks", "any"]
        self.practice: Practice | None = None
        self.solution_seen = False            # "s" was pressed: the solution counts as seen
        self._hint: tuple[str, Move, int] | None = None   # FEN, the hint's move, its step
        self._solve_recorded = False          # this attempt's mate is in the progress table
        self._announced: int | None = None    # the ply whose repetition was announced

    def on_mount(self) -> None:
        self.query_one("#practice-moves", MoveList).border_title = "Moves"
        self._open_progress()       # without it "next puzzle" is not offered either
        self._show()
        self._open_session()

    def _side_extras(self) -> list[Widget]:
        return [Static(id="practice-solution", markup=False)]

    # -- starting ----------------------------------------------------------------------------

    @property
    def session(self) -> Practice:
        """The practice in progress (asked for only once it has started)."""
        assert self.practice is not None, "no practice session yet"
        return self.practice

    def _open_session(self) -> None:
        self.practice = None
        self.wrong_tries = self.hints = 0
        self.solution_seen = False
        self._hint = None
        self._solve_recorded = False
        if self.entry is not None and self.entry.stipulation == "draw":
            self._cannot_start([f"{self.entry.title} is a draw study (和局): there is no "
                                "forced mate to practise"])
            return
        self._say("Looking for the forced mate…")
        self._ask(self._solve_start)

    def _solve_start(self) -> Callable[[], None]:
        """In the worker: a practice session on the start position, or why there is none."""
        problems = []
        for mode in self.modes:
            try:
                practice = Practice(self.start, mode=mode, progress=self._stop_requested,
                                    limits=Limits(seconds=SEARCH_SECONDS, table_bits=TABLE_BITS,
                                                  progress_nodes=INTERACTIVE_PROGRESS_NODES))
            except PracticeError as error:
                problems.append(f"{MODE_TITLES[mode]}: {error}")
            else:
                return partial(self._session_opened, practice)
        return partial(self._cannot_start, problems)

    def _session_opened(self, practice: Practice) -> None:
        self.practice = practice
        self.refresh_bindings()
        self._record(attempt=True)
        side = SIDE_NAMES[practice.attacker]
        self.query_one("#practice-problem", Static).update(
            f"{self.heading}\n{side} to play: {mate_in(practice.length)}, "
            f"{MODE_TITLES[practice.mode]}")
        self._show()
        self._say(f"Your move: {mate_in(practice.length)}.")

    def _cannot_start(self, problems: list[str]) -> None:
        self._say(f"This position cannot be practised: {'; '.join(problems)}.", "bad")

    # -- the user's moves --------------------------------------------------------------------

    def _judge(self, before: Board, move: Move) -> Callable[[], None]:
        """In the worker: judge ``move``; play it and the longest defence if it keeps the
        mate, otherwise leave the position as it was."""
        practice = self.session
        try:
            evaluation = practice.evaluate(move)
        except PracticeError as error:
            return partial(self._not_judged, before, move, str(error))
        if evaluation.keeps_mate is None:
            return partial(self._not_judged, before, move, "the search hit its time limit")
        if not evaluation.keeps_mate:
            try:
                refutation = practice.refutation(move)
            except PracticeError:
                refutation = None
            return partial(self._rejected, before, evaluation, refutation)
        try:
            practice.play(move)
            defence = None if evaluation.mates else practice.defend()
        except PracticeError as error:
            if practice.board.turn != practice.attacker:     # played but not answered
                practice.take_back()
            return partial(self._not_judged, before, move, str(error))
        return partial(self._answered, before, evaluation, defence)

    def _answered(self, before: Board, evaluation: MoveEvaluation,
                  defence: Move | None) -> None:
        words = write_move(before, evaluation.move, "chinese")
        after_move = before.copy()
        after_move.push(evaluation.move)
        self._check_repetition(after_move)
        if defence is None:
            self._say(self._ending(words), "good")
            if not self._solve_recorded:
                self._solve_recorded = True
                self._record(solved=True, clean=not (self.wrong_tries or self.hints
                                                     or self.solution_seen))
                self._show_score()
            return
        assert evaluation.moves is not None     # it keeps the mate: its length is known
        verdict = f"✓ {words} keeps the forced mate: {mate_in(evaluation.moves)}"
        if evaluation.fastest:
            verdict += ", the fastest."
        else:
            fastest = write_move(before, evaluation.fastest_move, "chinese")
            verdict += (f", {plural(evaluation.moves - evaluation.fastest_moves, 'move')} "
                        f"slower than {fastest} ({mate_in(evaluation.fastest_moves)}).")
        reply = write_move(after_move, defence, "chinese")
        defender = SIDE_NAMES[after_move.turn]
        self._say(f"{verdict}\n{defender} replies {reply}, the longest resistance: now "
                  f"{mate_in(self.session.remaining)}.", "good" if evaluation.fastest else "")
        self._check_repetition(self.session.board)

    def _ending(self, words: str) -> str:
        outcome = self.session.outcome
        assert outcome is not None              # called when the last move mated
        cry = "将死!" if outcome.termination == "checkmate" else "困毙! (stalemate wins)"
        extra = outcome.attacker_moves - outcome.par
        if extra == 0:
            return f"{cry} {words} ends it: mate in {outcome.attacker_moves}, optimal."
        return (f"{cry} {words} ends it: mate in {outcome.attacker_moves}, "
                f"{plural(extra, 'move')} more than the fastest (mate in {outcome.par}).")

    def _rejected(self, before: Board, evaluation: MoveEvaluation,
                  refutation: Move | None) -> None:
        """A wrong try: say why, play the refuting defence on the board (not the right
        move), then take both back after :data:`REFUTATION_SHOWN_SECONDS`."""
        self.wrong_tries += 1
        self._record(tries=1)
        self._show_score()
        move = evaluation.move
        words = write_move(before, move, "chinese")
        checks = self.session.mode == "checks"
        fault = ("is not a check (every move must check)"
                 if checks and not before.gives_check(move) else "loses the forced mate")
        board_view = self.query_one("#practice-board", BoardView)
        if refutation is None:
            self._say(f"✗ {words} {fault}: it fails (no refuting defence was found within the "
                      "time allowed). Taken back: try again.", "bad")
            board_view.mark_squares([move.from_square, move.to_square], "loss")
            return
        after = before.copy()
        after.push(move)
        reply = write_move(after, refutation, "chinese")
        after.push(refutation)
        if after.repetition_count() and not after.is_check():
            why = "the position repeats, and the mate with it is gone"
        elif checks:
            why = "no mate by continuous checks follows"
        else:
            why = f"no forced mate follows within {plural(self.session.max_moves - 1, 'move')}"
        defender = SIDE_NAMES[before.turn ^ 1]
        self._say(f"✗ {words} {fault}: {defender} answers {reply}, and {why}. "
                  "Taken back: try again.", "bad")
        self._show_refutation(after, refutation, move)

    # -- actions -----------------------------------------------------------------------------

    def _find_hint(self) -> Callable[[], None]:
        board = self.session.board.copy()
        if self._hint is not None and self._hint[0] == board.fen():
            return partial(self._show_hint, board, self._hint[1])   # known: the next step
        try:
            move = self.session.hint()
        except PracticeError as error:
            return partial(self._say, f"No hint: {error}", "bad")
        return partial(self._show_hint, board, move)

    def _show_hint(self, board: Board, move: Move) -> None:
        """The first hint in a position marks the piece to move; the second, the move."""
        board_view = self.query_one("#practice-board", BoardView)
        first = self._hint is None or self._hint[0] != board.fen()
        if first:
            self._hint = (board.fen(), move, 1)
            piece = board.piece_at(move.from_square)
            assert piece is not None        # the hint is a legal move
            name = CHINESE_PIECES[piece.color][piece.piece_type]
            self.hints += 1
            self._record(hints=1)
            self._say(f"Hint 1 of 2: move the {name} marked on the board "
                      "(h again for the move).")
            board_view.mark_squares([move.from_square], "hint")
        else:
            if self._hint is not None and self._hint[2] == 1:
                self.hints += 1
                self._record(hints=1)
            self._hint = (board.fen(), move, 2)
            self._say(f"Hint 2 of 2: {write_move(board, move, 'chinese')}, "
                      f"{mate_in(self.session.remaining)}.")
            board_view.mark_squares([move.from_square, move.to_square], "hint")
        self._show_score()

    def action_show_solution(self) -> None:
        """The main line from the position shown: fastest mate, longest defence."""
        if self._can_play():
            self._ask(self._find_solution)
        else:
            self.app.bell()

    def _find_solution(self) -> Callable[[], None]:
        board = self.session.board.copy()
        try:
            line = self.session.solution()
        except PracticeError as error:
            return partial(self._say, f"No solution: {error}", "bad")
        return partial(self._show_solution, board, line)

    def _show_solution(self, board: Board, line: list[Move]) -> None:
        self.solution_seen = True
        self._record(solutions=1)
        self._show_score()
        self.query_one("#practice-solution", Static).update(
            f"Solution from here: {numbered_line(board, line)}")

    def action_take_back(self) -> None:
        """Undo the last attacker move and the defence to it."""
        if self.thinking or self.practice is None or not self.practice.turns:
            self.app.bell()
            return
        self._end_refutation()
        replied = self.session.turns[-1].defence is not None     # none after the mate
        move = self.session.take_back()
        self._show()
        words = write_move(self.session.board, move, "chinese")
        self._say(f"Took back {words}{' and the reply' if replied else ''}: "
                  f"{mate_in(self.session.remaining)} again.")

    def action_restart(self) -> None:
        """Back to the start position with a fresh score."""
        if self.thinking:
            self.app.bell()
            return
        if self.practice is None:         # it could not start: try again
            self._open_session()
            return
        self._end_refutation()
        while self.session.turns:
            self.session.take_back()
        self.wrong_tries = self.hints = 0
        self.solution_seen = False
        self._hint = None
        self._solve_recorded = False
        self._record(attempt=True)
        self._announced = None
        self._show()
        self._say(f"Restarted: {mate_in(self.session.length)}.")

    def action_next_puzzle(self) -> None:
        """Practise the next kill-pattern example: unmastered patterns first."""
        entry = None if self.db is None else next_puzzle(self.db, self.entry)
        if self.thinking or entry is None:
            self.app.bell()
            return
        self.app.switch_screen(PracticeScreen(entry, self.settings))

    # -- showing -----------------------------------------------------------------------------

    def _can_play(self) -> bool:
        return (not self.thinking and not self.refuting and self.practice is not None
                and not self.practice.is_finished())

    def _show(self) -> None:
        """Bring the board, moves, status and score to the session's position."""
        if self.thinking:       # the board shows the move being judged
            return
        practice = self.practice
        moves = ([] if practice is None else
                 [move for turn in practice.turns for move in (turn.move, turn.defence)
                  if move is not None])
        self._show_position(practice.board if practice is not None else self.start, moves)
        self.query_one("#practice-solution", Static).update("")
        self._show_score()

    def _show_score(self) -> None:
        """Moves played (how many fastest), wrong tries and hints."""
        score = ""
        if self.practice is not None:
            played = self.practice.turns
            fastest = sum(turn.evaluation.fastest for turn in played)
            score = (f"Score: {plural(len(played), 'move')} played, {fastest} fastest · "
                     f"{plural(self.wrong_tries, 'wrong try', 'wrong tries')} · "
                     f"{plural(self.hints, 'hint')}"
                     + (" · solution shown" if self.solution_seen else "")
                     + (f" · {self.rating_words}" if self.rating_words else ""))
        self.query_one("#practice-score", Static).update(score)

    # -- repetitions (棋例) --------------------------------------------------------------------

    def _check_repetition(self, board: Board) -> None:
        """Announce, once, a repetition that the last move on ``board`` completed."""
        verdict = judge(board)
        if verdict is not None and self._announced != board.ply_count:
            self._announced = board.ply_count
            announce(self, verdict)
