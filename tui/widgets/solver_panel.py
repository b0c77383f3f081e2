"""``SolverPanel``: prove a mate for the side to move, step through the main line, and check a
problem's soundness (key, cooks, tries, duals); in draw mode (和), analyse a draw study: the
table's exact value or the bounded proofs for both sides, the traps and the drawing line.

The host calls :meth:`SolverPanel.show_position` when its position changes and shows the
boards that :class:`SolverPanel.ShowLine` carries while the user steps through a line.
Searches run in a thread worker; the search's progress hook reports to the panel and stops
the search when the user cancels.
"""
from __future__ import annotations

import re
import threading
import time
from pathlib import Path

from rich.style import Style
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.reactive import reactive
from textual.visual import VisualType
from textual.widget import Widget
from textual.widgets import Button, Input, Label, Static
from textual.worker import Worker, WorkerState

from xiangqi import Board, Move
from xiangqi.notation import NOTATIONS, write_line, write_move

from ..services import (
    DEFAULT_DRAW_BOUND,
    DEFAULT_MAX_MOVES,
    DrawAnalysis,
    DrawVerdict,
    Limits,
    Solver,
    SolverError,
    SolveResult,
    SoundnessReport,
    Tablebase,
    TablebaseError,
    analyse_draw,
    default_bound,
    default_search_threads,
    default_seconds,
    game_position_text,
    order_name,
    report_lines,
    search_ran_out_text,
    tables_if_any,
    verify,
)
from ..settings import INTERACTIVE_PROGRESS_NODES
from ..wide_text import TokenWrappedText

SEARCH_GROUP = "solver-search"
MODE_NAMES = {"checks": "连照 continuous check", "any": "any moves", "draw": "和 draw study"}
# ``t`` goes through the modes in this order.
MODE_CYCLE = {"checks": "any", "any": "draw", "draw": "checks"}


def field_bound(mode: str) -> int:
    """The bound a search of ``mode`` uses when the max-moves field is empty."""
    return DEFAULT_DRAW_BOUND if mode == "draw" else DEFAULT_MAX_MOVES[mode]


class _SearchProgress(Message, bubble=False):
    """From the search thread: nodes so far, seconds, and the best proven bound (if any)."""

    def __init__(self, nodes: int, seconds: float, proven_within: int | None,
                 order: str | None = None) -> None:
        super().__init__()
        self.nodes, self.seconds, self.proven_within = nodes, seconds, proven_within
        self.order = order          # the λ order being searched, in words (solve only)


class _ProgressHook:
    """The solver's progress hook: posts the figures to the panel at most every 0.1 s and
    answers True (stop) once ``cancel`` is set."""

    POST_EVERY = 0.1

    def __init__(self, panel: SolverPanel, cancel: threading.Event) -> None:
        self.panel, self.cancel = panel, cancel
        self.solver: Solver | None = None       # set for solve (its proven bound is shown)
        self.phase = ""                         # a draw analysis: what it searches now
        self.start = time.perf_counter()
        self.last_post = 0.0

    def set_phase(self, text: str) -> None:
        self.phase = text

    def __call__(self, nodes: int, table_used: int) -> bool:
        now = time.perf_counter()
        if now - self.last_post >= self.POST_EVERY:
            self.last_post = now
            solver = self.solver
            bound = solver.best_upper if solver is not None else None
            order = solver.current_order if solver is not None else self.phase or None
            self.panel.post_message(_SearchProgress(nodes, now - self.start, bound, order))
        return self.cancel.is_set()


# The style meta that marks a move of the drawn main line with its ply (1-based), so that a
# click on the move can play the line up to it.
PLY_META = "solver-ply"


def numbered(moves: list[str], first_turn: int,
             current: int | None = None) -> TokenWrappedText:
    """Moves in numbered pairs (``1. 炮五平九 马7进5``); ply ``current`` (1-based) highlighted;
    each move carries its ply in the style meta ``PLY_META``.  Wrapped only between moves (a
    move with its number is one piece: a line ended in "4." or cut 车四|进七 at 80 columns)."""
    text = Text()
    starts: list[int] = []
    number = 1
    for ply, move in enumerate(moves, start=1):
        red_move = (ply - 1 + first_turn) % 2 == 0
        if red_move or ply == 1:
            if ply > 1:
                text.append("  ")
            starts.append(len(text))
            text.append(f"{number}. " + ("" if red_move else "... "), style="dim")
        else:
            text.append(" ")
            starts.append(len(text))
        style = Style.parse("reverse bold" if ply == current else "") + \
            Style(meta={PLY_META: ply})
        text.append(move, style=style)
        if not red_move:
            number += 1
    return TokenWrappedText(text, starts)


class Note(Static):
    """A part of the panel's text (progress, result, line, report) that takes no room, its
    margin included, while it is empty: at 80×24 the panel has about a dozen lines."""

    def __init__(self, *, id: str) -> None:
        super().__init__(markup=False, id=id)
        self.display = False

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        super().update(content, layout=layout)
        self.display = bool(content)


class SolverPanel(Widget, can_focus=True):
    """Solve and verify the position shown; step the main line on the host's board.

    ``tables``: a tablebase directory whose tables answer the search's leaves (the studio's
    settings' ``tables``; a directory without tables is simply not used).

    Keys (while the focus is in the panel): ``s`` solve, ``v`` verify, ``t`` switch between
    continuous check and any moves, ``x``/Esc cancel, ``.``/right and ``,``/left step the main
    line, ``g`` or Enter plays the line up to the step shown (:class:`SolverPanel.PlayLine`),
    and a click on a move of the line plays it up to that move; up/down scroll the results.
    Keys that have nothing to do (cancel with no search, stepping with no line) are left to
    the host.
    """

    DEFAULT_CSS = """
    SolverPanel {
        height: 1fr;
        layout: vertical;
        overflow-y: auto;
        padding: 0 1;
    }
    SolverPanel Horizontal {
        height: auto;
    }
    SolverPanel Button {
        width: auto;
        min-width: 0;
        margin-right: 1;
    }
    SolverPanel #solver-actions Button {
        margin-right: 0;
    }
    SolverPanel #solver-max-label {
        padding: 0 1;
    }
    SolverPanel #solver-max-moves {
        width: 6;
    }
    SolverPanel #solver-seconds-label {
        padding: 0 1;
    }
    SolverPanel #solver-seconds {
        width: 6;
    }
    SolverPanel #solver-progress {
        color: $text-muted;
    }
    SolverPanel #solver-result {
        text-style: bold;
        margin-top: 1;
    }
    SolverPanel #solver-line, SolverPanel #solver-report {
        margin-top: 1;
    }
    """

    BINDINGS = [
        Binding("s", "solve", "Solve"),
        Binding("v", "verify", "Verify"),
        Binding("t", "toggle_mode", "Mode (连照/any/和)"),
        Binding("x,escape", "cancel", "Cancel search"),
        Binding("full_stop,right", "step(1)", "Line: next move"),
        Binding("comma,left", "step(-1)", "Line: previous move"),
        Binding("g", "play_line", "Play the line to here"),
        Binding("enter", "play_line", "Play the line to here", show=False),  # g is in the footer
        Binding("up", "scroll_up", "Scroll the results", show=False),
        Binding("down", "scroll_down", "Scroll the results", show=False),
    ]

    notation: reactive[str] = reactive("chinese")
    """How moves are written: ``chinese``, ``wxf``, ``iccs`` or ``code3``."""
    mode: reactive[str] = reactive("checks")
    """``checks``: every attacker move checks (连照杀); ``any``: quiet moves allowed; ``draw``:
    a draw study (红先和), analysed by :func:`solver.draw.analyse_draw`."""

    class PlayLine(Message):
        """The user asked to play ``moves`` (the main line up to the step shown) from the
        panel's position on the host's board."""

        def __init__(self, panel: SolverPanel, board: Board, moves: list[Move]) -> None:
            super().__init__()
            self.panel = panel
            self.board = board
            self.moves = moves

        @property
        def control(self) -> SolverPanel:
            return self.panel

    class ShowLine(Message):
        """Show ``board`` (the main line played up to the current step) with ``last_move``
        (None at the start of the line) on the host's board; ``step`` of ``length`` plies."""

        def __init__(self, panel: SolverPanel, board: Board, last_move: Move | None,
                     step: int = 0, length: int = 0) -> None:
            super().__init__()
            self.panel = panel
            self.board = board
            self.last_move = last_move
            self.step, self.length = step, length

        @property
        def control(self) -> SolverPanel:
            return self.panel

    def __init__(self, tables: Path | str, *, board: Board | None = None,
                 notation: str = "chinese", mode: str = "checks", name: str | None = None,
                 id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.tables = Path(tables)
        self.set_reactive(SolverPanel.notation, self.validate_notation(notation))
        self.set_reactive(SolverPanel.mode, self.validate_mode(mode))
        self.board: Board | None = board.copy(stack=False) if board is not None else None
        self.result: SolveResult | None = None
        self.report: SoundnessReport | None = None
        self.analysis: DrawAnalysis | None = None
        self.rules = "chinese"            # the repetition rules of a draw analysis (the host's)
        self.line: list[Move] = []
        self.step = 0                     # plies of ``line`` played on the board shown
        self.running: str | None = None   # "solve" or "verify" while a search runs
        self._run_board: Board | None = None
        self._run_max_moves: int | None = None
        self._run_seconds = 0.0           # the running search's time budget (0: none)
        self._cancel_reason = ""          # why the search was cancelled, if not by the user
        self._cancel = threading.Event()
        self._cancelled_run = False       # the last search ended because the user cancelled
        self._hook: _ProgressHook | None = None
        self._solver: Solver | None = None
        self._message = ""                # why there is no result (error, cancel, stale)
        self._ready = False

    def compose(self) -> ComposeResult:
        # The mode and the bound on rows of their own: side by side they do not fit the
        # panel at 80 columns (the bound's field was cut off).
        yield Button(self._mode_label(), id="solver-mode", compact=True)
        with Horizontal(id="solver-bound"):
            yield Label("max moves", id="solver-max-label")
            yield Input(placeholder=str(field_bound(self.mode)), type="integer",
                        id="solver-max-moves", compact=True)
            # The time budget (0: none); empty: the default, shown as the hint.
            yield Label("seconds", id="solver-seconds-label")
            yield Input(placeholder=f"{self._default_seconds():g}", type="integer",
                        id="solver-seconds", compact=True)
        with Horizontal(id="solver-actions"):
            yield Button("Solve (s)", id="solver-solve", variant="primary", compact=True)
            yield Button("Verify (v)", id="solver-verify", compact=True)
            yield Button("Cancel (x)", id="solver-cancel", variant="error", compact=True)
        yield Note(id="solver-progress")
        yield Note(id="solver-result")
        yield Note(id="solver-line")
        yield Note(id="solver-report")

    def on_mount(self) -> None:
        self._ready = True
        self._redraw()

    def on_unmount(self) -> None:
        # Quitting the studio: the search's thread must end with it.  Textual waits for its
        # worker threads before the process exits, and a search left running would hold the
        # process (its screen already blank) until the budget ends, or for ever without one.
        if self.running:
            self._cancel_search()

    # -- the host's side -------------------------------------------------------------------

    def show_position(self, board: Board) -> None:
        """Make ``board`` (copied) the problem.  A new position clears the old results and
        cancels a search still running on the old one."""
        if self.board is not None and board == self.board:
            return
        self.board = board.copy(stack=False)
        self.result, self.report, self.line, self.step = None, None, [], 0
        self.analysis = None
        self._message = ""
        if self.running:
            self._cancel_search()
            self._message = f"The {self.running} of the previous position was cancelled."
        elif self._ready:
            self.query_one("#solver-progress", Static).update("")   # the old run's figures
        self._redraw()

    def validate_notation(self, notation: str) -> str:
        if notation not in NOTATIONS:
            raise ValueError(f"unknown notation {notation!r} (one of {', '.join(NOTATIONS)})")
        return notation

    def validate_mode(self, mode: str) -> str:
        if mode not in MODE_NAMES:
            raise ValueError(f"unknown mode {mode!r} (checks, any or draw)")
        return mode

    def watch_notation(self) -> None:
        self._redraw()

    def watch_mode(self, mode: str) -> None:
        if not self._ready:
            return
        self.query_one("#solver-mode", Button).label = self._mode_label()
        self.query_one("#solver-max-moves", Input).placeholder = str(field_bound(mode))
        self.query_one("#solver-seconds", Input).placeholder = f"{self._default_seconds():g}"
        self._redraw()

    def _mode_label(self) -> str:
        return f"Mode: {MODE_NAMES[self.mode]} (t)"

    # -- starting and stopping searches ----------------------------------------------------

    def action_toggle_mode(self) -> None:
        self.mode = MODE_CYCLE[self.mode]

    def action_solve(self) -> None:
        """Prove the shortest mate within the max moves (default: the mode's bound); in draw
        mode, analyse the draw study."""
        board = self.board
        if board is not None and self.mode == "draw":
            self.action_analyse_draw()
        elif board is not None and self._can_start() and not self._refuse_game_position(board):
            tablebase = self._open_tables()
            try:
                max_moves = self._max_moves() or default_bound(board, self.mode, tablebase)
            except TablebaseError as error:
                if tablebase is not None:
                    tablebase.close()
                self._message = f"Cannot solve: {error.user_text()}"
                self._redraw()
                return
            try:
                limits = self._limits()
            except SolverError as error:           # e.g. a bad $XQSTUDIO_THREADS
                if tablebase is not None:
                    tablebase.close()
                self._message = f"Cannot solve: {error}"
                self._redraw()
                return
            hook = self._start(board, "solve", max_moves)
            solver = Solver(board, self.mode, limits, tablebase, hook)
            hook.solver = self._solver = solver
            self._solve_in_thread(solver, max_moves, tablebase)

    def action_verify(self) -> None:
        """Soundness of the problem "mate in N" (N: the max moves, default the forced
        length): key, cooks, tries and duals."""
        board = self.board
        if board is not None and self.mode == "draw":
            self.action_analyse_draw()
        elif board is not None and self._can_start() and not self._refuse_game_position(board):
            stipulated = self._max_moves()
            hook = self._start(board, "verify", stipulated)
            self._verify_in_thread(board, "checks" if self.mode == "checks" else "win",
                                   stipulated, hook)

    def _refuse_game_position(self, board: Board) -> bool:
        """A game position with the max-moves field empty: say so instead of a search that
        would spend its budget and settle nothing (a bound typed in is searched)."""
        game = game_position_text(board)
        if game is None or self._max_moves() is not None:
            return False
        self._message = (f"{game[0].upper()}{game[1:]}: a forced mate from it is beyond any "
                         "search. Type a bound in the max-moves field to look for a mate "
                         "within it all the same.")
        self._redraw()
        return True

    def action_analyse_draw(self) -> None:
        """The draw study (和): the table's value or both sides' bounded proofs, the traps and
        the drawing line, within the bound (default 20) and 60 seconds."""
        board = self.board
        if board is not None and self._can_start():
            bound = self._max_moves() or DEFAULT_DRAW_BOUND
            hook = self._start(board, "draw analysis", bound)
            self._draw_in_thread(board, bound, hook)

    def action_edit_bound(self) -> None:
        """Put the cursor in the max-moves field (empty: the mode's bound)."""
        self.query_one("#solver-max-moves", Input).focus()

    def action_edit_budget(self) -> None:
        """Put the cursor in the seconds field (empty: the default budget; 0: none)."""
        self.query_one("#solver-seconds", Input).focus()

    def leave(self, where: str) -> None:
        """The user left the screen that owns the panel (``where``: for the message): a
        running search is cancelled rather than left to run unseen."""
        if self.running:
            job = self.running
            self._cancel_search()
            self._cancel_reason = f"The {job} was cancelled when you left for {where}."

    def action_cancel(self) -> None:
        """Stop the running search; what it proved so far is kept."""
        if self.running:
            self._cancel_search()
            self.query_one("#solver-progress", Static).update(
                f"Cancelling the {self.running}\u2026")

    def _cancel_search(self) -> None:
        self._cancel.set()
        if self._solver is not None:
            self._solver.cancel()

    def _can_start(self) -> bool:
        if self.running or self.board is None:
            return False
        if not self.board.has_legal_move():
            self._message = "The side to move has no legal move: the game is over."
            self._redraw()
            return False
        return True

    def _default_seconds(self) -> float:
        return default_seconds(self.mode == "draw")

    def budget_seconds(self) -> float:
        """The time budget of the next search: the seconds field (0: none), or the default
        of the mode when it is empty."""
        try:
            value = int(self.query_one("#solver-seconds", Input).value)
        except ValueError:
            return self._default_seconds()
        return float(max(value, 0))

    def _limits(self) -> Limits:
        # Every core by default ($XQSTUDIO_THREADS to choose): users have 8-16.
        return Limits(seconds=self.budget_seconds(), progress_nodes=INTERACTIVE_PROGRESS_NODES,
                      threads=default_search_threads())

    def _max_moves(self) -> int | None:
        """The max-moves field, or None when it is empty or not a positive number."""
        field = self.query_one("#solver-max-moves", Input)
        try:
            value = int(field.value)
        except ValueError:
            return None
        return value if value >= 1 else None

    def _start(self, board: Board, job: str, max_moves: int | None) -> _ProgressHook:
        """Set up a run on ``board`` (the panel's position); returns its progress hook."""
        self.running = job
        self._run_board = board.copy(stack=False)
        self._run_max_moves = max_moves
        self._run_seconds = self.budget_seconds()
        self._cancel.clear()
        self._cancel_reason = ""
        self._cancelled_run = False
        self._solver = None
        hook = self._hook = _ProgressHook(self, self._cancel)
        self.result, self.report, self.line, self.step = None, None, [], 0
        self.analysis = None
        self._message = ""
        bound = f"within {max_moves} moves" if max_moves else "its forced length"
        budget = f"{self._run_seconds:g} s" if self._run_seconds else "no time limit"
        self.query_one("#solver-progress", Static).update(
            f"{job.capitalize()} ({MODE_NAMES[self.mode]}, {bound}, {budget}): "
            "starting\u2026")
        self._redraw()
        return hook

    def _open_tables(self) -> Tablebase | None:
        """The tablebase for the search's leaves, or None where there are no tables."""
        tablebase = tables_if_any(self.tables)
        return tablebase if tablebase is not None and tablebase.materials() else None

    @work(thread=True, exclusive=True, group=SEARCH_GROUP, exit_on_error=False)
    def _solve_in_thread(self, solver: Solver, max_moves: int,
                         tablebase: Tablebase | None) -> SolveResult:
        try:
            return solver.run(max_moves)
        finally:
            if tablebase is not None:
                tablebase.close()

    @work(thread=True, exclusive=True, group=SEARCH_GROUP, exit_on_error=False)
    def _verify_in_thread(self, board: Board, stipulation: str, moves: int | None,
                          hook: _ProgressHook) -> SoundnessReport:
        tablebase = self._open_tables()
        try:
            return verify(board, stipulation, moves, tablebase=tablebase,
                          limits=self._limits(), progress=hook)
        finally:
            if tablebase is not None:
                tablebase.close()

    @work(thread=True, exclusive=True, group=SEARCH_GROUP, exit_on_error=False)
    def _draw_in_thread(self, board: Board, bound: int, hook: _ProgressHook) -> DrawAnalysis:
        tablebase = self._open_tables()
        try:
            return analyse_draw(board, bound, tablebase, self._limits(), self.rules, hook,
                                phase=hook.set_phase)
        finally:
            if tablebase is not None:
                tablebase.close()

    @on(_SearchProgress)
    def _show_progress(self, message: _SearchProgress) -> None:
        if not self.running:
            return
        rate = message.nodes / message.seconds if message.seconds > 0 else 0.0
        if message.proven_within is not None:
            bound = f"mate within {message.proven_within} proven, proving the shortest"
        elif self._run_max_moves:
            bound = f"searching up to {self._run_max_moves} moves"
        else:
            bound = "searching for the forced length"
        order = f" \u00b7 {message.order}" if message.order and self.mode != "checks" else ""
        budget = self._run_seconds
        of = f" of {budget:g} s" if budget else " (no time limit)"
        self.query_one("#solver-progress", Static).update(
            f"{self.running}: {message.nodes:,} nodes \u00b7 {rate / 1e3:,.0f} k nodes/s \u00b7 "
            f"{message.seconds:.1f} s{of} \u00b7 {bound}{order}")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.group != SEARCH_GROUP or \
                event.state not in (WorkerState.SUCCESS, WorkerState.ERROR):
            return
        job, cancelled = self.running, self._cancel.is_set()
        self.running, self._solver = None, None
        progress = self.query_one("#solver-progress", Static)
        if self._run_board != self.board:
            progress.update("")       # the position changed meanwhile: the result is stale
        elif event.state == WorkerState.ERROR:
            error = worker.error
            if isinstance(error, TablebaseError):
                self._message = f"Cannot {job}: {error.user_text()}"
            elif isinstance(error, SolverError):
                self._message = f"Cannot {job}: {error}"
            else:
                self._message = f"The {job} failed: {type(error).__name__}: {error}"
            progress.update("")
        elif cancelled:
            # Cancelled: say so, and nothing else (what the search had not finished is not
            # a finding).
            self._message = self._cancel_reason or f"{(job or 'search').capitalize()} cancelled."
            result = worker.result if event.state == WorkerState.SUCCESS else None
            if isinstance(result, SolveResult) and result.verdict == "mate" and result.length:
                # A proof finished before the cancel is still a proof: keep it and its line.
                self.result, self.line = result, list(result.main_line)
                self._message = (f"Solve cancelled; a mate in at most {result.length} was "
                                 "proven before it stopped.")
            progress.update("")
        elif job == "draw analysis":
            analysis = self.analysis = worker.result
            assert analysis is not None         # the DrawAnalysis
            win: list[Move] = analysis.table_line or next(
                (p.line for p in (analysis.red, analysis.black) if p and p.verdict == "mate"),
                [])
            self.line = list(analysis.line.moves if analysis.line is not None else win)
            progress.update(f"{analysis.nodes:,} nodes in {analysis.seconds:.1f} s")
        elif job == "solve":
            result = self.result = worker.result
            assert result is not None           # the solve's SolveResult
            self.line = list(result.main_line)
            tables = f" \u00b7 {result.tb_leaves:,} leaves from the tablebases" \
                if result.tb_leaves else ""
            progress.update(f"{result.nodes:,} nodes in {result.seconds:.2f} s "
                            f"({result.nodes_per_second / 1e3:,.0f} k nodes/s){tables}")
        else:
            report = self.report = worker.result
            assert report is not None           # the verify's SoundnessReport
            refutation = report.refutation
            # No mate but a refutation: its line is the one to step through.
            self.line = list(report.main_line or (refutation.main_line if refutation else []))
            progress.update("")
        self._cancelled_run = cancelled
        self._redraw()

    # -- stepping through the line ---------------------------------------------------------

    def action_step(self, delta: int) -> None:
        """Move ``delta`` plies along the main line and show that position on the host."""
        target = self.step + delta
        if self.board is None or not self.line or not 0 <= target <= len(self.line):
            return
        self.step = target
        board = self.board.copy(stack=False)
        for move in self.line[:target]:
            board.push(move)
        self.post_message(self.ShowLine(self, board, self.line[target - 1] if target else None,
                                        target, len(self.line)))
        self._draw_line()

    def action_play_line(self) -> None:
        """Play the main line up to the step shown (the whole line at step 0) on the host."""
        self.play_line_to(self.step or len(self.line))

    def play_line_to(self, ply: int) -> None:
        """Play the first ``ply`` moves of the main line on the host."""
        if self.board is None or not 1 <= ply <= len(self.line):
            return
        self.post_message(self.PlayLine(self, self.board.copy(stack=False), self.line[:ply]))

    def on_click(self, event: events.Click) -> None:
        """A click on a move of the drawn main line plays the line up to that move."""
        ply = event.style.meta.get(PLY_META)
        if isinstance(ply, int):
            event.stop()
            self.play_line_to(ply)

    @on(Button.Pressed)
    def _button(self, event: Button.Pressed) -> None:
        actions = {"solver-mode": self.action_toggle_mode, "solver-solve": self.action_solve,
                   "solver-verify": self.action_verify, "solver-cancel": self.action_cancel}
        if event.button.id in actions:
            event.stop()
            actions[event.button.id]()

    @on(Input.Submitted, "#solver-max-moves")
    def _max_moves_entered(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_solve()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Disabled keys fall through to the host's bindings.
        if action in ("solve", "verify"):
            return self.running is None and self.board is not None
        if action == "cancel":
            return self.running is not None
        if action in ("step", "play_line"):
            return bool(self.line)
        return True

    # -- drawing ---------------------------------------------------------------------------

    def _redraw(self) -> None:
        if not self._ready:
            return
        self.query_one("#solver-result", Static).update(self._result_text())
        self._draw_line()
        self.query_one("#solver-report", Static).update(self._report_text())
        self.query_one("#solver-cancel", Button).disabled = self.running is None
        for button in ("#solver-solve", "#solver-verify"):
            self.query_one(button, Button).disabled = self.running is not None
        self.refresh_bindings()

    def _write(self, board: Board, move: Move) -> str:
        return write_move(board, move, self.notation)

    def _result_text(self) -> Text:
        if self._message:
            return Text(self._message, style="yellow")
        if self.board is None:
            return Text("No position.")
        if self.running:
            return Text("")
        if self.analysis is not None:
            return self._analysis_verdict(self.analysis)
        result = self.result
        if result is None and self.report is None:
            return Text(f"s solves, v verifies ({MODE_NAMES[self.mode]}).", style="dim")
        if result is None:
            return Text("")
        reason = search_ran_out_text()
        found = "" if result.order is None or result.mode == "checks" else \
            f"found at {order_name(result.order)}"
        if result.verdict == "mate" and not result.exact:
            shorter = "a shorter mate not ruled out" if result.minimality_skip is None else \
                f"a shorter mate not searched for: {result.minimality_skip.text()}"
            why = "; ".join(part for part in (found, shorter) if part)
            return Text(f"Mate in at most {result.length} ({why})", style="green")
        if result.verdict == "mate":
            kind = "every move a check" if result.mode == "checks" else "quiet moves allowed"
            return Text(f"Mate in {result.length} ({result.plies} "
                        f"{'ply' if result.plies == 1 else 'plies'}), {kind}"
                        + (f", {found}" if found else ""), style="green")
        if result.verdict == "no mate":
            kind = "continuous-check " if result.mode == "checks" else ""
            hint = (f"; the tablebase gives mate in {result.table_moves}: set max moves to "
                    f"{result.table_moves}" if result.table_moves else "")
            moves = "move" if result.max_moves == 1 else "moves"
            return Text(f"No {kind}mate within {result.max_moves} {moves}{hint}", style="red")
        return Text(f"Unknown: {reason}", style="yellow")

    def _analysis_verdict(self, analysis: DrawAnalysis) -> Text:
        if analysis.verdict == DrawVerdict.DRAW:
            return Text(f"Draw, proven ({analysis.settled_by})", style="green")
        if analysis.verdict == DrawVerdict.NO_WIN:
            return Text(f"No forced win for either side within {analysis.bound} moves "
                        "(bounded: not a proven draw)", style="green")
        if analysis.unsound:
            return Text(f"{analysis.verdict} ({analysis.settled_by}): the draw claim is "
                        "unsound", style="red")
        return Text(f"Unproven within the budget (bound {analysis.bound})", style="yellow")

    def _draw_line(self) -> None:
        widget = self.query_one("#solver-line", Static)
        if not self.line or self.board is None:
            widget.update("")
            return
        moves = write_line(self.board, self.line, self.notation)
        title = "Main line"
        if self.report is not None and not self.report.main_line:
            title = "Refutation"
        if self.analysis is not None:
            title = "Drawing line" if self.analysis.line is not None else "The win"
        elif self.result is not None and self.result.line_shorter_than_mate:
            title = f"Main line (a mate in {self.result.line_moves}: not the longest defence)"
        elif self.result is not None and self.result.line_shorter_than_bound:
            title = (f"Main line (a mate in {self.result.line_moves} along the proof's "
                     f"defences; the longest defence lasts at most {self.result.length})")
        text = Text(title, style="bold")
        text.append(f"  step {self.step}/{len(self.line)} \u00b7 . , step; g, Enter or a "
                    "click plays", style="dim")
        # The title wraps between its words; the moves between moves (see numbered).
        words = [match.start() for match in re.finditer(r"(?<= )\S", text.plain)]
        line = numbered(moves, self.board.turn, self.step or None)
        offset = len(text.plain) + 1
        widget.update(TokenWrappedText(Text("\n").join([text, line.text]),
                                       words + [offset + start for start in line.starts]))

    def _report_text(self) -> Text:
        report, board = self.report, self.board
        if self.analysis is not None and board is not None:
            # The verdict and the line are shown above; the rest of the report here.
            lines = [line for line in report_lines(self.analysis, board, self.notation)
                     if not line.startswith(("Verdict:", "Drawing line"))]
            return Text("\n".join(lines))
        if report is None or board is None:
            return Text("")
        stipulation = "continuous check (连照)" if report.stipulation == "checks" else "mate"
        bound = "in" if report.verdict == "mate" else "within"
        text = Text(f"Soundness: {stipulation} {bound} {report.bound}\n", style="bold")
        if report.verdict != "mate":
            text.append(f"Verdict: {report.verdict}\n")
        else:
            assert report.length is not None and report.key is not None     # a mate's
            plies = 2 * report.length - 1
            text.append(f"Verdict: mate in {report.length} "
                        f"({plies} {'ply' if plies == 1 else 'plies'})\n")
            text.append(f"Key: {self._write(board, report.key)} ")
            text.append("(cooked)\n" if report.cooks else "(unique)\n",
                        style="red" if report.cooks else "green")
            for cook in report.cooks:
                text.append(f"  cook: {self._write(board, cook.move)} also mates in "
                            f"{cook.length}\n")
            for trial in report.tries:
                assert trial.refutation is not None     # a try has its single refutation
                after = board.copy(stack=False)
                after.push(trial.move)
                text.append(f"  try: {self._write(board, trial.move)}, refuted only by "
                            f"{self._write(after, trial.refutation)}\n")
            replay = board.copy(stack=False)
            for ply, move in enumerate(report.main_line):
                for dual in report.duals:
                    if dual.ply == ply:
                        text.append(f"  dual at move {ply // 2 + 1}: "
                                    f"{self._write(replay, dual.move)} also mates in "
                                    f"{dual.length}\n")
                replay.push(move)
            if not report.duals:
                text.append("No duals on the main line.\n")
        if report.refutation is not None:
            text.append(report.refutation.describe(board) + "\n",
                        style="red" if report.refutation.refuted else "yellow")
        for item in report.unproven:
            text.append(f"unproven: {item}\n", style="yellow")
        text.rstrip()
        return text
