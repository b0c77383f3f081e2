"""The boundaries a second new-user trial met (issue 52), taken as a user takes them: a table
size beyond the machine's memory, the engine's largest Hash, a table's answer to ``go mate``.
Commands run as subprocesses (the console script next to this Python), so what is checked is
what a user reads: the exit status, the message, the ``--json`` document."""
from __future__ import annotations

import io
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from engine_session import EngineSession

import tui.frontends.engine as engine_module
from solver.search import Limits, SolverError, table_bytes, table_memory_problem
from tablebases import open_tablebase
from tablebases.build import available_memory, build
from tui.frontends.engine import UCI, Engine, GoRequest, SearchThread, largest_hash_mb
from xiangqi import STARTING_FEN, Board
from xiangqi.quantities import memory_text

XQSTUDIO = str(Path(sys.executable).parent / "xqstudio")
ROOK_MATE_IN_3 = "3ak4/4a4/9/9/9/9/9/9/9/3K4R w"            # K R vs K A A, mate in 3
# 《适情雅趣》 No. 4: no mate is found for a long while, so a search is still running.
HARD = "2bk1ab2/4a4/9/p1P6/3NC4/4Pp3/P5n2/4B3N/4Ar3/1RBAK2cr w - - 0 1"
# The top of --table-bits' range: 2**34 entries of 32 bytes, 512 GiB.
TOO_MANY_BITS = 34


def xqstudio(*argv: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([XQSTUDIO, *argv], capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def rook_tables(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("krkaa")
    build("KRKAA", directory, log=lambda line: None)
    return directory


def test_a_table_larger_than_the_memory_is_refused_by_the_library():
    assert table_bytes(TOO_MANY_BITS) > available_memory()
    problem = table_memory_problem(TOO_MANY_BITS)
    assert problem is not None and "512.0 GiB" in problem
    assert memory_text(available_memory()) in problem
    with pytest.raises(SolverError, match="needs 512.0 GiB of memory"):
        Limits(table_bits=TOO_MANY_BITS)
    assert table_memory_problem(10) is None


@pytest.mark.parametrize("command", [
    ["problem", "solve", ROOK_MATE_IN_3],
    ["problem", "verify", ROOK_MATE_IN_3],
    ["problem", "refute", ROOK_MATE_IN_3.replace(" w", " b")],
    ["problem", "solve", ROOK_MATE_IN_3, "--draw"],
])
def test_table_bits_beyond_the_memory_are_refused_cleanly(command, tmp_path):
    for json_output in (False, True):
        done = xqstudio(*command, "--table-bits", str(TOO_MANY_BITS), "--tables", str(tmp_path),
                        *(["--json"] if json_output else []))
        assert done.returncode == 1, done.stderr
        assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr
        message = done.stderr.strip().splitlines()[-1]
        assert message.startswith(f"error: table bits {TOO_MANY_BITS}: a transposition table")
        assert "512.0 GiB of memory" in message and "available" in message
        if json_output:
            assert json.loads(done.stdout)["error"] == message.removeprefix("error: ")


class Session(EngineSession):
    reply_seconds = 60.0


def test_the_engines_largest_hash_is_lowered_to_what_fits_and_the_table_answers(rook_tables):
    fits = largest_hash_mb(engine_module.MAX_HASH_MB)
    assert fits < engine_module.MAX_HASH_MB          # 64 GiB: more than these machines have
    assert table_memory_problem(engine_module.hash_table_bits(fits)) is None
    session = Session("--tables", str(rook_tables))
    try:
        session.send("uci")
        session.until("uciok")
        session.send(f"setoption name Hash value {engine_module.MAX_HASH_MB}")
        session.send(f"position fen {ROOK_MATE_IN_3} - - 0 1", "go mate 3")
        lines = session.until("bestmove")
        session.send("quit")
    finally:
        session.process.wait(timeout=30)
    assert f"info string Hash {engine_module.MAX_HASH_MB} MB is more than the memory " \
           f"available" in lines[0] and lines[0].endswith(f": {fits} MB used")
    assert not any("error" in line for line in lines), lines
    assert "info string table: mate in 3 (quiet moves allowed), read from the tablebase" in lines
    with open_tablebase(rook_tables) as tablebase:
        board = Board(ROOK_MATE_IN_3)
        best = [item.move for item in tablebase.ranked_moves(board)
                if item.value == tablebase.ranked_moves(board)[0].value]
    assert lines[-1].split()[1] in {UCI.write(move) for move in best}
    assert " score mate 3 " in lines[-2]


def test_a_search_that_fails_still_plays_the_tables_move(rook_tables, monkeypatch):
    class FailingSolver:
        def __init__(self, *args: object, **kwargs: object) -> None:
            raise MemoryError("cannot allocate a table")

    monkeypatch.setattr(engine_module, "Solver", FailingSolver)
    out = io.StringIO()
    engine = Engine(out)
    engine.tables = rook_tables
    board = Board(ROOK_MATE_IN_3)
    thread = SearchThread(engine, board, GoRequest(mate=3), [])
    thread.run()
    said = out.getvalue().splitlines()
    assert said[0].startswith("info string error: search failed: MemoryError"), said
    assert any(line.startswith("info string table: Red wins, mate in 3") for line in said), said
    assert " score mate 3 " in said[-2] and said[-1].startswith("bestmove ")
    engine.close_tables()


class Tmux:
    """The studio in a tmux terminal of its own (a private server socket): keys in, the
    screen read back as a person sees it (``capture-pane``)."""

    def __init__(self, socket: str, command: list[str], size: tuple[int, int]) -> None:
        self.base = ["tmux", "-L", socket]
        columns, lines = size
        subprocess.run([*self.base, "new-session", "-d", "-s", "studio", "-x", str(columns),
                        "-y", str(lines), shlex.join(command) + "; echo STUDIO-EXITED $?; "
                        "sleep 60"], check=True)

    def keys(self, *keys: str) -> None:
        subprocess.run([*self.base, "send-keys", "-t", "studio", *keys], check=True)

    def screen(self) -> str:
        return subprocess.run([*self.base, "capture-pane", "-p", "-t", "studio"],
                              capture_output=True, text=True, check=True).stdout

    def wait_for(self, text: str, seconds: float = 30) -> float:
        """Seconds until ``text`` is on the screen (AssertionError after ``seconds``)."""
        start = time.monotonic()
        while time.monotonic() - start < seconds:
            if text in self.screen():
                return time.monotonic() - start
            time.sleep(0.1)
        raise AssertionError(f"{text!r} not on the screen after {seconds} s:\n{self.screen()}")

    def press_until(self, key: str, text: str, tries: int = 6, seconds: float = 5) -> None:
        """Press ``key`` until ``text`` is on the screen: a key sent while the studio is
        busy starting (a loaded machine) can be lost, and ``key`` cycles (the solver's
        mode), so it is pressed again only after a wait."""
        for _ in range(tries):
            self.keys(key)
            try:
                self.wait_for(text, seconds)
                return
            except AssertionError:
                continue
        raise AssertionError(f"{text!r} not on the screen after {tries} x {key}:\n"
                             f"{self.screen()}")

    def close(self) -> None:
        subprocess.run([*self.base, "kill-server"], capture_output=True)


def studio_processes(fen: str) -> list[int]:
    """The Python processes running ``xqstudio studio --fen FEN`` (the studio and its search's
    helpers, which are forked from it), not the shell that started it."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if fen.encode() in words and any(b"xqstudio" in word for word in words) and \
                not any(b"STUDIO-EXITED" in word for word in words):
            found.append(int(entry.name))
    return found


# The tests that read the studio's screen need tmux (a Debian package; the CI machines have it).
needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


@pytest.fixture
def tmux(tmp_path, monkeypatch):
    monkeypatch.setenv("XQSTUDIO_TABLES", str(tmp_path / "tables"))
    monkeypatch.setenv("XQSTUDIO_CATALOGUE", str(tmp_path / "catalogue.sqlite"))
    sessions: list[Tmux] = []

    def start(*argv: str, size: tuple[int, int] = (120, 40)) -> Tmux:
        session = Tmux(f"xqstudio-test-{os.getpid()}-{len(sessions)}", [XQSTUDIO, *argv], size)
        sessions.append(session)
        return session
    yield start
    for session in sessions:
        session.close()


@pytest.mark.slow
@needs_tmux
@pytest.mark.parametrize("threads", ["1", "2"])
def test_quitting_the_studio_during_a_search_ends_it_at_once(tmux, monkeypatch, threads):
    """Analyse mode on a hard problem, the Solver tab, mode "any", ``s``, then ctrl+q:
    the process is gone within seconds (it searched on, its screen blank, until the budget
    ended: with budget 0 for ever); on two processes (the default on two cores) too."""
    monkeypatch.setenv("XQSTUDIO_THREADS", threads)
    studio = tmux("studio", "--fen", HARD)
    studio.wait_for("3 Solver")
    studio.press_until("3", "Solve (s)")
    studio.press_until("t", "Mode: any moves")
    studio.press_until("s", "nodes/s")
    studio.keys("C-q")
    assert studio.wait_for("STUDIO-EXITED 0", seconds=10) < 5
    assert "Traceback" not in studio.screen()
    assert studio_processes(HARD) == []           # no helper process left behind


@pytest.mark.parametrize("command,option", [
    (["problem", "solve", STARTING_FEN], "--max-moves"),
    (["problem", "verify", STARTING_FEN], "--moves"),
])
def test_a_game_position_is_refused_without_a_bound(command, option, tmp_path):
    done = xqstudio(*command, "--tables", str(tmp_path), "--json")
    assert done.returncode == 1
    assert json.loads(done.stdout)["error"] == (
        f"a game position (32 pieces), not a composition: a forced mate from it is beyond any "
        f"search; give {option} N to look for a mate within N moves all the same")
    bounded = json.loads(xqstudio(*command, option, "1", "--nodes", "20000", "--tables",
                                  str(tmp_path), "--json").stdout)
    assert "error" not in bounded and bounded["verdict"] == "no mate"     # searched as asked


def test_an_unproven_solve_says_what_it_kept_back_of_its_budget(tmp_path):
    done = xqstudio("problem", "solve", HARD, "--nodes", "20000", "--tables", str(tmp_path))
    assert done.returncode == 1
    assert "Unknown: the search did not finish within its share of the budget (85%; the other " \
           "15% is kept to extract a proven mate's main line); budget 20,000 nodes" in done.stdout
    document = json.loads(xqstudio("problem", "solve", HARD, "--nodes", "20000", "--tables",
                                   str(tmp_path), "--json").stdout)
    assert document["verdict"] == "unknown"
    assert document["budget"] == {"seconds": 0.0, "nodes": 20000, "kept_for_line": 0.15}
    assert 0.8 * 20000 <= document["nodes"] <= 0.9 * 20000


@pytest.mark.parametrize("command", [
    ["tb", "list"],
    ["problem", "solve", ROOK_MATE_IN_3],
    ["studio"],
    ["engine"],
])
def test_a_table_directory_variable_naming_a_file_is_refused(command, tmp_path):
    file = tmp_path / "not-a-directory"
    file.write_text("x")
    done = subprocess.run([XQSTUDIO, *command], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "XQSTUDIO_TABLES": str(file)},
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert f"error: argument --tables: '{file}' (set by XQSTUDIO_TABLES) is not a directory" \
        in done.stderr
    assert "Errno" not in done.stderr and "Traceback" not in done.stderr


def test_the_studio_alone_refuses_a_table_directory_that_is_a_file(tmp_path, monkeypatch):
    from tui.settings import Settings, SettingsError

    file = tmp_path / "not-a-directory"
    file.write_text("x")
    monkeypatch.setenv("XQSTUDIO_TABLES", str(file))
    with pytest.raises(SettingsError, match="is not a directory .the table directory, set by "
                                            "XQSTUDIO_TABLES."):
        Settings.resolve()
    assert Settings.resolve(tables=tmp_path).tables == tmp_path


def test_a_catalogue_in_a_missing_folder_is_refused_and_a_new_one_is_announced(tmp_path):
    missing = tmp_path / "typo" / "catalogue.sqlite"
    done = xqstudio("catalogue", "list", "collections", "--db", str(missing), "--json")
    assert done.returncode == 1 and not missing.parent.exists()
    assert json.loads(done.stdout)["error"] == (
        f"no folder {missing.parent} for the catalogue catalogue.sqlite: check the path (or "
        "create the folder for a new catalogue)")
    fresh = tmp_path / "catalogue.sqlite"
    done = xqstudio("catalogue", "list", "collections", "--db", str(fresh))
    assert done.returncode == 0 and fresh.exists()
    assert done.stderr.strip() == f"note: no catalogue at {fresh}: a new one is built there " \
                                  "(no progress recorded)"
    again = xqstudio("catalogue", "list", "collections", "--db", str(fresh))
    assert again.returncode == 0 and again.stderr == "" and again.stdout == done.stdout


SEVEN_STARS = "4rk3/3P5/4bP3/9/9/8P/9/1p2p2C1/3p1p3/4K1RR1 w"     # 七星聚会, 红先和


@pytest.mark.slow
@needs_tmux
def test_a_draw_analysis_in_an_80_column_terminal_leaves_no_progress_behind(tmux):
    """The progress line (its phase in Chinese takes two columns a character) is cleared
    whole, and a trap's refutation cut for the report ends in "… (N more plies)"."""
    run = tmux("problem", "solve", SEVEN_STARS, "--draw", "--nodes", "200000", size=(80, 60))
    run.wait_for("STUDIO-EXITED", seconds=120)
    rows = [row for row in run.screen().splitlines() if row.strip()]
    assert rows[0].startswith("Stipulation: draw (红先和)"), rows[:3]
    assert not any("nodes/s" in row for row in rows), rows
    report = "".join(rows)               # the terminal wraps long rows at 80 columns
    assert "将6进1 \u2026 (2 more plies)" in report
    assert "\u2026 (4 more plies)" in report


def test_an_unproven_verdict_says_under_what_budget(shipped_catalogue, tmp_path):
    """适情雅趣:65 is "unproven" at the book's 5,000,000 nodes (a 60-s solve settles it):
    list, show and JSON say so; a proven verdict stands alone."""
    shown = xqstudio("catalogue", "show", "适情雅趣:65", "--db", str(shipped_catalogue))
    assert "verdict: unproven (budget 5,000,000 nodes)" in shown.stdout
    listed = xqstudio("catalogue", "list", "compositions", "--collection", "适情雅趣",
                      "--limit", "2", "--offset", "3", "--db", str(shipped_catalogue)).stdout
    assert "适情雅趣:4" in listed and "unproven (budget 5,000,000 nodes)" in listed
    assert "适情雅趣:5" in listed and "mate       16 moves" in listed
    document = json.loads(xqstudio("catalogue", "show", "适情雅趣:1", "--json", "--db",
                                   str(shipped_catalogue)).stdout)
    assert (document["verdict"], document["budget"]) == ("mate", "budget 30 s")
    draw = xqstudio("catalogue", "show", "江湖四大名局:2", "--db", str(shipped_catalogue)).stdout
    assert "verdict: unproven within 20 (searched 189,952 nodes in 7.3 s)" in draw


def test_catalogue_verify_records_the_budget_of_its_verdicts(shipped_catalogue, tmp_path):
    catalogue = tmp_path / "catalogue.sqlite"
    catalogue.write_bytes(shipped_catalogue.read_bytes())
    done = xqstudio("catalogue", "verify", "--collection", "适情雅趣", "--numbers", "4",
                    "--seconds", "0", "--nodes", "20000", "--db", str(catalogue))
    assert done.returncode == 0, done.stderr
    shown = xqstudio("catalogue", "show", "适情雅趣:4", "--db", str(catalogue)).stdout
    assert "verdict: unproven (budget 20,000 nodes)" in shown
