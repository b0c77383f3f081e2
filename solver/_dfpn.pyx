# cython: language_level=3
"""Depth-first proof-number search (df-pn, Nagai 2002) for "the side to move mates".

OR nodes have the attacker to move, AND nodes the defender.  ``remaining`` counts the
attacker moves still allowed; a node's value depends on it, so the table stores it:
  * a proof records the length of the proof found and answers any query with at least that
    many moves left;
  * a disproof answers queries with at most as many moves left as it was computed with;
  * other (pn, dn) pairs are reused only at the same ``remaining``.
Repetition: a move that repeats a position of the current line (since the last capture) is
a failure for the attacker, except that a defender who checked on every move of the cycle
while the attacker did not is playing one-sided perpetual check (单方面长将), which the rules
forbid (棋例 26.1): the defender must deviate, so that repetition counts against him.  Such
results depend on the line that led here (the graph-history interaction), so results built
on one are marked ``tainted`` and are reused from the table only under the same history.
Stalemate (困毙) counts as mate.  Running out of nodes, time or table gives "unknown".
"""
from libc.stdlib cimport calloc, free
from libc.stdint cimport uint64_t, uint32_t, int32_t, uint8_t
from libc.time cimport time as c_time
from xiangqi._core cimport (BaseBoard, BoardState, bs_init, bs_free, bs_copy, bs_make, bs_unmake,
                            bs_legal_moves, bs_king_attacked, bs_repetitions, sq90_of,
                            bs_may_give_check, bs_gives_check,
                            xq_move_from, xq_move_to, EMPTY, MAX_MOVES)

import time as _time

DEF INF = 100_000_000
DEF TRACKED_PLIES = 4096
DEF INF_MINUS = 99_999_999

PROVEN = "proven"
DISPROVEN = "disproven"
UNKNOWN = "unknown"


# Intermediate (pn, dn) pairs are stored under the key mixed with the number of attacker
# moves left, so one position met with different budgets keeps one entry per budget; final
# proofs and disproofs use the plain key and answer every budget they cover.
DEF MAX_REMAINING = 1024
cdef uint64_t REMAINING_KEY[MAX_REMAINING]

cdef void _init_remaining_keys() noexcept:
    cdef uint64_t z = 0x2545F4914F6CDD1DULL
    cdef int i
    for i in range(MAX_REMAINING):
        z += 0x9E3779B97F4A7C15ULL
        REMAINING_KEY[i] = (z ^ (z >> 31)) * 0xBF58476D1CE4E5B9ULL | 1

_init_remaining_keys()

# Threshold growth of 1 + epsilon for the second-best child (Pawlewicz and Lew) avoids the
# endless re-expansion that the plain "second + 1" rule suffers in long problems.
DEF EPSILON_NUM = 1
DEF EPSILON_DEN = 4


cdef inline uint64_t budget_key(uint64_t key, int remaining) noexcept nogil:
    return key ^ REMAINING_KEY[remaining & (MAX_REMAINING - 1)]


cdef inline uint32_t grow(uint32_t second) noexcept nogil:
    cdef uint64_t v
    if second >= INF:
        return INF
    v = <uint64_t> second + 1 + (<uint64_t> second * EPSILON_NUM) // EPSILON_DEN
    return INF_MINUS if v >= INF_MINUS else <uint32_t> v


cdef inline uint32_t cap_add(uint32_t a, uint32_t b) noexcept nogil:
    """a + b, where INF (solved the other way) absorbs and finite sums stay below INF."""
    cdef uint64_t s
    if a >= INF or b >= INF:
        return INF
    s = <uint64_t> a + b
    return INF_MINUS if s >= INF_MINUS else <uint32_t> s


cdef class Search:
    """A df-pn searcher with its own transposition table (``table_bits``: log2 entries)."""

    def __cinit__(self, int table_bits=20):
        if bs_init(&self.state) != 0:
            raise MemoryError()
        self.table = <Entry*> calloc((<uint64_t> 1) << table_bits, sizeof(Entry))
        if self.table == NULL:
            raise MemoryError(f"cannot allocate a table of 2^{table_bits} entries")
        self.table_mask = ((<uint64_t> 1) << table_bits) - 1
        self.checks_only = 0
        self.nodes = 0
        self.node_limit = 0
        self.deadline = 0
        self.stopped = 0
        self.tablebase_probe = None
        self.tablebase_max_pieces = 0
        self.progress = None
        self.progress_every = 100_000
        self.stored = 0
        self.perpetual_check_rule = 1
        self.repetition_judge = None
        self.judge_calls = 0

    def __dealloc__(self):
        bs_free(&self.state)
        free(self.table)

    @property
    def table_entries(self):
        return self.table_mask + 1

    @property
    def table_used(self):
        """Entries written so far (an upper bound on the fill)."""
        return min(self.stored, self.table_mask + 1)

    def clear_table(self):
        cdef uint64_t i
        for i in range(self.table_mask + 1):
            self.table[i].key = 0
            self.table[i].work = 0
        self.stored = 0

    def cancel(self):
        self.stopped = 1

    # -- table ---------------------------------------------------------------------------------

    cdef uint64_t history_signature(self) noexcept:
        """A hash of the positions since the last capture: everything a repetition can
        depend on.  A tainted disproof is reused only under the same history."""
        cdef uint64_t h = self.state.key
        cdef int i
        for i in range(self.state.ply - 1, -1, -1):
            if self.state.undo_stack[i].captured != EMPTY:
                break
            h = (h ^ self.state.undo_stack[i].key) * 0x100000001B3ULL + 0x9E3779B97F4A7C15ULL
        return h

    cdef Entry* probe(self, uint64_t key) noexcept:
        cdef Entry* e = &self.table[key & self.table_mask]
        if e.key == key:
            return e
        e = &self.table[(key >> 32 ^ key) & self.table_mask]
        if e.key == key:
            return e
        return NULL

    cdef void lookup(self, uint64_t key, int remaining, uint32_t* pn, uint32_t* dn,
                     bint* tainted) noexcept:
        cdef Entry* e = self.probe(key)
        tainted[0] = False
        if e != NULL:
            if e.pn == 0 and e.length <= remaining and (
                    not e.tainted or e.history == self.history_signature()):
                pn[0] = 0; dn[0] = INF
                tainted[0] = e.tainted
                return
            if e.dn == 0 and e.remaining >= remaining and (
                    not e.tainted or e.history == self.history_signature()):
                pn[0] = INF; dn[0] = 0
                tainted[0] = e.tainted
                return
        e = self.probe(budget_key(key, remaining))
        if e != NULL and e.pn != 0 and e.dn != 0:
            pn[0] = e.pn; dn[0] = e.dn
            return
        pn[0] = 1; dn[0] = 1

    cdef void store(self, uint64_t key, int remaining, uint32_t pn, uint32_t dn, int length,
                    bint tainted, uint32_t work) noexcept:
        # Two slots per key; a slot is kept if it holds more work, proofs win over the rest.
        cdef Entry* a
        cdef Entry* b
        cdef Entry* e
        if pn != 0 and dn != 0:
            key = budget_key(key, remaining)
        a = &self.table[key & self.table_mask]
        b = &self.table[(key >> 32 ^ key) & self.table_mask]
        if a.key == key:
            e = a
            if e.pn == 0 and pn != 0 and e.length <= remaining:
                return                      # never forget a proof that still answers
        elif b.key == key:
            e = b
            if e.pn == 0 and pn != 0 and e.length <= remaining:
                return
        elif a.key == 0 or (a.work <= b.work and a.pn != 0):
            e = a
        elif b.key == 0 or b.pn != 0:
            e = b
        else:
            e = a if a.work <= b.work else b
        if e.key != key:
            self.stored += 1
        e.key = key
        e.pn = pn
        e.dn = dn
        e.work = work
        e.remaining = remaining
        e.length = length
        e.tainted = tainted
        e.history = self.history_signature() if tainted else 0

    # -- the perpetual-check rule --------------------------------------------------------------

    cdef void note_check(self) noexcept:
        """Record whether the move that led here gave check (called with the move made)."""
        if 0 < self.state.ply <= TRACKED_PLIES:
            self.check_after[self.state.ply - 1] = bs_king_attacked(&self.state, self.state.turn)

    cdef int cycle_start(self) noexcept:
        """The ply of the current position's last occurrence since the last capture, or -1."""
        cdef int i
        for i in range(self.state.ply - 1, -1, -1):
            if self.state.undo_stack[i].captured != EMPTY:
                return -1
            if self.state.undo_stack[i].key == self.state.key:
                return i
        return -1

    cdef bint defender_must_deviate(self) noexcept:
        """The position repeats; True if in the cycle since its last occurrence the defender
        checked on every move and the attacker did not (one-sided perpetual check)."""
        cdef int first = self.cycle_start(), i, mover
        cdef bint defender_always = True, attacker_always = True, gave_check
        if first < 0:
            return False
        for i in range(first, self.state.ply):
            # The side to move at ply i made move i; it is the current side when (ply - i)
            # is even.
            mover = self.state.turn if (self.state.ply - i) % 2 == 0 else self.state.turn ^ 1
            gave_check = i < TRACKED_PLIES and self.check_after[i]
            if mover == self.attacker:
                attacker_always = attacker_always and gave_check
            else:
                defender_always = defender_always and gave_check
        return defender_always and not attacker_always

    cdef int judge_repetition(self):
        """The loser of the repeated cycle under the full 棋例 (the Python judge), or -1.  The
        judge is asked only when every defender move of the cycle might be an attack: a check,
        or a move after which the defender could capture or check (a superset of 将/杀/捉)."""
        cdef int first = self.cycle_start(), i, mover, n, j
        cdef int moves[MAX_MOVES]
        cdef BoardState walk
        cdef bint attack
        cdef int defender = self.attacker ^ 1
        if first < 0:
            return -1
        if bs_init(&walk) != 0 or bs_copy(&walk, &self.state) != 0:
            bs_free(&walk)
            return -1
        for i in range(self.state.ply - first):
            bs_unmake(&walk)
        codes = bytes([walk.squares[_sq256(i)] for i in range(90)])
        turn = walk.turn
        played = []
        try:
            for i in range(first, self.state.ply):
                mover = walk.turn
                bs_make(&walk, self.state.undo_stack[i].move)
                played.append((sq90_of(xq_move_from(self.state.undo_stack[i].move)),
                               sq90_of(xq_move_to(self.state.undo_stack[i].move))))
                if mover != defender or bs_king_attacked(&walk, walk.turn):
                    continue
                # Could the defender, moving again, capture or check?
                attack = False
                walk.turn = defender
                n = bs_legal_moves(&walk, moves)
                for j in range(n):
                    if walk.squares[xq_move_to(moves[j])] != EMPTY or (
                            bs_may_give_check(&walk, moves[j]) and
                            bs_gives_check(&walk, moves[j])):
                        attack = True
                        break
                walk.turn = defender ^ 1
                if not attack:
                    return -1           # an idle defender move: he is not forbidden
        finally:
            bs_free(&walk)
        self.judge_calls += 1
        return self.repetition_judge(codes, turn, played)

    # -- search --------------------------------------------------------------------------------

    cdef int generate(self, bint attacker_to_move, int* moves) noexcept:
        """Moves of the side to move; checks only for the attacker in checks mode."""
        cdef int n = bs_legal_moves(&self.state, moves)
        cdef int i, kept = 0
        if not attacker_to_move or not self.checks_only:
            return n
        for i in range(n):
            if not bs_may_give_check(&self.state, moves[i]):
                continue
            bs_make(&self.state, moves[i])
            if bs_king_attacked(&self.state, self.state.turn):
                moves[kept] = moves[i]
                kept += 1
            bs_unmake(&self.state)
        return kept

    cdef int piece_total(self) noexcept:
        return self.state.piece_count[0] + self.state.piece_count[1]

    cdef int tablebase_code(self):
        """The tablebase code of the current position, or -1 (no table or no prober)."""
        cdef int sq
        if self.tablebase_probe is None or self.piece_total() > self.tablebase_max_pieces:
            return -1
        codes = bytes([self.state.squares[_sq256(sq)] for sq in range(90)])
        return self.tablebase_probe(codes, self.state.turn)

    cdef bint over_limits(self):
        if self.stopped:
            return True
        if self.node_limit and self.nodes >= self.node_limit:
            self.stopped = 1
            return True
        if (self.nodes & 4095) == 0:
            if self.deadline and _time.time() >= self.deadline:
                self.stopped = 1
                return True
            if self.progress is not None and self.nodes % self.progress_every < 4096:
                if self.progress(self.nodes, self.table_used):
                    self.stopped = 1
                    return True
        return False

    cdef void evaluate_new(self, bint or_node, int remaining, uint32_t* pn, uint32_t* dn,
                           int* length, bint* tainted):
        """First look at a node just reached (the move already made): terminal values,
        repetition, tablebase, table, or the initial (1, 1)."""
        cdef int moves[MAX_MOVES]
        cdef int n, code, plies
        tainted[0] = False
        length[0] = 0
        self.note_check()
        if bs_repetitions(&self.state) > 0:
            tainted[0] = True
            if self.perpetual_check_rule and self.defender_must_deviate():
                pn[0] = 0; dn[0] = INF
            elif self.repetition_judge is not None and \
                    self.judge_repetition() == self.attacker ^ 1:
                pn[0] = 0; dn[0] = INF      # the defender's perpetual attack is forbidden
            else:
                pn[0] = INF; dn[0] = 0
            return
        n = 1
        if not or_node:
            n = bs_legal_moves(&self.state, moves)
            if n == 0:                  # mated or stalemated: both lose in Xiangqi
                pn[0] = 0; dn[0] = INF
                return
        elif remaining <= 0:
            pn[0] = INF; dn[0] = 0
            return
        code = self.tablebase_code()
        if code >= 0 and code != 0xFFFF:
            if code == 0:
                pn[0] = INF; dn[0] = 0
                return
            plies = code - 1
            if (plies % 2 == 1) == or_node:     # the attacker wins
                if not self.checks_only and (plies + 1) // 2 <= remaining:
                    pn[0] = 0; dn[0] = INF; length[0] = (plies + 1) // 2
                    return
                if self.checks_only:
                    pass                # a table mate may need quiet moves: search on
                else:
                    pn[0] = INF; dn[0] = 0
                    return
            else:
                pn[0] = INF; dn[0] = 0
                return
        self.lookup(self.state.key, remaining, pn, dn, tainted)
        if pn[0] == 0:
            length[0] = self.probe(self.state.key).length
        elif pn[0] == 1 and dn[0] == 1 and not or_node:
            pn[0] = n                   # a fresh defender node: one proof per reply

    cdef void mid(self, bint or_node, int remaining, uint32_t thpn, uint32_t thdn,
                  uint32_t* out_pn, uint32_t* out_dn, int* out_length, bint* out_tainted):
        """Expand the current node until its pn >= thpn or dn >= thdn."""
        cdef int moves[MAX_MOVES]
        cdef uint32_t cpn[MAX_MOVES]
        cdef uint32_t cdn[MAX_MOVES]
        cdef int clen[MAX_MOVES]
        cdef bint ctaint[MAX_MOVES]
        cdef int n, i, best, child_remaining, length
        cdef uint32_t pn, dn, best_value, second, child_thpn, child_thdn, value
        cdef uint32_t sum_value, other
        cdef int unsolved
        cdef long long start_nodes = self.nodes
        cdef bint tainted
        self.nodes += 1
        self.note_check()
        if or_node and remaining <= 0:
            out_pn[0] = INF; out_dn[0] = 0; out_length[0] = 0; out_tainted[0] = False
            return
        n = self.generate(or_node, moves)
        if n == 0:
            # OR: the attacker has no (checking) move; AND: mate was caught by the parent.
            out_pn[0] = INF if or_node else 0
            out_dn[0] = 0 if or_node else INF
            out_length[0] = 0
            out_tainted[0] = False
            self.store(self.state.key, remaining, out_pn[0], out_dn[0], 0, False, 1)
            return
        child_remaining = remaining - 1 if or_node else remaining
        for i in range(n):
            bs_make(&self.state, moves[i])
            self.evaluate_new(not or_node, child_remaining, &cpn[i], &cdn[i], &clen[i], &ctaint[i])
            bs_unmake(&self.state)
        while True:
            # Combine: OR takes the min pn, AND the min dn.  The other number uses the weak
            # proof number (Ueda et al.): the largest child value plus one per other unsolved
            # child, which does not blow up on the many transpositions of long problems the
            # way a plain sum does.
            best = 0
            best_value = INF + 1
            second = INF + 1
            sum_value = 0
            unsolved = 0
            for i in range(n):
                value = cpn[i] if or_node else cdn[i]
                other = cdn[i] if or_node else cpn[i]
                if other >= INF:
                    sum_value = INF
                elif other > 0:
                    if sum_value < INF and other > sum_value:
                        sum_value = other
                    unsolved += 1
                if value < best_value:
                    second = best_value
                    best_value = value
                    best = i
                elif value < second:
                    second = value
            if sum_value < INF and unsolved > 1:
                sum_value = cap_add(sum_value, unsolved - 1)
            if or_node:
                pn = best_value if best_value < INF else INF
                dn = sum_value
            else:
                dn = best_value if best_value < INF else INF
                pn = sum_value
            if pn >= thpn or dn >= thdn or pn == 0 or dn == 0:
                break
            if self.over_limits():
                break
            if second > INF:
                second = INF
            if or_node:
                child_thpn = thpn if thpn < grow(second) else grow(second)
                child_thdn = thdn - dn + cdn[best] if thdn < INF else INF
                if child_thdn > INF:
                    child_thdn = INF
            else:
                child_thdn = thdn if thdn < grow(second) else grow(second)
                child_thpn = thpn - pn + cpn[best] if thpn < INF else INF
                if child_thpn > INF:
                    child_thpn = INF
            bs_make(&self.state, moves[best])
            self.mid(not or_node, child_remaining, child_thpn, child_thdn,
                     &cpn[best], &cdn[best], &clen[best], &ctaint[best])
            bs_unmake(&self.state)
        # Result, proof length and taint.
        length = 0
        tainted = False
        if pn == 0:
            if or_node:
                # Prefer a proof that does not rest on the line's history.
                length = INF
                for i in range(n):
                    if cpn[i] == 0 and not ctaint[i] and clen[i] + 1 < length:
                        length = clen[i] + 1
                if length == INF:
                    tainted = True
                    for i in range(n):
                        if cpn[i] == 0 and clen[i] + 1 < length:
                            length = clen[i] + 1
            else:
                for i in range(n):
                    if clen[i] > length:
                        length = clen[i]
                    if ctaint[i]:
                        tainted = True
        elif dn == 0:
            if or_node:
                for i in range(n):
                    if ctaint[i]:
                        tainted = True
            else:
                tainted = True
                for i in range(n):
                    if cdn[i] == 0 and not ctaint[i]:
                        tainted = False
        out_pn[0] = pn
        out_dn[0] = dn
        out_length[0] = length
        out_tainted[0] = tainted
        self.store(self.state.key, remaining, pn, dn, length, tainted,
                   <uint32_t> min(self.nodes - start_nodes, 0xFFFFFFFF))

    # -- Python entry points ---------------------------------------------------------------------

    def set_position(self, BaseBoard board):
        """Search from ``board``'s position; its side to move is the attacker.  The board's
        move history is kept for repetition checks."""
        cdef BoardState walk
        cdef int i
        if bs_copy(&self.state, &board.state) != 0:
            raise MemoryError()
        self.attacker = self.state.turn
        # Which moves of the game so far gave check, for the perpetual-check rule.
        if bs_init(&walk) != 0 or bs_copy(&walk, &self.state) != 0:
            bs_free(&walk)
            raise MemoryError()
        for i in range(walk.ply - 1, -1, -1):
            if i < TRACKED_PLIES:
                self.check_after[i] = bs_king_attacked(&walk, walk.turn)
            bs_unmake(&walk)
        bs_free(&walk)

    def prove(self, int remaining):
        """Run df-pn from the set position (attacker to move) with ``remaining`` attacker
        moves.  Returns (status, proof length in attacker moves or None)."""
        return self._run(True, remaining)

    def value(self, BaseBoard board, int remaining, bint or_node=True):
        """(status, length) of ``board`` from the table or a fresh search: used to walk and
        check proof trees.  ``board`` shares the searcher's history semantics."""
        self.set_position(board)
        self.attacker = self.state.turn if or_node else self.state.turn ^ 1
        return self._run(or_node, remaining)

    def _run(self, bint or_node, int remaining):
        """Iterate MID at the root until it is solved, a limit stops it, or it stalls."""
        cdef uint32_t pn = 1, dn = 1
        cdef int length = 0
        cdef bint tainted
        cdef long long before
        self.stopped = 0
        if or_node and remaining <= 0:
            return DISPROVEN, None
        while pn != 0 and dn != 0 and not self.stopped:
            before = self.nodes
            self.mid(or_node, remaining, INF, INF, &pn, &dn, &length, &tainted)
            if self.nodes == before:
                break
        if pn == 0:
            return PROVEN, length
        if dn == 0:
            return DISPROVEN, None
        return UNKNOWN, None


cdef inline int _sq256(int sq90) noexcept:
    return (sq90 // 9 + 3) * 16 + sq90 % 9 + 3
