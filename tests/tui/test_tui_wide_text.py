"""Chinese text keeps every character on screen: in the catalogue's drop-down lists (drawn in
front of other widgets, see :mod:`tui.wide_text`), in the chosen filter and in the results'
columns, at 80×24 and 120×40; and the width helpers count cells, not code points."""
from __future__ import annotations

import pytest
from textual.widgets import DataTable, Select

from puzzles.catalogue import query
from tui.app import XQStudioApp
from tui.wide_text import display_width, fit_to_width

LABEL = "江湖四大名局 (5)"


def screen_lines(app) -> list[str]:
    """The text of every line of the screen, as the compositor draws it for a full update."""
    strips = app.screen._compositor.render_strips()
    return ["".join(segment.text for segment in strip) for strip in strips]


def partial_update_lines(app) -> list[str]:
    """The text of every line as a partial update of the whole screen draws it, after
    checking that its pieces tile each line (each piece ends where the next one starts),
    which is what the terminal output of a partial update relies on."""
    compositor = app.screen._compositor
    width, height = compositor.size
    compositor._dirty_regions.add(compositor.size.region)
    update = compositor.render_partial_update()
    assert update is not None
    lines = []
    for y in range(height):
        line = update.chops[y]
        for (x, strip), end in zip(line.items(), update.chop_ends[y]):
            assert strip is not None and x + strip.cell_length == end, (y, x, end)
        assert update.chop_ends[y][-1] == width
        lines.append("".join(segment.text for strip in line.values() for segment in strip))
    return lines


async def catalogue_opened(pilot):
    """The catalogue screen, once its database is open and the first page shown."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    return pilot.app.screen


def with_label(lines: list[str]) -> list[str]:
    return [line for line in lines if LABEL in line]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_the_collection_list_and_the_chosen_collection_show_the_whole_chinese_name(
        catalogue, drive, size):
    async def scenario(pilot):
        screen = await catalogue_opened(pilot)
        select = screen.query_one("#catalogue-collection", Select)
        select.focus()
        await pilot.press("enter")               # the drop-down list, over the filters
        await pilot.pause()
        listed = with_label(screen_lines(pilot.app)), with_label(partial_update_lines(pilot.app))
        await pilot.press("down", "enter")       # 江湖四大名局, the first collection
        await pilot.pause()
        table = screen.query_one("#catalogue-results", DataTable)
        places = [str(place) for place in table.get_column("where")]
        return select.value, listed, with_label(screen_lines(pilot.app)), places

    chosen, (full_update, partial_update), after, places = drive(XQStudioApp(), scenario, size)
    assert chosen == "江湖四大名局"
    assert len(full_update) == len(partial_update) == 1
    assert len(after) == 1                                       # the Select shows it
    assert places == [f"江湖四大名局:{number}" for number in range(1, 6)]


def test_the_result_columns_fit_chinese_places_and_the_title_takes_what_is_left(catalogue,
                                                                                drive):
    async def scenario(pilot):
        screen = await catalogue_opened(pilot)
        screen.query_one("#catalogue-collection", Select).value = "江湖四大名局"
        await pilot.pause()
        table = screen.query_one("#catalogue-results", DataTable)
        widths = {str(key.value): column.width for key, column in table.columns.items()}
        return widths, table.size.width - table.styles.scrollbar_size_vertical

    widths, room = drive(XQStudioApp(), scenario, (120, 40))
    assert widths["where"] == display_width("江湖四大名局:5") == 14
    verdicts = [entry.verdict for entry in query(catalogue, collection="江湖四大名局").entries]
    assert widths["verdict"] == max(map(display_width, verdicts))         # never cut
    # The title takes what the mark, kind, length and verdict leave (one cell of padding
    # either side of each); the reference lies beyond, reached by scrolling.
    assert widths["title"] == room - sum(widths[key] + 2 for key in
                                         ("done", "kind", "length", "verdict")) - 2


def test_widths_are_counted_in_terminal_cells():
    assert display_width("江湖 (5)") == 8
    assert fit_to_width("马后炮", 4) == "马后"
    assert fit_to_width("马后炮", 5) == "马后 "       # half a 炮 does not fit: a space
    assert fit_to_width("mate", 6) == "mate  "


def test_a_line_of_moves_wraps_between_moves_only():
    """At 80×24 the solver's line ended a row in "4." and Rich may cut 车四|进七: a move and
    its number stay together, whatever the width."""
    from tui.widgets.solver_panel import numbered

    moves = ["前车进四", "士5退4", "前车退一", "士4进5", "炮七进八", "马1退2", "车四平五", "将5平6"]
    line = numbered(moves, 0)
    for width in range(12, 60):
        rows = line.wrapped(width).plain.split("\n")
        assert all(display_width(row) <= width for row in rows), (width, rows)
        assert not any(row.endswith(".") for row in rows), (width, rows)
        pieces = " ".join(rows).replace("  ", " ").split(" ")
        assert [piece for piece in pieces if not piece.endswith(".")] == moves, (width, rows)
    assert line.wrapped(30).plain == "1. 前车进四 士5退4\n2. 前车退一 士4进5\n" \
                                     "3. 炮七进八 马1退2\n4. 车四平五 将5平6"
