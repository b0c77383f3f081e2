"""benchmarks/solve_collection.py: the resume file (rows appended as problems finish, a rerun
continues, other settings refused), the verdicts rebuilt from it, the development sample.

Every run here solves continuous-check problems of milliseconds (Nos. 1-3, 5) or No. 4 at a
tiny node budget, and writes only to temporary files (``--output``, ``--no-write``)."""
from __future__ import annotations

import csv
import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "solve_collection.py"
SHIPPED = ROOT / "puzzles" / "data" / "shiqingyaqu551_verdicts.tsv"
# Small budgets: No. 4 (quiet moves) runs out of its nodes at once; no refutation.
BUDGET = ["--any-nodes", "20000", "--refute-seconds", "0", "--jobs", "1"]


def run(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(SCRIPT), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    if check:
        assert done.returncode == 0, done.stderr
    return done


def rows_of(path: Path) -> list[list[str]]:
    """The data rows of a resume file (after its comments and its line of column names)."""
    lines = [line for line in path.read_text(encoding="utf-8").splitlines()
             if not line.startswith("#")]
    assert lines[0].startswith("number\tstipulation\tverdict")
    return [line.split("\t") for line in lines[1:]]


def solved_lines(output: str) -> list[int]:
    """The numbers of the problems a run printed as solved."""
    return [int(line.split()[0]) for line in output.splitlines()
            if re.match(r"\s*\d+ (checks|win|draw) ", line)]


@pytest.fixture(scope="module")
def module():
    spec = importlib.util.spec_from_file_location("solve_collection", SCRIPT)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded


def test_resume_solves_only_what_is_missing(tmp_path: Path) -> None:
    resume = tmp_path / "run.tsv"
    first = run("--numbers", "1-2", "--resume", str(resume), *BUDGET)
    assert "0 of 2 problems there, 2 to solve" in first.stdout
    assert sorted(solved_lines(first.stdout)) == [1, 2]
    assert [row[0] for row in rows_of(resume)] == ["1", "2"]
    # "Interrupted" after No. 2: the same command over 1-3 solves No. 3 alone.
    second = run("--numbers", "1-3", "--resume", str(resume), *BUDGET)
    assert "2 of 3 problems there, 1 to solve" in second.stdout
    assert solved_lines(second.stdout) == [3]
    assert "3 positions" in second.stdout          # the summary is of all three
    rows = rows_of(resume)
    assert [row[0] for row in rows] == ["1", "2", "3"]
    text = resume.read_text(encoding="utf-8")
    assert text.count("number\tstipulation") == 1 and text.count("# setting any_nodes=") == 1
    # Columns: No. 1 is an exact continuous-check mate in 7 with its line, no budget ran out.
    header = text.splitlines()[[line.startswith("number") for line in text.splitlines()]
                               .index(True)].split("\t")
    first_row = dict(zip(header, rows[0]))
    assert (first_row["stipulation"], first_row["verdict"], first_row["moves"],
            first_row["exact"], first_row["order"], first_row["ran_out"]) == (
        "checks", "mate", "7", "yes", "1", "")
    assert first_row["main_line"].startswith("e4a4 ") and int(first_row["nodes"]) > 0
    # A third run finds everything there.
    third = run("--numbers", "1-3", "--resume", str(resume), *BUDGET)
    assert "3 of 3 problems there, 0 to solve" in third.stdout
    assert solved_lines(third.stdout) == [] and len(rows_of(resume)) == 3


def test_resume_refuses_other_settings(tmp_path: Path) -> None:
    resume = tmp_path / "run.tsv"
    run("--numbers", "1", "--resume", str(resume), *BUDGET)
    before = resume.read_bytes()
    other = run("--numbers", "1-2", "--resume", str(resume), "--any-nodes", "30000",
                "--refute-seconds", "0", check=False)
    assert other.returncode != 0
    assert "any_nodes '20000' there, '30000' now" in other.stderr
    assert "checks_seconds" not in other.stderr     # only what differs is named
    assert resume.read_bytes() == before
    not_a_resume_file = tmp_path / "verdicts.tsv"
    shutil.copy(SHIPPED, not_a_resume_file)
    refused = run("--numbers", "1", "--resume", str(not_a_resume_file), *BUDGET, check=False)
    assert refused.returncode != 0 and "not the header of a resume file" in refused.stderr
    assert not_a_resume_file.read_bytes() == SHIPPED.read_bytes()


def test_resume_drops_an_unfinished_last_row(tmp_path: Path) -> None:
    resume = tmp_path / "run.tsv"
    run("--numbers", "1-2", "--resume", str(resume), *BUDGET)
    with resume.open("a", encoding="utf-8") as handle:
        handle.write("3\tchecks\tma")             # killed while writing No. 3's row
    again = run("--numbers", "1-3", "--resume", str(resume), *BUDGET)
    assert "unfinished last row" in again.stdout and solved_lines(again.stdout) == [3]
    assert [row[:3] for row in rows_of(resume)] == [
        ["1", "checks", "mate"], ["2", "checks", "mate"], ["3", "checks", "mate"]]


def test_jobs_rows_written_whole_by_the_parent(tmp_path: Path) -> None:
    resume = tmp_path / "run.tsv"
    done = run("--numbers", "1-5", "--resume", str(resume), "--any-nodes", "20000",
               "--refute-seconds", "0", "--jobs", "2")
    assert sorted(solved_lines(done.stdout)) == [1, 2, 3, 4, 5]
    rows = rows_of(resume)
    assert sorted(int(row[0]) for row in rows) == [1, 2, 3, 4, 5]
    assert all(len(row) == 12 for row in rows)
    # No. 4 has no continuous-check mate: its quiet-move search ran out of its 20,000 nodes.
    [four] = [row for row in rows if row[0] == "4"]
    assert four[1:3] == ["win", "unproven"] and four[-1] in ("order 1", "order 2", "order 3",
                                                             "full width")
    assert 0 < int(four[7]) <= 20000


@pytest.mark.slow
def test_from_resume_writes_what_a_direct_run_writes(tmp_path: Path) -> None:
    resume = tmp_path / "run.tsv"
    run("--numbers", "1-2", "--resume", str(resume), *BUDGET)
    run("--numbers", "3-4", "--resume", str(resume), *BUDGET)     # a second slice
    direct, rebuilt = tmp_path / "direct.tsv", tmp_path / "rebuilt.tsv"
    shutil.copy(SHIPPED, direct)
    shutil.copy(SHIPPED, rebuilt)
    run("--numbers", "1-4", "--update", "--output", str(direct), *BUDGET)
    out = run("--from-resume", str(resume), "--numbers", "1-4", "--update", "--output",
              str(rebuilt))
    assert solved_lines(out.stdout) == [] and "any_nodes 20000" in out.stdout
    assert rebuilt.read_bytes() == direct.read_bytes()
    with rebuilt.open(encoding="utf-8", newline="") as handle:
        assert len(list(csv.DictReader(handle, delimiter="\t"))) == 551
    # --update alone: the rows the resume file has.
    alone = tmp_path / "alone.tsv"
    shutil.copy(SHIPPED, alone)
    run("--from-resume", str(resume), "--update", "--output", str(alone))
    assert alone.read_bytes() == direct.read_bytes()
    # The whole book asked of an incomplete file: nothing written, the missing ones counted.
    whole = tmp_path / "whole.tsv"
    missing = run("--from-resume", str(resume), "--output", str(whole), check=False)
    assert missing.returncode == 1 and not whole.exists()
    assert "547 of 551 problems missing (No. 5-551); nothing written" in missing.stderr


def test_from_resume_replays_the_lines(tmp_path: Path) -> None:
    """A main line that does not replay to the stated mate is recorded as unproven, as a
    direct run records it."""
    resume = tmp_path / "run.tsv"
    run("--numbers", "1", "--resume", str(resume), *BUDGET)
    text = resume.read_text(encoding="utf-8")
    resume.write_text(text.replace("\t7\tyes\t1\te4a4 ", "\t6\tyes\t1\te4a4 "),
                      encoding="utf-8")
    out = run("--from-resume", str(resume), "--numbers", "1", "--no-write")
    assert "No. 1: the line takes 13 plies, the verdict 11; recorded as unproven" in out.stdout


@pytest.mark.slow
def test_sample_is_every_seventh_quiet_move_win(module) -> None:
    with SHIPPED.open(encoding="utf-8", newline="") as handle:
        quiet = [int(row["number"]) for row in csv.DictReader(handle, delimiter="\t")
                 if row["stipulation"] == "win"]
    assert len(quiet) == 281
    assert module.SAMPLE == quiet[::7] and len(module.SAMPLE) == 41
    # At 1,000 nodes the whole sample takes a second or two.
    sample = run("--sample", "--any-seconds", "0", "--any-nodes", "1000", "--refute-seconds",
                 "0", "--no-write")
    assert sorted(solved_lines(sample.stdout)) == module.SAMPLE
    refused = run("--sample", "--numbers", "1", "--no-write", check=False)
    assert refused.returncode == 2 and "--sample and --numbers" in refused.stderr


def test_number_ranges(module) -> None:
    assert module.number_ranges([1, 2, 3, 7, 9, 10]) == "1-3, 7, 9-10"
    assert module.number_ranges([]) == ""


def test_a_second_run_on_the_file_is_refused_while_the_first_runs(tmp_path: Path) -> None:
    import fcntl

    resume = tmp_path / "run.tsv"
    with resume.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)      # as a running run holds it
        refused = run("--numbers", "1", "--resume", str(resume), *BUDGET, check=False)
    assert refused.returncode != 0 and "another run is appending to it" in refused.stderr
    assert resume.read_bytes() == b""


def test_ctrl_c_stops_at_once_and_keeps_the_rows(tmp_path: Path) -> None:
    resume = tmp_path / "run.tsv"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # No. 1 in milliseconds, then No. 4 with 50 M nodes (minutes): interrupted during No. 4.
    process = subprocess.Popen(
        [sys.executable, str(SCRIPT), "--numbers", "1,4", "--resume", str(resume),
         "--any-nodes", "50000000", "--refute-seconds", "0", "--jobs", "1"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 30
        while not (resume.exists() and "\n1\tchecks\tmate\t" in resume.read_text()):
            assert time.monotonic() < deadline and process.poll() is None
            time.sleep(0.05)
        time.sleep(0.3)                         # into No. 4's search
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=10)
    finally:
        process.kill()
    assert process.returncode == 1
    assert f"stopped: 1 problems in {resume}; the same command goes on" in stderr
    assert [row[0] for row in rows_of(resume)] == ["1"]
