# C-level API of the rules engine, cimported by the tablebase builder and the solver.
#
# Squares: the engine works on a 16x16 padded mailbox (``sq256``); the public API uses
# 0..89 (``sq90 = rank * 9 + file``).  Moves are ints ``from256 | to256 << 8``.
from libc.stdint cimport uint64_t, uint8_t, int16_t

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

cdef struct Undo:
    int move
    uint8_t captured
    uint8_t capture_index    # where the captured piece stood in its side's piece list
    int16_t halfmove_clock
    uint64_t key

cdef extern from *:
    """
    static inline int xq_move_from(int m) { return m & 0xFF; }
    static inline int xq_move_to(int m) { return (m >> 8) & 0xFF; }
    static inline int xq_make_move(int f, int t) { return f | (t << 8); }
    """
    int xq_move_from(int m) nogil
    int xq_move_to(int m) nogil
    int xq_make_move(int f, int t) nogil

cdef class Move:
    cdef readonly int from_square
    cdef readonly int to_square

cdef class BaseBoard:
    cdef uint8_t squares[256]
    cdef uint8_t piece_squares[2][MAX_PIECES]
    cdef uint8_t piece_count[2]
    cdef uint8_t piece_index[256]
    cdef uint8_t king_square[2]
    cdef public int turn_code
    cdef public int halfmove_clock
    cdef public int fullmove_number
    cdef uint64_t key
    cdef Undo* undo_stack
    cdef int ply
    cdef int undo_capacity

    cdef void c_clear(self) noexcept nogil
    cdef void c_put(self, int sq256, int piece) noexcept nogil
    cdef void c_remove(self, int sq256) noexcept nogil
    cdef void c_rebuild(self) noexcept nogil
    cdef int c_push(self, int move) except -1
    cdef void c_make(self, int move) noexcept nogil
    cdef void c_unmake(self) noexcept nogil
    cdef bint c_king_attacked(self, int side) noexcept nogil
    cdef int c_pseudo_moves(self, int* out) noexcept nogil
    cdef int c_legal_moves(self, int* out) noexcept nogil
    cdef bint c_gives_check(self, int move) noexcept nogil
    cdef bint c_has_legal_move(self) noexcept nogil
    cdef unsigned long long c_perft(self, int depth) noexcept nogil
    cdef int c_repetitions(self) noexcept nogil
