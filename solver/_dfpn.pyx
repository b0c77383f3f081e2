# cython: language_level=3
"""Depth-first proof-number search (df-pn, Nagai 2002) for "the side to move mates", with
Thomsen's lambda search inside it (λ-df-pn, Yoshizoe, Kishimoto and Müller 2007).

OR nodes have the attacker to move, AND nodes the defender.  ``remaining`` counts the
attacker moves still allowed; a node's value depends on it, so the table stores it:
  * a proof records the length of the proof found and answers any query with at least that
    many moves left, at every order: a proof is a forced mate, whatever moves it was found
    among;
  * a disproof answers queries with at most as many moves left and at most the order it was
    computed at;
  * other (pn, dn) pairs are reused only at the same ``remaining`` and order.

λ orders.  Defender nodes are always searched full width, so every proof is a forced mate.
Attacker nodes of an order-n search admit only some moves: order 1 the checks (连照, what
the continuous-check stipulation asks); order n > 1 the checks and the quiet moves that
threaten an order n - 1 win: after the move, were the defender to pass, the attacker would
win at order n - 1 within the moves left.  A pass is not legal when the defender is in
check, but every check (and every capture) is admitted at every order without a threat
test, so the pass is only ever made after a quiet move, with the defender not in check.  At orders
above 1 an attacker in check may answer with any evasion (the defender's check forced it;
compositions meet counter-checks with a block or a king step, the attack still on).  A
quiet move that leaves the defender without a legal move wins at once (困毙, stalemate, is a
loss in Xiangqi) and is admitted at every order above 1; a zugzwang win that needs a
waiting move threatening nothing is found only by the full-width order (or within
``tempo_frontier`` moves of the bound, where every move is tried).

The threat test is part of the proof tree, as in λ-df-pn: the defender node after a quiet
move is "gated".  Its first child is the position after a pass, searched at order n - 1;
until that is solved the gated node's numbers are the pass child's (its proof number
GATE_PROOF_NUMBER more, for the replies still to come), so df-pn spends effort on a threat exactly as on any
other subtree and puts off the tests that look hard.  A disproved pass child means the move
threatens nothing: the gated node is disproved at order n.  A proved one opens the
defender's replies, searched as at any defender node.  A gated node's unfinished values and
disproofs are kept under their own keys (a capture or a check into the same position is not
gated); its proof is a proof like any other.  So a disproof at an order below FULL_WIDTH
says only that this order found nothing: it is never reported as "no mate".

Repetition: a move that repeats a position of the current line (since the last capture) is
a failure for the attacker, except that a defender who checked on every move of the cycle
while the attacker did not is playing one-sided perpetual check (单方面长将), which the rules
forbid (棋例 26.1): the defender must deviate.  His own move into the repetition is then
not his to play (it counts as a loss for him); a repetition made by the attacker's move
ends nothing, and the defender's next move round the cycle is refuted in turn, so mate
lengths count moves to a real mate.  (A table makes a defender who can hold only by
perpetual check stop checking at once; its distances can be shorter than the game's, and
a root that a table covers is answered by the table, as a leaf would be.)  Where the
defender must deviate, a disproof found along another line is not used.  Such
results depend on the line that led here (the graph-history interaction), so results built
on one are marked ``tainted`` and are reused from the table only under the same history.
The pass of a threat test is a barrier for these scans, like a capture.
Stalemate (困毙) counts as mate.  Running out of nodes, time or table gives "unknown".
"""
from libc.stdlib cimport calloc, free
from libc.string cimport memset
from libc.stdint cimport uint64_t, uint32_t, int32_t, uint8_t
from posix.time cimport clock_gettime, timespec, CLOCK_REALTIME
from xiangqi._core cimport (BaseBoard, BoardState, bs_init, bs_free, bs_copy, bs_make, bs_unmake,
                            bs_make_null, bs_unmake_null, bs_has_legal_move, bs_has_legal_move_in,
                            bs_legal_moves, bs_king_attacked, bs_repetitions, sq90_of,
                            sq256_of, bs_may_give_check, bs_gives_check, bs_key_after,
                            xq_move_from, xq_move_to, EMPTY, MAX_MOVES)
from tablebases._builder cimport ILLEGAL

DEF INF = 100_000_000
DEF INF_MINUS = 99_999_999

PROVEN = "proven"
DISPROVEN = "disproven"
UNKNOWN = "unknown"
FULL = FULL_WIDTH
MAX_ORDER = MAX_LAMBDA_ORDER
MAX_THREADS = MAX_WORKERS
ENTRY_BYTES = sizeof(Entry)


# Intermediate (pn, dn) pairs are stored under the key mixed with the number of attacker
# moves left and the order, so one position met with different budgets keeps one entry per
# budget; final proofs and disproofs use the plain key and answer every budget they cover.
# What a table or a repetition says of a node without searching it (Search.table_verdict,
# Search.repetition_verdict): the attacker mates, fails, or the node stays open.
cdef enum:
    LEAF_OPEN = -1
    LEAF_FAILS = 0
    LEAF_MATES = 1

DEF MAX_REMAINING = 1024
# The ``remaining`` of a disproof that holds however many moves are left (the defender mates).
DEF EVERY_BUDGET = 30000
cdef uint64_t REMAINING_KEY[MAX_REMAINING]
cdef uint64_t ORDER_KEY[256]
# Proofs, disproofs and intermediate values of one position are kept under different keys,
# so that a disproof with fewer moves left never evicts the proof that answers more.
cdef extern from *:
    """
    #define XQ_DISPROOF_SALT 0xD15D15D15D15D15DULL
    #define XQ_GATE_SALT 0x5BD1E9955BD1E995ULL
    #define XQ_MOVES_SALT 0x3C6EF372FE94F82BULL
    """
    const uint64_t MOVES_SALT "XQ_MOVES_SALT"
    const uint64_t DISPROOF_SALT "XQ_DISPROOF_SALT"
    const uint64_t GATE_SALT "XQ_GATE_SALT"

cdef uint64_t _mix(uint64_t* z) noexcept:
    z[0] += 0x9E3779B97F4A7C15ULL
    return (z[0] ^ (z[0] >> 31)) * 0xBF58476D1CE4E5B9ULL | 1

cdef void _init_keys() noexcept:
    cdef uint64_t z = 0x2545F4914F6CDD1DULL
    cdef int i
    for i in range(MAX_REMAINING):
        REMAINING_KEY[i] = _mix(&z)
    for i in range(256):
        ORDER_KEY[i] = _mix(&z)

_init_keys()

# Threshold growth of 1 + epsilon for the second-best child (Pawlewicz and Lew) avoids the
# endless re-expansion that the plain "second + 1" rule suffers in long problems.  The search's
# ``epsilon_num`` (default EPSILON_NUM) sets it at run time, for the measurements of issue 53.
DEF EPSILON_NUM = 1
DEF EPSILON_DEN = 4


cdef inline uint64_t budget_key(uint64_t key, int remaining, int order) noexcept nogil:
    return key ^ REMAINING_KEY[remaining & (MAX_REMAINING - 1)] ^ ORDER_KEY[order & 255]


cdef inline uint32_t grow(uint32_t second, int eps) noexcept nogil:
    cdef uint64_t v
    if second >= INF:
        return INF
    v = <uint64_t> second + 1 + (<uint64_t> second * eps) // EPSILON_DEN
    return INF_MINUS if v >= INF_MINUS else <uint32_t> v


cdef inline uint32_t worker_rank(uint64_t key, int move, int worker) noexcept nogil:
    """A helper's order among a node's moves: a hash of the node, the move and the worker."""
    cdef uint64_t h = (key ^ (<uint64_t> move * 0x9E3779B97F4A7C15ULL)) * (
        0xBF58476D1CE4E5B9ULL + 2 * <uint64_t> worker)
    return <uint32_t> (h >> 32)


cdef inline uint32_t cap_add(uint32_t a, uint32_t b) noexcept nogil:
    """a + b, where INF (solved the other way) absorbs and finite sums stay below INF."""
    cdef uint64_t s
    if a >= INF or b >= INF:
        return INF
    s = <uint64_t> a + b
    return INF_MINUS if s >= INF_MINUS else <uint32_t> s


cdef extern from "sys/mman.h":
    void* mmap(void* address, size_t length, int protection, int flags, int fd, long offset) nogil
    int munmap(void* address, size_t length) nogil
    int madvise(void* address, size_t length, int advice) nogil
    int PROT_READ, PROT_WRITE, MAP_PRIVATE, MAP_SHARED, MAP_ANONYMOUS, MADV_HUGEPAGE
    void* MAP_FAILED

# Tables are read at random: with 4 KiB pages nearly every probe of a large table misses the
# TLB as well as the cache.  Mapped 2 MiB aligned and advised, Linux backs them with huge
# pages (where transparent huge pages are enabled; elsewhere the advice is ignored).  The
# mapping comes zeroed and its pages are only cleared when first touched, so a short search
# does not pay for clearing a table it hardly uses.
DEF HUGE_PAGE = 2 * 1024 * 1024


cdef void* alloc_table(size_t size, bint shared=False) noexcept:
    """``size`` zeroed bytes aligned to 2 MiB, or NULL; freed by :func:`free_table`.  The
    mapping's own address and length sit in the 16 bytes before the block.  ``shared``: the
    memory stays shared with the processes forked later (a parallel search's table)."""
    cdef size_t length = size + 2 * HUGE_PAGE
    cdef char* raw = <char*> mmap(NULL, length, PROT_READ | PROT_WRITE,
                                  (MAP_SHARED if shared else MAP_PRIVATE) | MAP_ANONYMOUS, -1, 0)
    cdef char* block
    if <void*> raw == MAP_FAILED:
        return NULL
    block = <char*> ((<size_t> raw + HUGE_PAGE) & ~(<size_t> HUGE_PAGE - 1))
    (<size_t*> block)[-2] = <size_t> raw
    (<size_t*> block)[-1] = length
    madvise(block, size, MADV_HUGEPAGE)
    return block


cdef void free_table(void* block) noexcept:
    if block != NULL:
        munmap(<void*> (<size_t*> block)[-2], (<size_t*> block)[-1])

cdef extern from *:
    """
    #define xq_prefetch(address) __builtin_prefetch(address)
    #define xq_compiler_barrier() __asm__ __volatile__("" ::: "memory")
    #define xq_load_flag(address) __atomic_load_n((address), __ATOMIC_ACQUIRE)
    #define xq_store_flag(address, value) __atomic_store_n((address), (value), __ATOMIC_RELEASE)
    #define xq_load_count(address) __atomic_load_n((address), __ATOMIC_RELAXED)
    #define xq_store_count(address, value) __atomic_store_n((address), (value), __ATOMIC_RELAXED)
    """
    void xq_prefetch(const void* address) noexcept nogil
    # After an entry is copied out of a shared table: the copy is what is checked and used,
    # never a second read of the table (which another worker may have changed since).
    void xq_compiler_barrier() noexcept nogil
    int xq_load_flag(int* address) noexcept nogil
    void xq_store_flag(int* address, int value) noexcept nogil
    long long xq_load_count(long long* address) noexcept nogil
    void xq_store_count(long long* address, long long value) noexcept nogil


cdef inline int bit_length(long long n) noexcept nogil:
    cdef int bits = 0
    while n > 0 and bits < 127:
        bits += 1
        n >>= 1
    return bits


cdef inline bint entry_tainted(const Entry* e) noexcept nogil:
    return e.flags & 1


# Lockless entries (Hyatt and Mann): an entry's key word is stored XORed with its three data
# words, so that an entry torn by two workers writing it at once (a parallel search shares its
# table) no longer matches its key and reads as a miss, never as another position's proof.
cdef inline uint64_t entry_check(const Entry* e) noexcept nogil:
    cdef const uint64_t* words = <const uint64_t*> e
    return words[1] ^ words[2] ^ words[3]


cdef inline uint64_t entry_key(const Entry* e) noexcept nogil:
    """The key an entry was stored under (0 for an empty entry), checked against its data."""
    return e.key ^ entry_check(e)


cdef inline double now_seconds() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_REALTIME, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef class Search:
    """A df-pn searcher with its own transposition table (``table_bits``: log2 entries)."""

    def __cinit__(self, int table_bits=20, bint shared=False):
        cdef void* memory
        cdef size_t size
        if not 2 <= table_bits <= 34:
            raise ValueError(f"table_bits must be between 2 and 34, not {table_bits}")
        if bs_init(&self.state) != 0:
            raise MemoryError()
        size = ((<size_t> 1) << table_bits) * sizeof(Entry)
        memory = alloc_table(size, shared)
        if memory == NULL:
            raise MemoryError(f"cannot allocate a table of 2^{table_bits} entries")
        self.table = <Entry*> memory
        self.bucket_mask = ((<uint64_t> 1) << (table_bits - 2)) - 1
        self.move_cache = <MoveList*> alloc_table(((<size_t> 1) << MOVE_CACHE_BITS) *
                                                  sizeof(MoveList))
        if self.move_cache == NULL:
            raise MemoryError()
        self.control = NULL
        if shared:
            self.control = <SharedControl*> alloc_table(sizeof(SharedControl), True)
            if self.control == NULL:
                raise MemoryError()
        self.worker = 0
        self.parallel_base = 0
        self.other_nodes = 0
        self.ignore_helpers = False
        self.helper_nodes = 0
        self.checks_only = 0
        self.nodes = 0
        self.node_limit = 0
        self.deadline = 0
        self.stopped = 0
        self.tablebase_probe = None
        self.leaf_prober = None
        self.tablebase_max_pieces = 0
        self.tb_leaves = 0
        self.progress = None
        self.progress_every = 100_000
        self.progress_interval = 0.1
        self.last_progress = 0
        self.stored = 0
        self.perpetual_check_rule = 1
        self.repetition_judge = None
        self.judge_calls = 0
        self.order = FULL_WIDTH
        self.root_from_table = 0
        self.tempo_frontier = 2
        self.gate_pn = GATE_PROOF_NUMBER
        self.epsilon_num = EPSILON_NUM
        self.threat_horizon = 0
        self.threat_tests = 0
        self.threat_answers = 0
        self.threat_nodes_spent = 0
        self.threat_depth = 0
        self.hint_keys = NULL
        self.hint_moves = NULL
        self.hint_mask = 0
        self.hints_taken = 0

    def __dealloc__(self):
        bs_free(&self.state)
        free_table(self.table)
        free_table(self.move_cache)
        free_table(self.control)
        free(self.hint_keys)
        free(self.hint_moves)

    def set_hints(self, hints):
        """Moves to try first: ``hints`` is an iterable of (position key, from, to), squares
        0..89 (``solver._mate_ab.MateFinder.proof_hints``: the mating moves an alpha-beta
        search found).  At an attacker node whose key has a hint, the hinted move, if legal,
        comes first; at λ orders above 1 a hinted quiet move is admitted without its threat
        test (it is taken to threaten: the hint says it mates).  Admitting a move only widens
        the attacker's choice, so every proof is still a forced mate, and a disproof below
        full width is still never an answer.  An empty iterable removes the hints."""
        cdef uint64_t key, size = 16, index
        cdef list entries = [(int(k), int(f), int(t)) for k, f, t in hints]
        free(self.hint_keys)
        free(self.hint_moves)
        self.hint_keys = NULL
        self.hint_moves = NULL
        self.hint_mask = 0
        # Move lists generated under other hints are stale.
        memset(self.move_cache, 0, ((<uint64_t> 1) << MOVE_CACHE_BITS) * sizeof(MoveList))
        if not entries:
            return
        while size < 2 * len(entries):
            size <<= 1
        self.hint_keys = <uint64_t*> calloc(size, sizeof(uint64_t))
        self.hint_moves = <uint16_t*> calloc(size, sizeof(uint16_t))
        if self.hint_keys == NULL or self.hint_moves == NULL:
            raise MemoryError()
        self.hint_mask = size - 1
        for k, f, t in entries:
            if not (0 <= f < 90 and 0 <= t < 90):
                raise ValueError(f"a hint's squares must be 0..89, not {f} and {t}")
            key = <uint64_t> k
            index = (key ^ (key >> 29)) & self.hint_mask
            while self.hint_keys[index] != 0 and self.hint_keys[index] != key:
                index = (index + 1) & self.hint_mask
            self.hint_keys[index] = key
            self.hint_moves[index] = <uint16_t> (sq256_of(f) | (sq256_of(t) << 8))

    @property
    def hint_count(self):
        """Positions with a hinted move."""
        cdef uint64_t i
        cdef long long count = 0
        if self.hint_mask == 0:
            return 0
        for i in range(self.hint_mask + 1):
            if self.hint_keys[i] != 0:
                count += 1
        return count

    cdef int hinted_move(self) noexcept:
        """The hinted move of the current position, or 0."""
        cdef uint64_t key = self.state.key
        cdef uint64_t index
        if self.hint_mask == 0:
            return 0
        index = (key ^ (key >> 29)) & self.hint_mask
        while self.hint_keys[index] != 0:
            if self.hint_keys[index] == key:
                return self.hint_moves[index]
            index = (index + 1) & self.hint_mask
        return 0

    @property
    def table_entries(self):
        return (self.bucket_mask + 1) * BUCKET_ENTRIES

    @property
    def table_used(self):
        """Entries written so far (an upper bound on the fill)."""
        return min(self.stored, self.table_entries)

    def clear_table(self):
        memset(self.table, 0, (self.bucket_mask + 1) * BUCKET_ENTRIES * sizeof(Entry))
        memset(self.move_cache, 0, ((<uint64_t> 1) << MOVE_CACHE_BITS) * sizeof(MoveList))
        self.stored = 0

    def cancel(self):
        self.stopped = 1

    # -- parallel search (driven by solver.parallel) ---------------------------------------------

    @property
    def shared(self):
        """The table is shared with processes forked from now on (``Search(shared=True)``)."""
        return self.control != NULL

    def begin_parallel(self):
        """Before the helpers are forked: clear the shared flags and node counts; this
        process is worker 0 and the node limit counts every worker's nodes."""
        if self.control == NULL:
            raise ValueError("a parallel search needs a shared table: Search(shared=True)")
        memset(self.control, 0, sizeof(SharedControl))
        self.worker = 0
        self.parallel_base = self.nodes
        self.other_nodes = 0

    def become_helper(self, int worker):
        """In a process forked after :meth:`begin_parallel`: search as helper ``worker``."""
        if self.control == NULL or not 1 <= worker < MAX_WORKERS:
            raise ValueError(f"helper numbers run from 1 to {MAX_WORKERS - 1}, not {worker}")
        self.worker = worker
        self.progress = None

    def finish_helper(self, bint solved):
        """In a helper, its search over: publish its nodes; ``solved``: it settled the root,
        whose result is in the shared table, and every worker stops."""
        xq_store_count(&self.control.workers[self.worker].nodes, self.nodes - self.parallel_base)
        if solved:
            xq_store_flag(&self.control.solved, 1)
            xq_store_flag(&self.control.stop, 1)

    def stop_helpers(self):
        """In the main worker, its search over: the helpers stop (within 512 nodes)."""
        xq_store_flag(&self.control.stop, 1)

    def end_parallel(self):
        """After the helpers have exited: their nodes are added to :attr:`nodes`."""
        cdef int i
        cdef long long helpers = 0
        for i in range(1, MAX_WORKERS):
            helpers += xq_load_count(&self.control.workers[i].nodes)
        self.nodes += helpers
        self.helper_nodes += helpers
        self.other_nodes = 0
        self.worker = 0
        return helpers

    # -- table ---------------------------------------------------------------------------------

    cdef uint64_t history_signature(self) noexcept:
        """A hash of the positions since the last capture (or pass): everything a repetition
        can depend on.  A tainted result is reused only under the same history."""
        cdef uint64_t h = self.state.key
        cdef int i
        for i in range(self.state.ply - 1, -1, -1):
            if self.state.undo_stack[i].captured != EMPTY:
                break
            h = (h ^ self.state.undo_stack[i].key) * 0x100000001B3ULL + 0x9E3779B97F4A7C15ULL
        return h

    cdef Entry* bucket(self, uint64_t home) noexcept:
        return &self.table[((home ^ (home >> 29)) & self.bucket_mask) * BUCKET_ENTRIES]

    cdef bint probe(self, uint64_t key, uint64_t home, Entry* found) noexcept:
        """Copy into ``found`` the entry stored under ``key`` in the bucket of the position key
        ``home``; False if there is none."""
        cdef Entry* slots = self.bucket(home)
        cdef int i
        for i in range(BUCKET_ENTRIES):
            found[0] = slots[i]
            xq_compiler_barrier()
            if entry_key(found) == key:
                return True
        return False

    cdef void lookup(self, uint64_t key, uint64_t salt, int remaining, int order, uint32_t* pn,
                     uint32_t* dn, int* length, bint* tainted) noexcept:
        """The stored (pn, dn) of the position ``key`` for ``remaining`` moves at ``order``:
        its proof (and the proof's ``length``), else a disproof that covers the query, else the
        values of this very budget, else (1, 1).  ``salt`` (GATE_SALT for a gated defender node,
        else 0) separates the
        disproofs and values of nodes whose move lists differ; proofs are shared, and so are
        the ungated node's disproofs: the gate only ever makes a proof harder."""
        cdef Entry* slots = self.bucket(key)
        cdef Entry e
        cdef uint64_t stored_key
        cdef uint64_t disproof_key = key ^ DISPROOF_SALT ^ salt
        cdef uint64_t plain_disproof_key = key ^ DISPROOF_SALT
        cdef uint64_t values_key = budget_key(key ^ salt, remaining, order)
        cdef bint disproved = False, disproof_tainted = False
        cdef int i
        tainted[0] = False
        pn[0] = 1; dn[0] = 1
        for i in range(BUCKET_ENTRIES):
            # A copy, checked whole: in a parallel search another worker may be writing it.
            e = slots[i]
            xq_compiler_barrier()
            stored_key = entry_key(&e)
            if stored_key == key:
                # A proof answers before anything else: a disproof below full width may
                # stand beside it (that order found nothing), a proof is a fact.
                if e.pn == 0 and e.length <= remaining and (
                        not entry_tainted(&e) or e.history == self.history_signature()):
                    pn[0] = 0; dn[0] = INF
                    length[0] = e.length
                    tainted[0] = entry_tainted(&e)
                    return
            elif stored_key == disproof_key or stored_key == plain_disproof_key:
                if e.dn == 0 and e.remaining >= remaining and e.order >= order and (
                        not entry_tainted(&e) or e.history == self.history_signature()):
                    disproved = True
                    disproof_tainted = entry_tainted(&e)
            elif stored_key == values_key and e.pn != 0 and e.dn != 0:
                pn[0] = e.pn; dn[0] = e.dn
        if disproved:
            pn[0] = INF; dn[0] = 0
            tainted[0] = disproof_tainted

    cdef void store(self, uint64_t key, uint64_t salt, int remaining, int order, uint32_t pn,
                    uint32_t dn, int length, bint tainted, long long work, int best) noexcept:
        # Buckets of four; the entry for the result is the one already under its key, else
        # an empty one, else the one with the least work below it, proofs kept longest.
        cdef Entry* slots = self.bucket(key)
        cdef Entry* e = NULL
        cdef Entry old, fresh
        cdef uint64_t stored_key = key
        cdef int i, priority, lowest = 1 << 30
        if pn != 0 and dn != 0:
            stored_key = budget_key(key ^ salt, remaining, order)
        elif dn == 0:
            stored_key = key ^ DISPROOF_SALT ^ salt
        for i in range(BUCKET_ENTRIES):
            old = slots[i]
            xq_compiler_barrier()
            if entry_key(&old) == stored_key:
                e = &slots[i]
                break
        if e != NULL and not entry_tainted(&old):
            # Never forget a result that answers at least as much as the new one.
            if old.pn == 0 and pn == 0 and old.length <= length:
                return
            if old.dn == 0 and dn == 0 and old.order >= order and old.remaining >= remaining:
                return
        if e == NULL:
            for i in range(BUCKET_ENTRIES):
                old = slots[i]
                xq_compiler_barrier()
                if entry_key(&old) == 0:
                    e = &slots[i]
                    break
                priority = old.flags >> 1
                if old.pn == 0:
                    priority += 64
                if priority < lowest:
                    lowest = priority
                    e = &slots[i]
            self.stored += 1
        fresh.pn = pn
        fresh.dn = dn
        fresh.remaining = remaining
        fresh.length = length
        fresh.order = order
        fresh.best = best
        fresh.flags = (bit_length(work) << 1) | (1 if tainted else 0)
        fresh.history = self.history_signature() if tainted else 0
        fresh.key = stored_key ^ entry_check(&fresh)
        e[0] = fresh

    # -- the perpetual-check rule --------------------------------------------------------------

    cdef bint note_check(self) noexcept:
        """Record whether the move that led here gave check (called with the move made);
        returns it: the side to move is in check."""
        cdef bint in_check = bs_king_attacked(&self.state, self.state.turn)
        if 0 < self.state.ply <= TRACKED_PLIES:
            self.check_after[self.state.ply - 1] = in_check
        return in_check

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
        codes = bytes([walk.squares[sq256_of(i)] for i in range(90)])
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

    # -- move generation and threats -----------------------------------------------------------

    cdef int generate(self, bint attacker_to_move, int remaining, int order, int* moves,
                      int* ungated):
        """Moves to search at this node: every legal move for the defender and in full-width
        attacker nodes; at order 1 the checks; at order n > 1 the checks and captures, then
        every other move, gated (admitted once a threat search after a pass proves a threat):
        ``ungated`` is set to the number of leading moves that need no threat."""
        cdef int all_moves[MAX_MOVES]
        cdef int n = bs_legal_moves(&self.state, all_moves)
        cdef int i, kept = 0, quiet = 0, hint = 0
        cdef int quiet_moves[MAX_MOVES]
        if attacker_to_move and self.hint_mask != 0:
            # A hinted move first: a check at every order, a quiet move above order 1 (where
            # it is admitted ungated, see set_hints); elsewhere it is sorted as any move.
            hint = self.hinted_move()
            for i in range(n):
                if all_moves[i] == hint:
                    break
            else:
                hint = 0
            if hint and (order > 1 or (bs_may_give_check(&self.state, hint) and
                                       bs_gives_check(&self.state, hint))):
                moves[0] = hint
                kept = 1
                self.hints_taken += 1
            else:
                hint = 0
        # Checks first, for both sides: the attacker's give df-pn better ties, the defender's
        # counter-attack that mates the attacker refutes the move before anything else.
        for i in range(n):
            if all_moves[i] == hint:
                continue
            if bs_may_give_check(&self.state, all_moves[i]) and \
                    bs_gives_check(&self.state, all_moves[i]):
                moves[kept] = all_moves[i]
                kept += 1
            else:
                quiet_moves[quiet] = all_moves[i]
                quiet += 1
        if not attacker_to_move or order == FULL_WIDTH or (
                order > 1 and (remaining <= self.tempo_frontier or
                               bs_king_attacked(&self.state, self.state.turn))):
            # Every move: the defender's, full width's, and at any order near the end of the
            # bound, since a waiting move (停着) that leaves the defender in zugzwang
            # threatens nothing, so no threat test admits it.  An attacker in check (above
            # order 1) may answer with any evasion too: the defender's check, not the
            # attacker's choice, forced it, and compositions are full of counter-checks met
            # by a block or a king step with the attack still on (《适情雅趣》 No. 228, mate
            # in 17: proved at order 2 only so, where a threat test refused the quiet evasions).
            for i in range(quiet):
                moves[kept + i] = quiet_moves[i]
            ungated[0] = n
            return n
        if order <= 1:
            ungated[0] = kept
            return kept
        for i in range(quiet):
            if self.state.squares[xq_move_to(quiet_moves[i])] != EMPTY:
                # A capture is admitted without a test: it changes the material (often into a
                # tablebase position), which the mate threat of a pass does not measure.
                moves[kept] = quiet_moves[i]
                kept += 1
        ungated[0] = kept
        for i in range(quiet):
            if self.state.squares[xq_move_to(quiet_moves[i])] == EMPTY:
                moves[kept] = quiet_moves[i]
                kept += 1
        return kept

    cdef int cached_moves(self, bint attacker_to_move, int remaining, int order, int* moves,
                          int* ungated):
        """:meth:`generate`, from the move-list cache when this node's list is there.  An
        attacker's list depends on the moves left and the order, a defender's on the
        position alone."""
        cdef uint64_t key = self.state.key ^ MOVES_SALT
        cdef MoveList* slot
        cdef int n, i
        if attacker_to_move:
            key = budget_key(key, remaining, order)
        slot = &self.move_cache[(key ^ (key >> 31)) & ((1 << MOVE_CACHE_BITS) - 1)]
        if slot.key == key:
            for i in range(slot.count):
                moves[i] = slot.moves[i]
            ungated[0] = slot.ungated
            return slot.count
        n = self.generate(attacker_to_move, remaining, order, moves, ungated)
        if n <= MOVE_LIST_MOVES:
            slot.key = key
            slot.count = n
            slot.ungated = ungated[0]
            for i in range(n):
                slot.moves[i] = moves[i]
        return n

    # -- search --------------------------------------------------------------------------------

    cdef bint defender_mates_at_once(self) noexcept:
        """Whether the side to move (the defender) has a check that leaves the attacker
        without a legal move."""
        cdef int moves[MAX_MOVES]
        cdef int n = bs_legal_moves(&self.state, moves), i
        cdef bint mates
        for i in range(n):
            if bs_may_give_check(&self.state, moves[i]) and \
                    bs_gives_check(&self.state, moves[i]):
                bs_make(&self.state, moves[i])
                mates = not bs_has_legal_move(&self.state)
                bs_unmake(&self.state)
                if mates:
                    return True
        return False

    cdef int piece_total(self) noexcept:
        return self.state.piece_count[0] + self.state.piece_count[1]

    cdef int tablebase_code(self):
        """The tablebase DTM code of the current position, or -1 (no table or no prober)."""
        cdef int sq
        if self.leaf_prober is not None:
            if self.piece_total() > self.leaf_prober.max_pieces:
                return -1
            return self.leaf_prober.dtm_code(&self.state)
        if self.tablebase_probe is None or self.piece_total() > self.tablebase_max_pieces:
            return -1
        codes = bytes([self.state.squares[sq256_of(sq)] for sq in range(90)])
        return self.tablebase_probe(codes, self.state.turn)

    cdef int repetition_verdict(self, bint or_node):
        """The current position repeats one of the line: LEAF_MATES if the defender's move
        made it while his perpetual check (or attack) is forbidden (the move is not his to
        play: a loss for him, at length 0), LEAF_OPEN if the attacker's move made it in such
        a cycle (the game goes on: the defender must deviate, and his move round the cycle
        again is refuted one ply down), else LEAF_FAILS (a repetition wins the attacker
        nothing).  Counting the attacker's repetition as a win would give mate lengths
        shorter than the game's."""
        if (self.perpetual_check_rule and self.defender_must_deviate()) or (
                self.repetition_judge is not None and
                self.judge_repetition() == self.attacker ^ 1):
            return LEAF_MATES if or_node else LEAF_OPEN
        return LEAF_FAILS

    cdef int table_verdict(self, bint or_node, int remaining, int* length):
        """What a table says of the current position (``or_node``: the attacker to move)
        with ``remaining`` attacker moves: LEAF_MATES (``length`` set to the moves to mate),
        LEAF_FAILS (a draw, a defender's win, or a mate beyond the bound), or LEAF_OPEN (no
        table, or a mate that a continuous-check problem must still find by checks)."""
        cdef int code = self.tablebase_code(), plies, moves_to_mate
        if code < 0 or code == ILLEGAL:
            return LEAF_OPEN
        self.tb_leaves += 1
        if code == 0:
            return LEAF_FAILS          # a draw
        plies = code - 1
        if (plies % 2 == 1) != or_node:
            return LEAF_FAILS          # the defender wins
        # The attacker mates in ``moves_to_mate`` moves at best (the tables' distances are
        # exact): beyond the bound is no mate of any kind; within it a mate, but a
        # continuous-check problem asks for one by checks only, so it searches on.
        moves_to_mate = (plies + 1) // 2 if or_node else plies // 2
        if moves_to_mate > remaining:
            return LEAF_FAILS
        if self.checks_only:
            self.tb_leaves -= 1
            return LEAF_OPEN
        length[0] = moves_to_mate
        return LEAF_MATES

    cdef bint over_limits(self):
        cdef double now
        if self.stopped:
            return True
        if self.node_limit and self.nodes + self.other_nodes >= self.node_limit and not (
                self.ignore_helpers and self.nodes < self.node_limit):
            self.stopped = 1
            return True
        if (self.nodes & 511) == 0:
            if self.control != NULL and self.parallel_stop():
                self.stopped = 1
                return True
            now = now_seconds()
            if self.deadline and now >= self.deadline:
                self.stopped = 1
                return True
            if self.progress is not None and (
                    now - self.last_progress >= self.progress_interval
                    or self.nodes % self.progress_every < 512):
                self.last_progress = now
                if self.progress(self.nodes, self.table_used):
                    self.stopped = 1
                    return True
        return False

    cdef bint parallel_stop(self) noexcept:
        """Publish this worker's nodes, read the others', and say whether the parallel search
        tells it to stop: a helper when the search is over, the main worker when a helper
        has solved the root (unless it is reading that result now)."""
        cdef int i
        cdef long long others = 0
        xq_store_count(&self.control.workers[self.worker].nodes, self.nodes - self.parallel_base)
        for i in range(MAX_WORKERS):
            if i != self.worker:
                others += xq_load_count(&self.control.workers[i].nodes)
        self.other_nodes = others
        if self.worker:
            return xq_load_flag(&self.control.stop) != 0
        return not self.ignore_helpers and xq_load_flag(&self.control.solved) != 0

    cdef void evaluate_new(self, bint or_node, int remaining, int order, bint gated,
                           uint32_t* pn, uint32_t* dn, int* length, bint* tainted):
        """First look at a node just reached (the move already made): terminal values,
        repetition, tablebase, table, or the initial values.  ``gated``: a defender node
        after a quiet move of a λ order, admitted only if it threatens."""
        cdef int n, verdict
        cdef int replies[MAX_MOVES]
        cdef bint in_check, must_deviate = False
        cdef Entry* slots = self.bucket(self.state.key)
        # The table is read last, after the work below: start loading its bucket now.
        xq_prefetch(slots)
        xq_prefetch(<char*> slots + 64)
        tainted[0] = False
        length[0] = 0
        in_check = self.note_check()
        if bs_repetitions(&self.state) > 0:
            tainted[0] = True
            verdict = self.repetition_verdict(or_node)
            if verdict == LEAF_MATES:
                pn[0] = 0; dn[0] = INF
                return
            if verdict == LEAF_FAILS:
                pn[0] = INF; dn[0] = 0
                return
            must_deviate = True
        n = 1
        if not or_node:
            if remaining <= 0 and self.repetition_judge is None and \
                    bs_has_legal_move_in(&self.state, in_check, True):
                # The attacker has no move left, so any reply ends the line unmated; one
                # that gives no check cannot complete a forbidden perpetual check either
                # (without the full 棋例 judge, the only repetition the defender may lose
                # by).  Settled here, the node is never expanded: otherwise every attacker
                # move at the bound cost a generation and a look at each reply.
                pn[0] = INF; dn[0] = 0
                tainted[0] = False
                return
            # A defender in check has few replies, each to be refuted: counting them (cheap
            # then) gives df-pn a truer proof number than one.
            if in_check:
                n = bs_legal_moves(&self.state, replies)
            else:
                n = 1 if bs_has_legal_move_in(&self.state, False, False) else 0
            if n == 0:                  # mated or stalemated: both lose in Xiangqi
                pn[0] = 0; dn[0] = INF
                return
        elif remaining <= 0 or (in_check and not bs_has_legal_move_in(&self.state, True, False)):
            # Out of moves, or mated by the defender's counter-attack.
            pn[0] = INF; dn[0] = 0
            return
        verdict = self.table_verdict(or_node, remaining, length)
        if verdict == LEAF_FAILS:
            pn[0] = INF; dn[0] = 0
            return
        if verdict == LEAF_MATES:
            pn[0] = 0; dn[0] = INF
            return
        self.lookup(self.state.key, GATE_SALT if gated else 0, remaining, order, pn, dn, length,
                    tainted)
        if must_deviate:
            # Here the defender may not go round the cycle again, which a disproof found
            # along another line did not know: only one made under this history counts.
            if dn[0] == 0 and not tainted[0]:
                pn[0] = 1; dn[0] = 1
            tainted[0] = True
        if pn[0] == 1 and dn[0] == 1 and not or_node:
            # A fresh defender node: one proof per reply, and after a quiet move one more
            # for the threat that has to be shown first.
            pn[0] = n + self.gate_pn if gated else n

    cdef void mid(self, bint or_node, int remaining, int order, bint gated, uint32_t thpn,
                  uint32_t thdn, uint32_t* out_pn, uint32_t* out_dn, int* out_length,
                  bint* out_tainted):
        """Expand the current node until its pn >= thpn or dn >= thdn.  A ``gated``
        defender node first has its threat shown: the position after a pass, searched at
        order - 1 (see the module's docstring)."""
        cdef int moves[MAX_MOVES]
        cdef uint32_t cpn[MAX_MOVES]
        cdef uint32_t cdn[MAX_MOVES]
        cdef int clen[MAX_MOVES]
        cdef bint ctaint[MAX_MOVES]
        cdef uint8_t cchecks[MAX_MOVES]
        cdef uint32_t rank[MAX_MOVES]
        cdef int n, i, best, child_remaining, length, best_move, ungated, threat_remaining
        cdef uint32_t pn, dn, best_value, second, child_thpn, child_thdn, value
        cdef uint32_t sum_value, other
        cdef int unsolved
        cdef long long start_nodes = self.nodes, before
        cdef bint tainted
        cdef uint64_t salt = GATE_SALT if gated else 0
        cdef Entry* slots
        self.nodes += 1
        # (Whether the move that led here gave check is known: the parent noted it for this
        # child before descending, and a pass or the root had it noted before.)
        if or_node and remaining <= 0:
            out_pn[0] = INF; out_dn[0] = 0; out_length[0] = 0; out_tainted[0] = False
            return
        if gated:
            # The threat first: were the defender to pass, would the attacker win at the
            # order below within the moves left?
            # A horizon keeps the threat tests short, and their results the same whatever
            # bound the root searches at (so the table answers them across iterations).
            threat_remaining = remaining
            if self.threat_horizon and remaining > self.threat_horizon:
                threat_remaining = self.threat_horizon
            bs_make_null(&self.state)
            self.evaluate_new(True, threat_remaining, order - 1, False, &pn, &dn, &length, &tainted)
            if pn == 1 and dn == 1:
                # A threat not looked at yet.  Before searching it: can the defender mate at
                # once?  Composed problems mostly give him a mate to threaten, and a reply
                # that mates refutes the move whatever it threatens, at every order.
                bs_unmake_null(&self.state)
                if self.defender_mates_at_once():
                    out_pn[0] = INF; out_dn[0] = 0; out_length[0] = 0; out_tainted[0] = False
                    self.store(self.state.key, 0, EVERY_BUDGET, FULL_WIDTH, INF, 0, 0, False,
                               self.nodes - start_nodes, 0)
                    return
                bs_make_null(&self.state)
            if pn != 0 and dn != 0:
                self.threat_tests += 1
            else:
                self.threat_answers += 1
            while pn != 0 and dn != 0:
                if cap_add(pn, self.gate_pn) >= thpn or dn >= thdn or self.over_limits():
                    break
                before = self.nodes
                self.threat_depth += 1
                self.mid(True, threat_remaining, order - 1, False,
                         thpn - self.gate_pn if thpn < INF else INF,
                         thdn, &pn, &dn, &length, &tainted)
                self.threat_depth -= 1
                if self.threat_depth == 0:
                    self.threat_nodes_spent += self.nodes - before
            bs_unmake_null(&self.state)
            if pn != 0:
                # No threat (the move is not admitted at this order), or not known yet.
                out_pn[0] = cap_add(pn, self.gate_pn) if dn != 0 else INF
                out_dn[0] = dn
                out_length[0] = 0
                out_tainted[0] = tainted
                self.store(self.state.key, salt, remaining, order, out_pn[0], out_dn[0], 0,
                           tainted, self.nodes - start_nodes, 0)
                return
        n = self.cached_moves(or_node, remaining, order, moves, &ungated)
        if n == 0:
            # OR: the attacker has no admitted move; AND: mate was caught by the parent.
            out_pn[0] = INF if or_node else 0
            out_dn[0] = 0 if or_node else INF
            out_length[0] = 0
            out_tainted[0] = False
            self.store(self.state.key, salt, remaining, order, out_pn[0], out_dn[0], 0, False,
                       1, 0)
            return
        child_remaining = remaining - 1 if or_node else remaining
        # Every child's table bucket is read below, one after another: asking for them all
        # first lets the memory fetch them in parallel (the lookups were a third of the time).
        for i in range(n):
            slots = self.bucket(bs_key_after(&self.state, moves[i]))
            xq_prefetch(slots)
            xq_prefetch(<char*> slots + 64)
        for i in range(n):
            bs_make(&self.state, moves[i])
            self.evaluate_new(not or_node, child_remaining, order, i >= ungated, &cpn[i],
                              &cdn[i], &clen[i], &ctaint[i])
            if self.state.ply <= TRACKED_PLIES:
                cchecks[i] = self.check_after[self.state.ply - 1]
            bs_unmake(&self.state)
            if not ctaint[i] and ((not or_node and cdn[i] == 0) or
                                  (or_node and cpn[i] == 0 and clen[i] == 0)):
                # Solved by this child, whatever the others are: a reply that refutes (the
                # defender's checks come first, and a mating one is common), or a mate in
                # one, which no other move beats.  The rest are not looked at.
                n = i + 1
                break
        if self.worker:
            # A helper of a parallel search breaks ties between equally promising children
            # in its own order (the main worker takes the first), so that the workers spread
            # over the tree instead of all searching the same node.
            for i in range(n):
                rank[i] = worker_rank(self.state.key, moves[i], self.worker)
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
                if value < best_value or (value == best_value and self.worker
                                          and rank[i] < rank[best]):
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
                child_thpn = thpn if thpn < grow(second, self.epsilon_num) else grow(second, self.epsilon_num)
                child_thdn = thdn - dn + cdn[best] if thdn < INF else INF
                if child_thdn > INF:
                    child_thdn = INF
            else:
                child_thdn = thdn if thdn < grow(second, self.epsilon_num) else grow(second, self.epsilon_num)
                child_thpn = thpn - pn + cpn[best] if thpn < INF else INF
                if child_thpn > INF:
                    child_thpn = INF
            bs_make(&self.state, moves[best])
            if self.state.ply <= TRACKED_PLIES:
                self.check_after[self.state.ply - 1] = cchecks[best]
            self.mid(not or_node, child_remaining, order, best >= ungated, child_thpn,
                     child_thdn, &cpn[best], &cdn[best], &clen[best], &ctaint[best])
            bs_unmake(&self.state)
        # Result, proof length, taint and the proof's move.
        length = 0
        tainted = False
        best_move = 0
        if pn == 0:
            if or_node:
                # Prefer a proof that does not rest on the line's history.
                length = INF
                for i in range(n):
                    if cpn[i] == 0 and not ctaint[i] and clen[i] + 1 < length:
                        length = clen[i] + 1
                        best_move = moves[i]
                if length == INF:
                    tainted = True
                    for i in range(n):
                        if cpn[i] == 0 and clen[i] + 1 < length:
                            length = clen[i] + 1
                            best_move = moves[i]
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
        self.store(self.state.key, salt, remaining, order, pn, dn, length, tainted,
                   self.nodes - start_nodes, best_move)

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

    def prove(self, int remaining, int order=FULL_WIDTH):
        """Run df-pn from the set position (attacker to move) with ``remaining`` attacker
        moves at λ ``order``.  Returns (status, proof length in attacker moves or None)."""
        return self._run(True, remaining, order)

    def value(self, BaseBoard board, int remaining, bint or_node=True, int order=FULL_WIDTH):
        """(status, length) of ``board`` from the table or a fresh search at ``order``: used
        to walk and check proof trees.  ``board`` shares the searcher's history semantics."""
        self.set_position(board)
        self.attacker = self.state.turn if or_node else self.state.turn ^ 1
        return self._run(or_node, remaining, order)

    def proof_move(self, BaseBoard board, int remaining):
        """The (from, to) squares (0..89) of the move of a stored proof that ``board``'s side to
        move mates within ``remaining`` moves, or None: the line of a proof without a search."""
        cdef Entry e
        self.set_position(board)
        if not self.probe(self.state.key, self.state.key, &e):
            return None
        if e.pn != 0 or e.length > remaining or e.best == 0:
            return None
        if entry_tainted(&e) and e.history != self.history_signature():
            return None
        return sq90_of(xq_move_from(e.best)), sq90_of(xq_move_to(e.best))

    def _run(self, bint or_node, int remaining, int order):
        """Iterate MID at the root until it is solved, a limit stops it, or it stalls."""
        cdef uint32_t pn = 1, dn = 1
        cdef int length = 0, verdict, attempt
        cdef bint tainted
        cdef long long before
        if not 1 <= order <= FULL_WIDTH:
            raise ValueError(f"order must be between 1 and {FULL_WIDTH}, not {order}")
        self.stopped = 0
        self.threat_depth = 0
        self.order = order
        if or_node and remaining <= 0:
            return DISPROVEN, None
        # A root that repeats a position of its line, or that a table covers, is answered
        # as a leaf would be.
        if bs_repetitions(&self.state) > 0:
            verdict = self.repetition_verdict(or_node)
            if verdict == LEAF_MATES:
                return PROVEN, 0
            if verdict == LEAF_FAILS:
                return DISPROVEN, None
        # (Expanded, a table-covered root whose defender must stop a perpetual check would
        # get back the checks that the table's value takes from him.)
        verdict = self.table_verdict(or_node, remaining, &length)
        self.root_from_table = verdict != LEAF_OPEN
        if verdict == LEAF_MATES:
            return PROVEN, length
        if verdict == LEAF_FAILS:
            return DISPROVEN, None
        for attempt in range(2):
            while pn != 0 and dn != 0 and not self.stopped:
                before = self.nodes
                self.mid(or_node, remaining, order, False, INF, INF, &pn, &dn, &length,
                         &tainted)
                if self.nodes == before:
                    break
            if attempt == 1 or pn == 0 or dn == 0 or self.worker != 0 or \
                    self.control == NULL or not xq_load_flag(&self.control.solved):
                break
            # A helper solved the root and stored the result: one more expansion of the root
            # reads it from the shared table (searching on, within this worker's own limits,
            # what has been overwritten since).
            self.stopped = 0
            self.ignore_helpers = True
        self.ignore_helpers = False
        if pn == 0:
            return PROVEN, length
        if dn == 0:
            return DISPROVEN, None
        return UNKNOWN, None
