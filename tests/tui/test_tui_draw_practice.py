"""Draw practice in the studio: ``p`` on a draw study opens the practice of holding the draw;
a losing move is explained with its refutation (shown, then taken back), a holding one is
answered with the studio's resistance, and the drawing line of the analysis is followed
where no table covers the position (七星聚会)."""
from __future__ import annotations

import pytest
from textual.widgets import Input, Static

from tablebases.build import build
from tui.app import XQStudioApp
from tui.screens import practice
from tui.screens.draw_practice import DrawPracticeScreen
from tui.widgets.board import BoardView
from tui.widgets.move_list import MoveList
from xiangqi import Move

SIZE = (110, 34)


async def settle(pilot) -> None:
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def practise(pilot, text: str) -> DrawPracticeScreen:
    """From the catalogue: search ``text``, press p on the first hit, wait for the session."""
    await settle(pilot)
    pilot.app.screen.query_one("#catalogue-search", Input).value = text
    await pilot.pause()
    await pilot.press("p")
    await settle(pilot)
    return pilot.app.screen


async def enter_move(pilot, screen, iccs: str) -> None:
    board_view = screen.query_one("#practice-board", BoardView)
    board_view.post_message(BoardView.MoveEntered(board_view, Move.from_iccs(iccs)))
    await settle(pilot)


def words(screen, name: str) -> str:
    return str(screen.query_one(f"#practice-{name}", Static).render())


@pytest.fixture
def knkb_tables(tmp_path, monkeypatch):
    directory = tmp_path / "tables"
    build(["KNKB"], directory, log=lambda line: None)
    monkeypatch.setenv("XQSTUDIO_TABLES", str(directory))
    return directory


@pytest.mark.slow
def test_a_draw_study_is_practised_against_the_table(catalogue, knkb_tables, drive,
                                                     monkeypatch):
    monkeypatch.setattr(practice, "REFUTATION_SHOWN_SECONDS", 3.0)

    async def scenario(pilot):
        screen = await practise(pilot, "单相和马")
        opened = type(screen), words(screen, "problem"), words(screen, "message")
        await enter_move(pilot, screen, "a2c4")             # 相九进七: the horse wins
        board_view = screen.query_one("#practice-board", BoardView)
        refuted = words(screen, "message"), board_view.board.fen(), screen.session.board.fen()
        for _ in range(100):                                # the refutation goes
            await pilot.pause(0.1)
            if board_view.interactive:
                break
        taken_back = board_view.board.fen(), board_view.interactive
        await enter_move(pilot, screen, "a2c0")             # 相九退七 holds
        held = words(screen, "message"), words(screen, "score")
        moves = screen.query_one("#practice-moves", MoveList).line_text()
        return opened, refuted, taken_back, held, moves, screen.session.played

    opened, refuted, taken_back, held, moves, played = drive(XQStudioApp(), scenario, SIZE)
    screen_type, problem, message = opened
    assert screen_type is DrawPracticeScreen
    assert problem == ("孤雁折群（单相和马）\nRed 红方 to play and draw (和): keep the draw (a "
                       "drawing line of 15 plies known; tables on)")
    assert message == "Your move: hold the draw."
    text, shown, session = refuted
    assert text.startswith("✗ 相九进七 loses (table KNKB): Black 黑方 answers 马6退4 and mates "
                           "in 5: 1. ... 马6退4")
    assert text.endswith("Taken back: try again.")
    start = "4k4/9/9/9/9/9/9/B4n3/9/3K5 w - - 0 1"
    assert shown != session and session == start       # the refutation is only shown
    assert taken_back == (start, True)
    text, score = held
    assert text.startswith("✓ 相九退七 holds (table KNKB).\nBlack 黑方 replies ")
    assert text.endswith("(table KNKB).")
    assert score == "Score: 1 move held · 1 losing try · 0 hints"
    assert len(played) == 2 and moves.startswith("1. 相九退七")
    # The catalogue keeps the practice, as for the mates: one session, one losing try, the
    # draw not yet held to its end.
    rows = list(catalogue.query(
        "SELECT g.attempts, g.solved, g.clean, g.tries, g.hints FROM progress g JOIN "
        "compositions c ON c.id = g.entry_id AND g.kind = 'composition' "
        "WHERE c.title = '孤雁折群（单相和马）'"))
    assert rows == [{"attempts": 1, "solved": 0, "clean": 0, "tries": 1, "hints": 0}]


@pytest.mark.slow
def test_qixing_follows_the_analysis_line_without_tables(catalogue, drive):
    async def scenario(pilot):
        screen = await practise(pilot, "七星聚会")
        problem = words(screen, "problem")
        await enter_move(pilot, screen, "h2f2")             # 炮二平四, the line's first move
        return type(screen), problem, words(screen, "message"), screen.session.played

    screen_type, problem, message, played = drive(XQStudioApp(), scenario, SIZE)
    assert screen_type is DrawPracticeScreen
    assert problem.startswith("七星聚会") and problem.endswith("known; no tables)")
    assert message == ("✓ 炮二平四 holds (the analysis' drawing line).\nBlack 黑方 replies 卒5平6 "
                       "(the analysis' drawing line).")
    assert [m.iccs() for m in played] == ["h2f2", "e2f2"]
