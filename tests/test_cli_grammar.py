"""The one command-line grammar (issue 14 item 3): ``GROUP ACTION``, ``--json`` on every
command, ``--tables DIR`` (``--dir`` an alias), one ``--notation`` default, exit statuses 0 ok /
1 negative or bad input / 2 usage, no traceback on any argument value, old spellings kept."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tui.cli import main
from xiangqi import STARTING_FEN

# 《适情雅趣》, the copy the catalogue ships.
BOOK = Path(__file__).resolve().parent.parent / "puzzles" / "data" / "shiqingyaqu551.fen"
ROOK_MATES = "3k5/9/9/9/9/9/9/9/9/R3K4 w"      # cooked: Ra0-a8 and Ra0-d0 both mate at once
KRK = "3k5/9/9/9/9/9/9/9/9/R3K4 w"
BAD_FEN = "4k4/9/9/9/9/9/9/9/9/4K4 w"          # the kings face each other
CHECKS_PROBLEM = re.findall(r'\[FEN "([^"]+)"\]',
                            (BOOK).read_text(encoding="utf-8-sig"))[0]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def run_json(capsys, *argv: str) -> tuple[int, dict]:
    status, out, _ = run(capsys, *argv, "--json")
    return status, json.loads(out)


def usage_error(capsys, *argv: str) -> str:
    """The stderr of a usage error (exit status 2, no traceback)."""
    with pytest.raises(SystemExit) as info:
        main(list(argv))
    err = capsys.readouterr().err
    assert info.value.code == 2 and "Traceback" not in err and "error:" in err
    return err


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    directory = tmp_path_factory.mktemp("grammar_tables")
    assert main(["tb", "build", "KRK", "--tables", str(directory), "--threads", "1"]) == 0
    return directory


# -- position ----------------------------------------------------------------------------------

def test_position_perft_json_and_alias(capsys):
    status, data = run_json(capsys, "position", "perft", STARTING_FEN, "2", "--divide")
    assert status == 0 and data["nodes"] == 1920 and data["depth"] == 2
    assert sum(data["divide"].values()) == 1920 and len(data["divide"]) == 44
    status, data = run_json(capsys, "perft", STARTING_FEN, "1")
    assert status == 0 and data["nodes"] == 44 and data["divide"] is None


def test_position_perft_bad_arguments(capsys):
    assert "from 0 to 64" in usage_error(capsys, "position", "perft", STARTING_FEN, "65")
    assert "whole number" in usage_error(capsys, "position", "perft", STARTING_FEN, "1e99")
    status, data = run_json(capsys, "position", "perft", BAD_FEN, "1")
    assert status == 1 and "invalid FEN" in data["error"]


def test_position_moves_json_default_notation(capsys):
    status, data = run_json(capsys, "position", "moves", STARTING_FEN)
    assert status == 0 and data["notation"] == "chinese" and len(data["moves"]) == 44
    assert {"move": "h2e2", "written": "炮二平五"} in data["moves"]
    status, data = run_json(capsys, "moves", STARTING_FEN, "--notation", "wxf")
    assert status == 0 and {"move": "h2e2", "written": "C2.5"} in data["moves"]
    usage_error(capsys, "position", "moves", STARTING_FEN, "--notation", "klingon")


def test_position_check_json_exit_status_and_alias(capsys):
    status, data = run_json(capsys, "position", "check", "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/"
                                                         "P1P1P1P1P/1C5C1/9/RNBAKABNR w")
    assert status == 0 and data["valid"] and data["normalized"] == STARTING_FEN
    status, data = run_json(capsys, "position", "check", BAD_FEN)
    assert status == 1 and not data["valid"] and "face" in data["error"]
    status, out, _ = run(capsys, "fen", "check", BAD_FEN)
    assert status == 1 and out.startswith("invalid:")
    usage_error(capsys, "position", "check")


def test_position_judge_json_and_bad_arguments(capsys):
    status, data = run_json(capsys, "position", "judge", KRK, "a0a1")
    assert status == 0 and data["moves"][0]["written"] == "车九进一"
    status, data = run_json(capsys, "judge", KRK, "zz")
    assert status == 1 and "error" in data
    assert "from 2 to 1,000" in usage_error(capsys, "position", "judge", KRK, "--occurrences", "1")
    usage_error(capsys, "position", "judge", KRK, "--rules", "martian")


# -- tb ----------------------------------------------------------------------------------------

def test_tb_build_json_and_aliases(tables, capsys):
    status, data = run_json(capsys, "tb", "build", "KRK", "--tables", str(tables))
    assert status == 0 and data["tables"][0]["state"] == "already present"
    status, data = run_json(capsys, "tb", "build", "KRK", "--dir", str(tables))
    assert status == 0 and data["tables"][0]["material"] == "KRK"
    status, data = run_json(capsys, "tb", "build", "KXK", "--tables", str(tables))
    assert status == 1 and "X" in data["error"]
    assert "from 1 to 1,024" in usage_error(capsys, "tb", "build", "KRK", "--threads", "0")


def test_tb_tables_must_be_a_directory(tables, capsys):
    not_a_directory = tables / "KRK.xqtb"
    for argv in (["tb", "list"], ["tb", "probe", KRK], ["problem", "solve", KRK]):
        err = usage_error(capsys, *argv, "--tables", str(not_a_directory))
        assert "not a directory" in err


def test_tb_probe_json(tables, capsys):
    status, data = run_json(capsys, "tb", "probe", KRK, "--tables", str(tables))
    assert status == 0 and data["value"]["wdl"] == 2 and data["value"]["dtm"] == 1
    assert data["notation"] == "chinese" and data["moves"][0]["value"]["wdl"] == 2
    assert data["value"]["description"].startswith("Red wins")
    status, data = run_json(capsys, "tb", "probe", "3k5/9/9/9/9/9/9/9/9/C3K4 w",
                            "--tables", str(tables))
    assert status == 1 and "no table" in data["error"]
    status, data = run_json(capsys, "tb", "probe", BAD_FEN, "--tables", str(tables))
    assert status == 1 and "invalid FEN" in data["error"]


def test_tb_stats_json(tables, capsys):
    status, data = run_json(capsys, "tb", "stats", "KRK", "--line", "--tables", str(tables))
    assert status == 0 and data["material"] == "KRK"
    red = data["sides"]["red"]
    assert red["wins"] > 0 and red["lines"]["longest_win"]
    status, data = run_json(capsys, "tb", "stats", "KNK", "--tables", str(tables))
    assert status == 1 and "no table" in data["error"]


def test_tb_verify_json(tables, capsys):
    status, data = run_json(capsys, "tb", "verify", "KRK", "--tables", str(tables),
                            "--threads", "1")
    assert status == 0 and data["ok"] and data["mismatches"]["dtm"] == 0
    status, data = run_json(capsys, "tb", "verify", "KNK", "--tables", str(tables))
    assert status == 1 and "missing" in data["error"]
    usage_error(capsys, "tb", "verify", "KRK", "--threads", "many")


def test_tb_list_json(tables, tmp_path, capsys):
    status, data = run_json(capsys, "tb", "list", "--tables", str(tables))
    assert status == 0 and [t["material"] for t in data["tables"]] == ["KK", "KRK"]
    assert data["tables"][0]["damaged"] is None and data["tables"][0]["data_checked"]
    status, data = run_json(capsys, "tb", "list", "--quick", "--tables", str(tmp_path / "none"))
    assert status == 0 and data["tables"] == []


# -- problem -----------------------------------------------------------------------------------

def test_problem_solve_json_exit_status_and_alias(capsys):
    status, data = run_json(capsys, "problem", "solve", ROOK_MATES, "--no-tables")
    assert status == 0 and data["verdict"] == "mate" and data["main_line_text"] == ["车九进八"]
    status, data = run_json(capsys, "solve", "4k4/9/9/9/9/9/9/9/9/3K5 w", "--checks",
                            "--max-moves", "3", "--no-tables")
    assert status == 1 and data["verdict"] == "no mate"
    status, data = run_json(capsys, "problem", "solve", BAD_FEN)
    assert status == 1 and "invalid FEN" in data["error"]
    assert "from 1 to 10,000" in usage_error(capsys, "problem", "solve", ROOK_MATES,
                                          "--max-moves", "99999999999999999999")
    usage_error(capsys, "problem", "solve", ROOK_MATES, "--seconds", "soon")


def test_problem_verify_json_exit_status_and_alias(capsys):
    status, data = run_json(capsys, "problem", "verify", CHECKS_PROBLEM,
                            "--stipulation", "checks")
    assert status == 0 and data["sound"] and data["unique_key"] and data["moves"] == 7
    status, data = run_json(capsys, "verify", ROOK_MATES)       # cooked
    assert status == 1 and not data["sound"] and data["cooks"]
    status, data = run_json(capsys, "problem", "verify", BAD_FEN)
    assert status == 1 and "invalid FEN" in data["error"]
    usage_error(capsys, "problem", "verify", ROOK_MATES, "--stipulation", "lose")
    assert "from 1 to 10,000" in usage_error(capsys, "problem", "verify", ROOK_MATES,
                                          "--moves", "10001")


def test_every_command_takes_json(capsys):
    """``--json`` is accepted by every command (a usage error would exit 2)."""
    for argv in (["position", "perft", STARTING_FEN, "0"], ["position", "moves", STARTING_FEN],
                 ["position", "check", STARTING_FEN], ["position", "judge", STARTING_FEN]):
        status, out, _ = run(capsys, *argv, "--json")
        assert status == 0 and isinstance(json.loads(out), dict)
