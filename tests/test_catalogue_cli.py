"""``xqstudio catalogue`` as a user runs it (issue 36): a file that is not a catalogue, export
to every format it names, titles of exported problems, importing a file twice, and book
references such as 适情雅趣:7."""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from puzzles.catalogue import build
from tui.cli import main

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    """The catalogue built from puzzles/data as shipped."""
    path = tmp_path_factory.mktemp("shipped") / "catalogue.sqlite"
    build(path)
    return path


@pytest.fixture
def catalogue(shipped, tmp_path):
    """A copy of the shipped catalogue that a test may change."""
    path = tmp_path / "mine.sqlite"
    shutil.copy(shipped, path)
    return path


def xqstudio(*argv, home: Path) -> subprocess.CompletedProcess:
    """``xqstudio catalogue ARGV`` in a fresh process with its own HOME."""
    env = {**os.environ, "HOME": str(home), "PYTHONPATH": str(ROOT)}
    env.pop("XQSTUDIO_CATALOGUE", None)
    return subprocess.run([sys.executable, "-m", "tui.cli", "catalogue", *map(str, argv)],
                          capture_output=True, text=True, encoding="utf-8", env=env, cwd=ROOT,
                          timeout=300)


# -- 5. a file that is not a catalogue --------------------------------------------------------

COMMANDS = [("list",), ("list", "compositions"), ("show", "7"), ("search", "马"),
            ("export", "{out}"), ("schema",), ("verify", "--numbers", "1"),
            ("import", "{notes}", "--collection", "x"), ("diagram", "7", "-o", "{svg}"),
            ("sheet", "7", "-o", "{html}"), ("build",)]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c))
def test_a_file_that_is_not_sqlite_is_named_without_a_traceback(tmp_path, command):
    notes = tmp_path / "notes.txt"
    notes.write_text("shopping list\n", encoding="utf-8")
    argv = [part.format(out=tmp_path / "out.pgn", notes=notes, svg=tmp_path / "d.svg",
                        html=tmp_path / "s.html") for part in command]
    result = xqstudio(*argv, "--db", notes, home=tmp_path)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith(f"error: {notes} is not a catalogue database "
                                    "(file is not a database)")
    assert notes.read_text(encoding="utf-8") == "shopping list\n"     # never replaced


def test_not_a_catalogue_in_json(tmp_path, capsys):
    other = tmp_path / "other.sqlite"
    connection = sqlite3.connect(other)
    connection.execute("CREATE TABLE t (x)")
    connection.commit()
    connection.close()
    for argv in (["list", "compositions"], ["show", "适情雅趣:7"], ["search", "马"]):
        assert main(["catalogue", *argv, "--db", str(other), "--json"]) == 1
        captured = capsys.readouterr()
        message = f"{other} is not a catalogue database (no such table: meta)"
        assert json.loads(captured.out) == {"error": message}
        assert captured.err == f"error: {message}\n"


# -- 4. references: 适情雅趣:7 as the studio lists it ------------------------------------------

@pytest.mark.slow
def test_a_book_reference_shows_the_composition_the_studio_lists(shipped, tmp_path):
    from puzzles.catalogue import entry_reference, open_catalogue, query

    db = open_catalogue(shipped)
    chun_lei = query(db, text="春雷惊蛰").entries[0]
    assert (chun_lei.collection, chun_lei.number) == ("适情雅趣", 7)
    # The studio's reference column and the command line say the same.
    from tui.screens.catalogue import entry_place
    assert entry_place(chun_lei) == entry_reference(chun_lei) == "适情雅趣:7"
    for reference in ("适情雅趣:7", "shiqingyaqu:7", "适情雅趣：7", str(chun_lei.id)):
        result = xqstudio("show", reference, "--db", shipped, home=tmp_path)
        assert result.returncode == 0, result.stderr
        assert result.stdout.splitlines()[0] == f"适情雅趣:7 春雷惊蛰 (id {chun_lei.id})"
    # A bare number is the catalogue id (as `list compositions` shows it), not a book number.
    result = xqstudio("show", "7", "--db", shipped, home=tmp_path)
    assert result.stdout.splitlines()[0] == "适情雅趣:2 马蹀阏氏 (id 7)"
    listed = xqstudio("list", "compositions", "--collection", "shiqingyaqu", "--limit", "7",
                      "--db", shipped, home=tmp_path).stdout.splitlines()
    assert listed[6].split()[:3] == [str(chun_lei.id), "适情雅趣:7", "春雷惊蛰"]
    shown = json.loads(xqstudio("show", "适情雅趣:7", "--json", "--db", shipped,
                                home=tmp_path).stdout)
    assert (shown["title"], shown["reference"], shown["number"]) == ("春雷惊蛰", "适情雅趣:7", 7)
    example = xqstudio("show", "马后炮:2", "--db", shipped, home=tmp_path)
    assert example.returncode == 0 and example.stdout.startswith("马后炮:2 马后炮 例2")


def test_references_in_search_and_errors(shipped, tmp_path, capsys):
    from puzzles.catalogue import open_catalogue, query

    db = open_catalogue(shipped)
    # The studio's search box and `catalogue search` take a reference of one entry.
    assert [(e.title, e.number) for e in query(db, text="适情雅趣:7").entries] == \
        [("春雷惊蛰", 7)]
    assert main(["catalogue", "search", "适情雅趣:7", "--db", str(shipped), "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    assert [hit["title"] for hit in hits] == ["适情雅趣:7 春雷惊蛰"]
    for reference, message in [
            ("适情雅趣:999", "适情雅趣 has no number 999 (its numbers run 1 to 551"),
            ("适情雅趣", "'适情雅趣' is a collection: name one of its compositions, 适情雅趣:1 "
                        "to 适情雅趣:551"),
            ("nowhere:3", "no pattern or collection 'nowhere' in 'nowhere:3' (a reference is"),
            ("无此杀法", "no pattern '无此杀法' (a reference is")]:
        result = xqstudio("show", reference, "--db", shipped, home=tmp_path)
        assert result.returncode == 1 and "Traceback" not in result.stderr
        assert result.stderr.startswith(f"error: {message}"), result.stderr


@pytest.mark.parametrize("command", ["show", "diagram", "sheet", "export"])
def test_help_says_what_a_reference_is(command, tmp_path):
    result = xqstudio(command, "--help", home=tmp_path)
    text = " ".join(result.stdout.split())
    assert result.returncode == 0
    for words in ("适情雅趣:7", "shiqingyaqu:7", "马后炮:2", "facing-kings",
                  "catalogue id", "the number printed in the book"):
        assert words in text, words


# -- 1. export writes every format it names; 2. each entry titled by its own name ------------

@pytest.mark.parametrize("name", ["all.fen", "all.txt", "all.epd"])
def test_export_to_a_fen_list_keeps_the_solutions_as_comments(shipped, tmp_path, name):
    from puzzles.catalogue import open_catalogue, query
    from puzzles.formats import read

    out = tmp_path / name
    result = xqstudio("export", out, "--collection", "适情雅趣", "--db", shipped, home=tmp_path)
    assert result.returncode == 0, result.stderr
    entries = query(open_catalogue(shipped), collection="适情雅趣", limit=None).entries
    solved = [e for e in entries if e.main_line]
    assert result.stdout == (f"wrote 551 records (fen) to {out} ({len(solved)} solutions kept "
                             "as '# solution:' comments; a FEN list holds positions)\n")
    records = read(out)                 # the comments are skipped by the reader
    assert [r.fen for r in records] == [e.fen for e in entries]
    assert [r.tags["title"] for r in records][6] == "春雷惊蛰"
    text = out.read_text(encoding="utf-8")
    assert text.count("# solution: ") == len(solved)
    assert f"# solution: {' '.join(entries[0].main_line)}\n" in text


@pytest.mark.slow
def test_export_writes_every_format_it_names(shipped, tmp_path):
    from puzzles.formats import FORMATS, read

    for suffix in (s for f in FORMATS for s in f.suffixes if f.name != "xqf"):
        out = tmp_path / f"cannon{suffix}"
        result = xqstudio("export", out, "--pattern", "马后炮", "--db", shipped, home=tmp_path)
        assert result.returncode == 0, (suffix, result.stderr)
        assert [r.tags["title"] for r in read(out)] == ["马后炮 例1", "马后炮 例2", "马后炮 例3"]
    # XQF holds one problem: one entry named by its reference is written, many refused.
    out = tmp_path / "chun_lei.xqf"
    result = xqstudio("export", out, "适情雅趣:7", "--db", shipped, home=tmp_path)
    assert result.returncode == 0, result.stderr
    (record,) = read(out)
    assert record.tags["title"] == "春雷惊蛰" and record.moves
    result = xqstudio("export", tmp_path / "many.xqf", "--db", shipped, home=tmp_path)
    assert result.returncode == 1 and "an XQF file holds one problem and 556 are selected" \
        in result.stderr
    assert not (tmp_path / "many.xqf").exists()


def test_export_errors_name_what_the_user_gave(shipped, tmp_path):
    result = xqstudio("export", tmp_path / "all.doc", "--db", shipped, home=tmp_path)
    assert result.returncode == 1
    assert result.stderr == (f"error: cannot export to {tmp_path / 'all.doc'}: unknown file "
                             "type '.doc'; export writes .fen .epd .txt (fen); .pgn (pgn); "
                             ".dhtml .dhtmlxq (dhtmlxq); .xqf (xqf)\n")
    missing = tmp_path / "no" / "such"
    result = xqstudio("export", missing / "all.pgn", "--json", "--db", shipped, home=tmp_path)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    error = json.loads(result.stdout)
    assert error["error"] == f"{missing / 'all.pgn'}: cannot write: there is no directory {missing}"
    assert error["file"] == str(missing / "all.pgn") and ".tmp" not in result.stderr
    assert not missing.exists()


@pytest.mark.slow
def test_exported_titles_are_each_entrys_own_name(shipped, tmp_path):
    from puzzles.formats import read

    out = tmp_path / "mixed.pgn"
    result = xqstudio("export", out, "适情雅趣:7", "适情雅趣:8", "马后炮", "--db", shipped,
                      home=tmp_path)
    assert result.returncode == 0, result.stderr
    text = out.read_text(encoding="utf-8")
    assert text.count('[Title "马后炮 例') == 3 and '[Title "马后炮 2"]' not in text
    records = read(out)
    assert [r.tags["title"] for r in records] == ["春雷惊蛰", "珠藏韫柜", "马后炮 例1",
                                                  "马后炮 例2", "马后炮 例3"]
    assert [r.tags["event"] for r in records][:3] == ["适情雅趣 第7局 春雷惊蛰",
                                                      "适情雅趣 第8局 珠藏韫柜", "马后炮 例1"]
    # The whole book: no two titles alike unless the names are.
    whole = tmp_path / "whole.pgn"
    assert xqstudio("export", whole, "--collection", "shiqingyaqu", "--db", shipped,
                    home=tmp_path).returncode == 0
    from puzzles.catalogue import open_catalogue, query
    names = [e.title for e in query(open_catalogue(shipped), collection="适情雅趣",
                                    limit=None).entries]
    assert [r.tags["title"] for r in read(whole)] == names
    assert len({r.tags["event"] for r in read(whole)}) == 551


# -- 3. importing a file twice ----------------------------------------------------------------

@pytest.mark.slow
def test_importing_repeated_positions_is_refused_unless_told_what_to_do(catalogue, tmp_path):
    from puzzles.catalogue import open_catalogue, query

    cannon, mixed = tmp_path / "cannon.pgn", tmp_path / "mixed.pgn"
    assert xqstudio("export", cannon, "--pattern", "马后炮", "--db", catalogue,
                    home=tmp_path).returncode == 0
    assert xqstudio("export", mixed, "马后炮:2", "对面笑:1", "--db", catalogue,
                    home=tmp_path).returncode == 0
    first = xqstudio("import", cannon, "--collection", "mine", "--db", catalogue, home=tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stdout == ("imported 3 new positions into 'mine' as numbers 1-3; verdicts of "
                            "the positions written: 3 unverified\n")

    def mine():
        return [(e.number, e.title, e.source) for e in
                query(open_catalogue(catalogue), collection="mine", limit=None).entries]

    before = mine()
    search_rows = sqlite3.connect(catalogue).execute("SELECT count(*) FROM search").fetchone()
    # The same file again: refused, naming how many and which, and both flags; nothing written.
    again = xqstudio("import", cannon, "--collection", "mine", "--db", catalogue, home=tmp_path)
    assert again.returncode == 1 and again.stdout == ""
    assert again.stderr == (
        "error: 3 of the 3 positions in cannon.pgn are already in 'mine' (record 1 = mine:1, "
        "record 2 = mine:2, record 3 = mine:3); nothing imported: --skip-existing adds only "
        "the new positions, --replace replaces the existing entries' data\n")
    assert mine() == before
    assert sqlite3.connect(catalogue).execute("SELECT count(*) FROM search").fetchone() == \
        search_rows
    refused = json.loads(xqstudio("import", mixed, "--collection", "mine", "--json", "--db",
                                  catalogue, home=tmp_path).stdout)
    assert refused["repeated"] == [{"record": 1, "number": 2}]
    assert refused["error"].startswith("1 of the 2 positions in mixed.pgn is already in 'mine' "
                                       "(record 1 = mine:2)")
    # --skip-existing: the old entry kept, the new position added.
    skip = xqstudio("import", mixed, "--collection", "mine", "--skip-existing", "--json",
                    "--db", catalogue, home=tmp_path)
    assert json.loads(skip.stdout) == {
        "file": str(mixed), "collection": "mine", "imported": 1, "first_number": 4,
        "last_number": 4, "verdicts": {"unverified": 1}, "replaced": [], "skipped": [2]}
    assert mine() == before + [(4, "对面笑 例1", "mixed.pgn")]
    # --replace: the existing entries' data replaced, numbers kept, nothing added.
    renamed = tmp_path / "renamed.pgn"
    renamed.write_text(cannon.read_text(encoding="utf-8").replace("马后炮 例", "重命名 "),
                       encoding="utf-8")
    replace = xqstudio("import", renamed, "--collection", "mine", "--replace", "--db",
                       catalogue, home=tmp_path)
    assert replace.returncode == 0, replace.stderr
    assert replace.stdout == ("imported 0 new positions into 'mine'; replaced the data of 3 "
                              "already there (mine:1-3); verdicts of the positions written: "
                              "3 unverified\n")
    assert mine() == [(1, "重命名 1", "renamed.pgn"), (2, "重命名 2", "renamed.pgn"),
                      (3, "重命名 3", "renamed.pgn"), (4, "对面笑 例1", "mixed.pgn")]
    # The search index follows the replaced titles.
    assert sorted(e.number for e in query(open_catalogue(catalogue), text="重命名").entries) \
        == [1, 2, 3]
    both = xqstudio("import", cannon, "--collection", "mine", "--replace", "--skip-existing",
                    "--db", catalogue, home=tmp_path)
    assert both.returncode == 2 and "not allowed with argument --replace" in both.stderr


def test_games_from_the_opening_position_repeat_only_with_their_moves(catalogue):
    from puzzles.catalogue import RepeatedPositions, import_file, open_catalogue

    external = ROOT / "tests" / "data" / "external"
    db = open_catalogue(catalogue)
    # Two different games from the opening position are not repeats of each other ...
    assert import_file(db, external / "eleeye_ccgc_01.pgn", "games") == 1
    assert import_file(db, external / "cchess_test_ubb.txt", "games") == 1
    # ... but the same game again is.
    with pytest.raises(RepeatedPositions) as caught:
        import_file(db, external / "cchess_test_ubb.txt", "games")
    assert caught.value.repeated == [(1, 2)]
    assert import_file(db, external / "cchess_test_ubb.txt", "games", existing="skip") == 0
    assert db.execute("SELECT count(*) FROM compositions WHERE collection = 'games'"
                      ).fetchone()[0] == 2


# -- the kill patterns a line shows (issue 42) -------------------------------------------------

def test_listing_the_compositions_that_show_a_pattern(shipped, capsys):
    assert main(["catalogue", "list", "compositions", "--shows", "闷宫", "--db", str(shipped),
                 "--json"]) == 0
    page = json.loads(capsys.readouterr().out)
    assert page["total"] > 0
    assert all("smothered-palace" in entry["shows"] for entry in page["entries"])
    first = page["entries"][0]
    assert main(["catalogue", "show", str(first["id"]), "--db", str(shipped)]) == 0
    shows_line = [line for line in capsys.readouterr().out.splitlines()
                  if line.startswith("Shows: ")]
    assert len(shows_line) == 1 and "闷宫" in shows_line[0]
    assert main(["catalogue", "list", "compositions", "--shows", "no-such", "--db",
                 str(shipped)]) == 1
    assert "no-such" in capsys.readouterr().err
