# cython: language_level=3
"""Retrograde analysis of one material, and the independent re-check of a finished table.

Values are uint16 codes per position and side to move: 0 draw, ``plies + 1`` for a decided
position (odd plies: the side to move wins; even: it loses), ``ILLEGAL`` for placements that
are not legal positions.  During the build a code may carry ``TENTATIVE``: its value is known
from captures alone and joins the frontier at the pass equal to its distance.

Pass n decides the positions at distance n:
  * a predecessor of a loss at n-1 is a win at n (found by un-moves);
  * a predecessor of a win at n-1 becomes a candidate, and a candidate whose every move
    leads to a win for the opponent is a loss at 1 + the longest such win (forward check).
Captures leave the table and are answered by the sub-tables (for DTC a capture counts as the
end: distance 1).  Stalemate is a loss.  Every pass writes only values of distance n, which no
step of the same pass reads as decided, so the result is the same for any thread count.
"""
from cython.parallel cimport prange, threadid
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memset
from posix.mman cimport madvise, MADV_HUGEPAGE
from libc.stdint cimport uint8_t, uint16_t, uint64_t, int64_t
from cpython.exc cimport PyErr_CheckSignals
from xiangqi._core cimport (BoardState, bs_init, bs_free, bs_make, bs_unmake, bs_legal_moves,
                            bs_pseudo_moves, bs_king_attacked_by,
                            bs_unmoves, bs_king_attacked, xq_move_to, xq_make_move,
                            xq_move_from, sq90_of, EMPTY, MAX_MOVES, KING, HORSE, ROOK, CANNON,
                            PAWN, BLACK_BIT)
from tablebases._index cimport (Indexer, IndexData, Placed, ix_encode, ix_decode,
                                ix_decode_placed, ix_has_twin,
                                ix_encode_quiet, ix_twin, ix_prepare_moves, ix_digits,
                                ix_quiet_index, MAX_GROUPS)
from tablebases._chase cimport (Threats, find_threats, move_attack, ATTACK_CHECK, ATTACK_CHASE,
                                ATTACK_MATE_THREAT, RULES_CHECK, RULES_CHINESE)
import time as _time

cdef extern from *:
    """
    static inline void tb_set_bit(uint64_t* bits, int64_t i) {
        __atomic_fetch_or(&bits[i >> 6], (uint64_t)1 << (i & 63), __ATOMIC_RELAXED);
    }
    static inline void tb_clear_bit(uint64_t* bits, int64_t i) {
        __atomic_fetch_and(&bits[i >> 6], ~((uint64_t)1 << (i & 63)), __ATOMIC_RELAXED);
    }
    static inline int tb_bit(const uint64_t* bits, int64_t i) {
        return (int)((bits[i >> 6] >> (i & 63)) & 1);
    }
    """
    int __builtin_popcountll(unsigned long long x) nogil
    void __builtin_prefetch(const void* address) nogil
    int __builtin_ctzll(unsigned long long x) nogil
    void tb_set_bit(uint64_t* bits, int64_t i) nogil
    void tb_clear_bit(uint64_t* bits, int64_t i) nogil
    int tb_bit(const uint64_t* bits, int64_t i) nogil

# Stopping a build at once.  The parallel loops run without the GIL, so Python's own SIGINT
# handler (which only sets a flag for the interpreter) cannot end them before they finish.
# While a builder function runs, a C handler sets ``tb_stop`` and then calls the handler it
# replaced (Python's, which then raises KeyboardInterrupt as usual).  Every parallel loop
# reads the flag once per entry or bitmap word, a relaxed load of one int next to work of
# microseconds, and skips what is left; the function then frees its memory and raises
# KeyboardInterrupt without returning partial results.
cdef extern from *:
    """
    #include <signal.h>
    static volatile int tb_stop = 0;
    static int tb_guards = 0;               /* builder calls running (changed under the GIL) */
    static int tb_handler_installed = 0;
    static struct sigaction tb_previous;
    static inline int tb_stopping(void) {
        return __atomic_load_n(&tb_stop, __ATOMIC_RELAXED);
    }
    static inline void tb_request_stop(void) {
        __atomic_store_n(&tb_stop, 1, __ATOMIC_RELAXED);
    }
    static void tb_on_sigint(int sig, siginfo_t* info, void* context) {
        tb_request_stop();
        if (tb_previous.sa_flags & SA_SIGINFO)
            tb_previous.sa_sigaction(sig, info, context);
        else
            tb_previous.sa_handler(sig);
    }
    /* Install the handler for the first running builder call, if SIGINT has a handler to
       chain to (an ignored SIGINT stays ignored, a default one still ends the process). */
    static void tb_guard_begin(void) {
        struct sigaction ours;
        if (tb_guards++ > 0)
            return;
        if (sigaction(SIGINT, NULL, &tb_previous) != 0)
            return;
        if (tb_previous.sa_flags & SA_SIGINFO) {
            if (tb_previous.sa_sigaction == NULL)
                return;
        } else if (tb_previous.sa_handler == SIG_DFL || tb_previous.sa_handler == SIG_IGN) {
            return;
        }
        ours.sa_sigaction = tb_on_sigint;
        ours.sa_mask = tb_previous.sa_mask;
        ours.sa_flags = SA_SIGINFO | (tb_previous.sa_flags & (SA_ONSTACK | SA_RESTART));
        if (sigaction(SIGINT, &ours, NULL) == 0)
            tb_handler_installed = 1;
    }
    /* Whether a stop was requested during the call; the last call to end restores the
       handler and clears the request. */
    static int tb_guard_end(void) {
        int stopped = tb_stopping();
        if (--tb_guards > 0)
            return stopped;
        if (tb_handler_installed) {
            sigaction(SIGINT, &tb_previous, NULL);
            tb_handler_installed = 0;
        }
        __atomic_store_n(&tb_stop, 0, __ATOMIC_RELAXED);
        return stopped;
    }
    """
    int tb_stopping() nogil
    void tb_request_stop() nogil
    void tb_guard_begin()
    int tb_guard_end()



def request_stop():
    """Stop the running builder call (or the next one): its threads skip what is left of
    their loop within milliseconds and it raises KeyboardInterrupt, returning nothing.  A
    SIGINT during a builder call does the same (and runs Python's handler too)."""
    tb_request_stop()


cdef int raise_interrupted() except -1:
    """A builder call that stopped early: Python's handler of the SIGINT that stopped it (if
    one did) raises its exception, KeyboardInterrupt by default; otherwise raise that."""
    PyErr_CheckSignals()
    raise KeyboardInterrupt


cdef class PhaseClock:
    """Wall and CPU seconds (all threads: the process's) per phase of a builder call, added
    into ``timings[phase + "_seconds"]`` and ``timings[phase + "_cpu_seconds"]``; read between
    the parallel loops, so it costs two clock reads per phase and pass.  ``timings`` None:
    nothing is measured."""
    cdef object timings
    cdef double wall, cpu

    def __init__(self, timings):
        self.timings = timings
        if timings is not None:
            self.wall = _time.perf_counter()
            self.cpu = _time.process_time()

    cdef lap(self, str phase):
        """Charge the time since the last lap to ``phase``."""
        cdef double wall, cpu
        if self.timings is None:
            return
        wall = _time.perf_counter()
        cpu = _time.process_time()
        key = phase + "_seconds"
        self.timings[key] = self.timings.get(key, 0.0) + (wall - self.wall)
        key = phase + "_cpu_seconds"
        self.timings[key] = self.timings.get(key, 0.0) + (cpu - self.cpu)
        self.wall = wall
        self.cpu = cpu


DEF BIG = 1 << 30
DEF HUGE_PAGE = 1 << 21


cdef extern from "<sys/mman.h>" nogil:
    void* mmap(void* addr, size_t length, int prot, int flags, int fd, long offset)
    int munmap(void* addr, size_t length)
    int PROT_READ, PROT_WRITE, MAP_PRIVATE, MAP_ANONYMOUS
    void* MAP_FAILED

DEF BITS_PREFIX = 4096   # one page before a bitmap holds the length of its mapping


cdef uint64_t* zeroed_bits(int64_t words) noexcept nogil:
    """A zeroed bitmap in a mapping of its own (released with free_bits: unmapped at once,
    never left in the heap, whatever malloc's mmap threshold has grown to), on huge pages
    where the kernel allows: it is read and written at random, and huge pages spare most TLB
    misses; the advice takes effect as the fresh pages are first written."""
    cdef size_t size = words * sizeof(uint64_t)
    cdef size_t length = size + BITS_PREFIX
    cdef char* mapping = <char*> mmap(NULL, length, PROT_READ | PROT_WRITE,
                                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
    cdef uint64_t* bits
    cdef size_t start, end
    if <void*> mapping == MAP_FAILED:
        return NULL
    (<size_t*> mapping)[0] = length
    bits = <uint64_t*> (mapping + BITS_PREFIX)
    if size >= 2 * HUGE_PAGE:
        start = (<size_t> bits + HUGE_PAGE - 1) & ~(<size_t> HUGE_PAGE - 1)
        end = (<size_t> bits + size) & ~(<size_t> HUGE_PAGE - 1)
        if end > start:
            madvise(<void*> start, end - start, MADV_HUGEPAGE)
    return bits


cdef void free_bits(uint64_t* bits) noexcept nogil:
    """Release a bitmap of zeroed_bits (NULL: nothing)."""
    cdef char* mapping
    if bits != NULL:
        mapping = (<char*> bits) - BITS_PREFIX
        munmap(mapping, (<size_t*> mapping)[0])
DEF FORBIDDEN = -1
# The attacks a perpetual attack may not go on with (tablebases._chase: a pawn's chase is not
# one of them, 27.2).
cdef enum:
    FORBIDDEN_ATTACKS = ATTACK_CHECK | ATTACK_CHASE | ATTACK_MATE_THREAT


# A sub-table's codes reduced to what a metric whose count ends at the capture (DTC, DTC60)
# reads of them: draw (0), lost (code 1: plies 0), won (code 2: plies 1) or ILLEGAL, two bits
# per entry (pack_outcomes); a DTC60 code beyond the natural limit is packed as a draw.
cdef extern from *:
    """
    static const int tb_outcome_codes[4] = {0, 1, 2, 0xFFFF};
    """
    const int tb_outcome_codes[4]

# A sub-table's codes in a byte each (narrow_codes), when none is beyond a byte's range: the
# code itself, ILLEGAL stored as NARROW_ILLEGAL.  Half the memory, and the same codes read.
DEF NARROW_ILLEGAL = 0xFF


cdef inline int sub_value(Context* c, SubTable* t, int side, int64_t idx) noexcept nogil:
    """The code of entry ``idx`` (side ``side`` to move) of sub-table ``t`` as the metric of
    ``c`` counts it."""
    cdef int code
    if t.outcomes[0] != NULL:
        return tb_outcome_codes[(t.outcomes[side][idx >> 5] >> (2 * (idx & 31))) & 3]
    if t.narrow[0] != NULL:
        code = t.narrow[side][idx]
        if code == NARROW_ILLEGAL:
            return ILLEGAL
    else:
        code = t.values[side][idx]
    if c.capture_limit > 0 and code != ILLEGAL and code != 0 \
            and (code & DISTANCE_MASK) - 1 > c.capture_limit:
        return 0                        # not convertible within the natural limit: a draw
    return code


cdef inline int sub_code(Context* c, BoardState* s, int captured) noexcept nogil:
    """Code of the position on ``s`` (just after a capture) in its sub-table."""
    cdef SubTable* t = &c.subs[(captured >> 3) & 1][captured & 7]
    cdef int64_t idx = sub_index(t, s)
    if idx < 0:
        return ILLEGAL
    return sub_value(c, t, s.turn ^ t.flip, idx)


cdef inline int64_t sub_index(SubTable* t, BoardState* s) noexcept nogil:
    """Index in sub-table ``t`` of the position on ``s`` (just after a capture), its code
    prefetched; -1: none (an ILLEGAL code)."""
    cdef int64_t idx
    cdef int side = s.turn ^ t.flip
    if t.ix == NULL:
        return -1
    idx = ix_encode(t.ix, s, t.flip)
    if idx >= 0:
        prefetch_sub(t, side, idx)
    return idx


cdef inline void prefetch_sub(SubTable* t, int side, int64_t idx) noexcept nogil:
    """Ask for the cache line of entry ``idx`` (``side`` to move) of sub-table ``t``."""
    if t.outcomes[0] != NULL:
        __builtin_prefetch(&t.outcomes[side][idx >> 5])
    elif t.narrow[0] != NULL:
        __builtin_prefetch(&t.narrow[side][idx])
    else:
        __builtin_prefetch(&t.values[side][idx])


cdef inline int64_t moved_index(Context* c, BoardState* s, int64_t base, int move,
                                bint defender=False) noexcept nogil:
    """Index of the position on ``s`` just after the quiet ``move`` from decoded ``base``.
    ``defender``: encode moves in Red's defender group incrementally too, and by the move
    tables (the builder's passes; the re-check keeps the plain path)."""
    cdef int piece = s.squares[xq_move_to(move)]
    cdef int64_t index = ix_encode_quiet(c.ix, base, (piece >> 3) & 1, piece & 7,
                                         sq90_of(xq_move_from(move)), sq90_of(xq_move_to(move)),
                                         defender, defender)
    if index == -2:
        index = ix_encode(c.ix, s, 0)
    return index


cdef inline int64_t quiet_index(Context* c, BoardState* s, int64_t base, const int64_t* digits,
                                int move) noexcept nogil:
    """Index after the quiet ``move`` from decoded ``base`` (its group entries in ``digits``)
    without playing it (the builder's passes): only the moved piece's group entry changes,
    and ix_quiet_index takes the points, so the board need not be touched; the same value as
    ``moved_index(..., True)``.  Only a case it leaves to the full encode plays the move."""
    cdef int piece = s.squares[xq_move_from(move)]
    cdef int64_t index = ix_quiet_index(c.ix, base, digits, (piece >> 3) & 1, piece & 7,
                                        sq90_of(xq_move_from(move)), sq90_of(xq_move_to(move)))
    if index == -2:
        bs_make(s, move)
        index = ix_encode(c.ix, s, 0)
        bs_unmake(s)
    return index


cdef inline int conversion_distance(Context* c, int plies) noexcept nogil:
    """The distance a capture's sub-table value counts for: all of it for DTM; for DTC the
    count ends at the capture, keeping only the parity that says who wins (0: the side to move
    there loses, 1: it wins), so a loss reached by one's own capture counts 2 plies."""
    return (plies & 1) if c.capture_resets else plies


cdef inline int place(Context* c, BoardState* s, int64_t idx) noexcept nogil:
    """Set up the pieces of ``idx`` on ``s`` (-1: two on one point); on one of ``c``'s
    thread boards only the groups that changed since its last decode are moved."""
    if c.placed != NULL:
        return ix_decode_placed(c.ix, idx, s, &c.placed[s - c.states])
    return ix_decode(c.ix, idx, s)


cdef inline int decode(Context* c, BoardState* s, int stm, int64_t idx) noexcept nogil:
    """Set up ``idx``, known to be a legal position (its stored code is not ILLEGAL)."""
    if place(c, s, idx) < 0:
        return -1
    s.turn = stm
    return 0


cdef inline bint must_stop_checking(Context* c, int stm, int64_t idx) noexcept nogil:
    return c.checker[stm] != NULL and tb_bit(c.checker[stm], idx)


cdef inline bint forbidden(Context* c, BoardState* s, int stm, int64_t sidx,
                           int move) noexcept nogil:
    """For a position that must stop checking, with the quiet ``move`` just made on ``s``: is
    it one of the perpetual checks (under the Chinese rules: checks or chases) it may no
    longer play?"""
    if sidx < 0 or not tb_bit(c.victim[stm ^ 1], sidx):
        return False
    return rule_attack(c, s, move)


cdef inline bint rule_attack(Context* c, BoardState* s, int move) noexcept nogil:
    """With the quiet ``move`` just made on ``s``: is it an attack that a perpetual attack
    of the rule set of ``c`` forbids (a check; under RULES_CHINESE a mate threat or a chase
    too)?"""
    cdef Threats before
    cdef bint known = False
    return (attack_after(c, s, move, &before, &known) & FORBIDDEN_ATTACKS) != 0


cdef inline int attack_after(Context* c, BoardState* s, int move, Threats* before,
                             bint* known) noexcept nogil:
    """With the quiet ``move`` just made on ``s``: ATTACK_CHECK if it checks, else under
    RULES_CHINESE its mate-threat and chase bits (tablebases._chase.move_attack; 0 under
    RULES_CHECK).
    ``before``: the mover's threats before the move, found here unless ``known``."""
    cdef int kind
    if bs_king_attacked(s, s.turn):
        return ATTACK_CHECK
    if c.attacks == RULES_CHECK:
        return 0
    bs_unmake(s)
    if not known[0]:
        find_threats(s, before)
        known[0] = True
    kind = move_attack(s, move, before)
    bs_make(s, move)
    return kind


cdef inline int successor_code(Context* c, BoardState* s, int stm, int64_t idx, int move,
                               bint restricted, bint incremental=False) noexcept nogil:
    """The code of the position after ``move`` from decoded ``idx`` (a sub-table's for a
    capture), or FORBIDDEN for a perpetual check the side may no longer play.
    ``incremental``: index moves of Red's defenders incrementally too (the builder's passes;
    the re-check keeps the plain path)."""
    cdef int captured = s.squares[xq_move_to(move)]
    cdef int code
    cdef int64_t sidx
    bs_make(s, move)
    if captured != EMPTY:
        code = sub_code(c, s, captured)
    else:
        sidx = moved_index(c, s, idx, move, incremental)
        if restricted and forbidden(c, s, stm, sidx, move):
            code = FORBIDDEN
        else:
            code = c.values[stm ^ 1][sidx] if sidx >= 0 else ILLEGAL
    bs_unmake(s)
    return code


cdef inline bint leaves_king_safe(Context* c, BoardState* s, int stm, int move) noexcept nogil:
    cdef bint safe
    bs_make(s, move)
    safe = not bs_king_attacked_by(s, stm, c.kinds[stm ^ 1])
    bs_unmake(s)
    return safe


cdef void init_entry(Context* c, BoardState* s, int64_t idx) noexcept nogil:
    """Both sides' codes of ``idx`` from its captures alone, on one decoding of the board."""
    cdef int stm
    cdef bint needed[2]
    for stm in range(2):
        needed[stm] = c.draw_hint[stm] == NULL or not tb_bit(c.draw_hint[stm], idx)
        if not needed[stm]:
            c.values[stm][idx] = 0      # 0 by DTM's first sweep, or a DTM draw
    if not (needed[0] or needed[1]):
        return
    if place(c, s, idx) < 0:            # two pieces on one point
        for stm in range(2):
            if needed[stm]:
                c.values[stm][idx] = ILLEGAL
        return
    for stm in range(2):
        if needed[stm]:
            init_position(c, s, stm, idx)


cdef void init_position(Context* c, BoardState* s, int stm, int64_t idx) noexcept nogil:
    """Code of ``idx`` (decoded on ``s``) from its captures alone.  Works on pseudo-legal
    moves: an illegal capture lands on an ILLEGAL sub-table entry, so legality is tested only
    there and for quiet moves until one legal, allowed quiet move is found (all the code needs
    to know).  Leaves ``s`` as it found it, but for the side to move."""
    cdef int moves[MAX_MOVES]
    cdef int64_t sidxs[MAX_MOVES]
    cdef int n, i, captured, code, plies, d
    cdef int best_win = BIG, worst_loss = -1, captures = 0
    cdef bint escape = False, quiet = False, restricted
    cdef SubTable* t
    # The position's legality, with the attack test cut down to the material's piece types.
    s.turn = stm
    if bs_king_attacked_by(s, stm ^ 1, c.kinds[stm]):
        c.values[stm][idx] = ILLEGAL
        return
    n = bs_pseudo_moves(s, moves)
    # Every capture's sub-table index first, its code prefetched, so that the cache misses
    # of the sub-tables' reads overlap.
    for i in range(n):
        captured = s.squares[xq_move_to(moves[i])]
        if captured != EMPTY:
            bs_make(s, moves[i])
            sidxs[i] = sub_index(&c.subs[(captured >> 3) & 1][captured & 7], s)
            bs_unmake(s)
    for i in range(n):
        captured = s.squares[xq_move_to(moves[i])]
        if captured == EMPTY:
            continue
        t = &c.subs[(captured >> 3) & 1][captured & 7]
        # the side to move after the capture: stm's opponent
        code = sub_value(c, t, stm ^ 1 ^ t.flip, sidxs[i]) if sidxs[i] >= 0 else ILLEGAL
        if code == ILLEGAL and not leaves_king_safe(c, s, stm, moves[i]):
            continue
        captures += 1
        if code == 0 or code == ILLEGAL:
            escape = True
            continue
        plies = (code & DISTANCE_MASK) - 1
        d = conversion_distance(c, plies)
        if plies % 2 == 0:
            if d + 1 < best_win:
                best_win = d + 1
        elif d + 1 > worst_loss:
            worst_loss = d + 1
    if best_win < BIG:
        c.values[stm][idx] = TENTATIVE | (best_win + 1)
        tb_set_bit(c.tentative[stm], idx)
        return
    if escape:
        c.values[stm][idx] = 0
        return
    restricted = must_stop_checking(c, stm, idx)
    for i in range(n):
        if s.squares[xq_move_to(moves[i])] != EMPTY or not leaves_king_safe(c, s, stm, moves[i]):
            continue
        if restricted:
            bs_make(s, moves[i])
            quiet = not forbidden(c, s, stm, moved_index(c, s, idx, moves[i]), moves[i])
            bs_unmake(s)
        else:
            quiet = True
        if quiet:
            break
    if quiet:
        c.values[stm][idx] = 0
    elif captures == 0:
        # mated or stalemated, or only forbidden perpetual checks left: lost, distance 0
        c.values[stm][idx] = 1
    else:
        c.values[stm][idx] = TENTATIVE | (worst_loss + 1)
        tb_set_bit(c.tentative[stm], idx)


cdef int64_t expand_word(Context* c, BoardState* s, int stm, int64_t base, uint64_t bits,
                         int n) noexcept nogil:
    """Predecessors of the frontier positions ``base + b`` for each bit b of ``bits``
    (distance n-1, ``stm`` to move), two at a time: the predecessors of one are found (their
    codes prefetched) before those of the one before are read, so that the cache misses of
    one position's reads overlap the work on the next.  Finding predecessors reads no code,
    so the order changes nothing."""
    cdef int64_t pidxs[2][MAX_MOVES * 2]
    cdef int kept[2]
    cdef int this = 0
    cdef bint waiting = False
    cdef int64_t changed = 0
    while bits:
        kept[this] = find_predecessors(c, s, stm, base + __builtin_ctzll(bits), n, pidxs[this])
        bits &= bits - 1
        if waiting:
            changed += mark_found(c, stm ^ 1, pidxs[this ^ 1], kept[this ^ 1], n)
        waiting = True
        this ^= 1
    if waiting:
        changed += mark_found(c, stm ^ 1, pidxs[this ^ 1], kept[this ^ 1], n)
    return changed


cdef int find_predecessors(Context* c, BoardState* s, int stm, int64_t idx, int n,
                           int64_t* pidxs) noexcept nogil:
    """The indexes of the predecessors of frontier position ``idx`` (distance n-1, ``stm`` to
    move) that may change, into ``pidxs`` (their count returned), their codes prefetched."""
    cdef int unmoves[MAX_MOVES * 2]
    cdef int k, count, kept = 0, pred = stm ^ 1
    cdef int64_t pidx
    cdef int64_t digits[MAX_GROUPS]
    cdef bint lost = (n - 1) % 2 == 0
    if decode(c, s, stm, idx) < 0:
        return 0
    ix_digits(c.ix, idx, digits)
    count = bs_unmoves(s, pred, unmoves)
    # bs_make moves a piece of the side to move: play the reversed move as ``pred`` (when
    # quiet_index needs the board).  The predecessor has ``pred`` to move; its legality
    # needs ``stm``'s king not attacked.
    s.turn = pred
    # Every predecessor's index, each code prefetched: the codes lie far apart in a large
    # table (a rook's move changes a high digit), and asking for all of them before reading
    # any lets the cache misses overlap.
    for k in range(count):
        # No legality test: a predecessor with ``stm``'s king attacked is stored as ILLEGAL
        # (by init_position, like its mirror twin) and skipped below; reading its code is
        # cheaper than bs_king_attacked.  Nor is the un-move played: its index is all we need.
        pidx = quiet_index(c, s, idx, digits, unmoves[k])
        if pidx < 0:
            continue
        # A win's predecessor matters only as a candidate loss, and with the DTM hints only
        # a DTM loss can be one: test the bitmap before the (larger, colder) code array.
        if not lost and c.loss_hint[pred] != NULL and not tb_bit(c.loss_hint[pred], pidx):
            continue
        __builtin_prefetch(&c.values[pred][pidx])
        pidxs[kept] = pidx
        kept += 1
    return kept


cdef int64_t mark_found(Context* c, int pred, const int64_t* pidxs, int kept,
                        int n) noexcept nogil:
    """Mark the ``kept`` predecessors ``pidxs`` of a frontier position of distance n-1: wins
    at n (a loss's predecessors; their number returned) or candidate losses."""
    cdef int k
    cdef int64_t pidx, twin, changed = 0
    cdef uint16_t pc
    cdef bint lost = (n - 1) % 2 == 0
    for k in range(kept):
        pidx = pidxs[k]
        pc = c.values[pred][pidx]
        # Decided (or ILLEGAL) entries never change, and twins always hold the same code
        # (each mark below writes both): nothing to do for either.
        if pc != 0 and not (pc & TENTATIVE and pc != ILLEGAL):
            continue
        # A position whose Red group is symmetric is stored twice (itself and its mirror
        # image); both twins get the value.
        twin = ix_twin(c.ix, pidx) if ix_has_twin(c.ix, pidx) else pidx
        changed += mark_predecessor(c, pred, pidx, lost, n)
        if twin != pidx:
            changed += mark_predecessor(c, pred, twin, lost, n)
    return changed


cdef inline int64_t mark_predecessor(Context* c, int pred, int64_t pidx, bint lost, int n) noexcept nogil:
    cdef uint16_t pc = c.values[pred][pidx]
    if lost:
        if pc == 0 or ((pc & TENTATIVE) and pc != ILLEGAL and (pc & DISTANCE_MASK) > n + 1):
            c.values[pred][pidx] = n + 1
            tb_set_bit(c.next_frontier[pred], pidx)
            return 1
    elif pc == 0 and (c.loss_hint[pred] == NULL or tb_bit(c.loss_hint[pred], pidx)):
        tb_set_bit(c.candidates[pred], pidx)
    return 0


cdef inline bint settled_win_within(int code, int n, int longest) noexcept nogil:
    """Is the quiet successor's ``code`` a decided win for its side to move, of at most
    ``longest`` plies and within pass ``n`` (candidate_move counts it 1, ``longest``
    unchanged)?"""
    cdef int plies
    if code == 0 or code == ILLEGAL or (code & TENTATIVE):
        return False
    plies = (code & DISTANCE_MASK) - 1
    return plies % 2 == 1 and plies <= n - 1 and plies <= longest


cdef inline int candidate_move(Context* c, BoardState* s, int stm, int64_t idx,
                               int64_t sidx, int move, bint restricted, int n,
                               int* longest) noexcept nogil:
    """One pseudo-legal move of candidate ``idx``: 1 if it leads to a decided win for the
    opponent (``longest`` updated) or is not a move (illegal or a forbidden check), 0 if it
    keeps the candidate from being lost now.  ``sidx``: a quiet move's successor index
    (quiet_index; unused for a capture)."""
    cdef int captured = s.squares[xq_move_to(move)]
    cdef int code, plies, d
    cdef bint illegal, check
    if captured != EMPTY:
        code = successor_code(c, s, stm, idx, move, restricted, True)
    else:
        # A quiet move is played only when the perpetual-check rule needs the board.
        code = c.values[stm ^ 1][sidx] if sidx >= 0 else ILLEGAL
        if restricted and sidx >= 0 and tb_bit(c.victim[stm ^ 1], sidx) \
                and not settled_win_within(code, n, longest[0]):
            # Is it a forbidden perpetual attack (the test is costly under the Chinese
            # rules)?  Not asked where the answer changes nothing: a decided win for the
            # opponent no longer than ``longest`` counts 1 either way.
            bs_make(s, move)
            check = rule_attack(c, s, move)
            bs_unmake(s)
            if check:
                return 1                # a forbidden perpetual check (or chase)
    if code == FORBIDDEN:
        return 1
    if code == ILLEGAL:
        # An illegal move (own king left attacked) lands on an ILLEGAL entry, in this table
        # and in the sub-tables alike; a legal move there keeps the candidate undecided, as
        # in the legal-move version.  Testing legality only here skips bs_legal_moves.
        bs_make(s, move)
        illegal = bs_king_attacked_by(s, stm, c.kinds[stm ^ 1])
        bs_unmake(s)
        return 1 if illegal else 0
    if code == 0 or (code & TENTATIVE):
        return 0
    plies = (code & DISTANCE_MASK) - 1
    if plies % 2 == 0:
        return 0
    if captured != EMPTY:
        d = conversion_distance(c, plies)
    else:
        if plies > n - 1:
            return 0
        d = plies
    if d > longest[0]:
        longest[0] = d
    return 1


cdef int64_t verify_candidate(Context* c, BoardState* s, int stm, int64_t idx, int n) noexcept nogil:
    """Decide candidate ``idx``: lost if every move leads to a decided win for the opponent.

    Most candidates are not lost and are verified again each time one more successor becomes
    a win, so the check stops at the first move that is not a win: quiet moves (a cheap
    incremental index, likeliest to be undecided) before captures (a full sub-table encode),
    and pseudo-legal moves, legality tested only where the successor's entry is ILLEGAL.
    The verdict does not depend on the order.  The quiet moves' successor indexes are
    computed once, and their codes prefetched before any is read: the reads lie far apart
    in a large table, and asked for together their cache misses overlap."""
    cdef int moves[MAX_MOVES]
    cdef int64_t sidxs[MAX_MOVES]
    cdef int count, i, longest = -1
    cdef int64_t digits[MAX_GROUPS]
    cdef int64_t sidx
    cdef bint restricted, by_bitmap
    cdef uint16_t* opponent = c.values[stm ^ 1]
    if c.values[stm][idx] != 0 or decode(c, s, stm, idx) < 0:
        return 0
    ix_digits(c.ix, idx, digits)
    restricted = must_stop_checking(c, stm, idx)
    count = bs_pseudo_moves(s, moves)
    by_bitmap = not restricted and c.won[0] != NULL
    for i in range(count):
        sidx = -1
        if s.squares[xq_move_to(moves[i])] == EMPTY:
            sidx = quiet_index(c, s, idx, digits, moves[i])
            # First the quiet moves against the bitmap of the opponent's earlier wins (and
            # ILLEGAL entries), an eighth of a code's bits and so mostly in cache: a move to
            # an entry outside it reaches a legal position that is no decided win of
            # distance up to n - 1, which keeps the candidate from being lost now
            # (candidate_move returns 0 for it).  Only a candidate left with no such move is
            # checked on the codes below.
            if by_bitmap and sidx >= 0 and not tb_bit(c.won[stm ^ 1], sidx):
                return 0
        sidxs[i] = sidx
    for i in range(count):
        if sidxs[i] >= 0:
            __builtin_prefetch(&opponent[sidxs[i]])
    for i in range(count):
        if s.squares[xq_move_to(moves[i])] == EMPTY and \
                not candidate_move(c, s, stm, idx, sidxs[i], moves[i], restricted, n, &longest):
            return 0
    for i in range(count):
        if s.squares[xq_move_to(moves[i])] != EMPTY and \
                not candidate_move(c, s, stm, idx, -1, moves[i], restricted, n, &longest):
            return 0
    if longest + 1 == n:
        c.values[stm][idx] = n + 1
        tb_set_bit(c.next_frontier[stm], idx)
    else:
        c.values[stm][idx] = TENTATIVE | (longest + 2)
        tb_set_bit(c.tentative[stm], idx)
    return 1


cdef list setup_context(Context* c, Indexer indexer, uint16_t[::1] red_values,
                        uint16_t[::1] black_values, list subs, bint capture_resets,
                        int capture_limit, rules):
    """Fill ``c``; returns the Python objects whose buffers it points into (keep them alive).

    ``rules``: None, or (checker red, checker black, victim red, victim black) uint64
    bitmaps of the perpetual-check rule (see :func:`perpetual_check_sets`), and optionally
    what the checkers must stop (RULES_CHECK, the default, or RULES_CHINESE)."""
    cdef int color, kind, i
    cdef uint16_t[::1] sub_red, sub_black
    cdef uint8_t[::1] narrow_red, narrow_black
    cdef uint64_t[::1] packed_red, packed_black
    cdef Indexer sub_ix
    keep = []
    ix_prepare_moves(&indexer.data)     # the passes' quiet moves by table (the re-check's not)
    c.ix = &indexer.data
    c.values[0] = &red_values[0]
    c.values[1] = &black_values[0]
    c.capture_resets = capture_resets
    c.capture_limit = capture_limit
    for color in range(2):
        c.kinds[color] = 0
        for kind in range(8):
            if indexer.data.count_of[color][kind] > 0:
                c.kinds[color] |= 1 << kind
        c.kinds[color] |= 1 << KING
    for color in range(2):
        for kind in range(8):
            c.subs[color][kind].ix = NULL
            for i in range(2):          # each sub-table's codes in one of the three forms
                c.subs[color][kind].values[i] = NULL
                c.subs[color][kind].narrow[i] = NULL
                c.subs[color][kind].outcomes[i] = NULL
    for color, kind, sub_ix, red, black, flip in subs:
        c.subs[color][kind].ix = &sub_ix.data
        c.subs[color][kind].flip = flip
        if memoryview(red).format == "Q":
            # Outcomes only (pack_outcomes): enough for a metric whose count ends at the
            # capture, whose limit they were packed with.
            if not capture_resets:
                raise ValueError("packed sub-table outcomes need a metric that ends at the "
                                 "capture")
            packed_red, packed_black = red, black
            if packed_red.shape[0] < (sub_ix.data.size + 31) // 32 or \
                    packed_black.shape[0] < (sub_ix.data.size + 31) // 32:
                raise ValueError("packed sub-table outcomes too short")
            keep.append((sub_ix, packed_red, packed_black))
            c.subs[color][kind].outcomes[0] = &packed_red[0]
            c.subs[color][kind].outcomes[1] = &packed_black[0]
        elif memoryview(red).format == "B":
            # The codes in a byte each (narrow_codes).
            narrow_red, narrow_black = red, black
            if narrow_red.shape[0] < sub_ix.data.size or narrow_black.shape[0] < sub_ix.data.size:
                raise ValueError("narrow sub-table codes too short")
            keep.append((sub_ix, narrow_red, narrow_black))
            c.subs[color][kind].narrow[0] = &narrow_red[0]
            c.subs[color][kind].narrow[1] = &narrow_black[0]
        else:
            sub_red, sub_black = red, black
            keep.append((sub_ix, sub_red, sub_black))
            c.subs[color][kind].values[0] = &sub_red[0]
            c.subs[color][kind].values[1] = &sub_black[0]
    c.states = NULL
    c.placed = NULL
    c.attacks = RULES_CHECK
    for i in range(2):
        c.checker[i] = NULL
        c.victim[i] = NULL
        c.draw_hint[i] = NULL
        c.loss_hint[i] = NULL
        c.next_frontier[i] = NULL
        c.tentative[i] = NULL
        c.won[i] = NULL
    if rules is not None:
        attach_bitmaps(keep, rules, indexer.data.size, c.checker, c.victim)
        if len(rules) > 4:
            c.attacks = rules[4]        # RuleBitmaps.attacks: what the checkers must stop
    return keep


cdef Placed* no_placements(int threads) noexcept:
    """One record per thread board of what was last decoded on it: nothing yet (NULL if
    out of memory)."""
    cdef Placed* placed = <Placed*> malloc(threads * sizeof(Placed))
    cdef int t
    if placed != NULL:
        for t in range(threads):
            placed[t].uid = -1
    return placed


cdef attach_bitmaps(list keep, bitmaps, int64_t size, uint64_t** first, uint64_t** second):
    """Point ``first[0..1]`` and ``second[0..1]`` at the four ``bitmaps`` (kept alive in
    ``keep``), checking that each covers ``size`` entries."""
    cdef uint64_t[::1] bits
    cdef int i
    for i in range(4):
        bits = bitmaps[i]
        if bits.shape[0] < (size + 63) // 64:
            raise ValueError("bitmap too short for the table")
        keep.append(bits)
        if i < 2:
            first[i] = &bits[0]
        else:
            second[i - 2] = &bits[0]


cdef inline uint64_t settle_tentatives(Context* c, int stm, int64_t w, int n,
                                       int64_t* pending) noexcept nogil:
    """End of pass n for the tentative codes of bitmap word ``w``: those of distance n take
    effect (returned as bits, they join the next frontier), those overwritten by a decided
    code leave the set, the others are counted in ``pending``."""
    cdef uint64_t bits = c.tentative[stm][w], keep = bits, ready = 0, bit
    cdef int64_t idx, p = 0
    cdef uint16_t code
    cdef uint16_t* values = c.values[stm]
    while bits:
        bit = bits & (~bits + 1)
        bits ^= bit
        idx = w * 64 + __builtin_ctzll(bit)
        code = values[idx]
        if (code & TENTATIVE) and code != ILLEGAL:
            if (code & DISTANCE_MASK) == n + 1:
                values[idx] = n + 1
                ready |= bit
                keep ^= bit
            else:
                p += 1
        else:
            keep ^= bit
    c.tentative[stm][w] = keep
    pending[0] += p
    return ready


def retrograde(Indexer indexer, uint16_t[::1] red_values, uint16_t[::1] black_values, list subs,
               bint capture_resets=False, int capture_limit=0, int threads=1, progress=None,
               rules=None, hints=None, timings=None, sweep_zeros=None):
    """Fill ``red_values``/``black_values`` (length ``indexer.size``) with the solved codes.

    ``subs``: (colour, piece type, Indexer, red values, black values, flip) for each kind of
    capture.  With ``capture_limit`` (DTC60), a sub-table value beyond that many plies counts
    as a draw.  ``hints``: :func:`outcome_bitmaps` of the DTM build (zero red, zero black,
    loss red, loss black): a DTM draw is a draw by every metric and only a DTM loss can be
    lost (DTC60 turns some results into draws, never a draw into a result), so known draws
    are not evaluated and only known losses are verified as candidates.  The zero bitmaps
    may also hold the entries DTM's first sweep left at code 0 (``sweep_zeros`` of the DTM
    build): this metric's first sweep would write 0 there too, so they are not evaluated
    either.  (A first-sweep 0 is a legal position with no winning capture and a drawing
    capture or an allowed quiet move; a later metric's sub-tables give the captures the same
    outcomes, but for DTC60's draws of conversions beyond its limit, which add drawing
    captures and never winning ones, and legality and the perpetual-check sets are the
    same.)  The values do not depend on them (the re-check runs without).  ``timings``: a dict that receives (adds to)
    the wall and CPU seconds of the phases: ``first_sweep`` (every position from its captures),
    ``unmoves`` (predecessors of each pass's frontier), ``candidates`` (their forward check)
    and ``settle`` (the next frontier).  ``sweep_zeros``: two bitmaps (red, black), cleared
    and then set where the first sweep left code 0 (a DTM build's, for the ``hints`` of the
    later metrics).  Returns the number of passes.
    """
    cdef Context c
    cdef int64_t size = indexer.data.size, idx, w, words, found, pending, decided, waiting
    cdef int stm, n, t, color, kind, tid
    cdef bint stopped = False
    cdef uint64_t bits
    cdef BoardState* states
    cdef Placed* placed
    cdef uint16_t code
    # The positions decided at the last pass (code n), so that a pass visits its frontier
    # without scanning every code: a bitmap per side, set as they are found.
    cdef uint64_t* frontier[2]
    cdef uint64_t* bitmaps
    cdef uint64_t* zeros[2]
    cdef PhaseClock clock
    keep = setup_context(&c, indexer, red_values, black_values, subs, capture_resets,
                         capture_limit, rules)
    c.threads = threads
    words = (size + 63) // 64
    if hints is not None:
        attach_bitmaps(keep, hints, size, c.draw_hint, c.loss_hint)
    zeros[0] = zeros[1] = NULL
    if sweep_zeros is not None:
        attach_bitmaps(keep, (*sweep_zeros, *sweep_zeros), size, zeros, zeros)
        for stm in range(2):
            memset(zeros[stm], 0, words * sizeof(uint64_t))
    # Per side: candidates, frontier, next frontier, tentative codes, earlier wins.
    bitmaps = zeroed_bits(10 * words)
    states = <BoardState*> malloc(threads * sizeof(BoardState))
    placed = no_placements(threads)
    if bitmaps == NULL or states == NULL or placed == NULL:
        free_bits(bitmaps)
        free(states)
        free(placed)
        raise MemoryError("not enough memory for the build's bitmaps")
    c.states = states
    c.placed = placed
    for t in range(2):
        c.candidates[t] = bitmaps + (5 * t) * words
        frontier[t] = bitmaps + (5 * t + 1) * words
        c.next_frontier[t] = bitmaps + (5 * t + 2) * words
        c.tentative[t] = bitmaps + (5 * t + 3) * words
        c.won[t] = bitmaps + (5 * t + 4) * words
    for t in range(threads):
        bs_init(&states[t])
    n = 0
    clock = PhaseClock(timings)
    tb_guard_begin()
    try:
        for idx in prange(size, nogil=True, num_threads=threads, schedule="dynamic",
                          chunksize=1024):
            if tb_stopping():
                continue
            init_entry(&c, &states[threadid()], idx)
        for stm in range(2):
            for idx in prange(size, nogil=True, num_threads=threads, schedule="static"):
                code = c.values[stm][idx]
                if code == 1:
                    tb_set_bit(frontier[stm], idx)
                elif code == ILLEGAL:
                    tb_set_bit(c.won[stm], idx)     # not a move: as good as a win for the check
                elif code == 0 and zeros[stm] != NULL:
                    tb_set_bit(zeros[stm], idx)
        clock.lap("first_sweep")
        n = 1
        while not tb_stopping():
            decided = 0
            for stm in range(2):
                for w in prange(words, nogil=True, num_threads=threads, schedule="dynamic",
                                chunksize=16):
                    bits = frontier[stm][w]
                    if bits == 0 or tb_stopping():
                        continue
                    frontier[stm][w] = 0
                    decided += expand_word(&c, &states[threadid()], stm, w * 64, bits, n)
            clock.lap("unmoves")
            for stm in range(2):
                for w in prange(words, nogil=True, num_threads=threads, schedule="dynamic",
                                chunksize=64):
                    bits = c.candidates[stm][w]
                    if bits == 0 or tb_stopping():
                        continue
                    c.candidates[stm][w] = 0
                    tid = threadid()
                    for t in range(64):
                        if (bits >> t) & 1:
                            decided += verify_candidate(&c, &states[tid], stm, w * 64 + t, n)
            clock.lap("candidates")
            if tb_stopping():
                break                   # a pass left half done: its values are discarded
            # The next frontier: what this pass decided, and the tentative values of distance
            # n that take effect now; count what is still pending.  (The frontier's words
            # were all cleared as they were expanded.)
            found = 0
            pending = 0
            for stm in range(2):
                for w in prange(words, nogil=True, num_threads=threads, schedule="static"):
                    bits = c.next_frontier[stm][w]
                    if c.tentative[stm][w]:
                        waiting = 0
                        bits = bits | settle_tentatives(&c, stm, w, n, &waiting)
                        pending += waiting
                    if bits:
                        c.next_frontier[stm][w] = 0
                        frontier[stm][w] = bits
                        found += __builtin_popcountll(bits)
                        if n % 2 == 1:
                            # Every code of pass n has distance n: odd, wins, which the
                            # candidate checks of the later passes read as decided.
                            c.won[stm][w] |= bits
            if progress is not None:
                progress(n, found)
            clock.lap("settle")
            if found == 0 and pending == 0:
                break
            n += 1
            if n >= DISTANCE_MASK - 2:
                raise OverflowError("distance exceeds the table format's range")
    finally:
        for t in range(threads):
            bs_free(&states[t])
        free(states)
        free(placed)
        free_bits(bitmaps)
        stopped = tb_guard_end()
    if stopped:
        raise_interrupted()
    return n


DEF MAX_METRICS = 3


# The re-check's metrics: one Context each, sharing the index, the rule bitmaps and the
# sub-tables' indexes (each sub-table of every metric is the same material).
cdef struct Metrics:
    int count
    Context c[MAX_METRICS]


cdef void expected_codes(Metrics* m, BoardState* s, int stm, int64_t idx,
                         int* expected) noexcept nogil:
    """The code ``idx`` must have by each metric (``expected[k]``), computed from its
    successors' stored codes alone, on the board of ``idx`` already set up on ``s`` (left as
    found, but for the side to move).  The moves, their legality and their successors'
    indexes are worked out once for all the metrics; each metric then reads its own codes.

    Pseudo-legal moves, each played only where the answer needs the board: a capture (its
    legality tested as it is played, and the sub-table encoded from the board), a move of
    Red's defender group that reflects the position (indexed by the full encode: the
    re-check does not share the builder's incremental path there; the other moves of that
    group take its new key alone, which is what the full encode computes), a quiet move landing on an ILLEGAL entry of
    some metric (legal: that metric's table is corrupt; illegal: not a move) or on a
    perpetual-check victim.  A quiet move landing on a legal entry is taken as legal without
    the test: an illegal move reaches a position whose mover's king is attacked, which a
    sound table stores as ILLEGAL, and an entry that is not is itself reported when the
    re-check reaches it (its expected code is ILLEGAL), so the table fails either way."""
    cdef int moves[MAX_MOVES]
    cdef int64_t sidxs[MAX_MOVES]
    cdef int count, i, k, captured, code, plies, d, piece, tested
    cdef int best_win[MAX_METRICS]
    cdef int longest_loss[MAX_METRICS]
    cdef int allowed[MAX_METRICS]
    cdef bint draw[MAX_METRICS]
    cdef bint corrupt[MAX_METRICS]
    cdef int codes[MAX_METRICS]
    cdef bint restricted, attacked, forbidden_check, victim
    cdef int64_t sidx
    cdef int64_t digits[MAX_GROUPS]
    cdef Context* c0 = &m.c[0]
    cdef SubTable* t
    s.turn = stm
    ix_digits(c0.ix, idx, digits)
    if bs_king_attacked(s, stm ^ 1):
        for k in range(m.count):
            expected[k] = ILLEGAL
        return
    for k in range(m.count):
        best_win[k] = BIG
        longest_loss[k] = -1
        allowed[k] = 0
        draw[k] = False
        corrupt[k] = False
    count = bs_pseudo_moves(s, moves)
    restricted = must_stop_checking(c0, stm, idx)
    # The quiet moves' indexes first, their codes prefetched so that the cache misses of a
    # large table overlap (every successor is read: nothing is computed in vain).
    for i in range(count):
        if s.squares[xq_move_to(moves[i])] != EMPTY:
            continue
        piece = s.squares[xq_move_from(moves[i])]
        sidx = ix_quiet_index(c0.ix, idx, digits, (piece >> 3) & 1, piece & 7,
                              sq90_of(xq_move_from(moves[i])), sq90_of(xq_move_to(moves[i])),
                              False)
        if sidx == -2:
            bs_make(s, moves[i])
            sidx = ix_encode(c0.ix, s, 0)
            bs_unmake(s)
        if sidx >= 0:
            for k in range(m.count):
                __builtin_prefetch(&m.c[k].values[stm ^ 1][sidx])
        sidxs[i] = sidx
    for i in range(count):
        captured = s.squares[xq_move_to(moves[i])]
        if captured != EMPTY:
            bs_make(s, moves[i])
            if bs_king_attacked(s, stm):
                bs_unmake(s)
                continue                # not a legal move
            t = &c0.subs[(captured >> 3) & 1][captured & 7]
            sidx = ix_encode(t.ix, s, t.flip) if t.ix != NULL else -1
            for k in range(m.count):
                t = &m.c[k].subs[(captured >> 3) & 1][captured & 7]
                if sidx < 0 or t.ix == NULL:
                    codes[k] = ILLEGAL
                else:
                    codes[k] = sub_value(&m.c[k], t, s.turn ^ t.flip, sidx)
            bs_unmake(s)
        else:
            sidx = sidxs[i]
            victim = restricted and sidx >= 0 and tb_bit(c0.victim[stm ^ 1], sidx)
            tested = victim
            for k in range(m.count):
                codes[k] = m.c[k].values[stm ^ 1][sidx] if sidx >= 0 else ILLEGAL
                if codes[k] == ILLEGAL:
                    tested = True
            if tested:
                # The board is needed: is the move legal, is it a forbidden check?  (The
                # same answer for every metric; a metric's ILLEGAL entry is then either not
                # a move or its corruption.)
                bs_make(s, moves[i])
                attacked = bs_king_attacked(s, stm)
                forbidden_check = victim and forbidden(c0, s, stm, sidx, moves[i])
                bs_unmake(s)
                for k in range(m.count):
                    if forbidden_check or (codes[k] == ILLEGAL and attacked):
                        codes[k] = FORBIDDEN    # not a move (for this metric)
        for k in range(m.count):
            code = codes[k]
            if code == FORBIDDEN or corrupt[k]:
                continue
            allowed[k] += 1
            if code == ILLEGAL:
                corrupt[k] = True       # a legal move reached an illegal entry
                continue
            if code == 0:
                draw[k] = True
                continue
            plies = (code & DISTANCE_MASK) - 1
            d = conversion_distance(&m.c[k], plies) if captured != EMPTY else plies
            if plies % 2 == 0:
                if d + 1 < best_win[k]:
                    best_win[k] = d + 1
            elif d + 1 > longest_loss[k]:
                longest_loss[k] = d + 1
    for k in range(m.count):
        if corrupt[k]:
            expected[k] = -2
        elif best_win[k] < BIG:
            expected[k] = best_win[k] + 1
        elif draw[k]:
            expected[k] = 0
        elif allowed[k] == 0:
            expected[k] = 1             # mated, stalemated or only forbidden perpetual checks
        else:
            expected[k] = longest_loss[k] + 1


cdef void expected_at(Metrics* m, BoardState* s, int64_t idx, int* expected) noexcept nogil:
    """Every metric's expected code of ``idx`` for both sides (``expected[2 * k + side]``),
    on one decoding of the board."""
    cdef int k, stm
    cdef int one[MAX_METRICS]
    if place(&m.c[0], s, idx) < 0:
        for k in range(2 * m.count):
            expected[k] = ILLEGAL
        return
    for stm in range(2):
        expected_codes(m, s, stm, idx, one)
        for k in range(m.count):
            expected[2 * k + stm] = one[k]


cdef void count_mismatches(Metrics* m, BoardState* s, int64_t idx, int64_t* bad) noexcept nogil:
    """Add to ``bad[k]`` how many of ``idx``'s two codes by metric k differ from their
    expected codes."""
    cdef int k, side
    cdef int expected[2 * MAX_METRICS]
    expected_at(m, s, idx, expected)
    for k in range(m.count):
        for side in range(2):
            if expected[2 * k + side] != m.c[k].values[side][idx]:
                bad[k] += 1


DEF PAD = 8         # per-thread counters a cache line apart


def recheck_all(Indexer indexer, list metrics, int threads=1, int max_report=20, rules=None):
    """Re-derive every code of every metric from its successors, reading each position's
    successors once for all the metrics; returns (mismatch count per metric, first
    mismatches).

    ``metrics``: one (red values, black values, subs, capture_resets, capture_limit) per
    metric (at most three), the subs of every metric listing the same sub-tables in the same
    order.  Each mismatch is (metric number, side to move, index, stored code, expected
    code), in index order, at most ``max_report`` per metric.
    """
    cdef Metrics m
    cdef int64_t size = indexer.data.size, idx
    cdef int k, t, side
    cdef int expected[2 * MAX_METRICS]
    cdef bint stopped = False
    cdef BoardState* states
    cdef int64_t* counts
    if not 1 <= len(metrics) <= MAX_METRICS:
        raise ValueError(f"one to {MAX_METRICS} metrics, not {len(metrics)}")
    keep = []
    m.count = len(metrics)
    for k, (red, black, subs, resets, limit) in enumerate(metrics):
        if len(red) != size or len(black) != size:
            raise ValueError("code arrays do not match the index size")
        keep.append(setup_context(&m.c[k], indexer, red, black, subs, resets, limit, rules))
        if k > 0 and [tuple(spec[:2]) + (spec[5],) for spec in subs] != \
                [tuple(spec[:2]) + (spec[5],) for spec in metrics[0][2]]:
            raise ValueError("every metric must list the same sub-tables")
    for k in range(m.count):
        m.c[k].threads = threads
    states = <BoardState*> malloc(threads * sizeof(BoardState))
    counts = <int64_t*> calloc(threads * PAD, sizeof(int64_t))
    m.c[0].placed = no_placements(threads)
    m.c[0].states = states
    if states == NULL or counts == NULL or m.c[0].placed == NULL:
        free(states)
        free(counts)
        free(m.c[0].placed)
        raise MemoryError()
    for t in range(threads):
        bs_init(&states[t])
    mismatches = []
    tb_guard_begin()
    try:
        for idx in prange(size, nogil=True, num_threads=threads, schedule="dynamic",
                          chunksize=1024):
            if tb_stopping():
                continue
            count_mismatches(&m, &states[threadid()], idx, &counts[threadid() * PAD])
        bad = [sum(counts[t * PAD + k] for t in range(threads)) for k in range(m.count)]
        # The first mismatches of each metric, on one thread (a failing table only).
        wanted = [min(count, max_report) for count in bad]
        reported = [0] * m.count
        if any(wanted) and not tb_stopping():
            for idx in range(size):
                expected_at(&m, &states[0], idx, expected)
                for k in range(m.count):
                    for side in range(2):
                        if expected[2 * k + side] != m.c[k].values[side][idx] \
                                and reported[k] < wanted[k]:
                            reported[k] += 1
                            mismatches.append((k, side, idx, m.c[k].values[side][idx],
                                               expected[2 * k + side]))
                if reported == wanted or tb_stopping():
                    break
    finally:
        for t in range(threads):
            bs_free(&states[t])
        free(states)
        free(counts)
        free(m.c[0].placed)
        stopped = tb_guard_end()
    if stopped:
        raise_interrupted()
    return bad, mismatches


def recheck(Indexer indexer, uint16_t[::1] red_values, uint16_t[::1] black_values, list subs,
            bint capture_resets=False, int capture_limit=0, int threads=1, int max_report=20,
            rules=None):
    """Re-derive every code of one metric from its successors (:func:`recheck_all` with one
    metric); returns (mismatch count, first mismatches), each mismatch being (side to move,
    index, stored code, expected code)."""
    bad, mismatches = recheck_all(indexer, [(red_values, black_values, subs, capture_resets,
                                             capture_limit)], threads, max_report, rules)
    return bad[0], [mismatch[1:] for mismatch in mismatches]


def pack_outcomes(uint16_t[::1] codes, uint64_t[::1] packed, int64_t start=0,
                  int capture_limit=0):
    """Pack ``codes`` (entries ``start`` on, ``start`` a multiple of 32) into ``packed``, two
    bits per entry: 0 draw, 1 lost (code 1), 2 won (code 2), 3 ILLEGAL, a code's distance
    kept only as its parity (a metric whose count ends at the capture reads no more); with
    ``capture_limit``, a code beyond that many plies is packed as a draw (DTC60)."""
    cdef int64_t i, n = codes.shape[0], entry
    cdef uint16_t code
    cdef uint64_t value
    if start % 32 or packed.shape[0] < (start + n + 31) // 32:
        raise ValueError("packed outcomes too short or start not a multiple of 32")
    with nogil:
        for i in range(n):
            code = codes[i]
            if code == ILLEGAL:
                value = 3
            elif code == 0 or (capture_limit > 0 and (code & DISTANCE_MASK) - 1 > capture_limit):
                value = 0
            else:
                value = 1 + (((code & DISTANCE_MASK) - 1) & 1)
            entry = start + i
            packed[entry >> 5] |= value << (2 * (entry & 31))


def narrow_codes(uint16_t[::1] codes, uint8_t[::1] narrow, int64_t start=0):
    """Store ``codes`` in ``narrow`` from entry ``start`` on, a byte each (ILLEGAL as 0xFF);
    False if a code does not fit in a byte (a distance beyond 253 plies: the sub-table must
    then be read in full), and then what was stored is not to be used.

    >>> import array
    >>> narrow = bytearray(4)
    >>> narrow_codes(array.array("H", [0, 3, 0xFFFF]), narrow, 1), list(narrow)
    (True, [0, 0, 3, 255])
    >>> narrow_codes(array.array("H", [255]), narrow)
    False
    """
    cdef int64_t i, n = codes.shape[0]
    cdef uint16_t code
    cdef bint fits = True
    if start < 0 or narrow.shape[0] < start + n:
        raise ValueError("narrow codes too short for the block")
    with nogil:
        for i in range(n):
            code = codes[i]
            if code == ILLEGAL:
                narrow[start + i] = NARROW_ILLEGAL
            elif code >= NARROW_ILLEGAL:
                fits = False
                break
            else:
                narrow[start + i] = <uint8_t> code
    return fits


def outcome_bitmaps(uint16_t[::1] values, uint64_t[::1] draws, uint64_t[::1] losses):
    """Set the bits of the drawn and of the lost positions of a finished metric's codes."""
    cdef int64_t i, n = values.shape[0]
    cdef uint16_t code
    if draws.shape[0] < (n + 63) // 64 or losses.shape[0] < (n + 63) // 64:
        raise ValueError("bitmap too short")
    with nogil:
        for i in range(n):
            code = values[i]
            if code == 0:
                draws[i >> 6] |= (<uint64_t> 1) << (i & 63)
            elif code != ILLEGAL and (code - 1) % 2 == 0:
                losses[i >> 6] |= (<uint64_t> 1) << (i & 63)


def first_index(uint16_t[::1] values, uint16_t code):
    """The first index holding ``code`` (-1 if none)."""
    cdef int64_t i, n = values.shape[0], found = -1
    with nogil:
        for i in range(n):
            if values[i] == code:
                found = i
                break
    return found


def histogram(uint16_t[::1] values):
    """Counts per code (a dict), illegal entries included under ILLEGAL."""
    cdef int64_t i, n = values.shape[0]
    cdef int64_t* counts = <int64_t*> calloc(65536, sizeof(int64_t))
    if counts == NULL:
        raise MemoryError()
    with nogil:
        for i in range(n):
            counts[values[i]] += 1
    result = {code: counts[code] for code in range(65536) if counts[code]}
    free(counts)
    return result



# ------------------------------------------------------------------------------------------
# The perpetual-check rule (长将): a side that can keep the draw only by checking on every
# move loses.  Given the values of a finished build, find the drawn positions where the side
# to move (the checker) has only checking moves that keep the draw, and whose opponent can
# always answer such a check with a quiet (non-checking) move back into that set.  If the
# opponent has to check back to stay there, both sides check on every move: a draw.

cdef inline int capture_code(Context* c, BoardState* s, int move, int captured) noexcept nogil:
    """The sub-table code after the capture ``move`` (which takes ``captured``)."""
    cdef int code
    bs_make(s, move)
    code = sub_code(c, s, captured)
    bs_unmake(s)
    return code


# The three scans below walk pseudo-legal moves: a move that leaves the mover's king attacked
# leads to an ILLEGAL code (in this table or a sub-table), never to a draw or into a set of
# drawn positions, so only the moves that matter need a legality or check test.

cdef bint only_checks_keep_draw(Context* c, BoardState* s, int stm, int64_t idx,
                                bint opponent_never_wins) noexcept nogil:
    """Drawn ``idx``, ``stm`` to move: does every drawing move check (and no capture draw)?
    ``opponent_never_wins``: no position of the table is won by the opponent to move, so
    every legal quiet move from this draw leads to a draw, and a legal quiet move that does
    not check answers the question without reading its code (a cache miss on large tables)."""
    cdef int moves[MAX_MOVES]
    cdef int count, i, captured, code, drawing = 0
    cdef int64_t sidx
    cdef bint check, known = False
    cdef Threats before                 # the side's threats here, for the chase test
    if decode(c, s, stm, idx) < 0:
        return False
    count = bs_pseudo_moves(s, moves)
    for i in range(count):
        captured = s.squares[xq_move_to(moves[i])]
        if captured != EMPTY:
            if capture_code(c, s, moves[i], captured) == 0:
                return False            # a capture into a drawn ending breaks any cycle
            continue
        bs_make(s, moves[i])
        if opponent_never_wins and not bs_king_attacked(s, stm) \
                and not attack_after(c, s, moves[i], &before, &known) & FORBIDDEN_ATTACKS:
            bs_unmake(s)
            return False                # a legal quiet move that keeps the draw, no attack
        sidx = moved_index(c, s, idx, moves[i])
        code = c.values[stm ^ 1][sidx] if sidx >= 0 else ILLEGAL
        check = code == 0 and \
            attack_after(c, s, moves[i], &before, &known) & FORBIDDEN_ATTACKS != 0
        bs_unmake(s)
        if code == 0:
            if not check:
                return False
            drawing += 1
    return drawing > 0


cdef bint answers_quietly_into(Context* c, BoardState* s, int stm, int64_t idx,
                               uint64_t* checker_set) noexcept nogil:
    """Has ``stm`` a quiet, non-checking move into ``checker_set``?"""
    cdef int moves[MAX_MOVES]
    cdef int count, i
    cdef int64_t sidx
    cdef bint known = False
    cdef Threats before
    if decode(c, s, stm, idx) < 0:
        return False
    count = bs_pseudo_moves(s, moves)
    for i in range(count):
        if s.squares[xq_move_to(moves[i])] != EMPTY:
            continue
        bs_make(s, moves[i])
        sidx = moved_index(c, s, idx, moves[i])
        # Under the Chinese rules the answer must be idle: no check, no mate threat, no chase,
        # not even a pawn's (27.2: a pawn's chases count when both sides attack on every move).
        if sidx >= 0 and tb_bit(checker_set, sidx) and \
                attack_after(c, s, moves[i], &before, &known) == 0:
            bs_unmake(s)
            return True
        bs_unmake(s)
    return False


cdef bint drawing_checks_trapped(Context* c, BoardState* s, int stm, int64_t idx,
                                 uint64_t* victim_set) noexcept nogil:
    """Does every drawing move of ``stm`` lead into ``victim_set``?"""
    cdef int moves[MAX_MOVES]
    cdef int count, i, code
    cdef int64_t sidx
    if decode(c, s, stm, idx) < 0:
        return False
    count = bs_pseudo_moves(s, moves)
    for i in range(count):
        if s.squares[xq_move_to(moves[i])] != EMPTY:
            continue                    # captures never draw here (see only_checks_keep_draw)
        bs_make(s, moves[i])
        sidx = moved_index(c, s, idx, moves[i])
        code = c.values[stm ^ 1][sidx] if sidx >= 0 else ILLEGAL
        bs_unmake(s)
        if code == 0 and not tb_bit(victim_set, sidx):
            return False
    return True


# What test_dirty tests again (the three tests of the rule's fixpoint).
cdef enum:
    CANDIDATE = 0       # only_checks_keep_draw: sets or clears the bit
    ANSWERS = 1         # answers_quietly_into: clears the bit where it fails
    TRAPPED = 2         # drawing_checks_trapped: the same


cdef class RuleRounds:
    """What the rule searches of one build keep from round to round, so that a round
    re-examines only the positions whose successors changed: per rule set searched (checks,
    attacks) the draws of the values it last saw, and per checker side its candidates then
    (the drawn positions that only attacks keep drawn, before the opponent's answers are
    looked at).  Whether a position is a candidate depends only on which of its successors
    are drawn (the chase test is one of the position and the move), so a round tests again
    only the predecessors of the positions whose draw changed, and the positions whose own
    draw did.  The fixpoint on the candidates is then run from them as before.

    ``examined``: the positions the last call tested (candidates, answers and traps);
    ``examined_total``: over all calls; ``full_scans``: the calls that tested every draw."""
    cdef int64_t words
    cdef uint64_t* draws[2][2]          # [rule set][side to move]
    cdef uint64_t* candidates[2][2]     # [rule set][checker]
    cdef bint known[2]
    cdef public int64_t examined, examined_total, full_scans

    def __cinit__(self, Indexer indexer):
        cdef int mode, side
        self.words = (indexer.data.size + 63) // 64
        for mode in range(2):
            for side in range(2):
                self.draws[mode][side] = zeroed_bits(self.words)
                self.candidates[mode][side] = zeroed_bits(self.words)
                if self.draws[mode][side] == NULL or self.candidates[mode][side] == NULL:
                    raise MemoryError()

    def __dealloc__(self):
        cdef int mode, side
        for mode in range(2):
            for side in range(2):
                free_bits(self.draws[mode][side])
                free_bits(self.candidates[mode][side])


cdef void draw_bits(Context* c, int side, uint64_t* out, int64_t size, int64_t words,
                    int threads) noexcept nogil:
    """``out``: the drawn positions of ``side`` to move."""
    cdef int64_t w, idx, end
    cdef uint64_t bits
    for w in prange(words, num_threads=threads, schedule="static"):
        bits = 0
        end = min(size, w * 64 + 64)
        for idx in range(w * 64, end):
            if c.values[side][idx] == 0:
                bits = bits | ((<uint64_t> 1) << (idx & 63))
        out[w] = bits


cdef int64_t test_dirty(Context* c, BoardState* states, int threads, int stm, uint64_t* dirty,
                        uint64_t* members, uint64_t* other, int test,
                        uint64_t* out_dirty, int64_t words, bint opponent_never_wins,
                        int64_t* changed) noexcept nogil:
    """Test again the positions of ``dirty`` (cleared) among ``members`` (``stm`` to move):
    ``test`` CANDIDATE sets or clears their bit by only_checks_keep_draw; ANSWERS and TRAPPED
    clear it where answers_quietly_into / drawing_checks_trapped (on ``other``) now fail,
    marking the predecessors of each cleared position in ``out_dirty``.  Returns the
    positions tested; ``changed`` receives the count of bits cleared."""
    cdef int64_t w, idx, tested = 0, cleared = 0
    cdef uint64_t bits
    cdef int bit, tid
    cdef bint keep
    for w in prange(words, num_threads=threads, schedule="dynamic", chunksize=16):
        bits = dirty[w]
        if test != CANDIDATE:
            bits = bits & members[w]
        if bits == 0 or tb_stopping():
            continue
        dirty[w] = 0
        tid = threadid()
        for bit in range(64):
            if not (bits >> bit) & 1:
                continue
            idx = w * 64 + bit
            tested += 1
            if test == CANDIDATE:
                keep = c.values[stm][idx] == 0 and \
                    only_checks_keep_draw(c, &states[tid], stm, idx, opponent_never_wins)
                if keep:
                    tb_set_bit(members, idx)
                else:
                    tb_clear_bit(members, idx)
                continue
            if test == ANSWERS:
                keep = answers_quietly_into(c, &states[tid], stm, idx, other)
            else:
                keep = drawing_checks_trapped(c, &states[tid], stm, idx, other)
            if not keep:
                tb_clear_bit(members, idx)
                mark_predecessors(c, &states[tid], stm, idx, out_dirty)
                cleared += 1
    changed[0] = cleared
    return tested


cdef void mark_all_predecessors(Context* c, BoardState* states, int threads, int stm,
                                const uint64_t* bits_of, uint64_t* dirty,
                                int64_t words) noexcept nogil:
    """Set in ``dirty`` the predecessors of every position of ``bits_of`` (``stm`` to move)."""
    cdef int64_t w
    cdef uint64_t bits
    cdef int bit
    for w in prange(words, num_threads=threads, schedule="dynamic", chunksize=16):
        bits = bits_of[w]
        if bits == 0 or tb_stopping():
            continue
        for bit in range(64):
            if (bits >> bit) & 1:
                mark_predecessors(c, &states[threadid()], stm, w * 64 + bit, dirty)


def perpetual_check_sets(Indexer indexer, uint16_t[::1] red_values, uint16_t[::1] black_values,
                         list subs, uint64_t[::1] checker_red, uint64_t[::1] checker_black,
                         uint64_t[::1] victim_red, uint64_t[::1] victim_black, int threads=1,
                         int attacks=RULES_CHECK, RuleRounds cache=None):
    """Add to the rule bitmaps the drawn positions that the perpetual-check rule decides.

    ``checker_*``: positions whose side to move can keep the draw only by perpetual check
    (it must stop checking, so it loses); ``victim_*``: the positions its checks lead to.
    ``attacks`` RULES_CHINESE: the same for perpetual attack (长将, 长捉 and their mixtures,
    tablebases._chase): the checker keeps the draw only by checks and chases, its opponent
    answers them idly.  ``cache``: the :class:`RuleRounds` of the build's earlier rounds
    (None: every draw is tested).  Returns the number of checker positions found (0: the
    values already obey the rule).

    The sets are greatest fixpoints: the checker's candidates S (every drawing move attacks)
    and the opponent's positions T with an idle move into S; a candidate with a drawing move
    out of T leaves S, a position of T without an idle move into S leaves T.  Each removal
    puts only its predecessors on the work list, so the result is that of sweeping both sets
    until nothing changes, whatever the order.
    """
    cdef Context c
    cdef int64_t size = indexer.data.size, w, words = (size + 63) // 64
    cdef int64_t found = 0, tested = 0, removed = 0
    cdef int checker, victim, t, mode = 0 if attacks == RULES_CHECK else 1
    cdef bint stopped = False, keep_rounds = cache is not None
    cdef bint incremental = keep_rounds and cache.known[mode]
    cdef uint64_t* last_draws[2]
    cdef uint64_t* last_candidates[2]
    cdef bint opponent_never_wins
    cdef uint16_t code
    cdef int64_t idx
    cdef int attacking = (1 << ROOK) | (1 << HORSE) | (1 << CANNON) | (1 << PAWN)
    cdef uint64_t* S = zeroed_bits(words)
    cdef uint64_t* T = zeroed_bits(words)
    cdef uint64_t* dirty_checker = zeroed_bits(words)
    cdef uint64_t* dirty_victim = zeroed_bits(words)
    cdef uint64_t* draws[2]
    cdef uint64_t* out_checker[2]
    cdef uint64_t* out_victim[2]
    cdef BoardState* states = <BoardState*> malloc(threads * sizeof(BoardState))
    draws[0] = zeroed_bits(words)
    draws[1] = zeroed_bits(words)
    for t in range(2):
        last_draws[t] = cache.draws[mode][t] if keep_rounds else NULL
        last_candidates[t] = cache.candidates[mode][t] if keep_rounds else NULL
    if S == NULL or T == NULL or states == NULL or dirty_checker == NULL \
            or dirty_victim == NULL or draws[0] == NULL or draws[1] == NULL:
        free_bits(S); free_bits(T); free(states); free_bits(dirty_checker)
        free_bits(dirty_victim); free_bits(draws[0]); free_bits(draws[1])
        raise MemoryError()
    keep = setup_context(&c, indexer, red_values, black_values, subs, False, 0, None)
    c.attacks = attacks
    out_checker[0] = &checker_red[0]
    out_checker[1] = &checker_black[0]
    out_victim[0] = &victim_red[0]
    out_victim[1] = &victim_black[0]
    for t in range(threads):
        bs_init(&states[t])
    tb_guard_begin()
    try:
        with nogil:
            draw_bits(&c, 0, draws[0], size, words, threads)
            draw_bits(&c, 1, draws[1], size, words, threads)
        for checker in range(2):
            victim = checker ^ 1
            if not (c.kinds[checker] & attacking):
                continue                # kings, advisors and elephants never give check
            opponent_never_wins = True
            for idx in range(size):
                code = c.values[victim][idx]
                if code != 0 and code != ILLEGAL and (code - 1) % 2 == 1:
                    opponent_never_wins = False
                    break
            with nogil:
                if incremental:
                    # The last round's candidates, tested again where a successor's draw
                    # or the position's own changed.
                    for w in range(words):
                        S[w] = last_candidates[checker][w] & draws[checker][w]
                        dirty_checker[w] = draws[checker][w] ^ last_draws[checker][w]
                        dirty_victim[w] = draws[victim][w] ^ last_draws[victim][w]
                    mark_all_predecessors(&c, states, threads, victim, dirty_victim,
                                          dirty_checker, words)
                    for w in range(words):
                        dirty_checker[w] &= draws[checker][w]
                        dirty_victim[w] = 0
                else:
                    for w in range(words):
                        S[w] = 0
                        dirty_checker[w] = draws[checker][w]
                tested += test_dirty(&c, states, threads, checker, dirty_checker, S, NULL,
                                     CANDIDATE, NULL, words, opponent_never_wins, &removed)
                if keep_rounds:
                    for w in range(words):
                        last_candidates[checker][w] = S[w]
                # T: the opponent's draws with an idle move into S, among S's predecessors.
                for w in range(words):
                    T[w] = 0
                    dirty_victim[w] = 0
                mark_all_predecessors(&c, states, threads, checker, S, dirty_victim, words)
                for w in range(words):
                    T[w] = dirty_victim[w] & draws[victim][w]
                tested += test_dirty(&c, states, threads, victim, dirty_victim, T, S,
                                     ANSWERS, dirty_checker, words, False, &removed)
                for w in range(words):
                    dirty_checker[w] = S[w]
                while not tb_stopping():
                    tested += test_dirty(&c, states, threads, checker, dirty_checker, S, T,
                                         TRAPPED, dirty_victim, words, False, &removed)
                    if removed == 0:
                        break
                    tested += test_dirty(&c, states, threads, victim, dirty_victim, T, S,
                                         ANSWERS, dirty_checker, words, False, &removed)
            if tb_stopping():
                break                   # the sets are unfinished: nothing goes out
            for w in range(words):
                found += __builtin_popcountll(S[w])
                out_checker[checker][w] |= S[w]
                out_victim[victim][w] |= T[w]
        if keep_rounds and not tb_stopping():
            for w in range(words):
                last_draws[0][w] = draws[0][w]
                last_draws[1][w] = draws[1][w]
            cache.known[mode] = True
            cache.examined = tested
            cache.examined_total += tested
            cache.full_scans += not incremental
    finally:
        for t in range(threads):
            bs_free(&states[t])
        free(states)
        free_bits(S)
        free_bits(T)
        free_bits(dirty_checker)
        free_bits(dirty_victim)
        free_bits(draws[0])
        free_bits(draws[1])
        stopped = tb_guard_end()
    if stopped:
        raise_interrupted()
    return found


# ------------------------------------------------------------------------------------------
# The chase rule (长捉) is not applied to the values; the drawn positions whose value it could
# change are marked instead (rule-tolerant, in the manner of Fang's verification).  The rule
# can only take a draw away from a side that holds it by attacking on every move of a cycle,
# so a draw is safe when each side can hold it while never attacking: no check, and no
# capture of material (not the king, not a pawn on its own side) by a piece other than the
# king left available for its next move.  That is a superset of the 捉 of the rules, so the
# marks over-approximate: every position whose value could change is marked.  A capture
# leaves the table and ends any cycle; the sub-table's own marks then apply.

cdef inline bint pawn_at_home(int piece, int sq) noexcept nogil:
    cdef int rank = (sq >> 4) - 3
    if (piece & 7) != PAWN:
        return False
    return rank <= 4 if (piece & BLACK_BIT) == 0 else rank >= 5


cdef bint can_capture_material(BoardState* s, int mover) noexcept nogil:
    """``mover`` to move: has it a capture of material by a piece other than its king?"""
    cdef int moves[MAX_MOVES]
    cdef int count, i, victim, to
    cdef bint legal
    count = bs_pseudo_moves(s, moves)
    for i in range(count):
        to = xq_move_to(moves[i])
        victim = s.squares[to]
        if victim != EMPTY and (victim & 7) != KING and not pawn_at_home(victim, to) \
                and (s.squares[xq_move_from(moves[i])] & 7) != KING:
            bs_make(s, moves[i])
            legal = not bs_king_attacked(s, mover)
            bs_unmake(s)
            if legal:
                return True
    return False


cdef bint wins_material_by_check(BoardState* s, int mover) noexcept nogil:
    """``mover`` to move: has it a check after which every reply leaves a capture of
    material (29.1: material won by checking)?"""
    cdef int moves[MAX_MOVES]
    cdef int replies[MAX_MOVES]
    cdef int count, i, n, j
    cdef bint every
    count = bs_pseudo_moves(s, moves)
    for i in range(count):
        if s.squares[xq_move_to(moves[i])] != EMPTY:
            continue                # a capturing check is counted as a capture already
        bs_make(s, moves[i])
        if bs_king_attacked(s, mover ^ 1) and not bs_king_attacked(s, mover):
            n = bs_legal_moves(s, replies)
            every = n > 0
            for j in range(n):
                bs_make(s, replies[j])
                every = can_capture_material(s, mover)
                bs_unmake(s)
                if not every:
                    break
            if every:
                bs_unmake(s)
                return True
        bs_unmake(s)
    return False


cdef bint threatens_material(BoardState* s, int mover) noexcept nogil:
    """After a move of ``mover`` (its opponent to move): could ``mover``, moving again,
    capture material with a piece other than its king, at once or after one check?"""
    cdef bint threat
    s.turn = mover
    threat = can_capture_material(s, mover) or wins_material_by_check(s, mover)
    s.turn = mover ^ 1
    return threat


cdef bint is_calm(Context* c, BoardState* s, int stm, int64_t idx) noexcept nogil:
    """Position ``idx`` with ``stm`` to move, reached by a move of the other side: was that
    move free of attack (no check, no threat of material for the mover's next move)?  A
    property of the position alone (the test is mirror-symmetric, so it holds for the
    position a move reached as for its stored index)."""
    if decode(c, s, stm, idx) < 0 or bs_king_attacked(s, stm):
        return False
    return not threatens_material(s, stm ^ 1)


cdef bint holds_without_attacking(Context* c, BoardState* s, int stm, int64_t idx,
                                  uint64_t* next_set, uint64_t* calm) noexcept nogil:
    """``stm`` (the holder) to move: has it a move that neither checks nor threatens material
    and stays in ``next_set``, or a capture into a drawn sub-ending?  ``calm``: the
    :func:`is_calm` bits of the opponent's drawn positions, computed once, since the threat
    search is the costly part and the fixpoint asks it again of every move on every round."""
    cdef int moves[MAX_MOVES]
    cdef int count, i, captured
    cdef int64_t sidx
    cdef bint ok
    if decode(c, s, stm, idx) < 0:
        return False
    # Pseudo-legal moves, as in the perpetual-check scans: an illegal move never reaches a
    # drawn position.
    count = bs_pseudo_moves(s, moves)
    for i in range(count):
        captured = s.squares[xq_move_to(moves[i])]
        if captured != EMPTY:
            if capture_code(c, s, moves[i], captured) == 0:
                return True
            continue
        bs_make(s, moves[i])
        sidx = moved_index(c, s, idx, moves[i])
        ok = sidx >= 0 and tb_bit(next_set, sidx) and tb_bit(calm, sidx)
        bs_unmake(s)
        if ok:
            return True
    return False


cdef void mark_predecessors(Context* c, BoardState* s, int stm, int64_t idx,
                            uint64_t* dirty) noexcept nogil:
    """Set in ``dirty`` every position (the other side to move) with a quiet move into
    ``idx`` (``stm`` to move), and its twin: the positions whose test may change when
    ``idx`` leaves its set."""
    cdef int unmoves[MAX_MOVES * 2]
    cdef int k, count
    cdef int64_t pidx
    cdef int64_t digits[MAX_GROUPS]
    if decode(c, s, stm, idx) < 0:
        return
    ix_digits(c.ix, idx, digits)
    count = bs_unmoves(s, stm ^ 1, unmoves)
    s.turn = stm ^ 1                    # quiet_index may play the un-move
    for k in range(count):
        pidx = quiet_index(c, s, idx, digits, unmoves[k])
        if pidx < 0:
            continue
        tb_set_bit(dirty, pidx)
        if ix_has_twin(c.ix, pidx):
            tb_set_bit(dirty, ix_twin(c.ix, pidx))


def chase_sensitive_draws(Indexer indexer, uint16_t[::1] red_values,
                          uint16_t[::1] black_values, list subs, uint64_t[::1] out_red,
                          uint64_t[::1] out_black, int threads=1):
    """Mark in ``out_red``/``out_black`` (bitmaps per side to move) the drawn positions whose
    value the chase rule could change: those where some side cannot hold the draw without
    attacking.  Returns the number of marked positions."""
    cdef Context c
    cdef int64_t size = indexer.data.size, idx, w, words = (size + 63) // 64
    cdef int64_t removed, marked = 0
    cdef int holder, stm, t
    cdef bint stopped = False
    cdef uint64_t* G[2]
    cdef uint64_t* safe[2]
    cdef uint64_t* calm[2]
    cdef uint64_t* dirty[2]
    cdef uint64_t* out[2]
    cdef uint64_t bits
    cdef int bit, tid
    cdef int64_t removed_here
    cdef BoardState* states = <BoardState*> malloc(threads * sizeof(BoardState))
    G[0] = zeroed_bits(words)
    G[1] = zeroed_bits(words)
    safe[0] = zeroed_bits(words)
    safe[1] = zeroed_bits(words)
    calm[0] = zeroed_bits(words)
    calm[1] = zeroed_bits(words)
    dirty[0] = zeroed_bits(words)
    dirty[1] = zeroed_bits(words)
    if states == NULL or G[0] == NULL or G[1] == NULL or safe[0] == NULL or safe[1] == NULL \
            or calm[0] == NULL or calm[1] == NULL or dirty[0] == NULL or dirty[1] == NULL:
        free(states); free_bits(G[0]); free_bits(G[1]); free_bits(safe[0]); free_bits(safe[1])
        free_bits(calm[0]); free_bits(calm[1]); free_bits(dirty[0]); free_bits(dirty[1])
        raise MemoryError()
    keep = setup_context(&c, indexer, red_values, black_values, subs, False, 0, None)
    out[0] = &out_red[0]
    out[1] = &out_black[0]
    for t in range(threads):
        bs_init(&states[t])
    tb_guard_begin()
    try:
        for stm in range(2):
            for idx in range(size):
                if c.values[stm][idx] == 0:
                    tb_set_bit(safe[stm], idx)
            # Only drawn positions are ever looked up (next_set holds draws only).
            for idx in prange(size, nogil=True, num_threads=threads, schedule="dynamic",
                              chunksize=1024):
                if c.values[stm][idx] == 0 and not tb_stopping() and \
                        is_calm(&c, &states[threadid()], stm, idx):
                    tb_set_bit(calm[stm], idx)
        for holder in range(2):
            # Greatest fixpoint: start from every draw and remove what the holder cannot
            # keep without attacking.  Both tests are monotone in the other side's set, so
            # the fixpoint is the same whatever the order of removals: after a first look at
            # every draw, only the predecessors of what was just removed (``dirty``) are
            # looked at again, rather than every position of both sets on every round.
            for stm in range(2):
                for w in range(words):
                    G[stm][w] = 0
                for idx in range(size):
                    if c.values[stm][idx] == 0:
                        tb_set_bit(G[stm], idx)
                for w in range(words):
                    dirty[stm][w] = G[stm][w]
            while not tb_stopping():
                removed = 0
                # The holder's positions: a sweep reads dirty[holder] and G[holder ^ 1] and
                # writes only G[holder] and dirty[holder ^ 1], so its threads never race.
                for w in prange(words, nogil=True, num_threads=threads, schedule="dynamic",
                                chunksize=16):
                    bits = dirty[holder][w]
                    if bits == 0 or tb_stopping():
                        continue
                    dirty[holder][w] = 0
                    tid = threadid()
                    removed_here = 0
                    for bit in range(64):
                        if (bits >> bit) & 1 and tb_bit(G[holder], w * 64 + bit) and \
                                not holds_without_attacking(&c, &states[tid], holder, w * 64 + bit,
                                                            G[holder ^ 1], calm[holder ^ 1]):
                            tb_clear_bit(G[holder], w * 64 + bit)
                            mark_predecessors(&c, &states[tid], holder, w * 64 + bit,
                                              dirty[holder ^ 1])
                            removed_here = removed_here + 1
                    removed += removed_here
                # Every drawing move of the opponent must stay where the holder holds.
                for w in prange(words, nogil=True, num_threads=threads, schedule="dynamic",
                                chunksize=16):
                    bits = dirty[holder ^ 1][w]
                    if bits == 0 or tb_stopping():
                        continue
                    dirty[holder ^ 1][w] = 0
                    tid = threadid()
                    removed_here = 0
                    for bit in range(64):
                        if (bits >> bit) & 1 and tb_bit(G[holder ^ 1], w * 64 + bit) and \
                                not drawing_checks_trapped(&c, &states[tid], holder ^ 1,
                                                           w * 64 + bit, G[holder]):
                            tb_clear_bit(G[holder ^ 1], w * 64 + bit)
                            mark_predecessors(&c, &states[tid], holder ^ 1, w * 64 + bit,
                                              dirty[holder])
                            removed_here = removed_here + 1
                    removed += removed_here
                if removed == 0:
                    break
            for stm in range(2):
                for w in range(words):
                    safe[stm][w] &= G[stm][w]
        for stm in range(2):
            if tb_stopping():
                break                   # the marks are unfinished: nothing goes out
            for idx in range(size):
                if c.values[stm][idx] == 0 and not tb_bit(safe[stm], idx):
                    tb_set_bit(out[stm], idx)
                    marked += 1
    finally:
        for t in range(threads):
            bs_free(&states[t])
        free(states)
        free_bits(G[0]); free_bits(G[1]); free_bits(safe[0]); free_bits(safe[1])
        free_bits(calm[0]); free_bits(calm[1]); free_bits(dirty[0]); free_bits(dirty[1])
        stopped = tb_guard_end()
    if stopped:
        raise_interrupted()
    return marked
