"""Analyse mode driven by keys: moves, the move list in two notations, take-backs, navigation,
copying, pasting a FEN and flipping the board."""
from __future__ import annotations

import pytest
from rich.cells import cell_len
from textual import events
from textual.widgets import Input, Static

from tui.screens.analyse import AnalyseScreen
from tui.screens.fen_dialog import FenDialog
from tui.widgets.board import BoardView
from tui.widgets.move_list import MoveList
from tui.widgets.position_panel import PositionPanel
from tui.widgets.status_line import StatusLine
from xiangqi import STARTING_FEN

# The cursor starts on e0.  炮二平五 (h2e2), 马8进7 (h9g7), 马二进三 (h0g2):
OPENING_KEYS = ("right", "right", "right", "up", "up", "enter", "left", "left", "left", "enter",
                "l", "l", "l", "k", "k", "k", "k", "k", "k", "k", "space", "h", "j", "j", "enter",
                "right", "down", "down", "down", "down", "down", "down", "down", "enter",
                "left", "up", "up", "enter")
AFTER_ONE = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"
AFTER_TWO = "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2"
AFTER_THREE = "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R b - - 3 2"
BAD_LETTER_FEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNX w"


def shown(pilot) -> tuple[str, str, list[str], int]:
    """The FEN on the board, the screen's FEN, the move list and the ply."""
    screen = pilot.app.screen
    assert isinstance(screen, AnalyseScreen)
    board = screen.query_one(BoardView).board
    moves = screen.query_one(MoveList)
    return board.fen(), screen.board.fen(), moves.texts, moves.ply


@pytest.mark.slow
def test_moves_by_keys_in_chinese_and_iccs(studio):
    async def scenario(pilot):
        await pilot.press(*OPENING_KEYS)
        chinese = shown(pilot)
        move_list = pilot.app.screen.query_one(MoveList)
        chinese_line = move_list.line_text()
        await pilot.press("n", "n")                 # chinese -> wxf -> iccs
        return chinese, chinese_line, move_list.notation, move_list.texts, move_list.line_text()

    chinese, chinese_line, notation, iccs, iccs_line = studio(scenario)
    assert chinese == (AFTER_THREE, AFTER_THREE, ["炮二平五", "马8进7", "马二进三"], 3)
    assert chinese_line == "1. 炮二平五 马8进7 2. 马二进三"
    assert notation == "iccs"
    assert iccs == ["h2e2", "h9g7", "h0g2"]
    assert iccs_line == "1. h2e2 h9g7 2. h0g2"


def test_an_illegal_target_plays_nothing(studio):
    async def scenario(pilot):
        # Select the rook on i0 and try to jump it over the horse... to i5, where it cannot go.
        await pilot.press("right", "right", "right", "right", "enter")
        selected = pilot.app.screen.query_one(BoardView).selected
        await pilot.press("up", "up", "up", "up", "up", "enter")
        return selected, shown(pilot)

    selected, (fen, _, moves, ply) = studio(scenario)
    assert selected == 8                            # i0
    assert (fen, moves, ply) == (STARTING_FEN, [], 0)


@pytest.mark.slow
def test_take_back_and_navigation(studio):
    async def scenario(pilot):
        await pilot.press(*OPENING_KEYS)
        await pilot.press("u")
        after_u = shown(pilot)
        await pilot.press("backspace")
        after_backspace = shown(pilot)
        # 马8进7 again; the cursor stayed on g2, where 马二进三 ended.
        await pilot.press("right", *["up"] * 7, "enter", "left", "down", "down", "enter")
        await pilot.press("left_square_bracket", "left_square_bracket")
        at_start = shown(pilot)
        await pilot.press("right_square_bracket")
        forward = shown(pilot)
        await pilot.press("end")
        end = shown(pilot)
        await pilot.press("home")
        home = shown(pilot)
        return after_u, after_backspace, at_start, forward, end, home

    after_u, after_backspace, at_start, forward, end, home = studio(scenario)
    assert after_u == (AFTER_TWO, AFTER_TWO, ["炮二平五", "马8进7"], 2)
    assert after_backspace == (AFTER_ONE, AFTER_ONE, ["炮二平五"], 1)
    assert at_start == (STARTING_FEN, STARTING_FEN, ["炮二平五", "马8进7"], 0)
    assert forward == (AFTER_ONE, AFTER_ONE, ["炮二平五", "马8进7"], 1)
    assert end == (AFTER_TWO, AFTER_TWO, ["炮二平五", "马8进7"], 2)
    assert home[0] == STARTING_FEN and home[3] == 0


@pytest.mark.slow
def test_a_different_move_replaces_the_rest_of_the_line(studio):
    async def scenario(pilot):
        await pilot.press(*OPENING_KEYS)
        await pilot.press("home")
        # 炮八平五 instead of 炮二平五: from b2 to e2.  Cursor is on g2 after the opening.
        await pilot.press(*["left"] * 5, "enter", "right", "right", "right", "enter")
        return shown(pilot)

    fen, _, moves, ply = studio(scenario)
    assert moves == ["炮八平五"] and ply == 1
    assert fen == "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/4C2C1/9/RNBAKABNR b - - 1 1"


def test_status_line_and_position_panel_follow_the_position(studio):
    async def scenario(pilot):
        screen = pilot.app.screen
        return (str(screen.query_one(StatusLine).content),
                str(screen.query_one(PositionPanel).content))

    status, panel = studio(scenario, fen="3k5/2R6/9/9/9/9/9/9/9/4K4 b")
    assert status == "Black 黑方 is in stalemate 困毙: Red 红方 wins (1-0) · ply 0/0"
    assert "3k5/2R6/9/9/9/9/9/9/9/4K4 b - - 0 1" in panel and "0 legal moves" in panel


@pytest.mark.slow
def test_checkmate_by_keys_is_reported(studio):
    async def scenario(pilot):
        # The rook on a8 checks on a9; the rook on i8 guards d8, the kings guard e9.
        await pilot.press("left", "left", "left", "left")          # a0
        await pilot.press(*["up"] * 8, "enter", "up", "enter")      # a8 -> a9
        return str(pilot.app.screen.query_one(StatusLine).content), shown(pilot)[2]

    status, moves = studio(scenario, fen="3k5/R7R/9/9/9/9/9/9/9/4K4 w")
    assert moves == ["车九进一"]
    assert status.startswith("Black 黑方 is in checkmate 将死: Red 红方 wins (1-0)")


def test_copy_fen_and_moves(studio):
    async def scenario(pilot):
        await pilot.press(*OPENING_KEYS[:10])
        await pilot.press("c")
        fen = pilot.app.clipboard
        await pilot.press("m")
        return fen, pilot.app.clipboard, pilot.app.notified

    fen, moves, notes = studio(scenario)
    assert fen == AFTER_ONE
    assert moves == "1. 炮二平五"
    assert AFTER_ONE in notes and "1. 炮二平五" in notes


def test_paste_a_bad_fen_shows_the_error_with_its_place(studio):
    async def scenario(pilot):
        board = pilot.app.screen.query_one(BoardView)
        board.post_message(events.Paste(BAD_LETTER_FEN))         # a terminal paste
        await pilot.pause()
        dialog = pilot.app.screen
        assert isinstance(dialog, FenDialog)
        prefilled = dialog.query_one(Input).value
        await pilot.press("enter")
        error = str(dialog.query_one("#fen-error", Static).content)
        still_open = pilot.app.screen is dialog
        await pilot.press("escape")
        return prefilled, error, still_open, shown(pilot)[0]

    prefilled, error, still_open, fen = studio(scenario)
    assert prefilled == BAD_LETTER_FEN
    assert still_open
    assert error == ("Not a legal position: unknown piece letter 'X' at i0 "
                     "(FEN rank 10, character 9)")
    assert fen == STARTING_FEN


def test_paste_fen_by_key_opens_the_position(studio):
    fen = "3k5/4a4/9/9/9/9/9/9/9/3RK4 b - - 0 1"

    async def scenario(pilot):
        await pilot.press(*OPENING_KEYS[:10], "p")
        dialog = pilot.app.screen
        dialog.query_one(Input).value = "4k4/9/9/9/9/9/9/9/9/4K4 w"
        await pilot.press("enter")
        facing = str(dialog.query_one("#fen-error", Static).content)
        dialog.query_one(Input).value = fen
        await pilot.press("enter")
        await pilot.pause()
        return facing, shown(pilot)

    facing, (board_fen, screen_fen, moves, ply) = studio(scenario)
    assert "the kings on e0 and e9 face each other" in facing
    assert board_fen == screen_fen == fen and moves == [] and ply == 0


def test_flip_turns_the_board_and_the_cursor_keys(studio):
    async def scenario(pilot):
        board = pilot.app.screen.query_one(BoardView)
        before = board.render().plain.splitlines()
        await pilot.press("f")
        after = board.render().plain.splitlines()
        await pilot.press("up")                   # on a flipped board up goes towards rank 0
        cursor_after_up = board.cursor
        await pilot.press("f", "up")
        return board.flipped, before, after, cursor_after_up, board.cursor

    flipped, before, after, cursor_after_up, cursor = studio(scenario)
    assert flipped is False                       # flipped twice
    assert before[0].split() == list("１２３４５６７８９")
    assert before[-1].split() == list("九八七六五四三二一")
    assert after[0].split() == list("一二三四五六七八九")
    assert after[-1].split() == list("９８７６５４３２１")
    assert cursor_after_up == 4                   # e0 stays: nothing below rank 0
    assert cursor == 13                           # e1


@pytest.mark.slow
def test_a_line_starting_with_black_and_a_click_in_the_move_list(studio):
    async def scenario(pilot):
        # 将4平5 (d9e9), then 车六进九 (d0d9) checks again.
        await pilot.press("left", *["up"] * 9, "enter", "right", "enter")
        await pilot.press("left", *["down"] * 9, "enter", *["up"] * 9, "enter")
        move_list = pilot.app.screen.query_one(MoveList)
        texts, line = move_list.texts, move_list.line_text()
        # Row 1 (under the border): "2." then Red's move; a click on it shows ply 2...
        await pilot.click(MoveList, offset=(1 + len("2.") + 2, 2))
        after_second = shown(pilot)[3]
        # ...and Black's move on row 0, right of the "…" cell, shows ply 1.
        move_width = max(cell_len(text) for text in texts) + 2
        await pilot.click(MoveList, offset=(1 + len("1.") + move_width + 2, 1))
        return texts, line, after_second, shown(pilot)

    texts, line, after_second, (fen, _, moves, ply) = studio(
        scenario, fen="3k5/4a4/9/9/9/9/9/9/9/3RK4 b - - 0 1")
    assert texts == ["将4平5", "车六进九"]
    assert line == "1... 将4平5 2. 车六进九"
    assert after_second == 2
    assert (fen, ply) == ("4k4/4a4/9/9/9/9/9/9/9/3RK4 w - - 1 2", 1)
