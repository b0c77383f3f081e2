"""Load on ``xqstudio tb serve``: requests/s over loopback HTTP with concurrent clients.

Usage:
    python benchmarks/bench_tb_server.py              # builds KRKA and KNKA (about a second)
    python benchmarks/bench_tb_server.py --dir DIR    # the tables already in DIR
Options: --requests N (default 2000), --clients C (default 8), --positions P (default 2000).

The server runs as the user runs it, in its own process (``python -m tui.cli tb serve --port
0``, on 127.0.0.1 only); the clients are threads of this process, each with one keep-alive
connection (``http.client``), sending ``GET /xiangqi?fen=...`` for legal positions of the
tables drawn at random (both sides to move).  Two rounds: every answer computed
(``--cache 0``, each request a different position while they last), then the answers cached
(the same positions again, the server's default cache).  Bounded: a fixed number of
requests, each with a 10-second timeout, and the whole run stops after ``--max-seconds``.
Lines: requests/s, latency median and 95th percentile, the statuses seen.
"""
from __future__ import annotations

import argparse
import http.client
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

from bench_tb_probe import tables_for
from tablebases.build import indexer_for
from tablebases.material import Material
from tablebases.probe import Tablebase
from tablebases.values import ILLEGAL
from xiangqi import Board

MATERIALS = ["KRKA", "KNKA"]
ROOT = Path(__file__).resolve().parent.parent


def sample_fens(directory: Path, count: int, rng: random.Random) -> list[str]:
    """``count`` distinct FENs of legal positions of the tables in ``directory``."""
    tablebase = Tablebase(directory)
    names = [m for m in tablebase.materials() if len(m) >= 4] or tablebase.materials()
    fens: dict[str, None] = {}
    tries = 0
    while len(fens) < count and tries < 50 * count:
        tries += 1
        indexer = indexer_for(Material.parse(rng.choice(names)))
        codes = indexer.placement(rng.randrange(indexer.size))
        if codes is None:
            continue
        board = Board(None)
        board._load(codes, rng.randrange(2), 0, 1)
        if tablebase.dtm_code(board) in (ILLEGAL, -1) or board.kings_facing():
            continue
        fens[board.fen()] = None
    tablebase.close()
    return list(fens)


class Server:
    """``xqstudio tb serve`` in a subprocess on a free loopback port."""

    def __init__(self, directory: Path, cache: int) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tui.cli", "tb", "serve", "--tables", str(directory),
             "--host", "127.0.0.1", "--port", "0", "--cache", str(cache)],
            stderr=subprocess.PIPE, text=True, cwd=ROOT)
        assert self.process.stderr is not None
        line = self.process.stderr.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if match is None:
            self.process.kill()
            raise RuntimeError(f"the server did not start: {line}{self.process.stderr.read()}")
        self.port = int(match.group(1))

    def close(self) -> None:
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()


def load(port: int, fens: list[str], requests: int, clients: int,
         max_seconds: float) -> tuple[float, list[float], dict[int, int]]:
    """Send ``requests`` GETs from ``clients`` threads; (seconds, latencies, statuses)."""
    paths = ["/xiangqi?" + urllib.parse.urlencode({"fen": fens[i % len(fens)]})
             for i in range(requests)]
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    lock = threading.Lock()
    next_index = [0]
    deadline = time.monotonic() + max_seconds

    def client() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            while time.monotonic() < deadline:
                with lock:
                    index = next_index[0]
                    next_index[0] += 1
                if index >= len(paths):
                    return
                sent = time.perf_counter()
                connection.request("GET", paths[index])
                response = connection.getresponse()
                response.read()
                took = time.perf_counter() - sent
                with lock:
                    latencies.append(took)
                    statuses[response.status] = statuses.get(response.status, 0) + 1
        finally:
            connection.close()

    threads = [threading.Thread(target=client) for _ in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.perf_counter() - started, latencies, statuses


def report(label: str, seconds: float, latencies: list[float], statuses: dict[int, int]) -> None:
    ordered = sorted(latencies)
    p95 = ordered[int(0.95 * (len(ordered) - 1))] if ordered else 0.0
    print(f"{label:<34} {len(latencies):>6} requests in {seconds:6.2f} s: "
          f"{len(latencies) / seconds:8,.0f} requests/s; latency median "
          f"{1000 * statistics.median(ordered or [0.0]):6.1f} ms, p95 {1000 * p95:6.1f} ms; "
          f"statuses {dict(sorted(statuses.items()))}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, help="tables to serve (default: build KRKA, KNKA)")
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--positions", type=int, default=2000)
    parser.add_argument("--max-seconds", type=float, default=120.0)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        directory = tables_for(args.dir, Path(scratch), MATERIALS)
        fens = sample_fens(directory, args.positions, random.Random(2026))
        print(f"{len(fens)} positions; {args.requests} requests per round from {args.clients} "
              "clients, keep-alive, loopback")
        for label, cache in (("computed (--cache 0)", 0), ("cached (default cache)", 10_000)):
            server = Server(directory, cache)
            try:
                if cache:            # fill the cache first: the round measures hits
                    load(server.port, fens, min(len(fens), args.requests), args.clients,
                         args.max_seconds)
                report(label, *load(server.port, fens, args.requests, args.clients,
                                    args.max_seconds))
            finally:
                server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
