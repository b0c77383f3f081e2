# The chase test (长捉) of the Chinese rules on a position and its moves, cimported by the
# builder's rule rounds and its re-check (tablebases/_chase.pyx explains the definition).
from xiangqi._core cimport BoardState

cdef enum:
    MAX_THREATS = 64

# How a move attacks (move_attack's bits; Python reads Attack.ATTACK_CHASE).
cpdef enum Attack:
    ATTACK_CHECK = 1         # the move checks (将)
    ATTACK_CHASE = 2         # it makes a new threat to win material, by a piece other than
                             # a king or a pawn (捉)
    ATTACK_PAWN_CHASE = 4    # ... by a pawn (idle unless both sides attack on every move)
    ATTACK_MATE_THREAT = 8   # it threatens mate by checks (杀), no check itself

# What the rule rounds forbid a perpetual attacker (Python reads AttackRules.RULES_CHINESE).
cpdef enum AttackRules:
    RULES_CHECK = 0          # perpetual check only
    RULES_CHINESE = 1        # checks, mate threats, chases and their mixtures (中国象棋竞赛规则)

cdef struct Threats:
    int count
    int attacker[MAX_THREATS]     # mailbox points
    int victim[MAX_THREATS]

cdef void find_threats(BoardState* s, Threats* out) noexcept nogil
cdef int move_attack(BoardState* s, int move, Threats* before) noexcept nogil
