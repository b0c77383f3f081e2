# Dense position index of a material: the C-level API used by the builder and the prober.
from libc.stdint cimport int16_t, int32_t, int64_t, uint8_t
from xiangqi._core cimport BoardState

cdef enum:
    MAX_GROUPS = 10
    MAX_SLOTS = 5            # pieces in one group

cdef struct Group:
    int nslots
    int color[MAX_SLOTS]     # per slot: colour and piece type
    int kind[MAX_SLOTS]
    int radix[MAX_SLOTS]     # number of points the slot's piece may stand on
    int64_t nkeys            # product of the radixes
    int32_t* key_to_index    # -1: impossible placement, -2: not canonical under the mirror
    uint8_t* squares         # count * nslots points (0..89)
    uint8_t* symmetric       # group 0 only: 1 if the placement is its own mirror image
    int64_t count
    # The builder's tables of quiet moves (ix_prepare_moves; NULL until then): the entry of
    # placement gi after slot i's piece moves to its local point l is
    # moves[gi * row + offset[i] + l], as key_to_index gives it (-1: not a placement, -2:
    # not canonical under the mirror); ``mirrored[gi]``: the entry of gi's mirror image
    # (groups after the first; -1 if none).
    int32_t* moves
    int32_t* mirrored
    int row
    int offset[MAX_SLOTS]
    int16_t local[MAX_SLOTS][90]     # slot's local point of each point (-1: not allowed)

cdef struct IndexData:
    Group groups[MAX_GROUPS]
    int ngroups
    int64_t size             # positions per side to move
    int group_of[2][8]       # (colour, type) -> group, -1 if absent
    int first_slot[2][8]     # (colour, type) -> first slot in its group
    int count_of[2][8]       # (colour, type) -> number of such pieces
    int64_t stride[MAX_GROUPS]   # index = sum of group index * stride
    int64_t uid              # distinct for every Indexer made: keys the per-thread digit cache

# What ix_decode_placed last set up on a board: the indexer's uid (-1: nothing known) and
# each group's entry.
cdef struct Placed:
    int64_t uid
    int64_t digits[MAX_GROUPS]

cdef int64_t ix_encode(IndexData* ix, BoardState* s, int flip, int mirror=*) noexcept nogil
cdef int64_t ix_mirror_rest(IndexData* ix, int64_t base, int64_t gi0) noexcept nogil
cdef int64_t ix_twin(IndexData* ix, int64_t index) noexcept nogil
cdef int ix_decode(IndexData* ix, int64_t index, BoardState* s) noexcept nogil
cdef int ix_decode_placed(IndexData* ix, int64_t index, BoardState* s,
                          Placed* placed) noexcept nogil
cdef int64_t ix_encode_quiet(IndexData* ix, int64_t base, int color, int kind, int from90,
                             int to90, bint defender=*, bint tables=*) noexcept nogil
cdef int ix_prepare_moves(IndexData* ix) except -1
cdef void ix_digits(IndexData* ix, int64_t index, int64_t* digits) noexcept nogil

cdef inline bint ix_has_twin(IndexData* ix, int64_t index) noexcept nogil:
    """Is the position stored twice (its Red group symmetric, so its mirror image has
    another index)?"""
    return ix.groups[0].symmetric[index % ix.groups[0].count] != 0

cdef class Indexer:
    cdef IndexData data

cdef inline int64_t ix_quiet_index(IndexData* ix, int64_t base, const int64_t* digits,
                                   int color, int kind, int from90, int to90,
                                   bint builder=True) noexcept nogil:
    """``ix_encode_quiet(ix, base, color, kind, from90, to90, builder, builder)`` with the
    group entries of ``base`` given (``digits``, from :func:`ix_digits`), inlined where it is
    quick: a piece alone in a group after the first (its entry is its local point) and, for
    the ``builder``, a group with a move table (ix_prepare_moves); the rest, Red's defender
    group above all, is left to ix_encode_quiet (the same values)."""
    cdef int g = ix.group_of[color][kind]
    cdef int i, local
    cdef int64_t gi, entry
    cdef Group* grp
    if g <= 0:
        return ix_encode_quiet(ix, base, color, kind, from90, to90, builder, builder)
    grp = &ix.groups[g]
    gi = digits[g]
    if grp.nslots == 1:
        if grp.squares[gi] != from90:
            return -1
        local = grp.local[0][to90]
        if local < 0:
            return -1
        return base + (local - gi) * ix.stride[g]
    if grp.moves == NULL or not builder:
        return ix_encode_quiet(ix, base, color, kind, from90, to90, builder, builder)
    for i in range(grp.nslots):
        if grp.squares[gi * grp.nslots + i] == from90 and grp.kind[i] == kind:
            local = grp.local[i][to90]
            if local < 0:
                return -1
            entry = grp.moves[gi * grp.row + grp.offset[i] + local]
            return base + (entry - gi) * ix.stride[g] if entry >= 0 else -1
    return -1
