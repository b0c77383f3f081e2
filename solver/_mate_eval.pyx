# cython: language_level=3
"""An evaluation-guided mate finder: the way strong engines find long mates, to propose a line
that df-pn (``solver._dfpn``) then proves.

It proves nothing by itself that the solver reports: its pruning (null move, reductions)
can claim a mate that is not forced, and miss one.  Unlike :mod:`solver._mate_ab`, whose
boolean search admits a quiet move only where a threat test says it threatens mate, this
one searches every move, ordered and pruned by a score:

* negamax alpha-beta with principal-variation windows, iteratively deepened in plies, with
  aspiration windows around the last iteration's score;
* an evaluation from the attacker's view: material (a pawn across the river is worth
  twice), each attacking piece's closeness to the defending king, and the king's free
  points in its palace;
* check extensions; a quiescence search of captures, evasions, and the attacker's checks
  at its first ply (a mate just past the horizon is seen);
* null-move pruning at the attacker's nodes outside mate windows; late-move reductions of
  the attacker's quiet moves that do not check (logarithmic) and of the defender's late
  quiet moves out of check (one ply); at the attacker's frontier (two plies) quiet
  non-checking moves are skipped when the evaluation is far below alpha (on Nos. 63 and
  285, mates in 6: 489,000 and 151,000 nodes against 1,374,000 and 316,000 without these);
* ordering: the table's move, captures by victim, the attacker's checks, two killers a
  ply, the history of cutoffs; mate-distance pruning, so the first mate found is short.

Repetitions score as draws (the attacker may not win by perpetual check).  The inner search
holds no Python object and runs without the GIL.
"""
from libc.math cimport log
from libc.stdlib cimport calloc, free
from libc.string cimport memset
from libc.stdint cimport uint64_t, uint16_t, int16_t
from posix.time cimport clock_gettime, timespec, CLOCK_REALTIME
from xiangqi._core cimport (BaseBoard, BoardState, bs_init, bs_free, bs_copy, bs_make,
                            bs_unmake, bs_make_null, bs_unmake_null, bs_legal_moves,
                            bs_king_attacked, bs_gives_check, bs_may_give_check,
                            bs_repetitions, sq90_of, xq_move_from, xq_move_to,
                            EMPTY, KING, ADVISOR, ELEPHANT, HORSE, ROOK, CANNON, PAWN,
                            RED, MAX_MOVES)

# The longest mate a search may be asked for, in attacker moves (its plies fit EV_MAX_PLY
# with room for check extensions).
MAX_MATE_MOVES = 60
DEF MATE = 30000
DEF MATE_BOUND = 29000           # scores beyond this are mates (MATE less the plies)
DEF INF = 32000
DEF EV_EXACT = 1
DEF EV_LOWER = 2
DEF EV_UPPER = 3
DEF DEFAULT_TABLE_BITS = 20      # 2^20 entries of 16 bytes: 16 MiB
DEF TIME_CHECK_MASK = 1023
DEF HISTORY_CAP = 1 << 24
DEF ASPIRATION = 60              # the window around the last score (a pawn is 100)
DEF QUIESCENCE_PLIES = 8
DEF NULL_REDUCTION = 2
DEF LINE_NODES = 2000000         # the searches that extract a line, in all
DEF DEEPER = 8                   # plies searched past the bound's (see find)

DEF SCORE_TABLE = 1 << 30
DEF SCORE_CAPTURE = 1 << 29
DEF SCORE_CHECK = 1 << 28
DEF SCORE_KILLER = 1 << 27

# Material by piece kind (1 king .. 7 pawn), and the weight of an attacking piece's
# closeness to the defending king (per point of Manhattan distance under 9).
cdef int VALUE[8]
VALUE[:] = [0, 0, 150, 150, 450, 1000, 500, 100]
cdef int CLOSENESS[8]
CLOSENESS[:] = [0, 0, 0, 0, 12, 10, 8, 14]
# A free point of the defending king's palace next to it (an escape square).
DEF FREE_POINT = 25


# Late-move reductions of the attacker's quiet moves by depth and move number: logarithmic
# in both, as strong engines reduce (Stockfish's form, 0.75 + ln d ln n / 2.25).
cdef int LMR[64][64]
for _d in range(64):
    for _n in range(64):
        LMR[_d][_n] = 0 if _d < 1 or _n < 1 else int(0.75 + log(_d) * log(_n) / 2.25)


cdef inline double now_seconds() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_REALTIME, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef inline EvEntry* slot(EvSearch* e, uint64_t key) noexcept nogil:
    return &e.table[(key ^ (key >> 29)) & e.mask]


cdef inline bint over_limits(EvSearch* e) noexcept nogil:
    if e.stopped:
        return True
    if e.cancelled:
        e.stopped = 1
    if e.node_limit and e.nodes >= e.node_limit:
        e.stopped = 1
    elif e.deadline and (e.nodes & TIME_CHECK_MASK) == 0 and now_seconds() >= e.deadline:
        e.stopped = 1
    return e.stopped


cdef inline int to_table(int score, int ply) noexcept nogil:
    """A mate score as the distance from the stored position (not from the root)."""
    if score > MATE_BOUND:
        return score + ply
    if score < -MATE_BOUND:
        return score - ply
    return score


cdef inline int from_table(int score, int ply) noexcept nogil:
    if score > MATE_BOUND:
        return score - ply
    if score < -MATE_BOUND:
        return score + ply
    return score


cdef inline bint in_palace(int rank, int file, int side) noexcept nogil:
    if file < 3 or file > 5:
        return False
    return rank <= 2 if side == RED else rank >= 7


cdef int evaluate(EvSearch* e) noexcept nogil:
    """The position's score from the side to move's view (see the module's docstring)."""
    cdef BoardState* s = &e.state
    cdef int attacker = e.attacker, defender = 1 - e.attacker
    cdef int king = s.king_square[defender]
    cdef int king_rank = (king >> 4) - 3, king_file = (king & 15) - 3
    cdef int score = 0, side, i, sq, kind, value, rank, file, distance, sign, n, target
    cdef int steps[4]
    steps[:] = [1, -1, 16, -16]
    for side in range(2):
        sign = 1 if side == attacker else -1
        for i in range(s.piece_count[side]):
            sq = s.piece_squares[side][i]
            kind = s.squares[sq] & 7
            value = VALUE[kind]
            rank = (sq >> 4) - 3
            file = (sq & 15) - 3
            if kind == PAWN and ((side == RED and rank >= 5) or (side != RED and rank <= 4)):
                value += VALUE[PAWN]
            score += sign * value
            if side == attacker and CLOSENESS[kind]:
                distance = (rank - king_rank if rank > king_rank else king_rank - rank) + \
                    (file - king_file if file > king_file else king_file - file)
                if distance < 9:
                    score += CLOSENESS[kind] * (9 - distance)
    for n in range(4):
        target = king + steps[n]
        if in_palace((target >> 4) - 3, (target & 15) - 3, defender):
            if s.squares[target] == EMPTY or \
                    ((s.squares[target] >> 3) & 1) == attacker:
                score -= FREE_POINT
    return score if s.turn == attacker else -score


cdef inline void store(EvSearch* e, uint64_t key, int depth, int score, int bound,
                       int move, bint attacker) noexcept nogil:
    cdef EvEntry* t = slot(e, key)
    if t.key == key and t.depth > depth and t.bound == EV_EXACT:
        return
    t.key = key
    t.depth = <int> min(depth, 127)
    t.score = <int16_t> score
    t.bound = bound
    t.best = <uint16_t> move
    t.attacker = attacker


cdef inline void reward(EvSearch* e, int move, int depth, int ply) noexcept nogil:
    cdef int* h = &e.history[e.state.turn * EV_HISTORY_SIZE + (move & 0xFFFF)]
    cdef int i
    h[0] += depth * depth + 1
    if h[0] > HISTORY_CAP:
        for i in range(2 * EV_HISTORY_SIZE):
            e.history[i] >>= 1
    if ply < EV_MAX_PLY and e.killers[ply][0] != move:
        e.killers[ply][1] = e.killers[ply][0]
        e.killers[ply][0] = <uint16_t> move


cdef struct MoveList:
    int count
    int moves[MAX_MOVES]
    int scores[MAX_MOVES]
    bint checks[MAX_MOVES]
    bint captures[MAX_MOVES]


cdef void scored_moves(EvSearch* e, MoveList* moves, int table_move, int ply,
                       bint with_checks) noexcept nogil:
    cdef int n = bs_legal_moves(&e.state, moves.moves)
    cdef int i, m, victim, score
    cdef int* h = &e.history[e.state.turn * EV_HISTORY_SIZE]
    moves.count = n
    for i in range(n):
        m = moves.moves[i]
        victim = e.state.squares[xq_move_to(m)]
        moves.captures[i] = victim != EMPTY
        moves.checks[i] = with_checks and bs_may_give_check(&e.state, m) and \
            bs_gives_check(&e.state, m)
        if m == table_move:
            score = SCORE_TABLE
        elif victim != EMPTY:
            score = SCORE_CAPTURE + VALUE[victim & 7] * 16 - VALUE[e.state.squares[
                xq_move_from(m)] & 7] // 64
        elif moves.checks[i]:
            score = SCORE_CHECK + h[m & 0xFFFF] // 64
        elif ply < EV_MAX_PLY and (e.killers[ply][0] == m or e.killers[ply][1] == m):
            score = SCORE_KILLER + (1 if e.killers[ply][0] == m else 0)
        else:
            score = h[m & 0xFFFF]
        moves.scores[i] = score


cdef inline int pick(MoveList* list, int i) noexcept nogil:
    """Bring the best-scored of the moves from i on to position i."""
    cdef int j, best = i, tm, ts
    cdef bint tc, tk
    for j in range(i + 1, list.count):
        if list.scores[j] > list.scores[best]:
            best = j
    if best != i:
        tm = list.moves[i]; list.moves[i] = list.moves[best]; list.moves[best] = tm
        ts = list.scores[i]; list.scores[i] = list.scores[best]; list.scores[best] = ts
        tc = list.checks[i]; list.checks[i] = list.checks[best]; list.checks[best] = tc
        tk = list.captures[i]; list.captures[i] = list.captures[best]
        list.captures[best] = tk
    return list.moves[i]


cdef int quiesce(EvSearch* e, int alpha, int beta, int ply, int qply) noexcept nogil:
    """Captures (and evasions, and the attacker's checks at its first ply) until quiet."""
    cdef BoardState* s = &e.state
    cdef MoveList moves
    cdef int i, m, score, best
    cdef bint in_check, attacker_node
    e.nodes += 1
    if over_limits(e):
        return 0
    if bs_repetitions(s) > 0:
        return 0
    in_check = bs_king_attacked(s, s.turn)
    attacker_node = s.turn == e.attacker
    scored_moves(e, &moves, 0, ply, attacker_node and qply == 0 and not in_check)
    if moves.count == 0:
        return -MATE + ply                  # mated, or stalemated (困毙): a loss either way
    if ply >= EV_MAX_PLY - 2 or qply >= QUIESCENCE_PLIES:
        return evaluate(e)
    if in_check:
        best = -INF
    else:
        best = evaluate(e)
        if best >= beta:
            return best
        if best > alpha:
            alpha = best
    for i in range(moves.count):
        m = pick(&moves, i)
        if not in_check and not moves.captures[i] and not moves.checks[i]:
            continue
        bs_make(s, m)
        score = -quiesce(e, -beta, -alpha, ply + 1, qply + 1)
        bs_unmake(s)
        if e.stopped:
            return 0
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                if alpha >= beta:
                    break
    return best


cdef int search(EvSearch* e, int depth, int alpha, int beta, int ply,
                bint null_allowed) noexcept nogil:
    cdef BoardState* s = &e.state
    cdef MoveList moves
    cdef EvEntry* t
    cdef int i, m, score, best, best_move = 0, table_move = 0, reduction, new_depth
    cdef int original_alpha, bound, stored
    cdef bint in_check, attacker_node, futile
    cdef uint64_t key = s.key
    e.nodes += 1
    if over_limits(e):
        return 0
    if ply > 0 and bs_repetitions(s) > 0:
        return 0
    # Mate-distance pruning: no mate found later can be shorter than one in hand.
    if alpha < -MATE + ply:
        alpha = -MATE + ply
    if beta > MATE - ply - 1:
        beta = MATE - ply - 1
    if alpha >= beta:
        return alpha
    in_check = bs_king_attacked(s, s.turn)
    if in_check and ply < EV_MAX_PLY - 16:
        depth += 1
    if depth <= 0 or ply >= EV_MAX_PLY - 8:
        return quiesce(e, alpha, beta, ply, 0)
    attacker_node = s.turn == e.attacker
    t = slot(e, key)
    if t.key == key:
        table_move = t.best
        if t.depth >= depth and ply > 0:
            stored = from_table(t.score, ply)
            if t.bound == EV_EXACT or (t.bound == EV_LOWER and stored >= beta) or \
                    (t.bound == EV_UPPER and stored <= alpha):
                return stored
    # Null move: the attacker passes; if it still reaches beta, its moves surely do.  Not in
    # a mate window (a pass is no move: a "mate" through one would be no mate).
    if attacker_node and null_allowed and not in_check and depth >= 3 and \
            beta < MATE_BOUND and beta > -MATE_BOUND and evaluate(e) >= beta:
        bs_make_null(s)
        score = -search(e, depth - 1 - NULL_REDUCTION, -beta, -beta + 1, ply + 1, False)
        bs_unmake_null(s)
        if e.stopped:
            return 0
        if score >= beta and score < MATE_BOUND:
            return beta
    scored_moves(e, &moves, table_move, ply, attacker_node)
    if moves.count == 0:
        return -MATE + ply
    original_alpha = alpha
    best = -INF
    futile = attacker_node and not in_check and depth <= 2 and \
        -MATE_BOUND < alpha < MATE_BOUND and evaluate(e) + 250 * depth <= alpha
    for i in range(moves.count):
        m = pick(&moves, i)
        if futile and i > 0 and not moves.captures[i] and not moves.checks[i]:
            continue
        new_depth = depth - 1
        bs_make(s, m)
        if i == 0:
            score = -search(e, new_depth, -beta, -alpha, ply + 1, True)
        else:
            reduction = 0
            if attacker_node and depth >= 3 and i >= 3 and not moves.captures[i] and \
                    not moves.checks[i] and not in_check:
                reduction = LMR[min(depth, 63)][min(i, 63)]
                if reduction > new_depth - 1:
                    reduction = new_depth - 1
            elif not attacker_node and depth >= 3 and i >= 4 and not moves.captures[i] and \
                    not in_check:
                reduction = 1
            score = -search(e, new_depth - reduction, -alpha - 1, -alpha, ply + 1, True)
            if score > alpha and reduction:
                score = -search(e, new_depth, -alpha - 1, -alpha, ply + 1, True)
            if alpha < score < beta:
                score = -search(e, new_depth, -beta, -alpha, ply + 1, True)
        bs_unmake(s)
        if e.stopped:
            return 0
        if score > best:
            best = score
            best_move = m
            if score > alpha:
                alpha = score
                if alpha >= beta:
                    if not moves.captures[i]:
                        reward(e, m, depth, ply)
                    break
    if best >= beta:
        bound = EV_LOWER
    elif best > original_alpha:
        bound = EV_EXACT
    else:
        bound = EV_UPPER
    store(e, key, depth, to_table(best, ply), bound, best_move, attacker_node)
    return best


cdef class EvalMateFinder:
    """An evaluation-guided mate finder with its own table (``table_bits``: log2 entries):
    the same interface as :class:`solver._mate_ab.MateFinder` (``find``, ``line``,
    ``proof_hints``, ``cancel``, ``nodes``)."""

    def __cinit__(self, int table_bits=DEFAULT_TABLE_BITS):
        if not 4 <= table_bits <= 30:
            raise ValueError(f"table_bits must be between 4 and 30, not {table_bits}")
        if bs_init(&self.search.state) != 0:
            raise MemoryError()
        self.search.table = <EvEntry*> calloc((<size_t> 1) << table_bits, sizeof(EvEntry))
        self.search.history = <int*> calloc(2 * EV_HISTORY_SIZE, sizeof(int))
        if self.search.table == NULL or self.search.history == NULL:
            raise MemoryError(f"cannot allocate a table of 2^{table_bits} entries")
        self.search.mask = ((<uint64_t> 1) << table_bits) - 1
        self.length = 0
        self.max_order = 0

    def __dealloc__(self):
        bs_free(&self.search.state)
        free(self.search.table)
        free(self.search.history)

    @property
    def nodes(self):
        return self.search.nodes

    @property
    def stopped(self):
        return bool(self.search.stopped)

    @property
    def depth(self):
        """The plies of the last find()'s deepest iteration completed."""
        return self.reached

    @property
    def score(self):
        """That iteration's score, from the attacker's view (a mate: 30000 less its plies)."""
        return self.last_score

    def find(self, BaseBoard board, int max_moves, long long node_limit=0,
             double seconds=0.0, bint shortest=True):
        """A mate for ``board``'s side to move within ``max_moves`` moves (its length in
        attacker moves), or None: iterative deepening up to ``2 * max_moves - 1`` plies and
        a few more (reductions can hide a mate at its own depth), stopped by the first mate
        within the bound.  ``node_limit`` and
        ``seconds`` (0: none) bound the call; :attr:`nodes` counts its nodes.  (``shortest``
        is the interface's: mate-distance pruning makes every mate found short.)"""
        cdef EvSearch* e = &self.search
        cdef int depth, score = 0, last = 0, alpha, beta, found = 0
        cdef int top = 2 * max_moves - 1
        if not 1 <= max_moves <= MAX_MATE_MOVES:
            raise ValueError(f"max_moves must be between 1 and {MAX_MATE_MOVES}, "
                             f"not {max_moves}")
        if bs_copy(&e.state, &board.state) != 0:
            raise MemoryError()
        e.attacker = e.state.turn
        e.nodes = 0
        e.stopped = 0
        e.cancelled = 0
        e.node_limit = node_limit
        e.deadline = now_seconds() + seconds if seconds > 0 else 0.0
        self.length = 0
        self.reached = 0
        with nogil:
            # Past the bound's plies: the reductions of quiet moves can hide a mate at the
            # depth it takes (a mate in 4 of the kill-pattern examples was found at bound 9
            # in 45,000 nodes and not at bound 4 in 300,000); a mate longer than the bound
            # found there is not taken.
            for depth in range(1, min(top + DEEPER, EV_MAX_PLY // 2) + 1):
                if depth >= 4 and -MATE_BOUND < last < MATE_BOUND:
                    alpha, beta = last - ASPIRATION, last + ASPIRATION
                else:
                    alpha, beta = -INF, INF
                while True:
                    score = search(e, depth, alpha, beta, 0, True)
                    if e.stopped:
                        break
                    if score <= alpha and alpha > -INF:
                        alpha = -INF
                    elif score >= beta and beta < INF:
                        beta = INF
                    else:
                        break
                if e.stopped:
                    break
                last = score
                self.reached = depth
                if score > MATE_BOUND and MATE - score <= top:
                    found = (MATE - score + 1) // 2
                    break
        self.last_score = last
        if not found:
            return None
        self.length = found
        return found

    def line(self):
        """The proposed main line of the last mate found, as (from, to) square pairs (0..89)
        of both sides' moves: at each position the best move of a search of the plies left
        (cheap: the table holds the mate), for at most LINE_NODES nodes in all; the line
        stops short of the mate if they run out or a search loses the mate."""
        cdef EvSearch* e = &self.search
        cdef int made = 0, i, m, score, plies = 2 * self.length - 1
        cdef EvEntry* t
        played = []
        if self.length <= 0:
            return played
        e.stopped = 0
        e.cancelled = 0
        e.deadline = 0.0
        e.node_limit = e.nodes + LINE_NODES
        try:
            while made < plies:
                with nogil:
                    score = search(e, plies - made, -INF, INF, 0, False)
                if e.stopped or (made % 2 == 0 and score <= MATE_BOUND):
                    break
                t = slot(e, e.state.key)
                if t.key != e.state.key or t.best == 0:
                    break
                m = t.best
                played.append((sq90_of(xq_move_from(m)), sq90_of(xq_move_to(m))))
                bs_make(&e.state, m)
                made += 1
        finally:
            for i in range(made):
                bs_unmake(&e.state)
        return played

    def mating_moves(self):
        """The attacker's moves along :meth:`line`."""
        return self.line()[::2]

    def proof_hints(self):
        """The best move of every attacker position the table scores as a mate for it, as
        (position key, from, to), for df-pn to try first (``Search.set_hints``)."""
        cdef EvSearch* e = &self.search
        cdef uint64_t i
        cdef EvEntry* t
        hints = []
        for i in range(e.mask + 1):
            t = &e.table[i]
            if t.key != 0 and t.attacker and t.best != 0 and t.score > MATE_BOUND and \
                    t.bound != EV_UPPER:
                hints.append((t.key, sq90_of(xq_move_from(t.best)),
                              sq90_of(xq_move_to(t.best))))
        return hints

    def cancel(self):
        """Stop a running :meth:`find` from another thread; it returns None."""
        self.search.cancelled = 1

    def clear(self):
        """Forget the table, killers and history (a new problem)."""
        memset(self.search.table, 0, (self.search.mask + 1) * sizeof(EvEntry))
        memset(self.search.history, 0, 2 * EV_HISTORY_SIZE * sizeof(int))
        memset(self.search.killers, 0, sizeof(self.search.killers))
