from libc.stdint cimport uint8_t, uint16_t, uint64_t, int64_t
from tablebases._index cimport IndexData, Placed
from xiangqi._core cimport BoardState

# The one definition of the stored codes' special values: C code cimports them (the solver's
# _dfpn too), Python reads them as tablebases._builder.StoredCode.ILLEGAL (tablebases.values.ILLEGAL).
cpdef enum StoredCode:
    ILLEGAL = 0xFFFF         # not a legal position (overlap, side not to move in check)
    TENTATIVE = 0x8000       # value known, takes effect at the pass of its distance
    DISTANCE_MASK = 0x7FFF   # code = plies + 1; 0 = draw (or not yet decided)

cdef struct SubTable:
    IndexData* ix
    uint16_t* values[2]
    uint8_t* narrow[2]       # or NULL: the codes in a byte each (see narrow_codes)
    uint64_t* outcomes[2]    # or NULL: the codes reduced to 2 bits (see pack_outcomes)
    int flip                 # the sub-table is stored for the colour-flipped material

cdef struct Context:
    IndexData* ix
    uint16_t* values[2]
    uint64_t* candidates[2]
    SubTable subs[2][8]      # by colour and type of the captured piece
    bint capture_resets      # DTC: a capture ends the count
    int capture_limit        # DTC60: sub-table values beyond this many plies count as draws
    uint64_t* checker[2]     # perpetual check: positions whose side to move must stop checking
    uint64_t* victim[2]      # ... and the positions its forbidden checks lead to (or NULL)
    int attacks              # what checker must stop: RULES_CHECK checks, RULES_CHINESE
                             # checks and chases (tablebases._chase)
    int kinds[2]             # per colour: bit 1 << type for each piece type it has
    uint64_t* draw_hint[2]   # entries whose first-sweep code is 0 (from DTM), or NULL
    uint64_t* loss_hint[2]   # known losses: the only positions a later metric may lose
    uint64_t* next_frontier[2]   # retrograde: positions decided in the current pass
    uint64_t* tentative[2]   # retrograde: positions that may hold a TENTATIVE code
    uint64_t* won[2]         # retrograde: wins decided at an earlier pass, and ILLEGAL entries
    int threads
    BoardState* states       # the threads' boards, and what was last decoded on each (or
    Placed* placed           # NULL: decode in full)
