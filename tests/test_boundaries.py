"""Issue 36's boundaries, taken as a user takes them: a damaged table met by every front end,
a verify whose budget ends before its line, the default budgets, a table that cannot be
built.  Commands run as subprocesses (the console script next to this Python), so what is
checked is what a user reads: the exit status, the message, the ``--json`` document."""
from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from solver.search import DEFAULT_SEARCH_SECONDS, LINE_RESERVE, Solver
from solver.soundness import verify
from tablebases import CorruptTableError, MissingTableError, TablebaseError, open_tablebase
from tablebases.build import build
from tui.frontends.web import TablebaseService
from tui.widgets.solver_panel import SolverPanel
from xiangqi import STARTING_FEN, Board

XQSTUDIO = str(Path(sys.executable).parent / "xqstudio")
ROOK_AGAINST_ADVISORS = "3aka3/9/9/9/9/9/9/9/R8/3K5 w"     # K R vs K A A: the table's mate
ROOK_MATE_IN_3 = "3ak4/4a4/9/9/9/9/9/9/9/3K4R w"            # K R vs K A A, mate in 3


def xqstudio(*argv: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([XQSTUDIO, *argv], capture_output=True, text=True, timeout=timeout)


def rebuild_advice(directory: Path) -> str:
    return f"rebuild it with: xqstudio tb build KRKAA --tables {directory}"


def test_table_errors_share_one_base_and_say_what_to_do(damaged_tables):
    assert issubclass(CorruptTableError, TablebaseError)
    assert issubclass(MissingTableError, TablebaseError) and issubclass(MissingTableError, KeyError)
    with open_tablebase(damaged_tables) as tablebase, pytest.raises(CorruptTableError) as caught:
        tablebase.probe_dtm(Board(ROOK_AGAINST_ADVISORS))
    text = caught.value.user_text()
    assert text.startswith(f"damaged table {damaged_tables / 'KRKAA.xqtb'}: ")
    assert "at offset" in text and text.endswith(rebuild_advice(damaged_tables))


@pytest.mark.parametrize("extra", [[], ["--json"], ["--max-moves", "5"]])
def test_problem_solve_with_a_damaged_table_reports_it(damaged_tables, extra):
    result = xqstudio("problem", "solve", ROOK_AGAINST_ADVISORS, "--tables", str(damaged_tables),
                      "--seconds", "10", *extra)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert rebuild_advice(damaged_tables) in result.stderr
    if "--json" in extra:
        document = json.loads(result.stdout)
        assert document["error"].startswith("damaged table ")
        assert document["error"].endswith(rebuild_advice(damaged_tables))


def test_tb_stats_refuses_a_damaged_table(damaged_tables):
    result = xqstudio("tb", "stats", "KRKAA", "--tables", str(damaged_tables))
    assert result.returncode == 1 and result.stdout == ""
    assert "checksum mismatch" in result.stderr and rebuild_advice(damaged_tables) in result.stderr


def test_tb_list_names_the_rebuild(damaged_tables):
    result = xqstudio("tb", "list", "--tables", str(damaged_tables), "--json")
    rows = {row["material"]: row for row in json.loads(result.stdout)["tables"]}
    assert rows["KRKAA"]["damaged"].endswith(rebuild_advice(damaged_tables))
    assert rows["KRK"]["damaged"] is None


def web_query(directory: Path, fen: str) -> tuple[int, dict]:
    """(status, JSON document) of the web API's answer for ``fen`` on ``directory``."""
    service = TablebaseService(directory)
    try:
        status, body = service.query(fen)
    finally:
        service.close()
    return status, json.loads(body)


def test_the_web_api_answers_a_damaged_table_with_503(damaged_tables):
    status, document = web_query(damaged_tables, ROOK_AGAINST_ADVISORS)
    assert status == 503
    assert document["error"].startswith("damaged table KRKAA.xqtb on the server (checksum")
    assert str(damaged_tables) not in document["error"]


def test_the_studio_solver_says_the_table_is_damaged(damaged_tables):
    """Any-moves mode, ``s``: the panel shows the message; the app keeps running."""
    from textual.app import App, ComposeResult
    from textual.widgets import Static

    panel = SolverPanel(damaged_tables, board=Board(ROOK_AGAINST_ADVISORS), mode="any")

    class Host(App):
        def compose(self) -> ComposeResult:
            yield panel

    async def run() -> str:
        app = Host()
        async with app.run_test(size=(80, 40)) as pilot:
            panel.focus()
            await pilot.press("s")
            for _ in range(200):
                await pilot.pause(0.02)
                if panel.running is None and "damaged" in str(
                        panel.query_one("#solver-result", Static).content):
                    break
            return str(panel.query_one("#solver-result", Static).content)

    text = asyncio.run(run())
    assert text.startswith("Cannot solve: damaged table ")
    assert "rebuild it with: xqstudio tb build KRKAA" in text


def test_a_table_that_cannot_be_built_is_not_advised():
    result = xqstudio("tb", "probe", STARTING_FEN)
    assert result.returncode == 1
    assert "too many placements to index" in result.stderr
    assert "tb build" not in result.stderr


def test_a_missing_table_names_the_directory_to_build_in(tmp_path):
    result = xqstudio("tb", "probe", ROOK_MATE_IN_3, "--tables", str(tmp_path))
    assert result.returncode == 1
    assert result.stderr.strip() == (f"error: no table for KRKAA in {tmp_path} (build it with: "
                                     f"xqstudio tb build KRKAA --tables {tmp_path})")


def test_solve_has_a_finite_default_budget_and_says_so(tmp_path):
    result = xqstudio("problem", "solve", ROOK_MATE_IN_3, "--tables", str(tmp_path), "--json")
    document = json.loads(result.stdout)
    assert document["verdict"] == "mate" and document["moves"] == 3
    assert document["budget"] == {"seconds": DEFAULT_SEARCH_SECONDS, "nodes": 0,
                                  "kept_for_line": LINE_RESERVE}
    assert document["line_complete"] is True
    text = xqstudio("problem", "verify", ROOK_MATE_IN_3, "--tables", str(tmp_path))
    assert f"budget {DEFAULT_SEARCH_SECONDS:g} s (--seconds, --nodes; 0: none)" in text.stdout
    # A node budget alone sets no time limit (the same answer on any machine).
    nodes = xqstudio("problem", "solve", ROOK_MATE_IN_3, "--tables", str(tmp_path), "--nodes",
                     "100000", "--json")
    assert json.loads(nodes.stdout)["budget"] == {"seconds": 0.0, "nodes": 100000,
                                                  "kept_for_line": LINE_RESERVE}


def test_verify_whose_budget_ends_before_the_line_says_so(monkeypatch):
    """The budget spent by the proof: the report says the line was not extracted, with no
    key rather than an IndexError (seen with --seconds 60 on a mate in 14)."""
    monkeypatch.setattr(Solver, "line_within_reserve", lambda self, *args: [])
    report = verify(Board(ROOK_MATE_IN_3), "win")
    assert report.verdict == "mate" and report.length == 3
    assert report.key is None and report.main_line == [] and not report.line_complete
    assert "the main line: not extracted within the budget (0 of 5 plies)" in report.unproven
    assert not report.sound


def test_verify_with_a_cut_line_keeps_what_it_has(monkeypatch):
    real = Solver.line_within_reserve
    monkeypatch.setattr(Solver, "line_within_reserve",
                        lambda self, *args: real(self, *args)[:2])
    report = verify(Board(ROOK_MATE_IN_3), "win")
    assert len(report.main_line) == 2 and report.key == report.main_line[0]
    assert "the main line: not extracted within the budget (2 of 5 plies)" in report.unproven


def test_verify_command_with_a_budget_spent_at_once_answers_cleanly():
    """End to end with a budget of one node: the report says what is unproven, in JSON."""
    result = xqstudio("problem", "verify", ROOK_MATE_IN_3, "--no-tables", "--nodes", "1",
                      "--json")
    assert "Traceback" not in result.stderr
    document = json.loads(result.stdout)
    assert document["sound"] is False and document["unproven"]


HUGE = "99999999999999999999"


@pytest.mark.parametrize("argv, message", [
    (["catalogue", "list", "examples", "--offset", HUGE],
     f"argument --offset: must be at most 9,223,372,036,854,775,807, not {HUGE}"),
    (["catalogue", "list", "examples", "--limit", HUGE], "argument --limit: must be at most"),
    (["catalogue", "list", "examples", "--min-moves", HUGE], "argument --min-moves: must be"),
    (["catalogue", "list", "examples", "--max-moves", HUGE], "argument --max-moves: must be"),
    (["catalogue", "verify", "--numbers", f"1-{HUGE}"],
     f"argument --numbers: 1-{HUGE}: numbers run from 1 to 100,000"),
    (["problem", "solve", ROOK_MATE_IN_3, "--seconds", "1e300"],
     "argument --seconds: must be from 0 to 10,000,000, not 1e300"),
    (["problem", "solve", ROOK_MATE_IN_3, "--nodes", "-1"], "argument --nodes: must be at least 0"),
    (["position", "perft", STARTING_FEN, HUGE], "must be from 0 to 64"),
    (["tb", "serve", "--port", "65536"], "argument --port: must be from 0 to 65,535, not 65536"),
])
def test_numbers_out_of_range_are_usage_errors(argv, message):
    result = xqstudio(*argv)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert message in result.stderr


def test_an_unknown_command_lists_the_commands_the_help_shows():
    result = xqstudio("nosuch")
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1] == ("xqstudio: error: unknown command 'nosuch': "
                                              "position, tb, problem, catalogue, engine, studio")
    near = xqstudio("catalog", "list")
    assert near.stderr.splitlines()[-1].endswith("(did you mean catalogue?)")
    action = xqstudio("tb", "line")
    assert action.stderr.splitlines()[-1] == ("xqstudio tb: error: unknown action 'line': "
                                              "build, probe, stats, verify, list, serve")


def test_a_missing_output_directory_is_named(tmp_path):
    target = tmp_path / "no" / "such" / "x.svg"
    result = xqstudio("position", "diagram", ROOK_MATE_IN_3, "-o", str(target))
    assert result.returncode == 1
    assert result.stderr.strip() == (f"error: cannot write {target}: there is no directory "
                                     f"{target.parent}")
    assert ".tmp" not in result.stderr


@pytest.mark.slow
def test_tb_build_on_local_workers_reports_each_table(tmp_path):
    pytest.importorskip("distributed")
    result = xqstudio("tb", "build", "KRKA", "KNKA", "--threads", "1", "--workers", "2",
                      "--tables", str(tmp_path), "--json", timeout=300)
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["tables"] == [
        {"material": "KRKA", "state": "built", "path": str(tmp_path / "KRKA.xqtb")},
        {"material": "KNKA", "state": "built", "path": str(tmp_path / "KNKA.xqtb")}]
    # The same bytes as a build in this process.
    local = tmp_path / "local"
    build(["KRKA", "KNKA"], local, log=lambda line: None)
    for name in ("KRKA", "KNKA"):
        assert (tmp_path / f"{name}.xqtb").read_bytes() == (local / f"{name}.xqtb").read_bytes()


def test_fuzz_findings_of_the_command_line(tmp_path):
    """What the argument fuzzer found (tests/fuzz/fuzz_frontends.py), each as a user meets it."""
    show = xqstudio("catalogue", "show", "9223372036854775808", "--json")
    assert show.returncode == 1 and "Traceback" not in show.stderr
    assert json.loads(show.stdout)["error"] == "no composition 9223372036854775808"
    sheet = xqstudio("catalogue", "sheet", HUGE, "-o", str(tmp_path / "sheet.html"))
    assert sheet.returncode == 1 and sheet.stderr.strip() == f"error: no composition {HUGE}"
    perft = xqstudio("position", "perft", STARTING_FEN, "0", "--divide")
    assert perft.returncode == 1
    assert perft.stderr.strip() == ("error: --divide counts under each move: the depth must be "
                                    "at least 1")


def test_the_web_api_answers_json_for_any_path_and_method(tmp_path):
    pytest.importorskip("starlette")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from tui.frontends.web import create_app

    build("KRK", tmp_path, log=lambda line: None)
    service = TablebaseService(tmp_path)
    with TestClient(create_app(service)) as client:
        missing = client.get("/nosuch")
        assert missing.status_code == 404
        assert missing.json() == {"error": "no such endpoint '/nosuch': use /xiangqi?fen=FEN "
                                           "or /"}
        posted = client.post("/xiangqi")
        assert posted.status_code == 405
        assert posted.json() == {"error": "method POST not allowed: use GET"}
    service.close()


def test_exact_is_never_beside_unknown():
    """Issue 37 item 4: a time-out says exact false; a proven "no mate within N" says true."""
    hard = "2bk1ab2/4a4/9/p1P6/3NC4/4Pp3/P5n2/4B3N/4Ar3/1RBAK2cr w"   # 《适情雅趣》 No. 4
    unknown = json.loads(xqstudio("problem", "solve", hard, "--no-tables", "--nodes", "20000",
                                  "--json").stdout)
    assert unknown["verdict"] == "unknown" and unknown["exact"] is False
    report = json.loads(xqstudio("problem", "verify", hard, "--no-tables", "--nodes", "20000",
                                 "--no-refute", "--json").stdout)
    assert report["verdict"] == "unknown" and report["exact"] is False
    none = json.loads(xqstudio("problem", "solve", ROOK_MATE_IN_3, "--no-tables", "--checks",
                               "--json").stdout)
    assert none["verdict"] == "no mate" and none["exact"] is True


def test_the_web_api_does_not_advise_building_the_whole_game(tmp_path):
    build("KRK", tmp_path, log=lambda line: None)
    status, document = web_query(tmp_path, STARTING_FEN)
    assert status == 404 and "too many placements to index" in document["error"]
    assert "tb build" not in document["error"] and str(tmp_path) not in document["error"]


@pytest.mark.slow
def test_solve_builds_the_positions_own_table_on_request(tmp_path):
    """Issue 37: ``--build-tables`` on a mate search builds the table of the position's own
    material first (its cost said), and the answer comes from it."""
    fen = "3ak4/4a4/4b4/9/9/9/9/9/4R4/4K4 w"          # K R vs K A A B: mate in 6
    result = xqstudio("problem", "solve", fen, "--build-tables", "--tables", str(tmp_path),
                      "--json")
    assert result.returncode == 0, result.stderr
    assert "table KRKAAB missing; building it" in result.stderr
    document = json.loads(result.stdout)
    assert (document["verdict"], document["moves"], document["exact"]) == ("mate", 6, True)
    assert document["table_moves"] == 6 and (tmp_path / "KRKAAB.xqtb").exists()
    again = json.loads(xqstudio("problem", "verify", fen, "--build-tables", "--tables",
                                str(tmp_path), "--json").stdout)
    assert again["verdict"] == "mate" and again["moves"] == 6
