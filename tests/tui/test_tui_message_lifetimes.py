"""Issue 38, item 4: each message belongs to the state that caused it and goes when that
state changes.  The repros of the issue: a refusal ("Nothing on g4", "The 炮 on b7 is
Black's") stayed after a piece was picked; a hint ("Hint: 帅六退一 holds.") stayed under
"thinking…" after another move; a cancelled build's estimate was not recomputed from the
sub-tables it left."""
from __future__ import annotations

import threading

from textual.widgets import Static

from tablebases import Material
from tests.tui.test_tablebase_panel import ROOK_MATE, settle, text_of
from tests.tui.test_tablebase_panel import drive as drive_panel
from tests.tui.test_tui_draw_practice import knkb_tables, practise  # noqa: F401 (a fixture)
from tests.tui.test_tui_practice import practise_first_hit
from tui.app import XQStudioApp
from tui.services import plan_build
from tui.widgets import tablebase_panel
from tui.widgets.board import BoardView
from tui.widgets.tablebase_panel import TablebasePanel
from xiangqi import Board, Move, square
from xiangqi.quantities import duration_text

SIZE = (110, 34)


def words(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def pick(pilot, board_view: BoardView, point: int) -> None:
    board_view.cursor = point
    await pilot.press("enter")
    await pilot.pause()


def test_in_analyse_a_refusal_goes_when_a_piece_is_picked(studio):
    async def scenario(pilot):
        screen = pilot.app.screen
        board_view = screen.query_one("#board", BoardView)
        await pick(pilot, board_view, square(1, 7))          # Black's cannon on b7
        refused = words(screen, "#status")
        await pick(pilot, board_view, square(1, 2))          # Red's cannon on b2
        return refused, words(screen, "#status")

    refused, after_the_pick = studio(scenario)
    assert refused == "Red 红方 to move · The 炮 on b7 is Black's; Red is to move."
    assert after_the_pick == "Red 红方 to move · ply 0/0"


def test_in_practice_a_refusal_goes_when_a_piece_is_picked_and_nothing_stays_under_thinking(
        catalogue, drive):
    async def scenario(pilot):
        screen = await practise_first_hit(pilot, "马后炮")
        first = words(screen, "#practice-message")
        board_view = screen.query_one("#practice-board", BoardView)
        await pick(pilot, board_view, square(6, 4))          # g4: nothing there
        refused = words(screen, "#practice-message")
        await pick(pilot, board_view, square(8, 6))          # Red's cannon on i6
        picked = words(screen, "#practice-message")
        await pick(pilot, board_view, square(6, 4))          # g4 again, then a move
        # The move is judged in the worker; hold the judgement to read the screen meanwhile.
        judged = threading.Event()
        judge = screen._judge

        def held_judge(before, move):
            judged.wait(30)
            return judge(before, move)

        screen._judge = held_judge
        board_view.post_message(BoardView.MoveEntered(board_view, Move.from_iccs("i6i7")))
        await pilot.pause()
        thinking = words(screen, "#practice-thinking"), words(screen, "#practice-message")
        judged.set()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        return first, refused, picked, thinking, words(screen, "#practice-message")

    first, refused, picked, thinking, answered = drive(XQStudioApp(), scenario, SIZE)
    assert first == "Your move: mate in 2 (3 plies)."
    assert refused == "Nothing on g4: pick one of Red's pieces."
    assert picked == first                       # the refusal goes, the task is back
    assert thinking == ("thinking…", "")
    assert answered.startswith("✗ 炮一进一")


def test_a_hint_goes_when_a_move_is_played(catalogue, knkb_tables, drive):  # noqa: F811
    async def scenario(pilot):
        screen = await practise(pilot, "单相和马")
        await pilot.press("h")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        hint = words(screen, "#practice-message")
        judged = threading.Event()
        judge = screen._judge

        def held_judge(before, move):
            judged.wait(30)
            return judge(before, move)

        screen._judge = held_judge
        board_view = screen.query_one("#practice-board", BoardView)
        board_view.post_message(BoardView.MoveEntered(board_view, Move.from_iccs("a2c0")))
        await pilot.pause()
        while_thinking = words(screen, "#practice-message")
        judged.set()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        return hint, while_thinking, words(screen, "#practice-message")

    hint, while_thinking, answered = drive(XQStudioApp(), scenario, SIZE)
    assert hint.startswith("Hint: ") and hint.endswith(" holds.")
    assert while_thinking == ""
    assert answered.startswith("✓ 相九退七 holds")


def test_a_cancelled_build_names_what_it_kept_and_estimates_what_is_left(tmp_path,
                                                                          monkeypatch):
    """KRKA needs KK, KAK and KRK first: cancelled as KRK starts, KK and KAK are kept and the
    panel's plan and estimate are those of KRK and KRKA."""
    panel = TablebasePanel(tmp_path, board=Board(ROOK_MATE), threads=1)
    start_table = tablebase_panel._BuildTracker.start_table

    def cancel_at_krk(tracker, name, estimate):
        if name == "KRK":
            tracker.cancel.set()
        start_table(tracker, name, estimate)

    monkeypatch.setattr(tablebase_panel._BuildTracker, "start_table", cancel_at_krk)

    async def scenario(pilot):
        before = text_of(panel, "#tb-value")
        panel.action_build()
        await settle(pilot)
        return before, text_of(panel, "#tb-value"), text_of(panel, "#tb-build-status")

    before, after, note = drive_panel(panel, scenario)
    assert "Its sub-tables KK, KAK, KRK are missing too." in before
    assert sorted(path.name for path in tmp_path.glob("*.xqtb")) == ["KAK.xqtb", "KK.xqtb"]
    assert note == ("Build cancelled: KK, KAK finished and kept; the unfinished table "
                    "left no file.")
    left = plan_build(Material.from_board(Board(ROOK_MATE)), tmp_path, 1)
    assert left.names == ["KRK", "KRKA"]
    assert "Its sub-tables KRK are missing too." in after
    assert f"Building takes {duration_text(left.seconds, approximate=True)} on 1 thread" in after
