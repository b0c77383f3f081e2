"""Type stub for the chase test of the Chinese rules (``tablebases/_chase.pyx``).

Only the Python-visible API: the builder cimports ``find_threats`` and ``move_attack``
(``_chase.pxd``).
"""
import enum

from xiangqi._core import BaseBoard

class Attack(enum.IntEnum):
    ATTACK_CHECK = 1
    ATTACK_CHASE = 2
    ATTACK_PAWN_CHASE = 4
    ATTACK_MATE_THREAT = 8

class AttackRules(enum.IntEnum):
    RULES_CHECK = 0
    RULES_CHINESE = 1

def attack_of(board: BaseBoard, from_square: int, to_square: int) -> int:
    """The attack bits of a legal move for the side to move."""
