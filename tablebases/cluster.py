"""Table builds on a Dask cluster: ``xqstudio tb build MATERIAL... --cluster ADDRESS`` (a
running ``dask scheduler``) or ``--workers N`` (a LocalCluster of N worker processes here).

The sub-table graph becomes a Dask task graph: one task per table still to build, with the
tasks of its sub-tables as its dependencies, so a table starts once every table it captures
into is on disk.  A task builds its one table with :func:`tablebases.build.build`
(``sub_tables=False``: the client has settled the sub-tables) on ``threads`` threads into the
table directory, which every worker must see at the same absolute path (a shared
filesystem), and reads its sub-tables from there.

* **Memory.**  Each task asks for its table's memory estimate
  (:func:`tablebases.build.memory_needed`, the peak of the build) as the Dask resource
  ``MEMORY`` (bytes).  A worker declares what it can give (``dask worker ... --resources
  MEMORY=20e9``; a LocalCluster gives each of its N workers 1/N of the memory available), so
  Dask never runs a table on a worker that cannot hold it, nor two tables at once whose needs
  exceed the worker's.  A table that no worker can hold is refused before anything is
  submitted.
* **Worker loss.**  A table is written under a temporary name and renamed when complete, so a
  worker killed mid-table leaves no file that claims completeness (its scratch files are
  named after its process and removed by the next writer on that host).  Dask reschedules the
  task on another worker (up to ``distributed.scheduler.allowed-failures`` losses, 3 by
  default); a large table's build there resumes from the ``NAME.xqtb.<metric>-partial``
  checkpoints the lost one had finished.
* **One build per table.**  Task keys are deterministic: ``tb-build-<token>-<MATERIAL>``, the
  token a hash of the table directory and of whether the build is verified.  Two clients of
  one scheduler asking for the same table submit the same key, and the scheduler runs a key
  once and gives its result to both; a client that asks after the table was written gets a
  task that finds it on disk, checks it and returns ("present").  Chosen over a Dask
  ``Lock``: a lock would hold a worker thread (and the memory resource) while it waits, and
  one held by a killed worker is only freed after its lease times out; the key costs nothing
  and survives retries.
* **Progress.**  Each task logs events on the scheduler (topic ``xqstudio-tb-build``: start,
  the passes of each metric, the build's log lines, done) that :class:`BuildMonitor` shows
  on the command line: tables done / total, the tables being built (worker, metric, pass,
  seconds against the estimate) and the time left by the estimates.  In the Dask dashboard
  the tasks appear by key (``tb-build-...-KRNKAB``): its progress bar counts the tables,
  the task stream shows which table runs where.

Dask is an optional extra (``pip install 'xqstudio[cluster]'``); it is imported only when a
cluster is asked for, so this module imports without it.
"""
from __future__ import annotations

import hashlib
import logging
import os
import resource
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from xiangqi.output import JsonObject
from xiangqi.quantities import duration_text, memory_text

from . import build as build_module
from .build import (
    BuildError,
    available_memory,
    build,
    memory_needed,
    remove_checkpoints,
)
from .format import build_info_path, table_path
from .material import Material, indexer_for
from .plan import TablePlan, plan_tables

__all__ = ["ClusterError", "require_distributed", "connect", "dashboard_note", "plan_build",
           "TablePlan",
           "build_on_cluster", "build_task", "task_key", "BuildMonitor", "worker_peaks",
           "MEMORY", "EVENTS", "INSTALL_HINT"]

MEMORY = "MEMORY"                   # the Dask resource: bytes a worker can give to builds
EVENTS = "xqstudio-tb-build"        # the topic of the tasks' progress events
INSTALL_HINT = ("install the optional extra 'cluster': pip install 'xqstudio[cluster]' "
                "(in a checkout: pip install -e '.[cluster]')")


class ClusterError(RuntimeError):
    """No Dask on this machine, a scheduler that cannot be reached, or a cluster that cannot
    run the set (no worker declares the memory a table needs)."""


def require_distributed() -> Any:
    """The ``distributed`` module, or a :class:`ClusterError` naming the extra to install."""
    try:
        import distributed
    except ImportError as error:
        raise ClusterError(f"--cluster and --workers need Dask (dask.distributed): "
                           f"{INSTALL_HINT} ({error})") from None
    return distributed


@contextmanager
def connect(address: str | None = None, workers: int | None = None, *,
            memory_per_worker: int | None = None, dashboard: str | None = ":8787",
            timeout: float = 30.0) -> Iterator[Any]:
    """A ``distributed.Client``: of the scheduler at ``address``, or of a LocalCluster of
    ``workers`` processes on this machine (one thread each, each declaring ``MEMORY`` =
    ``memory_per_worker``, by default an equal share of the memory available now; Dask's own
    memory limit off, since the resource already keeps the builds within it).  Closed (and
    the LocalCluster shut down) on leaving."""
    distributed = require_distributed()
    if address is not None:
        try:
            client = distributed.Client(address, timeout=timeout)
        except (OSError, TimeoutError) as error:
            raise ClusterError(f"cannot reach the Dask scheduler at {address}: {error}") from None
        try:
            yield client
        finally:
            client.close()
        return
    count = workers or 1
    share = memory_per_worker or available_memory() // count
    cluster = distributed.LocalCluster(
        n_workers=count, threads_per_worker=1, processes=True, resources={MEMORY: share},
        memory_limit=0, dashboard_address=dashboard, silence_logs=logging.ERROR)
    try:
        client = distributed.Client(cluster)
        try:
            yield client
        finally:
            client.close()
    finally:
        cluster.close()


def dashboard_note(client: Any, local: bool) -> str:
    """Where Dask's dashboard is: its link, or for a LocalCluster without bokeh (the extra
    ``dashboard``) that there is none."""
    import importlib.util

    if local and importlib.util.find_spec("bokeh") is None:
        return "no dashboard (pip install 'xqstudio[dashboard]' for one)"
    return f"dashboard {client.dashboard_link}"


def plan_build(materials: Sequence[str], directory: Path | str, threads: int = 1,
               rebuild: bool = False, verify: bool = True,
               max_memory: int | None = None) -> list[TablePlan]:
    """:func:`tablebases.plan.plan_tables`, with every table inspected.  ``max_memory``: the
    most any worker can give; a requested table that needs more is refused before its
    sub-tables are listed (for a large material that takes long)."""
    if max_memory is not None:
        for text in materials:
            material = Material.parse(text).canonical()
            try:
                size = indexer_for(material).size
            except ValueError as error:
                raise BuildError(f"{material}: {error}") from None
            need = memory_needed(material, size, [])
            if need > max_memory:
                raise ClusterError(f"{material} needs at least {memory_text(need)} of memory "
                                   f"but no worker declares more than {memory_text(max_memory)}")
    return plan_tables(materials, directory, threads, rebuild, verify)


def task_key(name: str, directory: Path | str, verify: bool) -> str:
    """The task key of ``name``'s build: the same for every client that asks for that table
    in that directory (resolved), so the scheduler runs it once.  Dask groups the keys by
    their prefix ``tb-build`` (the token has digits, so the material is not part of it)."""
    return f"tb-build-{_token(directory, verify)}-{name}"


def _token(directory: Path | str, verify: bool) -> str:
    text = f"{Path(directory).resolve()}|{'verified' if verify else 'unverified'}"
    return "0" + hashlib.sha1(text.encode()).hexdigest()[:11]


def _bottom_levels(plans: list[TablePlan]) -> dict[str, float]:
    """Each table's estimated seconds to the end of the set: its own estimate plus the
    longest chain of tables that wait for it (the scheduling priority: longest first)."""
    built = {p.name: p for p in plans if p.build}
    users: dict[str, list[str]] = {name: [] for name in built}
    for plan in built.values():
        for sub in plan.subs:
            if sub in built:
                users[sub].append(plan.name)
    levels: dict[str, float] = {}
    for plan in reversed([p for p in plans if p.build]):     # users come after their subs
        levels[plan.name] = plan.estimate + max((levels[u] for u in users[plan.name]),
                                                default=0.0)
    return levels


def worker_memory(client: Any, wait: float = 30.0) -> dict[str, float | None]:
    """Each worker's ``MEMORY`` resource (None: not declared), waiting up to ``wait`` seconds
    for a first worker."""
    workers = client.scheduler_info(n_workers=-1)["workers"]
    if not workers:
        try:
            client.wait_for_workers(1, timeout=wait)
        except TimeoutError:
            raise ClusterError(f"the scheduler has no workers (waited {wait:.0f} s); start some "
                               "with: dask worker ADDRESS --nthreads 1 --resources "
                               "MEMORY=<bytes>") from None
        workers = client.scheduler_info(n_workers=-1)["workers"]
    return {address: (info.get("resources") or {}).get(MEMORY)
            for address, info in workers.items()}


def build_on_cluster(client: Any, materials: Sequence[str], directory: Path | str,
                     threads: int = 1, rebuild: bool = False, verify: bool = True,
                     log: Callable[[str], None] = print,
                     status: Callable[[str], None] | None = None,
                     checkpoint_size: int | None = None) -> dict[str, JsonObject]:
    """Build ``materials`` and their sub-tables on the cluster of ``client``; returns what each
    table's task returned (material, state "built" or "present", seconds, CPU seconds of the
    worker process, worker, host, pid, peak MiB of the worker process, resumed metrics) for
    the tables it had to build.

    ``log`` gets a line per table started and finished and the builds' own lines, prefixed
    by the worker; ``status`` (if given) the one-line state after every event.
    ``checkpoint_size``: keep metric checkpoints from this many entries per side (tests;
    default the builder's ``CHECKPOINT_SIZE``).  Raises :class:`BuildError` for a table whose
    build failed (the tables still running are left to finish), :class:`ClusterError` when
    the cluster cannot run the set.  With ``rebuild`` the requested tables and their
    checkpoints are deleted first, so that a task retried after a worker loss resumes from
    the new build's checkpoints rather than starting the rebuild again."""
    distributed = require_distributed()
    directory = Path(directory).resolve()
    directory.mkdir(parents=True, exist_ok=True)
    memory = worker_memory(client)
    declared = [m for m in memory.values() if m is not None]
    if not declared:
        raise ClusterError(f"none of the {len(memory)} workers declares the {MEMORY} resource "
                           "that table builds ask for; start them with: dask worker ADDRESS "
                           "--nthreads 1 --resources MEMORY=<bytes they can give>")
    plans = plan_build(materials, directory, threads, rebuild, verify,
                       max_memory=int(max(declared)))
    todo = [p for p in plans if p.build]
    for plan in todo:
        if plan.memory > max(declared):
            raise ClusterError(f"{plan.name} needs about {memory_text(plan.memory)} of memory "
                               f"but no worker declares more than "
                               f"{memory_text(max(declared))} ({MEMORY}); start a larger "
                               f"worker or use fewer")
    names = {str(Material.parse(t).canonical()) for t in materials}
    if rebuild:
        for plan in todo:
            if plan.name in names:
                remove_checkpoints(directory, plan.name)
                build_info_path(plan.path).unlink(missing_ok=True)
                plan.path.unlink(missing_ok=True)
    token = _token(directory, verify)
    monitor = BuildMonitor(plans, len(declared), token, log, status)
    if not todo:
        return {}
    for plan in todo:
        log(f"{plan.name}: {plan.reason}; {plan.size * 2:,} positions, needs about "
            f"{memory_text(plan.memory)}, estimated {duration_text(plan.estimate)}")
    client.subscribe_topic(EVENTS, monitor.event)
    levels = _bottom_levels(plans)
    futures: dict[str, Any] = {}
    for plan in todo:
        deps = [futures[sub] for sub in plan.subs if sub in futures]
        futures[plan.name] = client.submit(
            build_task, plan.name, str(directory), threads, verify, checkpoint_size, token, *deps,
            key=task_key(plan.name, directory, verify), resources={MEMORY: plan.memory},
            priority=round(levels[plan.name] * 1000), pure=False)
    by_key = {future.key: name for name, future in futures.items()}
    results: dict[str, JsonObject] = {}
    try:
        for future in distributed.as_completed(list(futures.values())):
            name = by_key[future.key]
            try:
                result = future.result()
            except distributed.KilledWorker as error:
                raise BuildError(f"{name}: its task was lost with every worker that took it "
                                 f"({error}); finished metrics are kept as checkpoints: "
                                 "the same command resumes") from None
            except BuildError as error:
                raise BuildError(f"{name} (on the cluster): {error}") from None
            except Exception as error:              # reported with the table
                raise BuildError(f"{name} (on the cluster): {type(error).__name__}: "
                                 f"{error}") from None
            results[name] = result
            monitor.finished(name, result)
    finally:
        client.unsubscribe_topic(EVENTS)
        unfinished = [f for f in futures.values() if not f.done()]
        if unfinished:
            client.cancel(unfinished)
    return results


def worker_peaks(client: Any) -> dict[str, float]:
    """The peak resident memory (MiB) of each worker process so far."""
    peaks: dict[str, float] = client.run(_peak_mib)   # Dask's client is not typed
    return peaks


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# -- on the worker ----------------------------------------------------------------------------

def build_task(name: str, directory: str, threads: int, verify: bool,
               checkpoint_size: int | None, token: str, *done: Any) -> JsonObject:
    """A cluster task: build the table ``name`` (its sub-tables are in ``directory``; ``done``
    are their tasks' results, there only to order the graph).  A table already complete
    there (another client's task, or this task's earlier attempt that was lost after the
    rename) is checked and kept: state "present"."""
    reporter = _Reporter(name, token)
    previous = build_module.CHECKPOINT_SIZE
    if checkpoint_size is not None:
        build_module.CHECKPOINT_SIZE = checkpoint_size
    start, cpu = time.perf_counter(), time.process_time()
    try:
        summary = build([name], directory, threads=threads, log=reporter.log,
                        progress=reporter, verify=verify, sub_tables=False)
    finally:
        build_module.CHECKPOINT_SIZE = previous
    state = "built" if name in summary else "present"
    if state == "present":
        remove_checkpoints(Path(directory), name)       # a lost attempt's, after the rename
    # The fields a local build's summary has for each table (the command's report reads
    # them whichever way the table was built), then the cluster's own.
    result = {"material": name, "state": state, "path": str(table_path(directory, name)),
              "seconds": round(time.perf_counter() - start, 3),
              "cpu_seconds": round(time.process_time() - cpu, 3), "worker": reporter.worker,
              "host": socket.gethostname(), "pid": os.getpid(), "peak_mib": round(_peak_mib(), 1),
              "resumed": reporter.resumed}
    reporter.send("done", state=state, seconds=result["seconds"], peak_mib=result["peak_mib"])
    return result


class _Reporter:
    """The ``log`` and ``progress`` of a build inside a task, sent as events to the scheduler
    (pass events at most every half second per metric, the first of each metric at once)."""

    INTERVAL = 0.5

    def __init__(self, name: str, token: str) -> None:
        self.name, self.token = name, token
        self.resumed: list[str] = []
        self.start = time.perf_counter()
        self.estimate = 0.0
        self._last: dict[str, float] = {}
        try:
            from distributed import get_worker
            self._worker: Any = get_worker()
        except (ImportError, ValueError):
            self._worker = None                 # run outside a worker (a test): no events
        self.worker = _worker_name(self._worker)

    def send(self, kind: str, **fields: Any) -> None:
        if self._worker is None:
            return
        self._worker.log_event(EVENTS, {"token": self.token, "kind": kind,
                                        "material": self.name, "name": self.worker,
                                        "pid": os.getpid(), "host": socket.gethostname(),
                                        **fields})

    def start_table(self, name: str, estimate: float) -> None:
        self.start, self.estimate = time.perf_counter(), estimate
        self.send("start", estimate=estimate)

    def __call__(self, label: str, n: int, found: int) -> None:
        now = time.perf_counter()
        metric = label.rsplit(" ", 1)[-1]
        if now - self._last.get(metric, -1e9) < self.INTERVAL:
            return
        self._last[metric] = now
        self.send("pass", metric=metric, n=n, found=found, elapsed=round(now - self.start, 2))

    def log(self, line: str) -> None:
        if ": resumed from " in line:
            self.resumed.append(line.split(":", 1)[0].rsplit(" ", 1)[-1])
        self.send("log", line=line)


def _worker_name(worker: Any) -> str:
    if worker is None:
        return "local"
    name = str(worker.name)
    return name if name != worker.address else worker.address.split("://")[-1]


# -- on the client ----------------------------------------------------------------------------

class BuildMonitor:
    """The client's view of a cluster build, fed by the tasks' events (in the client's event
    loop thread) and the finished futures (in the caller's): tables done / total, the ones
    being built, the time left."""

    def __init__(self, plans: list[TablePlan], workers: int, token: str,
                 log: Callable[[str], None], status: Callable[[str], None] | None) -> None:
        self.plans = {p.name: p for p in plans if p.build}
        self.total = len(self.plans)
        self.workers = max(1, workers)
        self.token = token
        self._log, self._status = log, status
        self.done: set[str] = set()
        self.running: dict[str, JsonObject] = {}     # material -> worker, metric, pass, start time
        self.events: list[JsonObject] = []
        self._lock = threading.Lock()

    def event(self, event: tuple[float, object]) -> None:
        _, message = event
        if not isinstance(message, dict) or message.get("token") != self.token:
            return                          # another client's build (another directory)
        name = message.get("material", "")
        if name not in self.plans:
            return
        with self._lock:
            self.events.append(message)
            kind = message.get("kind")
            worker = message.get("name", "?")    # Dask sets "worker" to the address
            if kind == "start":
                self.running[name] = {"worker": worker, "metric": "", "n": 0,
                                      "since": time.perf_counter()}
                self._log(f"{name}: started on worker {worker} "
                          f"(estimated {self.plans[name].estimate:,.0f} s)")
            elif kind == "pass" and name in self.running:
                self.running[name].update(metric=message.get("metric", ""),
                                          n=message.get("n", 0))
            elif kind == "log":
                self._log(f"  [{worker}] {message.get('line', '')}")
            self._show()

    def finished(self, name: str, result: JsonObject) -> None:
        with self._lock:
            self.done.add(name)
            self.running.pop(name, None)
            how = "built" if result.get("state") == "built" else "found complete"
            resumed = (f", resumed after {', '.join(result['resumed'])}"
                       if result.get("resumed") else "")
            self._log(f"[{len(self.done)}/{self.total}] {name} {how} on worker "
                      f"{result.get('worker')} in {result.get('seconds', 0):,.1f} s{resumed}")
            self._show()

    def seconds_left(self) -> float:
        """By the estimates: the longer of the longest chain of tables not done and their
        total over the workers (a table being built counts what its estimate has left)."""
        now = time.perf_counter()
        left: dict[str, float] = {}
        for name, plan in self.plans.items():
            if name in self.done:
                continue
            spent = now - self.running[name]["since"] if name in self.running else 0.0
            left[name] = max(0.0, plan.estimate - spent)
        chain: dict[str, float] = {}
        for name in left:                   # plans are in build order: subs first
            chain[name] = left[name] + max((chain[s] for s in self.plans[name].subs
                                            if s in chain), default=0.0)
        return max(max(chain.values(), default=0.0), sum(left.values()) / self.workers)

    def line(self) -> str:
        now = time.perf_counter()
        current = ", ".join(
            f"{name} on {state['worker']} ({state['metric'] or 'start'}"
            f"{' pass ' + str(state['n']) if state['metric'] else ''}, "
            f"{now - state['since']:.0f} s of ~{self.plans[name].estimate:.0f} s)"
            for name, state in sorted(self.running.items()))
        return (f"[{len(self.done)}/{self.total} tables] "
                + (f"building {current}; " if current else "")
                + f"about {self.seconds_left():,.0f} s left")

    def _show(self) -> None:
        if self._status is not None:
            self._status(self.line())

