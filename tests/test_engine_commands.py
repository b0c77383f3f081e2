"""Issue 36: ``xqstudio engine`` answers commands during any search.  The command loop used
to wait for a search without limits when ``setoption`` came (and it read the input in the
same thread), so ``quit`` was never read and the search ran until killed.  These tests drive
the engine over pipes as a GUI does; the seeded engine fuzzer runs in process at the end."""
from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
from engine_session import EngineSession

from tablebases.build import build
from tui.frontends.engine import UCI
from xiangqi import Board

ROOT = Path(__file__).resolve().parent.parent
QUIT_SECONDS = 0.5               # quit mid-search: the process is gone within this
REPLY_SECONDS = 10.0
KRKAA_FEN = "3aka3/9/9/9/9/9/9/9/R8/3K5 w"     # Red mates (table KRKAA)
KRKA_WIN = "3k5/4a4/9/9/9/9/9/9/9/4K3R w - - 0 1"


class Session(EngineSession):
    """``python -m tui.cli engine`` over pipes: :meth:`until` waits for a line that is
    ``wanted`` or starts with it and a space."""

    reply_seconds = REPLY_SECONDS

    def matches(self, line: str, wanted: str) -> bool:
        return line == wanted or line.startswith(wanted + " ")

    def rest(self, timeout: float = REPLY_SECONDS) -> list[str]:
        """Every line until the engine's output ends."""
        got: list[str] = []
        deadline = time.monotonic() + timeout
        while (line := self.lines.get(timeout=max(0.01, deadline - time.monotonic()))) \
                is not None:
            got.append(line)
        return got

    def quit_seconds(self, command: str = "quit") -> float:
        """Send ``command``: the seconds until the process has exited (status 0, nothing
        on standard error)."""
        self.send(command)
        sent = time.monotonic()
        status = self.process.wait(timeout=REPLY_SECONDS)
        elapsed = time.monotonic() - sent
        assert status == 0
        assert self.process.stderr is not None
        assert self.process.stderr.read() == ""
        return elapsed

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def engine():
    session = Session()               # the tables: the test's own empty directory (conftest)
    session.send("uci")
    session.until("uciok")
    yield session
    session.kill()


def legal_uci_moves(fen: str) -> set[str]:
    return {UCI.write(move) for move in Board(fen).legal_moves}


def searching(session: Session, *commands: str, ucci: bool = False) -> None:
    """Send ``commands`` (the last a go) and wait for the search's first progress line
    (``info nodes ...``, UCCI ``info time ...``): the solver has been searching a second."""
    session.send(*commands)
    session.until("info time" if ucci else "info nodes")


def test_issue_36_setoption_during_go_is_refused_and_quit_ends_the_engine(engine):
    searching(engine, "position startpos", "go")
    engine.send("setoption name Hash value 64")
    assert engine.until("info string Hash")[-1] == \
        "info string Hash cannot change during a search; send stop first"
    assert engine.quit_seconds() < QUIT_SECONDS


def test_issue_36_the_reported_input_in_one_piece():
    session = Session()
    try:
        session.send("uci", "position startpos", "go", "setoption name Hash value 64")
        assert "uciok" in session.until("uciok")
        assert session.until("info string Hash")[-1] == \
            "info string Hash cannot change during a search; send stop first"
        assert session.quit_seconds() < QUIT_SECONDS
    finally:
        session.kill()


def test_the_hash_refused_mid_search_is_taken_after_it(engine):
    searching(engine, "position startpos", "go infinite")
    engine.send("setoption name TablebasePath value /nowhere")
    assert engine.until("info string TablebasePath")[-1] == \
        "info string TablebasePath cannot change during a search; send stop first"
    engine.send("stop")
    assert engine.until("bestmove")[-1] == "bestmove a1a2"
    engine.send("setoption name Hash value 1", "isready")
    assert engine.until("readyok") == ["readyok"]             # taken, without a word
    engine.send("setoption name Hash value 0", "isready")
    assert engine.until("readyok") == [
        "info string error: Hash must be between 1 and 65536 MB, not 0", "readyok"]


def test_stop_during_go_infinite_gives_bestmove_at_once(engine):
    searching(engine, "position startpos", "go infinite")
    engine.send("stop")
    sent = time.monotonic()
    lines = engine.until("bestmove")
    assert time.monotonic() - sent < 1.0
    assert lines[-2:] == [lines[-2], "bestmove a1a2"] and lines[-2].endswith(" pv a1a2")
    assert any(line.startswith("info string no mate proven within") and "stopped" in line
               for line in lines)
    engine.send("isready")
    assert engine.until("readyok") == ["readyok"]             # one bestmove, no more


@pytest.mark.parametrize("go", ["go infinite", "go mate 30", "go", "go depth 60",
                                "go ponder wtime 100000 btime 100000"])
def test_isready_mid_search_is_answered_at_once(engine, go):
    searching(engine, "position startpos", go)
    engine.send("isready")
    sent = time.monotonic()
    assert engine.until("readyok")[-1] == "readyok"
    assert time.monotonic() - sent < 0.5
    assert engine.quit_seconds() < QUIT_SECONDS


@pytest.mark.parametrize("go", ["go mate 30", "go infinite"])
def test_ucci_quit_mid_search_says_bye_and_exits(go):
    session = Session()
    try:
        session.send("ucci")
        session.until("ucciok")
        searching(session, "position startpos", go, ucci=True)
        session.send("quit")
        sent = time.monotonic()
        assert session.rest()[-1] == "bye"
        assert session.process.wait(timeout=REPLY_SECONDS) == 0
        assert time.monotonic() - sent < QUIT_SECONDS
    finally:
        session.kill()


def test_end_of_input_mid_search_stops_it_and_exits(engine):
    searching(engine, "position startpos", "go infinite")
    assert engine.process.stdin is not None
    engine.process.stdin.close()
    sent = time.monotonic()
    assert engine.rest()[-1] == "bestmove a1a2"
    assert engine.process.wait(timeout=REPLY_SECONDS) == 0
    assert time.monotonic() - sent < QUIT_SECONDS


def test_a_go_during_a_finite_search_waits_for_its_bestmove_but_isready_does_not(engine):
    searching(engine, "position startpos", "go mate 30")
    engine.send("position fen " + KRKA_WIN, "go depth 1", "isready")
    assert engine.until("readyok")[-1] == "readyok"            # the first search still runs
    engine.send("stop")
    first = engine.until("bestmove")
    assert first[-1] == "bestmove a1a2"                        # the start position's move
    second = engine.until("bestmove")                          # then the held go's answer
    assert second[-1].split()[1] in legal_uci_moves(KRKA_WIN)
    assert not any(line.startswith("info nodes") for line in second)
    engine.send("isready")
    assert engine.until("readyok") == ["readyok"]


def test_other_options_count_from_the_next_go(engine):
    searching(engine, "position startpos", "go infinite")
    engine.send("setoption name MateMode value checks")
    assert engine.until("info string MateMode:")[-1] == \
        "info string MateMode: from the next go on (the search running keeps its own)"
    engine.send("stop")
    engine.until("bestmove")


# -- a damaged table --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def damaged_tables(tmp_path_factory) -> Path:
    """KRKAA (with its sub-tables) whose file has 64 bytes flipped in the middle."""
    directory = tmp_path_factory.mktemp("damaged_tables")
    build(["KRKAA"], directory, threads=1, log=lambda line: None)
    path = directory / "KRKAA.xqtb"
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    for at in range(middle, middle + 64):
        data[at] ^= 0xFF
    path.write_bytes(bytes(data))
    return directory


@pytest.mark.parametrize("go", ["go", "go mate 10", "go depth 6", "go movetime 300"])
def test_a_damaged_table_is_named_with_its_rebuild_and_the_solver_answers(damaged_tables, go):
    session = Session("--tables", str(damaged_tables))
    try:
        session.send("uci")
        session.until("uciok")
        session.send(f"position fen {KRKAA_FEN}", go)
        lines = session.until("bestmove")
        damaged = [line for line in lines if "damaged" in line]
        assert len(damaged) == 1, lines
        assert damaged[0].startswith(f"info string damaged table "
                                     f"{damaged_tables / 'KRKAA.xqtb'}: ")
        assert damaged[0].endswith(f"; rebuild it with: xqstudio tb build KRKAA --tables "
                                   f"{damaged_tables}; the solver answers without the tables")
        assert not any("error" in line for line in lines), lines
        assert lines[-1].split()[1] in legal_uci_moves(KRKAA_FEN)
        session.send("isready")                              # and the engine goes on
        assert session.until("readyok")[-1] == "readyok"
        assert session.quit_seconds() < QUIT_SECONDS
    finally:
        session.kill()


# -- the seeded fuzzer ------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [36, 2026])
def test_engine_fuzz_seeded(seed, monkeypatch):
    """A small share of ``tests/fuzz/fuzz_engine.py`` (a few seconds): 150 random commands
    in sessions, many of them mid-search; the harness raises AssertionError on a failure."""
    monkeypatch.syspath_prepend(str(Path(__file__).parent / "fuzz"))
    import fuzz_engine

    stats = fuzz_engine.fuzz_engine(random.Random(f"engine:{seed}"), 150)
    assert stats.sessions > 0 and stats.commands >= 150 and stats.searches > 0
