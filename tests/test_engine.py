"""``xqstudio engine`` driven as a GUI drives it: a subprocess over pipes, one command per
line, the replies read with a timeout.  Every ``bestmove`` and ``pv`` move the engine sends
is checked against Fairy-Stockfish (``pyffish``, variant ``xiangqi``, whose UCI squares have
ranks 1..10 as the engine's UCI dialect does; UCCI's ICCS ranks 0..9 are converted)."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pyffish as sf
import pytest
from engine_session import EngineSession

from tablebases import open_tablebase
from tablebases.build import build
from tui.frontends.engine import UCI, Engine, GoRequest, parse_go
from xiangqi import Board

VARIANT = "xiangqi"
# 《适情雅趣》, the copy the catalogue ships.
BOOK = Path(__file__).resolve().parent.parent / "puzzles" / "data" / "shiqingyaqu551.fen"
KRKA_WIN = "3k5/4a4/9/9/9/9/9/9/9/4K3R w - - 0 1"       # Red wins (table KRKA)
KAK_DRAW = "3k5/9/9/9/9/9/9/9/4A4/4K4 w - - 0 1"        # a draw (table KAK)
QUIET_MATE_IN_11 = "2bk1aN2/1R7/3a5/9/9/9/C7C/1p7/1np2p1r1/4K4 w - - 0 1"   # 《适情雅趣》 No. 195
KRKAA_MATE3 = "3ak4/4a4/9/9/9/9/9/9/9/3K4R w - - 0 1"   # no table built: mate in 3 (solver)
# 《适情雅趣》 No. 4: no mate is found for a long while, so a search is running when stop comes.
HARD = re.findall(r'\[FEN "([^"]+)"\]',
                  (BOOK).read_text(encoding="utf-8-sig"))[3]
REPLY_SECONDS = 30.0


@pytest.fixture(scope="module")
def tables(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("engine_tables")
    build(["KRKA"], directory, threads=1, log=lambda line: None)   # with KRK, KAK, KK
    return directory


class Session(EngineSession):
    """An engine subprocess: :meth:`send` a command, :meth:`until` a reply (the first line
    that starts with it)."""

    reply_seconds = REPLY_SECONDS

    def close(self) -> int:
        if self.process.poll() is None:
            self.send("quit")
        status = self.process.wait(timeout=REPLY_SECONDS)
        assert self.process.stderr is not None
        err = self.process.stderr.read()
        assert "Traceback" not in err, err
        return status


@pytest.fixture
def uci(tables):
    session = Session("--tables", str(tables))
    session.send("uci")
    session.until("uciok")
    yield session
    assert session.close() == 0


def iccs_to_uci(move: str) -> str:
    return f"{move[0]}{int(move[1]) + 1}{move[2]}{int(move[3]) + 1}"


def assert_legal_line(fen: str, moves: list[str], uci_moves: bool = True) -> list[str]:
    """Every move of ``moves`` legal in turn from ``fen`` (Fairy-Stockfish's judgement);
    returns them in Fairy-Stockfish's spelling."""
    played: list[str] = []
    for move in moves:
        spelled = move if uci_moves else iccs_to_uci(move)
        legal = sf.legal_moves(VARIANT, fen, played)
        assert spelled in legal, f"{move} after {played} from {fen} is not legal: {legal}"
        played.append(spelled)
    return played


def search(session: Session, position: str, go: str = "go") -> tuple[list[str], str, list[str]]:
    """Send ``position`` and ``go``: the info lines, the bestmove, the last pv."""
    session.send(position)
    session.send(go)
    lines = session.until("bestmove")
    best = lines[-1].split()[1]
    pvs = [line.split(" pv ", 1)[1].split() for line in lines if " pv " in line]
    return lines[:-1], best, pvs[-1] if pvs else []


def score_of(lines: list[str]) -> str | None:
    for line in reversed(lines):
        match = re.search(r" score ((?:cp|mate) -?\d+|-?\d+)", line)
        if match:
            return match.group(1)
    return None


# -- handshake and options --------------------------------------------------------------------

def test_uci_handshake_names_the_engine_and_its_options(tables):
    session = Session("--tables", str(tables))
    session.send("uci")
    lines = session.until("uciok")
    assert lines[0].startswith("id name XQ Studio") and lines[1].startswith("id author ")
    assert "option name UCI_Variant type combo default xiangqi var xiangqi" in lines
    assert any(line.startswith("option name Hash type spin") for line in lines)
    assert f"option name TablebasePath type string default {tables}" in lines
    assert "option name MateMode type combo default any var any var checks" in lines
    assert "option name Threads type spin default 1 min 1 max 64" in lines
    session.send("setoption name UCI_Variant value xiangqi")
    session.send("setoption name Hash value 16")
    session.send("isready")
    assert session.until("readyok") == ["readyok"]      # no error on either option
    assert session.close() == 0


def test_ucci_is_detected_from_its_handshake_and_says_bye(tables):
    session = Session("--tables", str(tables))
    session.send("ucci")
    lines = session.until("ucciok")
    assert "option usemillisec type check default false" in lines
    assert any(line.startswith("option hashsize type spin") for line in lines)
    assert f"option egtbpaths type string default {tables}" in lines
    assert not any(line.startswith("option name") for line in lines)
    session.send("setoption hashsize 16")
    session.send("isready")
    assert session.until("readyok") == ["readyok"]
    session.send("quit")
    assert session.until("bye") == ["bye"]
    assert session.close() == 0


def test_a_forced_protocol_refuses_the_other_handshake(tables):
    session = Session("--protocol", "ucci", "--tables", str(tables))
    session.send("uci")
    session.send("isready")
    lines = session.until("readyok")
    assert lines[0].startswith("info string error: 'uci': this engine was started with "
                               "--protocol ucci")
    session.send("ucci")
    session.until("ucciok")
    assert session.close() == 0


def test_bad_commands_are_named_and_the_engine_goes_on(uci):
    bad = {
        "frobnicate": "unknown command 'frobnicate'",
        "position": "position needs 'startpos' or 'fen <FEN>'",
        "position fen 3k5/9/9/9/9/9/9/9/9/4X4 w": "unknown piece letter 'X' at e0",
        "position fen 3k5/9 w": "expected 10 ranks",
        "position startpos moves h3e3 h3e3": "move 2 of 2: 'h3e3' is not legal",
        "position startpos moves h2e2": "move 1 of 1: 'h2e2' is not legal",
        "position startpos moves a0a1": "rank 0 is UCCI's",
        "position startpos moves zz": "'zz' is not a UCI move",
        "setoption name Hash value lots": "Hash needs a whole number of megabytes, not 'lots'",
        "setoption name Hash value 0": "Hash must be between 1 and",
        "setoption name Nonsense value 1": "no option 'Nonsense'",
        "setoption name UCI_Variant value chess": "knows only xiangqi",
        "setoption name MateMode value fast": "MateMode must be 'any'",
        "setoption": "setoption needs an option name",
        "go depth": "go depth needs a number",
        "go movetime soon": "go movetime needs a number, not 'soon'",
        "go mate 0": "go mate needs a number of moves of at least 1",
        "go sideways": "go: unknown word 'sideways'",
        "go mate 20000": "go mate 20000 is more than the solver can count",
        "go searchmoves h3e3 a1a1": "'a1a1' is not legal",
    }
    for command, expected in bad.items():
        uci.send(command)
        uci.send("isready")
        lines = uci.until("readyok")
        errors = [line for line in lines if line.startswith("info string error: ")]
        assert len(errors) == 1 and expected in errors[0], (command, lines)
    # After all that, the last good position stands and the engine still plays.
    uci.send("position startpos moves h3e3")
    uci.send("d")
    uci.send("isready")
    assert uci.until("readyok")[0] == \
        "info string fen rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"


def test_a_bad_move_keeps_the_moves_before_it(uci):
    uci.send("position startpos moves h3e3 h10g8 e3e7 a1a1")
    uci.send("d")
    lines = uci.until("info string fen")
    assert "move 4 of 4: 'a1a1' is not legal" in lines[0]
    fen = lines[-1].removeprefix("info string fen ")
    expected = sf.get_fen(VARIANT, Board().fen(), ["h3e3", "h10g8", "e3e7"])
    assert fen.split()[:2] == expected.split()[:2]


def test_uci_moves_count_ranks_one_to_ten_as_fairy_stockfish_does(uci):
    """A long seeded playout in Fairy-Stockfish's spelling reaches the same position here."""
    import random
    rng = random.Random(20)
    start = Board().fen()
    played: list[str] = []
    for _ in range(60):
        legal = sf.legal_moves(VARIANT, start, played)
        if not legal:
            break
        played.append(rng.choice(sorted(legal)))
    uci.send("position startpos moves " + " ".join(played))
    uci.send("d")
    ours = uci.until("info string fen")[-1].removeprefix("info string fen ")
    assert ours.split()[:2] == sf.get_fen(VARIANT, start, played).split()[:2]


# -- tables -----------------------------------------------------------------------------------

def test_go_in_a_table_position_plays_the_tables_move_with_its_mate(uci, tables):
    lines, best, pv = search(uci, f"position fen {KRKA_WIN}")
    with open_tablebase(tables) as tablebase:
        board = Board(KRKA_WIN)
        value = tablebase.probe(board)
        table_best = tablebase.ranked_moves(board)[0].move
    assert score_of(lines) == f"mate {(value.dtm + 1) // 2}"
    assert best == iccs_to_uci(table_best.iccs()) == pv[0]
    assert any(line.startswith("info string table: Red wins, mate in") for line in lines)
    played = assert_legal_line(KRKA_WIN, pv)
    assert len(played) == value.dtm and sf.legal_moves(VARIANT, KRKA_WIN, played) == []


def test_the_losing_side_gets_a_negative_mate(uci):
    fen = KRKA_WIN.replace(" w ", " b ")
    lines, best, pv = search(uci, f"position fen {fen}")
    assert score_of(lines).startswith("mate -")
    assert_legal_line(fen, pv)


def test_a_table_draw_scores_cp_0(uci):
    lines, best, pv = search(uci, f"position fen {KAK_DRAW}", "go depth 10")
    assert score_of(lines) == "cp 0" and pv == [best]
    assert_legal_line(KAK_DRAW, [best])


def test_a_cursed_win_is_scored_as_the_draw_the_60_move_rule_makes_it(uci, tables):
    fen = "4k4/9/9/9/9/9/9/9/9/R2K5 w - - 119 80"     # mate in 2, but 1 ply left
    with open_tablebase(tables) as tablebase:
        value = tablebase.probe(Board(fen))
    assert value.wdl == 1, value                      # the position the test needs
    lines, best, pv = search(uci, f"position fen {fen}")
    assert score_of(lines) == "cp 0"
    assert any("a draw under the 60-move rule" in line for line in lines)
    assert_legal_line(fen, pv)


def test_game_over_positions_have_no_move(uci):
    mated = "3k5/9/9/9/9/9/9/9/9/3RK4 b - - 0 1"
    lines, best, _ = search(uci, f"position fen {mated}")
    assert best == "(none)" and "info depth 0 score mate 0" in lines
    assert sf.legal_moves(VARIANT, mated, []) == []


def test_searchmoves_restricts_the_tables_choice(uci, tables):
    with open_tablebase(tables) as tablebase:
        ranked = tablebase.ranked_moves(Board(KRKA_WIN))
    second = iccs_to_uci(ranked[1].move.iccs())
    _, best, _ = search(uci, f"position fen {KRKA_WIN}", f"go searchmoves {second}")
    assert best == second


# -- the solver -------------------------------------------------------------------------------

def test_go_mate_is_answered_by_the_proof(uci):
    lines, best, pv = search(uci, f"position fen {KRKAA_MATE3}", "go mate 3")
    assert score_of(lines) == "mate 3" and best == pv[0] and len(pv) == 5
    assert any(line.startswith("info string proof: mate in 3") for line in lines)
    played = assert_legal_line(KRKAA_MATE3, pv)
    assert sf.legal_moves(VARIANT, KRKAA_MATE3, played) == []      # it ends in mate


def test_go_mate_in_checks_mode_proves_a_continuous_check_mate(uci):
    fen = re.findall(r'\[FEN "([^"]+)"\]',
                     (BOOK).read_text(encoding="utf-8-sig"))[11]
    uci.send("setoption name MateMode value checks")
    lines, best, pv = search(uci, f"position fen {fen}", "go mate 5")
    assert score_of(lines) == "mate 5" and len(pv) == 9
    played = assert_legal_line(fen, pv)
    for ply in range(0, len(played), 2):                         # every attacking move checks
        assert sf.gives_check(VARIANT, fen, played[:ply + 1])
    assert sf.legal_moves(VARIANT, fen, played) == []


def test_no_mate_within_the_bound_is_said_and_a_legal_move_played(uci):
    lines, best, pv = search(uci, f"position fen {KRKAA_MATE3}", "go mate 2")
    assert score_of(lines) is None
    assert any("proved there is no mate within 2 moves" in line for line in lines)
    assert_legal_line(KRKAA_MATE3, [best])


def test_outside_tables_and_proofs_it_says_so_and_sends_no_score(uci):
    lines, best, pv = search(uci, "position startpos moves h3e3", "go movetime 300")
    assert score_of(lines) is None
    assert any("not a playing engine" in line for line in lines), lines
    assert_legal_line(Board().fen(), ["h3e3", best])


def test_a_clock_budget_is_kept(uci):
    start = time.monotonic()
    _, best, _ = search(uci, f"position fen {HARD}", "go wtime 2000 btime 2000 winc 0 binc 0")
    assert time.monotonic() - start < 2.0
    assert_legal_line(HARD, [best])


def test_stop_answers_at_once_with_what_is_known(uci):
    uci.send(f"position fen {HARD}")
    uci.send("go infinite")
    time.sleep(1.5)
    uci.send("isready")                        # answered while it searches
    assert uci.until("readyok")[-1] == "readyok"
    sent = time.monotonic()
    uci.send("stop")
    lines = uci.until("bestmove")
    assert time.monotonic() - sent < 1.0, lines
    assert any("stopped" in line for line in lines)
    assert_legal_line(HARD, [lines[-1].split()[1]])


def test_infinite_waits_for_stop_even_when_the_answer_is_known(uci):
    uci.send(f"position fen {KRKA_WIN}")
    uci.send("go infinite")
    uci.send("go")                             # refused: the infinite search waits for stop
    uci.send("isready")
    lines = uci.until("readyok")
    assert not any(line.startswith("bestmove") for line in lines)
    assert any("send stop first" in line for line in lines)
    uci.send("stop")
    assert uci.until("bestmove")[-1].startswith("bestmove ")


def test_ponderhit_turns_pondering_into_the_search(uci):
    uci.send(f"position fen {KRKA_WIN}")
    uci.send("go ponder wtime 1000 btime 1000")
    uci.send("isready")
    assert not any(line.startswith("bestmove") for line in uci.until("readyok"))
    uci.send("ponderhit")
    assert uci.until("bestmove")[-1].startswith("bestmove ")


def test_commands_after_a_finite_go_wait_for_its_bestmove(uci):
    """A GUI (or a script) that sends the next position at once still gets every answer,
    in order."""
    for fen in (KRKA_WIN, KAK_DRAW, KRKA_WIN.replace(" w ", " b ")):
        uci.send(f"position fen {fen}")
        uci.send("go depth 4")
    answers = [uci.until("bestmove")[-1] for _ in range(3)]
    fens = (KRKA_WIN, KAK_DRAW, KRKA_WIN.replace(" w ", " b "))
    for fen, answer in zip(fens, answers):
        assert_legal_line(fen, [answer.split()[1]])


# -- UCCI -------------------------------------------------------------------------------------

def test_ucci_speaks_iccs_and_plain_scores(tables):
    session = Session("--tables", str(tables))
    session.send("ucci")
    session.until("ucciok")
    session.send("position fen 3k5/4a4/9/9/9/9/9/9/9/4K3R w - - 0 1 moves i0i1 d9d8")
    session.send("go depth 10")
    lines = session.until("bestmove")
    fen = sf.get_fen(VARIANT, KRKA_WIN, ["i1i2", "d10d9"])
    pv = next(line for line in lines if " pv " in line).split(" pv ")[1].split()
    assert_legal_line(fen, pv, uci_moves=False)
    with open_tablebase(tables) as tablebase:
        board = Board(KRKA_WIN)
        board.push_iccs("i0i1")
        board.push_iccs("d9d8")
        plies = tablebase.probe(board).dtm
    assert score_of(lines) == str(10000 - plies)
    session.send("banmoves " + pv[0])
    session.send("go time 5")
    banned = session.until("bestmove")[-1].split()[1]
    assert banned != pv[0]
    assert_legal_line(fen, [banned], uci_moves=False)
    session.send("position fen 3k5/9/9/9/9/9/9/9/9/3RK4 b - - 0 1")
    session.send("go depth 1")
    assert session.until("nobestmove")[-1] == "nobestmove"
    session.send("position startpos moves h3e3")
    session.send("isready")
    assert "with UCI's ranks, 1..10, it would be h2e2" in session.until("readyok")[0]
    session.send("quit")
    session.until("bye")
    assert session.close() == 0


def test_ucci_go_mate_score_is_ten_thousand_less_the_plies(tables):
    session = Session("--protocol", "ucci", "--tables", str(tables))
    session.send("ucci")
    session.until("ucciok")
    session.send(f"position fen {KRKAA_MATE3}")
    session.send("go mate 3")
    lines = session.until("bestmove")
    assert score_of(lines) == str(10000 - 5)
    pv = next(line for line in lines if " pv " in line).split(" pv ")[1].split()
    assert_legal_line(KRKAA_MATE3, pv, uci_moves=False)
    assert session.close() == 0


def test_end_of_input_ends_the_engine(tables):
    session = Session("--tables", str(tables))
    session.send("uci")
    session.until("uciok")
    assert session.process.stdin is not None
    session.process.stdin.close()
    assert session.process.wait(timeout=REPLY_SECONDS) == 0


# -- in process -------------------------------------------------------------------------------

def test_clock_budgets():
    board = Board()
    request = parse_go("wtime 60000 btime 1000 winc 1000 binc 0".split(), board, UCI, False)
    assert request.clock == 60.0 and request.increment == 1.0
    assert request.budget() == pytest.approx(60 / 30 + 0.75 - 0.05)
    assert GoRequest(movetime=1.0).budget() == pytest.approx(0.95)
    assert GoRequest().budget() == 0.0          # no limit: until done or stop


def test_hash_megabytes_become_table_bits():
    engine = Engine(sys.stdout)
    engine.hash_mb = 128
    assert engine.table_bits == 22
    engine.hash_mb = 1
    assert engine.table_bits == 15


def test_garbage_and_undecodable_input_never_crash_it(tables):
    lines = [b"\xff\xfe\x00 position fen", b"go mate \xe4\xb8\xad", b"setoption name \x80",
             b"position fen " + b"9/" * 40 + b"9 w", b"go depth 99999999999999999999",
             b"   ", b"position startpos moves " + b"a1a2 " * 300, b"isready"]
    process = subprocess.run(
        [sys.executable, "-m", "tui.cli", "engine", "--tables", str(tables)],
        input=b"\n".join(lines) + b"\n", capture_output=True, timeout=REPLY_SECONDS)
    out = process.stdout.decode("utf-8")
    assert process.returncode == 0 and b"Traceback" not in process.stderr, process.stderr
    assert out.splitlines()[-1] == "readyok"
    assert out.count("info string error: ") == 6, out


def test_the_table_directory_option_switches_tables_on_and_off(tables, tmp_path):
    session = Session("--tables", str(tmp_path / "none"))
    session.send("uci")
    session.until("uciok")
    lines, _, _ = search(session, f"position fen {KRKA_WIN}", "go depth 2")
    assert not any("table:" in line for line in lines)      # no tables: the solver answers
    session.send(f"setoption name TablebasePath value {tables}")
    lines, _, _ = search(session, f"position fen {KRKA_WIN}", "go depth 2")
    assert any(line.startswith("info string table: Red wins") for line in lines)
    session.send("setoption name TablebasePath value <empty>")
    lines, _, _ = search(session, f"position fen {KRKA_WIN}", "go depth 2")
    assert not any("table:" in line for line in lines)
    session.send(f"setoption name TablebasePath value {tables / 'KRK.xqtb'}")
    session.send("isready")
    assert "is not a directory" in session.until("readyok")[0]
    assert session.close() == 0


def test_a_gui_that_goes_away_mid_search_ends_the_engine(tables):
    """The GUI stops reading (its end of the engine's output is closed), then stops writing:
    the engine's writes fail quietly and it exits 0 at the end of its input."""
    read_end, write_end = os.pipe()
    process = subprocess.Popen(
        [sys.executable, "-m", "tui.cli", "engine", "--tables", str(tables)],
        stdin=subprocess.PIPE, stdout=write_end, stderr=subprocess.PIPE, text=True)
    os.close(write_end)
    os.close(read_end)
    assert process.stdin is not None and process.stderr is not None
    process.stdin.write(f"uci\nposition fen {HARD}\ngo movetime 500\nisready\n")
    process.stdin.flush()
    time.sleep(1.0)
    process.stdin.close()
    assert process.wait(timeout=REPLY_SECONDS) == 0
    assert "Traceback" not in process.stderr.read()


def test_threads_two_processes_find_the_quiet_mate(uci):
    """``setoption name Threads value 2``: the search runs on two processes and answers as
    one does (《适情雅趣》 No. 195, a quiet-move mate in 11); a bad value is refused."""
    uci.send("setoption name Threads value 2")
    lines, best, pv = search(uci, f"position fen {QUIET_MATE_IN_11}", "go mate 11 nodes 2000000")
    assert score_of(lines) == "mate 11" and len(pv) == 21
    assert_legal_line(QUIET_MATE_IN_11, pv)
    uci.send("setoption name Threads value 65")
    assert "between 1 and 64" in uci.until("info string")[-1]
