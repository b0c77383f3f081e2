# Dense position index of a material: the C-level API used by the builder and the prober.
from libc.stdint cimport int32_t, int64_t, uint8_t
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

cdef struct IndexData:
    Group groups[MAX_GROUPS]
    int ngroups
    int64_t size             # positions per side to move
    int group_of[2][8]       # (colour, type) -> group, -1 if absent
    int first_slot[2][8]     # (colour, type) -> first slot in its group
    int count_of[2][8]       # (colour, type) -> number of such pieces
    int64_t stride[MAX_GROUPS]   # index = sum of group index * stride
    int64_t uid              # distinct for every Indexer made: keys the per-thread digit cache

cdef int64_t ix_encode(IndexData* ix, BoardState* s, int flip, int mirror=*) noexcept nogil
cdef int64_t ix_mirror_rest(IndexData* ix, int64_t base, int64_t gi0) noexcept nogil
cdef int64_t ix_twin(IndexData* ix, int64_t index) noexcept nogil
cdef int ix_decode(IndexData* ix, int64_t index, BoardState* s) noexcept nogil
cdef int64_t ix_encode_quiet(IndexData* ix, int64_t base, int color, int kind, int from90,
                             int to90, bint defender=*) noexcept nogil

cdef inline bint ix_has_twin(IndexData* ix, int64_t index) noexcept nogil:
    """Is the position stored twice (its Red group symmetric, so its mirror image has
    another index)?"""
    return ix.groups[0].symmetric[index % ix.groups[0].count] != 0

cdef class Indexer:
    cdef IndexData data
