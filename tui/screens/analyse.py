"""``AnalyseScreen``: play through a line on the board, take moves back, copy and paste FENs.

The screen keeps the position the line starts from, the line (a list of moves) and the ply
shown.  A move entered at an earlier ply that differs from the line's next move replaces the
rest of the line.

Side panels: ``#side-panels`` is a :class:`tui.widgets.side_panels.SidePanels` (a
``TabbedContent``) on the right with a "1 Position" tab (each tab's label starts with its
key).  Add a panel with
``screen.query_one("#side-panels", TabbedContent).add_pane(TabPane(...))``; a panel
follows the position shown with ``self.watch(self.screen, "board", callback)`` (the reactive
``board`` is a fresh copy each time, so it may be kept or changed freely).
"""
from __future__ import annotations

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.reactive import var
from textual.widgets import Header, TabPane

from xiangqi import Board, Move
from xiangqi.output import MissingExtraError
from xiangqi.rules import RULESETS, natural_limit

from ..diagram_export import export_diagram
from ..repetition import announce, judge, status_note
from ..settings import Settings
from ..widgets.board import BoardView
from ..widgets.footer import FittingFooter
from ..widgets.move_list import NOTATION_TITLES, MoveList
from ..widgets.position_panel import PositionPanel
from ..widgets.side_panels import SidePanels
from ..widgets.solver_panel import SolverPanel
from ..widgets.status_line import StatusLine
from ..widgets.tablebase_panel import TablebasePanel
from .fen_dialog import FenDialog
from .studio_screen import StudioScreen


class AnalyseScreen(StudioScreen[None]):
    """The board, the move list, the status line and the side panels."""

    SUB_TITLE = "Analyse"
    AUTO_FOCUS = "#board"

    BINDINGS = [
        Binding("u,backspace", "take_back", "Take back"),
        Binding("left_square_bracket,pageup", "step(-1)", "Back"),
        Binding("right_square_bracket,pagedown", "step(1)", "Forward"),
        Binding("home", "go_to(0)", "To the start", show=False),
        Binding("end", "go_to_end", "To the end", show=False),
        Binding("n", "cycle_notation", "Notation"),
        Binding("c", "copy_fen", "Copy FEN"),
        Binding("m", "copy_moves", "Copy moves", show=False),
        Binding("p", "paste_fen", "Paste FEN"),
        Binding("e", "app.set_up_position", "Set up"),
        Binding("r", "cycle_rules", "Rules", show=False),
        Binding("z", "zoom_panel", "Zoom panel"),
        Binding("d", "export_diagram", "Export diagram (SVG)", show=False),
        # The side panels' tabs (also: Tab to the tab bar, then ← →).
        Binding("1", "show_tab('position-tab')", "Side panel: Position tab", show=False),
        Binding("2", "show_tab('tablebase-tab')", "Side panel: Tablebase tab", show=False),
        Binding("3", "show_tab('solver-tab')", "Side panel: Solver tab", show=False),
    ]

    board: var[Board] = var(Board, always_update=True)
    """The position shown (a copy); side panels watch it."""

    def __init__(self, board: Board | None, settings: Settings) -> None:
        super().__init__()
        self.settings = settings
        self._root = Board() if board is None else board.copy(stack=False)
        self._line: list[Move] = []
        self._ply = 0
        self.rules = "chinese"      # the repetition rule set: chinese or asian
        self._announced: tuple[object, ...] | None = None
        self._solver_mode: str | None = None   # a catalogue entry's, for the solver panel

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="analyse-body"):
            yield BoardView(self._root, id="board")
            with Vertical(id="analyse-side"):
                yield StatusLine(id="status")
                yield MoveList(id="move-list")
                # Each tab's label starts with the key that shows it (the 1 2 3 bindings).
                with SidePanels(id="side-panels"):
                    with TabPane("1 Position", id="position-tab"):
                        yield PositionPanel(id="position-panel")
                    with TabPane("2 Tablebase", id="tablebase-tab"):
                        yield TablebasePanel(self.settings.tables, id="tablebase-panel")
                    with TabPane("3 Solver", id="solver-tab"):
                        yield SolverPanel(self.settings.tables, id="solver-panel")
        yield FittingFooter()

    def on_mount(self) -> None:
        self._show()

    # -- the line ----------------------------------------------------------------------------

    @property
    def line(self) -> list[Move]:
        """The moves of the line, from the starting position."""
        return list(self._line)

    @property
    def ply(self) -> int:
        """How many moves of the line lead to the position shown."""
        return self._ply

    @property
    def start_board(self) -> Board:
        """The position the line starts from."""
        return self._root.copy()

    def load_position(self, board: Board, stipulation: str | None = None) -> None:
        """Start a new line from ``board`` (its move stack is dropped); a ``stipulation``
        ("checks", "win" or "draw", a catalogue entry's) sets the solver panel's mode."""
        if stipulation is not None:     # applied by _show (the panel may not exist yet)
            self._solver_mode = {"checks": "checks", "draw": "draw"}.get(stipulation, "any")
        self._root = board.copy(stack=False)
        self._line = []
        self._ply = 0
        self._show()

    def _board_at_ply(self) -> Board:
        board = self._root.copy()
        for move in self._line[:self._ply]:
            board.push(move)
        return board

    def _show(self) -> None:
        """Bring the board, move list, status and panels to the current ply."""
        try:
            board_view = self.query_one("#board", BoardView)
        except NoMatches:       # not composed yet: on_mount shows the position
            return
        board = self._board_at_ply()
        last_move = self._line[self._ply - 1] if self._ply else None
        board_view.set_board(board, last_move)
        board_view.interactive = True
        move_list = self.query_one("#move-list", MoveList)
        move_list.set_line(self._root, self._line, self._ply)
        move_list.border_title = f"Moves · {NOTATION_TITLES[move_list.notation]}"
        self._show_status(board)
        self.query_one("#position-panel", PositionPanel).show_position(board)
        for panel in (self.query_one("#tablebase-panel", TablebasePanel),
                      self.query_one("#solver-panel", SolverPanel)):
            panel.notation = move_list.notation
            panel.show_position(board)
        solver_panel = self.query_one("#solver-panel", SolverPanel)
        solver_panel.rules = self.rules
        if self._solver_mode is not None:
            solver_panel.mode, self._solver_mode = self._solver_mode, None
        self.board = board

    def _repetition_note(self, board: Board) -> str:
        """A short note on a repeated position (棋例) or the natural limit; a forbidden
        repetition is also announced once with its verdict."""
        verdict = judge(board, self.rules, min_occurrences=2)
        if verdict is not None:
            key = (self._ply, verdict.cycle.occurrences, self.rules)
            if verdict.cycle.occurrences >= 3 and self._announced != key:
                self._announced = key
                announce(self, verdict)
            return status_note(verdict)
        limit = natural_limit(board, rules=self.rules)
        if limit.reached:
            return "60-move limit reached (自然限着)"
        return ""

    @on(TablebasePanel.PlayMove)
    def play_tablebase_move(self, event: TablebasePanel.PlayMove) -> None:
        self.play_move(event)

    @on(SolverPanel.ShowLine)
    def preview_solver_line(self, event: SolverPanel.ShowLine) -> None:
        """Show a step of the solver's line; the board takes no moves during the preview, and
        the status line says which step of the line is shown."""
        board_view = self.query_one("#board", BoardView)
        board_view.set_board(event.board, event.last_move)
        board_view.interactive = event.last_move is None
        status = self.query_one("#status", StatusLine)
        if event.step:
            status.show_position(event.board, f"solver line {event.step}/{event.length} "
                                              "(preview; g or Enter plays it)")
        else:
            self._show()

    @on(SolverPanel.PlayLine)
    def play_solver_line(self, event: SolverPanel.PlayLine) -> None:
        """Play the solver's line (up to the step shown) from the position shown."""
        if event.board != self._board_at_ply():
            self.notify("The solver's line belongs to another position.", severity="warning")
            return
        for move in event.moves:
            if self._ply < len(self._line) and self._line[self._ply] == move:
                self._ply += 1
            else:
                self._line = self._line[:self._ply] + [move]
                self._ply += 1
        self._show()

    def _show_status(self, board: Board) -> None:
        """The status line at ``board``: the ply, and the repetition if there is one."""
        detail = f"ply {self._ply}/{len(self._line)}"
        repetition = self._repetition_note(board)
        self.query_one("#status", StatusLine).show_position(
            board, f"{detail} · {repetition}" if repetition else detail)

    @on(BoardView.Refused, "#board")
    def explain_refusal(self, event: BoardView.Refused) -> None:
        """A point that selects nothing, or a target the piece cannot reach: say why in the
        status line (until the next pick, move or step)."""
        self.query_one("#status", StatusLine).show_position(self._board_at_ply(), event.reason)

    @on(BoardView.SelectionChanged, "#board")
    def forget_refusal(self) -> None:
        """A piece picked or put down: the reason an earlier pick was refused goes."""
        self._show_status(self._board_at_ply())

    @on(BoardView.MoveEntered, "#board")
    def play_move(self, event: BoardView.MoveEntered | TablebasePanel.PlayMove) -> None:
        """Follow the line if the move is its next one, otherwise replace the rest."""
        if self._ply < len(self._line) and self._line[self._ply] == event.move:
            self._ply += 1
        else:
            self._line = self._line[:self._ply] + [event.move]
            self._ply += 1
        self._show()

    @on(MoveList.PlySelected)
    def jump_to_ply(self, event: MoveList.PlySelected) -> None:
        self.action_go_to(event.ply)

    # -- actions -----------------------------------------------------------------------------

    def action_take_back(self) -> None:
        """Drop the move that led to the position shown (and the moves after it)."""
        if not self._ply:
            self.app.bell()
            return
        self._ply -= 1
        self._line = self._line[:self._ply]
        self._show()

    def action_step(self, delta: int) -> None:
        self.action_go_to(self._ply + delta)

    def action_go_to(self, ply: int) -> None:
        ply = min(max(ply, 0), len(self._line))
        if ply != self._ply:
            self._ply = ply
            self._show()

    def action_go_to_end(self) -> None:
        self.action_go_to(len(self._line))

    def action_cycle_notation(self) -> None:
        notation = self.query_one("#move-list", MoveList).cycle_notation()
        self._show()
        self.notify(f"Notation: {NOTATION_TITLES[notation]}", timeout=2)

    def action_cycle_rules(self) -> None:
        """Switch the repetition rules between the Chinese and the Asian rule sets."""
        names = list(RULESETS)
        self.rules = names[(names.index(self.rules) + 1) % len(names)]
        self._announced = None
        self._show()
        self.notify(f"Repetition rules: {RULESETS[self.rules].title}", timeout=3)

    # -- the panels' actions, for the command palette -----------------------------------------

    def _run_in_panel(self, tab: str, panel_id: str, action: str) -> None:
        """Show the panel's tab and run ``action`` there (``action_<action>`` of the panel)."""
        self.query_one("#side-panels", SidePanels).active = tab
        panel = self.query_one(f"#{panel_id}")
        if panel.check_action(action, ()) is False:
            self.app.bell()
            return
        getattr(panel, f"action_{action}")()

    def action_solve(self) -> None:
        self._run_in_panel("solver-tab", "solver-panel", "solve")

    def action_verify(self) -> None:
        self._run_in_panel("solver-tab", "solver-panel", "verify")

    def action_solver_mode(self) -> None:
        self._run_in_panel("solver-tab", "solver-panel", "toggle_mode")

    def action_solver_bound(self) -> None:
        self._run_in_panel("solver-tab", "solver-panel", "edit_bound")

    def action_solver_budget(self) -> None:
        self._run_in_panel("solver-tab", "solver-panel", "edit_budget")

    def action_build_table(self) -> None:
        self._run_in_panel("tablebase-tab", "tablebase-panel", "build")

    def action_toggle_histogram(self) -> None:
        self._run_in_panel("tablebase-tab", "tablebase-panel", "toggle_histogram")

    def action_show_tab(self, tab: str) -> None:
        """Show a side panel's tab, the focus in its panel so that the panel's keys work;
        the position panel takes no keys: the focus stays where it was, or goes back to the
        board from the panel hidden."""
        panels = self.query_one("#side-panels", SidePanels)
        panels.active = tab

        def focus_panel() -> None:          # once the tab's pane is shown
            panel = panels.active_panel()
            if panel is not None and panel.focusable:
                panel.focus()
            elif self.focused is None or not self.focused.focusable:
                self.query_one("#board", BoardView).focus()
        self.call_after_refresh(focus_panel)

    def action_zoom_panel(self) -> None:
        """Show the active side panel over the whole screen, or back in its place (Esc also
        puts it back)."""
        if self.maximized is not None:
            self.minimize()
            return
        pane = self.query_one("#side-panels", SidePanels).active_pane
        if pane is None or not pane.children:
            return
        panel = pane.children[0]
        if panel.allow_maximize:
            self.maximize(panel, container=False)
            panel.focus()

    def action_flip_board(self) -> None:
        self.query_one("#board", BoardView).action_flip()

    def action_copy_fen(self) -> None:
        fen = self._board_at_ply().fen()
        self.app.copy_to_clipboard(fen)
        self.notify(fen, title="Copied the FEN", markup=False)

    def action_copy_moves(self) -> None:
        text = self.query_one("#move-list", MoveList).line_text()
        if not text:
            self.notify("There are no moves to copy yet.", severity="warning")
            return
        self.app.copy_to_clipboard(text)
        self.notify(text, title="Copied the moves", markup=False)

    def action_export_diagram(self) -> None:
        """Write the position shown as an SVG diagram (flipped as the board is) and say
        where in the status line."""
        board = self._board_at_ply()
        flipped = self.query_one("#board", BoardView).flipped
        try:
            path = export_diagram(board, "xqstudio-diagram", self.settings.diagrams,
                                  flipped=flipped)
        except (MissingExtraError, OSError) as error:
            self.notify(str(error), title="No diagram written", severity="error",
                        markup=False)
            return
        self.query_one("#status", StatusLine).show_position(board, f"diagram written to {path}")

    def action_paste_fen(self, text: str = "") -> None:
        """Ask for a FEN (``text`` pre-filled) and open it."""
        def opened(board: Board | None) -> None:
            if board is not None:
                self.load_position(board)
        self.app.push_screen(FenDialog(text), opened)

    def on_paste(self, event: events.Paste) -> None:
        """Text pasted into the terminal over the board opens the FEN dialog with it."""
        event.stop()
        self.action_paste_fen(event.text.strip())
