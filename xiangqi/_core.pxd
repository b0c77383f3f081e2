# C-level API of the rules engine, cimported by the tablebase builder and the solver.
#
# Squares: the engine works on a 16x16 padded mailbox (``sq256``); the public API uses
# 0..89 (``sq90 = rank * 9 + file``).  Moves are ints ``from256 | to256 << 8``.
# The position lives in a plain C struct so nogil code (prange workers) can own one each.
from libc.stdint cimport uint64_t, uint8_t, int32_t

cdef enum:
    EMPTY = 0
    KING = 1
    ADVISOR = 2
    ELEPHANT = 3
    HORSE = 4
    ROOK = 5
    CANNON = 6
    PAWN = 7
    BLACK_BIT = 8
    OFFBOARD = 32
    RED = 0
    BLACK = 1
    MAX_MOVES = 128          # more than the most legal moves any position has (about 110)
    MAX_PIECES = 16
    NULL_MOVE_MARK = 0x40    # ``Undo.captured`` of a pass (bs_make_null): no piece code
    CLOCK_LIMIT = 100000     # the largest halfmove clock / move number a FEN may give

cdef struct Undo:
    int move
    uint8_t captured
    uint8_t capture_index    # where the captured piece stood in its side's piece list
    int32_t halfmove_clock   # 32 bits: FEN allows clocks up to CLOCK_LIMIT (100,000)
    uint64_t key

cdef struct BoardState:
    uint8_t squares[256]
    uint8_t piece_squares[2][MAX_PIECES]
    uint8_t piece_count[2]
    uint8_t piece_index[256]
    uint8_t king_square[2]
    int turn
    int halfmove_clock
    int fullmove_number
    uint64_t key
    Undo* undo_stack
    int ply
    int undo_capacity

cdef extern from *:
    """
    static inline int xq_move_from(int m) { return m & 0xFF; }
    static inline int xq_move_to(int m) { return (m >> 8) & 0xFF; }
    static inline int xq_make_move(int f, int t) { return f | (t << 8); }
    """
    int xq_move_from(int m) nogil
    int xq_move_to(int m) nogil
    int xq_make_move(int f, int t) nogil

# Square conversions (0..89 <-> mailbox), inline so other modules' hot loops pay no call.
cdef inline int sq256_of(int sq90) noexcept nogil:
    return (sq90 // 9 + 3) * 16 + sq90 % 9 + 3

cdef inline int sq90_of(int sq256) noexcept nogil:
    return ((sq256 >> 4) - 3) * 9 + (sq256 & 15) - 3

# Board state functions.  ``bs_init`` allocates the undo stack, ``bs_free`` releases it.
cdef int bs_init(BoardState* s) noexcept nogil
cdef void bs_free(BoardState* s) noexcept nogil
cdef int bs_copy(BoardState* dst, BoardState* src) noexcept nogil
cdef void bs_clear(BoardState* s) noexcept nogil
cdef void bs_rebuild(BoardState* s) noexcept nogil
cdef void bs_make(BoardState* s, int move) noexcept nogil
cdef void bs_unmake(BoardState* s) noexcept nogil
cdef void bs_make_null(BoardState* s) noexcept nogil
cdef void bs_unmake_null(BoardState* s) noexcept nogil
cdef bint bs_king_attacked(BoardState* s, int side) noexcept nogil
cdef int bs_pseudo_moves(BoardState* s, int* out) noexcept nogil
cdef int bs_legal_moves(BoardState* s, int* out) noexcept nogil
cdef bint bs_king_attacked_by(BoardState* s, int side, int kinds) noexcept nogil
cdef int bs_unmoves(BoardState* s, int side, int* out) noexcept nogil
cdef bint bs_has_legal_move(BoardState* s) noexcept nogil
cdef bint bs_has_legal_move_in(BoardState* s, bint in_check, bint quiet) noexcept nogil
cdef bint bs_gives_check(BoardState* s, int move) noexcept nogil
cdef uint64_t bs_key_after(BoardState* s, int move) noexcept nogil
cdef bint bs_may_give_check(BoardState* s, int move) noexcept nogil
cdef unsigned long long bs_perft(BoardState* s, int depth) noexcept nogil
cdef int bs_repetitions(BoardState* s) noexcept nogil

cdef class Move:
    cdef readonly int from_square
    cdef readonly int to_square

cdef class BaseBoard:
    cdef BoardState state
