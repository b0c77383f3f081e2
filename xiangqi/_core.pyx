# cython: language_level=3
"""Rules engine core: padded-mailbox board, move generation, make/unmake, check detection.

The board is a 16x16 mailbox with the 9x10 board at rows 3..12 and columns 3..11, so every
piece move (the horse's is the longest, two steps) lands on a sentinel when it leaves the
board.  Rank ``r``, file ``f`` sit at ``(r + 3) * 16 + f + 3``; Red moves towards higher ranks.

Moves are generated pseudo-legally and filtered: a move is tested by make/check/unmake only
when it can change an attack on its own king (the king moves, the side is in check, or the move
touches the king's rank, file or a horse-leg point); every other move is legal as generated.
"""
from libc.stdlib cimport malloc, realloc, free, abort
from libc.string cimport memset, memcpy
from libc.stdint cimport uint64_t, uint8_t

import threading

# ----------------------------------------------------------------------------------------
# Static tables

cdef int ORTHO[4]
ORTHO[:] = [16, -16, 1, -1]
cdef int DIAG[4]
DIAG[:] = [17, 15, -15, -17]
# Horse targets and the leg (the orthogonal neighbour in the long direction) for each.
cdef int HORSE_TO[8]
HORSE_TO[:] = [33, 31, -31, -33, 18, -14, 14, -18]
cdef int HORSE_LEG[8]
HORSE_LEG[:] = [16, 16, -16, -16, 1, 1, -1, -1]
# Seen from a king: a horse at king + HORSE_CHECK_FROM[i] attacks it when the point
# king + HORSE_CHECK_LEG[i] (diagonal to the king, the horse's leg) is empty.
DEF FEW_PIECES = 8        # up to this many enemy pieces, attacks are tested piece by piece

# From a horse to its target: the leg offset (from the horse) of the move covering ``delta``
# (target - horse + 34), 0 if no horse move covers it.
cdef int HORSE_LEG_BY_DELTA[69]
HORSE_LEG_BY_DELTA[:] = [0] * 69
for _j in range(8):
    HORSE_LEG_BY_DELTA[HORSE_TO[_j] + 34] = HORSE_LEG[_j]
cdef int HORSE_CHECK_FROM[8]
HORSE_CHECK_FROM[:] = [33, 31, -31, -33, 18, -14, 14, -18]
cdef int HORSE_CHECK_LEG[8]
HORSE_CHECK_LEG[:] = [17, 15, -15, -17, 17, -15, 15, -17]

cdef uint8_t IN_PALACE[2][256]
cdef uint8_t OWN_HALF[2][256]     # the side's own half (elephants stay there)
cdef uint8_t CROSSED[2][256]      # the opponent's half (pawns may move sideways there)
cdef uint8_t PAWN_OK[2][256]      # points a pawn of the side can ever stand on
cdef uint8_t SQ256[90]
cdef uint8_t SQ90[256]
cdef uint64_t ZOBRIST[16][256]
cdef uint64_t ZOBRIST_BLACK_TO_MOVE

cdef uint64_t _splitmix_state = 0x9E3779B97F4A7C15ULL

cdef uint64_t _splitmix() noexcept nogil:
    global _splitmix_state
    cdef uint64_t z
    _splitmix_state += 0x9E3779B97F4A7C15ULL
    z = _splitmix_state
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef void _init_tables() noexcept:
    cdef int sq, rank, file, piece, s
    memset(IN_PALACE, 0, sizeof(IN_PALACE))
    memset(OWN_HALF, 0, sizeof(OWN_HALF))
    memset(CROSSED, 0, sizeof(CROSSED))
    memset(PAWN_OK, 0, sizeof(PAWN_OK))
    for sq in range(256):
        SQ90[sq] = 255
    for rank in range(10):
        for file in range(9):
            sq = (rank + 3) * 16 + file + 3
            SQ256[rank * 9 + file] = sq
            SQ90[sq] = rank * 9 + file
            if 3 <= file <= 5:
                if rank <= 2:
                    IN_PALACE[RED][sq] = 1
                if rank >= 7:
                    IN_PALACE[BLACK][sq] = 1
            if rank >= 5 or (rank >= 3 and file % 2 == 0):
                PAWN_OK[RED][sq] = 1
            if rank <= 4 or (rank <= 6 and file % 2 == 0):
                PAWN_OK[BLACK][sq] = 1
            if rank <= 4:
                OWN_HALF[RED][sq] = 1
                CROSSED[BLACK][sq] = 1
            else:
                OWN_HALF[BLACK][sq] = 1
                CROSSED[RED][sq] = 1
    for piece in range(16):
        for sq in range(256):
            ZOBRIST[piece][sq] = 0
    for piece in range(1, 16):
        if piece == BLACK_BIT:
            continue
        for s in range(90):
            ZOBRIST[piece][SQ256[s]] = _splitmix()
    global ZOBRIST_BLACK_TO_MOVE
    ZOBRIST_BLACK_TO_MOVE = _splitmix()

_init_tables()

# ----------------------------------------------------------------------------------------

cdef inline int _side_of(int piece) noexcept nogil:
    return (piece >> 3) & 1

cdef inline bint _same_line(int a, int b) noexcept nogil:
    return ((a ^ b) & 0xF0) == 0 or ((a ^ b) & 0x0F) == 0

cdef inline bint _diagonal_neighbour(int a, int b) noexcept nogil:
    cdef int d = a - b
    return d == 17 or d == 15 or d == -15 or d == -17


# ----------------------------------------------------------------------------------------
# Moves

FILE_NAMES = "abcdefghi"


class IllegalMoveError(ValueError):
    """A move that is not legal in the position it was played in."""


cdef class Move:
    """A move from one point to another; points are 0..89 (``rank * 9 + file``).

    >>> Move.from_iccs("h2e2")
    Move.from_iccs('h2e2')
    >>> Move.from_iccs("H2-E2").iccs()
    'h2e2'
    """
    def __init__(self, int from_square, int to_square):
        if not (0 <= from_square < 90 and 0 <= to_square < 90):
            raise ValueError(f"square out of range: {from_square}, {to_square}")
        self.from_square = from_square
        self.to_square = to_square

    @staticmethod
    def from_iccs(str text):
        """Parse ``h2e2`` or ``H2-E2``."""
        cdef str t = text.strip().lower().replace("-", "")
        if len(t) != 4 or t[0] not in FILE_NAMES or t[2] not in FILE_NAMES \
                or not t[1].isdigit() or not t[3].isdigit() or not t[1].isascii() \
                or not t[3].isascii():
            raise InvalidMoveError(f"not an ICCS move: {text!r} (expected like 'h2e2' or 'H2-E2')")
        return _move_object((ord(t[1]) - 48) * 9 + FILE_NAMES.index(t[0]),
                            (ord(t[3]) - 48) * 9 + FILE_NAMES.index(t[2]))

    def iccs(self):
        """The move in lowercase ICCS, e.g. ``h2e2``."""
        return (FILE_NAMES[self.from_square % 9] + str(self.from_square // 9)
                + FILE_NAMES[self.to_square % 9] + str(self.to_square // 9))

    def __eq__(self, other):
        if not isinstance(other, Move):
            return NotImplemented
        return (self.from_square == (<Move> other).from_square
                and self.to_square == (<Move> other).to_square)

    def __hash__(self):
        return self.from_square * 90 + self.to_square

    def __repr__(self):
        return f"Move.from_iccs({self.iccs()!r})"

    def __str__(self):
        return self.iccs()

    def __reduce__(self):
        return (Move, (self.from_square, self.to_square))


class InvalidMoveError(ValueError):
    """Text that does not describe a move in the expected notation."""


# All 8100 from/to pairs share immutable Move objects, so move lists cost no allocation.
cdef list _MOVE_CACHE = [None] * 8100

cdef inline Move _move_object(int f, int t):
    cdef object m = _MOVE_CACHE[f * 90 + t]
    if m is None:
        m = Move.__new__(Move)
        (<Move> m).from_square = f
        (<Move> m).to_square = t
        _MOVE_CACHE[f * 90 + t] = m
    return <Move> m


cdef int bs_init(BoardState* s) noexcept nogil:
    s.undo_capacity = 256
    s.undo_stack = <Undo*> malloc(s.undo_capacity * sizeof(Undo))
    s.ply = 0
    bs_clear(s)
    return 0 if s.undo_stack != NULL else -1


cdef void bs_free(BoardState* s) noexcept nogil:
    free(s.undo_stack)
    s.undo_stack = NULL


cdef int bs_copy(BoardState* dst, BoardState* src) noexcept nogil:
    """Copy ``src`` into ``dst`` (both initialised), move history included; -1 if out of memory."""
    cdef Undo* stack = dst.undo_stack
    cdef int capacity = dst.undo_capacity
    if capacity < src.ply + 1:
        free(stack)
        capacity = src.undo_capacity
        stack = <Undo*> malloc(capacity * sizeof(Undo))
        if stack == NULL:
            dst.undo_stack = NULL
            dst.undo_capacity = 0
            return -1
    memcpy(dst, src, sizeof(BoardState))
    dst.undo_stack = stack
    dst.undo_capacity = capacity
    memcpy(stack, src.undo_stack, src.ply * sizeof(Undo))
    return 0


cdef void bs_clear(BoardState* s) noexcept nogil:
    cdef int sq
    for sq in range(256):
        s.squares[sq] = OFFBOARD
    for sq in range(90):
        s.squares[SQ256[sq]] = EMPTY
    s.piece_count[0] = 0
    s.piece_count[1] = 0
    s.king_square[0] = 0
    s.king_square[1] = 0
    s.turn = RED
    s.halfmove_clock = 0
    s.fullmove_number = 1
    s.key = 0
    s.ply = 0


cdef void bs_rebuild(BoardState* s) noexcept nogil:
    """Recompute piece lists, king squares and the key from ``squares``."""
    cdef int s90, sq, piece, side
    s.piece_count[0] = 0
    s.piece_count[1] = 0
    s.king_square[0] = 0
    s.king_square[1] = 0
    s.key = ZOBRIST_BLACK_TO_MOVE if s.turn == BLACK else 0
    for s90 in range(90):
        sq = SQ256[s90]
        piece = s.squares[sq]
        if piece == EMPTY:
            continue
        side = _side_of(piece)
        if (piece & 7) == KING:
            s.king_square[side] = sq
        if s.piece_count[side] < MAX_PIECES:
            s.piece_index[sq] = s.piece_count[side]
            s.piece_squares[side][s.piece_count[side]] = sq
            s.piece_count[side] += 1
        s.key ^= ZOBRIST[piece][sq]


cdef inline Undo* next_undo(BoardState* s) noexcept nogil:
    """The undo record for the move about to be made (the stack doubles when full)."""
    if s.ply >= s.undo_capacity:
        s.undo_capacity *= 2
        s.undo_stack = <Undo*> realloc(s.undo_stack, s.undo_capacity * sizeof(Undo))
        if s.undo_stack == NULL:
            abort()
    return &s.undo_stack[s.ply]


cdef void bs_make(BoardState* s, int move) noexcept nogil:
    cdef int f = xq_move_from(move)
    cdef int t = xq_move_to(move)
    cdef int piece = s.squares[f]
    cdef int captured = s.squares[t]
    cdef int side = s.turn
    cdef int opp = side ^ 1
    cdef int idx, last
    cdef Undo* u = next_undo(s)
    u.move = move
    u.captured = captured
    u.halfmove_clock = s.halfmove_clock
    u.key = s.key
    s.ply += 1

    s.key ^= ZOBRIST[piece][f] ^ ZOBRIST[piece][t] ^ ZOBRIST_BLACK_TO_MOVE
    if captured != EMPTY:
        s.key ^= ZOBRIST[captured][t]
        # Remove the captured piece from its list: the last entry fills its slot.
        idx = s.piece_index[t]
        u.capture_index = idx
        s.piece_count[opp] -= 1
        last = s.piece_squares[opp][s.piece_count[opp]]
        s.piece_squares[opp][idx] = last
        s.piece_index[last] = idx
        s.halfmove_clock = 0
    elif s.halfmove_clock < CLOCK_LIMIT:   # saturates, so fen() stays parseable
        s.halfmove_clock += 1
    s.squares[t] = piece
    s.squares[f] = EMPTY
    idx = s.piece_index[f]
    s.piece_squares[side][idx] = t
    s.piece_index[t] = idx
    if (piece & 7) == KING:
        s.king_square[side] = t
    if side == BLACK:
        s.fullmove_number += 1
    s.turn = opp

cdef uint64_t bs_key_after(BoardState* s, int move) noexcept nogil:
    """The key ``bs_make(s, move)`` would give, without making the move: a search reads
    its children's table entries ahead of visiting them (the empty square's keys are 0)."""
    cdef int f = xq_move_from(move)
    cdef int t = xq_move_to(move)
    cdef int piece = s.squares[f]
    return (s.key ^ ZOBRIST[piece][f] ^ ZOBRIST[piece][t] ^ ZOBRIST[s.squares[t]][t]
            ^ ZOBRIST_BLACK_TO_MOVE)

cdef void bs_unmake(BoardState* s) noexcept nogil:
    cdef Undo* u
    cdef int f, t, piece, captured, side, opp, idx, moved
    s.ply -= 1
    u = &s.undo_stack[s.ply]
    f = xq_move_from(u.move)
    t = xq_move_to(u.move)
    captured = u.captured
    piece = s.squares[t]
    opp = s.turn
    side = opp ^ 1
    s.turn = side
    if side == BLACK:
        s.fullmove_number -= 1
    s.squares[f] = piece
    s.squares[t] = captured
    idx = s.piece_index[t]
    s.piece_squares[side][idx] = f
    s.piece_index[f] = idx
    if (piece & 7) == KING:
        s.king_square[side] = f
    if captured != EMPTY:
        # Undo the list removal exactly, so list order (and move order) is restored.
        idx = u.capture_index
        moved = s.piece_squares[opp][idx]
        s.piece_squares[opp][s.piece_count[opp]] = moved
        s.piece_index[moved] = s.piece_count[opp]
        s.piece_squares[opp][idx] = t
        s.piece_index[t] = idx
        s.piece_count[opp] += 1
    s.halfmove_clock = u.halfmove_clock
    s.key = u.key

cdef void bs_make_null(BoardState* s) noexcept nogil:
    """Pass: the other side moves next, nothing on the board changes.  Searches use it to ask
    what a side threatens.  Its undo record is marked NULL_MOVE_MARK in ``captured``, so
    repetition scans (which stop at a capture) never reach across it: a line with a pass is
    no game, and the positions before it cannot repeat into the ones after."""
    cdef Undo* u = next_undo(s)
    u.move = 0
    u.captured = NULL_MOVE_MARK
    u.capture_index = 0
    u.halfmove_clock = s.halfmove_clock
    u.key = s.key
    s.ply += 1
    s.key ^= ZOBRIST_BLACK_TO_MOVE
    s.turn ^= 1

cdef void bs_unmake_null(BoardState* s) noexcept nogil:
    """Take back :func:`bs_make_null` (and nothing else)."""
    s.ply -= 1
    s.turn ^= 1
    s.halfmove_clock = s.undo_stack[s.ply].halfmove_clock
    s.key = s.undo_stack[s.ply].key

# -- attacks -----------------------------------------------------------------------------

cdef bint bs_king_attacked(BoardState* s, int side) noexcept nogil:
    """True if ``side``'s king is attacked, facing the other king included.

    With few enemy pieces (endgames) each is tested against the king, most of them off every
    line to it; with many, rays are walked out of the king."""
    if s.piece_count[side ^ 1] > FEW_PIECES:
        return king_attacked_along_rays(s, side)
    cdef int k = s.king_square[side]
    cdef int enemy = side ^ 1
    cdef int i, f, kind, step, sq, between, delta, leg
    cdef uint8_t* b = s.squares
    for i in range(s.piece_count[enemy]):
        f = s.piece_squares[enemy][i]
        kind = b[f] & 7
        if kind == ROOK or kind == CANNON or kind == KING:
            if (f >> 4) == (k >> 4):
                step = 1 if f < k else -1      # kings never share a rank: their palaces don't
            elif (f & 15) == (k & 15):
                step = 16 if f < k else -16
            else:
                continue
            between = 0
            sq = f + step
            while sq != k and between < 2:
                if b[sq] != EMPTY:
                    between += 1
                sq += step
            if sq == k and between == (1 if kind == CANNON else 0):
                return True
        elif kind == HORSE:
            delta = k - f
            if -34 <= delta <= 34:
                leg = HORSE_LEG_BY_DELTA[delta + 34]
                if leg != 0 and b[f + leg] == EMPTY:
                    return True
        elif kind == PAWN:
            # Forward, or sideways: beside a king in its palace a pawn has crossed the river.
            if k == f + (16 if enemy == RED else -16) or k == f + 1 or k == f - 1:
                return True
    return False

cdef bint king_attacked_along_rays(BoardState* s, int side) noexcept nogil:
    # bs_king_attacked_by with every piece type, without its type tests: calling that instead
    # makes perft 5 from the start position 10% slower.
    cdef int k = s.king_square[side]
    cdef int enemy = (side ^ 1) << 3
    cdef int i, d, sq, p
    cdef uint8_t* b = s.squares
    for i in range(4):
        d = ORTHO[i]
        sq = k + d
        while b[sq] == EMPTY:
            sq += d
        p = b[sq]
        if p == OFFBOARD:
            continue
        if p == enemy + ROOK:
            return True
        if p == enemy + KING and i < 2:
            return True
        sq += d
        while b[sq] == EMPTY:
            sq += d
        if b[sq] == enemy + CANNON:
            return True
    for i in range(8):
        if b[k + HORSE_CHECK_FROM[i]] == enemy + HORSE and b[k + HORSE_CHECK_LEG[i]] == EMPTY:
            return True
    if side == RED:
        if b[k + 16] == BLACK_BIT + PAWN:
            return True
    else:
        if b[k - 16] == PAWN:
            return True
    if b[k + 1] == enemy + PAWN or b[k - 1] == enemy + PAWN:
        return True
    return False


cdef bint bs_king_attacked_by(BoardState* s, int side, int kinds) noexcept nogil:
    """bs_king_attacked when the enemy has only the piece types in ``kinds`` (bit 1 << type):
    the tests for absent types are skipped (the tablebase builder knows the material).  A
    separate copy, so that the builder's re-check keeps using the plain test."""
    cdef int k = s.king_square[side]
    cdef int enemy = (side ^ 1) << 3
    cdef int i, d, sq, p, lines
    cdef uint8_t* b = s.squares
    # Rooks and cannons attack along all four lines; the facing king only along the file.
    lines = 4 if kinds & ((1 << ROOK) | (1 << CANNON)) else 2
    for i in range(lines):
        d = ORTHO[i]
        sq = k + d
        while b[sq] == EMPTY:
            sq += d
        p = b[sq]
        if p == OFFBOARD:
            continue
        if p == enemy + ROOK:
            return True
        if p == enemy + KING and i < 2:
            return True
        if not kinds & (1 << CANNON):
            continue
        sq += d
        while b[sq] == EMPTY:
            sq += d
        if b[sq] == enemy + CANNON:
            return True
    if kinds & (1 << HORSE):
        for i in range(8):
            if b[k + HORSE_CHECK_FROM[i]] == enemy + HORSE and b[k + HORSE_CHECK_LEG[i]] == EMPTY:
                return True
    if kinds & (1 << PAWN):
        if side == RED:
            if b[k + 16] == BLACK_BIT + PAWN:
                return True
        else:
            if b[k - 16] == PAWN:
                return True
        if b[k + 1] == enemy + PAWN or b[k - 1] == enemy + PAWN:
            return True
    return False

# -- move generation ---------------------------------------------------------------------

cdef inline int _piece_pseudo_moves(BoardState* s, int f, int* out) noexcept nogil:
    """The pseudo-legal moves of the piece of the side to move on ``f``."""
    cdef int side = s.turn
    cdef int own = side << 3
    cdef int n = 0
    cdef int j, t, d, p, kind
    cdef int forward = 16 if side == RED else -16
    cdef uint8_t* b = s.squares
    kind = b[f] & 7
    if kind == ROOK:
        for j in range(4):
            d = ORTHO[j]
            t = f + d
            while b[t] == EMPTY:
                out[n] = f | (t << 8); n += 1
                t += d
            p = b[t]
            if p != OFFBOARD and (p & BLACK_BIT) != own:
                out[n] = f | (t << 8); n += 1
    elif kind == HORSE:
        for j in range(8):
            if b[f + HORSE_LEG[j]] != EMPTY:
                continue
            t = f + HORSE_TO[j]
            p = b[t]
            if p == EMPTY or (p != OFFBOARD and (p & BLACK_BIT) != own):
                out[n] = f | (t << 8); n += 1
    elif kind == CANNON:
        for j in range(4):
            d = ORTHO[j]
            t = f + d
            while b[t] == EMPTY:
                out[n] = f | (t << 8); n += 1
                t += d
            if b[t] == OFFBOARD:
                continue
            t += d
            while b[t] == EMPTY:
                t += d
            p = b[t]
            if p != OFFBOARD and (p & BLACK_BIT) != own:
                out[n] = f | (t << 8); n += 1
    elif kind == PAWN:
        t = f + forward
        p = b[t]
        if p == EMPTY or (p != OFFBOARD and (p & BLACK_BIT) != own):
            out[n] = f | (t << 8); n += 1
        if CROSSED[side][f]:
            t = f + 1
            p = b[t]
            if p == EMPTY or (p != OFFBOARD and (p & BLACK_BIT) != own):
                out[n] = f | (t << 8); n += 1
            t = f - 1
            p = b[t]
            if p == EMPTY or (p != OFFBOARD and (p & BLACK_BIT) != own):
                out[n] = f | (t << 8); n += 1
    elif kind == KING:
        for j in range(4):
            t = f + ORTHO[j]
            if IN_PALACE[side][t]:
                p = b[t]
                if p == EMPTY or (p & BLACK_BIT) != own:
                    out[n] = f | (t << 8); n += 1
    elif kind == ADVISOR:
        for j in range(4):
            t = f + DIAG[j]
            if IN_PALACE[side][t]:
                p = b[t]
                if p == EMPTY or (p & BLACK_BIT) != own:
                    out[n] = f | (t << 8); n += 1
    else:  # ELEPHANT
        for j in range(4):
            t = f + 2 * DIAG[j]
            if OWN_HALF[side][t] and b[f + DIAG[j]] == EMPTY:
                p = b[t]
                if p == EMPTY or (p & BLACK_BIT) != own:
                    out[n] = f | (t << 8); n += 1
    return n


cdef int bs_pseudo_moves(BoardState* s, int* out) noexcept nogil:
    cdef int side = s.turn
    cdef int n = 0
    cdef int i
    for i in range(s.piece_count[side]):
        n += _piece_pseudo_moves(s, s.piece_squares[side][i], out + n)
    return n

cdef int bs_unmoves(BoardState* s, int side, int* out) noexcept nogil:
    """Non-capturing moves that ``side`` could have just played to reach this placement.

    Each is written as the move that undoes it (from the piece's point to its origin); the
    origin is empty and the piece could stand there.  Whether the predecessor position is
    legal (the other king not in check) is left to the caller.
    """
    cdef int n = 0
    cdef int i, j, f, t, d, kind, back
    cdef uint8_t* b = s.squares
    back = -16 if side == RED else 16
    for i in range(s.piece_count[side]):
        t = s.piece_squares[side][i]
        kind = b[t] & 7
        if kind == ROOK or kind == CANNON:
            for j in range(4):
                d = ORTHO[j]
                f = t + d
                while b[f] == EMPTY:
                    out[n] = t | (f << 8); n += 1
                    f += d
        elif kind == HORSE:
            # The horse came from f = t - HORSE_TO[j]; its leg was next to f.
            for j in range(8):
                f = t - HORSE_TO[j]
                if b[f] == EMPTY and b[f + HORSE_LEG[j]] == EMPTY:
                    out[n] = t | (f << 8); n += 1
        elif kind == PAWN:
            f = t + back
            if b[f] == EMPTY and PAWN_OK[side][f]:
                out[n] = t | (f << 8); n += 1
            if CROSSED[side][t]:
                if b[t + 1] == EMPTY:
                    out[n] = t | ((t + 1) << 8); n += 1
                if b[t - 1] == EMPTY:
                    out[n] = t | ((t - 1) << 8); n += 1
        elif kind == KING:
            for j in range(4):
                f = t + ORTHO[j]
                if IN_PALACE[side][f] and b[f] == EMPTY:
                    out[n] = t | (f << 8); n += 1
        elif kind == ADVISOR:
            for j in range(4):
                f = t + DIAG[j]
                if IN_PALACE[side][f] and b[f] == EMPTY:
                    out[n] = t | (f << 8); n += 1
        else:  # ELEPHANT
            for j in range(4):
                f = t + 2 * DIAG[j]
                if OWN_HALF[side][f] and b[f] == EMPTY and b[t + DIAG[j]] == EMPTY:
                    out[n] = t | (f << 8); n += 1
    return n


cdef inline bint _pseudo_move_is_legal(BoardState* s, int king, bint in_check,
                                       int move) noexcept nogil:
    """Whether a pseudo-legal move of the side to move keeps its king safe.  Out of check, a
    move that is not the king's, leaves no line through the king and lands on none, and
    does not free a horse's leg next to it cannot expose the king: no trial move needed."""
    cdef int f = xq_move_from(move)
    cdef int t = xq_move_to(move)
    cdef int side = s.turn
    cdef bint legal
    if (not in_check and f != king and not _same_line(king, f) and not _same_line(king, t)
            and not _diagonal_neighbour(king, f)):
        return True
    bs_make(s, move)
    legal = not bs_king_attacked(s, side)
    bs_unmake(s)
    return legal

cdef int bs_legal_moves(BoardState* s, int* out) noexcept nogil:
    cdef int k = s.king_square[s.turn]
    cdef int n = bs_pseudo_moves(s, out)
    cdef bint in_check = bs_king_attacked(s, s.turn)
    cdef int i, legal = 0
    for i in range(n):
        if _pseudo_move_is_legal(s, k, in_check, out[i]):
            out[legal] = out[i]
            legal += 1
    return legal

cdef bint bs_has_legal_move(BoardState* s) noexcept nogil:
    """Whether the side to move has a legal move: bs_legal_moves' test, stopping at the
    first one (searches ask this of nearly every node they reach, and the answer is nearly
    always yes within the first few moves)."""
    return bs_has_legal_move_in(s, bs_king_attacked(s, s.turn), False)


cdef bint bs_has_legal_move_in(BoardState* s, bint in_check, bint quiet) noexcept nogil:
    """:func:`bs_has_legal_move` for a caller that knows whether the side to move is in
    check; ``quiet``: only a move that gives no check counts (a mate search asks it where
    the other side has no move left: such a reply ends the line, and one that checks might
    complete a forbidden perpetual check)."""
    cdef int moves[MAX_MOVES]
    cdef int k = s.king_square[s.turn]
    cdef int side = s.turn
    cdef int n, i, piece
    # Piece by piece, so that the usual answer (yes, within the first piece's moves) does
    # not pay for generating them all.  The trial moves leave the piece list as it was.
    for piece in range(s.piece_count[side]):
        n = _piece_pseudo_moves(s, s.piece_squares[side][piece], moves)
        for i in range(n):
            if _pseudo_move_is_legal(s, k, in_check, moves[i]) and not (
                    quiet and bs_may_give_check(s, moves[i]) and bs_gives_check(s, moves[i])):
                return True
    return False

cdef bint bs_may_give_check(BoardState* s, int move) noexcept nogil:
    """False only if the move surely gives no check (a cheap filter before bs_gives_check).

    A check needs the move to touch the enemy king's rank or file (rook, cannon, screen,
    facing kings, or a discovered line), to leave a point diagonal to the king (a horse leg),
    or to land within two points of the king (a horse or pawn attacking from there)."""
    cdef int k = s.king_square[s.turn ^ 1]
    cdef int f = xq_move_from(move)
    cdef int t = xq_move_to(move)
    cdef int dr = (t >> 4) - (k >> 4)
    cdef int df = (t & 15) - (k & 15)
    if _same_line(k, f) or _same_line(k, t) or _diagonal_neighbour(k, f):
        return True
    return -2 <= dr <= 2 and -2 <= df <= 2


cdef bint bs_gives_check(BoardState* s, int move) noexcept nogil:
    cdef bint result
    bs_make(s, move)
    result = bs_king_attacked(s, s.turn)
    bs_unmake(s)
    return result

# Ctrl-C during perft: while BaseBoard.perft runs on the main thread, SIGINT sets a flag
# that every interior node of the count polls (a node takes microseconds), so the count stops
# at once and the Python caller learns what was finished.
cdef extern from *:
    """
    #include <signal.h>
    #include <string.h>
    static volatile sig_atomic_t xq_perft_stop = 0;
    static struct sigaction xq_perft_old_action;
    static int xq_perft_installed = 0;
    static void xq_perft_on_sigint(int sig) { (void)sig; xq_perft_stop = 1; }
    static void xq_perft_catch_sigint(void) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = xq_perft_on_sigint;
        sigemptyset(&action.sa_mask);
        xq_perft_stop = 0;
        xq_perft_installed = sigaction(SIGINT, &action, &xq_perft_old_action) == 0;
    }
    static void xq_perft_release_sigint(void) {
        if (xq_perft_installed) sigaction(SIGINT, &xq_perft_old_action, NULL);
        xq_perft_installed = 0;
        xq_perft_stop = 0;
    }
    static int xq_perft_stopped(void) { return xq_perft_stop != 0; }
    static void xq_perft_request_stop(void) { xq_perft_stop = 1; }
    """
    void xq_perft_catch_sigint()
    void xq_perft_release_sigint()
    int xq_perft_stopped() noexcept nogil
    void xq_perft_request_stop() noexcept nogil


class PerftInterrupted(KeyboardInterrupt):
    """Ctrl-C during :meth:`BaseBoard.perft`: ``done`` lists (move, count) for the root
    moves finished (exact), ``remaining`` how many root moves were not counted."""

    def __init__(self, done, remaining, depth):
        super().__init__(f"perft {depth} interrupted: {len(done)} root moves counted, "
                         f"{remaining} not")
        self.done = done
        self.remaining = remaining
        self.depth = depth

    @property
    def partial_total(self):
        return sum(count for _, count in self.done)


cdef unsigned long long bs_perft(BoardState* s, int depth) noexcept nogil:
    cdef int moves[MAX_MOVES]
    cdef int n = bs_legal_moves(s, moves)
    cdef int i
    cdef unsigned long long total = 0
    if depth <= 1:
        return n if depth == 1 else 1
    if xq_perft_stopped():
        return 0                      # the caller discards the interrupted root move
    for i in range(n):
        bs_make(s, moves[i])
        total += bs_perft(s, depth - 1)
        bs_unmake(s)
    return total

cdef int bs_repetitions(BoardState* s) noexcept nogil:
    """How many earlier positions since the last capture share the current key."""
    cdef int count = 0
    cdef int i
    for i in range(s.ply - 1, -1, -1):
        if s.undo_stack[i].captured != EMPTY:
            break
        if s.undo_stack[i].key == s.key:
            count += 1
    return count


def _checked_clock(value, str name, int minimum):
    """``value`` if it is a whole number from ``minimum`` to CLOCK_LIMIT, else ValueError."""
    if type(value) is bool or not isinstance(value, int):
        raise ValueError(f"{name} must be a whole number, not {value!r}")
    if not minimum <= value <= CLOCK_LIMIT:
        raise ValueError(f"{name} must be from {minimum} to {CLOCK_LIMIT:,}, not {value}")
    return value


cdef class BaseBoard:
    """The engine's board: piece placement, side to move, clocks, key and undo stack."""

    def __cinit__(self, *args, **kwargs):
        if bs_init(&self.state) != 0:
            raise MemoryError()

    def __dealloc__(self):
        bs_free(&self.state)

    @property
    def turn_code(self):
        return self.state.turn

    @turn_code.setter
    def turn_code(self, value):
        if type(value) is bool or not isinstance(value, int) or value not in (RED, BLACK):
            raise ValueError(f"turn_code must be 0 (Red) or 1 (Black), not {value!r}")
        self.state.turn = value
        bs_rebuild(&self.state)

    @property
    def halfmove_clock(self):
        return self.state.halfmove_clock

    @halfmove_clock.setter
    def halfmove_clock(self, value):
        self.state.halfmove_clock = _checked_clock(value, "halfmove_clock", 0)

    @property
    def fullmove_number(self):
        return self.state.fullmove_number

    @fullmove_number.setter
    def fullmove_number(self, value):
        self.state.fullmove_number = _checked_clock(value, "fullmove_number", 1)

    # -- Python-level access, used by xiangqi.board ------------------------------------------

    def _clear(self):
        bs_clear(&self.state)

    def _set_code(self, int square, int code):
        """Place piece ``code`` (0 for empty) on ``square`` (0..89); call _rebuild after."""
        self.state.squares[SQ256[square]] = code

    def _code_at(self, int square):
        return self.state.squares[SQ256[square]]

    def _rebuild(self):
        bs_rebuild(&self.state)

    def _codes(self):
        """The 90 piece codes, square 0 (a0) first."""
        cdef int s
        return bytes([self.state.squares[SQ256[s]] for s in range(90)])

    def _unmoves(self, int side):
        """(point, origin) pairs of :c:func:`bs_unmoves`, as 0..89 points (for tests)."""
        cdef int moves[MAX_MOVES * 2]
        cdef int n = bs_unmoves(&self.state, side, moves)
        cdef int i
        return [(SQ90[xq_move_from(moves[i])], SQ90[xq_move_to(moves[i])]) for i in range(n)]

    def _king_attacked(self, int side):
        return bs_king_attacked(&self.state, side)

    def _copy_into(self, BaseBoard other, bint stack=True):
        if bs_copy(&other.state, &self.state) != 0:
            raise MemoryError()
        if not stack:
            other.state.ply = 0

    @property
    def zobrist_key(self):
        """The position's 64-bit Zobrist key (placement and side to move)."""
        return self.state.key

    @property
    def ply_count(self):
        """Number of moves on the undo stack."""
        return self.state.ply

    @property
    def legal_moves(self):
        """The legal moves, as a list of :class:`Move`."""
        cdef int moves[MAX_MOVES]
        cdef int n = bs_legal_moves(&self.state, moves)
        cdef int i
        cdef list result = []
        for i in range(n):
            result.append(_move_object(SQ90[xq_move_from(moves[i])], SQ90[xq_move_to(moves[i])]))
        return result

    @property
    def pseudo_legal_moves(self):
        cdef int moves[MAX_MOVES]
        cdef int n = bs_pseudo_moves(&self.state, moves)
        cdef int i
        return [_move_object(SQ90[xq_move_from(moves[i])], SQ90[xq_move_to(moves[i])])
                for i in range(n)]

    def is_legal(self, Move move):
        """True if ``move`` is legal in this position."""
        cdef int moves[MAX_MOVES]
        cdef int n = bs_legal_moves(&self.state, moves)
        cdef int i
        cdef int wanted = xq_make_move(SQ256[move.from_square], SQ256[move.to_square])
        for i in range(n):
            if moves[i] == wanted:
                return True
        return False

    def push(self, Move move):
        """Play ``move``, which must be legal (see :meth:`is_legal`)."""
        if not self.is_legal(move):
            raise IllegalMoveError(f"illegal move {move.iccs()} in {self.fen()}")
        bs_make(&self.state, xq_make_move(SQ256[move.from_square], SQ256[move.to_square]))

    def push_unchecked(self, Move move):
        """Play ``move`` without checking legality (for callers that generated it)."""
        bs_make(&self.state, xq_make_move(SQ256[move.from_square], SQ256[move.to_square]))

    def pop(self):
        """Take back the last move and return it."""
        cdef int m
        if self.state.ply == 0:
            raise IndexError("pop from a board with no moves played")
        m = self.state.undo_stack[self.state.ply - 1].move
        bs_unmake(&self.state)
        return _move_object(SQ90[xq_move_from(m)], SQ90[xq_move_to(m)])

    @property
    def move_stack(self):
        """The moves played since the position was set, oldest first."""
        cdef int i, m
        return [_move_object(SQ90[xq_move_from(self.state.undo_stack[i].move)],
                             SQ90[xq_move_to(self.state.undo_stack[i].move)])
                for i in range(self.state.ply)]

    def peek(self):
        """The last move played."""
        if self.state.ply == 0:
            raise IndexError("no moves played")
        m = self.state.undo_stack[self.state.ply - 1].move
        return _move_object(SQ90[xq_move_from(m)], SQ90[xq_move_to(m)])

    def is_check(self):
        """True if the side to move is in check."""
        return bs_king_attacked(&self.state, self.state.turn)

    def gives_check(self, Move move):
        """True if the (legal) ``move`` checks the opponent's king."""
        return bs_gives_check(&self.state, xq_make_move(SQ256[move.from_square], SQ256[move.to_square]))

    def _may_give_check(self, Move move):
        """The engine's cheap pre-filter for checking moves (for tests)."""
        return bs_may_give_check(&self.state, xq_make_move(SQ256[move.from_square], SQ256[move.to_square]))

    def has_legal_move(self):
        return bs_has_legal_move(&self.state)

    def is_capture(self, Move move):
        return self.state.squares[SQ256[move.to_square]] != EMPTY

    def repetition_count(self):
        """How many times the current position occurred before, since the last capture."""
        return bs_repetitions(&self.state)

    def perft(self, int depth):
        """Count leaf nodes of the legal move tree ``depth`` plies deep.

        The last ply is counted from the legal-move list (bulk counting), as
        Stockfish-family engines do.  Ctrl-C stops the count within microseconds and raises
        :class:`PerftInterrupted` with the root moves counted so far.
        """
        if depth < 0:
            raise ValueError(f"perft depth must be >= 0, not {depth}")
        if depth <= 2:
            return bs_perft(&self.state, depth)
        return sum(count for _, count in self.perft_divide(depth))

    def perft_divide(self, int depth):
        """Perft per legal move: a list of (move, nodes)."""
        cdef int moves[MAX_MOVES]
        cdef int n = bs_legal_moves(&self.state, moves)
        cdef int i
        cdef unsigned long long count
        cdef bint stopped = False
        cdef bint main = threading.current_thread() is threading.main_thread()
        result = []
        if depth < 1:
            raise ValueError(f"perft divide depth must be >= 1, not {depth}")
        if main:
            xq_perft_catch_sigint()
        try:
            for i in range(n):
                with nogil:
                    bs_make(&self.state, moves[i])
                    count = bs_perft(&self.state, depth - 1)
                    bs_unmake(&self.state)
                    stopped = xq_perft_stopped()
                if stopped:
                    break
                result.append((_move_object(SQ90[xq_move_from(moves[i])],
                                            SQ90[xq_move_to(moves[i])]), count))
        finally:
            if main:
                xq_perft_release_sigint()
        if stopped:
            raise PerftInterrupted(result, n - len(result), depth)
        return result
