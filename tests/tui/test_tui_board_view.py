"""``BoardView`` on its own: messages, the view never playing moves, marks and highlights,
mouse clicks and the keys it leaves to editors."""
from __future__ import annotations

import pytest
from rich.errors import StyleSyntaxError
from textual.app import App, ComposeResult

from tui.widgets.board import BoardView
from xiangqi import STARTING_FEN, Board, Move, parse_square


class BoardHost(App):
    """One board and a record of what it posts and of the keys it leaves to the app."""

    BINDINGS = [("h", "record('h')"), ("k", "record('k')"), ("enter", "record('enter')")]

    def __init__(self, view: BoardView) -> None:
        super().__init__()
        self.view = view
        self.moves: list[Move] = []
        self.activated: list[int] = []
        self.keys: list[str] = []

    def compose(self) -> ComposeResult:
        yield self.view

    def on_board_view_move_entered(self, message: BoardView.MoveEntered) -> None:
        self.moves.append(message.move)

    def on_board_view_square_activated(self, message: BoardView.SquareActivated) -> None:
        self.activated.append(message.square)

    def action_record(self, key: str) -> None:
        self.keys.append(key)


def background_at(view: BoardView, point: int):
    """The background colour drawn under ``point``."""
    offset = view.point_offset(point)
    segments = list(view.render_line(offset.y).crop(offset.x, offset.x + 2))
    return segments[0].style.bgcolor


def component_background(view: BoardView, name: str):
    return view.get_component_rich_style(f"board-view--{name}").bgcolor


def test_a_completed_move_is_posted_not_played(drive):
    async def scenario(pilot):
        view = pilot.app.view
        view.focus()
        await pilot.press("right", "right", "right", "up", "up", "enter")
        targets = view.legal_targets()
        await pilot.press("left", "left", "left", "enter")
        await pilot.pause()
        return pilot.app.moves, view.board.fen(), targets, view.selected

    moves, fen, targets, selected = drive(BoardHost(BoardView()), scenario)
    assert moves == [Move.from_iccs("h2e2")]
    assert fen == STARTING_FEN                   # the view left the move to its owner
    assert targets == {parse_square(name) for name in
                       "h1 h3 h4 h5 h6 h9 g2 f2 e2 d2 c2 i2".split()}
    assert selected is None


def test_clicks_select_and_move(drive):
    async def scenario(pilot):
        view = pilot.app.view
        for name in ("b0", "c2"):              # 马八进七
            offset = view.point_offset(parse_square(name))
            await pilot.click(BoardView, offset=(offset.x, offset.y))
        await pilot.pause()
        return pilot.app.moves

    assert drive(BoardHost(BoardView()), scenario) == [Move.from_iccs("b0c2")]


def test_the_owner_shows_last_move_check_and_marks(drive):
    board = Board("3k5/4a4/9/9/9/9/9/9/6R2/4K4 w")

    async def scenario(pilot):
        view = pilot.app.view
        move = Move.from_iccs("g1d1")
        after = board.copy()
        after.push(move)
        view.set_board(after, move)
        view.mark_squares([parse_square("e9")], "win")
        view.mark_squares([parse_square("a5")], "on #123456")
        await pilot.pause()
        seen = {name: background_at(view, parse_square(name)) for name in ("g1", "d9", "e9", "a5")}
        expected = {name: component_background(view, style) for name, style in
                    (("g1", "last-move"), ("d9", "check"), ("e9", "mark-win"))}
        view.clear_marks()
        await pilot.pause()
        return seen, expected, background_at(view, parse_square("e9"))

    seen, expected, cleared = drive(BoardHost(BoardView(board)), scenario)
    assert seen["g1"] == expected["g1"]
    assert seen["d9"] == expected["d9"]
    assert seen["e9"] == expected["e9"]
    assert seen["a5"].triplet.hex == "#123456"
    assert cleared != expected["e9"]


def test_a_bad_mark_style_is_refused_at_once():
    view = BoardView()
    with pytest.raises(StyleSyntaxError):
        view.mark_squares([0], "not a style at all")


@pytest.mark.parametrize("interactive", [False, True])
def test_a_non_interactive_view_reports_points_and_leaves_letters(drive, interactive):
    async def scenario(pilot):
        pilot.app.view.focus()
        await pilot.press("up", "space", "h", "k", "enter")
        await pilot.pause()
        return pilot.app.activated, pilot.app.keys, pilot.app.view.cursor

    activated, keys, cursor = drive(BoardHost(BoardView(interactive=interactive)), scenario)
    if interactive:                              # space selects nothing on an empty e1
        assert (activated, keys, cursor) == ([], [], parse_square("d2"))
    else:
        assert activated == [parse_square("e1")]
        assert cursor == parse_square("e1")      # h and k did not move the cursor
        assert keys == ["h", "k", "enter"]


def test_bare_placement_needs_no_legal_position(drive):
    from xiangqi import Piece

    async def scenario(pilot):
        view = pilot.app.view
        view.set_placement({0: Piece.from_symbol("P"), 4: Piece.from_symbol("K")})
        await pilot.pause()
        return view.board, view.render().plain.splitlines()[-2]

    board, bottom_rank = drive(BoardHost(BoardView(interactive=False)), scenario,
                               size=(34, 21))
    assert board is None
    assert bottom_rank.rstrip() == "兵──┴───┴───┴───帅──┴───┴───┴───┘"
