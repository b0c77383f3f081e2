"""``xqstudio tb serve``: the server started as a user starts it (a subprocess on a free port)
and in a thread, queried over real HTTP on the loopback interface."""
from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pyffish as sf
import pytest

from tablebases import open_tablebase
from tablebases.build import build
from tablebases.format import TableFile
from tui.cli import main
from tui.frontends import web
from xiangqi import Board
from xiangqi.notation import write_move

pytest.importorskip("starlette", reason="the web extra is not installed")

KRKA_WIN = "3k5/4a4/9/9/9/9/9/9/9/4K3R w - - 0 1"
KRK_WIN = "4k4/9/9/9/9/9/9/9/9/R2K5 w - - 0 1"
KAK_DRAW = "3k5/9/9/9/9/9/9/9/4A4/4K4 w - - 0 1"
MATED = "3k5/9/9/9/9/9/9/9/9/3RK4 b - - 0 1"
POSITIONS = [KRKA_WIN, KRKA_WIN.replace(" w ", " b "), KRK_WIN, KAK_DRAW, MATED,
             "4k4/9/9/9/9/9/9/9/9/R2K5 w - - 119 80", "3k5/4a4/9/9/9/4R4/9/9/9/5K3 b - - 0 1"]
CATEGORY_OF_WDL = {2: "win", 1: "cursed-win", 0: "draw", -1: "blessed-loss", -2: "loss"}


@pytest.fixture(scope="module")
def tables(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("web_tables")
    build(["KRKA"], directory, threads=1, log=lambda line: None)   # with KRK, KAK, KK
    return directory


@pytest.fixture(scope="module")
def server(tables):
    """``xqstudio tb serve --port 0``: the base URL it prints."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tui.cli", "tb", "serve", "--tables", str(tables), "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    line = process.stderr.readline()
    match = re.search(r"on (http://127\.0\.0\.1:\d+)/xiangqi", line)
    assert match, line + (process.stderr.read() if process.poll() is not None else "")
    yield match.group(1)
    process.send_signal(signal.SIGINT)               # Ctrl-C: shut down, status 130
    assert process.wait(timeout=20) == 130
    err = process.stderr.read()
    assert "Traceback" not in err and err.strip().endswith("interrupted"), err


def get(base: str, fen: str | None, path: str = "/xiangqi") -> tuple[int, dict]:
    query = "" if fen is None else "?" + urllib.parse.urlencode({"fen": fen})
    try:
        with urllib.request.urlopen(base + path + query, timeout=20) as response:
            assert response.headers["Content-Type"].startswith("application/json")
            return response.status, json.loads(response.read().decode("utf-8"))
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read().decode("utf-8"))


def signed(plies, wdl):
    return 0 if wdl == 0 else (None if plies is None else (plies if wdl > 0 else -plies))


def test_a_position_and_its_moves_in_the_lichess_shape(server, tables):
    status, document = get(server, KRKA_WIN)
    assert status == 200
    board = Board(KRKA_WIN)
    with open_tablebase(tables) as tablebase:
        value = tablebase.probe(board)
        ranked = tablebase.ranked_moves(board)
        assert document["category"] == "win" and document["dtm"] == value.dtm > 0
        assert document["dtc"] == value.dtc and document["dtc60"] == value.dtc60
        assert document["sixty_move_draw"] is False and document["checkmate"] is False
        # Every legal move, best first, as the table ranks them.
        assert [m["iccs"] for m in document["moves"]] == [item.move.iccs() for item in ranked]
        assert len(document["moves"]) == len(board.legal_moves)
        legal = sf.legal_moves("xiangqi", KRKA_WIN, [])
        for entry, item in zip(document["moves"], ranked):
            assert entry["uci"] in legal                  # Fairy-Stockfish's squares
            assert entry["chinese"] == write_move(board, item.move, "chinese")
            assert entry["wxf"] == write_move(board, item.move, "wxf")
            assert entry["zeroing"] == board.is_capture(item.move)
            board.push(item.move)
            after = tablebase.probe(board) if board.has_legal_move() else None
            board.pop()
            if after is None:                             # the move mates
                assert entry["checkmate"] or entry["stalemate"]
                assert entry["category"] == "loss" and entry["dtm"] == 0
                continue
            # The fields are the position's after the move, for the side to move there.
            assert entry["category"] == CATEGORY_OF_WDL[after.wdl]
            assert entry["dtm"] == signed(after.dtm, after.wdl)
            assert entry["dtc"] == signed(after.dtc, after.wdl)
    best = document["moves"][0]
    assert best["category"] == "loss" and best["dtm"] == -(value.dtm - 1)


def test_chinese_notation_is_sent_as_utf8(server):
    with urllib.request.urlopen(server + "/xiangqi?fen=" + urllib.parse.quote(KRK_WIN)) as r:
        raw = r.read()
    assert "车".encode() in raw or "帅".encode() in raw


def test_draws_checkmates_and_the_losing_side(server):
    status, draw = get(server, KAK_DRAW)
    assert status == 200 and draw["category"] == "draw" and draw["dtm"] == 0
    assert {m["category"] for m in draw["moves"]} <= {"draw", "win"}
    status, mated = get(server, MATED)
    assert status == 200 and mated["checkmate"] and mated["category"] == "loss"
    assert mated["moves"] == [] and mated["dtm"] == 0
    status, losing = get(server, KRKA_WIN.replace(" w ", " b "))
    assert losing["category"] == "loss" and losing["dtm"] < 0
    assert losing["moves"][0]["category"] == "win"        # the longest resistance first
    dtms = [m["dtm"] for m in losing["moves"] if m["category"] == "win"]
    assert dtms == sorted(dtms, reverse=True)


def test_the_60_move_flag_makes_a_late_win_cursed(server):
    status, cursed = get(server, "4k4/9/9/9/9/9/9/9/9/R2K5 w - - 119 80")
    assert status == 200 and cursed["category"] == "cursed-win"
    assert cursed["sixty_move_draw"] is True and cursed["dtm"] > 0
    status, fresh = get(server, "4k4/9/9/9/9/9/9/9/9/R2K5 w - - 0 80")
    assert fresh["category"] == "win" and fresh["sixty_move_draw"] is False
    # Black to move there, one ply from the limit: a loss the limit saves.
    status, blessed = get(server, "4k4/9/9/9/9/9/9/9/9/R2K5 b - - 119 80")
    assert blessed["category"] == "blessed-loss" and blessed["sixty_move_draw"] is True


def test_underscores_stand_for_spaces(server):
    assert get(server, KRK_WIN.replace(" ", "_")) == get(server, KRK_WIN)


def test_a_bad_fen_is_400_naming_what_is_wrong(server):
    status, document = get(server, "3k5/9/9/9/9/9/9/9/9/4X4 w")
    assert status == 400
    assert document["error"] == ("invalid FEN: unknown piece letter 'X' at e0 (FEN rank 10, "
                                 "character 2)")
    status, document = get(server, "3k5/9/9 w")
    assert status == 400 and "expected 10 ranks" in document["error"]
    status, document = get(server, None)
    assert status == 400 and "missing query parameter 'fen'" in document["error"]


def test_a_missing_table_is_404_naming_it(server, tables):
    status, document = get(server, "3ak4/4a4/9/9/9/9/9/9/9/3K4R w")
    assert status == 404
    assert document["error"] == "no table for KRKAA (build it with: xqstudio tb build KRKAA)"
    assert str(tables) not in document["error"]


def test_the_index_lists_the_tables(server):
    status, document = get(server, None, "/")
    assert status == 200 and {"KRKA", "KRK", "KAK"} <= set(document["tables"])


def test_concurrent_requests_get_the_answers_of_one_at_a_time(server):
    expected = {fen: get(server, fen) for fen in POSITIONS}
    requests = POSITIONS * 12
    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(lambda fen: get(server, fen), requests))
    assert answers == [expected[fen] for fen in requests]


def test_one_process_opens_each_table_once_under_concurrent_requests(tables, monkeypatch):
    """The service in a uvicorn thread: 8 clients at once, no answer cached, and every table
    file still opened once (the open tables and their blocks are shared)."""
    opened: list[Path] = []
    original = TableFile.__init__

    def counting(self, path):
        opened.append(Path(path))
        original(self, path)

    monkeypatch.setattr(TableFile, "__init__", counting)
    service = web.TablebaseService(tables, cache_size=0)
    sock = web.bind("127.0.0.1", 0)
    server = web.make_server(service, sock)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    try:
        deadline = time.monotonic() + 20
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        with ThreadPoolExecutor(max_workers=8) as pool:
            answers = list(pool.map(lambda fen: get(base, fen), POSITIONS * 10))
    finally:
        server.should_exit = True
        thread.join(timeout=20)
        sock.close()
        service.close()
    assert all(status == 200 for status, _ in answers)
    assert len(opened) == len(set(opened)), opened


def test_the_service_cache_keeps_answers(tables):
    service = web.TablebaseService(tables, cache_size=2)
    try:
        first = service.query(KRK_WIN)
        assert service.query(KRK_WIN) is not None and service._cache
        for fen in POSITIONS:
            service.query(fen)
        assert len(service._cache) == 2
        assert service.query(KRK_WIN) == first
    finally:
        service.close()


def test_without_the_web_extra_the_error_names_it(tables, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "starlette", None)     # import starlette fails
    status = main(["tb", "serve", "--tables", str(tables), "--port", "0"])
    err = capsys.readouterr().err
    assert status == 1
    assert "needs the 'web' extra (starlette is not installed)" in err
    assert "pip install 'xqstudio[web]'" in err


def test_a_port_in_use_is_reported(tables, capsys):
    sock = web.bind("127.0.0.1", 0)
    try:
        status = main(["tb", "serve", "--tables", str(tables), "--port",
                       str(sock.getsockname()[1])])
    finally:
        sock.close()
    assert status == 1 and "cannot listen on 127.0.0.1:" in capsys.readouterr().err
