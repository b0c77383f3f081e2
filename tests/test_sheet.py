"""Problem sheets and catalogue diagrams: ``xqstudio catalogue sheet|diagram`` and
:mod:`puzzles.sheet` (the HTML parsed as XML, its diagrams, stipulations, solutions, notes)."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import replace

import pytest

from puzzles.catalogue import CatalogueError, entries_of, open_catalogue
from puzzles.sheet import (
    heading,
    problems,
    sheet_html,
    solution_text,
    soundness_notes,
    stipulation_text,
)
from tui.cli import main
from xiangqi import Board, Move
from xiangqi.notation import write_numbered_line

XHTML = "{http://www.w3.org/1999/xhtml}"
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def shipped(shipped_catalogue):
    return shipped_catalogue


@pytest.fixture
def db(shipped):
    database = open_catalogue(shipped)
    yield database
    database.close()


def composition(db, collection: str, number: int):
    row = db.execute("SELECT id FROM compositions WHERE collection = ? AND number = ?",
                     [collection, number]).fetchone()
    return entries_of(db, str(row[0]))[0]


def test_references_name_compositions_patterns_and_single_examples(db):
    examples = entries_of(db, "马后炮")
    assert len(examples) >= 2 and {e.pattern_name for e in examples} == {"马后炮"}
    assert entries_of(db, "马后炮:2") == [examples[1]]
    assert entries_of(db, "cannon-behind-horse:1") == [examples[0]]
    assert entries_of(db, "7")[0].kind == "composition" and entries_of(db, "7")[0].id == 7
    with pytest.raises(CatalogueError, match=f"马后炮 has {len(examples)} examples, no example 99"):
        entries_of(db, "马后炮:99")
    with pytest.raises(CatalogueError, match="no pattern"):
        entries_of(db, "不存在")
    with pytest.raises(CatalogueError, match="no composition 99999"):
        entries_of(db, "99999")


def test_stipulations_as_books_write_them(db):
    example = entries_of(db, "马后炮:1")[0]
    assert example.stipulation == "checks"
    assert stipulation_text(example) == f"红先 连照 {example.moves} 步"
    assert stipulation_text(composition(db, "适情雅趣", 492)) == "红先和"
    win = composition(db, "适情雅趣", 20)
    assert win.stipulation == "win" and stipulation_text(win) == "红先胜"
    black = replace(win, fen=win.fen.replace(" w ", " b "))
    assert stipulation_text(black) == "黑先胜"


def test_solution_in_chinese_notation_numbered(db):
    example = entries_of(db, "马后炮:1")[0]
    board = Board(example.fen)
    moves = [Move.from_iccs(m) for m in example.main_line]
    assert solution_text(example) == write_numbered_line(board, moves)
    assert solution_text(example).startswith("1. ") and example.main_line_zh.split()[0] in \
        solution_text(example)


def test_soundness_notes_follow_the_verdicts(db):
    exact = next(e for e in (composition(db, "适情雅趣", n) for n in range(1, 40))
                 if e.verdict == "mate")
    assert soundness_notes(exact) == [f"Sound: the solver proves a forced mate in {exact.moves}, "
                                      "none shorter (exact)."]
    unproven = composition(db, "适情雅趣", 499)
    assert unproven.verdict == "no mate within 30"
    assert "no forced mate within 30 moves" in soundness_notes(unproven)[0]
    # K C A vs K P with Red to move: its own table shows a draw, however long.
    drawn = composition(db, "适情雅趣", 549)
    assert (drawn.verdict, drawn.moves) == ("table draw", None)
    assert soundness_notes(drawn)[0] == (
        "Unsound: a draw as set. The tablebase shows that Red cannot force a win, however "
        "many moves, and does not lose (exact).")
    refuted = composition(db, "适情雅趣", 20)
    assert (refuted.verdict, refuted.moves) == ("refuted", 8)
    assert soundness_notes(refuted)[0] == (
        "Unsound: lost as set. Whatever Red plays, Black mates in 8 (proved by the solver); "
        "the line shows the longest resistance.")
    [draw] = problems(db, [composition(db, "适情雅趣", 492)])
    notes = soundness_notes(draw.entry, draw.draw)
    assert notes[0] == "Sound: the draw is proven by a tablebase (exact)."
    assert "Settled by the table KRKAABB." in notes and \
        "The drawing line ends: repetition." in notes
    # A study its table would settle, too large to build: the table in a player's words.
    [unsettled] = problems(db, [composition(db, "适情雅趣", 470)])
    assert "Not settled: the table KNPPKPPPAA is not built (about 136 days and 8,229.1 GiB " \
        "of memory: more than the analysing machine had)." in \
        soundness_notes(unsettled.entry, unsettled.draw)
    [seven_stars] = problems(db, [composition(db, "江湖四大名局", 1)])
    notes = soundness_notes(seven_stars.entry, seven_stars.draw)
    assert notes[0].startswith("Unproven: whether a side forces a win within 20 moves")
    assert "兵四进一? 将6进1! (Black mates in 6)" in notes[-1]


def test_sheet_html_parses_with_every_problem(db):
    entries = [*entries_of(db, "马后炮:1"), composition(db, "适情雅趣", 492),
               composition(db, "江湖四大名局", 1)]
    page = sheet_html(problems(db, entries), "俱乐部 第3期")
    root = ET.fromstring(page.split("\n", 1)[1])            # after <!DOCTYPE html>
    assert root.find(f"{XHTML}head/{XHTML}title").text == "俱乐部 第3期"
    sections = root.findall(f".//{XHTML}section")
    assert [s.get("data-id") for s in sections] == [str(e.id) for e in entries]
    for section, entry in zip(sections, entries):
        diagram = section.find(f"{XHTML}div/{SVG}svg")
        assert diagram is not None
        drawn = {g.get("data-square"): g.get("data-piece") for g in diagram.iter(f"{SVG}g")
                 if "piece" in (g.get("class") or "").split()}
        board = Board(entry.fen)
        assert drawn == {f"{'abcdefghi'[sq % 9]}{sq // 9}": p.symbol()
                         for sq, p in board.piece_map().items()}
        text = "".join(section.itertext())
        assert heading(entry) in text and stipulation_text(entry) in text
        assert solution_text(entry) in text
        notes = [li.text for li in section.iter(f"{XHTML}li")]
        assert notes == soundness_notes(entry, problems(db, [entry])[0].draw)
    assert "Drawing line 和棋着法" in "".join(sections[1].itertext())


def test_sheet_without_solutions(db):
    entry = entries_of(db, "马后炮:1")[0]
    root = ET.fromstring(sheet_html(problems(db, [entry]), solutions=False).split("\n", 1)[1])
    text = "".join(root.itertext())
    assert stipulation_text(entry) in text and solution_text(entry) not in text
    assert not list(root.iter(f"{XHTML}li"))


def run(capsys, *argv: str):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_catalogue_sheet_command(shipped, tmp_path, capsys):
    path = tmp_path / "sheet.html"
    status, out, _ = run(capsys, "catalogue", "sheet", "马后炮", "7", "-o", str(path),
                         "--db", str(shipped), "--json")
    assert status == 0
    document = json.loads(out)
    db = open_catalogue(shipped)
    expected = [*entries_of(db, "马后炮"), *entries_of(db, "7")]
    assert document["format"] == "html" and document["file"] == str(path)
    assert [(p["kind"], p["id"]) for p in document["problems"]] == \
        [(e.kind, e.id) for e in expected]
    root = ET.parse(path).getroot()
    assert len(root.findall(f".//{XHTML}section")) == len(expected)
    status, _, err = run(capsys, "catalogue", "sheet", "7", "-o", str(tmp_path / "s.doc"),
                         "--db", str(shipped))
    assert status == 1 and "a sheet is .html or .pdf, not .doc" in err
    status, _, err = run(capsys, "catalogue", "sheet", "7", "无此杀法", "-o", str(path),
                         "--db", str(shipped))
    assert status == 1 and "no pattern '无此杀法'" in err


@pytest.mark.slow
def test_catalogue_sheet_as_pdf(shipped, tmp_path, capsys):
    path = tmp_path / "sheet.pdf"
    status, out, _ = run(capsys, "catalogue", "sheet", "马后炮:1", "-o", str(path),
                         "--db", str(shipped))
    assert status == 0 and out.strip() == f"wrote {path} (pdf): 1 problem"
    data = path.read_bytes()
    assert data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF") and len(data) > 10_000


def test_catalogue_diagram_command(shipped, tmp_path, capsys):
    path = tmp_path / "entry.svg"
    status, out, _ = run(capsys, "catalogue", "diagram", "马后炮:2", "-o", str(path),
                         "--db", str(shipped), "--json")
    assert status == 0
    entry = entries_of(open_catalogue(shipped), "马后炮:2")[0]
    document = json.loads(out)
    assert document["title"] == "马后炮 例2" and document["fen"] == Board(entry.fen).fen()
    root = ET.parse(path).getroot()
    assert [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "title"] == \
        ["马后炮 例2"]
    status, _, _ = run(capsys, "catalogue", "diagram", "7", "-o", str(path), "--db",
                       str(shipped), "--title", "")
    assert status == 0
    assert not [t for t in ET.parse(path).getroot().iter(f"{SVG}text")
                if t.get("class") == "title"]
    status, _, err = run(capsys, "catalogue", "diagram", "马后炮", "-o", str(path), "--db",
                         str(shipped))
    assert status == 1 and "name one as 马后炮:1 to 马后炮:" in err


def test_pdf_without_weasyprint_names_the_extra(shipped, tmp_path, capsys, uninstalled):
    uninstalled("weasyprint")
    status, _, err = run(capsys, "catalogue", "sheet", "7", "-o", str(tmp_path / "s.pdf"),
                         "--db", str(shipped))
    assert status == 1 and "weasyprint is not installed: it comes with the 'pdf' extra" in err
    assert not list(tmp_path.iterdir())
