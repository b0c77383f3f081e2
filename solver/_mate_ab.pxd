from libc.stdint cimport uint64_t, uint16_t, int8_t
from xiangqi._core cimport BoardState

cdef enum:
    AB_MAX_PLY = 512         # plies of a line, threat tests' passes included, that keep killers
    AB_NO_PROOF = 127        # AbEntry.proven of an entry that holds no proof
    AB_HISTORY_SIZE = 65536  # history scores per side, indexed by the move code's 16 bits

cdef struct AbEntry:
    # 16 bytes.  One entry holds either a proof (under the position's key: a mate is a mate
    # whatever moves it was found among) or a failure (under the key mixed with the λ order
    # it was searched at: a failure says only that this order found nothing).
    uint64_t key
    uint16_t best            # the mating move (attacker) or the refutation (defender); 0: none
    int8_t proven            # attacker moves the mate was shown within (AB_NO_PROOF: none)
    int8_t failed            # most attacker moves shown not to be enough (-1: none)

cdef struct Finder:
    BoardState state
    AbEntry* table
    uint64_t mask
    int* history             # [2][AB_HISTORY_SIZE]: cutoffs by side and move
    uint16_t killers[AB_MAX_PLY][2]
    long long nodes
    long long node_limit     # 0: none
    double deadline          # seconds since the epoch; 0: none
    int stopped              # a limit (of the stage) was reached, or cancelled
    int cancelled            # cancel() was called: every stage stops
    uint64_t fail_salt       # mixed into failures' keys: they hold for one threat cap only
    int tempo_frontier       # λ orders > 1 try every move with this few attacker moves left
    int threat_moves         # a quiet move must threaten a mate within this many moves (the
                             # stage's cap)

cdef class MateFinder:
    cdef Finder finder
    cdef int length          # the mate found by the last find(), or 0
    cdef int found_order
    cdef public int max_order
    cdef public tuple threat_caps
    cdef public int tempo_frontier
