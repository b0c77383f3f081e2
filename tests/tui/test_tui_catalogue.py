"""The catalogue browser: the studio opens on it; its search, filters and pages show what
:func:`puzzles.catalogue.query` answers; Enter opens an entry in analyse mode; the palette,
the F-keys and the help know it.  The catalogue is built from ``puzzles/data`` into a
temporary file (``XQSTUDIO_CATALOGUE``)."""
from __future__ import annotations

import io
import re

import pytest
from rich.console import Console
from textual import on
from textual.app import App
from textual.widgets import DataTable, Input, Select, Static
from textual.widgets._select import SelectOverlay

from puzzles.catalogue import query
from tui.app import XQStudioApp
from tui.screens.analyse import AnalyseScreen
from tui.screens.catalogue import PAGE_SIZE, CatalogueScreen, verdict_class
from tui.screens.help import HelpScreen
from tui.settings import Settings
from tui.widgets.board import BoardView

SIZE = (110, 34)


async def catalogue_opened(pilot) -> CatalogueScreen:
    """Wait for the catalogue screen to open its database and show the first page."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    return pilot.app.screen


def shown(screen: CatalogueScreen) -> tuple[str, list[str], str | None]:
    """The count line, the titles in the results table and the FEN of the preview."""
    table = screen.query_one("#catalogue-results", DataTable)
    titles = [str(title) for title in table.get_column("title")]
    preview = screen.query_one("#catalogue-board", BoardView).board
    count = str(screen.query_one("#catalogue-count", Static).render())
    return count, titles, preview.fen() if preview else None


def test_the_studio_opens_on_the_catalogue_unless_given_a_fen(catalogue, drive):
    async def scenario(pilot):
        return type(await catalogue_opened(pilot))

    assert drive(XQStudioApp(), scenario, SIZE) is CatalogueScreen
    assert drive(XQStudioApp("3k5/9/9/9/9/9/9/9/9/4K3R w"), scenario, SIZE) is AnalyseScreen


@pytest.mark.slow
def test_search_shows_the_hits_of_the_catalogue_query(catalogue, drive):
    async def scenario(pilot):
        screen = await catalogue_opened(pilot)
        everything = shown(screen)
        await pilot.press("slash", *"马后炮")
        chinese = shown(screen)
        focused = pilot.app.focused.id        # typing stays in the search box
        screen.query_one("#catalogue-search", Input).value = "trough horse"
        await pilot.pause()
        return everything, chinese, focused, shown(screen)

    everything, chinese, focused, english = drive(XQStudioApp(), scenario, SIZE)
    first_page = query(catalogue, limit=PAGE_SIZE)
    pages = -(-first_page.total // PAGE_SIZE)
    assert everything[0] == f"1–{PAGE_SIZE} of {first_page.total} · page 1/{pages} (PgUp/PgDn)"
    assert everything[1] == [entry.title for entry in first_page.entries]
    hits = query(catalogue, text="马后炮", limit=PAGE_SIZE)
    # The pattern's three examples first, then the compositions whose line shows one.
    assert [entry.kind for entry in hits.entries[:4]] == ["example"] * 3 + ["composition"]
    hit_pages = -(-hits.total // PAGE_SIZE)
    assert chinese == (f"1–{len(hits.entries)} of {hits.total} · page 1/{hit_pages} (PgUp/PgDn)",
                       [entry.title for entry in hits.entries], hits.entries[0].fen)
    assert focused == "catalogue-search"
    trough = query(catalogue, text="trough horse")
    assert english[0].startswith(f"1–{trough.total} of {trough.total}")
    assert english[1] == [entry.title for entry in trough.entries]


@pytest.mark.slow
def test_filters_combine_as_in_the_query(catalogue, drive):
    async def scenario(pilot):
        screen = await catalogue_opened(pilot)
        screen.query_one("#catalogue-pattern", Select).value = "trough-horse"
        await pilot.pause()
        by_pattern = shown(screen)
        screen.query_one("#catalogue-pattern", Select).clear()
        screen.query_one("#catalogue-collection", Select).value = "适情雅趣"
        screen.query_one("#catalogue-verdict", Select).value = "mate"
        await pilot.click("#catalogue-max-moves")
        await pilot.press("3")
        by_collection = shown(screen)
        screen.query_one("#catalogue-collection", Select).clear()
        screen.query_one("#catalogue-verdict", Select).clear()
        screen.query_one("#catalogue-max-moves", Input).value = ""
        screen.query_one("#catalogue-kind", Select).value = "example"
        screen.query_one("#catalogue-pieces", Input).value = "车马"
        await pilot.pause()
        by_pieces = shown(screen)
        screen.query_one("#catalogue-pieces", Input).value = "车Q"
        await pilot.pause()
        return by_pattern, by_collection, by_pieces, shown(screen)

    by_pattern, by_collection, by_pieces, bad_pieces = drive(XQStudioApp(), scenario, SIZE)
    for (count, titles, _), expected in (
            (by_pattern, query(catalogue, pattern="卧槽马", limit=PAGE_SIZE)),
            (by_collection, query(catalogue, collection="适情雅趣", verdict="mate", max_moves=3,
                                  limit=PAGE_SIZE)),
            (by_pieces, query(catalogue, kind="example", pieces="RN", limit=PAGE_SIZE))):
        assert expected.entries
        assert count.startswith(f"1–{len(expected.entries)} of {expected.total} ")
        assert titles == [entry.title for entry in expected.entries]
    assert bad_pieces[0] == "unknown piece 'Q' in '车Q' (use R N C P A B or 车马炮兵仕相)"
    assert bad_pieces[1] == []


def test_the_verdict_filter_offers_classes_in_order(catalogue, drive):
    # Issue 38: the filter offered every recorded verdict ("mate within 10", "mate within
    # 11", ...) in no order; it offers their classes, and each row keeps its exact verdict.
    async def scenario(pilot):
        screen = await catalogue_opened(pilot)
        select = screen.query_one("#catalogue-verdict", Select)
        select.focus()
        await pilot.press("enter")                     # open the list
        await pilot.pause()
        options = [str(option.prompt) for option in
                   select.query_one(SelectOverlay).options]
        await pilot.press("escape")
        select.value = "mate within N"
        await pilot.pause()
        table = screen.query_one("#catalogue-results", DataTable)
        return options, shown(screen)[0], [str(cell) for cell in table.get_column("verdict")]

    options, count, verdicts = drive(XQStudioApp(), scenario, (80, 24))
    assert options == ["Verdict: all", "mate", "mate within N", "no mate within N", "unproven",
                       "refuted", "draw", "table draw"]
    within = sorted({entry.verdict for entry in query(catalogue, limit=None).entries
                     if entry.verdict.startswith("mate within ")})
    assert len(within) > 5
    expected = query(catalogue, verdict=within, limit=PAGE_SIZE)
    assert count.startswith(f"1–{PAGE_SIZE} of {expected.total} ")
    assert verdicts == [entry.verdict for entry in expected.entries]
    assert len(set(verdicts)) > 1 and all(v.startswith("mate within ") for v in verdicts)


@pytest.mark.parametrize(("verdict", "name"), [
    ("mate", "mate"), ("mate within 12", "mate within N"),
    ("no mate within 30", "no mate within N"),
    ("unproven", "unproven"), ("unproven within 20", "unproven"), ("refuted within 9", "refuted"),
    ("draw (rule-dependent)", "draw"), ("table draw", "table draw"),
    ("no win within 20", "no win within N"), ("Black wins", "Red or Black wins"),
    ("unverified", "unverified"), ("mate in 3?", "other")])
def test_each_verdict_has_one_class(verdict, name):
    assert verdict_class(verdict) == name


def test_pages_turn_with_page_down_and_up(catalogue, drive):
    async def scenario(pilot):
        screen = await catalogue_opened(pilot)
        await pilot.press("pagedown", "pagedown")
        third = shown(screen)
        await pilot.press("pageup")
        second = shown(screen)
        await pilot.press("pageup", "pageup")       # the second press has no page to go to
        return third, second, shown(screen)

    third, second, first = drive(XQStudioApp(), scenario, SIZE)
    total = query(catalogue, limit=0).total
    pages = -(-total // PAGE_SIZE)
    for (count, titles, _), offset in ((third, 2 * PAGE_SIZE), (second, PAGE_SIZE), (first, 0)):
        page = query(catalogue, limit=PAGE_SIZE, offset=offset)
        assert count == (f"{offset + 1}–{offset + PAGE_SIZE} of {total} · page "
                         f"{offset // PAGE_SIZE + 1}/{pages} (PgUp/PgDn)")
        assert titles == [entry.title for entry in page.entries]


@pytest.mark.slow
def test_enter_opens_the_entry_in_analyse_mode_and_f2_f3_switch(catalogue, drive):
    async def scenario(pilot):
        screen = await catalogue_opened(pilot)
        screen.query_one("#catalogue-search", Input).value = "马后炮"
        await pilot.pause()
        await pilot.press("down")
        preview = shown(screen)[2]
        await pilot.press("enter")
        await pilot.pause()
        analyse = pilot.app.screen
        opened = (type(analyse), analyse.start_board.fen(),
                  analyse.query_one("#board", BoardView).board.fen())
        await pilot.press("f2")
        await pilot.pause()
        back = pilot.app.screen
        count = shown(back)[0]
        await pilot.press("f3")
        await pilot.pause()
        return preview, opened, back is screen, count, pilot.app.screen is analyse

    preview, (screen_type, start_fen, board_fen), same_screen, count, analyse_again = drive(
        XQStudioApp(), scenario, SIZE)
    entry = query(catalogue, text="马后炮").entries[1]
    assert preview == entry.fen
    assert screen_type is AnalyseScreen and start_fen == board_fen == entry.fen
    hits = query(catalogue, text="马后炮").total
    assert same_screen and count.startswith(f"1–{min(hits, PAGE_SIZE)} of {hits}") and \
        analyse_again


@pytest.mark.slow
def test_enter_asks_the_app_by_message_to_open_the_entry(catalogue, drive):
    """The catalogue screen does not know the studio's class: Enter posts
    :class:`CatalogueScreen.OpenInAnalyse`, which any app hosting the screen may answer."""
    class Host(App):
        def __init__(self) -> None:
            super().__init__()
            self.requests: list[tuple[str, str | None]] = []

        def on_mount(self) -> None:
            self.push_screen(CatalogueScreen(Settings.resolve()))

        @on(CatalogueScreen.OpenInAnalyse)
        def record(self, message: CatalogueScreen.OpenInAnalyse) -> None:
            self.requests.append((message.board.fen(), message.stipulation))

    async def scenario(pilot):
        screen = await catalogue_opened(pilot)
        screen.query_one("#catalogue-search", Input).value = "马后炮"
        await pilot.pause()
        await pilot.press("down", "enter")
        await pilot.pause()
        return pilot.app.requests, pilot.app.screen is screen

    host = Host()
    requests, still_shown = drive(host, scenario, SIZE)
    entry = query(catalogue, text="马后炮").entries[1]
    assert requests == [(entry.fen, entry.stipulation)]
    assert still_shown                    # the host did nothing else: the screen stays


def test_palette_browses_the_catalogue_and_help_lists_its_keys(catalogue, drive):
    async def scenario(pilot):
        await pilot.press("ctrl+p", *"browse the catalogue")
        await pilot.pause(0.3)
        await pilot.press("enter")
        screen = await catalogue_opened(pilot)
        await pilot.press("f1")
        help_screen = pilot.app.screen
        console = Console(width=100, record=True, file=io.StringIO())
        for section in help_screen.query(".help-section").results(Static):
            console.print(section.content)
        return type(screen), type(help_screen), console.export_text()

    app = XQStudioApp("3k5/9/9/9/9/9/9/9/9/4K3R w")
    screen_type, help_type, text = drive(app, scenario, SIZE)
    assert screen_type is CatalogueScreen and help_type is HelpScreen
    for title, keys, description in (
            ("Studio", "f2", "Catalogue"), ("Studio", "f3", "Analyse"),
            ("Studio", "f4", "Practise this position"),
            ("Catalogue", "⏎", "Open in analyse mode"), ("Catalogue", "p", "Practise"),
            ("Catalogue", "/", "Search"), ("Catalogue", "pgdn", "Next page")):
        section = text[re.search(rf"^{title} *$", text, re.M).start():]
        assert re.search(rf"^{re.escape(keys)} +{re.escape(description)} *$", section, re.M), \
            (title, keys)
    # Only the catalogue's keys: its board is a picture (no cursor keys), no practice keys.
    for absent in ("Board", "Practice", "Analyse"):
        assert not re.search(rf"^{absent} *$", text, re.M), absent
    assert "Move the cursor" not in text and "Hint" not in text


def test_catalogue_snapshot(catalogue, snap_compare):
    async def search(pilot):
        await catalogue_opened(pilot)
        pilot.app.screen.query_one("#catalogue-search", Input).value = "马后炮"
        await pilot.pause()

    assert snap_compare(XQStudioApp(), press=["down"], run_before=search, terminal_size=SIZE)


def test_a_win_that_its_table_shows_drawn_reads_as_a_draw(catalogue):
    """《适情雅趣》 No. 549 (K C A vs K P, titled a win): the verdict column says "table
    draw", the length column has no mate length ("—", as for any entry without one) and the
    preview says why.  A draw study's length is its drawing line, in plies."""
    from tui.screens.catalogue import entry_length

    drawn = query(catalogue, collection="适情雅趣", verdict="table draw", limit=None).entries
    assert 549 in [entry.number for entry in drawn] and len(drawn) >= 10
    entry = next(entry for entry in drawn if entry.number == 549)
    assert (entry_length(entry), entry_length(entry, long=True)) == (
        "—", "a draw as set (its table)")
    study = next(entry for entry in query(catalogue, verdict="draw", limit=None).entries
                 if entry.stipulation == "draw" and entry.main_line_zh)
    plies = len(study.main_line_zh.split())
    assert (entry_length(study), entry_length(study, long=True)) == (
        f"{plies} plies", f"drawing line of {plies} plies")


@pytest.mark.slow
def test_back_from_analyse_mode_the_cursor_stays_on_the_entry(catalogue, drive):
    """F2 back to the catalogue keeps the highlighted row (it went back to the first row, so
    ``p`` practised another entry than the one the user left from)."""
    async def scenario(pilot):
        screen = await catalogue_opened(pilot)
        await pilot.press("down", "down", "down")
        left_from = screen.highlighted()
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("f2")
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        return left_from, screen.highlighted(), shown(screen)[2]

    left_from, back_on, preview = drive(XQStudioApp(), scenario, SIZE)
    assert left_from is not None and left_from == query(catalogue).entries[3]
    assert back_on == left_from and preview == left_from.fen


@pytest.mark.slow
def test_enter_after_a_search_opens_the_entry_at_once(catalogue, drive):
    """Type a search, down to the second hit, Enter: analyse mode on it (the first Enter only
    moved the focus to the results)."""
    async def scenario(pilot):
        await catalogue_opened(pilot)
        await pilot.press("slash", *"马后炮")
        await pilot.pause()
        await pilot.press("down", "enter")
        await pilot.pause()
        analyse = pilot.app.screen
        return type(analyse), analyse.query_one("#board", BoardView).board.fen()

    screen_type, fen = drive(XQStudioApp(), scenario, SIZE)
    assert screen_type is AnalyseScreen and fen == query(catalogue, text="马后炮").entries[1].fen
