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
