"""Issue 38, item 1: the catalogue's layout per width.  At 80×24 the results take the whole
width (title, length and verdict readable), the description is below them and ``b`` shows the
board in the list's place; from 120 columns list and board are side by side.  Right and Left
scroll the results a column at a time; with no entry the preview shows nothing; Chinese
punctuation that closes a phrase never begins a line of the preview."""
from __future__ import annotations

import re

import pytest
from textual.widgets import DataTable, Input, Select, Static

from tests.tui.test_tui_wide_text import catalogue_opened, screen_lines
from tui.app import XQStudioApp
from tui.wide_text import NOT_AT_LINE_START, WrappedText, display_width, line_breaks

# A title as long as a line of the list at 120 columns: it must show whole, on two lines.
LONG_TITLE = "适情雅趣_李浭551局新版 *第480局 三军劫寨（仕相全对三卒）"


def visible(screen, selector: str) -> bool:
    widget = screen.query_one(selector)
    return widget.display and widget.region.area > 0


def test_at_80_by_24_the_list_shows_title_length_and_verdict_and_b_shows_the_board(
        catalogue, drive):
    async def scenario(pilot):
        screen = await catalogue_opened(pilot)
        first = screen_lines(pilot.app)
        board_at_first = visible(screen, "#catalogue-board")
        await pilot.press("b")
        await pilot.pause()
        with_board = screen_lines(pilot.app), visible(screen, "#catalogue-board"), \
            visible(screen, "#catalogue-results")
        await pilot.press("down")                 # the next entry, the list hidden
        await pilot.pause()
        moved = screen.highlighted().title
        await pilot.press("b")
        await pilot.pause()
        back = visible(screen, "#catalogue-results"), pilot.app.focused.id
        return first, board_at_first, with_board, moved, back

    first, board_at_first, with_board, moved, back = drive(XQStudioApp(), scenario, (80, 24))
    header = next(line for line in first if "title" in line and "verdict" in line)
    assert header.split() == ["✓", "kind", "title", "length", "verdict", "reference"]
    assert any(line.split()[:5] == ["例", "对面笑", "例1", "mate", "in"]
               and line.split()[5:7] == ["1", "mate"] for line in first)
    assert not board_at_first
    assert any("Verdict: mate · 对面笑:1" in line for line in first)   # the description
    assert "b Board" in first[-1]                                      # the footer
    lines, board_shown, list_shown = with_board
    assert board_shown and not list_shown
    assert any("九  八  七  六  五  四  三  二  一" in line for line in lines)
    assert any("对面笑 例1 · Facing Kings" in line for line in lines)   # beside the board
    assert "b List" in lines[-1]
    assert moved == "对面笑 例2"
    assert back == (True, "catalogue-results")


def list_part(line: str) -> str:
    """A screen line up to the board's edge, where the board is beside the list."""
    return re.split("[│├┌└]", line)[0]


def test_at_120_columns_list_and_board_are_side_by_side_and_nothing_is_cut(catalogue, drive):
    async def scenario(pilot):
        screen = await catalogue_opened(pilot)
        shown = {}
        for search in ("三军劫寨", "蚯蚓降龙"):
            screen.query_one("#catalogue-search", Input).value = search
            await pilot.pause()
            shown[search] = screen_lines(pilot.app)
        board, results = (screen.query_one(selector).region
                          for selector in ("#catalogue-board", "#catalogue-results"))
        b_works = any(key == "b" and active.enabled
                      for key, active in screen.active_bindings.items())
        return shown, board, results, b_works

    shown, board, results, b_works = drive(XQStudioApp(), scenario, (120, 40))
    assert board.x >= results.right and board.y < results.bottom
    assert not b_works                                         # the board is always there
    rows = [list_part(line).split() for line in shown["三军劫寨"] if "局 " in list_part(line)]
    assert rows == [["局", "三军劫寨（仕相全对三卒）", "—", "unproven", "适情雅趣:480"]]
    # A title longer than its column wraps onto a second line of its row, whole.
    lines = [list_part(line) for line in shown["蚯蚓降龙"]]
    first = next(index for index, line in enumerate(lines) if "蚯蚓降龙 (dpxq" in line)
    title_start = lines[first].index("蚯")
    title = (lines[first][title_start:lines[first].index("—")].strip() + " "
             + lines[first + 1].strip())
    assert title == "蚯蚓降龙 (dpxq 江湖八大排局 version; differs from xiangqiqipu diagram)"
    assert "—       unproven within 20" in lines[first]      # the reference scrolls


def test_right_and_left_scroll_the_results_a_column_at_a_time(catalogue, drive):
    async def scenario(pilot):
        screen = await catalogue_opened(pilot)
        screen.query_one("#catalogue-collection", Select).value = "江湖四大名局"
        await pilot.pause()
        table = screen.query_one("#catalogue-results", DataTable)
        table.focus()
        starts = [0]
        for column in table.ordered_columns:
            starts.append(starts[-1] + column.get_render_width(table))
        offsets = []
        for key in ("right", "right", "left", "left"):
            await pilot.press(key)
            await pilot.pause()
            offsets.append(round(table.scroll_x))
        return starts, offsets, table.max_scroll_x

    starts, offsets, most = drive(XQStudioApp(), scenario, (80, 24))
    assert most > 0                              # the reference lies beyond the right edge
    assert offsets[0] == starts[1]               # past the ✓ column: the kind column first
    assert offsets[1] == min(starts[2], most)
    assert offsets[2:] == [starts[1], 0]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_with_no_results_the_preview_shows_nothing(catalogue, drive, size):
    async def scenario(pilot):
        screen = await catalogue_opened(pilot)
        screen.query_one("#catalogue-search", Input).value = "no such entry zzzq"
        await pilot.pause()
        description = str(screen.query_one("#catalogue-description", Static).content)
        await pilot.press("b")                  # nothing to show: b does nothing
        await pilot.pause()
        return (visible(screen, "#catalogue-board"), description.strip(),
                visible(screen, "#catalogue-results"), screen_lines(pilot.app))

    board_shown, description, list_shown, lines = drive(XQStudioApp(), scenario, size)
    assert not board_shown and description == "" and list_shown
    assert any("0 of 0: nothing matches" in line for line in lines)
    assert not any("帅" in line or "將" in line or "将" in line for line in lines)


DESCRIPTION = ("利用双方帅将不得对面的规则做成杀势称为对面笑杀，这在蛮战对局中是屡见不鲜的对面笑杀"
               "亦名白脸将杀。车马兵（卒）联合作战，称为「三子归边」；它们：一、二、三！")


@pytest.mark.parametrize("width", range(6, 50))
def test_closing_punctuation_never_begins_a_wrapped_line(width):
    lines = wrapped_lines(DESCRIPTION, width)
    assert "".join(lines) == DESCRIPTION
    assert all(display_width(line) <= width for line in lines)
    assert not any(line[0] in NOT_AT_LINE_START for line in lines[1:]), lines


def wrapped_lines(text: str, width: int) -> list[str]:
    breaks = [0, *line_breaks(text, width), len(text)]
    return [text[start:end] for start, end in zip(breaks, breaks[1:])]


def test_the_wrapped_preview_keeps_english_words_whole():
    from rich.console import Console
    from rich.text import Text

    console = Console(width=20, record=True, legacy_windows=False)
    with console.capture() as captured:
        console.print(WrappedText(Text("马后炮，the rook checks while the king holds")))
    assert captured.get().splitlines() == ["马后炮，the rook", "checks while the", "king holds"]


def test_narrowed_again_after_a_wide_window_the_list_comes_first(catalogue, drive):
    """The board shown at 80 columns, the window widened to 120 (both side by side) and
    narrowed again: the list is back, not the board alone."""
    async def scenario(pilot):
        screen = await catalogue_opened(pilot)
        await pilot.press("b")
        await pilot.pause()
        board_alone = visible(screen, "#catalogue-board") and \
            not visible(screen, "#catalogue-results")
        await pilot.resize_terminal(120, 40)
        await pilot.pause(0.2)
        await pilot.resize_terminal(80, 24)
        await pilot.pause(0.2)
        return board_alone, visible(screen, "#catalogue-results"), \
            visible(screen, "#catalogue-board"), screen_lines(pilot.app)[-1]

    board_alone, list_shown, board_shown, footer = drive(XQStudioApp(), scenario, (80, 24))
    assert board_alone
    assert list_shown and not board_shown
    assert "b Board" in footer
