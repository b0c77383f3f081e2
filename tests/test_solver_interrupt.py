"""Ctrl-C during `problem solve` and `problem verify`: the search stops within a fraction of
a second (its progress hook runs every 0.1 s), and what is known is printed."""
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

# 《适情雅趣》, the copy the catalogue ships.
BOOK = Path(__file__).resolve().parent.parent / "puzzles" / "data" / "shiqingyaqu551.fen"
# 《适情雅趣》 No. 4: no quiet-move mate is found within a minute, so the search is running
# when the signal comes.
HARD = re.findall(r'\[FEN "([^"]+)"\]',
                  (BOOK).read_text(encoding="utf-8-sig"))[3]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def interrupted(*arguments: str) -> tuple[float, int, str, str]:
    command = [sys.executable, "-m", "tui.cli", "problem", *arguments, HARD, "--seconds", "60",
               "--no-tables"]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             process_group=0)
    # Signal once the child has spent a second of CPU time (past start-up, in the search),
    # however busy the machine is.
    deadline = time.time() + 30
    while cpu_seconds(child.pid) < 1.5 and time.time() < deadline and child.poll() is None:
        time.sleep(0.05)
    os.killpg(child.pid, signal.SIGINT)
    sent = time.perf_counter()
    out, err = child.communicate(timeout=60)
    return time.perf_counter() - sent, child.returncode, out, err


def test_ctrl_c_stops_solve_at_once_and_says_so():
    latency, status, out, err = interrupted("solve")
    assert status == 130 and "Traceback" not in err, err
    assert "Unknown: interrupted before the search finished" in out, out
    assert latency < 1.0, f"{latency:.2f} s from SIGINT to exit"


def test_ctrl_c_stops_verify_with_what_is_known():
    latency, status, out, err = interrupted("verify")
    assert status == 130 and "Traceback" not in err, err
    assert "unproven: interrupted (Ctrl-C): the report is incomplete" in out, out
    assert "Interrupted (exit status 130)." in out
    assert latency < 1.0, f"{latency:.2f} s from SIGINT to exit"
