"""Issue 16, rules engine: clocks the undo record can hold, validated setters, FEN numbers
with leading zeros, and Ctrl-C during perft."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from xiangqi import Board, FenError
from xiangqi.fen import CLOCK_LIMIT, STARTING_FEN


@pytest.mark.parametrize("clock", [32767, 32768, 40000, 65535, 65536, 99_999, CLOCK_LIMIT])
def test_move_generation_keeps_a_large_halfmove_clock(clock):
    board = Board(f"4k4/9/9/9/9/9/9/9/9/3K5 w - - {clock} 1")
    _ = board.legal_moves
    board.is_checkmate()
    assert board.halfmove_clock == clock
    assert Board(board.fen()).halfmove_clock == clock     # what it writes reads back


def test_the_clock_stops_at_the_fen_limit_so_fen_reads_back():
    board = Board(f"4k4/9/9/9/9/9/9/9/9/3K5 w - - {CLOCK_LIMIT} {CLOCK_LIMIT}")
    for _ in range(3):
        board.push(board.legal_moves[0])
    assert board.halfmove_clock == CLOCK_LIMIT
    again = Board(board.fen())
    assert again.halfmove_clock == CLOCK_LIMIT and again.fullmove_number == CLOCK_LIMIT
    for _ in range(3):
        board.pop()
    assert board.halfmove_clock == CLOCK_LIMIT and board.fullmove_number == CLOCK_LIMIT


@pytest.mark.parametrize("value", [100000, -1, 2, True, 0.0, "0", None])
def test_turn_code_rejects_anything_but_0_or_1(value):
    board = Board()
    with pytest.raises(ValueError, match="turn_code must be 0"):
        board.turn_code = value
    assert board.turn_code == 0 and len(board.legal_moves) == 44


def test_turn_code_accepts_both_sides():
    board = Board()
    board.turn_code = 1
    assert board.turn == 1 and len(board.legal_moves) == 44


@pytest.mark.parametrize("name,value", [
    ("halfmove_clock", -1), ("halfmove_clock", CLOCK_LIMIT + 1), ("halfmove_clock", 2**40),
    ("halfmove_clock", 1.5), ("halfmove_clock", "7"), ("fullmove_number", 0),
    ("fullmove_number", -5), ("fullmove_number", CLOCK_LIMIT + 1),
])
def test_clock_setters_reject_out_of_range_values(name, value):
    board = Board()
    with pytest.raises(ValueError, match=name):
        setattr(board, name, value)
    assert board.fen() == STARTING_FEN


def test_clock_setters_accept_the_range():
    board = Board()
    board.halfmove_clock = CLOCK_LIMIT
    board.fullmove_number = CLOCK_LIMIT
    assert Board(board.fen()).halfmove_clock == CLOCK_LIMIT


def test_leading_zeros_do_not_make_a_move_number_large():
    board = Board("4k4/9/9/9/9/9/9/9/9/3K5 w - - " + "0" * 50 + "7 " + "0" * 50 + "1")
    assert board.halfmove_clock == 7 and board.fullmove_number == 1
    with pytest.raises(FenError, match="implausibly large"):
        Board("4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 " + "9" * 51)
    with pytest.raises(FenError, match="implausibly large"):
        Board(f"4k4/9/9/9/9/9/9/9/9/3K5 w - - {CLOCK_LIMIT + 1} 1")


def test_perft_interrupted_reports_the_root_moves_counted():
    board = Board()
    assert board.perft(3) == sum(count for _, count in board.perft_divide(3)) == 79666
    fen = board.fen()
    # A signal sent while the C loop runs stops it and names what was finished.
    child = subprocess.Popen(
        [sys.executable, "-c", "import sys\nfrom xiangqi import Board, PerftInterrupted\n"
         "b = Board()\nprint('ready', flush=True)\n"
         "try:\n    b.perft(7)\nexcept PerftInterrupted as e:\n"
         "    print(len(e.done), e.remaining, e.partial_total, b.fen(), flush=True)\n"],
        stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "ready"
    time.sleep(0.5)
    child.send_signal(signal.SIGINT)
    sent = time.perf_counter()
    out, _ = child.communicate(timeout=10)
    latency = time.perf_counter() - sent
    done, remaining, partial, after = out.split(maxsplit=3)
    assert int(done) + int(remaining) == 44 and int(remaining) > 0
    assert after.strip() == fen                      # the board is left as it was
    assert latency < 1.0                             # (0.2 s is the aim; loaded machines vary)


def cpu_seconds(pid: int) -> float:
    """The CPU time a process has used so far (Linux: /proc/PID/stat's utime + stime)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_perft_cli_prints_the_counts_known_at_ctrl_c():
    child = subprocess.Popen([sys.executable, "-m", "tui.cli", "perft", STARTING_FEN, "9"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # Ctrl-C once the child is counting: after 1.5 s of its own CPU time (its imports take
    # well under that), not of the clock, which on a loaded machine can end mid-import.
    deadline = time.monotonic() + 60
    while cpu_seconds(child.pid) < 1.5 and time.monotonic() < deadline:
        time.sleep(0.05)
    child.send_signal(signal.SIGINT)
    sent = time.perf_counter()
    out, err = child.communicate(timeout=10)
    assert time.perf_counter() - sent < 1.0
    assert child.returncode == 130
    assert "interrupted" in err and "root moves counted" in err
    assert "partial total" in out


def test_perft_after_an_interruption_counts_normally():
    assert Board().perft(3) == 79666
