"""The solver panel hosted in a small app: solving in both modes, the main line stepped on the
host's board, soundness reports with cooks and tries, live progress and cancelling; and the
two solver hooks the panel relies on (``Limits.progress_nodes``, ``verify(progress=...)``)."""
from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

from textual.app import App, ComposeResult
from textual.widgets import Input, Static

from solver import Limits, solve
from solver.search import Solver
from solver.soundness import verify
from tui.widgets.solver_panel import SolverPanel
from xiangqi import Board, Move
from xiangqi.notation import write_move

# 《适情雅趣》, the copy the catalogue ships.
BOOK = Path(__file__).resolve().parent.parent.parent / "puzzles" / "data" / "shiqingyaqu551.fen"
FENS = re.findall(r'\[FEN "([^"]+)"\]',
                  (BOOK).read_text(encoding="utf-8-sig"))
QI_TUN_GUAN_YOU = FENS[0]      # 适情雅趣 No. 1, 气吞关右: continuous-check mate in 7
CHUN_LEI_JING_ZHE = FENS[6]    # No. 7, 春雷惊蛰: mate within 22 found fast, 20 proven in seconds
# The published solution of No. 1, which the solver's main line follows move for move.
QI_TUN_GUAN_YOU_LINE = ("1. 炮五平九 马7进5  2. 兵六进一 将5进1  3. 车七进八 将5进1  "
                        "4. 马二进四 将5平6  5. 马八进六 将6退1  6. 马六退五 将6进1  7. 马五退三")
ROOK_MATES = "3k5/9/9/9/9/9/9/9/9/R3K4 w"   # Ra0-a8 (困毙) and Ra0-d0 (将死) both mate at once
ROOK_AND_ADVISORS = "3ak4/4a4/9/9/9/9/9/9/9/3K4R w"   # mate in 3, but not by checks alone


class Host(App):
    """The panel alone on a screen; the boards it asks to show are kept in ``shown``."""

    def __init__(self, panel: SolverPanel) -> None:
        super().__init__()
        self.panel = panel
        self.shown: list[tuple[str, Move | None]] = []

    def compose(self) -> ComposeResult:
        yield self.panel

    def on_mount(self) -> None:
        self.panel.focus()

    def on_solver_panel_show_line(self, message: SolverPanel.ShowLine) -> None:
        self.shown.append((message.board.fen(), message.last_move))


# 《适情雅趣》 No. 4: no mate is found for a long while, so a search is still running (the
# start position is refused as a game position without a bound).
HARD = "2bk1ab2/4a4/9/p1P6/3NC4/4Pp3/P5n2/4B3N/4Ar3/1RBAK2cr w - - 0 1"


def drive(panel: SolverPanel, scenario, size=(80, 40)):
    """Run ``scenario(pilot)`` against the panel in its host app; return what it returns."""
    async def run():
        app = Host(panel)
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            return await scenario(pilot)
    return asyncio.run(run())


async def wait_for(pilot, condition, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await pilot.pause(0.02)


async def finish(pilot) -> None:
    """Wait until the panel's search has ended and its result is drawn."""
    await wait_for(pilot, lambda: pilot.app.panel.running is None)
    await pilot.pause()


def text_of(panel: SolverPanel, selector: str) -> str:
    return str(panel.query_one(selector, Static).content)


def panel_for(fen: str, tmp_path: Path, mode: str = "checks") -> SolverPanel:
    # An empty table directory: the searches run without tablebases.
    return SolverPanel(tmp_path, board=Board(fen), mode=mode)


def test_solve_shows_the_mate_and_the_main_line(tmp_path):
    panel = panel_for(QI_TUN_GUAN_YOU, tmp_path)

    async def scenario(pilot):
        await pilot.press("s")
        await finish(pilot)
        chinese = text_of(panel, "#solver-result"), text_of(panel, "#solver-line"), \
            text_of(panel, "#solver-progress")
        panel.notation = "iccs"
        await pilot.pause()
        return chinese, text_of(panel, "#solver-line")

    (result, line, stats), iccs_line = drive(panel, scenario)
    assert result == "Mate in 7 (13 plies), every move a check"
    assert line.splitlines()[0] == "Main line  step 0/13 · . , step; g, Enter or a click plays"
    assert " ".join(line.splitlines()[1:]) == QI_TUN_GUAN_YOU_LINE
    expected = solve(Board(QI_TUN_GUAN_YOU), mode="checks")
    assert re.fullmatch(rf"{expected.nodes:,} nodes in [\d.]+ s \([\d,]+ k nodes/s\)", stats)
    assert iccs_line.splitlines()[1].startswith("1. " + " ".join(
        m.iccs() for m in expected.main_line[:2]))


def test_modes_and_the_max_moves_bound(tmp_path):
    panel = panel_for(ROOK_AND_ADVISORS, tmp_path)

    async def scenario(pilot):
        panel.query_one("#solver-max-moves", Input).value = "10"
        await pilot.press("s")
        await finish(pilot)
        checks = text_of(panel, "#solver-result")
        await pilot.press("t", "s")
        await finish(pilot)
        return checks, panel.mode, text_of(panel, "#solver-result"), panel.line

    checks, mode, any_moves, line = drive(panel, scenario)
    assert checks == "No continuous-check mate within 10 moves"
    assert mode == "any"
    assert any_moves == "Mate in 3 (5 plies), quiet moves allowed, found at order 2"
    assert line == solve(Board(ROOK_AND_ADVISORS), mode="any", max_moves=10).main_line


def test_stepping_shows_each_position_of_the_line(tmp_path):
    panel = panel_for(QI_TUN_GUAN_YOU, tmp_path)

    async def scenario(pilot):
        await pilot.press("s")
        await finish(pilot)
        await pilot.press("comma")             # already at the start: nothing to show
        await pilot.press("full_stop", "right", "full_stop", "comma", "left")
        return list(pilot.app.shown), text_of(panel, "#solver-line")

    shown, line = drive(panel, scenario)
    main_line = solve(Board(QI_TUN_GUAN_YOU), mode="checks").main_line
    boards = [Board(QI_TUN_GUAN_YOU)]
    for move in main_line[:3]:
        boards.append(boards[-1].copy())
        boards[-1].push(move)
    expected = [(boards[1].fen(), main_line[0]), (boards[2].fen(), main_line[1]),
                (boards[3].fen(), main_line[2]), (boards[2].fen(), main_line[1]),
                (boards[1].fen(), main_line[0])]
    assert shown == expected
    assert line.splitlines()[0] == "Main line  step 1/13 · . , step; g, Enter or a click plays"


def test_verify_reports_a_cooked_key_and_tries(tmp_path):
    panel = panel_for(ROOK_MATES, tmp_path, mode="any")

    async def scenario(pilot):
        await pilot.press("v")
        await finish(pilot)
        cooked = text_of(panel, "#solver-report")
        await pilot.press("t", "t", "v")            # any -> draw -> checks
        await finish(pilot)
        return cooked, text_of(panel, "#solver-report")

    cooked, unique = drive(panel, scenario)
    board = Board(ROOK_MATES)

    def chinese(iccs: str, before: Board = board) -> str:
        return write_move(before, Move.from_iccs(iccs), "chinese")

    lines = cooked.splitlines()
    assert lines[:4] == ["Soundness: mate in 1", "Verdict: mate in 1 (1 ply)",
                         f"Key: {chinese('a0a8')} (cooked)",
                         f"  cook: {chinese('a0d0')} also mates in 1"]
    assert lines[-1] == "No duals on the main line."
    after_try = board.copy()
    after_try.push(Move.from_iccs("a0a9"))
    assert unique.splitlines() == [
        "Soundness: continuous check (连照) in 1", "Verdict: mate in 1 (1 ply)",
        f"Key: {chinese('a0d0')} (unique)",
        f"  try: {chinese('a0a9')}, refuted only by {chinese('d9d8', after_try)}",
        "No duals on the main line."]


def test_verify_reports_duals_on_the_main_line(tmp_path):
    panel = panel_for(FENS[7], tmp_path)        # 适情雅趣 No. 8, 珠藏韫柜

    async def scenario(pilot):
        await pilot.press("v")
        await finish(pilot)
        return text_of(panel, "#solver-report"), panel.line

    report, line = drive(panel, scenario)
    before_dual = Board(FENS[7])
    for move in line[:14]:
        before_dual.push(move)
    dual = write_move(before_dual, Move.from_iccs("c6d6"), "chinese")
    assert f"  dual at move 8: {dual} also mates in 2" in report.splitlines()
    assert "Key: " in report and "(unique)" in report


def test_live_progress_and_cancel_keep_the_proven_bound(tmp_path):
    panel = panel_for(CHUN_LEI_JING_ZHE, tmp_path)

    async def scenario(pilot):
        panel.action_solve()
        await wait_for(pilot, lambda: "proven" in text_of(panel, "#solver-progress"))
        progress = text_of(panel, "#solver-progress")
        await pilot.press("x")
        await finish(pilot)
        return progress, text_of(panel, "#solver-result"), panel.check_action("cancel", ())

    progress, result, can_cancel = drive(panel, scenario)
    assert re.fullmatch(r"solve: [\d,]+ nodes · [\d,]+ k nodes/s · [\d.]+ s of 60 s · mate within "
                        r"(\d+) proven, proving the shortest", progress)
    bound = int(re.search(r"mate within (\d+)", progress).group(1))
    assert bound >= 20
    assert re.fullmatch(r"Solve cancelled; a mate in at most (\d+) was proven before it "
                        r"stopped\.", result)
    assert int(re.search(r"\d+", result).group()) <= bound
    assert not can_cancel


def test_cancel_without_a_result_says_cancelled_never_no_mate(tmp_path):
    panel = panel_for(HARD, tmp_path, mode="any")

    async def scenario(pilot):
        panel.action_solve()                 # mate within 20: not within the test
        await wait_for(pilot, lambda: "nodes" in text_of(panel, "#solver-progress"))
        start = time.monotonic()
        await pilot.press("escape")
        await finish(pilot)
        return time.monotonic() - start, text_of(panel, "#solver-result")

    seconds, result = drive(panel, scenario)
    assert result == "Solve cancelled."
    assert seconds < 10


def test_a_new_position_cancels_the_search_of_the_old_one(tmp_path):
    panel = panel_for(HARD, tmp_path, mode="any")

    async def scenario(pilot):
        panel.action_solve()
        await pilot.pause(0.05)
        panel.show_position(Board(ROOK_MATES))
        await finish(pilot)
        return text_of(panel, "#solver-result"), panel.line

    result, line = drive(panel, scenario)
    assert result == "The solve of the previous position was cancelled."
    assert line == []


def test_a_finished_game_cannot_be_solved(tmp_path):
    panel = panel_for("3k5/2R6/9/9/9/9/9/9/9/4K4 b", tmp_path)   # Black is stalemated (困毙)

    async def scenario(pilot):
        await pilot.press("s")
        return text_of(panel, "#solver-result"), panel.running

    assert drive(panel, scenario) == ("The side to move has no legal move: the game is over.",
                                      None)


# -- the solver hooks the panel uses --------------------------------------------------------

def test_progress_nodes_sets_how_often_the_hook_is_called():
    def calls(limits: Limits | None) -> tuple[int, int, float]:
        count = []
        result = Solver(Board(FENS[1]), "checks", limits,
                        progress=lambda nodes, used: count.append(nodes)).run(60)
        return len(count), result.nodes, result.seconds

    default_calls, nodes, seconds = calls(None)
    frequent_calls, same_nodes, _ = calls(Limits(progress_nodes=4096))
    # Enough nodes for several calls at 4,096 (the search is deterministic: 19,885 nodes).
    assert nodes == same_nodes and nodes > 4 * 4096
    # Every progress_nodes nodes, and every 0.1 s besides (so that Ctrl-C acts at once).
    assert default_calls <= nodes // 100_000 + seconds / 0.1 + 2
    assert frequent_calls >= nodes // 8192


def test_verify_progress_hook_cancels():
    report = verify(Board(CHUN_LEI_JING_ZHE), "checks", limits=Limits(progress_nodes=4096),
                    progress=lambda nodes, used: True)
    assert report.verdict == "unknown" and report.unproven == ["the mate search hit a limit"]


def test_a_draw_study_in_draw_mode(tmp_path):
    # 《适情雅趣》 No. 550 (单相和马) with its table: the panel says the draw is proven by the
    # table, names the trap and steps through the drawing line, which ends in a repetition.
    from tablebases.build import build

    build("KNKB", tmp_path, log=lambda line: None)
    fen = "4k4/9/9/9/9/9/9/B4n3/9/3K5 w"
    panel = SolverPanel(tmp_path, board=Board(fen), mode="checks")

    async def scenario(pilot):
        await pilot.press("t", "t")                 # checks -> any -> draw
        assert panel.mode == "draw"
        await pilot.press("s")
        await finish(pilot)
        await pilot.press("full_stop")
        return (text_of(panel, "#solver-result"), text_of(panel, "#solver-line"),
                text_of(panel, "#solver-report"))

    result, line, report = drive(panel, scenario)
    assert result == "Draw, proven (table KNKB)"
    assert panel.analysis is not None and panel.analysis.line.end == "repetition"
    assert line.startswith(f"Drawing line  step 1/{len(panel.analysis.line.steps)}")
    board = Board(fen)
    assert write_move(board, Move.from_iccs("a2c4"), "chinese") in report
    assert "Draw by repetition" in report and "26.2" in report


def test_a_mate_whose_minimality_was_not_searched_says_why(tmp_path):
    """No. 228: mate in 17 found at order 2; with the full-width searches at 6 and 10 moves
    measured as if they grew 10,000-fold, 16 moves are not searched, and the panel says so."""
    solver = Solver(Board(FENS[227]), "any", Limits(nodes=2_000_000))
    solver.full_width_nodes.update({6: 1_000, 10: 10_000_000})
    result = solver.run(30)
    panel = panel_for(FENS[227], tmp_path, mode="any")
    panel.result = result
    skip = result.minimality_skip
    assert skip is not None
    assert str(panel._result_text()) == (
        f"Mate in at most 17 (found at order 2; a shorter mate not searched for: a full-width "
        f"search of 16 moves, estimated at {skip.estimated_nodes:,.0f} nodes, exceeds the "
        f"{skip.nodes_left:,.0f} left)")


def test_a_line_shorter_than_a_mate_at_most_says_why(tmp_path):
    """"Mate in at most 19" beside a 17-move line (适情雅趣:65 in 60 s): the line follows the
    proof's defences, and the title says so.  Here a mate in 3's line under a bound of 4."""
    from dataclasses import replace

    from solver import solve

    exact = solve(Board("3ak4/4a4/9/9/9/9/9/9/9/3K4R w"), mode="any", max_moves=5)
    assert exact.length == 3 and len(exact.main_line) == 5 and not exact.line_shorter_than_bound
    at_most_4 = replace(exact, exact=False, length=4)
    assert at_most_4.line_shorter_than_bound and not at_most_4.line_shorter_than_mate
    panel = panel_for("3ak4/4a4/9/9/9/9/9/9/9/3K4R w", tmp_path, mode="any")

    async def scenario(pilot):
        panel.result, panel.line = at_most_4, list(at_most_4.main_line)
        panel._redraw()
        await pilot.pause()
        return text_of(panel, "#solver-result"), text_of(panel, "#solver-line")

    result, line = drive(panel, scenario, size=(120, 40))
    assert result.startswith("Mate in at most 4")
    assert line.startswith("Main line (a mate in 3 along the proof's defences; the longest "
                           "defence lasts at most 4)")
