"""Issue 19: table sets and collection verification on a Dask cluster (``tablebases.cluster``,
``puzzles.cluster``): a LocalCluster of two worker processes builds tables byte-identical to
a serial build, survives a worker killed mid-table (the retry resumes from the checkpoint),
builds a table once for two clients, refuses what no worker can hold, and verifies ten
compositions with the verdicts of a serial run.  Without the extra ``xqstudio[cluster]``
only the error that names it is tested."""
from __future__ import annotations

import os
import signal
import sys
import threading
from collections import Counter

import pytest

from tablebases.build import build, checkpoint_path, table_problem
from tablebases.cluster import ClusterError, require_distributed
from tablebases.format import table_path
from tui.cli import main

SET = ["KRKN", "KRKAB", "KNKAB"]        # 13 small tables, KRKN the largest (437,400 a side)


def _quiet(line: str) -> None:
    pass


def _tables(directory) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(directory.glob("*.xqtb"))}


def test_without_dask_the_cluster_options_name_the_extra(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)       # import distributed fails
    with pytest.raises(ClusterError, match=r"xqstudio\[cluster\]"):
        require_distributed()
    assert main(["tb", "build", "KRK", "--workers", "2", "--tables", str(tmp_path)]) == 1
    assert "xqstudio[cluster]" in capsys.readouterr().err
    assert not list(tmp_path.glob("*.xqtb"))
    assert main(["catalogue", "verify", "--numbers", "1", "--cluster", "tcp://127.0.0.1:1",
                 "--db", str(tmp_path / "c.sqlite")]) == 1
    assert "xqstudio[cluster]" in capsys.readouterr().err


@pytest.fixture(scope="module")
def client():
    pytest.importorskip("distributed")
    from tablebases.cluster import connect

    with connect(workers=2, memory_per_worker=2 * 2**30, dashboard=None) as client:
        client.wait_for_workers(2, timeout=60)
        yield client


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
    directory = tmp_path_factory.mktemp("serial")
    build(SET, directory, log=_quiet)
    return _tables(directory)


@pytest.mark.slow
def test_two_workers_build_a_set_byte_identical_to_a_serial_build(client, serial, tmp_path):
    from tablebases.cluster import build_on_cluster

    lines: list[str] = []
    results = build_on_cluster(client, SET, tmp_path, log=lines.append)
    assert _tables(tmp_path) == serial and len(serial) == 13
    assert {r["state"] for r in results.values()} == {"built"} and len(results) == 13
    # Built in the workers' processes, not the client's (which of the two takes a table is
    # the scheduler's choice: on a fast machine one may take all thirteen small ones).
    workers = set(client.run(os.getpid).values())
    assert {r["pid"] for r in results.values()} <= workers and os.getpid() not in workers
    assert any(line.startswith("[13/13] ") for line in lines)
    # Asked again: every table is present and sound, nothing is submitted.
    assert build_on_cluster(client, SET, tmp_path, log=_quiet) == {}


@pytest.mark.slow
def test_a_worker_killed_mid_table_is_retried_from_the_checkpoint(client, serial, tmp_path):
    """KRKN's worker is killed while it builds DTC (DTM's checkpoint written, checkpoints
    kept from 1 entry on): no KRKN table appears with the kill, the task is retried on a
    live worker, which resumes from the DTM checkpoint, and the set equals the serial one."""
    import distributed

    from tablebases.cluster import EVENTS, build_on_cluster

    watcher = distributed.Client(client.scheduler.address)
    killed: dict = {}

    def kill_in_dtc(event):
        message = event[1]
        if (not killed and message.get("material") == "KRKN" and message.get("kind") == "pass"
                and message.get("metric") == "dtc"):
            os.kill(message["pid"], signal.SIGKILL)
            killed.update(pid=message["pid"],
                          table_after_kill=table_path(tmp_path, "KRKN").exists(),
                          checkpoint=checkpoint_path(tmp_path, "KRKN", "dtm").exists())

    watcher.subscribe_topic(EVENTS, kill_in_dtc)
    try:
        results = build_on_cluster(client, SET, tmp_path, log=_quiet, checkpoint_size=1)
    finally:
        watcher.close()
    assert killed, "the worker building KRKN was not killed"
    assert killed["table_after_kill"] is False and killed["checkpoint"] is True
    assert results["KRKN"]["pid"] != killed["pid"]
    assert results["KRKN"]["resumed"] == ["dtm"]
    assert _tables(tmp_path) == serial
    assert all(table_problem(path) is None for path in tmp_path.glob("*.xqtb"))
    assert not list(tmp_path.glob("*-partial"))
    # The killed writer's scratch files went with the next writer on this host.
    assert not list(tmp_path.glob("*.blocks")) and not list(tmp_path.glob("*.tmp"))
    client.wait_for_workers(2, timeout=60)          # the nanny restarts the killed worker


@pytest.mark.slow
def test_two_clients_asking_for_the_same_tables_build_each_once(client, serial, tmp_path):
    import distributed

    from tablebases.cluster import EVENTS, _token, build_on_cluster

    other = distributed.Client(client.scheduler.address)
    results: dict = {}
    errors: list = []

    def run(name, who):
        try:
            results[name] = build_on_cluster(who, ["KRKAB"], tmp_path, log=_quiet)
        except BaseException as error:     # reported below
            errors.append(error)

    try:
        threads = [threading.Thread(target=run, args=(name, who))
                   for name, who in (("one", client), ("two", other))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
    finally:
        other.close()
    assert not errors
    token = _token(tmp_path, True)
    written = Counter(message["material"] for _, message in client.get_events(EVENTS)
                      if message.get("token") == token and message.get("kind") == "log"
                      and ": written " in message.get("line", ""))
    assert set(written) == {"KK", "KRK", "KAK", "KBK", "KABK", "KRKA", "KRKB", "KRKAB"}
    assert set(written.values()) == {1}
    assert _tables(tmp_path) == {name: serial[name] for name in _tables(tmp_path)}


@pytest.mark.slow
def test_a_table_no_worker_can_hold_is_refused_before_anything_runs(client, tmp_path):
    from tablebases.cluster import build_on_cluster

    with pytest.raises(ClusterError, match="KCPABKAABB needs at least .* no worker declares"):
        build_on_cluster(client, ["KCPABKAABB"], tmp_path, log=_quiet)
    assert not list(tmp_path.iterdir())


@pytest.mark.slow
def test_ten_compositions_verified_on_the_cluster_get_the_serial_verdicts(client, tmp_path,
                                                                          capsys):
    """Nos. 1-10 of 《适情雅趣》 at 20,000 nodes a search (a node budget: the verdicts do not
    depend on the load): serially in this process, then one task each on the cluster; the
    same verdicts, lengths and lines, and the catalogue written once at the end."""
    from puzzles.catalogue import compositions_to_verify, open_catalogue
    from puzzles.cluster import verify_on_cluster
    from puzzles.verification import VerifySettings

    db_path = tmp_path / "catalogue.sqlite"
    argv = ["catalogue", "verify", "--collection", "适情雅趣", "--numbers", "1-10",
            "--seconds", "0", "--nodes", "20000", "--db", str(db_path), "--json"]
    import json

    assert main(argv) == 0
    serial = json.loads(capsys.readouterr().out)
    assert serial["verified"] == 10
    db = open_catalogue(db_path)
    compositions = compositions_to_verify(db, "适情雅趣", list(range(1, 11)))
    stored = {c["number"]: (c["verdict"], c["moves"]) for c in compositions}
    assert stored == {r["number"]: (r["verdict"], r["moves"]) for r in serial["compositions"]}
    budget = VerifySettings.uniform(seconds=0, nodes=20000)
    arrived: list[int] = []
    results = verify_on_cluster(client, compositions, budget, lambda i, r: arrived.append(i))
    assert sorted(arrived) == list(range(10))
    keys = ("stipulation", "verdict", "moves", "main_line")
    assert [{k: r[k] for k in keys} for r in results] == \
        [{k: r[k] for k in keys} for r in serial["compositions"]]
    assert sum(r["verdict"] == "mate" for r in results) >= 5


@pytest.mark.slow
def test_catalogue_verify_on_a_cluster_writes_nothing_if_a_task_fails(client, tmp_path,
                                                                      monkeypatch, capsys):
    """A verification on a cluster whose task for one composition fails (No. 3's raises)
    reports the error and leaves every verdict as it was: nothing is written before the end."""
    from puzzles import cluster, verification
    from puzzles.catalogue import open_catalogue

    db_path = tmp_path / "catalogue.sqlite"
    db = open_catalogue(db_path)
    before = db.execute("SELECT number, verdict FROM compositions WHERE number <= 3 "
                        "ORDER BY number").fetchall()

    def failing(fen, stipulation, budget):
        if fen == before_fens[3]:
            raise RuntimeError("a search that fails")
        return verification.verify_composition(fen, stipulation, budget)

    before_fens = {n: f for n, f in db.execute("SELECT number, fen FROM compositions "
                                               "WHERE number <= 3")}
    monkeypatch.setattr(cluster, "verify_composition", failing)
    assert main(["catalogue", "verify", "--numbers", "1-3", "--nodes", "2000", "--seconds", "0",
                 "--cluster", client.scheduler.address, "--db", str(db_path)]) == 1
    assert "a search that fails" in capsys.readouterr().err
    again = open_catalogue(db_path).execute(
        "SELECT number, verdict FROM compositions WHERE number <= 3 ORDER BY number").fetchall()
    assert again == before
