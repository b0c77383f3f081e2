"""``CatalogueScreen``: browse the kill patterns' examples and the compositions of the catalogue
(:mod:`puzzles.catalogue`), preview one, open it in analyse mode or practise it.

The filters -- full text (Chinese or English), pattern, collection, kind, verdict, the
attacker's pieces and the mate's length -- combine as in :func:`puzzles.catalogue.query`.
Every change runs the query again from its first page; SQLite answers in milliseconds, so
queries run on the UI thread.  Only opening the catalogue runs in a thread worker, because
its first use builds the database from the source files (``XQSTUDIO_CATALOGUE`` says where
it lives, see :mod:`puzzles.paths`).
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import sqlite_utils
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import DataTable, Header, Input, Select, Static
from textual.widgets.select import NoSelection
from textual.worker import Worker, WorkerState

from puzzles.catalogue import (
    CatalogueError,
    Entry,
    Page,
    PatternProgress,
    PatternSummary,
    draw_analysis,
    entry_progress,
    entry_reference,
    list_collections,
    list_patterns,
    next_puzzle,
    open_catalogue,
    pattern_progress,
    query,
    table_words,
)
from puzzles.sheet import heading
from puzzles.verification import TABLE_DRAW
from xiangqi import BLACK, Board, Move
from xiangqi.notation import write_move
from xiangqi.output import JsonObject, MissingExtraError

from ..diagram_export import export_diagram
from ..services import Material
from ..settings import Settings
from ..wide_text import WrappedText, display_width
from ..widgets.board import BoardView
from ..widgets.footer import FittingFooter
from ..widgets.status_line import SIDE_NAMES
from .draw_practice import DrawPracticeScreen
from .practice import PracticeScreen, numbered_words, plural
from .studio_screen import StudioScreen

PAGE_SIZE = 20
OPEN_GROUP = "catalogue-open"
KIND_MARKS = {"example": "例", "composition": "局", "practice": "练"}
STIPULATIONS = {"checks": "连照杀 mate by checks", "win": "先胜 to win", "draw": "先和 to draw"}
# Column keys and headers.  "✓": solved without help (a mastered pattern's name is marked so
# too), "·": solved with help.  Columns fit the page's cells.  Where the table is too narrow
# for all of them, the title takes what is left after the mark, kind, length and verdict
# (which are never cut) and wraps onto a second line, and the reference is reached by
# scrolling right, one column a press.
COLUMNS = (("done", "✓"), ("kind", "kind"), ("title", "title"), ("length", "length"),
           ("verdict", "verdict"), ("where", "reference"))
TITLE_FLOOR = 16                 # narrower than this, the title scrolls with the reference
CELL_PADDING = 2                 # DataTable's default: a cell of one space either side
# The verdict filter's classes, in this order, each matching the exact verdicts recorded
# (``catalogue verify`` writes them, see puzzles.catalogue): a class groups a verdict with
# its bounded forms ("mate within 10", "mate within 11", ...), so the filter stays short
# whatever bounds the catalogue holds.  A verdict no class matches falls under "other".
VERDICT_CLASSES = (
    ("mate", r"mate"),
    ("mate within N", r"mate within \d+"),
    ("no mate within N", r"no mate within \d+"),
    ("unproven", r"unproven( within \d+)?"),
    ("refuted", r"refuted( within \d+)?"),
    ("draw", r"draw( \(.*\))?"),
    ("table draw", r"table draw"),
    ("no win within N", r"no win within \d+"),
    ("Red or Black wins", r"(Red|Black) wins"),
    ("unverified", r"unverified"),
)
OTHER_VERDICTS = "other"


def verdict_class(verdict: str) -> str:
    """The class of the verdict filter that ``verdict`` belongs to."""
    for name, pattern in VERDICT_CLASSES:
        if re.fullmatch(pattern, verdict):
            return name
    return OTHER_VERDICTS


def verdict_classes(verdicts: Iterable[str]) -> dict[str, list[str]]:
    """The classes that ``verdicts`` fall in, in the filter's order, each with its exact
    verdicts (a class no verdict belongs to is left out)."""
    found: dict[str, list[str]] = {}
    for verdict in verdicts:
        found.setdefault(verdict_class(verdict), []).append(verdict)
    order = [name for name, _ in VERDICT_CLASSES] + [OTHER_VERDICTS]
    return {name: found[name] for name in order if name in found}


def entry_place(entry: Entry) -> str:
    """Where an entry belongs, as its reference: pattern and number (马后炮:2), or collection
    and the number printed in the book (适情雅趣:7) -- what ``xqstudio catalogue show`` and the
    search box read (:func:`puzzles.catalogue.entry_reference`)."""
    return entry_reference(entry)


def entry_length(entry: Entry, long: bool = False) -> str:
    """The length column: what is known of the length, in the units of the stipulation —
    ``mate in N``; a refuted composition's mate for the other side (``lost in 8``, in the
    preview ``Black mates in 8``); a draw study's drawing line (``21 plies``); "—" when no
    length is known (a win its own table shows drawn: the verdict column says "table draw")."""
    if entry.verdict.startswith("refuted") and entry.moves is not None:
        other = SIDE_NAMES[1 - Board(entry.fen).turn]
        exact = entry.verdict == "refuted"      # else "refuted within N"
        if long:
            return f"{other} mates in {'' if exact else 'at most '}{entry.moves}"
        return f"lost in {'' if exact else '≤'}{entry.moves}"
    if entry.verdict == TABLE_DRAW:
        return "a draw as set (its table)" if long else "—"
    if entry.moves is None:
        plies = len(entry.main_line_zh.split())
        if entry.stipulation == "draw" and plies:
            counted = plural(plies, "ply", "plies")
            return f"drawing line of {counted}" if long else counted
        return "—"
    return f"mate in {entry.moves}"


class ResultsTable(DataTable[str]):
    """The catalogue's results: Right and Left scroll sideways by a whole column."""

    BINDINGS = [
        Binding("right", "scroll_by_column(1)", "Next column", show=False),
        Binding("left", "scroll_by_column(-1)", "Previous column", show=False),
    ]

    def column_starts(self) -> list[int]:
        """The x offset at which each column starts."""
        starts, x = [], 0
        for column in self.ordered_columns:
            starts.append(x)
            x += column.get_render_width(self)
        return starts

    def action_scroll_by_column(self, direction: int) -> None:
        """Scroll so that the next (1) or previous (-1) column starts at the left edge."""
        here = round(self.scroll_x)
        starts = [x for x in self.column_starts() if x <= self.max_scroll_x] + [self.max_scroll_x]
        targets = [x for x in starts if x > here] if direction > 0 \
            else [x for x in starts if x < here]
        if not targets:
            self.app.bell()
            return
        self.scroll_to(x=min(targets) if direction > 0 else max(targets), animate=False)


class CatalogueScreen(StudioScreen[None]):
    """Search, filters and results, and the highlighted entry's board and description: side
    by side from 120 columns; below that the description below the list, and the board in
    place of the list while ``b`` shows it."""

    SUB_TITLE = "Catalogue"
    AUTO_FOCUS = "#catalogue-results"
    # The classes the layout in app.tcss keys on.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]

    BINDINGS = [
        # Below 120 columns only: the board takes the list's place, and gives it back.
        # First, so that the footer shows it at 80 columns.
        Binding("b", "show_board", "Board"),
        Binding("b", "show_list", "List"),
        Binding("enter", "open_in_analyse", "Open in analyse mode"),
        Binding("p", "practise", "Practise"),
        Binding("n", "next_puzzle", "Next puzzle"),
        Binding("slash", "focus_search", "Search"),
        Binding("d", "export_diagram", "Export diagram (SVG)", show=False),
        # While the board hides the list, Up and Down still move through the results.
        Binding("up", "move_cursor(-1)", "Previous entry", show=False),
        Binding("down", "move_cursor(1)", "Next entry", show=False),
        # Priority: over the results table's own page keys, which scroll within the page.
        # Out of the footer (at 80 columns it would push Help and Quit off the line); the
        # count line above the results names them, and help lists them.
        Binding("pagedown", "turn_page(1)", "Next page", priority=True, show=False),
        Binding("pageup", "turn_page(-1)", "Previous page", priority=True, show=False),
    ]

    class OpenInAnalyse(Message):
        """Show ``board`` in analyse mode as the start of a new line; ``stipulation`` is the
        entry's (a draw study opens the solver panel in its draw mode).  Posted to the app,
        which owns the modes: the screen does not know the app's class."""

        def __init__(self, board: Board, stipulation: str | None) -> None:
            super().__init__()
            self.board = board
            self.stipulation = stipulation

    def __init__(self, settings: Settings) -> None:
        super().__init__()
        self.settings = settings
        self.db: sqlite_utils.Database | None = None
        self.page: Page | None = None
        self.patterns: dict[str, PatternSummary] = {}
        self.progress: dict[str, PatternProgress] = {}
        self.solved: dict[tuple[str, int], tuple[int, int]] = {}
        self.verdict_classes: dict[str, list[str]] = {}   # the filter's: exact verdicts

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="catalogue-body"):
            with Vertical(id="catalogue-list"):
                yield Input(placeholder="/ Search 搜索: 马后炮, 卧槽, trough horse, 适情雅趣:7 …",
                            id="catalogue-search", compact=True)
                with Horizontal(classes="catalogue-filter-row"):
                    yield Select([], prompt="Pattern 杀法: all", id="catalogue-pattern",
                                 compact=True)
                    yield Select([], prompt="Collection: all", id="catalogue-collection",
                                 compact=True)
                with Horizontal(classes="catalogue-filter-row"):
                    yield Select([("例 examples", "example"),
                                  ("局 compositions", "composition"),
                                  ("练 practice", "practice")],
                                 prompt="Kind: all", id="catalogue-kind", compact=True)
                    yield Select([], prompt="Verdict: all", id="catalogue-verdict",
                                 compact=True)
                with Horizontal(classes="catalogue-filter-row"):
                    yield Input(placeholder="Pieces: 车马, RN", id="catalogue-pieces",
                                compact=True)
                    yield Input(placeholder="Min moves", id="catalogue-min-moves",
                                restrict=r"[0-9]*", max_length=3, compact=True)
                    yield Input(placeholder="Max moves", id="catalogue-max-moves",
                                restrict=r"[0-9]*", max_length=3, compact=True)
                yield Static("Opening the catalogue…", id="catalogue-count", markup=False)
                yield ResultsTable(id="catalogue-results", cursor_type="row",
                                   zebra_stripes=True)
            with Vertical(id="catalogue-preview"):
                yield BoardView(interactive=False, id="catalogue-board")
                with VerticalScroll(id="catalogue-description-scroll"):
                    yield Static(id="catalogue-description", markup=False)
        yield FittingFooter()

    def on_mount(self) -> None:
        self.query_one("#catalogue-board", BoardView).can_focus = False   # a picture only
        self._prepare_database()

    def on_unmount(self) -> None:
        if self.db is not None:
            self.db.close()

    # -- opening the database ----------------------------------------------------------------

    @work(thread=True, exclusive=True, group=OPEN_GROUP, exit_on_error=False)
    def _prepare_database(self) -> Path:
        """Build the catalogue if this is its first use.  The connection used afterwards is
        opened on the UI thread: an SQLite connection belongs to the thread that made it."""
        path = self.settings.catalogue
        open_catalogue(path).close()
        return path

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != OPEN_GROUP:
            return
        if event.state == WorkerState.SUCCESS:
            path = event.worker.result
            assert path is not None         # the worker returns the catalogue's path
            self._database_ready(path)
        elif event.state == WorkerState.ERROR:
            self._show_problem(f"The catalogue cannot be opened: {event.worker.error}")

    def _database_ready(self, path: Path) -> None:
        self.db = open_catalogue(path, build_if_missing=False)
        patterns = list_patterns(self.db)
        self.patterns = {pattern.id: pattern for pattern in patterns}
        collections = list_collections(self.db)
        self._show_pattern_options()
        self.query_one("#catalogue-collection", Select).set_options(
            (f"{collection.name} ({collection.compositions})", collection.name)
            for collection in collections)
        # Examples are all proven mates; the filter offers the classes of the verdicts there
        # are, and each row shows its exact verdict.
        verdicts = {"mate"}
        for collection in collections:
            verdicts.update(collection.verdicts)
        self.verdict_classes = verdict_classes(sorted(verdicts))
        self.query_one("#catalogue-verdict", Select).set_options(
            (name, name) for name in self.verdict_classes)
        self.run_query()

    def _show_pattern_options(self) -> None:
        """The pattern filter's choices, mastered patterns marked ✓, rated ones with the
        user's rating."""
        assert self.db is not None
        self.progress = pattern_progress(self.db)
        select = self.query_one("#catalogue-pattern", Select)
        chosen = select.value
        select.set_options(
            (f"{'✓ ' if self._mastered(pattern.id) else ''}{pattern.name_zh} {pattern.name_en}"
             f"{self._rating_words(pattern.id)}", pattern.id)
            for pattern in self.patterns.values())
        if not isinstance(chosen, NoSelection):
            with self.prevent(Select.Changed):
                select.value = chosen

    def _rating_words(self, pattern: str) -> str:
        progress = self.progress.get(pattern)
        rating = progress.rating if progress is not None else None
        return f" · {round(rating.rating)}" if rating is not None else ""

    def _mastered(self, pattern: str | None) -> bool:
        progress = self.progress.get(pattern) if pattern else None
        return progress is not None and progress.mastered

    def on_screen_resume(self) -> None:
        """Back from a practice: show the progress it made."""
        if self.db is not None:
            self._show_pattern_options()
            # The same page, the cursor on the same entry: ``p`` then practises the entry the
            # user left from (the cursor went back to the first row, another entry).
            self.run_query(self.page.offset if self.page is not None else 0, keep_cursor=True)

    # -- querying ----------------------------------------------------------------------------

    def filters(self) -> JsonObject:
        """The keyword arguments of :func:`puzzles.catalogue.query` the widgets ask for."""
        def chosen(selector: str) -> str | None:
            value = self.query_one(selector, Select).value
            return None if isinstance(value, NoSelection) else value

        def typed(selector: str) -> str | None:
            return self.query_one(selector, Input).value.strip() or None

        def number(selector: str) -> int | None:
            text = typed(selector)
            return None if text is None else int(text)

        verdict_class = chosen("#catalogue-verdict")
        return {"text": typed("#catalogue-search"), "pattern": chosen("#catalogue-pattern"),
                "collection": chosen("#catalogue-collection"), "kind": chosen("#catalogue-kind"),
                "verdict": None if verdict_class is None
                else tuple(self.verdict_classes.get(verdict_class, ())),
                "pieces": typed("#catalogue-pieces"),
                "min_moves": number("#catalogue-min-moves"),
                "max_moves": number("#catalogue-max-moves")}

    def run_query(self, offset: int = 0, keep_cursor: bool = False) -> None:
        """Show the page of results from ``offset`` that the filters select, the cursor on
        its first row (``keep_cursor``, or another page than the first: where it was)."""
        if self.db is None:
            return
        try:
            self.page = query(self.db, **self.filters(), limit=PAGE_SIZE, offset=offset)
        except CatalogueError as error:
            self._show_problem(str(error))
            return
        row = self.query_one("#catalogue-results", DataTable).cursor_row
        self.solved = entry_progress(self.db)
        self.progress = pattern_progress(self.db)
        self._fill_table(row if offset or keep_cursor else 0)
        count = self.query_one("#catalogue-count", Static)
        count.update(self._count_text())
        count.remove_class("-error")
        self._preview(self.highlighted())
        self.refresh_bindings()             # "b" shows a board only if there is an entry

    def _fill_table(self, cursor_row: int) -> None:
        """Show the page's entries, the columns sized for this page and the table's width,
        the cursor on ``cursor_row`` (the first row if the page has fewer)."""
        table = self.query_one("#catalogue-results", DataTable)
        entries = self.page.entries if self.page is not None else []
        rows = []
        for entry in entries:
            solved, clean = self.solved.get((entry.kind, entry.id), (0, 0))
            rows.append(("✓" if clean else "·" if solved else "", KIND_MARKS[entry.kind],
                         entry.title, entry_length(entry), entry.verdict, entry_place(entry)))
        widths = {key: max(display_width(cell) for cell in [label, *(row[index] for row in rows)])
                  for index, (key, label) in enumerate(COLUMNS)}
        room = table.size.width - table.styles.scrollbar_size_vertical
        if sum(width + CELL_PADDING for width in widths.values()) > room:
            beside_title = sum(width + CELL_PADDING for key, width in widths.items()
                               if key not in ("title", "where"))
            widths["title"] = min(widths["title"],
                                  max(TITLE_FLOOR, room - beside_title - CELL_PADDING))
        # Columns are made afresh each time: a cleared table keeps its widest cells' widths.
        table.clear(columns=True)
        for key, label in COLUMNS:
            table.add_column(label, width=widths[key], key=key)
        for entry, cells in zip(entries, rows):
            # A title wider than its column wraps: the row grows to show it whole.
            wraps = display_width(entry.title) > widths["title"]
            table.add_row(*cells[:2], WrappedText(Text(entry.title)) if wraps else entry.title,
                          *cells[3:], key=f"{entry.kind}:{entry.id}",
                          height=None if wraps else 1)
        if entries:
            table.move_cursor(row=cursor_row if 0 <= cursor_row < len(entries) else 0)

    def on_resize(self) -> None:
        """The title column takes the table's new width, known once the layout is redone."""
        self.refresh_bindings()     # "b" works below 120 columns only
        if self.app.size.width >= 120:
            # Side by side the board is always shown: back below 120, the list comes first.
            self.remove_class("-board-shown")

        def refill() -> None:
            if self.page is not None:
                self._fill_table(self.query_one("#catalogue-results", DataTable).cursor_row)
        self.call_after_refresh(refill)

    def _count_text(self) -> str:
        page = self.page
        if page is None or not page.total:
            return "0 of 0: nothing matches"
        last = page.offset + len(page.entries)
        pages = -(-page.total // PAGE_SIZE)
        return (f"{page.offset + 1}–{last} of {page.total} · page "
                f"{page.offset // PAGE_SIZE + 1}/{pages}" + (" (PgUp/PgDn)" if pages > 1 else ""))

    def _show_problem(self, message: str) -> None:
        self.page = None
        self.query_one("#catalogue-results", DataTable).clear()
        count = self.query_one("#catalogue-count", Static)
        count.update(message)
        count.add_class("-error")
        self._preview(None)

    def highlighted(self) -> Entry | None:
        """The entry under the table's cursor, or None when there are no results."""
        if self.page is None or not self.page.entries:
            return None
        row = self.query_one("#catalogue-results", DataTable).cursor_row
        return self.page.entries[row] if 0 <= row < len(self.page.entries) else None

    @on(Input.Changed)
    @on(Select.Changed)
    def filters_changed(self) -> None:
        self.run_query()

    @on(Input.Submitted)
    def go_to_results(self, event: Input.Submitted) -> None:
        """Enter in the search box opens the entry highlighted (up and down move the cursor
        from there), as Enter on the results does: a search was followed by a second Enter
        before anything opened.  In the other fields, and with no result, Enter goes to the
        results."""
        results = self.query_one("#catalogue-results", DataTable)
        results.focus()
        if event.input.id == "catalogue-search" and self.highlighted() is not None:
            self.action_open_in_analyse()

    # -- the preview -------------------------------------------------------------------------

    @on(DataTable.RowHighlighted, "#catalogue-results")
    def preview_highlighted(self) -> None:
        self._preview(self.highlighted())

    def _preview(self, entry: Entry | None) -> None:
        """Show ``entry``'s board and description; nothing at all when there is no entry."""
        board_view = self.query_one("#catalogue-board", BoardView)
        description = self.query_one("#catalogue-description", Static)
        self.query_one("#catalogue-preview").set_class(entry is None, "-empty")
        if entry is None:
            description.update("")
            return
        board = Board(entry.fen)
        board_view.set_board(board)
        description.update(WrappedText(self._describe(entry, board)))

    def _describe(self, entry: Entry, board: Board) -> Text:
        """The entry's title, stipulation, solution (Chinese notation), description, source."""
        text = Text()
        text.append(entry.title, style="bold")
        pattern = self.patterns.get(entry.pattern) if entry.pattern else None
        if pattern is not None:
            text.append(f" · {pattern.name_en}")
        stipulation = STIPULATIONS.get(entry.stipulation, entry.stipulation)
        text.append(f"\n{SIDE_NAMES[board.turn]} to move · {stipulation} · "
                    f"{entry_length(entry, long=True)}")
        text.append(f"\nVerdict: {entry.verdict_text} · {entry_reference(entry)} (id {entry.id})")
        shown = [self.patterns[p].name_zh if p in self.patterns else p
                 for p in entry.shows if p != entry.pattern]
        if shown:
            # The patterns the recogniser reads in the line (an example's own label aside).
            text.append(f"\n{'Also shows' if entry.pattern else 'Shows'}: {'、'.join(shown)}")
        progress = self.progress.get(pattern.id) if pattern is not None else None
        if progress is not None:
            text.append(f"\n{self._progress_words(progress)}",
                        style="bold green" if progress.mastered else "")
        analysis = draw_analysis(self.db, entry) if self.db is not None else None
        if analysis is not None:
            settled = analysis["settled_by"]
            text.append(f"\nSettled by: {settled}" if settled not in ("", "-")
                        else "\nNot settled within the analysis's budget")
            material = str(Material.from_board(board).canonical())
            text.append(f" ({table_words(material, analysis['table'])})")
            for trap in analysis["traps"][:4]:
                move = write_move(board, Move.from_iccs(trap["move"]), "chinese")
                after = board.copy(stack=False)
                after.push(Move.from_iccs(trap["move"]))
                refutation = write_move(after, Move.from_iccs(trap["refutation"]), "chinese") \
                    if trap["refutation"] else "-"
                text.append(f"\nTrap: {move}, refuted by {refutation} (mate in "
                            f"{trap['length']})")
        if entry.main_line_zh:
            solution = numbered_words(entry.main_line_zh.split(), board.turn == BLACK)
            label = ("Drawing line" if entry.stipulation == "draw" else
                     "Refutation (the longest resistance)" if entry.verdict.startswith("refuted")
                     else "Solution")
            end = f" ({analysis['line_end']})" if analysis is not None else ""
            text.append(f"\n{label}{end}: {solution}")
        if pattern is not None:
            text.append(f"\n{pattern.description_zh}\n{pattern.description_en}", style="dim")
        if entry.note:
            text.append(f"\n{entry.note}")
        if entry.source:
            text.append(f"\nSource: {entry.source}", style="dim")
        return text

    @staticmethod
    def _progress_words(progress: PatternProgress) -> str:
        """``Progress: 2 of 3 solved (1 without help) · 4 wrong tries · 1 hint``, then
        ``Practice: 3 of 88 positions tried (2 clean) · your rating 1612 ± 134 (5 results)``."""
        words = (f"Progress: {progress.solved} of {progress.examples} solved "
                 f"({progress.clean} without help) · {progress.tries} wrong "
                 f"{'try' if progress.tries == 1 else 'tries'} · {progress.hints} "
                 f"{'hint' if progress.hints == 1 else 'hints'}")
        if progress.solutions:
            words += f" · {progress.solutions} solution{'s' if progress.solutions > 1 else ''}"
        words += " · ✓ mastered" if progress.mastered else ""
        if progress.practice:
            words += (f"\nPractice: {progress.drilled} of {progress.practice} positions tried "
                      f"({progress.drilled_clean} clean)")
        if progress.rating is not None:
            words += (f" · your rating {progress.rating} ({progress.rating.games} "
                      f"result{'s' if progress.rating.games != 1 else ''})")
        return words

    # -- actions -----------------------------------------------------------------------------

    @on(DataTable.RowSelected, "#catalogue-results")
    def open_selected(self) -> None:
        self.action_open_in_analyse()

    def action_open_in_analyse(self) -> None:
        """Open the highlighted entry's position in analyse mode."""
        entry = self.highlighted()
        if entry is None:
            self.app.bell()
            return
        self.post_message(self.OpenInAnalyse(Board(entry.fen), entry.stipulation))

    def action_practise(self) -> None:
        """Play the highlighted entry's attacker against the studio's defence (a draw study:
        hold the draw against the studio's resistance)."""
        entry = self.highlighted()
        if entry is None:
            self.app.bell()
            return
        practice = DrawPracticeScreen if entry.stipulation == "draw" else PracticeScreen
        self.app.push_screen(practice(entry, self.settings))

    def action_next_puzzle(self) -> None:
        """Practise the next kill-pattern example: from the patterns not mastered first."""
        entry = None if self.db is None else next_puzzle(self.db)
        if entry is None:
            self.app.bell()
            return
        self.app.push_screen(PracticeScreen(entry, self.settings))

    def action_export_diagram(self) -> None:
        """Write the highlighted entry's diagram, titled, as an SVG file and say where."""
        entry = self.highlighted()
        if entry is None:
            self.app.bell()
            return
        try:
            path = export_diagram(Board(entry.fen), f"xqstudio-{entry.kind}-{entry.id}",
                                  self.settings.diagrams, title=heading(entry))
        except (MissingExtraError, OSError) as error:
            self.notify(str(error), title="No diagram written", severity="error",
                        markup=False)
            return
        self.notify(str(path), title="Diagram written", markup=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``b`` works below 120 columns only, as "Board" while the list shows and as "List"
        while the board does."""
        if action in ("show_board", "show_list"):
            if action == "show_board" and self.highlighted() is None:
                return False                # no entry, no board to show
            return self.has_class("-narrow") and \
                self.has_class("-board-shown") == (action == "show_list")
        return True

    def action_show_board(self) -> None:
        self.add_class("-board-shown")
        # The screen takes the keys (not the search box the focus would move on to), so
        # that Up and Down move through the hidden results and b brings them back.
        self.set_focus(None)
        self.refresh_bindings()

    def action_show_list(self) -> None:
        self.remove_class("-board-shown")
        self.refresh_bindings()
        table = self.query_one("#catalogue-results", DataTable)
        table.focus()
        self.on_resize()            # the table was hidden: size its columns again

    def action_move_cursor(self, step: int) -> None:
        """Up and Down where the results table does not have them (its board is shown)."""
        table = self.query_one("#catalogue-results", DataTable)
        if table.row_count:
            table.move_cursor(row=max(0, min(table.row_count - 1, table.cursor_row + step)))

    def action_focus_search(self) -> None:
        if self.has_class("-board-shown"):
            self.action_show_list()         # the search box is in the list's part
        self.query_one("#catalogue-search", Input).focus()

    def action_turn_page(self, direction: int) -> None:
        """The next (1) or previous (-1) page of results."""
        page = self.page
        offset = None if page is None else page.offset + direction * PAGE_SIZE
        if page is None or offset is None or not 0 <= offset < page.total:
            self.app.bell()
            return
        self.run_query(offset)
