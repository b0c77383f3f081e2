"""The SQLite catalogue: schema, build from the text files, search, import/export, errors."""
import shutil
import sqlite3
from pathlib import Path

import pytest

from puzzles.catalogue import (CatalogueError, build, export_records, import_file,
                               open_catalogue, search)
from puzzles.formats import FormatError, write
from puzzles.paths import DATA_DIR
from tui.cli import main

PATTERN = '''[[pattern]]
id = "facing-kings"
name_zh = "对面笑"
aliases_zh = ["白脸将"]
name_en = "Facing kings"
description_zh = "利用将帅不能照面的规则，以车控制将门而成杀。"
description_en = "The kings may not face each other."
pieces = ["R"]
tags = ["king", "rook"]
'''
HEADER = "pattern_id\tfen\tstipulation\tmoves\tsolution_iccs\tsource\tnote\n"
GOOD = "facing-kings\t3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1\tchecks\t1\ta0d0\tconstructed\t\n"


@pytest.fixture
def data_dir(tmp_path):
    directory = tmp_path / "data"
    directory.mkdir()
    for name in ("shiqingyaqu551.fen", "shiqingyaqu551.LICENSE", "jianghu_great_four.tsv"):
        shutil.copy(DATA_DIR / name, directory)
    (directory / "kill_patterns.toml").write_text(PATTERN, encoding="utf-8")
    (directory / "kill_pattern_examples.tsv").write_text(HEADER + GOOD, encoding="utf-8")
    return directory


def test_build_schema_and_contents(data_dir, tmp_path):
    path = tmp_path / "cat.sqlite"
    report = build(path, data_dir=data_dir, verify=True)
    assert (report.patterns, report.examples, report.verified) == (1, 1, 1)
    assert report.compositions == 551 + 5
    connection = sqlite3.connect(path)          # plain SQLite, no library needed
    tables = {r[0] for r in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"patterns", "examples", "compositions", "meta", "search"} <= tables
    foreign = connection.execute("PRAGMA foreign_key_list(examples)").fetchall()
    assert foreign[0][2] == "patterns"
    indexes = {r[1] for r in connection.execute("PRAGMA index_list(compositions)")}
    assert any("collection" in name for name in indexes)
    row = connection.execute("SELECT solution_zh, verification, solver_version FROM examples").fetchone()
    assert row[0] == "车九平六" and row[1] == "verified" and row[2]
    first = connection.execute(
        "SELECT title, licence FROM compositions WHERE collection='适情雅趣' AND number=1").fetchone()
    assert first[0] == "气吞关右" and "BSD" in first[1]


def test_search_in_chinese_and_english(data_dir, tmp_path):
    db = open_catalogue(build(tmp_path / "c.sqlite", data_dir=data_dir).path)
    assert [h["id"] for h in search(db, "对面")] == ["facing-kings"]
    assert [h["id"] for h in search(db, "将门")] == ["facing-kings"]      # description text
    assert [h["id"] for h in search(db, "FACING")] == ["facing-kings"]
    assert search(db, "白脸将")[0]["id"] == "facing-kings"                   # alias
    assert search(db, "气吞关右")[0]["title"] == "适情雅趣 1 气吞关右"
    assert search(db, "七星聚会")[0]["kind"] == "composition"
    assert search(db, "zzzz") == []


def test_wrong_solution_fails_the_whole_build(data_dir, tmp_path):
    bad = "facing-kings\t3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1\tchecks\t1\ta0a8\tconstructed\t\n"
    (data_dir / "kill_pattern_examples.tsv").write_text(HEADER + GOOD + bad, encoding="utf-8")
    path = tmp_path / "c.sqlite"
    with pytest.raises(CatalogueError, match=r"line 3: solution move 1 \(a0a8\) is not a check"):
        build(path, data_dir=data_dir)
    assert not path.exists() and list(tmp_path.glob("c.sqlite*")) == []


def test_stated_length_must_be_the_shortest(data_dir, tmp_path):
    longer = ("facing-kings\t3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1\twin\t2\ta0a1 d9d8 a1d1"
              "\tconstructed\t\n")
    (data_dir / "kill_pattern_examples.tsv").write_text(HEADER + longer, encoding="utf-8")
    build(tmp_path / "replayed.sqlite", data_dir=data_dir)            # replaying alone passes
    with pytest.raises(CatalogueError, match="not the shortest: the solver forces mate in 1"):
        build(tmp_path / "verified.sqlite", data_dir=data_dir, verify=True)


def test_import_is_one_transaction(data_dir, tmp_path):
    db = open_catalogue(build(tmp_path / "c.sqlite", data_dir=data_dir).path)
    good = tmp_path / "mine.fen"
    good.write_text("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1\n3ak4/4a4/9/9/9/9/9/9/9/3K4R w - - 0 1\n",
                    encoding="utf-8")
    assert import_file(db, good, "mine", verify_seconds=5) == 2
    rows = list(db.query("SELECT number, verdict, moves FROM compositions WHERE collection='mine'"))
    assert rows == [{"number": 1, "verdict": "mate", "moves": 1},
                    {"number": 2, "verdict": "mate", "moves": 3}]
    bad = tmp_path / "bad.fen"
    bad.write_text("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1\n3k5/9/9/9/9/9/9/9/9/X3K4 w - - 0 1\n",
                   encoding="utf-8")
    before = db["compositions"].count
    with pytest.raises(FormatError) as info:
        import_file(db, bad, "broken")
    assert info.value.line == 2
    assert db["compositions"].count == before


def test_export_round_trip(data_dir, tmp_path):
    db = open_catalogue(build(tmp_path / "c.sqlite", data_dir=data_dir).path)
    records = export_records(db, collection="适情雅趣")
    assert len(records) == 551
    out = tmp_path / "all.pgn"
    write(out, records[:20])
    fresh = open_catalogue(build(tmp_path / "d.sqlite", data_dir=data_dir).path)
    assert import_file(fresh, out, "again") == 20
    assert [r["fen"] for r in fresh.query(
        "SELECT fen FROM compositions WHERE collection='again' ORDER BY number")] == \
        [r.fen for r in records[:20]]


def test_catalogue_commands(data_dir, tmp_path, capsys, monkeypatch):
    path = tmp_path / "c.sqlite"
    build(path, data_dir=data_dir)
    assert main(["catalogue", "list", "--db", str(path)]) == 0
    assert "facing-kings" in capsys.readouterr().out
    assert main(["catalogue", "show", "对面笑", "--db", str(path)]) == 0
    assert "车九平六" in capsys.readouterr().out
    assert main(["catalogue", "search", "气吞", "--db", str(path)]) == 0
    assert "气吞关右" in capsys.readouterr().out
    assert main(["catalogue", "list", "compositions", "--collection", "江湖四大名局",
                 "--db", str(path), "--json"]) == 0
    assert "七星聚会" in capsys.readouterr().out
    out = tmp_path / "kings.pgn"
    assert main(["catalogue", "export", str(out), "--pattern", "facing-kings", "--db", str(path)]) == 0
    assert out.read_text(encoding="utf-8").count("[FEN") == 1


def test_recorded_collection_verdicts_replay():
    """Every 适情雅趣 verdict "mate" in puzzles/data has a main line that replays to mate in the
    stated number of moves (checking on every Red move for continuous-check problems)."""
    import csv
    import re

    from xiangqi import Board

    fens = re.findall(r'\[FEN "([^"]+)"\]',
                      (DATA_DIR / "shiqingyaqu551.fen").read_text(encoding="utf-8-sig"))
    with (DATA_DIR / "shiqingyaqu551_verdicts.tsv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    assert len(rows) == len(fens) == 551
    mates = 0
    for row in rows:
        if row["verdict"] != "mate":
            continue
        board = Board(fens[int(row["number"]) - 1])
        line = row["main_line"].split()
        assert len(line) == 2 * int(row["moves"]) - 1, row["number"]
        for ply, text in enumerate(line):
            move = board.parse_iccs(text)
            if ply % 2 == 0 and row["stipulation"] == "checks":
                assert board.gives_check(move), (row["number"], ply)
            board.push(move)
        assert not board.has_legal_move(), row["number"]
        mates += 1
    assert mates >= 239
