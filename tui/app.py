"""``XQStudioApp``: the Textual studio.

Modes (``App.MODES``): each mode has its own screen stack, switched with ``app.switch_mode``.

* ``catalogue`` (:class:`tui.screens.catalogue.CatalogueScreen`), the start mode when the
  app is given no position: browse the kill patterns and compositions (F2);
* ``analyse`` (:class:`tui.screens.analyse.AnalyseScreen`), built from the position given
  to the app (the start position by default), and the start mode when a FEN is given (F3).

Screens pushed on the current mode: the practice screen (``p`` in the catalogue, F4 or
"Practise this position" in the palette; a draw study, or analyse mode with the solver panel
in its draw mode, gets the draw practice, :mod:`tui.screens.draw_practice`), whose Escape
goes back to where it came from; the
set-up editor (``e``, or "Set up position" in the palette), whose accepted position opens in
analyse mode; the FEN dialog; the help screen (``?``/F1).

Adding a mode (as ``catalogue`` was added):

1. write a :class:`textual.screen.Screen` subclass that takes the studio's
   :class:`tui.settings.Settings` (its only way to the table directory, the catalogue ...);
2. add it in :meth:`XQStudioApp.__init__`
   (``self.add_mode("catalogue", lambda: CatalogueScreen(self.settings))``);
3. give it a way in: a binding in :attr:`XQStudioApp.BINDINGS` such as
   ``Binding("f5", "switch_mode('library')", "Library")`` and/or a
   :class:`tui.commands.StudioCommand` appended to ``STUDIO_COMMANDS``;
4. add its screen class to :attr:`XQStudioApp.HELP_SECTIONS` so its keys are in the help;
5. to show a position from it, post a message that the app handles with
   :meth:`XQStudioApp.open_in_analyse`, as :class:`CatalogueScreen.OpenInAnalyse` does
   (screens do not import the app: it imports them).
"""
from __future__ import annotations

from typing import Any, ClassVar

from textual import events, on
from textual.actions import parse as parse_action
from textual.app import App
from textual.binding import Binding, BindingType
from textual.command import CommandPalette
from textual.css.query import NoMatches
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widget import AwaitMount, Widget
from textual.worker import WorkerFailed

from xiangqi import Board

from .commands import StudioCommands
from .screens.analyse import AnalyseScreen
from .screens.catalogue import CatalogueScreen, ResultsTable
from .screens.draw_practice import DrawPracticeScreen
from .screens.fen_dialog import FenDialog
from .screens.help import HelpScreen, HelpSection
from .screens.practice import PracticeScreen
from .screens.setup import SetupScreen
from .screens.too_small import MIN_HEIGHT, MIN_WIDTH, TooSmallScreen
from .settings import Settings
from .wide_text import keep_wide_characters_whole
from .widgets.board import BoardView
from .widgets.solver_panel import SolverPanel
from .widgets.tablebase_panel import TablebasePanel

# Before any screen is drawn: Chinese text in drop-down lists and notifications stays whole.
keep_wide_characters_whole()

ANALYSE_MODE = "analyse"
CATALOGUE_MODE = "catalogue"


def _works_now(binding: Binding, screen: Screen[object]) -> bool:
    """Whether the screen's ``check_action`` lets ``binding`` act now: the catalogue's ``b``
    shows the board below 120 columns only."""
    _, action, parameters = parse_action(binding.action)
    return screen.check_action(action, parameters) is not False


def _taken_by_screen(binding: Binding, screen_keys: dict[str, Binding]) -> bool:
    """Whether a priority binding of the screen (or the app) takes the key of a widget's
    ``binding``."""
    taken = screen_keys.get(binding.key)
    return taken is not None and taken.priority


class XQStudioApp(App[None]):
    """The studio: the catalogue, analyse mode, practice, the set-up editor, help and the
    command palette."""

    TITLE = "XQ Studio"
    CSS_PATH = "app.tcss"
    COMMANDS = App.COMMANDS | {StudioCommands}

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark,f1", "show_help", "Help"),
        Binding("ctrl+q", "quit", "Quit", priority=True),
        # Not in the footer (the analyse footer is full); listed by help and the palette.
        Binding("f2", "browse_catalogue", "Catalogue", show=False),
        Binding("f3", "switch_mode('analyse')", "Analyse", show=False),
        Binding("f4", "practise_position", "Practise this position", show=False),
    ]

    HELP_SECTIONS: ClassVar[list[tuple[str, type[DOMNode]]]] = [
        ("Board", BoardView),
        ("Catalogue", CatalogueScreen),
        ("Catalogue results", ResultsTable),
        ("Practice", PracticeScreen),
        ("Draw practice (和)", DrawPracticeScreen),
        ("Analyse", AnalyseScreen),
        ("Tablebase panel (its tab: 2)", TablebasePanel),
        ("Solver panel (its tab: 3)", SolverPanel),
        ("Set-up editor", SetupScreen),
        ("FEN dialog", FenDialog),
        ("Help", HelpScreen),
    ]
    """Titles and classes whose ``BINDINGS`` the help screen lists, after the app's own."""

    _quitting = False

    async def action_quit(self) -> None:
        """Quit.  A command palette still searching is stopped first: its search worker
        would otherwise look for its result list after the screens are gone."""
        self._quitting = True
        for screen in self.screen_stack:
            if isinstance(screen, CommandPalette):
                self.workers.cancel_node(screen)
        self.exit()

    def exit(self, *args: Any, **kwargs: Any) -> None:
        self._quitting = True
        super().exit(*args, **kwargs)

    def _handle_exception(self, error: Exception) -> None:
        # A palette search that was already past its cancellation check when the app began
        # to close finds its widgets gone (WorkerFailed: NoMatches('CommandList')): nothing
        # is lost by quitting without it.
        if self._quitting and isinstance(error, WorkerFailed) and \
                isinstance(error.error, NoMatches) and "CommandList" in str(error.error):
            return
        super()._handle_exception(error)

    def __init__(self, fen: str | None = None, start_mode: str | None = None,
                 settings: Settings | None = None) -> None:
        """``fen``: the position analyse mode starts from (default: the start position);
        raises :class:`xiangqi.FenError` before anything is drawn if it is not legal.
        ``start_mode``: the mode shown first; by default analyse when a FEN is given, the
        catalogue otherwise.  ``settings``: the table directory, the catalogue and the
        diagrams' directory that every screen uses (default: from the environment)."""
        super().__init__()
        self.settings = settings or Settings.resolve()
        self.start_board = Board() if fen is None else Board(fen)
        self.start_mode = start_mode or (CATALOGUE_MODE if fen is None else ANALYSE_MODE)
        self.analyse_screen: AnalyseScreen | None = None
        self.add_mode(CATALOGUE_MODE, lambda: CatalogueScreen(self.settings))
        self.add_mode(ANALYSE_MODE, self._new_analyse_screen)

    def _new_analyse_screen(self) -> AnalyseScreen:
        self.analyse_screen = AnalyseScreen(self.start_board, self.settings)
        return self.analyse_screen

    def on_mount(self) -> None:
        self.switch_mode(self.start_mode)
        self.call_after_refresh(self._check_size)

    # -- the minimum size --------------------------------------------------------------------

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self._check_size)

    def _check_size(self) -> None:
        """Cover the screen with the "window too small" message below 80×24, and take it
        away once the terminal is large enough again."""
        width, height = self.size
        small = width < MIN_WIDTH or height < MIN_HEIGHT
        screen = self.screen if self.screen_stack else None
        if isinstance(screen, TooSmallScreen):
            if small:
                screen.show_size(width, height)
            else:
                self.pop_screen()
        elif small and screen is not None:
            self.push_screen(TooSmallScreen(width, height))

    # -- opening positions -------------------------------------------------------------------

    def _show_analyse(self) -> AnalyseScreen:
        """Switch to analyse mode and close any screen over its board."""
        self.switch_mode(ANALYSE_MODE)
        while len(self.screen_stack) > 1:
            self.pop_screen()
        assert self.analyse_screen is not None    # created by switch_mode
        return self.analyse_screen

    def open_in_analyse(self, board: Board, stipulation: str | None = None) -> None:
        """Show ``board`` in analyse mode, as the start of a new line (``stipulation``: a
        catalogue entry's, which sets the solver panel's mode: a draw study opens in 和)."""
        self._show_analyse().load_position(board, stipulation)

    @on(CatalogueScreen.OpenInAnalyse)
    def _open_catalogue_entry(self, message: CatalogueScreen.OpenInAnalyse) -> None:
        self.open_in_analyse(message.board, message.stipulation)

    def switch_mode(self, mode: str) -> AwaitMount:
        """Switch to ``mode``; leaving analyse mode cancels its solver's search (a search the
        user cannot see would go on using the CPU; the panel says why it stopped)."""
        if mode != ANALYSE_MODE and self.current_mode == ANALYSE_MODE and \
                self.analyse_screen is not None:
            for panel in self.analyse_screen.query(SolverPanel):
                panel.leave(f"the {mode}")
        return super().switch_mode(mode)

    def action_browse_catalogue(self) -> None:
        """Show the catalogue's list (closing any practice over it)."""
        self.switch_mode(CATALOGUE_MODE)
        while len(self.screen_stack) > 1:
            self.pop_screen()

    def action_practise_position(self) -> None:
        """Practise the catalogue entry highlighted, or the position analyse mode shows."""
        screen = self.screen
        if isinstance(screen, CatalogueScreen):
            screen.action_practise()
        elif isinstance(screen, AnalyseScreen):
            # The solver panel in its draw mode (和): hold the draw of the position.
            panel = screen.query_one("#solver-panel", SolverPanel)
            drawing = panel.mode == "draw"
            panel.leave("practice")
            self.push_screen(DrawPracticeScreen(screen.board, self.settings) if drawing
                             else PracticeScreen(screen.board, self.settings))
        else:
            self.bell()

    def action_new_game(self) -> None:
        self.open_in_analyse(Board())

    def action_paste_fen(self) -> None:
        self._show_analyse().action_paste_fen()

    def action_set_up_position(self) -> None:
        """Open the set-up editor on the position analyse mode shows."""
        if isinstance(self.screen, SetupScreen):
            return
        board = self.analyse_screen.board if self.analyse_screen else self.start_board
        self.push_screen(SetupScreen(board), self._setup_closed)

    def _setup_closed(self, board: Board | None) -> None:
        if board is not None:
            self.open_in_analyse(board)

    # -- help --------------------------------------------------------------------------------

    def help_sections(self, screen: Screen[object] | None = None) -> list[HelpSection]:
        """The keys that work on ``screen`` (default: the screen shown), by section, taken
        from the ``BINDINGS`` of its class and of the widgets on it that take the focus, and
        always the studio's own and the help's.  A key the screen's ``check_action`` turns off
        just now is left out.  A widget's key is left out where a priority
        binding of the screen or the app takes it (practice's ``h`` Hint over the board's vi
        key), and a widget with a ``help_bindings()`` method says which of its keys work as
        it is set up (a board that moves no pieces leaves h j k l, Enter and Escape to the
        set-up editor)."""
        screen = self.screen if screen is None else screen
        studio = [*self.BINDINGS,
                  Binding(self.COMMAND_PALETTE_BINDING, "command_palette", "Command palette")]
        screen_keys = {binding.key: binding
                       for binding in Binding.make_bindings([*self.BINDINGS, *screen.BINDINGS])}
        sections: list[HelpSection] = [("Studio", studio)]
        for title, node_class in self.HELP_SECTIONS:
            if node_class is HelpScreen:
                continue
            if isinstance(screen, node_class):
                sections.append((title, [binding for binding in
                                         Binding.make_bindings(node_class.BINDINGS)
                                         if _works_now(binding, screen)]))
            elif issubclass(node_class, Widget) and not issubclass(node_class, Screen):
                nodes = [node for node in screen.query(node_class) if node.can_focus]
                if nodes:
                    help_bindings = getattr(nodes[0], "help_bindings", None)
                    bindings = help_bindings() if help_bindings is not None else \
                        Binding.make_bindings(node_class.BINDINGS)
                    sections.append((title, [binding for binding in bindings
                                             if not _taken_by_screen(binding, screen_keys)]))
        return [*sections, ("Help", HelpScreen.BINDINGS)]

    def action_show_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.help_sections(), self.screen.sub_title or ""))
