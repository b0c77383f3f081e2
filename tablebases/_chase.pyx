# cython: language_level=3
"""The chase test (捉) of the Chinese rules (中国象棋竞赛规则 棋例) on a position and a move.

The same definition as :func:`xiangqi.rules.classify_move`, on the builder's C board.

A move *attacks* when it checks; or when, were the opponent to pass, the mover could mate
by at most ``MATE_THREAT_CHECKS`` checks in a row (杀, 28: the judge's search, 5 plies); or
when, the opponent passing, the mover could win a piece it could not win before the move:

* a threat is a legal capture of 子力 (a rook, horse, cannon, advisor, elephant, or a pawn
  across the river: never a king, never a pawn on its own side) that wins material in the
  full exchange on that point (so an unprotected piece, and a rook attacked by a horse or a
  cannon even when protected: 4 against 2), and that the opponent cannot answer by mate at
  once (29.4); or a piece won after one check: every reply to a quiet check leaves it to be
  won so (29.1);
* it is new unless the same piece threatened the same victim before the move (从捉到捉,
  29.2: the attacker followed through the move), so a discovered attack is new;
* a threat by the king is idle (27.1); a threat by a pawn is reported apart
  (``ATTACK_PAWN_CHASE``): it counts only when both sides attack on every move (27.2).

兑 and 献 (offers) need no case of their own: an offered piece is protected (the exchange
gains nothing) or is attacked by the offering side's own move only as a victim, never as a
new threat of the mover.  A piece protected after the move (拦, 跟: a block or a follow that
protects it) is no threat, since the exchange decides protection on the board after the move.

The test is one of a position and a move only, as the judge's classification is; the rule
rounds built on it (tablebases._builder.perpetual_check_sets with RULES_CHINESE) decide a
draw lost only where its side can keep the draw by nothing but attacks and the opponent can
always answer idly back into such a position, which holds whichever side began the cycle.
Where the values would depend on the history, they take the position as the start of the
game: the moves before it (a cycle already under way, the opponent's own attacks in it) are
not known to a table, and ``xqstudio position judge`` rules on an actual game.  A mate
threat is an attack like a check (长杀 and its mixtures are forbidden), so an answer is idle
only if it neither checks, nor threatens mate, nor chases.
"""
from xiangqi._core cimport (BoardState, BaseBoard, bs_make, bs_unmake, bs_legal_moves,
                            bs_pseudo_moves, bs_has_legal_move, bs_king_attacked, xq_move_from,
                            xq_move_to, xq_make_move, sq256_of, EMPTY, MAX_MOVES, KING, ADVISOR,
                            ELEPHANT, HORSE, ROOK, CANNON, PAWN, BLACK_BIT)
from xiangqi.rules import MATE_THREAT_CHECKS

# The judge's depth of a mate threat (checking moves of the mover), read once.
cdef int mate_threat_checks = MATE_THREAT_CHECKS


cdef inline int piece_value(int piece) noexcept nogil:
    """The 棋例's values (25.3, as xiangqi.rules.PIECE_VALUE): rook 4, horse and cannon 2,
    advisor, elephant and pawn 1; a king 0 (it is never captured)."""
    cdef int kind = piece & 7
    if kind == ROOK:
        return 4
    if kind == HORSE or kind == CANNON:
        return 2
    if kind == ADVISOR or kind == ELEPHANT or kind == PAWN:
        return 1
    return 0


cdef inline bint is_material(int piece, int sq) noexcept nogil:
    """子力: not a king, not a pawn on its own side of the river (rank 0-4 is Red's)."""
    cdef int rank = (sq >> 4) - 3
    if piece == EMPTY or (piece & 7) == KING:
        return False
    if (piece & 7) == PAWN:
        return rank >= 5 if (piece & BLACK_BIT) == 0 else rank <= 4
    return True


cdef int exchange_gain(BoardState* s, int capture) noexcept nogil:
    """Material won by the legal ``capture`` when both sides may go on capturing on its point
    or stop (legal moves only, so pins and facing kings count)."""
    cdef int moves[MAX_MOVES]
    cdef int target = xq_move_to(capture), gain = piece_value(s.squares[target])
    cdef int best = 0, n, i, g
    bs_make(s, capture)
    n = bs_legal_moves(s, moves)
    for i in range(n):
        if xq_move_to(moves[i]) == target:
            g = exchange_gain(s, moves[i])
            if g > best:
                best = g
    bs_unmake(s)
    return gain - best


cdef bint mates_in_one(BoardState* s) noexcept nogil:
    """Has the side to move a move that leaves the opponent no legal move?"""
    cdef int moves[MAX_MOVES]
    cdef int n = bs_legal_moves(s, moves), i
    cdef bint mate
    for i in range(n):
        bs_make(s, moves[i])
        mate = not bs_has_legal_move(s)
        bs_unmake(s)
        if mate:
            return True
    return False


cdef bint mates_by_checks(BoardState* s, int checks) noexcept nogil:
    """Does the side to move mate with at most ``checks`` checking moves, every one a check
    (xiangqi.rules._mates_by_checks)?"""
    cdef int moves[MAX_MOVES]
    cdef int replies[MAX_MOVES]
    cdef int n = bs_pseudo_moves(s, moves), nr, i, r
    cdef bint forced
    for i in range(n):
        bs_make(s, moves[i])
        # Only legal checks (the mover's own king safe): most moves are neither.
        if not bs_king_attacked(s, s.turn) or bs_king_attacked(s, s.turn ^ 1):
            bs_unmake(s)
            continue
        nr = bs_legal_moves(s, replies)
        forced = nr == 0 or checks > 1
        for r in range(nr):
            if not forced:
                break
            bs_make(s, replies[r])
            forced = mates_by_checks(s, checks - 1)
            bs_unmake(s)
        bs_unmake(s)
        if forced:
            return True
    return False


cdef int winnable_victims(BoardState* s, const int* moves, int n, int* attackers,
                          int* victims) noexcept nogil:
    """The captures among the legal ``moves`` of the side to move that win material and are
    not answered by mate: their (attacker, victim) points; returns how many."""
    cdef int i, to, found = 0
    cdef bint refuted
    for i in range(n):
        to = xq_move_to(moves[i])
        if not is_material(s.squares[to], to) or exchange_gain(s, moves[i]) <= 0:
            continue
        bs_make(s, moves[i])
        refuted = mates_in_one(s)
        bs_unmake(s)
        if not refuted:
            attackers[found] = xq_move_from(moves[i])
            victims[found] = to
            found += 1
    return found


cdef inline bint has_threat(Threats* t, int attacker, int victim) noexcept nogil:
    cdef int i
    for i in range(t.count):
        if t.attacker[i] == attacker and t.victim[i] == victim:
            return True
    return False


cdef inline void add_threat(Threats* t, int attacker, int victim) noexcept nogil:
    if t.count < MAX_THREATS and not has_threat(t, attacker, victim):
        t.attacker[t.count] = attacker
        t.victim[t.count] = victim
        t.count += 1


cdef void find_threats(BoardState* s, Threats* out) noexcept nogil:
    """What the side to move threatens to win now (xiangqi.rules._threats): captures that
    win material, then pieces won after one quiet check (the victim must stand before the
    check, and a victim every reply leaves to be won)."""
    cdef int moves[MAX_MOVES]
    cdef int replies[MAX_MOVES]
    cdef int attackers[MAX_MOVES]
    cdef int victims[MAX_MOVES]
    cdef int common[MAX_MOVES]
    cdef int n, i, r, nr, k, j, found, found_i, kept, mover = s.turn
    cdef bint first, present
    out.count = 0
    n = bs_legal_moves(s, moves)
    found = winnable_victims(s, moves, n, attackers, victims)
    for i in range(found):
        add_threat(out, attackers[i], victims[i])
    for i in range(n):
        if s.squares[xq_move_to(moves[i])] != EMPTY:
            continue
        bs_make(s, moves[i])
        if not bs_king_attacked(s, mover ^ 1):
            bs_unmake(s)
            continue
        nr = bs_legal_moves(s, replies)
        kept = 0
        first = True
        for r in range(nr):
            bs_make(s, replies[r])
            found = winnable_victims_of_mover(s, attackers, victims)
            bs_unmake(s)
            if first:
                for k in range(found):
                    common[kept] = victims[k]
                    kept += 1
                first = False
            else:
                j = 0
                for k in range(kept):
                    present = False
                    for found_i in range(found):
                        if victims[found_i] == common[k]:
                            present = True
                            break
                    if present:
                        common[j] = common[k]
                        j += 1
                kept = j
            if kept == 0:
                break
        bs_unmake(s)
        for k in range(kept):
            if s.squares[common[k]] != EMPTY and not has_threat(out, xq_move_from(moves[i]),
                                                                 common[k]):
                add_threat(out, xq_move_from(moves[i]), common[k])
    return


cdef int winnable_victims_of_mover(BoardState* s, int* attackers, int* victims) noexcept nogil:
    """winnable_victims of the side to move over its own legal moves."""
    cdef int moves[MAX_MOVES]
    cdef int n = bs_legal_moves(s, moves)
    return winnable_victims(s, moves, n, attackers, victims)


cdef int move_attack(BoardState* s, int move, Threats* before) noexcept nogil:
    """How the legal ``move`` of the side to move attacks: ATTACK_CHECK, else
    ATTACK_MATE_THREAT, else the bits ATTACK_CHASE and ATTACK_PAWN_CHASE of its new threats,
    0 for an idle move (the judge's order: a 杀 is not also a 捉).  ``before``:
    the mover's :func:`find_threats` on ``s`` (computed here if NULL).  ``s`` is left as
    found."""
    cdef Threats own, after
    cdef int mover = s.turn, i, j, kind, result = 0, origin
    cdef bint old
    if before == NULL:
        find_threats(s, &own)
        before = &own
    bs_make(s, move)
    if bs_king_attacked(s, mover ^ 1):
        bs_unmake(s)
        return ATTACK_CHECK
    s.turn = mover                      # the opponent passes
    if mates_by_checks(s, mate_threat_checks):
        s.turn = mover ^ 1
        bs_unmake(s)
        return ATTACK_MATE_THREAT
    find_threats(s, &after)
    for i in range(after.count):
        old = False
        for j in range(before.count):
            origin = before.attacker[j]
            if origin == xq_move_from(move):
                origin = xq_move_to(move)
            if origin == after.attacker[i] and before.victim[j] == after.victim[i]:
                old = True
                break
        if old:
            continue
        kind = s.squares[after.attacker[i]] & 7
        if kind == PAWN:
            result |= ATTACK_PAWN_CHASE
        elif kind != KING:
            result |= ATTACK_CHASE
    s.turn = mover ^ 1
    bs_unmake(s)
    return result


def attack_of(BaseBoard board, int from_square, int to_square):
    """The attack bits of the legal move ``from_square``-``to_square`` (points 0..89) on
    ``board`` for its side to move (ATTACK_CHECK 1, ATTACK_CHASE 2, ATTACK_PAWN_CHASE 4,
    ATTACK_MATE_THREAT 8):
    the test the rule rounds apply, for the probe and the tests to compare with the judge.

    >>> from xiangqi import Board, Move
    >>> board = Board("4k4/9/9/9/9/2n6/9/9/9/3K3R1 w")
    >>> move = Move.from_iccs("h0h4")
    >>> attack_of(board, move.from_square, move.to_square)
    2
    >>> move = Move.from_iccs("h0h9")
    >>> attack_of(board, move.from_square, move.to_square)
    1
    """
    return move_attack(&board.state, xq_make_move(sq256_of(from_square), sq256_of(to_square)),
                       NULL)
