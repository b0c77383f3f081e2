"""The set-up editor driven by keys (and a few clicks): the exact FEN it builds, the rules
engine's complaints shown as the position changes, and handing the position to analyse mode."""
from __future__ import annotations

import pytest
from textual.widgets import Static

from tui.screens.analyse import AnalyseScreen
from tui.screens.setup import SetupScreen
from tui.widgets.board import BoardView
from tui.widgets.piece_palette import PiecePalette
from xiangqi import STARTING_FEN


def editor(pilot) -> SetupScreen:
    screen = pilot.app.screen
    assert isinstance(screen, SetupScreen)
    return screen


def validation(pilot) -> str:
    return str(editor(pilot).query_one("#setup-validation", Static).content)


@pytest.mark.slow
def test_set_up_a_position_by_keys(studio):
    async def scenario(pilot):
        await pilot.press("e")
        messages = {}
        await pilot.press("ctrl+l")                         # kings stay on e0 and e9
        messages["cleared"] = (editor(pilot).fen(), validation(pilot))
        await pilot.press(*["up"] * 9, "x")                 # take the black king off e9
        messages["no king"] = validation(pilot)
        await pilot.press("left", "k")                      # black king on d9
        messages["kings"] = validation(pilot)
        await pilot.press("right", "down", "a")             # black advisor on e8
        await pilot.press(*["down"] * 8, "left", "R")       # red rook on d0: black in check
        messages["check"] = validation(pilot)
        await pilot.press("left", "R", "left", "R")         # a third red rook
        messages["too many"] = validation(pilot)
        await pilot.press("x", "right", "x")                # two rooks off again
        await pilot.press("left", "left", "P")              # a red pawn on a0
        messages["pawn"] = validation(pilot)
        await pilot.press("delete", "t")                    # Black to move
        messages["legal"] = validation(pilot)
        fen = editor(pilot).fen()
        await pilot.press("enter")
        await pilot.pause()
        screen = pilot.app.screen
        return messages, fen, type(screen), screen.board.fen(), screen.line

    messages, fen, screen_type, analysed, line = studio(scenario)
    assert messages["cleared"] == (
        "4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1",
        "✗ the kings on e0 and e9 face each other on an open file")
    assert messages["no king"] == "✗ Black has no king"
    assert messages["kings"] == "✓ Legal: Red 红方 to move"
    assert messages["check"] == "✗ Black is in check but Red is to move"
    assert messages["too many"] == ("✗ too many Red rooks: the one on d0 exceeds the limit "
                                    "of 2")
    assert messages["pawn"] == ("✗ Red pawn on a0 is outside the points a pawn of its side "
                                "can reach")
    assert messages["legal"] == "✓ Legal: Black 黑方 to move, in check 将军"
    assert fen == "3k5/4a4/9/9/9/9/9/9/9/3RK4 b - - 0 1"
    assert screen_type is AnalyseScreen
    assert analysed == fen and line == []


@pytest.mark.slow
def test_letters_aliases_and_the_pen(studio):
    async def scenario(pilot):
        await pilot.press("e", "ctrl+l", "up", "up", "H")   # H: a red horse on e2
        await pilot.press("left", "left", "down", "down", "E")   # E: a red elephant on c0
        await pilot.press(*["up"] * 4, "space")             # the pen (elephant) on c4
        await pilot.press("space")                          # ...and off again
        await pilot.press("right", "space")                 # on d4
        return (editor(pilot).fen(), validation(pilot),
                editor(pilot).query_one(PiecePalette).pen.symbol())

    fen, message, pen = studio(scenario)
    assert fen == "4k4/9/9/9/9/3B5/9/4N4/9/2B1K4 w - - 0 1"
    assert message == "✗ Red elephant on d4 is outside the seven elephant points of its side"
    assert pen == "B"


@pytest.mark.slow
def test_mirror_swap_side_and_start(studio):
    async def scenario(pilot):
        await pilot.press("e", "ctrl+l", "up", "A", "left", "up", "R")   # A on e1, R on d2
        await pilot.press("m")
        mirrored = editor(pilot).fen()
        await pilot.press("w")
        swapped = editor(pilot).fen(), validation(pilot)
        await pilot.press("t")
        side = editor(pilot).fen()
        await pilot.press("s")
        return mirrored, swapped, side, editor(pilot).fen()

    mirrored, (swapped, message), side, start = studio(scenario)
    assert mirrored == "4k4/9/9/9/9/9/9/5R3/4A4/4K4 w - - 0 1"
    assert swapped == "4k4/4a4/5r3/9/9/9/9/9/9/4K4 b - - 0 1"
    assert message == "✓ Legal: Black 黑方 to move"
    assert side == "4k4/4a4/5r3/9/9/9/9/9/9/4K4 w - - 0 1"
    assert start == STARTING_FEN


def test_enter_refuses_an_illegal_position_and_escape_cancels(studio):
    async def scenario(pilot):
        await pilot.press("e", "ctrl+l", "enter")           # kings facing: not accepted
        refused = type(pilot.app.screen)
        await pilot.press("escape")
        await pilot.pause()
        return refused, pilot.app.notified, type(pilot.app.screen), pilot.app.screen.board.fen()

    refused, notified, after_escape, fen = studio(scenario)
    assert refused is SetupScreen
    assert notified == ["the kings on e0 and e9 face each other on an open file"]
    assert after_escape is AnalyseScreen and fen == STARTING_FEN


def test_clicks_place_the_palette_piece(studio):
    async def scenario(pilot):
        await pilot.press("e", "ctrl+l")
        board = editor(pilot).query_one("#setup-board", BoardView)
        # The black cannon is the sixth item of the palette's second row.
        await pilot.click("#palette", offset=(6 + 5 * 4, 1))
        target = board.point_offset(4 + 9 * 5)              # e5
        await pilot.click("#setup-board", offset=(target.x, target.y))
        return editor(pilot).fen(), board.cursor, board.square_at(target.x, target.y)

    fen, cursor, square = studio(scenario)
    assert fen == "4k4/9/9/9/4c4/9/9/9/9/4K4 w - - 0 1"
    assert cursor == square == 49
