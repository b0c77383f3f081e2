"""Analyse mode with the repetition rules (棋例) and the tablebase and solver panels mounted:
a forbidden repetition is announced with its verdict, the panels follow the position, and a
tablebase move played from the panel lands in the line."""
from __future__ import annotations

import pytest

from tablebases.build import build
from tui.screens.analyse import AnalyseScreen
from tui.widgets.board import BoardView
from tui.widgets.solver_panel import SolverPanel
from tui.widgets.status_line import StatusLine
from tui.widgets.tablebase_panel import TablebasePanel
from xiangqi import Board, Move

# 一将一捉: the rook checks from a9 and chases the horse from a7 (Chinese rules: forbidden).
CYCLE_FEN = "4k4/9/R1n6/9/9/9/9/9/9/3K5 w - - 0 1"
CYCLE = ["a7a9", "e9e8", "a9a7", "e8e9"]


# 《适情雅趣》 No. 4: no mate is found for a long while, so a search is still running (the
# start position is refused as a game position without a bound).
HARD = "2bk1ab2/4a4/9/p1P6/3NC4/4Pp3/P5n2/4B3N/4Ar3/1RBAK2cr w - - 0 1"


def play(screen: AnalyseScreen, moves: list[str]) -> None:
    board_view = screen.query_one("#board", BoardView)
    for text in moves:
        screen.play_move(BoardView.MoveEntered(board_view, Move.from_iccs(text)))


def status_text(screen: AnalyseScreen) -> str:
    return str(screen.query_one("#status", StatusLine).render())


@pytest.mark.slow
def test_forbidden_repetition_is_announced_with_the_rule(studio):
    async def scenario(pilot):
        screen = pilot.app.screen
        play(screen, CYCLE)
        await pilot.pause()
        twice = status_text(screen)
        play(screen, CYCLE)
        await pilot.pause()
        thrice = status_text(screen)
        await pilot.press("r")                  # the Asian rules allow one check, one chase
        await pilot.pause()
        return twice, thrice, status_text(screen), list(pilot.app.notified)

    twice, thrice, asian, notified = studio(scenario, fen=CYCLE_FEN)
    assert "repetition ×2: Red must deviate" in twice
    assert "repetition ×3: Red must deviate" in thrice
    assert "repetition ×3: draw" in asian
    verdicts = [m for m in notified if "26.4" in m]
    assert len(verdicts) == 1 and "一将一捉" in verdicts[0]
    assert any("AXF" in m for m in notified)


def test_panels_follow_the_position_and_play_the_best_move(studio, tmp_path, monkeypatch):
    build("KRK", tmp_path, log=lambda line: None)
    monkeypatch.setenv("XQSTUDIO_TABLES", str(tmp_path))
    fen = "3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1"

    async def scenario(pilot):
        screen = pilot.app.screen
        panel = screen.query_one("#tablebase-panel", TablebasePanel)
        panel.directory = tmp_path
        panel.show_position(screen.board)
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        best = panel.ranked[0].move
        solver_board = screen.query_one("#solver-panel", SolverPanel).board
        panel.post_message(TablebasePanel.PlayMove(panel, best))
        await pilot.pause()
        return best, screen.line, solver_board.fen(), screen.board.fen()

    best, line, solver_fen, after = studio(scenario, fen=fen)
    assert line == [best]
    assert solver_fen == fen
    expected = Board(fen)
    expected.push(best)
    assert after == expected.fen()


def footer_keys(screen) -> list[tuple[str, str]]:
    """The footer's keys and their descriptions, as shown."""
    from textual.widgets._footer import FooterKey
    return [(key.key, key.description) for key in screen.query(FooterKey)]


def test_the_footer_says_a_running_search_is_cancelled_from_the_tab_bar(studio):
    # Issue 38: with the solver's tab active and its search running, x and escape said
    # "Cancel build" (the tablebase panel's description) while the tab bar had the focus.
    async def scenario(pilot):
        screen = pilot.app.screen
        await pilot.press("tab")                       # the board to the tab bar
        screen.query_one("#side-panels").active = "solver-tab"
        await pilot.press("t", "s")                    # any moves: no end within the test
        panel = screen.query_one("#solver-panel", SolverPanel)
        await pilot.pause(0.2)
        running = panel.running
        keys = footer_keys(screen)
        await pilot.press("x")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        return type(screen.focused).__name__, running, keys, panel.running

    focused, running, keys, after = studio(scenario, fen=HARD, size=(80, 24))
    assert (focused, running, after) == ("ContentTabs", "solve", None)
    cancels = [(key, description) for key, description in keys if "Cancel" in description]
    assert cancels == [("x", "Cancel search")]          # once: x and escape are one action


def test_each_side_panel_tab_shows_the_key_that_opens_it(studio):
    """Issue 38: the tab labels name their keys, and each key opens the tab it names."""
    from textual.widgets import Tab

    async def scenario(pilot):
        screen = pilot.app.screen
        labels = [tab.label.plain for tab in screen.query(Tab)]
        opened = {}
        for key in ("2", "3", "1"):
            await pilot.press(key)
            await pilot.pause()
            active = screen.query_one("#side-panels").active
            opened[key] = next(tab.label.plain for tab in screen.query(Tab)
                               if tab.id and tab.id.endswith(active))
        return labels, opened

    labels, opened = studio(scenario)
    assert labels == ["1 Position", "2 Tablebase", "3 Solver"]
    assert opened == {"1": "1 Position", "2": "2 Tablebase", "3": "3 Solver"}
