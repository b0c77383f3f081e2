"""A search's budget while it runs: when it must stop, and how what is left is shared out.

:class:`~solver.search.Limits` is what the user asked for (60 seconds, 5,000,000 nodes, the
table size, the orders ...); a :class:`Budget` is where the searcher must stop: an absolute
deadline and a node mark on the searcher's own count.  The df-pn searcher (``solver._dfpn.
Search``) reads its ``deadline`` and ``node_limit`` at every node; they are set only here
(:meth:`Budget.apply`, :func:`within`), so that the ways a budget is divided are written
once: a :meth:`~Budget.slice` of what is left for one step of a schedule, a
:meth:`~Budget.reserve` kept back for the main line, and the :meth:`~Budget.grace` that
finishes a proven mate's line past the budget.

>>> budget = Budget(deadline=0.0, node_limit=1_000_000)
>>> budget.slice(0.25, nodes_now=200_000)
Budget(deadline=0.0, node_limit=400000)
>>> budget.reserve(0.15, nodes_now=200_000)
Budget(deadline=0.0, node_limit=880000)
>>> budget.spent(nodes_now=1_000_000), budget.nodes_left(nodes_now=400_000)
(True, 600000)
"""
from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol

# A proven mate's line finished after the budget ran out (following the proof in the table
# costs little; re-proving evicted parts costs about what proving them did) gets at least
# this much time and these many nodes.
GRACE_SECONDS = 5.0
GRACE_NODES = 2_000_000


class Limited(Protocol):
    """What a budget is applied to: the df-pn searcher (``solver._dfpn.Search``)."""
    nodes: int
    deadline: float
    node_limit: int


@dataclass(frozen=True)
class Budget:
    """Where a search stops: at ``deadline`` (seconds since the epoch, ``time.time()``) and
    when the searcher's node count reaches ``node_limit``; 0 for either: no such limit."""
    deadline: float = 0.0
    node_limit: int = 0

    @classmethod
    def fresh(cls, nodes_now: int, seconds: float = 0.0, nodes: int = 0) -> Budget:
        """``seconds`` and ``nodes`` from now (0: no limit of that kind)."""
        return cls(time.time() + seconds if seconds > 0 else 0.0,
                   nodes_now + nodes if nodes > 0 else 0)

    @classmethod
    def grace(cls, nodes_now: int, seconds: float = 0.0, nodes: int = 0) -> Budget:
        """The budget that finishes a proven mate's line past the one that ran out: at least
        :data:`GRACE_SECONDS` and :data:`GRACE_NODES` (more if ``seconds``/``nodes`` say so)."""
        return cls(time.time() + max(GRACE_SECONDS, seconds),
                   nodes_now + max(GRACE_NODES, nodes))

    @classmethod
    def of(cls, search: Limited) -> Budget:
        """The budget ``search`` runs under now."""
        return cls(search.deadline, search.node_limit)

    def apply(self, search: Limited) -> None:
        """Make ``search`` stop where this budget says."""
        search.deadline, search.node_limit = self.deadline, self.node_limit

    def slice(self, share: float, nodes_now: int) -> Budget:
        """``share`` of the time and nodes left, from now: one step of a schedule."""
        deadline, node_limit = self.deadline, self.node_limit
        if deadline:
            now = time.time()
            deadline = now + share * max(0.0, deadline - now)
        if node_limit:
            node_limit = nodes_now + int(share * max(0, node_limit - nodes_now))
        return Budget(deadline, node_limit)

    def reserve(self, share: float, nodes_now: int) -> Budget:
        """This budget less ``share`` of what is left, kept back (for the main line)."""
        deadline, node_limit = self.deadline, self.node_limit
        if deadline:
            deadline -= share * (deadline - time.time())
        if node_limit:
            node_limit -= int(share * (node_limit - nodes_now))
        return Budget(deadline, node_limit)

    def spent(self, nodes_now: int) -> bool:
        """Has the deadline passed or the node mark been reached?"""
        return bool(self.deadline and time.time() >= self.deadline) or bool(
            self.node_limit and nodes_now >= self.node_limit)

    def seconds_left(self) -> float:
        """Seconds to the deadline (0 when past it; 0 also when there is none: ask
        :attr:`deadline` first)."""
        return max(0.0, self.deadline - time.time()) if self.deadline else 0.0

    def nodes_left(self, nodes_now: int) -> int:
        """Nodes to the node mark (0 when reached, or when there is none)."""
        return max(0, self.node_limit - nodes_now) if self.node_limit else 0

    def share_of_left(self, share: float, nodes_now: int, min_seconds: float,
                      min_nodes: int) -> tuple[float, int]:
        """(seconds, nodes) for a part that may use ``share`` of what is left, at least
        ``min_seconds`` and ``min_nodes``; 0 where this budget has no limit of that kind."""
        seconds = max(min_seconds, share * self.seconds_left()) if self.deadline else 0.0
        nodes = max(min_nodes, int(share * self.nodes_left(nodes_now))) if self.node_limit else 0
        return seconds, nodes

    def divided(self, parts: int, nodes_now: int, min_seconds: float,
                min_nodes: int) -> tuple[float, int]:
        """(seconds, nodes) for one of ``parts`` equal parts of what is left, at least
        ``min_seconds`` and ``min_nodes``; 0 where this budget has no limit of that kind."""
        seconds = max(min_seconds, self.seconds_left() / parts) if self.deadline else 0.0
        nodes = max(min_nodes, self.nodes_left(nodes_now) // parts) if self.node_limit else 0
        return seconds, nodes


@contextmanager
def within(search: Limited, budget: Budget) -> Iterator[Budget]:
    """Run ``search`` under ``budget``; the budget it had is back afterwards."""
    saved = Budget.of(search)
    budget.apply(search)
    try:
        yield budget
    finally:
        saved.apply(search)
