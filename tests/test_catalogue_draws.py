"""The draw studies in the catalogue: the stipulation from the record (和), the analyses of
``puzzles/data/draw_analyses.tsv`` (verdict, drawing line, traps) checked against tables built
here, and imports of draw records."""
from __future__ import annotations

import csv
import shutil

import pytest

from puzzles.catalogue import (
    build,
    draw_analysis,
    import_file,
    load_compositions,
    load_draw_analyses,
    load_great_four,
    open_catalogue,
    query,
    record_stipulation,
)
from puzzles.paths import DATA_DIR
from tablebases import open_tablebase
from tablebases.build import build as build_tables
from xiangqi import Board, Move
from xiangqi.rules import adjudicate


def test_the_stipulation_defaults_from_the_record(tmp_path):
    # Without a verdicts file the titles decide: the 52 studies whose title says 和.
    for name in ("shiqingyaqu551.fen", "shiqingyaqu551.LICENSE"):
        shutil.copy(DATA_DIR / name, tmp_path)
    rows = load_compositions("shiqingyaqu", tmp_path)
    draws = [row["number"] for row in rows if row["stipulation"] == "draw"]
    assert len(draws) == 52 and min(draws) == 469 and max(draws) == 551
    assert 491 not in draws                 # 保国宁家（仕相全对车）: 对, not 和
    assert record_stipulation("", "1/2-1/2") == "draw" and record_stipulation("x", "1-0") == "win"


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    path = tmp_path_factory.mktemp("shipped-draws") / "catalogue.sqlite"
    build(path)
    return path


def test_every_draw_study_has_an_analysis():
    analyses = load_draw_analyses()
    studies = [r for r in load_compositions("shiqingyaqu") if r["stipulation"] == "draw"]
    assert {("适情雅趣", r["number"]) for r in studies} <= set(analyses)
    assert sum(1 for key in analyses if key[0] == "江湖四大名局") == 5
    # Nothing is called a draw unless a table settled it.
    for row in analyses.values():
        if row["verdict"] == "draw":
            assert row["settled_by"].startswith("table "), row
        assert row["verdict"] in ("draw", "no win within the bound", "unknown", "Red wins",
                                  "Black wins"), row


def test_no_550_in_the_catalogue_checked_against_its_table(shipped, tmp_path):
    db = open_catalogue(shipped)
    (entry,) = query(db, text="孤雁折群", limit=None).entries
    assert entry.stipulation == "draw" and entry.verdict == "draw"
    analysis = draw_analysis(db, entry)
    assert analysis["settled_by"] == "table KNKB" and analysis["line_end"] == "repetition"
    build_tables("KNKB", tmp_path, log=lambda line: None)
    board = Board(entry.fen)
    with open_tablebase(tmp_path) as tablebase:
        assert tablebase.probe(board).wdl == 0
        for text in entry.main_line:           # the drawing line: every move keeps the draw
            board.push(Move.from_iccs(text))
            assert tablebase.probe(board).wdl == 0
    verdict = adjudicate(board, "chinese")
    assert verdict is not None and verdict.loser is None


def test_the_jianghu_entries_carry_the_analysis(shipped):
    db = open_catalogue(shipped)
    entries = query(db, collection="江湖四大名局", limit=None).entries
    assert len(entries) == 5
    with (DATA_DIR / "draw_analyses.tsv").open(encoding="utf-8") as handle:
        rows = {int(r["number"]): r for r in csv.DictReader(handle, delimiter="\t")
                if r["collection"] == "jianghu"}
    for entry in entries:
        row = rows[entry.number]
        # A bounded or unfinished search keeps its bound in the verdict: never "draw".
        assert entry.verdict != "draw" and row["bound"] in entry.verdict
        board = Board(entry.fen)
        for text in entry.main_line:
            board.push(board.parse_iccs(text))
        assert draw_analysis(db, entry)["settled_by"] == row["settled_by"]


def test_an_imported_draw_record_is_analysed(shipped, tmp_path):
    source = tmp_path / "draws.fen"
    source.write_text('[EVENT "单马和单炮"]\n[FEN "2c6/4k4/4N4/9/9/9/9/9/9/4K4 w - - 0 1"]\n',
                      encoding="utf-8")
    db = open_catalogue(shipped)
    assert import_file(db, source, "mine", verify_seconds=2) == 1
    (entry,) = query(db, collection="mine", limit=None).entries
    # No table here: neither side wins within the bound, or the search ran out of time.
    assert entry.stipulation == "draw"
    assert entry.verdict in ("no win within 20", "unproven within 20")


def test_qixing_carries_its_traditional_line_checked_move_by_move():
    # 七星聚会: the traditional main line (benchmarks/data/qixing_juhui_main_line.txt), each
    # move checked by solver.draw.check_drawing_line; the file says per ply what showed it holds.
    from solver.draw import check_drawing_line

    row = load_draw_analyses()[("江湖四大名局", 1)]
    moves = [Move.from_iccs(text) for text in row["line"].split()]
    checks = row["line_checks"].split(";")
    assert len(moves) == len(checks) >= 60                 # 30 moves of each side at least
    for ply, check in enumerate(checks):
        side = "Black" if ply % 2 == 0 else "Red"          # the opponent of the mover
        assert check.startswith(f"no {side} win within "), (ply + 1, check)
    # The first plies, checked again here at a small bound, hold as the file says.
    fen = next(r["fen"] for r in load_great_four() if r["number"] == 1)
    again = check_drawing_line(Board(fen), moves[:4], bound=2, seconds_per_move=10)
    assert [step.held for step in again.steps] == [
        "no Black win within 2 (search)", "no Red win within 2 (search)"] * 2
