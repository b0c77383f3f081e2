"""The ``xqstudio`` command line: rules-engine subcommands, help, and the console script."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tui.cli import main
from xiangqi import STARTING_FEN, Board, Move

MIDDLEGAME = "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_perft(capsys):
    status, out, _ = run(capsys, "perft", STARTING_FEN, "3")
    assert status == 0
    assert out.strip().splitlines()[-1] == "79666"


def test_perft_other_position(capsys):
    status, out, _ = run(capsys, "perft", MIDDLEGAME, "2")
    assert status == 0 and out.strip().splitlines()[-1] == str(Board(MIDDLEGAME).perft(2))


def test_perft_verbose_reports_speed_on_stderr(capsys):
    status, out, err = run(capsys, "perft", STARTING_FEN, "2", "-v")
    assert status == 0 and out.strip() == "1920"
    assert "nodes/s" in err


def test_perft_divide(capsys):
    status, out, _ = run(capsys, "perft", STARTING_FEN, "2", "--divide")
    assert status == 0
    lines = [line for line in out.splitlines() if line.strip()]
    total = int(lines[-1])
    divide = {}
    for line in lines[:-1]:
        move, count = line.split(": ")
        divide[move] = int(count)
    assert len(divide) == 44 == len(lines) - 1
    assert set(divide) == {m.iccs() for m in Board().legal_moves}
    assert all(count > 0 for count in divide.values())
    assert sum(divide.values()) == total == 1920
    assert divide["h2e2"] == Board("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR "
                                   "b - - 1 1").perft(1)


def test_moves(capsys):
    status, out, _ = run(capsys, "moves", STARTING_FEN, "--notation", "iccs")
    assert status == 0
    lines = out.strip().splitlines()
    assert len(lines) == 1
    moves = lines[0].split(" ")
    assert len(moves) == 44 == len(set(moves))
    assert {Move.from_iccs(m) for m in moves} == set(Board().legal_moves)


def test_moves_of_a_position_without_moves(capsys):
    status, out, _ = run(capsys, "moves", "3k5/2R6/9/9/9/9/9/9/9/4K4 b - - 0 1")
    assert status == 0 and out.strip() == ""


def test_fen_check_ok(capsys):
    status, out, _ = run(capsys, "fen", "check", STARTING_FEN)
    assert status == 0 and out.strip() == "OK"


def test_fen_check_accepts_short_fen(capsys):
    status, out, _ = run(capsys, "fen", "check", "3k5/2R6/9/9/9/9/9/9/9/4K4 b")
    assert status == 0 and out.strip() == "OK"


@pytest.mark.parametrize("fen,detail", [
    ("4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1", "face each other"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNX w - - 0 1",
     "unknown piece letter 'X' at i0"),
    ("9/9/9/9/9/9/9/9/9/4K4 w", "Black has no king"),
    ("x", "expected 10 ranks"),
])
def test_fen_check_bad(capsys, fen, detail):
    status, out, err = run(capsys, "fen", "check", fen)
    assert status == 1
    assert "OK" not in out
    assert detail in out + err


@pytest.mark.parametrize("command", [["perft", "x", "2"], ["moves", "x"]])
def test_bad_fen_elsewhere(capsys, command):
    status, out, err = run(capsys, *command)
    assert status == 1 and out == ""
    assert "invalid FEN" in err and "expected 10 ranks" in err


def test_no_arguments_prints_help(capsys):
    status, out, _ = run(capsys)
    assert status == 0
    assert "usage: xqstudio" in out
    for command in ("position", "tb", "problem", "catalogue", "studio"):
        assert command in out
    # The old flat spellings still work but are not listed.
    listed = out.split("COMMAND", 2)[-1]
    for old in ("perft", "moves", "judge", "solve", "verify"):
        assert f"    {old} " not in listed


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as info:
        main(["fen"])
    assert info.value.code == 2
    with pytest.raises(SystemExit) as info:
        main(["perft", STARTING_FEN, "three"])
    assert info.value.code == 2
    capsys.readouterr()


def test_console_script():
    script = Path(sys.executable).parent / "xqstudio"
    assert script.exists(), f"console script not installed next to {sys.executable}"
    result = subprocess.run([str(script), "perft", STARTING_FEN, "2"], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "1920"
    result = subprocess.run([str(script), "fen", "check", "4k4/9/9/9/9/9/9/9/9/4K4 w"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and "face each other" in result.stdout + result.stderr


def test_an_undecodable_argument_is_a_usage_error():
    # Issue 16: catalogue search $'\xff' ended in a UnicodeEncodeError traceback.
    import subprocess
    import sys
    result = subprocess.run([sys.executable, "-m", "tui.cli", "catalogue", "search", b"\xff"],
                            capture_output=True)
    assert result.returncode == 2 and b"Traceback" not in result.stderr
    assert b"argument 3 is not valid UTF-8: b'\\xff'" in result.stderr


def test_perft_depth_must_not_be_negative(capsys):
    import pytest

    from tui.cli import main
    with pytest.raises(SystemExit) as info:
        main(["perft", "4k4/9/9/9/9/9/9/9/9/3K5 w", "-1"])
    assert info.value.code == 2 and "from 0 to 64" in capsys.readouterr().err
