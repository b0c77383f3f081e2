"""SVG snapshots of the studio (``tests/tui/__snapshots__/``); after a deliberate change of
the look, regenerate them with ``pytest tests/tui --snapshot-update`` and review the SVGs."""
from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from textual.widgets import Input, Select

from tui.app import XQStudioApp

IN_CHECK = "3k5/4a4/9/9/9/9/9/9/9/3RK4 b - - 0 1"


def test_analyse_start_position(snap_compare):
    assert snap_compare(XQStudioApp(start_mode="analyse"), terminal_size=(100, 32))


def test_analyse_fits_80_by_24(snap_compare):
    # 炮二平五 played, so the last move and the move list show too.
    keys = ["right", "right", "right", "up", "up", "enter", "left", "left", "left", "enter"]
    assert snap_compare(XQStudioApp(start_mode="analyse"), press=keys, terminal_size=(80, 24))


def test_analyse_check_with_the_king_selected(snap_compare):
    keys = ["left", *["up"] * 9, "enter"]          # the cursor from e0 to d9, select the king
    assert snap_compare(XQStudioApp(IN_CHECK), press=keys, terminal_size=(100, 32))


def test_setup_editor_with_an_error(snap_compare):
    keys = ["e", "ctrl+l", "up", "P"]               # a red pawn on e1, where none can stand
    assert snap_compare(XQStudioApp(start_mode="analyse"), press=keys, terminal_size=(100, 32))


async def settled(pilot, shown: Callable[[], bool] = lambda: True,
                  timeout: float = 60.0) -> None:
    """Wait until every worker has finished and ``shown()`` says the screen shows their
    results (a worker's result reaches the screen in a message after the worker ends, and on
    a busy machine later than one refresh: a CI run caught a histogram half drawn), then for
    the animations and one more refresh."""
    deadline = time.monotonic() + timeout
    while any(not worker.is_finished for worker in pilot.app.workers) or not shown():
        assert time.monotonic() < deadline, "the screen did not settle"
        await pilot.pause(0.05)
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


def _tablebase_after_a_draw(tmp_path, monkeypatch):
    """Analyse mode's Tablebase tab on a long mate (KNKA, mate in 19) shown after a draw."""
    from tablebases.build import build
    from tui.widgets.dtm_histogram import DtmHistogram
    from tui.widgets.tablebase_panel import TablebasePanel
    from xiangqi import Board

    build(["KNKA"], tmp_path, log=lambda line: None)
    monkeypatch.setenv("XQSTUDIO_TABLES", str(tmp_path))
    app = XQStudioApp("9/4N4/3ak4/9/9/9/9/9/9/3K5 b")
    long_mate = Board("9/9/3ak4/9/9/9/9/9/9/N2K5 w")

    async def after_the_draw(pilot):
        screen = pilot.app.screen
        screen.query_one("#side-panels").active = "tablebase-tab"
        await pilot.pause()
        screen.load_position(long_mate)
        panel = screen.query_one(TablebasePanel)
        panel.histogram_shown = True            # h: the histogram is hidden at first
        histogram = panel.query_one(DtmHistogram)
        await settled(pilot, lambda: panel.board == long_mate and panel.value is not None
                      and histogram.marked is not None)
    return app, after_the_draw


def test_tablebase_long_mate_after_a_draw_80_by_24(snap_compare, tmp_path, monkeypatch):
    app, run_before = _tablebase_after_a_draw(tmp_path, monkeypatch)
    assert snap_compare(app, run_before=run_before, terminal_size=(80, 24))


def test_tablebase_long_mate_after_a_draw_120_by_40(snap_compare, tmp_path, monkeypatch):
    app, run_before = _tablebase_after_a_draw(tmp_path, monkeypatch)
    assert snap_compare(app, run_before=run_before, terminal_size=(120, 40))


# Issue 15's screens at the two sizes the studio is tried at.
SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
# 适情雅趣 No. 8, 珠藏韫柜: a continuous-check mate in 9 with three tries and a dual on the
# main line; verifying it takes well under a second.
ZHU_CANG_YUN_GUI = "C1bac1RN1/r2Rak3/7n1/1rP6/2N1P1p2/9/9/2n6/5p3/4Kc3 w - - 0 1"


@SIZES
def test_verify_report(snap_compare, tmp_path, monkeypatch, size):
    """The soundness report: key, tries, the dual; at 80×24 in the zoomed panel (z)."""
    from tui.widgets.solver_panel import SolverPanel

    monkeypatch.setenv("XQSTUDIO_TABLES", str(tmp_path))      # no tables: the search alone

    async def verified(pilot):
        screen = pilot.app.screen
        screen.action_verify()
        panel = screen.query_one(SolverPanel)
        await settled(pilot, lambda: panel.report is not None and panel.running is None)
        if size == (80, 24):
            screen.action_zoom_panel()
            await settled(pilot)

    assert snap_compare(XQStudioApp(ZHU_CANG_YUN_GUI), run_before=verified, terminal_size=size)


@SIZES
def test_practice_after_a_wrong_try(snap_compare, catalogue, monkeypatch, size):
    """马后炮 例1 after the quiet try 炮一进一 (not a check): the defence refuting it is on the
    board and named in the message."""
    from tests.tui.test_tui_practice import enter_move, practise_first_hit
    from tui.screens import practice

    # The refutation stays on the board until this test's screenshot is taken.
    monkeypatch.setattr(practice, "REFUTATION_SHOWN_SECONDS", 3600.0)

    async def wrong_try(pilot):
        screen = await practise_first_hit(pilot, "马后炮")
        await enter_move(pilot, screen, "i6i7")
        await settled(pilot, lambda: screen.refuting and not screen.thinking)

    assert snap_compare(XQStudioApp(), run_before=wrong_try, terminal_size=size)


@SIZES
def test_catalogue_with_a_chinese_collection_chosen(snap_compare, catalogue, size):
    """The collection filter on 江湖四大名局: its five compositions, the first previewed."""
    async def chosen(pilot):
        await settled(pilot, lambda: getattr(pilot.app.screen, "db", None) is not None)
        screen = pilot.app.screen
        screen.query_one("#catalogue-collection", Select).value = "江湖四大名局"
        await settled(pilot, lambda: screen.page is not None and screen.page.total == 5)

    assert snap_compare(XQStudioApp(), run_before=chosen, terminal_size=size)


async def catalogue_ready(pilot) -> None:
    await settled(pilot, lambda: getattr(pilot.app.screen, "db", None) is not None)


@SIZES
def test_catalogue_verdict_filter_open(snap_compare, catalogue, size):
    """Issue 38: the verdict filter open, its classes in their order (not every bound)."""
    async def opened(pilot):
        await catalogue_ready(pilot)
        pilot.app.screen.query_one("#catalogue-verdict", Select).focus()
        await pilot.press("enter")
        await settled(pilot)

    assert snap_compare(XQStudioApp(), run_before=opened, terminal_size=size)


@SIZES
def test_catalogue_with_no_results(snap_compare, catalogue, size):
    """Issue 38: a search that matches nothing: "nothing matches", and no board or text in
    the preview as if something were chosen."""
    async def searched(pilot):
        await catalogue_ready(pilot)
        screen = pilot.app.screen
        screen.query_one("#catalogue-search", Input).value = "no such entry"
        await settled(pilot, lambda: screen.page is not None and screen.page.total == 0)

    assert snap_compare(XQStudioApp(), run_before=searched, terminal_size=size)


def test_catalogue_board_shown_by_b_80_by_24(snap_compare, catalogue):
    """Issue 38: at 80×24 b shows the highlighted entry's board in the list's place, its
    description beside it."""
    async def board_shown(pilot):
        await catalogue_ready(pilot)
        await pilot.press("b")
        await settled(pilot)

    assert snap_compare(XQStudioApp(), run_before=board_shown, terminal_size=(80, 24))


@SIZES
def test_solver_running(snap_compare, tmp_path, monkeypatch, size):
    """Issue 38: a solve running, as it shows while the search works: its figures, and the
    footer's x that cancels the search.  The search is held at fixed figures (a real one's
    node counts and rates differ from run to run) until it is cancelled."""
    from textual.worker import get_current_worker

    from solver.search import Solver
    from tui.widgets import solver_panel

    monkeypatch.setenv("XQSTUDIO_TABLES", str(tmp_path))      # no tables: the search alone
    real_run = Solver.run

    def held_run(solver, max_moves, tree=False):
        worker = get_current_worker()
        panel = worker.node
        panel.post_message(solver_panel._SearchProgress(1_234_567, 2.5, None))
        while not (worker.is_cancelled or panel._cancel.is_set()):
            time.sleep(0.02)
        solver.cancel()
        return real_run(solver, max_moves, tree)

    monkeypatch.setattr(Solver, "run", held_run)

    async def solving(pilot):
        screen = pilot.app.screen
        await pilot.press("3")                      # the Solver tab
        screen.action_solve()
        panel = screen.query_one(solver_panel.SolverPanel)
        progress = panel.query_one("#solver-progress")
        await settled_with_workers_running(
            pilot, lambda: "1,234,567 nodes" in str(progress.render()))

    assert snap_compare(XQStudioApp(ZHU_CANG_YUN_GUI), run_before=solving, terminal_size=size)


async def settled_with_workers_running(pilot, shown: Callable[[], bool],
                                       timeout: float = 60.0) -> None:
    """Wait until ``shown()`` (a worker still running), then for animations and a refresh."""
    deadline = time.monotonic() + timeout
    while not shown():
        assert time.monotonic() < deadline, "the screen did not settle"
        await pilot.pause(0.05)
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


def test_help_in_analyse_lists_the_tab_keys_80_by_24(snap_compare):
    """Issue 38: help (a page up from its end) says that 1 2 3 show the side panels' tabs."""
    assert snap_compare(XQStudioApp(start_mode="analyse"), press=["f1", "end", "pageup"],
                        terminal_size=(80, 24))


def test_help_in_analyse_120_by_40(snap_compare):
    """Issue 38: help over analyse mode at 120×40, from its start."""
    assert snap_compare(XQStudioApp(start_mode="analyse"), press=["f1"],
                        terminal_size=(120, 40))


@SIZES
def test_help_in_the_catalogue(snap_compare, catalogue, size):
    """Issue 38: help over the catalogue, its section in view (b only below 120 columns)."""
    async def helped(pilot):
        await catalogue_ready(pilot)
        await pilot.press("f1")
        await settled(pilot)

    assert snap_compare(XQStudioApp(), run_before=helped, terminal_size=size)
