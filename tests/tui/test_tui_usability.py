"""Issue 15, what a person sees: the minimum-size message, the panels' keys from the tab bar,
the tablebase table's columns sized afresh, the solver's line stepped in the status line and
played into the move list, cancel saying only that, the zoomed panel, and every binding in
the help."""
from __future__ import annotations

import importlib
import inspect
import io
import pkgutil
import time

import pytest
from rich.console import Console
from rich.text import Text
from textual.binding import Binding
from textual.dom import DOMNode
from textual.widgets import DataTable, Static, Tabs

import tui
from tablebases.build import build
from tui.app import XQStudioApp
from tui.screens.fen_dialog import FenDialog
from tui.screens.help import HelpScreen
from tui.screens.too_small import TooSmallScreen
from tui.widgets.move_list import MoveList
from tui.widgets.solver_panel import SolverPanel
from tui.widgets.tablebase_panel import TablebasePanel, remaining_seconds
from xiangqi.pieces import square

ROOK_AND_ADVISORS = "3ak4/4a4/9/9/9/9/9/9/9/3K4R w"   # mate in 3 with quiet moves
HORSE_MATE = "9/9/3ak4/9/9/9/9/9/9/N2K5 w"          # KNKA: mate in 19
HORSE_DRAW = "9/4N4/3ak4/9/9/9/9/9/9/3K5 b"         # KNKA: the horse is taken, a draw


async def wait_for(pilot, condition, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await pilot.pause(0.02)


# 《适情雅趣》 No. 4: no mate is found for a long while, so a search is still running (the
# start position is refused as a game position without a bound).
HARD = "2bk1ab2/4a4/9/p1P6/3NC4/4Pp3/P5n2/4B3N/4Ar3/1RBAK2cr w - - 0 1"


def text_of(node, selector: str) -> str:
    return str(node.query_one(selector, Static).content)


def test_below_80_by_24_the_screen_says_so_and_recovers(studio):
    async def scenario(pilot):
        small = pilot.app.screen
        message = text_of(small, "#too-small-message") if isinstance(small, TooSmallScreen) \
            else ""
        await pilot.resize_terminal(80, 24)
        await pilot.pause(0.1)
        return type(small), message, type(pilot.app.screen).__name__

    shown, message, after = studio(scenario, size=(70, 20))
    assert shown is TooSmallScreen
    assert message.startswith("Window too small (70×20): XQ Studio needs 80×24.")
    assert after == "AnalyseScreen"


def test_panel_keys_work_from_the_tab_bar_and_the_line_steps_in_the_status(studio, tmp_path,
                                                                          monkeypatch):
    monkeypatch.setenv("XQSTUDIO_TABLES", str(tmp_path))

    async def scenario(pilot):
        screen = pilot.app.screen
        screen.query_one("#side-panels").active = "solver-tab"
        screen.query_one("#side-panels").query_one(Tabs).focus()
        await pilot.pause()
        hint = text_of(screen, "#solver-result")
        await pilot.press("t")                       # the mode, from the tab bar
        await pilot.pause()
        hint_after_mode = text_of(screen, "#solver-result")
        await pilot.press("s")
        panel = screen.query_one(SolverPanel)
        await wait_for(pilot, lambda: panel.result is not None)
        await pilot.pause()
        result = text_of(screen, "#solver-result")
        await pilot.press("full_stop", "full_stop", "full_stop")
        status = text_of(screen, "#status")
        await pilot.press("g")
        await pilot.pause()
        return hint, hint_after_mode, result, status, \
            text_of(screen, "#status"), screen.ply, screen.query_one(MoveList).ply

    hint, hint_after, result, stepped, played, ply, list_ply = studio(
        scenario, fen=ROOK_AND_ADVISORS, size=(80, 24))
    assert "连照" in hint and "any moves" in hint_after and "连照" not in hint_after
    assert result.startswith("Mate in 3 (5 plies), quiet moves allowed")
    assert stepped.endswith("solver line 3/5 (preview; g or Enter plays it)")
    assert played.endswith("ply 3/3") and ply == 3 and list_ply == 3


@pytest.mark.slow
def test_cancelled_verify_says_cancelled_and_nothing_else(studio, tmp_path, monkeypatch):
    monkeypatch.setenv("XQSTUDIO_TABLES", str(tmp_path))

    async def scenario(pilot):
        screen = pilot.app.screen
        panel = screen.query_one(SolverPanel)
        panel.mode = "any"
        screen.action_verify()                        # no end within the test
        await wait_for(pilot, lambda: "nodes" in text_of(panel, "#solver-progress"))
        panel.focus()
        await pilot.press("x")
        await wait_for(pilot, lambda: panel.running is None)
        await pilot.pause()
        parts = [panel.query_one(f"#solver-{part}") for part in ("progress", "result", "report")]
        return [str(part.content) for part in parts], [part.display for part in parts]

    # The empty parts take no room (at 80×24 the panel has about a dozen lines).
    assert studio(scenario, fen=HARD) == (["", "Verify cancelled.", ""], [False, True, False])


def test_zoom_shows_the_panel_over_the_screen_and_escape_puts_it_back(studio):
    async def scenario(pilot):
        screen = pilot.app.screen
        screen.query_one("#side-panels").active = "solver-tab"
        await pilot.press("z")
        zoomed = screen.maximized
        await pilot.press("escape")
        return zoomed, screen.maximized

    zoomed, after = studio(scenario, size=(80, 24))
    assert isinstance(zoomed, SolverPanel) and after is None


def test_move_table_columns_fit_each_position(tmp_path):
    build(["KNKA"], tmp_path, log=lambda line: None)
    import asyncio

    from tests.tui.test_tablebase_panel import Host, settle  # the panel's small host app
    from xiangqi import Board

    panel = TablebasePanel(tmp_path, board=Board(HORSE_DRAW), threads=1)

    async def run():
        async with Host(panel).run_test(size=(60, 40)) as pilot:
            await settle(pilot)
            first = panel.value.wdl if panel.value else None
            panel.show_position(Board(HORSE_MATE))
            await settle(pilot)
            table = panel.query_one("#tb-moves", DataTable)
            widths = []
            for index, column in enumerate(table.ordered_columns):
                cells = [table.get_row_at(row)[index] for row in range(table.row_count)]
                widest = max(Text(str(c)).cell_len for c in [*cells, column.label])
                widths.append((column.content_width, widest))
            return first, widths

    first, widths = asyncio.run(run())
    assert first == 0                  # the draw first, then the long mate
    assert all(width == widest for width, widest in widths), widths


def test_build_estimate_is_revised_from_the_real_pace():
    # Finished tables took twice their estimate: the rest is expected to as well.
    assert remaining_seconds(10, 20, 5, 4, 10) == 26
    # A table past its estimate is never shown as done.
    assert remaining_seconds(0, 0, 5, 8, 0) > 0


def _classes_with_bindings() -> list[type[DOMNode]]:
    found = []
    for module_info in pkgutil.walk_packages(tui.__path__, "tui."):
        module = importlib.import_module(module_info.name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, DOMNode) and value.__module__ == module.__name__ and \
                    "BINDINGS" in vars(value) and value.BINDINGS:
                found.append(value)
    return found


@pytest.mark.slow
def test_help_lists_every_binding_of_every_class(studio):
    # The help lists the keys of the screen shown (issue 38): over the screens, every class's.
    async def help_of_this_screen(pilot) -> str:
        await pilot.press("f1")
        screen = pilot.app.screen
        assert isinstance(screen, HelpScreen)
        console = Console(width=120, record=True, file=io.StringIO())
        for section in screen.query(".help-section").results(Static):
            console.print(section.content)
        await pilot.press("escape")
        return console.export_text()

    async def scenario(pilot):
        texts = {"analyse": await help_of_this_screen(pilot)}
        for name, keys, back in (("set-up", ["e"], ["escape"]),
                                 ("practice", ["f4"], ["escape"]),
                                 ("draw practice", ["3", "t", "t", "f4"], ["escape"]),
                                 ("catalogue", ["f2"], ["f3"]),
                                 # b: the board in the list's place, b the list again.
                                 ("catalogue's board", ["f2", "b"], ["b", "f3"])):
            await pilot.press(*keys)
            await pilot.pause()
            # The catalogue opens its database in a worker (built at first use): its keys
            # are the list's only once it is there.
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()
            texts[name] = await help_of_this_screen(pilot)
            await pilot.press(*back)
            await pilot.pause()
        return texts, pilot.app

    texts, app = studio(scenario, fen="3ak4/9/9/9/9/9/9/9/9/3K4R w")
    classes = _classes_with_bindings()
    assert TablebasePanel in classes and SolverPanel in classes
    lines = "\n".join(texts.values()).splitlines()
    # The FEN dialog is modal: the studio's keys (F1 too) wait until it closes, and it says
    # its own keys ("Enter opens it · Escape cancels").
    for node_class in [XQStudioApp, *(c for c in classes if c is not FenDialog)]:
        for binding in Binding.make_bindings(node_class.BINDINGS):
            key = app.get_key_display(binding)
            assert any(key in line and binding.description in line for line in lines), \
                (node_class.__name__, binding.key, binding.description)
    assert "Place a Red piece" not in texts["analyse"] and "Hint" not in texts["analyse"]


def test_picking_the_opponents_piece_or_an_unreachable_point_is_explained(studio):
    async def scenario(pilot):
        screen = pilot.app.screen
        board = screen.query_one("#board")
        board.cursor = square(4, 9)              # Black's king, Red to move
        await pilot.press("enter")
        opponent = text_of(screen, "#status")
        board.cursor = square(0, 0)              # Red's rook on a0, then a5
        await pilot.press("enter")
        board.cursor = square(0, 5)
        await pilot.press("enter")
        return opponent, text_of(screen, "#status")

    opponent, unreachable = studio(scenario)
    assert opponent == "Red 红方 to move · The 将 on e9 is Black's; Red is to move."
    assert unreachable.endswith("The 车 on a0 cannot go to a5: not a move it can make.")


def _fen_after(fen: str, moves) -> str:
    from xiangqi import Board

    board = Board(fen)
    for move in moves:
        board.push(move)
    return board.fen()


def _point_of_ply(widget, ply: int):
    """The screen offset of the drawn main line's move number ``ply`` (by its style meta)."""
    from tui.widgets.solver_panel import PLY_META

    region = widget.region
    for y in range(region.y, region.bottom):
        for x in range(region.x, region.right):
            if widget.screen.get_style_at(x, y).meta.get(PLY_META) == ply:
                return x, y
    raise AssertionError(f"ply {ply} is not drawn")


@pytest.mark.slow
def test_a_click_on_a_move_of_the_main_line_or_enter_plays_the_line_to_it(studio, tmp_path,
                                                                          monkeypatch):
    monkeypatch.setenv("XQSTUDIO_TABLES", str(tmp_path))

    async def solved(pilot) -> SolverPanel:
        screen = pilot.app.screen
        screen.query_one("#side-panels").active = "solver-tab"
        panel = screen.query_one(SolverPanel)
        panel.mode = "any"
        screen.action_solve()
        await wait_for(pilot, lambda: panel.result is not None)
        await pilot.pause()
        return panel

    async def scenario(pilot):
        screen = pilot.app.screen
        panel = await solved(pilot)
        line = list(panel.line)
        await pilot.click(offset=_point_of_ply(screen.query_one("#solver-line"), 2))
        await pilot.pause()
        clicked = screen.board.fen(), screen.ply, text_of(screen, "#status")
        screen.action_take_back()
        screen.action_take_back()                      # back to the problem
        await pilot.pause()
        panel = await solved(pilot)
        panel.focus()
        await pilot.press("full_stop", "full_stop", "full_stop", "enter")
        await pilot.pause()
        return line, clicked, (screen.board.fen(), screen.ply)

    line, clicked, entered = studio(scenario, fen=ROOK_AND_ADVISORS, size=(120, 40))
    assert len(line) == 5
    assert clicked[:2] == (_fen_after(ROOK_AND_ADVISORS, line[:2]), 2)
    assert clicked[2].endswith("ply 2/2")
    assert entered == (_fen_after(ROOK_AND_ADVISORS, line[:3]), 3)


def test_a_click_on_a_ranked_move_or_enter_on_it_plays_it(studio, tmp_path, monkeypatch):
    build(["KRK"], tmp_path, log=lambda line: None)
    monkeypatch.setenv("XQSTUDIO_TABLES", str(tmp_path))
    rook = "3k5/9/9/9/9/9/9/9/9/4K3R w"

    async def scenario(pilot):
        screen = pilot.app.screen
        screen.query_one("#side-panels").active = "tablebase-tab"
        await pilot.pause()
        table = screen.query_one("#tb-moves", DataTable)
        ranked = [item.move for item in screen.query_one(TablebasePanel).ranked]
        # The third row (not the highlighted one): one click plays it.
        await pilot.click(table, offset=(2, 1 + 2))     # the header is the table's first line
        await pilot.pause()
        clicked = screen.board.fen()
        screen.action_take_back()
        await pilot.pause()
        table.focus()
        await pilot.press("down", "enter")
        await pilot.pause()
        return ranked, clicked, screen.board.fen()

    ranked, clicked, entered = studio(scenario, fen=rook, size=(120, 40))
    assert len(ranked) > 3
    assert clicked == _fen_after(rook, [ranked[2]])
    assert entered == _fen_after(rook, [ranked[1]])
