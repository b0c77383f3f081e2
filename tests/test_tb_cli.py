"""The ``xqstudio tb`` subcommands: build, probe, stats, verify, list."""
from __future__ import annotations

import json
import shutil

import pytest

from tablebases.format import table_path
from tablebases.material import Material
from tui.cli import main
from xiangqi import BLACK, RED, Board
from xiangqi.notation import parse_line, write_line


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    directory = tmp_path_factory.mktemp("tb_cli")
    assert main(["tb", "build", "KRKAA", "KNKA", "--dir", str(directory), "--threads", "1"]) == 0
    return directory


def test_build_reports_each_table_and_reuses_files(tables, capsys):
    status, out, err = run(capsys, "tb", "build", "KRKAA", "--dir", str(tables))
    assert status == 0 and out.strip() == f"KRKAA: already present, {table_path(tables, 'KRKAA')}"
    status, out, err = run(capsys, "tb", "build", "KRK", "--dir", str(tables), "--rebuild")
    assert status == 0 and "KRK: built" in out
    assert "KRK: 9,720 positions" in err and "KRK dtm:" in err and "written" in err


def test_build_says_passes_and_seconds_and_the_rest_with_verbose(tables, capsys):
    """A user reads a short line per metric; ``--verbose`` adds the developer figures (the
    rate per thread per pass, the CPU seconds of each phase)."""
    status, _, err = run(capsys, "tb", "build", "KRK", "--dir", str(tables), "--rebuild",
                         "--threads", "1")
    (dtm,) = [line for line in err.splitlines() if line.startswith("KRK dtm: ")]
    passes, _, seconds = dtm.removeprefix("KRK dtm: ").partition(" passes, ")
    assert status == 0 and passes.isdigit() and int(passes) > 1
    assert seconds.endswith(" s") and float(seconds.removesuffix(" s")) >= 0
    assert "per thread" not in err and "CPU s" not in err and "first_sweep" not in err
    assert "KRK: estimated under a second on 1 thread\n" in err
    assert "KRK: re-check of dtm, dtc at once in " in err
    status, _, err = run(capsys, "tb", "build", "KRK", "--dir", str(tables), "--rebuild",
                         "--threads", "1", "--verbose")
    (dtm,) = [line for line in err.splitlines() if line.startswith("KRK dtm: ")]
    assert status == 0 and f"KRK dtm: {passes} passes in " in dtm
    assert "M positions/s per thread per pass); CPU s: first_sweep " in dtm
    assert any(line.startswith("KRK: re-check of") and "(CPU s " in line
               for line in err.splitlines())


def test_build_rejects_a_bad_material(tables, capsys):
    status, out, err = run(capsys, "tb", "build", "KXK", "--dir", str(tables))
    assert status == 1 and err.startswith("error:") and "X" in err


def test_probe_prints_the_value_and_every_move(tables, capsys):
    fen = "3ak4/4a4/9/9/9/9/9/9/9/4K3R w"
    status, out, _ = run(capsys, "tb", "probe", fen, "--dir", str(tables), "--notation", "wxf")
    lines = out.splitlines()
    assert status == 0
    assert lines[0] == "Red wins, mate in 1 (1 ply)"
    assert lines[1] == "distance to conversion (capture or mate): 1 ply"
    assert lines[2].split() == ["R1.4", "Red", "wins,", "mate", "in", "1", "(1", "ply)"]
    assert len(lines) - 2 == len(list(Board(fen).legal_moves)) == 12 + 3   # rook, king
    status, out, err = run(capsys, "tb", "probe", "3ak4/9/9/9/9/9/9/9/9/3K4C w",
                           "--dir", str(tables))
    assert status == 1 and "no table for KCKA" in err


def test_probe_rejects_a_bad_fen(tables, capsys):
    status, _, err = run(capsys, "tb", "probe", "3ak4/4a4/9/9 w", "--dir", str(tables))
    assert status == 1 and "invalid FEN" in err


def test_stats_counts_longest_win_and_conversion(tables, capsys):
    status, out, _ = run(capsys, "tb", "stats", "KRKAA", "--dir", str(tables), "--line")
    assert status == 0
    red = out.split("Red to move:")[1].split("Black to move:")[0]
    assert "wins         22,938  100.0%" in red and "draws             0" in red
    assert "longest win: 19 plies" in red
    assert "longest conversion: 15 plies (8 moves) before the first capture or mate" in red
    # The lines in the default notation (Chinese), numbered as a book prints them.
    fen = red.split("longest win: 19 plies, ")[1].splitlines()[0]
    lines = [line.removeprefix("  line: ") for line in red.splitlines()
             if line.startswith("  line:")]
    assert lines[0].startswith("1. 帅") and not any(c in lines[0] for c in "abcdefghi")
    assert [len(parse_line(Board(fen), lines[0], "chinese"))] == [19]
    assert len(lines) == 2 and len(lines[1].split()) == 15 + 8       # 15 plies, 8 numbers
    assert "rule perpetual_check: applied" in out


def test_stats_lines_in_the_notation_asked_and_iccs_in_json(tables, capsys):
    status, out, _ = run(capsys, "tb", "stats", "KRK", "--dir", str(tables), "--line",
                         "--notation", "wxf")
    red = out.split("Red to move:")[1].split("Black to move:")[0]
    fen = red.split("longest win: 3 plies, ")[1].splitlines()[0]
    line = next(line for line in red.splitlines() if line.startswith("  line: "))
    moves = parse_line(Board(fen), line.removeprefix("  line: "), "wxf")
    assert status == 0 and line.startswith("  line: 1. R") and len(moves) == 3
    status, out, _ = run(capsys, "tb", "stats", "KRK", "--dir", str(tables), "--line", "--json")
    data = json.loads(out)
    side = data["sides"]["red"]
    assert data["notation"] == "chinese"
    assert side["lines"]["longest_win"] == [m.iccs() for m in moves]
    assert side["lines_written"]["longest_win"] == write_line(Board(fen), moves, "chinese")


def test_stats_and_list_of_a_table_without_a_win(tables, capsys):
    status, out, _ = run(capsys, "tb", "stats", "KAK", "--dir", str(tables))
    assert status == 0 and "no win for Red" in out and "no win for Black" in out
    assert "longest win" not in out
    status, out, _ = run(capsys, "tb", "list", "--dir", str(tables))
    rows = {line.split()[0]: line for line in out.splitlines()}
    assert "  no win  " in rows["KAK"] and "  no win  " in rows["KK"]
    assert "0 plies" not in out and "longest win 3 plies" in rows["KRK"]


def test_stats_of_a_missing_table(tables, capsys):
    status, _, err = run(capsys, "tb", "stats", "KCKAA", "--dir", str(tables))
    assert status == 1 and "no table for KCKAA" in err


def test_verify_passes_and_finds_a_damaged_sub_table(tables, tmp_path, capsys):
    status, out, _ = run(capsys, "tb", "verify", "KNKA", "--dir", str(tables), "--threads", "1")
    assert status == 0 and out.split() == ["dtm:", "OK", "chase", "marks:", "OK",
                                           "dtc:", "OK", "dtc60:", "OK", "rule", "rounds:", "OK"]
    # KNKA verified against a KNK that claims nothing is won: the re-check must object.
    for material in Material.parse("KNKA").build_order():
        shutil.copy(table_path(tables, str(material)), tmp_path)
    shutil.copy(table_path(tables, "KAK"), table_path(tmp_path, "KNK"))
    status, out, err = run(capsys, "tb", "verify", "KNKA", "--dir", str(tmp_path))
    assert status == 1 and "dtm: " in out and "mismatches" in out
    # Each metric names its first mismatches: side to move, index, FEN, stored and expected.
    examples = [line for line in out.splitlines() if line.startswith("  ")]
    assert examples
    for line in examples:
        where, _, what = line.strip().rpartition(": stored ")
        side, _, rest = where.partition(" to move, index ")
        index, _, fen = rest.partition(": ")
        assert side in ("Red", "Black") and index.replace(",", "").isdigit()
        board = Board(fen)
        assert board.turn == (RED if side == "Red" else BLACK)
        assert ", its moves give " in what


def test_list(tables, capsys):
    status, out, _ = run(capsys, "tb", "list", "--dir", str(tables))
    names = [line.split()[0] for line in out.splitlines()]
    assert status == 0 and {"KRKAA", "KNKA", "KRK", "KK"} <= set(names)
    assert any(line.startswith("KRKAA") and "longest win 19 plies" in line
               for line in out.splitlines())


def test_build_without_the_recheck_gives_the_same_values_and_says_so(tables, tmp_path, capsys):
    """``--no-verify`` skips the re-check only: the arrays equal a verified build's, the header
    says ``unverified`` (a verified build's does not), and ``tb verify`` finds nothing."""
    from tablebases.format import TableFile

    for name in ("KK", "KAK", "KAAK", "KRK", "KRKA"):
        shutil.copy(table_path(tables, name), tmp_path)
    status, out, err = run(capsys, "tb", "build", "KRKAA", "--dir", str(tmp_path), "--no-verify",
                           "--threads", "1")
    assert status == 0 and out.strip().startswith("KRKAA: built (not re-checked)")
    assert "KRKAA dtm:" in err and "not re-checked" in err and "re-check 0" not in err
    fast, checked = TableFile(table_path(tmp_path, "KRKAA")), TableFile(table_path(tables, "KRKAA"))
    try:
        assert fast.header.extra["unverified"] is True and "unverified" not in checked.header.extra
        assert set(fast.header.blocks) == set(checked.header.blocks)
        for array in checked.header.blocks:
            assert fast.load_array(array) == checked.load_array(array), array
        assert fast.header.counts == checked.header.counts
    finally:
        fast.close(), checked.close()
    status, out, err = run(capsys, "tb", "verify", "KRKAA", "--dir", str(tmp_path))
    assert status == 0 and out.split() == ["dtm:", "OK", "chase", "marks:", "OK", "dtc:", "OK",
                                           "dtc60:", "OK", "rule", "rounds:", "OK"]


def test_build_log_lines_of_the_library(tmp_path):
    """``build(log=...)``: the short line by default (one pass said in the singular); with
    ``verbose=True`` the line the developers read, and the summary has every figure either
    way."""
    from tablebases.build import build

    lines: list[str] = []
    summary = build("KK", tmp_path, log=lines.append)
    assert any(line.startswith("KK dtm: 1 pass, ") for line in lines)
    assert not any("CPU s" in line for line in lines)
    assert summary["KK"]["dtm_passes"] == 1 and "dtm_cpu_seconds" in summary["KK"]
    lines.clear()
    build("KK", tmp_path, log=lines.append, rebuild=True, verbose=True)
    assert any(line.startswith("KK dtm: 1 passes in ") and "CPU s: first_sweep" in line
               for line in lines)
