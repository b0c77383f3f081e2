"""Verifying a collection on a Dask cluster: ``xqstudio catalogue verify --cluster ADDRESS``
(or ``--workers N``) and ``python benchmarks/solve_collection.py --cluster ADDRESS``.

A composition depends on nothing, so the collection is one task per composition
(:func:`puzzles.verification.verify_composition` with its budget), run by whichever worker is
free; the client collects the verdicts as they come and the caller writes them all at the
end, in one transaction (:func:`puzzles.catalogue.write_verdicts`): a verification stopped
half-way writes nothing.  Task keys are deterministic (``catalogue-verify-<token>-<id>``, the
token a hash of the position, its stipulation and the budget), so two clients of one
scheduler verifying the same composition with the same budget share one search.  The
connection (a scheduler's address, or a LocalCluster here) is :func:`tablebases.cluster.connect`;
Dask is the optional extra ``xqstudio[cluster]``, imported only here.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import Any

from tablebases.cluster import ClusterError, connect, dashboard_note, require_distributed

from .verification import VerifySettings, verify_composition

__all__ = ["ClusterError", "connect", "dashboard_note", "run_tasks", "verify_on_cluster",
           "verification_key"]


def run_tasks(client: Any, function: Callable, arguments: Sequence[tuple], keys: Sequence[str],
              on_result: Callable[[int, Any], None] | None = None) -> list:
    """``function(*arguments[i])`` for every i as independent tasks of keys ``keys``; the
    results in the order of ``arguments``, ``on_result(i, result)`` called as each arrives.
    The first task that fails raises its error here, and the tasks not finished are
    cancelled (for this client: another client sharing a key keeps it)."""
    distributed = require_distributed()
    futures = [client.submit(function, *args, key=key, pure=False)
               for args, key in zip(arguments, keys)]
    where = {future.key: i for i, future in enumerate(futures)}
    results: list = [None] * len(futures)
    try:
        for future in distributed.as_completed(futures):
            i = where[future.key]
            results[i] = future.result()
            if on_result is not None:
                on_result(i, results[i])
    finally:
        unfinished = [f for f in futures if not f.done()]
        if unfinished:
            client.cancel(unfinished)
    return results


def verification_key(composition: dict, budget: VerifySettings) -> str:
    """The task key of one composition's verification: the same for the same position,
    stipulation and budget (Dask's dashboard groups them as ``catalogue-verify``)."""
    text = json.dumps([composition["fen"], composition["stipulation"], asdict(budget)],
                      sort_keys=True)
    return f"catalogue-verify-0{hashlib.sha1(text.encode()).hexdigest()[:11]}-{composition['id']}"


def verify_on_cluster(client: Any, compositions: Sequence[dict], budget: VerifySettings,
                      on_result: Callable[[int, dict], None] | None = None) -> list[dict]:
    """The verdict of every composition (rows of
    :func:`puzzles.catalogue.compositions_to_verify`), one task each, in their order."""
    return run_tasks(client, verify_composition,
                     [(c["fen"], c["stipulation"], budget) for c in compositions],
                     [verification_key(c, budget) for c in compositions], on_result)
