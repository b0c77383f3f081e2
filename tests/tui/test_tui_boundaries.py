"""The studio at issue 36's boundaries: a search is not left running unseen when the user
leaves analyse mode, and its budget is the panel's."""
from __future__ import annotations

import pytest
from textual.widgets import Input, Static

from solver.search import DEFAULT_SEARCH_SECONDS
from tui.widgets.solver_panel import SolverPanel
from xiangqi import STARTING_FEN


async def _wait(pilot, condition, seconds: float = 20.0) -> None:
    for _ in range(int(seconds / 0.05)):
        if condition():
            return
        await pilot.pause(0.05)
    raise AssertionError("timed out")


# 《适情雅趣》 No. 4: no mate is found for a long while, so a search is still running.
HARD = "2bk1ab2/4a4/9/p1P6/3NC4/4Pp3/P5n2/4B3N/4Ar3/1RBAK2cr w - - 0 1"


def test_leaving_analyse_mode_cancels_the_search(studio, catalogue):
    async def scenario(pilot):
        panel = pilot.app.screen.query_one(SolverPanel)
        panel.mode = "any"
        panel.action_solve()
        await _wait(pilot, lambda: panel.running == "solve")
        progress = str(panel.query_one("#solver-progress", Static).content)
        await pilot.press("f2")               # the catalogue
        await _wait(pilot, lambda: panel.running is None)
        await pilot.press("f3")               # back to analyse mode
        await pilot.pause()
        return progress, str(panel.query_one("#solver-result", Static).content)

    progress, result = studio(scenario, fen=HARD, size=(120, 40))
    assert f"{DEFAULT_SEARCH_SECONDS:g} s" in progress
    assert result == "The solve was cancelled when you left for the catalogue."


def test_the_seconds_field_sets_the_budget(studio):
    async def scenario(pilot):
        panel = pilot.app.screen.query_one(SolverPanel)
        field = panel.query_one("#solver-seconds", Input)
        default = panel.budget_seconds(), field.placeholder
        field.value = "5"
        five = panel.budget_seconds()
        field.value = "0"
        return default, five, panel.budget_seconds()

    default, five, none = studio(scenario, fen=STARTING_FEN, size=(120, 40))
    assert default == (DEFAULT_SEARCH_SECONDS, f"{DEFAULT_SEARCH_SECONDS:g}")
    assert five == 5.0 and none == 0.0


@pytest.mark.slow
def test_the_palette_sets_the_solver_budget(studio):
    """Palette → "Solver budget" puts the cursor in the seconds field; typing sets it."""
    async def scenario(pilot):
        await pilot.press("ctrl+p")
        await pilot.pause()
        for key in "Solver budget":
            await pilot.press("space" if key == " " else key)
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause(0.3)
        panel = pilot.app.screen.query_one(SolverPanel)
        focused = pilot.app.focused
        await pilot.press("1", "5")
        return focused is panel.query_one("#solver-seconds", Input), panel.budget_seconds()

    focused, seconds = studio(scenario, fen=STARTING_FEN, size=(120, 40))
    assert focused and seconds == 15.0


def test_the_studio_with_a_damaged_table(studio, damaged_tables, monkeypatch):
    """The whole studio on a damaged KRKAA: the tablebase panel and the solver (any moves,
    ``s``) both say which table and how to rebuild it; the app goes on."""
    from tui.widgets.tablebase_panel import TablebasePanel

    monkeypatch.setenv("XQSTUDIO_TABLES", str(damaged_tables))

    async def scenario(pilot):
        screen = pilot.app.screen
        table_text = str(screen.query_one(TablebasePanel).query_one("#tb-value",
                                                                   Static).content)
        panel = screen.query_one(SolverPanel)
        panel.mode = "any"
        screen.action_solve()
        await _wait(pilot, lambda: panel.running is None and "damaged" in str(
            panel.query_one("#solver-result", Static).content))
        return table_text, str(panel.query_one("#solver-result", Static).content)

    table_text, solver_text = studio(scenario, fen="3aka3/9/9/9/9/9/9/9/R8/3K5 w",
                                     size=(120, 40))
    advice = f"rebuild it with: xqstudio tb build KRKAA --tables {damaged_tables}"
    assert table_text.startswith("damaged table ") and table_text.endswith(advice)
    assert solver_text.startswith("Cannot solve: damaged table ") and solver_text.endswith(advice)


def test_a_game_position_is_not_searched_without_a_bound(studio):
    """The start position given to the solver: it says what the position is and what to do,
    and searches only once a bound is typed in."""
    async def scenario(pilot):
        panel = pilot.app.screen.query_one(SolverPanel)
        panel.mode = "any"
        panel.action_solve()
        await pilot.pause()
        refused = (panel.running, str(panel.query_one("#solver-result", Static).content))
        panel.query_one("#solver-max-moves", Input).value = "1"
        panel.action_solve()
        await _wait(pilot, lambda: panel.running is None and panel.result is not None)
        return refused, str(panel.query_one("#solver-result", Static).content)

    (running, refused), bounded = studio(scenario, fen=STARTING_FEN, size=(120, 40))
    assert running is None
    assert refused.startswith("A game position (32 pieces), not a composition: a forced mate "
                              "from it is beyond any search. Type a bound")
    assert bounded.startswith("No mate within 1 move")
