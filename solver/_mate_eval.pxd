from libc.stdint cimport uint64_t, uint16_t, int16_t, int8_t, uint8_t
from xiangqi._core cimport BoardState

cdef enum:
    EV_MAX_PLY = 160         # plies of a line (extensions included) that keep killers
    EV_HISTORY_SIZE = 65536  # history scores per side, indexed by the move code's 16 bits

cdef struct EvEntry:
    # 16 bytes: a position's score from its side to move's view, within a bound.
    uint64_t key
    uint16_t best            # the best move found (0: none)
    int16_t score            # mate scores relative to this position (see to_table)
    int8_t depth             # the plies searched below it
    uint8_t bound            # EV_EXACT, EV_LOWER or EV_UPPER
    uint8_t attacker         # the attacker is to move here (its move is a hint for df-pn)

cdef struct EvSearch:
    BoardState state
    EvEntry* table
    uint64_t mask
    int* history             # [2][EV_HISTORY_SIZE]
    uint16_t killers[EV_MAX_PLY][2]
    int attacker             # the side looking for mate
    long long nodes
    long long node_limit     # 0: none
    double deadline          # seconds since the epoch; 0: none
    int stopped
    int cancelled

cdef class EvalMateFinder:
    cdef EvSearch search
    cdef int length          # the mate found by the last find(), in attacker moves, or 0
    cdef int reached         # the last find()'s deepest iteration completed, in plies
    cdef int last_score      # and its score, from the attacker's view
    cdef public int max_order     # unused: the interface of solver._mate_ab.MateFinder
