"""``DrawPracticeScreen``: the user holds the draw of a 红先和 study, the studio resists.

The screen runs a :class:`solver.practice.DrawPractice` session on a draw study of the
catalogue (its drawing line and traps come from the catalogue's analysis) or on a position
(the side to move holds).  The tables of the studio's table directory (``$XQSTUDIO_TABLES``)
judge every position they cover.  Each move entered on the board is judged before it
stands:

* a move that holds (a table's draw, the analysis' drawing line, or no forced win of the
  opponent within :data:`solver.practice.DRAW_PRACTICE_BOUND` moves) is played, and the
  studio answers at once with its strongest resistance, saying what chose it;
* a move that loses (a table's or a search's forced win, a trap of the analysis, or a
  repetition the 棋例 forbid to the holder) is explained: the refutation and the win after it
  are named, the refuting move is shown on the board for
  :data:`~tui.screens.practice.REFUTATION_SHOWN_SECONDS`, then both go and the user tries
  again;
* a move the search cannot judge in :data:`~tui.screens.practice.SEARCH_SECONDS` is taken back
  and said so.

The practice ends in a draw by a repetition the Chinese rules call a draw, by the natural limit
(60 moves without a capture), or by a capture into a material whose table shows a draw.
``h`` names a holding move, ``u`` takes back a pair, ``r`` restarts, Esc leaves.  A
catalogue entry's practice goes into the catalogue's progress table, as for the mates: each
session started, a draw held to the end as solved (clean without a losing try or a hint),
the losing tries and the hints.
"""
from __future__ import annotations

import sqlite3
from collections.abc import Callable
from functools import partial

from textual.binding import Binding
from textual.widgets import Static

from puzzles.catalogue import CatalogueError, Entry, draw_analysis, open_catalogue
from solver.draw import Trap
from solver.practice import DrawMoveEvaluation, DrawPractice, PracticeError
from solver.search import Limits
from xiangqi import Board, Move
from xiangqi.notation import write_move
from xiangqi.output import JsonObject

from ..services import Tablebase, tables_if_any
from ..settings import INTERACTIVE_PROGRESS_NODES, Settings
from ..widgets.board import BoardView
from ..widgets.move_list import MoveList
from ..widgets.status_line import SIDE_NAMES
from .practice import (
    SEARCH_SECONDS,
    TABLE_BITS,
    PracticeBase,
    numbered_line,
    plural,
)

SHOWN_WIN_PLIES = 7
"""Plies of the opponent's win shown after a losing move."""
ENDINGS = {"repetition": "by repetition", "natural limit": "by the natural limit",
           "table": "by the table"}


def catalogue_traps(items: list[JsonObject]) -> list[Trap]:
    """The catalogue's traps (ICCS dicts of :func:`puzzles.catalogue.draw_analysis`) as the
    practice takes them.

    >>> [(t.move.iccs(), t.refutation.iccs(), t.length) for t in
    ...  catalogue_traps([{"move": "f7f8", "refutation": "f9f8", "length": 6}])]
    [('f7f8', 'f9f8', 6)]
    """
    traps = []
    for item in items:
        refutation = Move.from_iccs(item["refutation"]) if item.get("refutation") else None
        traps.append(Trap(Move.from_iccs(item["move"]), "", refutation, item.get("length"),
                          [refutation] if refutation is not None else []))
    return traps


class DrawPracticeScreen(PracticeBase):
    """Hold the draw of a study: each move judged, the strongest resistance played back."""

    SUB_TITLE = "Practice: hold the draw"

    BINDINGS = [
        Binding("h", "hint", "Hint", priority=True),
        Binding("u", "take_back", "Take back a pair"),
        Binding("r", "restart", "Restart"),
        Binding("escape", "leave", "Leave the practice"),
    ]

    def __init__(self, entry_or_board: Entry | Board, settings: Settings) -> None:
        super().__init__(entry_or_board, settings)
        self.practice: DrawPractice | None = None
        self._tablebase: Tablebase | None = None
        self._held_recorded = False           # this attempt's held draw is in the progress

    def on_mount(self) -> None:
        self.query_one("#practice-moves", MoveList).border_title = "Moves"
        self._open_progress()
        self._show()
        self._open_session()

    def on_unmount(self) -> None:
        if self._tablebase is not None:
            self._tablebase.close()

    # -- starting ----------------------------------------------------------------------------

    @property
    def session(self) -> DrawPractice:
        assert self.practice is not None, "no practice session yet"
        return self.practice

    def _open_session(self) -> None:
        self.practice = None
        self.wrong_tries = self.hints = 0
        self._say("Opening the study…")
        self._ask(self._start_session)

    def _analysis(self) -> tuple[list[Move], list[Trap]]:
        """The entry's drawing line and traps from the catalogue (none for a position)."""
        if self.entry is None:
            return [], []
        line = [Move.from_iccs(m) for m in self.entry.main_line]
        try:
            db = open_catalogue(self.settings.catalogue, build_if_missing=False)
        except (CatalogueError, sqlite3.Error):
            return line, []
        try:
            found = draw_analysis(db, self.entry)
        finally:
            db.close()
        return line, catalogue_traps(found["traps"] if found else [])

    def _start_session(self) -> Callable[[], None]:
        """In the worker: the tables, the analysis and the session."""
        if self._tablebase is None:
            self._tablebase = tables_if_any(self.settings.tables)
        line, traps = self._analysis()
        try:
            practice = DrawPractice(self.start, tablebase=self._tablebase, line=line,
                                    traps=traps, progress=self._stop_requested,
                                    limits=Limits(seconds=SEARCH_SECONDS, table_bits=TABLE_BITS,
                                                  progress_nodes=INTERACTIVE_PROGRESS_NODES))
        except PracticeError as error:
            return partial(self._say, f"This position cannot be practised: {error}.", "bad")
        return partial(self._session_opened, practice)

    def _session_opened(self, practice: DrawPractice) -> None:
        self.practice = practice
        self.refresh_bindings()
        self._held_recorded = False
        self._record(attempt=True)
        side = SIDE_NAMES[practice.holder]
        known = [plural(len(practice.traps), "trap")] if practice.traps else []
        if practice.line:
            known.append(f"a drawing line of {plural(len(practice.line), 'ply', 'plies')}")
        tables = "tables on" if self._tablebase is not None else "no tables"
        known_words = f" ({' and '.join(known)} known; {tables})" if known else f" ({tables})"
        self.query_one("#practice-problem", Static).update(
            f"{self.heading}\n{side} to play and draw (和): keep the draw{known_words}")
        self._show()
        self._say("Your move: hold the draw.")

    # -- the user's moves --------------------------------------------------------------------

    def _judge(self, before: Board, move: Move) -> Callable[[], None]:
        """In the worker: judge ``move``; play it and the resistance if it holds."""
        practice = self.session
        try:
            evaluation = practice.evaluate(move)
        except PracticeError as error:
            return partial(self._not_judged, before, move, str(error))
        if evaluation.keeps_draw is None:
            return partial(self._not_judged, before, move, "the search hit its time limit")
        if not evaluation.keeps_draw:
            return partial(self._rejected, before, evaluation)
        practice.play(move)
        if practice.is_finished():
            return partial(self._answered, before, evaluation, None)
        try:
            practice.resist()
        except PracticeError as error:
            practice.take_back()
            return partial(self._not_judged, before, move, str(error))
        return partial(self._answered, before, evaluation, practice.turns[-1].defence)

    def _answered(self, before: Board, evaluation: DrawMoveEvaluation,
                  reply: Move | None) -> None:
        words = write_move(before, evaluation.move, "chinese")
        message = f"✓ {words} holds ({evaluation.source})."
        if reply is not None:
            after = before.copy()
            after.push(evaluation.move)
            defender = SIDE_NAMES[after.turn]
            message += (f"\n{defender} replies {write_move(after, reply, 'chinese')} "
                        f"({self.session.defence_source}).")
        outcome = self.session.outcome
        if outcome is not None:
            how = "a win" if outcome.result == "win" else \
                f"a draw {ENDINGS.get(outcome.termination, '')}"
            message += f"\n和! The practice ends in {how}: {outcome.detail}."
            if not self._held_recorded:
                # Held to the end: the draw study counts as solved (clean: without a
                # losing try or a hint), as a mate reached does for a win.
                self._held_recorded = True
                self._record(solved=True, clean=not (self.wrong_tries or self.hints))
        self._say(message, "good")

    def _rejected(self, before: Board, evaluation: DrawMoveEvaluation) -> None:
        """A losing move: say why and show the refutation, then take both back."""
        self.wrong_tries += 1
        self._record(tries=1)
        self._show_score()
        move = evaluation.move
        words = write_move(before, move, "chinese")
        board_view = self.query_one("#practice-board", BoardView)
        board_view.mark_squares([move.from_square, move.to_square], "loss")
        after = before.copy()
        after.push(move)
        if evaluation.refutation is None:
            self._say(f"✗ {words} loses: {evaluation.reason}. Taken back: try again.", "bad")
            return
        win = numbered_line(after, list(evaluation.line[:SHOWN_WIN_PLIES]))
        more = " …" if len(evaluation.line) > SHOWN_WIN_PLIES else "."
        self._say(f"✗ {words} loses ({evaluation.source}): {SIDE_NAMES[after.turn]} answers "
                  f"{write_move(after, evaluation.refutation, 'chinese')} and mates in "
                  f"{evaluation.length}: {win}{more} Taken back: try again.", "bad")
        after.push(evaluation.refutation)
        self._show_refutation(after, evaluation.refutation, move)

    # -- actions -----------------------------------------------------------------------------

    def _find_hint(self) -> Callable[[], None]:
        """In the worker: a holding move to name (``h``)."""
        board = self.session.board.copy()
        try:
            move = self.session.hint()
        except PracticeError as error:
            return partial(self._say, f"No hint: {error}", "bad")
        return partial(self._show_hint, board, move)

    def _show_hint(self, board: Board, move: Move) -> None:
        self.hints += 1
        self._record(hints=1)
        self._say(f"Hint: {write_move(board, move, 'chinese')} holds.")
        self.query_one("#practice-board", BoardView).mark_squares(
            [move.from_square, move.to_square], "hint")
        self._show_score()

    def action_take_back(self) -> None:
        if self.thinking or self.practice is None or not self.practice.turns:
            self.app.bell()
            return
        self._end_refutation()
        move = self.session.take_back()
        self._show()
        self._say(f"Took back {write_move(self.session.board, move, 'chinese')} and the reply.")

    def action_restart(self) -> None:
        if self.thinking:
            self.app.bell()
            return
        if self.practice is None:
            self._open_session()
            return
        self._end_refutation()
        while self.session.turns:
            self.session.take_back()
        self.wrong_tries = self.hints = 0
        self._held_recorded = False
        self._record(attempt=True)
        self._show()
        self._say("Restarted: hold the draw.")

    # -- showing -----------------------------------------------------------------------------

    def _can_play(self) -> bool:
        return (not self.thinking and not self.refuting and self.practice is not None
                and not self.practice.is_finished())

    def _show(self) -> None:
        """Bring the board, moves, status and score to the session's position."""
        if self.thinking:
            return
        practice = self.practice
        self._show_position(practice.board if practice is not None else self.start,
                            [] if practice is None else practice.played)
        self._show_score()

    def _show_score(self) -> None:
        score = ""
        if self.practice is not None:
            score = (f"Score: {plural(len(self.practice.turns), 'move')} held · "
                     f"{plural(self.wrong_tries, 'losing try', 'losing tries')} · "
                     f"{plural(self.hints, 'hint')}")
        self.query_one("#practice-score", Static).update(score)
