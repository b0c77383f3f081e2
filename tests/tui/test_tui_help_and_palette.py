"""The help screen lists the real bindings; the command palette offers the studio's commands;
``xqstudio studio`` checks its FEN before taking the terminal."""
from __future__ import annotations

import io
import re

import pytest
from rich.console import Console
from textual.binding import Binding
from textual.widgets import Input, Static

from tui.cli import main
from tui.screens.analyse import AnalyseScreen
from tui.screens.draw_practice import DrawPracticeScreen
from tui.screens.help import HelpScreen
from tui.screens.practice import PracticeScreen
from tui.screens.setup import SetupScreen
from tui.widgets.board import BoardView
from tui.widgets.move_list import MoveList
from tui.widgets.solver_panel import SolverPanel
from tui.widgets.tablebase_panel import TablebasePanel


def help_text(screen: HelpScreen) -> str:
    console = Console(width=100, record=True, file=io.StringIO())
    for section in screen.query(".help-section").results(Static):
        console.print(section.content)
    return console.export_text()


def test_help_lists_the_keys_of_the_screen_shown(studio):
    async def scenario(pilot):
        await pilot.press("question_mark")
        opened_by_question_mark = pilot.app.screen
        text = help_text(opened_by_question_mark)
        title = opened_by_question_mark.query_one("#help-body").border_title
        await pilot.press("escape", "f1")
        opened_by_f1 = type(pilot.app.screen)
        await pilot.press("escape")
        return type(opened_by_question_mark), text, title, opened_by_f1, type(pilot.app.screen)

    opened, text, title, opened_by_f1, closed = studio(scenario)
    assert opened is HelpScreen and opened_by_f1 is HelpScreen and closed is AnalyseScreen
    assert title == "XQ Studio keys · Analyse · Escape closes"
    for node_class in (BoardView, AnalyseScreen, TablebasePanel, SolverPanel):
        for binding in Binding.make_bindings(node_class.BINDINGS):
            assert binding.description in text, binding
    # Issue 38: only the keys of the screen shown (no set-up editor, no practice).
    for node_class in (SetupScreen, DrawPracticeScreen):
        assert not any(binding.description in text
                       for binding in Binding.make_bindings(node_class.BINDINGS)
                       if binding.description not in ("Cancel", "Restart")), node_class
    assert "Draw practice" not in text and "Set-up editor" not in text
    for keys, description in (("[ pgup", "Back"), ("^p", "Command palette"),
                              ("u ⌫", "Take back"), ("? f1", "Help"),
                              ("↑ ↓ ← →", "Move the cursor"),
                              ("k j h l", "Move the cursor (vi keys)"),
                              ("1", "Side panel: Position tab"),
                              ("2", "Side panel: Tablebase tab"),
                              ("3", "Side panel: Solver tab"), ("x esc", "Cancel search")):
        assert re.search(rf"^{re.escape(keys)} +{re.escape(description)} *$", text, re.M), keys


def test_tab_keys_show_the_side_panels_and_leave_digits_to_the_fields(studio):
    async def scenario(pilot):
        screen = pilot.app.screen
        panels = screen.query_one("#side-panels")
        seen = []
        for key in ("3", "2", "1"):
            await pilot.press(key)
            await pilot.pause()
            seen.append((panels.active, screen.focused.id))
        await pilot.press("3")
        await pilot.pause()
        field = screen.query_one("#solver-max-moves", Input)
        field.focus()
        await pilot.press("1", "2")
        return seen, field.value, panels.active

    seen, typed, active = studio(scenario)
    assert seen == [("solver-tab", "solver-panel"), ("tablebase-tab", "tablebase-panel"),
                    ("position-tab", "board")]
    assert (typed, active) == ("12", "solver-tab")


def test_help_in_the_set_up_editor_leaves_out_the_board_keys_it_takes(studio):
    async def scenario(pilot):
        await pilot.press("e")
        await pilot.pause()
        await pilot.press("f1")
        return help_text(pilot.app.screen)

    text = studio(scenario)
    for keys, description in (("^l", "Clear"), ("K A B N R C P H E", "Place a Red piece"),
                              ("⏎", "Accept"), ("esc", "Cancel"),
                              ("↑ ↓ ← →", "Move the cursor")):
        assert re.search(rf"^{re.escape(keys)} +{re.escape(description)} *$", text, re.M), keys
    for description in ("vi keys", "Drop selection", "Take back", "Solve"):
        assert description not in text
    assert re.search(r"^space +Select / move *$", text, re.M)     # Enter is Accept there


def test_help_in_practice_says_h_is_hint_not_the_cursor(studio):
    # Issue 38: help listed the board's h (the cursor left) where h is Hint.
    async def scenario(pilot):
        await pilot.press("f4")
        await pilot.pause()
        screen = type(pilot.app.screen)
        await pilot.press("f1")
        return screen, help_text(pilot.app.screen)

    screen, text = studio(scenario, fen="3ak4/9/9/9/9/9/9/9/9/3K4R w")
    assert screen is PracticeScreen
    assert re.search(r"^h +Hint *$", text, re.M)
    assert re.search(r"^k j l +Move the cursor \(vi keys\) *$", text, re.M)
    assert "Position tab" not in text and "Set-up editor" not in text


@pytest.mark.slow
def test_palette_runs_a_studio_command(studio):
    async def scenario(pilot):
        await pilot.press("ctrl+p")
        await pilot.press(*"flip board")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        flipped = pilot.app.screen.query_one(BoardView).flipped
        await pilot.press("ctrl+p", *"switch notation")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        return flipped, pilot.app.screen.query_one(MoveList).notation

    assert studio(scenario) == (True, "wxf")


@pytest.mark.slow
def test_palette_set_up_from_analyse_and_back(studio):
    async def scenario(pilot):
        await pilot.press("ctrl+p", *"set up position")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        opened = type(pilot.app.screen)
        await pilot.press("ctrl+p", *"new game")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        return opened, type(pilot.app.screen)

    assert studio(scenario, fen="3k5/4a4/9/9/9/9/9/9/9/3RK4 b") == (SetupScreen, AnalyseScreen)


def test_studio_command_refuses_a_bad_fen(capsys):
    status = main(["studio", "--fen", "9/9/9/9/9/9/9/9/9/4K4 w"])
    out, err = capsys.readouterr()
    assert status == 1 and out == ""
    assert err.strip() == "error: invalid FEN: Black has no king"


def test_quitting_while_the_palette_searches_is_clean(studio):
    # Issue 16: WorkerFailed NoMatches('CommandList') when quitting during a palette search.
    from textual.command import CommandPalette
    from textual.css.query import NoMatches
    from textual.worker import WorkerFailed

    async def scenario(pilot):
        await pilot.press("ctrl+p", "f", "l")
        palette = pilot.app.screen
        searching = [w for w in pilot.app.workers if w.node is palette]
        # The late search failing as the screens go must not become the app's error.
        pilot.app.exit()
        pilot.app._handle_exception(WorkerFailed(NoMatches(
            "No nodes match 'CommandList' on CommandPalette()")))
        return type(palette), searching

    palette_type, _ = studio(scenario)
    assert palette_type is CommandPalette


def test_quit_cancels_the_palette_search(studio):
    from textual.command import CommandPalette

    async def scenario(pilot):
        await pilot.press("ctrl+p", "f")
        palette = pilot.app.screen
        assert isinstance(palette, CommandPalette)
        await pilot.press("ctrl+q")
        return pilot.app.return_code, [w.state.name for w in pilot.app.workers
                                       if w.node is palette]

    code, states = studio(scenario)
    assert code in (0, None) and all(state in ("CANCELLED", "SUCCESS") for state in states)


def test_every_footer_starts_with_help_and_quit_at_80_by_24(studio):
    """Textual lists the focused widget's keys first and the app's last: at 80 columns Help
    and Quit fell off the end of the analyse and catalogue footers."""
    from tests.tui.test_tui_wide_text import screen_lines

    async def scenario(pilot):
        footers = {"board": screen_lines(pilot.app)[-1]}
        await pilot.press("3")                       # the solver panel's keys
        await pilot.pause()
        footers["solver"] = screen_lines(pilot.app)[-1]
        await pilot.press("f2")                      # the catalogue
        for _ in range(300):                         # drawn within 30 s, even under load
            await pilot.pause(0.1)
            if type(pilot.app.screen).__name__ == "CatalogueScreen" \
                    and screen_lines(pilot.app)[-1].strip():
                break
        footers["catalogue"] = screen_lines(pilot.app)[-1]
        return footers

    for where, footer in studio(scenario, size=(80, 24)).items():
        assert footer.split()[:4] == ["?", "Help", "^q", "Quit"], (where, footer)
