"""``TablebasePanel``: the exact value of the position, every legal move ranked, the material's
DTM histogram, and building a missing table in the background.

The host calls :meth:`TablebasePanel.show_position` whenever its position changes and handles
:class:`TablebasePanel.PlayMove` (Enter on or a click at a move's row, or ``b`` for the best
move).  Probing
runs on the UI thread (a few file reads per move); building a table and reading the
histogram's counts run in thread workers.
"""
from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.coordinate import Coordinate
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Button, DataTable, ProgressBar, Static
from textual.worker import Worker, WorkerState

from xiangqi import Board, Move
from xiangqi.notation import NOTATIONS, write_move
from xiangqi.pieces import COLOR_NAMES
from xiangqi.quantities import duration_text, memory_text
from xiangqi.rules import NATURAL_LIMIT_PLIES

from ..services import (
    BuildError,
    Material,
    MaterialPlan,
    MissingTableError,
    RankedMove,
    SideStats,
    TablebaseError,
    TableValue,
    TooLargeError,
    build_plan,
    default_threads,
    describe,
    finished_tables,
    open_tablebase,
    plan_build,
    table_stats,
)
from .dtm_histogram import DtmHistogram

BUILD_GROUP = "tablebase-build"
STATS_GROUP = "tablebase-stats"


class BuildCancelled(Exception):
    """Raised from the build's progress hook once the user cancels: ``build()`` lets it
    through, and its table writer removes the unfinished file."""




RESULT_STYLES = {2: "green", 1: "green", 0: "yellow", -1: "red", -2: "red"}
# The move table's words: short, so that its four columns (at most 8 + 14 + 3 + 3 cells and
# their padding) fit the side panel at 80 columns, 38 cells wide: the table cut its DTC
# column there.  A win or loss the 60-move rule draws is a draw, which side it favoured in
# the colour.
RESULT_CELLS = {2: "win", 1: "draw (60-move)", 0: "draw", -1: "draw (60-move)", -2: "loss"}
MOVE_COLUMNS = ("Move", "Result", "DTM", "DTC")


def mate_column(value: TableValue) -> str:
    """The move table's DTM cell: the plies to mate (the side to move after the move wins
    or loses, as its result says), ``—`` for a draw."""
    if value.wdl == 0:
        return "\u2014"
    assert value.dtm is not None
    return str(value.dtm)


def rule_lines(value: TableValue, board: Board) -> list[str]:
    """DTC, and the 60-move rule's verdict where it is not the plain DTC."""
    if value.wdl == 0 or value.dtm == 0:
        return []
    lines = [f"DTC {value.dtc} plies (to the first capture or mate)"]
    if abs(value.wdl) == 1:
        budget = NATURAL_LIMIT_PLIES - min(board.halfmove_clock, NATURAL_LIMIT_PLIES)
        needs = f"the conversion takes {value.dtc60} plies (DTC60)" if value.dtc60 is not None \
            else f"no conversion comes within {NATURAL_LIMIT_PLIES} plies"
        lines.append(f"60-move rule: {needs}; {budget} plies are left on the clock")
    elif value.dtc60 != value.dtc:
        lines.append(f"DTC60 {value.dtc60} plies (the conversion that keeps the result within "
                     "the 60-move rule)")
    return lines


class _BuildProgress(Message, bubble=False):
    """From the build thread: estimated seconds done of ``total``, and what it is doing."""

    def __init__(self, done: float, total: float, text: str) -> None:
        super().__init__()
        self.done, self.total, self.text = done, total, text


def remaining_seconds(estimates_done: float, seconds_done: float, estimate: float,
                      in_table: float, estimates_left: float) -> float:
    """Re-estimated seconds left of a build: the estimates scaled by how the finished tables
    compared with theirs, and the current table given at least a quarter of its time so far
    again once it runs past its own estimate.

    >>> remaining_seconds(10.0, 20.0, 5.0, 4.0, 10.0)    # twice as slow as estimated so far
    26.0
    >>> remaining_seconds(0.0, 0.0, 5.0, 8.0, 0.0)       # the only table, past its estimate
    2.0
    """
    pace = seconds_done / estimates_done if estimates_done > 0 and seconds_done > 0 else 1.0
    current = max(estimate * pace - in_table, in_table / 4)
    return current + estimates_left * pace


class _BuildTracker:
    """``build()``'s progress hook, the one the CLI's progress bar implements
    (``start_table(name, estimate)``, then ``(label, pass, found)`` after every pass), turned
    into messages for the panel; it stops the build at the next pass once ``cancel`` is set.

    The bar's fraction is the time elapsed over the time elapsed plus the time re-estimated
    to be left (:func:`remaining_seconds`), so it never sits at its end while work is left."""

    POST_EVERY = 0.1     # seconds: passes of small tables come far faster than a screen redraws

    def __init__(self, panel: TablebasePanel, plan: MaterialPlan, cancel: threading.Event) -> None:
        self.panel, self.cancel = panel, cancel
        self.estimates = dict(plan.missing)
        self.total = max(plan.seconds, 1e-3)
        self.finished_estimate = 0.0       # the estimates of the tables finished
        self.finished_seconds = 0.0        # the time they really took
        self.table, self.estimate = "", 0.0
        self.start = self.table_start = time.perf_counter()
        self.last_post = 0.0

    def start_table(self, name: str, estimate: float) -> None:
        self._stop_if_cancelled()
        now = time.perf_counter()
        if self.table:
            self.finished_estimate += self.estimate
            self.finished_seconds += now - self.table_start
        self.table, self.estimate, self.table_start = name, estimate, now
        self._post(f"{name}: started, {duration_text(estimate, approximate=True)}", force=True)

    def __call__(self, label: str, n: int, found: int) -> None:
        self._stop_if_cancelled()
        self._post(f"{label} pass {n}: {found:,} at distance {n}")

    def log(self, line: str) -> None:
        """The build's log lines: each table's size and timings."""
        self._post(line, force=True)

    def _stop_if_cancelled(self) -> None:
        if self.cancel.is_set():
            raise BuildCancelled(self.table)

    def _post(self, text: str, force: bool = False) -> None:
        now = time.perf_counter()
        if not force and now - self.last_post < self.POST_EVERY:
            return
        self.last_post = now
        in_table = now - self.table_start
        elapsed = now - self.start
        left = max(self.total - self.finished_estimate - self.estimate, 0.0)
        remaining = remaining_seconds(self.finished_estimate, self.finished_seconds,
                                      self.estimate, in_table, left)
        self.panel.post_message(_BuildProgress(
            elapsed, elapsed + remaining,
            f"{text}\n{elapsed:.0f} s elapsed; "
            f"{duration_text(remaining, approximate=True)} left (re-estimated)"))


class RankedMoves(DataTable[str]):
    """The ranked moves, where one click on a row plays its move (a plain DataTable's click
    on a row that is not highlighted only moves the cursor there)."""

    def on_click(self, event: events.Click) -> None:
        # Runs before DataTable's own click handler, which selects (posts RowSelected for)
        # a clicked row that is already highlighted: so highlight the clicked row first.
        # The clicked cell's row and column are in the style meta DataTable renders it with.
        row, column = event.style.meta.get("row"), event.style.meta.get("column")
        if isinstance(row, int) and isinstance(column, int) and 0 <= row < self.row_count \
                and 0 <= column < len(self.columns):
            self.cursor_coordinate = Coordinate(row, column)


class TablebasePanel(Widget, can_focus=True):
    """The tablebase's verdict on the position shown and on each of its moves.

    ``directory``: the table directory (the studio's settings' ``tables``);
    ``threads``: threads for building (default: the CPUs this process may use).

    Keys (while the focus is in the panel): Enter (or a click) plays the move of the row, ``b``
    the best move, ``h`` shows or hides the DTM histogram (hidden at first), ``B`` builds a
    missing table and ``x``/Esc cancels the build.  Keys that have nothing to do are left to
    the host.
    """

    DEFAULT_CSS = """
    TablebasePanel {
        height: 1fr;
        layout: vertical;
        overflow-y: auto;
    }
    TablebasePanel #tb-heading {
        text-style: bold;
        padding: 0 1;
    }
    TablebasePanel #tb-value {
        padding: 0 1 1 1;
    }
    TablebasePanel #tb-build {
        height: auto;
        padding: 0 1 1 1;
    }
    TablebasePanel #tb-build ProgressBar {
        width: 100%;
    }
    TablebasePanel #tb-build-status {
        color: $text-muted;
    }
    TablebasePanel #tb-moves {
        height: auto;
        max-height: 100%;
        min-height: 4;
    }
    TablebasePanel DtmHistogram {
        margin-top: 1;
    }
    """

    BINDINGS = [
        Binding("b", "play_best", "Play best"),
        Binding("h", "toggle_histogram", "DTM histogram"),
        Binding("B", "build", "Build table"),
        Binding("x,escape", "cancel_build", "Cancel build"),
    ]

    notation: reactive[str] = reactive("chinese")
    """How moves are written: ``chinese``, ``wxf``, ``iccs`` or ``code3``."""
    histogram_shown: reactive[bool] = reactive(False)
    """The DTM histogram is shown only after ``h``: a line under every position, "no table"
    on most, would be noise."""

    class PlayMove(Message):
        """The user chose ``move`` in the panel, to be played on the host's board."""

        def __init__(self, panel: TablebasePanel, move: Move) -> None:
            super().__init__()
            self.panel = panel
            self.move = move

        @property
        def control(self) -> TablebasePanel:
            return self.panel

    def __init__(self, directory: Path | str, *, board: Board | None = None,
                 notation: str = "chinese", threads: int | None = None,
                 name: str | None = None, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.tablebase = open_tablebase(directory)
        self.directory = self.tablebase.directory
        self.threads = threads or default_threads()
        self.set_reactive(TablebasePanel.notation, self.validate_notation(notation))
        self.board: Board | None = board.copy(stack=False) if board is not None else None
        self.value: TableValue | None = None
        self.ranked: list[RankedMove] = []
        self.plan: MaterialPlan | None = None
        self._building = False
        self._cancel_build = threading.Event()
        self._build_note = ""
        self._stats: dict[str, dict[int, SideStats]] = {}
        self._stats_pending: str | None = None
        self._ready = False          # children composed: the panel can draw

    def compose(self) -> ComposeResult:
        yield Static(id="tb-heading", markup=False)
        yield Static(id="tb-value", markup=False)
        with Vertical(id="tb-build"):
            yield Button("Build", id="tb-build-button", compact=True)
            yield ProgressBar(id="tb-build-bar", show_eta=False)
            yield Static(id="tb-build-status", markup=False)
        yield RankedMoves(id="tb-moves", cursor_type="row", zebra_stripes=True)
        yield DtmHistogram(id="tb-histogram")

    def on_mount(self) -> None:
        self._ready = True
        self._refresh()

    def on_unmount(self) -> None:
        # Quitting: a build stops at its next pass (it leaves no unfinished file), so that
        # the process, which waits for its worker threads, ends.
        self._cancel_build.set()
        self.tablebase.close()

    # -- the host's side -------------------------------------------------------------------

    def show_position(self, board: Board) -> None:
        """Probe ``board`` (not changed; the panel keeps a copy) and show its value."""
        if self.board is None or board != self.board:
            self._build_note = ""        # the last build's outcome was said; a new position
        self.board = board.copy(stack=False)
        self._refresh()

    def validate_notation(self, notation: str) -> str:
        if notation not in NOTATIONS:
            raise ValueError(f"unknown notation {notation!r} (one of {', '.join(NOTATIONS)})")
        return notation

    def watch_notation(self) -> None:
        self._fill_moves()

    def watch_histogram_shown(self, shown: bool) -> None:
        self.query_one(DtmHistogram).display = shown
        if shown:
            self._show_histogram()

    # -- probing ---------------------------------------------------------------------------

    def _refresh(self) -> None:
        """Probe the position and redraw everything from the result."""
        if not self._ready:
            return
        self.value, self.ranked, self.plan = None, [], None
        heading = self.query_one("#tb-heading", Static)
        value_text = self.query_one("#tb-value", Static)
        board = self.board
        if board is None:
            heading.update("Tablebase")
            value_text.update("No position.")
        else:
            material = Material.from_board(board)
            canonical = material.canonical()
            heading.update(f"{material} \u00b7 {COLOR_NAMES[board.turn]} to move" +
                           ("" if canonical == material else f" \u00b7 table {canonical}"))
            try:
                value = self.tablebase.probe(board)
                ranked = self.tablebase.ranked_moves(board)
            except MissingTableError as error:
                value_text.update(self._missing_text(material, str(error)))
            except TablebaseError as error:
                value_text.update(Text(error.user_text(), style="red"))
            else:
                self.value, self.ranked = value, ranked
                text = Text(describe(self.value, board.turn),
                            style="bold " + RESULT_STYLES[self.value.wdl])
                for line in rule_lines(self.value, board):
                    text.append("\n" + line)
                value_text.update(text)
        self._fill_moves()
        self._show_build_block()
        self._show_histogram()
        self.refresh_bindings()

    def _missing_text(self, material: Material, error: str) -> Text:
        """Which table is missing and what building it takes; sets :attr:`plan`."""
        pieces = material.piece_count()
        try:
            self.plan = plan_build(material, self.directory, self.threads)
        except TooLargeError as too_large:
            largest = self.tablebase.max_pieces()
            covered = f"the tables here have at most {largest} pieces" if largest else \
                "there are no tables here yet"
            return Text(f"{pieces} pieces: more than tables cover ({covered}); {too_large}.",
                        style="yellow")
        canonical = self.plan.material
        if not self.plan.missing:
            return Text(f"No value: {error}", style="red")
        others = [name for name in self.plan.names if name != canonical]
        if canonical in self.plan.names:
            text = f"No table for {canonical} in {self.directory}."
            if others:
                text += f" Its sub-tables {', '.join(others)} are missing too."
        else:
            text = (f"The table {canonical} is here but not its sub-tables {', '.join(others)}, "
                    "which value the captures.")
        threads = f"{self.threads} thread{'s' if self.threads != 1 else ''}"
        text += (f"\nBuilding takes {duration_text(self.plan.seconds, approximate=True)} on "
                 f"{threads} and about {memory_text(self.plan.memory)} of memory.")
        return Text(text)

    def _fill_moves(self) -> None:
        if not self._ready:
            return
        table = self.query_one("#tb-moves", DataTable)
        # Columns are made afresh each time, so their widths fit this position's cells (a
        # cleared table keeps the widths of the widest cells it ever had).
        table.clear(columns=True)
        table.add_columns(*MOVE_COLUMNS)
        table.display = self.value is not None and bool(self.ranked)
        if self.board is None:
            return
        for item in self.ranked:
            value = item.value
            style = "dim" if item.forbidden else RESULT_STYLES[value.wdl]
            table.add_row(
                Text(write_move(self.board, item.move, self.notation)),
                # A perpetual check the rule takes away: no value of its own to show.
                Text("forbidden" if item.forbidden else RESULT_CELLS[value.wdl], style=style),
                Text("长将" if item.forbidden else mate_column(value), style=style),
                Text("\u2014" if item.forbidden or value.dtc is None else str(value.dtc)),
                key=item.move.iccs())

    # -- the histogram ---------------------------------------------------------------------

    def _show_histogram(self) -> None:
        histogram = self.query_one(DtmHistogram)
        if not self.histogram_shown or self.board is None:
            return
        if self.value is None:
            histogram.show_message("DTM histogram: no table.")
            return
        material = Material.from_board(self.board)
        canonical = material.canonical()
        stats = self._stats.get(str(canonical))
        if stats is None:
            histogram.show_message(f"DTM histogram of {canonical}: counting\u2026")
            if self._stats_pending != str(canonical):
                self._stats_pending = str(canonical)
                self._read_stats(str(canonical))
            return
        # The table is stored for its canonical colours: Red there may be Black here.
        side = self.board.turn ^ (canonical != material)
        side_stats = stats[side]
        mover = COLOR_NAMES[self.board.turn]
        histogram.show_histogram(
            f"DTM of {canonical}, {mover} to move (positions)",
            side_stats.dtm_histogram, side_stats.draws,
            None if self.value.wdl == 0 else self.value.dtm)

    @work(thread=True, exclusive=True, group=STATS_GROUP, exit_on_error=False)
    def _read_stats(self, material: str) -> tuple[str, dict[int, SideStats]]:
        return material, table_stats(material, self.directory)

    # -- building --------------------------------------------------------------------------

    def _show_build_block(self) -> None:
        block = self.query_one("#tb-build")
        button = self.query_one("#tb-build-button", Button)
        bar = self.query_one("#tb-build-bar", ProgressBar)
        status = self.query_one("#tb-build-status", Static)
        plan = self.plan
        can_build = plan is not None and bool(plan.missing) and not self._building
        button.display = can_build
        if can_build and plan is not None:
            button.label = f"Build {plan.material} (B)"
        bar.display = self._building
        status.display = bool(self._build_note) or self._building
        if not self._building:
            status.update(self._build_note)
        block.display = can_build or self._building or bool(self._build_note)

    @on(Button.Pressed, "#tb-build-button")
    def _build_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_build()

    def action_build(self) -> None:
        """Build the missing table of the position (and its missing sub-tables)."""
        if self.plan is None or not self.plan.missing or self._building:
            return
        self._building = True
        self._cancel_build.clear()
        self._build_note = ""
        plan = self.plan
        self.query_one("#tb-build-bar", ProgressBar).update(total=max(plan.seconds, 1e-3),
                                                             progress=0)
        self.query_one("#tb-build-status", Static).update(
            f"Building {', '.join(plan.names)}: {duration_text(plan.seconds, approximate=True)}. "
            "x or Esc cancels at the end of the current pass.")
        self._show_build_block()
        self.refresh_bindings()
        self._build_in_thread(plan)

    def action_cancel_build(self) -> None:
        """Stop the build at its next pass; the unfinished table leaves no file behind."""
        if self._building:
            self._cancel_build.set()
            self.query_one("#tb-build-status", Static).update(
                "Cancelling at the end of the current pass\u2026")

    @work(thread=True, exclusive=True, group=BUILD_GROUP, exit_on_error=False)
    def _build_in_thread(self, plan: MaterialPlan) -> dict[str, Any]:
        tracker = _BuildTracker(self, plan, self._cancel_build)
        start = time.perf_counter()
        summary = build_plan(plan, self.directory, self.threads, tracker.log, tracker)
        return {"tables": summary, "seconds": time.perf_counter() - start}

    @on(_BuildProgress)
    def _build_progress(self, message: _BuildProgress) -> None:
        if self._building and not self._cancel_build.is_set():
            self.query_one("#tb-build-bar", ProgressBar).update(total=message.total,
                                                                 progress=message.done)
            self.query_one("#tb-build-status", Static).update(message.text)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.group not in (BUILD_GROUP, STATS_GROUP) or \
                event.state not in (WorkerState.SUCCESS, WorkerState.ERROR):
            return
        if worker.group == STATS_GROUP:
            self._stats_pending = None
            if event.state == WorkerState.SUCCESS:
                assert worker.result is not None    # (material, stats)
                material, stats = worker.result
                self._stats[material] = stats
                self._show_histogram()
            else:
                self.query_one(DtmHistogram).show_message(
                    f"DTM histogram unavailable: {worker.error}")
            return
        self._building = False
        error = worker.error
        if event.state == WorkerState.SUCCESS:
            assert worker.result is not None        # the build's summary
            built = ", ".join(worker.result["tables"]) or "nothing (the tables were there)"
            self._build_note = f"Built {built} in {worker.result['seconds']:.1f} s."
        elif isinstance(error, BuildCancelled):
            # self.plan is still the build's: its tables that exist now were finished.
            kept = finished_tables(self.plan, self.directory) if self.plan is not None else []
            finished = f"{', '.join(kept)} finished and kept; " if kept else ""
            self._build_note = (f"Build cancelled: {finished}the unfinished table left no "
                                "file.")
        elif isinstance(error, (BuildError, OSError)):
            self._build_note = f"Build failed: {error}"
        else:
            self._build_note = f"Build failed: {type(error).__name__}: {error}"
        self._refresh()

    # -- the user's keys -------------------------------------------------------------------

    @on(DataTable.RowSelected, "#tb-moves")
    def _row_chosen(self, event: DataTable.RowSelected) -> None:
        event.stop()
        iccs = event.row_key.value
        assert iccs is not None                 # rows are keyed by their move
        self.post_message(self.PlayMove(self, Move.from_iccs(iccs)))

    def action_play_best(self) -> None:
        """Play the first ranked move: the fastest win, else a draw, else the longest loss."""
        if self.ranked:
            self.post_message(self.PlayMove(self, self.ranked[0].move))

    def action_toggle_histogram(self) -> None:
        self.histogram_shown = not self.histogram_shown

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Disabled keys fall through to the host's bindings.
        if action == "play_best":
            return bool(self.ranked)
        if action == "build":
            return self.plan is not None and bool(self.plan.missing) and not self._building
        if action == "cancel_build":
            return self._building
        return True
