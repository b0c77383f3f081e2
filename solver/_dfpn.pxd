from libc.stdint cimport uint64_t, uint32_t, int32_t, int16_t, uint16_t, uint8_t
from xiangqi._core cimport BoardState
from tablebases._probe cimport LeafProber

cdef enum:
    # λ order of a search (Thomsen's lambda search): order 1 admits only checks (连照), order
    # n also the moves after which, were the defender to pass, the attacker would win at order
    # n - 1.  FULL_WIDTH admits every legal move: only its disproofs mean "no mate".
    FULL_WIDTH = 255
    MAX_LAMBDA_ORDER = 8
    # What a quiet move's threat test adds to a gated node's proof number (beyond the pass
    # child's): a quiet move, once its threat is shown, leaves the defender every reply to
    # refute, so df-pn should prefer checks until quiet moves look cheap.  Against 1 (the
    # count of the one test), on the 41-problem sample at 1 M nodes: 16 proved against 15,
    # most proofs in fewer nodes (No. 195 250,766 -> 108,128; 314 471,934 -> 357,219);
    # 3 changed nothing, 16 and 32 no better.
    GATE_PROOF_NUMBER = 8
    TRACKED_PLIES = 4096     # plies of the line whose "gave check" flags are kept
    BUCKET_ENTRIES = 4
    MOVE_LIST_MOVES = 58     # longer lists are generated every time
    MOVE_CACHE_BITS = 17     # 2^17 lists of 128 bytes: 16 MiB

cdef struct Entry:
    # 32 bytes: four make a bucket of two cache lines, and every result of one position
    # (proof, disproof, values per budget) lives in the bucket of its position key.
    uint64_t key             # the position key, or a variant of it (disproof, budget)
    uint64_t history         # for tainted results: signature of the line since the last capture
    uint32_t pn
    uint32_t dn
    int16_t remaining        # attacker moves left when (pn, dn) were computed
    int16_t length           # proven: attacker moves of the proof found (an upper bound)
    uint16_t best            # proven OR node: the move of the proof found (0: none recorded)
    uint8_t order            # λ order the result was computed at (disproofs hold up to it)
    uint8_t flags            # bit 0: tainted (depends on a repetition in the line); bits 1-7:
                             # bit length of the nodes spent below (replacement priority)

cdef enum:
    MAX_WORKERS = 64         # processes of one parallel search (Solver's threads)

cdef struct WorkerSlot:
    # One cache line per worker, so that publishing a node count does not slow the others.
    long long nodes          # nodes the worker searched since the parallel search began
    long long padding[7]

cdef struct SharedControl:
    # The page the workers of a parallel search share beside the table.
    int stop                 # set when the search is over: the helpers stop
    int solved               # set by a helper that solved the root: the main worker stops
    long long padding[7]
    WorkerSlot workers[MAX_WORKERS]

cdef struct MoveList:
    # 128 bytes: the moves generated at a node, kept so that df-pn's many re-expansions of
    # a node do not generate its moves (and sort out its checks) again.
    uint64_t key             # the node's key mixed with what its list depends on
    uint16_t count
    uint16_t ungated         # the first ``ungated`` moves need no threat (checks, captures)
    uint16_t moves[MOVE_LIST_MOVES]

cdef class Search:
    cdef BoardState state
    cdef Entry* table
    cdef uint64_t bucket_mask            # buckets of BUCKET_ENTRIES entries
    cdef public int checks_only
    cdef int attacker
    cdef public long long nodes
    cdef public long long node_limit
    cdef public double deadline          # seconds since the epoch; 0 for none
    cdef public int stopped              # 1: a limit was reached or cancel() was called
    cdef public object tablebase_probe   # callable(codes: bytes, turn) -> code, or None
    cdef public LeafProber leaf_prober   # tables answered at C level, or None
    cdef public int tablebase_max_pieces
    cdef public long long tb_leaves      # leaves a tablebase answered
    cdef public object progress
    cdef public long long progress_every
    cdef public double progress_interval # seconds between progress calls (Ctrl-C latency)
    cdef double last_progress
    cdef long long stored
    cdef public int perpetual_check_rule     # 长将 by the defender loses (棋例 26.1)
    cdef public object repetition_judge      # callable(codes, turn, moves) -> loser or -1
    cdef public long long judge_calls
    cdef public int order                    # λ order of the running root search
    cdef public int root_from_table          # the last query's root was answered by a table
    cdef public int tempo_frontier           # λ orders > 1 try every move with this few left
    cdef public uint32_t gate_pn             # proof number a quiet move's threat test adds
    cdef public int epsilon_num              # 1 + epsilon_num / 4: the second-best child's growth
    cdef public int threat_horizon           # a threat must mate within this many moves (0: any)
    cdef public long long threat_tests       # threat searches opened (a pass searched)
    cdef public long long threat_answers     # threat tests the table answered (no search)
    cdef public long long threat_nodes_spent # nodes searched after a pass (outermost)
    cdef int threat_depth                    # threat searches running, one inside another
    cdef MoveList* move_cache
    # A parallel search (a table shared with forked helper processes, see solver.parallel):
    # NULL when the table is not shared.  Worker 0 is the main process.
    cdef SharedControl* control
    cdef readonly int worker
    cdef long long parallel_base             # this worker's nodes when the parallel search began
    cdef long long other_nodes               # the other workers' nodes, as last published
    cdef bint ignore_helpers                 # reading a helper's result: no parallel stop
    cdef public long long helper_nodes       # of ``nodes``, those searched by helpers
    # Hints (set_hints): a move to try first per position key, open addressing; mask 0: none.
    cdef uint64_t* hint_keys
    cdef uint16_t* hint_moves
    cdef uint64_t hint_mask
    cdef public long long hints_taken        # move lists generated with a hinted move first
    cdef uint8_t check_after[TRACKED_PLIES]  # per ply of the line: the move gave check

    cdef bint note_check(self) noexcept
    cdef bint defender_must_deviate(self) noexcept
    cdef int cycle_start(self) noexcept
    cdef int judge_repetition(self)

    cdef uint64_t history_signature(self) noexcept
    cdef Entry* bucket(self, uint64_t home) noexcept
    cdef bint probe(self, uint64_t key, uint64_t home, Entry* found) noexcept
    cdef void lookup(self, uint64_t key, uint64_t salt, int remaining, int order, uint32_t* pn,
                     uint32_t* dn, int* length, bint* tainted) noexcept
    cdef void store(self, uint64_t key, uint64_t salt, int remaining, int order, uint32_t pn,
                    uint32_t dn, int length, bint tainted, long long work, int best) noexcept
    cdef int generate(self, bint attacker_to_move, int remaining, int order, int* moves,
                      int* ungated)
    cdef int cached_moves(self, bint attacker_to_move, int remaining, int order, int* moves,
                          int* ungated)
    cdef int hinted_move(self) noexcept
    cdef bint defender_mates_at_once(self) noexcept
    cdef int piece_total(self) noexcept
    cdef int tablebase_code(self)
    cdef int table_verdict(self, bint or_node, int remaining, int* length)
    cdef int repetition_verdict(self, bint or_node)
    cdef bint over_limits(self)
    cdef bint parallel_stop(self) noexcept
    cdef void evaluate_new(self, bint or_node, int remaining, int order, bint gated,
                           uint32_t* pn, uint32_t* dn, int* length, bint* tainted)
    cdef void mid(self, bint or_node, int remaining, int order, bint gated, uint32_t thpn,
                  uint32_t thdn, uint32_t* out_pn, uint32_t* out_dn, int* out_length,
                  bint* out_tainted)
