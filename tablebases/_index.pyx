# cython: language_level=3
"""Dense index over the placements of a material.

Pieces are grouped: each side's king with its advisors and elephants forms one group enumerated
jointly (their placements never overlap), and each kind of attacking piece (rook, horse,
cannon, pawn) of a side forms a group of identical pieces taken as an unordered set.  Every
piece only ranges over the points it can legally occupy.  The index is the mixed-radix number
of the group indexes, Red's defender group varying fastest.

Left-right symmetry: only the placements of Red's defender group that are not greater than
their mirror image are enumerated; a position whose Red group is not canonical is mirrored as
a whole before indexing.  Positions whose groups overlap get an index but are marked illegal by
the builder.
"""
from libc.stdlib cimport malloc, calloc, free
from libc.stdint cimport int32_t, int64_t, uint8_t
from xiangqi._core cimport (BaseBoard, BoardState, sq256_of, sq90_of, KING, ADVISOR, ELEPHANT, HORSE,
                            ROOK, CANNON, PAWN, BLACK_BIT, EMPTY, OFFBOARD, MAX_PIECES)
from xiangqi._core cimport bs_init, bs_free

from xiangqi.pieces import Piece, legal_points

# Points each (colour, kind) may occupy, in increasing order, and the reverse map.

cdef int64_t MAX_INDEX_SIZE = (<int64_t> 1) << 62
cdef int64_t next_uid = 0

# The group digits of the index a thread decoded last.  Builder loops decode an index and then
# encode the index after each of its moves, or decode neighbouring indexes one after another:
# the cache spares the 64-bit divisions that split an index into digits (the costliest part
# of both).  Keyed by the indexer's uid and the index, so a stale entry is never used.
cdef extern from *:
    """
    typedef struct { int64_t uid; int64_t index; int64_t block; int64_t digits[10]; } ix_cache_t;
    static __thread __attribute__((tls_model("initial-exec"))) ix_cache_t ix_cache = {-1, -1, -1, {0}};
    """
    ctypedef struct ix_cache_t:
        int64_t uid
        int64_t index
        int64_t block
        int64_t digits[10]
    ix_cache_t ix_cache

cdef int LOCAL[2][8][90]
cdef int POINT[2][8][90]
cdef int NPOINTS[2][8]

cdef _init_points():
    cdef int color, kind, i, sq
    for color in range(2):
        for kind in range(8):
            NPOINTS[color][kind] = 0
            for sq in range(90):
                LOCAL[color][kind][sq] = -1
            if kind == 0:
                continue
            points = sorted(legal_points(Piece(kind, color)))
            for i, sq in enumerate(points):
                LOCAL[color][kind][sq] = i
                POINT[color][kind][i] = sq
            NPOINTS[color][kind] = len(points)

_init_points()

DEFENDERS = (KING, ADVISOR, ELEPHANT)
ATTACKER_KINDS = (ROOK, HORSE, CANNON, PAWN)


cdef inline int mirror90(int sq) noexcept nogil:
    return sq - 2 * (sq % 9) + 8


cdef inline int flip90(int sq) noexcept nogil:
    """The point seen from the other side's ranks (rank r -> 9 - r, same file)."""
    return (9 - sq // 9) * 9 + sq % 9


cdef int64_t group_key(Group* g, int* points) noexcept nogil:
    """Key of a group placement given as one point per slot; identical pieces get sorted.

    Returns -1 if a point is not allowed for its slot."""
    cdef int i, j, tmp
    cdef int local[MAX_SLOTS]
    cdef int64_t key = 0
    for i in range(g.nslots):
        local[i] = LOCAL[g.color[i]][g.kind[i]][points[i]]
        if local[i] < 0:
            return -1
    # insertion sort inside runs of identical pieces
    for i in range(1, g.nslots):
        j = i
        while j > 0 and g.kind[j - 1] == g.kind[j] and g.color[j - 1] == g.color[j] \
                and local[j - 1] > local[j]:
            tmp = local[j]; local[j] = local[j - 1]; local[j - 1] = tmp
            j -= 1
    for i in range(g.nslots):
        key = key * g.radix[i] + local[i]
    return key


cdef int64_t ix_encode(IndexData* ix, BoardState* s, int flip, int mirror=0) noexcept nogil:
    """Index of the position on ``s`` (colours swapped and ranks flipped if ``flip``; reflected
    left-right first if ``mirror``, which selects the twin of a position whose Red group is
    symmetric).

    Returns -1 if the pieces do not match this material."""
    cdef int side, i, sq, kind, color, g, slot, m, attempt
    cdef int fill[2][8]
    cdef int points[MAX_GROUPS][MAX_SLOTS]
    cdef int64_t index, key, gi
    for color in range(2):
        for kind in range(8):
            fill[color][kind] = 0
    for side in range(2):
        for i in range(s.piece_count[side]):
            sq = s.piece_squares[side][i]
            kind = s.squares[sq] & 7
            sq = sq90_of(sq)
            color = side ^ flip
            if flip:
                sq = flip90(sq)
            if mirror:
                sq = mirror90(sq)
            g = ix.group_of[color][kind]
            if g < 0 or fill[color][kind] >= ix.count_of[color][kind]:
                return -1
            points[g][ix.first_slot[color][kind] + fill[color][kind]] = sq
            fill[color][kind] += 1
    for color in range(2):
        for kind in range(8):
            if fill[color][kind] != ix.count_of[color][kind]:
                return -1
    for attempt in range(2):
        key = group_key(&ix.groups[0], points[0])
        if key < 0:
            return -1
        gi = ix.groups[0].key_to_index[key]
        if gi == -2 and attempt == 0:
            for g in range(ix.ngroups):
                for slot in range(ix.groups[g].nslots):
                    points[g][slot] = mirror90(points[g][slot])
            continue
        break
    if gi < 0:
        return -1
    index = 0
    for g in range(ix.ngroups - 1, 0, -1):
        key = group_key(&ix.groups[g], points[g])
        if key < 0 or ix.groups[g].key_to_index[key] < 0:
            return -1
        index = index * ix.groups[g].count + ix.groups[g].key_to_index[key]
    return index * ix.groups[0].count + gi

cdef int64_t ix_encode_quiet(IndexData* ix, int64_t base, int color, int kind, int from90,
                             int to90, bint defender=False, bint tables=False) noexcept nogil:
    """Index after a non-capturing move of one piece from the decoded position ``base``.

    Only the moved piece's group changes, so only its group index is recomputed.  Returns
    -2 for a move in Red's defender group whose new placement is not canonical (the whole
    position is then reflected: use :func:`ix_encode`), -1 if the result is not a placement
    of this material.  With ``defender``, that reflection is done here too (the other
    groups mirrored by the move tables' ``mirrored`` entries where there are some).  With ``tables``, a group of several pieces
    takes its new entry from the move table of :func:`ix_prepare_moves` where there is one
    (the builder's passes; the re-check computes the key, an independent path)."""
    cdef int g = ix.group_of[color][kind]
    cdef int i, done = 0, local
    cdef int points[MAX_SLOTS]
    cdef int64_t gi, key, new_gi
    cdef Group* grp
    if g < 0:
        return -2
    grp = &ix.groups[g]
    if ix_cache.uid == ix.uid and ix_cache.index == base:
        gi = ix_cache.digits[g]
    else:
        gi = (base // ix.stride[g]) % grp.count
    if grp.nslots == 1:
        # A piece alone in its group (a single rook, horse, ...; a bare king): its key is its
        # local point, no sort.  Most moves the builder indexes are of such pieces.
        if grp.squares[gi] != from90 or grp.color[0] != color or grp.kind[0] != kind:
            return -1
        points[0] = to90
        key = LOCAL[color][kind][to90]
    elif tables and grp.moves != NULL:
        # A group of several pieces (Black's king, advisors and elephants, two rooks, ...):
        # the move table holds the entry, no sort of identical pieces.
        local = LOCAL[color][kind][to90]
        if local < 0:
            return -1
        for i in range(grp.nslots):
            if grp.squares[gi * grp.nslots + i] == from90 and grp.color[i] == color \
                    and grp.kind[i] == kind:
                new_gi = grp.moves[gi * grp.row + grp.offset[i] + local]
                if new_gi >= 0:
                    return base + (new_gi - gi) * ix.stride[g]
                if new_gi == -1 or g != 0:
                    return -1
                # -2: the mirror image is canonical; the key path below reflects it.
                break
        else:
            return -1
        for i in range(grp.nslots):
            points[i] = grp.squares[gi * grp.nslots + i]
            if not done and points[i] == from90 and grp.color[i] == color and grp.kind[i] == kind:
                points[i] = to90
                done = 1
        key = group_key(grp, points)
    else:
        for i in range(grp.nslots):
            points[i] = grp.squares[gi * grp.nslots + i]
            if not done and points[i] == from90 and grp.color[i] == color and grp.kind[i] == kind:
                points[i] = to90
                done = 1
        if not done:
            return -1
        key = group_key(grp, points)
    if key < 0:
        return -1
    new_gi = grp.key_to_index[key]
    if new_gi == -2 and g == 0:
        if not defender:
            return -2                   # the full encode reflects it (the re-check's path)
        # Its mirror image is the canonical one: reflect the whole position.
        for i in range(grp.nslots):
            points[i] = mirror90(points[i])
        key = group_key(grp, points)
        if key < 0 or grp.key_to_index[key] < 0:
            return -1
        return ix_mirror_rest(ix, base, grp.key_to_index[key])
    if new_gi < 0:
        return -1
    return base + (new_gi - gi) * ix.stride[g]


cdef int64_t ix_mirror_rest(IndexData* ix, int64_t base, int64_t gi0) noexcept nogil:
    """Index with Red's defender group at entry ``gi0`` and every other group that of
    ``base`` reflected left-right (what :func:`ix_encode` does when it mirrors)."""
    cdef int g, i
    cdef int points[MAX_SLOTS]
    cdef int64_t gi, key, index = 0
    cdef Group* grp
    cdef bint cached = ix_cache.uid == ix.uid and ix_cache.index == base
    for g in range(ix.ngroups - 1, 0, -1):
        grp = &ix.groups[g]
        gi = ix_cache.digits[g] if cached else (base // ix.stride[g]) % grp.count
        if grp.mirrored != NULL:
            key = grp.mirrored[gi]      # the entry itself (ix_prepare_moves)
            if key < 0:
                return -1
            index = index * grp.count + key
            continue
        for i in range(grp.nslots):
            points[i] = mirror90(grp.squares[gi * grp.nslots + i])
        key = group_key(grp, points)
        if key < 0 or grp.key_to_index[key] < 0:
            return -1
        index = index * grp.count + grp.key_to_index[key]
    return index * ix.groups[0].count + gi0


cdef int64_t ix_twin(IndexData* ix, int64_t index) noexcept nogil:
    """The other index of a position whose Red group is symmetric (``ix_has_twin``): its
    mirror image, as ``ix_encode(.., mirror=1)`` gives it."""
    return ix_mirror_rest(ix, index, index % ix.groups[0].count)


cdef void ix_digits(IndexData* ix, int64_t index, int64_t* digits) noexcept nogil:
    """The group entries of ``index`` (from the thread's cache if it decoded ``index`` last)."""
    cdef int g
    cdef int64_t rest = index
    if ix_cache.uid == ix.uid and ix_cache.index == index:
        for g in range(ix.ngroups):
            digits[g] = ix_cache.digits[g]
        return
    for g in range(ix.ngroups):
        digits[g] = rest % ix.groups[g].count
        rest //= ix.groups[g].count


cdef inline void split_index(IndexData* ix, int64_t index) noexcept nogil:
    """The group entries of ``index`` into the thread's cache (``ix_cache.digits``)."""
    cdef int g
    cdef int64_t rest
    # Within the cached index's run of Red-defender placements only the first digit changes
    # (a subtraction); otherwise divide it out.
    if ix_cache.uid == ix.uid and ix_cache.block <= index < ix_cache.block + ix.groups[0].count:
        ix_cache.digits[0] = index - ix_cache.block
    else:
        rest = index
        for g in range(ix.ngroups):
            ix_cache.digits[g] = rest % ix.groups[g].count
            rest //= ix.groups[g].count
        ix_cache.block = index - ix_cache.digits[0]
        ix_cache.uid = ix.uid
    ix_cache.index = index


cdef int ix_decode(IndexData* ix, int64_t index, BoardState* s) noexcept nogil:
    """Set up the pieces of ``index`` on ``s`` (side to move unchanged, no undo history).

    Returns -1 (board left partly set) if two pieces fall on one point."""
    cdef int g, i, sq, color, kind, side
    cdef int64_t gi
    cdef uint8_t* pts
    split_index(ix, index)
    # clear the previous pieces only
    for side in range(2):
        for i in range(s.piece_count[side]):
            s.squares[s.piece_squares[side][i]] = EMPTY
        s.piece_count[side] = 0
    s.ply = 0
    for g in range(ix.ngroups):
        gi = ix_cache.digits[g]
        pts = &ix.groups[g].squares[gi * ix.groups[g].nslots]
        for i in range(ix.groups[g].nslots):
            sq = sq256_of(pts[i])
            if s.squares[sq] != EMPTY:
                return -1
            color = ix.groups[g].color[i]
            kind = ix.groups[g].kind[i]
            s.squares[sq] = kind | (BLACK_BIT if color else 0)
            s.piece_index[sq] = s.piece_count[color]
            s.piece_squares[color][s.piece_count[color]] = sq
            s.piece_count[color] += 1
            if kind == KING:
                s.king_square[color] = sq
    return 0


cdef int ix_decode_placed(IndexData* ix, int64_t index, BoardState* s,
                          Placed* placed) noexcept nogil:
    """:func:`ix_decode` onto a board that holds what the last call with ``placed`` set up
    there (every move played on it since taken back): only the groups whose entry changed
    are moved, each piece keeping its place in the board's piece lists, so the board ends as
    ix_decode would leave it (the same move order).  The builder's loops decode neighbouring
    indexes one after another, which mostly differ in one group.  ``placed.uid`` not this
    indexer's: a full decode.  Returns -1 (and forgets the board) if two pieces fall on one
    point."""
    cdef int g, i, sq, kind, color
    cdef int64_t gi, old
    cdef int list_place[MAX_GROUPS][MAX_SLOTS]
    cdef Group* grp
    if placed.uid != ix.uid:
        placed.uid = -1
        if ix_decode(ix, index, s) < 0:
            return -1
        for g in range(ix.ngroups):
            placed.digits[g] = ix_cache.digits[g]
        placed.uid = ix.uid
        return 0
    split_index(ix, index)
    # Lift the pieces of every group that changes, then put them down on their new points
    # (lifting all first: a piece may land where another group's piece stood).
    for g in range(ix.ngroups):
        old = placed.digits[g]
        if ix_cache.digits[g] == old:
            continue
        grp = &ix.groups[g]
        for i in range(grp.nslots):
            sq = sq256_of(grp.squares[old * grp.nslots + i])
            s.squares[sq] = EMPTY
            list_place[g][i] = s.piece_index[sq]
    for g in range(ix.ngroups):
        gi = ix_cache.digits[g]
        if gi == placed.digits[g]:
            continue
        grp = &ix.groups[g]
        for i in range(grp.nslots):
            sq = sq256_of(grp.squares[gi * grp.nslots + i])
            if s.squares[sq] != EMPTY:
                placed.uid = -1         # the board is left partly set
                return -1
            color = grp.color[i]
            kind = grp.kind[i]
            s.squares[sq] = kind | (BLACK_BIT if color else 0)
            s.piece_index[sq] = list_place[g][i]
            s.piece_squares[color][list_place[g][i]] = sq
            if kind == KING:
                s.king_square[color] = sq
        placed.digits[g] = gi
    s.ply = 0
    return 0


cdef int build_group(IndexData* ix, int g, bint mirror_reduce) except -1:
    cdef Group* grp = &ix.groups[g]
    cdef int64_t nkeys = 1, key, rest, mkey
    cdef int i, j, count = 0
    cdef int points[MAX_SLOTS]
    cdef int mirrored[MAX_SLOTS]
    cdef int local[MAX_SLOTS]
    cdef bint ok
    for i in range(grp.nslots):
        nkeys *= grp.radix[i]
        for j in range(90):
            grp.local[i][j] = LOCAL[grp.color[i]][grp.kind[i]][j]
    if nkeys > 50_000_000:
        raise ValueError("a piece group has too many placements to index")
    grp.nkeys = nkeys
    grp.key_to_index = <int32_t*> malloc(nkeys * sizeof(int32_t))
    if grp.key_to_index == NULL:
        raise MemoryError()
    for key in range(nkeys):
        rest = key
        for i in range(grp.nslots - 1, -1, -1):
            local[i] = rest % grp.radix[i]
            rest //= grp.radix[i]
        ok = True
        for i in range(grp.nslots):
            points[i] = POINT[grp.color[i]][grp.kind[i]][local[i]]
            if i > 0 and grp.kind[i - 1] == grp.kind[i] and grp.color[i - 1] == grp.color[i] \
                    and local[i - 1] >= local[i]:
                ok = False
            for j in range(i):
                if points[j] == points[i]:
                    ok = False
        if not ok:
            grp.key_to_index[key] = -1
            continue
        if mirror_reduce:
            for i in range(grp.nslots):
                mirrored[i] = mirror90(points[i])
            mkey = group_key(grp, mirrored)
            if mkey < key:
                grp.key_to_index[key] = -2
                continue
        grp.key_to_index[key] = count
        count += 1
    grp.count = count
    grp.squares = <uint8_t*> malloc(max(count, 1) * grp.nslots * sizeof(uint8_t))
    grp.symmetric = <uint8_t*> calloc(max(count, 1), sizeof(uint8_t))
    if grp.squares == NULL or grp.symmetric == NULL:
        raise MemoryError()
    for key in range(nkeys):
        if grp.key_to_index[key] >= 0:
            rest = key
            for i in range(grp.nslots - 1, -1, -1):
                local[i] = rest % grp.radix[i]
                rest //= grp.radix[i]
            for i in range(grp.nslots):
                points[i] = POINT[grp.color[i]][grp.kind[i]][local[i]]
                grp.squares[grp.key_to_index[key] * grp.nslots + i] = points[i]
                mirrored[i] = mirror90(points[i])
            if mirror_reduce and group_key(grp, mirrored) == key:
                grp.symmetric[grp.key_to_index[key]] = 1
    return 0


DEF MAX_MOVE_TABLE = 1 << 21     # entries (4 bytes each) of one group's move table


cdef int ix_prepare_moves(IndexData* ix) except -1:
    """Build the move tables and mirror entries of the groups (see Group) if not yet built:
    the builder's quiet moves in a group of several pieces then need no key computation and
    sort, and a twin's index no key per group.  A group whose table would exceed
    MAX_MOVE_TABLE entries keeps the key path.  Call with the GIL, before the loops."""
    cdef int g, i, j, l
    cdef int64_t gi, key
    cdef int points[MAX_SLOTS]
    cdef Group* grp
    for g in range(ix.ngroups):
        grp = &ix.groups[g]
        if g > 0 and grp.mirrored == NULL:
            grp.mirrored = <int32_t*> malloc(max(grp.count, 1) * sizeof(int32_t))
            if grp.mirrored == NULL:
                raise MemoryError()
            for gi in range(grp.count):
                for i in range(grp.nslots):
                    points[i] = mirror90(grp.squares[gi * grp.nslots + i])
                key = group_key(grp, points)
                grp.mirrored[gi] = grp.key_to_index[key] if key >= 0 else -1
                if grp.mirrored[gi] < 0:
                    grp.mirrored[gi] = -1
        if grp.nslots < 2 or grp.moves != NULL:
            continue
        grp.row = 0
        for i in range(grp.nslots):
            grp.offset[i] = grp.row
            grp.row += grp.radix[i]
        if grp.count * grp.row > MAX_MOVE_TABLE:
            continue
        grp.moves = <int32_t*> malloc(max(grp.count * grp.row, 1) * sizeof(int32_t))
        if grp.moves == NULL:
            raise MemoryError()
        for gi in range(grp.count):
            for i in range(grp.nslots):
                for l in range(grp.radix[i]):
                    for j in range(grp.nslots):
                        points[j] = grp.squares[gi * grp.nslots + j]
                    points[i] = POINT[grp.color[i]][grp.kind[i]][l]
                    key = group_key(grp, points)
                    grp.moves[gi * grp.row + grp.offset[i] + l] = \
                        grp.key_to_index[key] if key >= 0 else -1
    return 0


cdef class Indexer:
    """Index of one material (see the module docstring).

    ``pieces`` is a list of (colour, kind) pairs, one per piece, kings included.
    """

    def __cinit__(self, pieces):
        global next_uid
        cdef int color, kind, n, g, i, slot
        self.data.ngroups = 0
        self.data.uid = next_uid     # made under the GIL: no two share a uid
        next_uid += 1
        for color in range(2):
            for kind in range(8):
                self.data.group_of[color][kind] = -1
                self.data.count_of[color][kind] = 0
        counts = {}
        for color, kind in pieces:
            counts[(color, kind)] = counts.get((color, kind), 0) + 1
        plan = []
        for color in range(2):
            plan.append([(color, kind, counts.get((color, kind), 0)) for kind in DEFENDERS
                         if counts.get((color, kind), 0)])
        for color in range(2):
            for kind in ATTACKER_KINDS:
                if counts.get((color, kind), 0):
                    plan.append([(color, kind, counts[(color, kind)])])
        if len(plan) > MAX_GROUPS:
            raise ValueError("too many piece groups")
        for g, members in enumerate(plan):
            slot = 0
            for color, kind, n in members:
                self.data.group_of[color][kind] = g
                self.data.first_slot[color][kind] = slot
                self.data.count_of[color][kind] = n
                for i in range(n):
                    if slot >= MAX_SLOTS:
                        raise ValueError("too many pieces in one group")
                    self.data.groups[g].color[slot] = color
                    self.data.groups[g].kind[slot] = kind
                    self.data.groups[g].radix[slot] = NPOINTS[color][kind]
                    slot += 1
            self.data.groups[g].nslots = slot
            self.data.groups[g].key_to_index = NULL
            self.data.groups[g].squares = NULL
            self.data.groups[g].symmetric = NULL
            self.data.groups[g].moves = NULL
            self.data.groups[g].mirrored = NULL
            self.data.ngroups += 1
        self.data.size = 1
        for g in range(self.data.ngroups):
            build_group(&self.data, g, g == 0)
            self.data.stride[g] = self.data.size
            # Refuse rather than wrap: a full-board material has far more than 2^62 positions.
            if self.data.groups[g].count > 0 and \
                    self.data.size > MAX_INDEX_SIZE // self.data.groups[g].count:
                raise ValueError("the material has more positions than a table can index "
                                 "(over 2^62 per side to move)")
            self.data.size *= self.data.groups[g].count

    def __dealloc__(self):
        cdef int g
        for g in range(self.data.ngroups):
            free(self.data.groups[g].key_to_index)
            free(self.data.groups[g].squares)
            free(self.data.groups[g].symmetric)
            free(self.data.groups[g].moves)
            free(self.data.groups[g].mirrored)


    # -- Python access (tests, tools) -----------------------------------------------------------

    @property
    def size(self):
        """Positions per side to move."""
        return self.data.size

    @property
    def group_counts(self):
        """Placements per group, Red's defender group first."""
        return [self.data.groups[g].count for g in range(self.data.ngroups)]

    def index_of(self, board, bint flip=False):
        """Index of a :class:`xiangqi.Board` position (-1 if its pieces do not match)."""
        return ix_encode(&self.data, &(<BaseBoard> board).state, flip)

    def quiet_move_index(self, int64_t index, int from90, int to90, bint tables=True):
        """Index after the quiet move of the piece on point ``from90`` to ``to90`` (points
        0-89) from ``index``, as the builder's passes compute it (``tables``: the move tables
        of groups of several pieces) or as the re-check does (their keys); -1 if the result
        is no placement of the material, -2 if the re-check leaves it to the full encode
        (a move of Red's defender group that reflects the position).  For tests: the two must agree."""
        cdef int g, i, color = -1, kind = 0
        cdef int64_t digits[MAX_GROUPS]
        if not 0 <= index < self.data.size or not 0 <= from90 < 90 or not 0 <= to90 < 90:
            raise ValueError("index or point out of range")
        if tables:
            ix_prepare_moves(&self.data)
        ix_digits(&self.data, index, digits)
        for g in range(self.data.ngroups):
            for i in range(self.data.groups[g].nslots):
                if self.data.groups[g].squares[digits[g] * self.data.groups[g].nslots + i] \
                        == from90:
                    color = self.data.groups[g].color[i]
                    kind = self.data.groups[g].kind[i]
        if color < 0:
            raise ValueError(f"no piece on point {from90} in index {index}")
        return ix_quiet_index(&self.data, index, digits, color, kind, from90, to90, tables)

    def decoded_in_turn(self, indexes, bint incremental=True):
        """Decode ``indexes`` one after another onto one board, as the builder's loops do
        (``incremental``: moving only the groups that changed, :func:`ix_decode_placed`; or
        each in full, :func:`ix_decode`); for each, None if two pieces overlap, else the
        board's piece points (0-89) of Red and of Black in its piece-list order (which sets
        the move order).  For tests: both ways must give the same boards."""
        cdef BoardState state
        cdef Placed placed
        cdef int64_t index
        cdef int side, i, result
        placed.uid = -1
        if bs_init(&state) < 0:
            raise MemoryError()
        boards = []
        try:
            for index in indexes:
                if not 0 <= index < self.data.size:
                    raise ValueError(f"index {index} out of range")
                if incremental:
                    result = ix_decode_placed(&self.data, index, &state, &placed)
                else:
                    result = ix_decode(&self.data, index, &state)
                if result < 0:
                    boards.append(None)
                    continue
                boards.append(tuple([sq90_of(state.piece_squares[side][i])
                                     for i in range(state.piece_count[side])]
                                    for side in range(2)))
        finally:
            bs_free(&state)
        return boards

    def placement(self, int64_t index):
        """The 90 piece codes of ``index`` (None if two pieces overlap)."""
        cdef int g, i
        cdef int64_t gi
        codes = [0] * 90
        for g in range(self.data.ngroups):
            gi = index % self.data.groups[g].count
            index //= self.data.groups[g].count
            for i in range(self.data.groups[g].nslots):
                sq = self.data.groups[g].squares[gi * self.data.groups[g].nslots + i]
                if codes[sq]:
                    return None
                codes[sq] = self.data.groups[g].kind[i] | (8 if self.data.groups[g].color[i] else 0)
        return codes
