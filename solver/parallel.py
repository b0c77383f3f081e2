"""One df-pn search on several cores: helper processes share the searcher's table.

A :class:`~solver._dfpn.Search` made with ``shared=True`` keeps its transposition table in
memory that stays shared with processes forked later.  :func:`search_with_helpers` forks
``threads - 1`` helpers that run the same query as the calling process (worker 0), each
breaking ties between equally promising moves in its own order, so that they spread over
the tree; every proof, disproof and intermediate value any of them stores is read by all.
The first worker to settle the root ends the search: a helper's result is read back from
the shared table by the main worker, so the answer and its line always come from the
calling process.  The node limit counts the nodes of every worker; the nodes of the helpers
are added to the searcher's count when they have exited.

Processes rather than threads: the search holds the GIL (it calls Python for repetition
judgements and progress), and a forked copy of the process carries the whole state of the
query (position, history, hints, limits) without a protocol.  POSIX only (``os.fork``).
"""
from __future__ import annotations

import os
from collections.abc import Callable
from typing import TypeVar

from ._dfpn import MAX_THREADS, UNKNOWN, Search

Answer = TypeVar("Answer", bound=tuple)


def can_fork() -> bool:
    """Can this platform run helper processes (``os.fork``)?"""
    return hasattr(os, "fork")


def search_with_helpers(search: Search, threads: int,
                        query: Callable[[], Answer]) -> Answer:
    """``query()`` (a call that runs ``search`` and returns (status, ...)) with ``threads - 1``
    helper processes running the same query on the shared table.  One thread, a table that
    is not shared or a platform without ``fork``: just ``query()``."""
    if threads <= 1 or not search.shared or not can_fork():
        return query()
    if threads > MAX_THREADS:
        raise ValueError(f"threads must be at most {MAX_THREADS}, not {threads}")
    search.begin_parallel()
    helpers: list[int] = []
    try:
        for worker in range(1, threads):
            pid = os.fork()
            if pid == 0:                              # the helper
                _run_helper(search, worker, query)    # never returns
            helpers.append(pid)
        return query()
    finally:
        search.stop_helpers()
        for pid in helpers:
            os.waitpid(pid, 0)
        search.end_parallel()


def _run_helper(search: Search, worker: int, query: Callable[[], Answer]) -> None:
    """The body of a forked helper: search, publish, leave without running the parent's
    clean-up (its files, its threads and its exit handlers are the parent's)."""
    code = 1
    try:
        search.become_helper(worker)
        answer = query()
        search.finish_helper(answer[0] != UNKNOWN)
        code = 0
    except BaseException:
        # A helper's failure (or Ctrl-C) only costs the main process its help.
        search.finish_helper(False)
    finally:
        os._exit(code)
