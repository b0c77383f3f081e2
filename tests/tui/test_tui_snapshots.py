"""SVG snapshots of the studio (``tests/tui/__snapshots__/``); after a deliberate change of
the look, regenerate them with ``pytest tests/tui --snapshot-update`` and review the SVGs."""
from __future__ import annotations

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


def _tablebase_after_a_draw(tmp_path, monkeypatch):
    """Analyse mode's Tablebase tab on a long mate (KNKA, mate in 19) shown after a draw."""
    import time

    from tablebases.build import build
    from xiangqi import Board

    build(["KNKA"], tmp_path, log=lambda line: None)
    monkeypatch.setenv("XQSTUDIO_TABLES", str(tmp_path))
    app = XQStudioApp("9/4N4/3ak4/9/9/9/9/9/9/3K5 b")

    async def after_the_draw(pilot):
        screen = pilot.app.screen
        screen.query_one("#side-panels").active = "tablebase-tab"
        await pilot.pause()
        screen.load_position(Board("9/9/3ak4/9/9/9/9/9/9/N2K5 w"))
        deadline = time.monotonic() + 30
        while any(not worker.is_finished for worker in pilot.app.workers):
            assert time.monotonic() < deadline
            await pilot.pause(0.05)
        # The panel fills its histogram after the worker's message arrives; on a busy machine
        # that takes more than one refresh (a CI run caught it half drawn).
        await pilot.wait_for_scheduled_animations()
        for _ in range(3):
            await pilot.pause(0.1)
    return app, after_the_draw


def test_tablebase_long_mate_after_a_draw_80_by_24(snap_compare, tmp_path, monkeypatch):
    app, run_before = _tablebase_after_a_draw(tmp_path, monkeypatch)
    assert snap_compare(app, run_before=run_before, terminal_size=(80, 24))


def test_tablebase_long_mate_after_a_draw_120_by_40(snap_compare, tmp_path, monkeypatch):
    app, run_before = _tablebase_after_a_draw(tmp_path, monkeypatch)
    assert snap_compare(app, run_before=run_before, terminal_size=(120, 40))
