"""The tablebase panel hosted in a small app: exact values with units, the moves ranked wins
fastest first, the best move played by key, the DTM histogram, and building a missing table
from the panel (finished or cancelled)."""
from __future__ import annotations

import asyncio
import time

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Button, DataTable, Static

from solver import solve
from tablebases import describe, open_tablebase
from tablebases.build import build
from tablebases.stats import table_stats
from tui.wide_text import display_width
from tui.widgets.dtm_histogram import DtmHistogram
from tui.widgets.tablebase_panel import TablebasePanel
from xiangqi import Board, Move
from xiangqi.notation import write_move

HORSE_MATE = "9/9/3ak4/9/9/9/9/9/9/N2K5 w"     # KNKA: Red mates in 19 (37 plies), 困毙 at the end
# The same position with the colours swapped (and the board turned): Black to move wins.
HORSE_MATE_BLACK = "5k2n/9/9/9/9/9/9/4KA3/9/9 b"
ROOK_MATE = "3ak4/9/9/9/9/9/9/9/9/3K4R w"        # KRKA: mate in 3 (5 plies)


class Host(App):
    """The panel alone on a screen; the moves it asks to play are kept in ``played``."""

    def __init__(self, panel: TablebasePanel) -> None:
        super().__init__()
        self.panel = panel
        self.played: list[Move] = []

    def compose(self) -> ComposeResult:
        yield self.panel

    def on_mount(self) -> None:
        self.query_one("#tb-moves").focus()

    def on_tablebase_panel_play_move(self, message: TablebasePanel.PlayMove) -> None:
        self.played.append(message.move)


def drive(panel: TablebasePanel, scenario, size=(70, 50)):
    """Run ``scenario(pilot)`` against the panel in its host app; return what it returns."""
    async def run():
        app = Host(panel)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            return await scenario(pilot)
    return asyncio.run(run())


async def settle(pilot, timeout: float = 60.0) -> None:
    """Wait for the panel's workers (histogram counts, builds) and their messages."""
    deadline = time.monotonic() + timeout
    while any(not worker.is_finished for worker in pilot.app.workers):
        assert time.monotonic() < deadline, "a worker did not finish"
        await pilot.pause(0.02)
    await pilot.pause()


def text_of(panel: TablebasePanel, selector: str) -> str:
    return str(panel.query_one(selector, Static).content)


def rows(panel: TablebasePanel) -> list[list[str]]:
    table = panel.query_one("#tb-moves", DataTable)
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    directory = tmp_path_factory.mktemp("panel-tables")
    build(["KNKA", "KRK"], directory, log=lambda line: None)
    return directory


def test_value_with_units_and_moves_ranked_wins_fastest_first(tables):
    board = Board(HORSE_MATE)
    panel = TablebasePanel(tables, board=board, threads=1)

    async def scenario(pilot):
        return text_of(panel, "#tb-heading"), text_of(panel, "#tb-value"), rows(panel)

    heading, value_text, shown = drive(panel, scenario)
    tablebase = open_tablebase(tables)
    value = tablebase.probe(board)
    assert heading == "KNKA \u00b7 Red to move"
    assert value_text.splitlines() == [
        "Red wins, mate in 19 (37 plies)",                 # known fact, and what probe() says
        f"DTC {value.dtc} plies (to the first capture or mate)"]
    assert describe(value, board.turn) == "Red wins, mate in 19 (37 plies)"

    # Every legal move once, each valued from the position after it.
    assert sorted(r[0] for r in shown) == sorted(write_move(board, m, "chinese")
                                                 for m in board.legal_moves)
    by_text = {write_move(board, m, "chinese"): m for m in board.legal_moves}
    order = []
    for move_text, result, mate, _dtc in shown:
        after = board.copy()
        after.push(by_text[move_text])
        reply = tablebase.probe(after)
        plies = None if reply.dtm is None else reply.dtm + 1
        if reply.wdl < 0:
            assert (result, mate) == ("win", str(plies))
            order.append((0, plies))
        elif reply.wdl == 0:
            assert (result, mate) == ("draw", "\u2014")
            order.append((1, 0))
        else:
            assert (result, mate) == ("loss", str(plies))
            order.append((2, -plies))
    assert order == sorted(order)                  # wins fastest first, draws, losses longest
    assert order[0] == (0, 37)
    tablebase.close()


def test_the_60_move_rule_is_shown_where_it_changes_the_result(tables):
    # The same mate in 19 with 95 plies on the clock: its 29-ply conversion comes too late.
    board = Board(HORSE_MATE + " - - 95 1")
    panel = TablebasePanel(tables, board=board, threads=1)

    async def scenario(pilot):
        return text_of(panel, "#tb-value")

    assert drive(panel, scenario).splitlines() == [
        "Red wins, mate in 19 (37 plies); a draw under the 60-move rule",
        "DTC 29 plies (to the first capture or mate)",
        "60-move rule: the conversion takes 29 plies (DTC60); 25 plies are left on the clock"]


def test_the_colour_flipped_material_reads_the_same_table(tables):
    panel = TablebasePanel(tables, board=Board(HORSE_MATE_BLACK), threads=1)

    async def scenario(pilot):
        await pilot.press("h")
        await settle(pilot)
        return text_of(panel, "#tb-heading"), text_of(panel, "#tb-value"), \
            panel.query_one(DtmHistogram).marked

    heading, value_text, marked = drive(panel, scenario)
    assert heading == "KAKN \u00b7 Black to move \u00b7 table KNKA"
    assert value_text.splitlines()[0] == "Black wins, mate in 19 (37 plies)"
    assert marked is not None and marked.holds(37)


def test_b_plays_the_best_move_and_enter_plays_the_row(tables):
    board = Board(HORSE_MATE)
    panel = TablebasePanel(tables, board=board, threads=1)

    async def scenario(pilot):
        await pilot.press("b")
        await pilot.press("down", "enter")
        return list(pilot.app.played), rows(panel)

    played, shown = drive(panel, scenario)
    # The fastest win: the move after which the opponent is mated soonest (ties: ICCS order).
    tablebase = open_tablebase(tables)
    mated_after = {}
    for move in board.legal_moves:
        after = board.copy()
        after.push(move)
        if tablebase.probe_wdl(after) < 0:
            mated_after[move] = -tablebase.probe_dtm(after)
    tablebase.close()
    assert played[0] == min(mated_after, key=lambda m: (mated_after[m], m.iccs()))
    assert mated_after[played[0]] == 36
    assert write_move(board, played[1], "chinese") == shown[1][0]


def test_notation_is_reactive(tables):
    board = Board(HORSE_MATE)
    panel = TablebasePanel(tables, board=board, threads=1)

    async def scenario(pilot):
        chinese = rows(panel)[0][0]
        panel.notation = "iccs"
        await pilot.pause()
        return chinese, rows(panel)[0][0]

    chinese, iccs = drive(panel, scenario)
    move = Move.from_iccs(iccs)
    assert chinese == write_move(board, move, "chinese")
    assert iccs == move.iccs()


def test_histogram_marks_the_position_and_toggles(tables):
    board = Board(HORSE_MATE)
    panel = TablebasePanel(tables, board=board, threads=1)

    async def scenario(pilot):
        histogram = panel.query_one(DtmHistogram)
        hidden_at_first = not histogram.display
        await pilot.press("h")
        await settle(pilot)
        bars, marked, text = list(histogram.bars), histogram.marked, str(histogram.content)
        shown = histogram.display
        await pilot.press("h")
        hidden = not histogram.display
        await pilot.press("h")
        return hidden_at_first and shown, bars, marked, text, hidden, histogram.display

    shown, bars, marked, text, hidden, shown_again = drive(panel, scenario)
    assert shown
    red = table_stats("KNKA", tables)[0]
    assert sum(bar.count for bar in bars) == red.wins + red.draws + red.losses
    assert marked.outcome == "win" and marked.holds(37) and marked.count == \
        sum(n for plies, n in red.dtm_histogram.items() if marked.holds(plies))
    marked_lines = [line for line in text.splitlines() if "\u25c0 here" in line]
    assert len(marked_lines) == 1 and marked_lines[0].startswith(marked.label())
    assert marked.label() == "mate in 19 (37 plies)"       # 19 distances: two to a bar but this
    assert text.splitlines()[0] == "DTM of KNKA, Red to move (positions)"
    assert hidden and shown_again


@pytest.mark.parametrize("width, plies", [(70, True), (48, False)])
def test_histogram_lines_fit_the_panel_dropping_the_plies_where_narrow(tables, width, plies):
    panel = TablebasePanel(tables, board=Board(HORSE_MATE), threads=1)

    async def scenario(pilot):
        histogram = panel.query_one(DtmHistogram)
        await pilot.press("h")
        await settle(pilot)
        return str(histogram.content).splitlines()[1:], histogram.content_region.width

    bar_lines, room = drive(panel, scenario, size=(width, 60))
    assert len(bar_lines) == 11                                  # 10 win bars and the draws
    assert all(display_width(line) <= room for line in bar_lines), (room, bar_lines)
    assert ("(37 plies)" in bar_lines[-2]) is plies
    assert bar_lines[-2].startswith("mate in 19") and bar_lines[-2].endswith("\u25c0 here")


def test_no_histogram_line_under_a_position_until_h(tmp_path):
    # Issue 38: "DTM histogram: no table." stood under every position, h never pressed.
    panel = TablebasePanel(tmp_path, board=Board(ROOK_MATE), threads=1)

    async def scenario(pilot):
        histogram = panel.query_one(DtmHistogram)
        before = histogram.display, str(histogram.content)
        await pilot.press("h")
        await settle(pilot)
        return before, (histogram.display, str(histogram.content))

    (shown_before, text_before), (shown_after, text_after) = drive(panel, scenario)
    assert not shown_before and "no table" not in text_before
    assert shown_after and text_after == "DTM histogram: no table."


def test_missing_table_is_named_and_built_from_the_panel(tmp_path):
    board = Board(ROOK_MATE)
    panel = TablebasePanel(tmp_path, board=board, threads=1)

    async def scenario(pilot):
        missing = text_of(panel, "#tb-value")
        button = panel.query_one("#tb-build-button", Button)
        offered = button.display, str(button.label), panel.check_action("build", ())
        await pilot.press("B")
        await settle(pilot)
        return missing, offered, text_of(panel, "#tb-value"), \
            text_of(panel, "#tb-build-status"), rows(panel)

    missing, offered, value_text, note, shown = drive(panel, scenario)
    assert missing.startswith(f"No table for KRKA in {tmp_path}. "
                              "Its sub-tables KK, KAK, KRK are missing too.")
    assert "Building takes" in missing
    assert offered == (True, "Build KRKA (B)", True)
    assert note.startswith("Built KK, KAK, KRK, KRKA in ")
    assert value_text.splitlines()[0] == "Red wins, mate in 3 (5 plies)"
    assert solve(board, mode="any", max_moves=5).length == 3       # the solver agrees
    assert shown[0][1:3] == ["win", "5"]
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(".build.json")) \
        == ["KAK.xqtb", "KK.xqtb", "KRK.xqtb", "KRKA.xqtb"]


def test_a_cancelled_build_leaves_no_table(tmp_path):
    panel = TablebasePanel(tmp_path, board=Board(ROOK_MATE), threads=1)

    async def scenario(pilot):
        # Both before the worker thread starts: the build stops at its first table.
        panel.action_build()
        panel.action_cancel_build()
        await settle(pilot)
        return text_of(panel, "#tb-build-status"), panel.check_action("build", ())

    note, can_build_again = drive(panel, scenario)
    assert note.startswith("Build cancelled")
    assert list(tmp_path.iterdir()) == []
    assert can_build_again


def test_a_missing_sub_table_is_named(tables, tmp_path):
    for name in ("KK", "KRK"):
        (tmp_path / f"{name}.xqtb").write_bytes((tables / f"{name}.xqtb").read_bytes())
    build("KRKA", tmp_path, log=lambda line: None)
    (tmp_path / "KRK.xqtb").unlink()
    # Rd0xd9 (车六进九) takes the advisor: valuing it needs KRK.
    panel = TablebasePanel(tmp_path, board=Board("3ak4/9/9/9/9/9/9/9/9/3R1K3 w"), threads=1)

    async def scenario(pilot):
        return text_of(panel, "#tb-value"), panel.query_one("#tb-moves").display

    value_text, table_shown = drive(panel, scenario)
    assert value_text.startswith("The table KRKA is here but not its sub-tables KRK,")
    assert not table_shown


@pytest.mark.parametrize("fen,pieces", [
    (Board().fen(), 32),
    # 适情雅趣 No. 1: a material whose index size would not fit in 64 bits.
    ("2baka3/3P3N1/bN7/7nc/9/4C1P2/P5n1P/B3R3B/4Apr2/2RAK3c w", 25)])
def test_more_pieces_than_tables_cover(tables, fen, pieces):
    panel = TablebasePanel(tables, board=Board(fen), threads=1)

    async def scenario(pilot):
        return text_of(panel, "#tb-value"), panel.query_one("#tb-build-button").display, \
            panel.check_action("build", ()), panel.check_action("play_best", ())

    value_text, button_shown, can_build, can_play = drive(panel, scenario)
    assert value_text.startswith(f"{pieces} pieces: more than tables cover (the tables here "
                                 "have at most 4 pieces); ")
    assert not button_shown and not can_build and not can_play


def test_snapshot(tables, snap_compare):
    panel = TablebasePanel(tables, board=Board(HORSE_MATE), threads=1)

    async def histogram_shown(pilot):
        await pilot.press("h")
        await settle(pilot)

    assert snap_compare(Host(panel), terminal_size=(60, 36), run_before=histogram_shown)


def test_the_studio_reads_the_tables_named_on_its_command_line(tables, tmp_path, monkeypatch):
    """``xqstudio studio --tables DIR --fen FEN``: the table panel and the solver panel read
    DIR, not ``$XQSTUDIO_TABLES`` (here an empty directory)."""
    from tui import cli
    from tui.app import XQStudioApp
    from tui.widgets.solver_panel import SolverPanel

    monkeypatch.setenv("XQSTUDIO_TABLES", str(tmp_path))
    seen = {}

    def run_headless(app: XQStudioApp) -> None:
        async def run():
            async with app.run_test(size=(120, 40)) as pilot:
                await pilot.press("2")                       # the table tab
                panel = app.screen.query_one(TablebasePanel)
                await settle(pilot)
                seen["value"] = text_of(panel, "#tb-value")
                seen["directories"] = (panel.directory,
                                       app.screen.query_one(SolverPanel).tables)
        asyncio.run(run())

    monkeypatch.setattr(XQStudioApp, "run", run_headless)
    assert cli.main(["studio", "--tables", str(tables), "--fen", HORSE_MATE]) == 0
    assert seen["directories"] == (tables, tables)
    assert seen["value"].splitlines()[0] == "Red wins, mate in 19 (37 plies)"
