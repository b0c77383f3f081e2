"""Draw studies (红先和): tables first, traps, the drawing line, the bounded proofs."""
from __future__ import annotations

import json

import pytest

from solver import Limits
from solver.draw import analyse_draw, report_lines, table_need
from tablebases import open_tablebase
from tablebases.build import build
from tui.cli import main
from xiangqi import Board, Move
from xiangqi.rules import adjudicate

# 《适情雅趣》 No. 550 孤雁折群（单相和马）: elephant against horse, Red to move and draw.
NO_550 = "4k4/9/9/9/9/9/9/B4n3/9/3K5 w - - 0 1"
# 七星聚会 (江湖四大名局): far beyond any table.
QIXING = "4rk3/3P5/4bP3/9/9/8P/9/1p2p2C1/3p1p3/4K1RR1 w - - 0 1"


@pytest.fixture(scope="module")
def knkb(tmp_path_factory):
    directory = tmp_path_factory.mktemp("draw-tables")
    build(["KNKB", "KRK"], directory, log=lambda line: None)
    return directory


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_a_study_settled_by_its_table(knkb):
    board = Board(NO_550)
    with open_tablebase(knkb) as tablebase:
        assert tablebase.probe(board).wdl == 0
        analysis = analyse_draw(board, tablebase=tablebase, traps=False, line=False)
    assert analysis.verdict == "draw" and analysis.settled_by == "table KNKB"
    assert analysis.sound and analysis.table.present and analysis.table_value == "Draw"
    # Settled exactly: no bounded search was needed.
    assert analysis.red is None and analysis.black is None and analysis.nodes == 0


def test_a_trap_with_its_refutation(knkb):
    board = Board(NO_550)
    with open_tablebase(knkb) as tablebase:
        analysis = analyse_draw(board, tablebase=tablebase, line=False)
        (trap,) = analysis.traps
        assert trap.move == Move.from_iccs("a2c4") and trap.kind == "quiet"
        after = board.copy()
        after.push(trap.move)
        # The table says Black, to move, wins; the refutation is the first move of that win.
        assert tablebase.probe(after).wdl == 2 and trap.source == "table KNKB"
        assert trap.refutation == Move.from_iccs("f2d3") == trap.line[0]
        assert trap.length == (tablebase.probe(after).dtm + 1) // 2 == 5
    for move in trap.line:
        after.push(move)
    assert after.turn == 0 and not after.has_legal_move()       # Red has no move left


@pytest.mark.slow
def test_a_capture_trap_found_by_search():
    # 七星聚会: 兵四平五 takes the elephant, and 卒5进1 mates at once.
    analysis = analyse_draw(Board(QIXING), limits=Limits(nodes=60_000), line=False,
                            trap_moves=4)
    traps = {trap.move.iccs(): trap for trap in analysis.traps}
    trap = traps["f7e7"]
    assert trap.kind == "capture" and trap.source == "search" and trap.length == 1
    assert trap.refutation == Move.from_iccs("e2e1")
    board = Board(QIXING)
    board.push(trap.move)
    board.push(trap.refutation)
    assert board.is_check() and not board.has_legal_move()
    # The checks and captures come first.
    kinds = [trap.kind for trap in analysis.traps]
    assert kinds == sorted(kinds, key=lambda kind: kind == "quiet")


def test_the_drawing_line_ends_in_a_repetition_judged_by_the_rules(knkb):
    board = Board(NO_550)
    with open_tablebase(knkb) as tablebase:
        analysis = analyse_draw(board, tablebase=tablebase, traps=False)
        line = analysis.line
        assert line.end == "repetition" and line.settled
        replay = board.copy()
        for move in line.moves:
            assert move in replay.legal_moves
            replay.push(move)
            assert tablebase.probe(replay).wdl == 0      # every move keeps the draw
    verdict = adjudicate(replay, "chinese")
    assert verdict is not None and verdict.loser is None and "26.2" in verdict.clause
    assert line.detail.startswith("Draw by repetition")


def test_a_draw_claimed_where_the_table_shows_a_win(knkb, capsys):
    # After the trap 相九进七 马6退4 Red is to move and lost: a "draw" claimed here is unsound.
    lost = "4k4/9/9/9/9/2B6/9/3n5/9/3K5 w"
    with open_tablebase(knkb) as tablebase:
        assert tablebase.probe(Board(lost)).wdl == -2
        analysis = analyse_draw(Board(lost), tablebase=tablebase)
    assert analysis.verdict == "Black wins" and analysis.unsound and not analysis.sound
    assert analysis.line is None                 # no drawing line for a lost position
    replay = Board(lost)
    for move in analysis.table_line:
        replay.push(move)
    assert not replay.has_legal_move() and replay.turn == 0
    status, out, _ = run(capsys, "problem", "verify", lost, "--stipulation", "draw",
                         "--tables", str(knkb))
    assert status == 1 and "the draw claim is unsound" in out and "Unsound" in out
    # Red's win (KRK): the same.
    status, out, _ = run(capsys, "solve", "3k5/9/9/9/9/9/9/9/9/R3K4 w", "--draw",
                         "--tables", str(knkb), "--json")
    data = json.loads(out)
    assert status == 1 and data["verdict"] == "Red wins" and data["unsound"]
    replay = Board("3k5/9/9/9/9/9/9/9/9/R3K4 w")
    for move in data["table_line"]:
        replay.push(Move.from_iccs(move))
    assert replay.turn == 1 and not replay.has_legal_move()


def test_unproven_under_a_small_budget(capsys):
    analysis = analyse_draw(Board(QIXING), limits=Limits(nodes=3000), traps=False)
    assert analysis.verdict == "unknown" and analysis.settled_by == ""
    assert analysis.red.verdict == analysis.black.verdict == "unknown"
    assert analysis.unproven == ["whether Red forces a win within 20 moves",
                                 "whether Black forces a win within 20 moves"]
    text = "\n".join(report_lines(analysis, Board(QIXING)))
    (verdict,) = [line for line in text.splitlines() if line.startswith("Verdict")]
    assert "draw" not in verdict and "unproven within the budget" in verdict
    status, out, _ = run(capsys, "verify", QIXING, "--stipulation", "draw", "--nodes", "3000",
                         "--no-traps", "--no-line", "--no-tables")
    assert status == 1 and "Not proven" in out and "Verdict: unproven" in out


def test_a_bounded_proof_is_not_called_a_draw(capsys):
    # Neither side wins within 2 moves: said with N, the nodes and the time.
    status, out, _ = run(capsys, "verify", QIXING, "--stipulation", "draw", "--moves", "2",
                         "--no-traps", "--no-line", "--no-tables", "--json")
    data = json.loads(out)
    assert status == 0 and data["verdict"] == "no win within the bound"
    assert data["red"]["verdict"] == data["black"]["verdict"] == "no mate"
    assert data["red"]["bound"] == 2 and data["red"]["nodes"] > 0
    status, out, _ = run(capsys, "verify", QIXING, "--stipulation", "draw", "--moves", "2",
                         "--no-traps", "--no-line", "--no-tables")
    assert "Red has no forced win within 2 moves" in out
    assert "not a proof of a draw" in out and "Sound within 2 moves" in out


def test_the_missing_table_is_named_with_its_cost(tmp_path, capsys):
    need = table_need(Board(NO_550), tmp_path)
    assert not need.present and need.fits and need.missing[-1] == "KNKB"
    assert "KNK" in need.missing and need.seconds >= 0 and need.memory > 0
    # 《适情雅趣》 No. 469: 马双兵 against 双卒双士, far more than this machine holds.
    big = table_need(Board("3ak4/3PaP3/9/5N3/9/9/9/9/3p1p3/4K4 w"), tmp_path)
    assert big.material == "KNPPKPPAA" and not big.fits and "more than" in big.describe()
    assert table_need(Board(QIXING), tmp_path).error is not None
    # --build-tables builds it, and the table then settles the study.
    status, out, err = run(capsys, "verify", NO_550, "--stipulation", "draw", "--tables",
                           str(tmp_path), "--build-tables", "--no-traps", "--no-line")
    assert status == 0 and "table KNKB missing" in err and "Verdict: draw (table KNKB" in out
    assert (tmp_path / "KNKB.xqtb").exists()


@pytest.mark.parametrize("argument, message", [
    (["--moves", "-1"], "must be from 1 to 10,000, not -1"),
    (["--seconds", "-5"], "must be from 0 to 10,000,000, not -5"),
    (["--seconds", "inf"], "must be a finite number"),
    (["--table-bits", "1"], "must be from 2 to 34, not 1"),
    (["--rules", "fide"], "invalid choice"),
    (["--line-plies", "0"], "must be from 1 to 10,000, not 0"),
])
def test_bad_arguments_are_usage_errors(capsys, argument, message):
    with pytest.raises(SystemExit) as info:
        main(["verify", NO_550, "--stipulation", "draw", *argument])
    assert info.value.code == 2 and message in capsys.readouterr().err


def test_a_recorded_line_is_refused_for_a_draw(capsys):
    status, _, err = run(capsys, "verify", NO_550, "--stipulation", "draw", "--line", "相九进七")
    assert status == 1 and "--line checks a mating line" in err


def test_the_progress_names_the_bound_being_searched():
    phases = []
    calls = []
    analysis = analyse_draw(Board(QIXING), bound=4, limits=Limits(nodes=20_000),
                            progress=lambda nodes, used: calls.append(nodes) and False,
                            phase=phases.append, trap_moves=2, line_plies=2)
    assert "Red wins within 2? (of 4)" in phases and "Black wins within 2? (of 4)" in phases
    assert any(text.startswith("trap ") and text.endswith("wins within 4?") for text in phases)
    assert any(text.startswith("line ply 1: Red holds within") for text in phases)
    assert analysis.nodes > 0 and calls


def test_a_cancel_from_the_progress_hook_stops_every_phase():
    analysis = analyse_draw(Board(QIXING), limits=Limits(seconds=30, progress_nodes=1000),
                            progress=lambda nodes, used: True)
    assert analysis.seconds < 5 and analysis.verdict == "unknown"
    assert analysis.line is not None and analysis.line.detail == "interrupted"


# No. 550 with a Red pawn on g4 that the horse takes (马6退7): the line reaches KNKB.
PAWN_TAKEN = "4k4/9/9/9/9/6P2/9/B4n3/9/3K5 w"


def test_the_tables_the_line_reaches_are_named_and_built(capsys, tmp_path, monkeypatch):
    # A bound of 4 and a node budget (no clock): the same searches on any machine.
    budget = ["--max-moves", "4", "--nodes", "200000", "--seconds", "0"]
    status, out, _ = run(capsys, "solve", PAWN_TAKEN, "--draw", *budget,
                         "--tables", str(tmp_path), "--json")
    reached = json.loads(out)["reached_tables"]
    assert status == 0 and [r["material"] for r in reached] == ["KNKB"]
    assert not reached[0]["present"] and reached[0]["fits"]
    assert "building it" in reached[0]["text"]
    # The root's table does not fit (as for a real study), the reached one does: it is
    # built, and the analysis runs again with it.
    import tablebases.build

    monkeypatch.setattr(tablebases.build, "available_memory", lambda: 8 << 20)
    status, out, err = run(capsys, "solve", PAWN_TAKEN, "--draw", *budget,
                           "--tables", str(tmp_path), "--build-tables")
    assert "table KNKPB missing; it needs about" in err and "more than the 8 MiB" in err
    assert "analysing again with the tables built" in err
    assert (tmp_path / "KNKB.xqtb").exists() and not (tmp_path / "KNKPB.xqtb").exists()
    assert "reached by the line or a trap" not in out


def test_the_traps_line_is_worded_for_none_one_and_several(knkb):
    """Issue 38 item 5d: no "quiet first moves that lose too" after no losing check or
    capture, the quiet line only when a quiet move loses, singular and plural right."""
    lone_kings = "4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1"
    with open_tablebase(knkb) as tablebase:
        lines = report_lines(analyse_draw(Board(NO_550), tablebase=tablebase, line=False),
                             Board(NO_550))
        bare = report_lines(analyse_draw(Board(lone_kings), tablebase=tablebase, line=False),
                            Board(lone_kings))
    traps = lines.index(next(line for line in lines if line.startswith("Traps")))
    assert lines[traps] == ("Traps (陷阱): no check or capture first move loses "
                            "(2 first moves examined)")
    assert lines[traps + 1] == "  quiet first move that loses: 相九进七"
    (only,) = [line for line in bare if line.startswith("Traps")]
    assert only == "Traps (陷阱): no first move loses (1 first move examined)"
    assert not any("quiet" in line for line in bare)
    # Several checks and captures lose, and several quiet moves too.
    analysis = analyse_draw(Board(QIXING), limits=Limits(nodes=60_000), line=False,
                            trap_moves=8)
    tempting = [t for t in analysis.traps if t.kind != "quiet"]
    quiet = [t for t in analysis.traps if t.kind == "quiet"]
    assert len(tempting) > 1 and len(quiet) > 1
    text = report_lines(analysis, Board(QIXING))
    assert f"Traps (陷阱): {len(tempting)} check/capture first moves lose " \
        f"({analysis.trap_moves_examined} first moves examined)" in text
    assert any(line.startswith("  quiet first moves that lose too: ") for line in text)
