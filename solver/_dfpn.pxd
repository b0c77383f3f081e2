from libc.stdint cimport uint64_t, uint32_t, int32_t, uint8_t
from xiangqi._core cimport BoardState

cdef struct Entry:
    uint64_t key
    uint32_t pn
    uint32_t dn
    uint32_t work            # nodes spent below this entry (replacement priority)
    int32_t remaining        # attacker moves left when (pn, dn) were computed
    int32_t length           # proven: attacker moves of the proof found (an upper bound)
    uint8_t tainted          # result that depended on a repetition in the current path
    uint64_t history         # for tainted results: signature of the line since the last capture

cdef class Search:
    cdef BoardState state
    cdef Entry* table
    cdef uint64_t table_mask
    cdef public int checks_only
    cdef int attacker
    cdef public long long nodes
    cdef public long long node_limit
    cdef public double deadline          # seconds since the epoch; 0 for none
    cdef public int stopped              # 1: a limit was reached or cancel() was called
    cdef public object tablebase_probe   # callable(codes: bytes, turn) -> code, or None
    cdef public int tablebase_max_pieces
    cdef public object progress
    cdef public long long progress_every
    cdef long long stored
    cdef public int perpetual_check_rule     # 长将 by the defender loses (棋例 26.1)
    cdef public object repetition_judge      # callable(codes, turn, moves) -> loser or -1
    cdef public long long judge_calls
    cdef uint8_t check_after[4096]           # per ply of the line: the move gave check

    cdef void note_check(self) noexcept
    cdef bint defender_must_deviate(self) noexcept
    cdef int cycle_start(self) noexcept
    cdef int judge_repetition(self)

    cdef uint64_t history_signature(self) noexcept
    cdef Entry* probe(self, uint64_t key) noexcept
    cdef void lookup(self, uint64_t key, int remaining, uint32_t* pn, uint32_t* dn,
                     bint* tainted) noexcept
    cdef void store(self, uint64_t key, int remaining, uint32_t pn, uint32_t dn, int length,
                    bint tainted, uint32_t work) noexcept
    cdef int generate(self, bint attacker_to_move, int* moves) noexcept
    cdef int piece_total(self) noexcept
    cdef int tablebase_code(self)
    cdef bint over_limits(self)
    cdef void evaluate_new(self, bint or_node, int remaining, uint32_t* pn, uint32_t* dn,
                           int* length, bint* tainted)
    cdef void mid(self, bint or_node, int remaining, uint32_t thpn, uint32_t thdn,
                  uint32_t* out_pn, uint32_t* out_dn, int* out_length, bint* out_tainted)
