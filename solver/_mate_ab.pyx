# cython: language_level=3
"""A fast mate finder: depth-first alpha-beta over mate scores, the way chess engines look for
mates, to propose a line that df-pn (``solver._dfpn``) then proves.

It proves nothing by itself that the solver reports.  Its search is a boolean alpha-beta
("the side to move mates within ``depth`` attacker moves"), iteratively deepened, with the
pruning and ordering alpha-beta engines use rather than df-pn's proof numbers:

* attacker nodes admit moves by Thomsen's λ orders, as df-pn does: at order 1 the checks,
  at order n > 1 also the captures and the quiet moves after which, were the defender to
  pass, the attacker would mate at order n - 1 within the moves left (the null-move threat
  test); within ``tempo_frontier`` moves of the bound, and when the attacker is in check,
  every move.  A quiet move that mates by stalemate (困毙) in one is not looked for;
* defender nodes try every reply, so a mate found is forced (repetitions count as the
  attacker failing: perpetual check by the defender is not forbidden here, which can only
  hide mates, never invent one);
* ordering: the table's move, checks, captures by the victim's value, two killers a ply,
  then the history of cutoffs; a small always-replace transposition table keeps proofs
  (their move) and failures (per order).

The inner search holds no Python object and runs without the GIL.
"""
from libc.stdlib cimport calloc, free
from libc.string cimport memset
from libc.stdint cimport uint64_t, uint16_t, int8_t
from posix.time cimport clock_gettime, timespec, CLOCK_REALTIME
from xiangqi._core cimport (BaseBoard, BoardState, bs_init, bs_free, bs_copy, bs_make,
                            bs_unmake, bs_make_null, bs_unmake_null, bs_legal_moves,
                            bs_has_legal_move, bs_king_attacked, bs_gives_check,
                            bs_may_give_check, bs_repetitions, sq90_of, sq256_of,
                            xq_move_from, xq_move_to, xq_make_move, EMPTY, MAX_MOVES)

# Failures are stored under the position's key mixed with the order's, so that a failure at
# order 2 never answers an order-3 query (more moves are admitted there).
# Likewise under the threat cap's (a failure with short threats says nothing of long ones).
cdef uint64_t ORDER_SALT[16]
cdef uint64_t THREAT_SALT[16]
cdef uint64_t _z = 0x9E3779B97F4A7C15ULL
for _i in range(32):
    _z = (_z ^ (_z >> 30)) * 0xBF58476D1CE4E5B9ULL + 0x632BE59BD9B4E019ULL
    if _i < 16:
        ORDER_SALT[_i] = _z | 1
    else:
        THREAT_SALT[_i - 16] = _z | 1

# The threat caps of find()'s stages (see MateFinder.find): a quiet move threatening mate in
# one, in two, then in any number of moves.  On the 41-problem sample at 1 M nodes each, one
# stage of each found 5, 4 and 4 mates, not the same ones, the three stages 7: short threats
# fail fast where a problem has none, and then the budget goes to the next.  At 2 M nodes
# (1, 2, any), (1, 2, 3, any) and (1, any) all found the same 8.
THREAT_STAGES = (1, 2, AB_NO_PROOF)

# The highest λ order a search may use (orders nest: each threat test runs one order lower).
MAX_ORDER = 15
# The longest mate a search may be asked for (a table entry keeps its length in 7 bits).
MAX_MATE_MOVES = AB_NO_PROOF - 1
DEF DEFAULT_TABLE_BITS = 20      # 2^20 entries of 16 bytes: 16 MiB
DEF TIME_CHECK_MASK = 1023       # the clock is read every 1024 nodes
DEF HISTORY_CAP = 1 << 24        # history scores are halved above this (they stay below
                                 # the killers' band of move-ordering scores)

# Move-ordering bands: each class of move sorts above every move of the classes below it.
DEF SCORE_TABLE = 1 << 30
DEF SCORE_CHECK = 1 << 29
DEF SCORE_CAPTURE = 1 << 28
DEF SCORE_KILLER = 1 << 27

# Victim values for ordering captures (by piece kind: 1 king .. 7 pawn).
cdef int VICTIM[8]
VICTIM[:] = [0, 0, 2, 2, 4, 9, 5, 1]


cdef inline double now_seconds() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_REALTIME, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef inline AbEntry* slot(Finder* f, uint64_t key) noexcept nogil:
    return &f.table[(key ^ (key >> 29)) & f.mask]


cdef inline bint over_limits(Finder* f) noexcept nogil:
    if f.stopped:
        return True
    if f.cancelled:
        f.stopped = 1
    if f.node_limit and f.nodes >= f.node_limit:
        f.stopped = 1
    elif f.deadline and (f.nodes & TIME_CHECK_MASK) == 0 and now_seconds() >= f.deadline:
        f.stopped = 1
    return f.stopped


cdef inline void store_proof(Finder* f, uint64_t key, int depth, int move) noexcept nogil:
    cdef AbEntry* e = slot(f, key)
    if e.key == key and e.proven <= depth:
        return                  # a proof within fewer moves answers more
    e.key = key
    e.proven = depth
    e.failed = -1
    e.best = move


cdef inline void store_failure(Finder* f, uint64_t key, int depth, int move) noexcept nogil:
    cdef AbEntry* e = slot(f, key)
    if e.key == key and e.failed >= depth:
        return
    e.key = key
    e.proven = AB_NO_PROOF
    e.failed = depth
    e.best = move


cdef inline void reward(Finder* f, int move, int depth, int ply) noexcept nogil:
    """A move that settled its node: a killer at its ply, and history for its side."""
    cdef int* h = &f.history[f.state.turn * AB_HISTORY_SIZE + (move & 0xFFFF)]
    cdef int i
    h[0] += depth * depth + 1
    if h[0] > HISTORY_CAP:
        for i in range(2 * AB_HISTORY_SIZE):
            f.history[i] >>= 1
    if ply < AB_MAX_PLY and f.killers[ply][0] != move:
        f.killers[ply][1] = f.killers[ply][0]
        f.killers[ply][0] = <uint16_t> move


cdef struct MoveList:
    # A node's legal moves with their ordering scores and whether each gives check.
    int count
    int moves[MAX_MOVES]
    int scores[MAX_MOVES]
    bint checks[MAX_MOVES]


cdef void scored_moves(Finder* f, MoveList* moves, int table_move, int ply) noexcept nogil:
    """Fills ``moves`` with the legal moves, their ordering scores and their checks."""
    cdef int n = bs_legal_moves(&f.state, moves.moves)
    cdef int i, m, victim, score
    cdef int* h = &f.history[f.state.turn * AB_HISTORY_SIZE]
    cdef int* scores = moves.scores
    cdef bint* checks = moves.checks
    moves.count = n
    for i in range(n):
        m = moves.moves[i]
        checks[i] = bs_may_give_check(&f.state, m) and bs_gives_check(&f.state, m)
        victim = f.state.squares[xq_move_to(m)]
        if m == table_move:
            score = SCORE_TABLE
        elif checks[i]:
            score = SCORE_CHECK + h[m & 0xFFFF]
        elif victim != EMPTY:
            score = SCORE_CAPTURE + VICTIM[victim & 7] * 1024 + h[m & 0xFFFF] // 4096
        elif ply < AB_MAX_PLY and (f.killers[ply][0] == m or f.killers[ply][1] == m):
            score = SCORE_KILLER + (1 if f.killers[ply][0] == m else 0)
        else:
            score = h[m & 0xFFFF]
        scores[i] = score


cdef inline int pick(MoveList* list, int i) noexcept nogil:
    """Bring the best-scored of the moves from i on to position i (selection, since most
    nodes are settled by their first few moves)."""
    cdef int j, best = i, tm, ts
    cdef bint tc
    cdef int* moves = list.moves
    cdef int* scores = list.scores
    cdef bint* checks = list.checks
    for j in range(i + 1, list.count):
        if scores[j] > scores[best]:
            best = j
    if best != i:
        tm = moves[i]; moves[i] = moves[best]; moves[best] = tm
        ts = scores[i]; scores[i] = scores[best]; scores[best] = ts
        tc = checks[i]; checks[i] = checks[best]; checks[best] = tc
    return moves[i]


cdef inline bint mates_after_move(Finder* f, int move, int depth, int order, int ply,
                                  bint attacker_moves) noexcept nogil:
    """The attacker mates within ``depth`` attacker moves (``move`` among them when
    ``attacker_moves``) once ``move`` is played; the board is left as it was.  A move into a
    position already on the line does not mate: a repetition counts as the attacker failing."""
    cdef bint mates
    bs_make(&f.state, move)
    if bs_repetitions(&f.state) > 0:
        mates = False
    elif attacker_moves:
        mates = defend(f, depth - 1, order, ply + 1)
    else:
        mates = attack(f, depth, order, ply + 1)
    bs_unmake(&f.state)
    return mates


cdef bint attack(Finder* f, int depth, int order, int ply) noexcept nogil:
    """The attacker (to move) mates within ``depth`` moves among the moves ``order``
    admits.  False also when a limit stopped the search."""
    cdef MoveList moves
    cdef int i, m, table_move = 0
    cdef bint in_check, admitted, mates
    cdef uint64_t key = f.state.key
    cdef uint64_t fail_key = key ^ ORDER_SALT[order] ^ f.fail_salt
    cdef AbEntry* e
    f.nodes += 1
    if depth <= 0 or over_limits(f):
        return False
    e = slot(f, key)
    if e.key == key:
        if e.proven <= depth:
            return True
        table_move = e.best
    e = slot(f, fail_key)
    if e.key == fail_key and e.failed >= depth:
        return False
    in_check = bs_king_attacked(&f.state, f.state.turn)
    scored_moves(f, &moves, table_move, ply)
    for i in range(moves.count):
        m = pick(&moves, i)
        if not moves.checks[i]:
            # Only a check mates in one (bar 困毙, not looked for); order 1 is checks alone.
            if depth == 1 or order <= 1:
                continue
            elif not in_check and depth > f.tempo_frontier and \
                    f.state.squares[xq_move_to(m)] == EMPTY:
                # The threat test: after the move and a pass, a mate one order lower.
                bs_make(&f.state, m)
                bs_make_null(&f.state)
                admitted = attack(f, min(depth - 1, f.threat_moves), order - 1, ply + 2)
                bs_unmake_null(&f.state)
                bs_unmake(&f.state)
                if f.stopped:
                    return False
                if not admitted:
                    continue
        mates = mates_after_move(f, m, depth, order, ply, True)
        if f.stopped:
            return False
        if mates:
            store_proof(f, key, depth, m)
            reward(f, m, depth, ply)
            return True
    store_failure(f, fail_key, depth, 0)
    return False


cdef bint defend(Finder* f, int depth, int order, int ply) noexcept nogil:
    """The defender (to move) is mated within ``depth`` more attacker moves, whatever he
    plays.  False also when a limit stopped the search."""
    cdef MoveList moves
    cdef int i, m, table_move = 0
    cdef bint mated
    cdef uint64_t key = f.state.key
    cdef uint64_t fail_key = key ^ ORDER_SALT[order] ^ f.fail_salt
    cdef AbEntry* e
    f.nodes += 1
    if over_limits(f):
        return False
    if depth <= 0:
        return not bs_has_legal_move(&f.state)
    e = slot(f, key)
    if e.key == key and e.proven <= depth:
        return True
    e = slot(f, fail_key)
    if e.key == fail_key:
        if e.failed >= depth:
            return False
        table_move = e.best
    scored_moves(f, &moves, table_move, ply)
    if moves.count == 0:
        return True             # mated, or stalemated (困毙): both lose
    for i in range(moves.count):
        m = pick(&moves, i)
        mated = mates_after_move(f, m, depth, order, ply, False)
        if f.stopped:
            return False
        if not mated:
            store_failure(f, fail_key, depth, m)
            reward(f, m, depth, ply)
            return False
    store_proof(f, key, depth, 0)
    return True


cdef class MateFinder:
    """An alpha-beta mate finder with its own small transposition table (``table_bits``:
    log2 of its 16-byte entries).  :meth:`find` proposes; df-pn proves."""

    def __cinit__(self, int table_bits=DEFAULT_TABLE_BITS):
        if not 4 <= table_bits <= 30:
            raise ValueError(f"table_bits must be between 4 and 30, not {table_bits}")
        if bs_init(&self.finder.state) != 0:
            raise MemoryError()
        self.finder.table = <AbEntry*> calloc((<size_t> 1) << table_bits, sizeof(AbEntry))
        self.finder.history = <int*> calloc(2 * AB_HISTORY_SIZE, sizeof(int))
        if self.finder.table == NULL or self.finder.history == NULL:
            raise MemoryError(f"cannot allocate a table of 2^{table_bits} entries")
        self.finder.mask = ((<uint64_t> 1) << table_bits) - 1
        # Every move within one move of the bound only (df-pn: two): a waiting move before a
        # mate in one is rare in compositions, and trying every move two moves from the bound
        # cost 5% more nodes on the sample at 1 M nodes each for the same 7 mates found.
        self.tempo_frontier = 1
        self.max_order = 3
        self.threat_caps = THREAT_STAGES
        self.length = 0
        self.found_order = 0

    def __dealloc__(self):
        bs_free(&self.finder.state)
        free(self.finder.table)
        free(self.finder.history)

    @property
    def nodes(self):
        return self.finder.nodes

    @property
    def stopped(self):
        return bool(self.finder.stopped)

    @property
    def order(self):
        """The λ order at which the last :meth:`find` found its mate (0: none)."""
        return self.found_order

    def find(self, BaseBoard board, int max_moves, long long node_limit=0,
             double seconds=0.0, bint shortest=True):
        """A mate for ``board``'s side to move within ``max_moves`` moves, or None.

        The search runs in stages, one per threat cap of :attr:`threat_caps` (by default
        :data:`THREAT_STAGES`), each with an equal share of the nodes and time left.  Within a stage, with ``shortest`` every bound from 1 up is searched in turn
        (the first mate found is the shortest that stage admits), otherwise only
        ``max_moves``; at each bound the orders 1 .. :attr:`max_order` in turn, cheapest
        first.  ``node_limit`` and ``seconds`` (0: none) bound the whole call; :attr:`nodes`
        counts every node of it."""
        cdef Finder* f = &self.finder
        cdef int depth = 0, order = 0, first, top, stage, stages
        cdef bint mates = False
        cdef double deadline, start
        if not 1 <= max_moves <= MAX_MATE_MOVES:
            raise ValueError(f"max_moves must be between 1 and {MAX_MATE_MOVES}, "
                             f"not {max_moves}")
        if not 1 <= self.max_order <= MAX_ORDER:
            raise ValueError(f"max_order must be between 1 and {MAX_ORDER}, "
                             f"not {self.max_order}")
        caps = list(self.threat_caps)
        if not caps or not all(1 <= cap <= AB_NO_PROOF for cap in caps):
            raise ValueError(f"threat caps must be from 1 to {AB_NO_PROOF}, not {caps}")
        if bs_copy(&f.state, &board.state) != 0:
            raise MemoryError()
        stages = len(caps)
        f.nodes = 0
        f.cancelled = 0
        f.tempo_frontier = self.tempo_frontier
        self.length = 0
        self.found_order = 0
        start = now_seconds()
        deadline = start + seconds if seconds > 0 else 0.0
        first = 1 if shortest else max_moves
        top = self.max_order
        for stage in range(stages):
            f.threat_moves = caps[stage]
            f.fail_salt = THREAT_SALT[min(caps[stage], 15)]
            f.stopped = 0
            f.node_limit = (f.nodes + (node_limit - f.nodes) // (stages - stage)
                            if node_limit else 0)
            f.deadline = 0.0
            if deadline:
                f.deadline = now_seconds() + (deadline - now_seconds()) / (stages - stage)
            with nogil:
                for depth in range(first, max_moves + 1):
                    for order in range(1, top + 1):
                        mates = attack(f, depth, order, 0)
                        if mates or f.stopped:
                            break
                    if mates or f.stopped:
                        break
            if mates or f.cancelled or (node_limit and f.nodes >= node_limit) or (
                    deadline and now_seconds() >= deadline):
                break
        if not mates:
            return None
        self.length = depth
        self.found_order = order
        return depth

    def line(self):
        """The proposed main line of the last mate found, as (from, to) square pairs (0..89)
        of both sides' moves: the table's mating move at each attacker node, and at each
        defender node the reply whose mate is longest.  Empty if no mate was found."""
        cdef Finder* f = &self.finder
        cdef int moves[MAX_MOVES]
        cdef int n, i, m, remaining = self.length, best_reply, best_length, length
        cdef int order = self.found_order
        cdef int made = 0
        cdef AbEntry* e
        played = []
        if remaining <= 0:
            return played
        f.stopped = 0
        f.cancelled = 0
        f.node_limit = 0
        f.deadline = 0
        try:
            while remaining > 0:
                # Attacker: a search that is a table hit unless the proof was overwritten.
                if not attack(f, remaining, order, 0):
                    break
                e = slot(f, f.state.key)
                if e.key != f.state.key or e.best == 0:
                    break
                m = e.best
                played.append((sq90_of(xq_move_from(m)), sq90_of(xq_move_to(m))))
                bs_make(&f.state, m)
                made += 1
                n = bs_legal_moves(&f.state, moves)
                if n == 0:
                    break
                # Defender: the reply after which the mate takes longest.  (A reply with no
                # mate in the moves left would mean a proof lost from the table: the line
                # stops there, short of mate.)
                best_reply, best_length = 0, -1
                for i in range(n):
                    bs_make(&f.state, moves[i])
                    length = 1
                    while length < remaining and not attack(f, length, order, 0):
                        length += 1
                    bs_unmake(&f.state)
                    if length > best_length:
                        best_reply, best_length = moves[i], length
                if best_length >= remaining:
                    break
                played.append((sq90_of(xq_move_from(best_reply)),
                               sq90_of(xq_move_to(best_reply))))
                bs_make(&f.state, best_reply)
                made += 1
                remaining = best_length
        finally:
            for i in range(made):
                bs_unmake(&f.state)
        return played

    def mating_moves(self):
        """The attacker's moves along :meth:`line`."""
        return self.line()[::2]

    def proof_hints(self):
        """Every proof's move in the table, as (position key, from, to): the mating moves the
        search found, at the main line's nodes and in its threat tests alike, for df-pn to
        try first (``solver._dfpn.Search.set_hints``)."""
        cdef Finder* f = &self.finder
        cdef uint64_t i
        cdef AbEntry* e
        hints = []
        for i in range(f.mask + 1):
            e = &f.table[i]
            if e.key != 0 and e.proven != AB_NO_PROOF and e.best != 0:
                hints.append((e.key, sq90_of(xq_move_from(e.best)),
                              sq90_of(xq_move_to(e.best))))
        return hints

    def cancel(self):
        """Stop a running :meth:`find` (from another thread: the search runs without the
        GIL); it returns None."""
        self.finder.cancelled = 1

    def clear(self):
        """Forget the table, killers and history (a new problem)."""
        memset(self.finder.table, 0, (self.finder.mask + 1) * sizeof(AbEntry))
        memset(self.finder.history, 0, 2 * AB_HISTORY_SIZE * sizeof(int))
        memset(self.finder.killers, 0, sizeof(self.finder.killers))
