"""Repetition rules (棋例) and the natural move limit (自然限着).

Xiangqi forbids forcing a repetition by perpetual attack.  Every move of a repeated cycle is
classified by the rule books' terms, most serious first (从重, Chinese rules 27.4):

- 将 check: the move attacks the opponent's king.
- 杀 mate threat: were the opponent to pass, the mover would mate at once or by continuous
  checks (28.2).
- 捉 chase: the move creates a threat to win a piece (子力: rook, horse, cannon, advisor,
  elephant or a pawn across the river) next move, by capturing it when it is unprotected
  (无根子, false and insufficient protection included), by winning material in the exchange on
  its point, or after one check; the threat must be new (29.2: a piece that keeps attacking
  the same victim from a new point is idle, 从捉到捉), and the capture must not be answered by
  mate (29.4).  Attacks by the king count as idle (27.1); a pawn's own attacks count as idle
  unless both sides attack on every move (27.2, 相互长打).
- 闲 idle: anything else; 兑 (offer to exchange) and 献 (offer of a piece) are named but idle.

A side whose every move in the cycle is an attack plays a forbidden move (禁止着法): all
checks is 长将, all mate threats 长杀, all chases 长捉, and mixtures (一将一捉 ...) are forbidden
too; a side with an idle move in the cycle plays allowed moves (允许着法).  The verdict:
a one-sided perpetual check always loses; one side forbidden and the other allowed: the
forbidden side must deviate, or loses; otherwise the repetition is a draw.

Two rule sets, chosen by name: ``"chinese"`` (中国象棋竞赛规则, the 棋例 of the seed texts) and
``"asian"`` (Asian Xiangqi Federation).  The Asian rules differ in that perpetual mate threats
are allowed, a mixture of checks and chases is allowed, a perpetual chase must threaten the
same piece on every move, and pawns and kings may chase perpetually.

>>> board = Board("3k5/R8/9/9/9/9/9/9/9/4K4 w")
>>> for text in ["a8a9", "d9d8", "a9a8", "d8d9"] * 2:
...     _ = board.push_iccs(text)
>>> verdict = adjudicate(board)
>>> verdict.loser, verdict.conduct[RED].label, verdict.conduct[BLACK].label
(0, '长将', '闲')
>>> print(verdict.clause)
中国象棋竞赛规则 26.1: 单方面长将 (one-sided perpetual check) loses
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Final

from ._core import Move
from .board import Board
from .pieces import (
    ADVISOR,
    BLACK,
    CANNON,
    COLOR_NAMES,
    ELEPHANT,
    HORSE,
    KING,
    PAWN,
    RED,
    ROOK,
    Color,
    Piece,
    square_name,
    square_rank,
)

# 自然限着: 60 moves (回合) by each side without a capture.  The one definition: the
# tablebases (DTC60, cursed wins) and every report of the limit read it from here.
NATURAL_LIMIT_PLIES: Final = 120


class RuleSetName(enum.StrEnum):
    """The rule books (棋例) of :data:`RULESETS`, by the names the command line takes."""
    CHINESE = "chinese"    # 中国象棋竞赛规则
    ASIAN = "asian"        # Asian Xiangqi Federation rules


class RulesError(ValueError):
    """An unknown rule set or a board whose history cannot be judged."""


@dataclass(frozen=True)
class RuleSet:
    """What a rule book forbids in a repetition, and how it counts the natural limit."""
    name: str
    title: str
    mate_threat_forbidden: bool       # 长杀 is forbidden (Chinese) or idle (Asian)
    mixed_attacks_forbidden: bool     # 一将一捉 and the like are forbidden (Chinese)
    chase_same_victim: bool           # a perpetual chase must threaten one piece every move
    pawn_chase_counts_when_mutual: bool   # 27.2: pawn chases count in 相互长打
    natural_limit_plies: int = NATURAL_LIMIT_PLIES
    natural_limit_checks: int = 10    # the claimant's checks that count (Chinese) or allowed


CHINESE = RuleSet(
    name="chinese", title="中国象棋竞赛规则",
    mate_threat_forbidden=True, mixed_attacks_forbidden=True, chase_same_victim=False,
    pawn_chase_counts_when_mutual=True)
ASIAN = RuleSet(
    name="asian", title="Asian Xiangqi Federation rules (亚洲象棋规则)",
    mate_threat_forbidden=False, mixed_attacks_forbidden=False, chase_same_victim=True,
    pawn_chase_counts_when_mutual=False)
RULESETS: dict[str, RuleSet] = {RuleSetName.CHINESE: CHINESE, RuleSetName.ASIAN: ASIAN}
_ALIASES = {"cxa": "chinese", "china": "chinese", "axf": "asian", "asia": "asian"}


def ruleset(name: str | RuleSet) -> RuleSet:
    """The rule set called ``name`` (``chinese``/``cxa`` or ``asian``/``axf``).

    >>> ruleset("AXF").name
    'asian'
    """
    if isinstance(name, RuleSet):
        return name
    key = _ALIASES.get(name.strip().lower(), name.strip().lower())
    if key not in RULESETS:
        raise RulesError(f"unknown rule set {name!r}: use one of {', '.join(RULESETS)} "
                         f"(or {', '.join(_ALIASES)})")
    return RULESETS[key]


class Kind(enum.Enum):
    """A move's character, most serious first."""
    CHECK = "将"
    MATE_THREAT = "杀"
    CHASE = "捉"
    IDLE = "闲"


# Material values of the 棋例 (25.3): a rook is worth two horses, two cannons or a horse and
# a cannon; horse = cannon; advisor = elephant, and a horse is worth two of them.  A pawn
# across the river floats: it counts as a piece to win, never as the price of one.
PIECE_VALUE = {ROOK: 4, HORSE: 2, CANNON: 2, ADVISOR: 1, ELEPHANT: 1, PAWN: 1}
MATE_THREAT_CHECKS = 3     # the mover's checking moves searched for a 杀 (5 plies)


@dataclass(frozen=True)
class Chase:
    """A threat to win ``victim`` (a point after the move) with the piece on ``attacker``."""
    attacker: int
    victim: int
    attacker_piece: Piece
    victim_piece: Piece
    by_check: bool = False    # won after a check rather than by a capture at once

    def __str__(self) -> str:
        how = " after a check" if self.by_check else ""
        return (f"{self.attacker_piece.chinese()}{square_name(self.attacker)} threatens "
                f"{self.victim_piece.chinese()}{square_name(self.victim)}{how}")


@dataclass(frozen=True)
class MoveClass:
    """The classification of one move: its kind, the chases it makes, and why."""
    move: Move
    color: Color
    kind: Kind
    chases: tuple[Chase, ...] = ()
    pawn_chases: tuple[Chase, ...] = ()    # chases by a pawn, idle unless mutual (27.2)
    idle_kind: str | None = None           # 兑 or 献 for idle moves that offer material
    notes: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """The Chinese term: 将, 杀, 捉, 闲 (or 兑/献 for an idle offer)."""
        if self.kind is Kind.IDLE and self.idle_kind:
            return self.idle_kind
        return self.kind.value

    def __str__(self) -> str:
        text = f"{self.move.iccs()} {self.label}"
        details = [str(c) for c in self.chases] + list(self.notes)
        return text + (f" ({'; '.join(details)})" if details else "")


def _crossed(color: Color, square: int) -> bool:
    rank = square_rank(square)
    return rank >= 5 if color == RED else rank <= 4


def is_material(piece: Piece, square: int) -> bool:
    """Whether ``piece`` on ``square`` counts as 子力 (25.3): not a king, not a pawn on its own
    side of the river."""
    if piece.piece_type == KING:
        return False
    if piece.piece_type == PAWN:
        return _crossed(piece.color, square)
    return True


# -- the building blocks: exchanges, mates, threats --------------------------------------------

def _captures_on(board: Board, target: int) -> list[Move]:
    return [m for m in board.legal_moves if m.to_square == target]


def _occupant(board: Board, square: int) -> Piece:
    """The piece on ``square``, which the caller knows is occupied."""
    piece = board.piece_at(square)
    assert piece is not None, f"no piece on {square_name(square)}"
    return piece


def _exchange_gain(board: Board, capture: Move) -> int:
    """Material won by ``capture`` when both sides may then go on capturing on that point or
    stop (a full static exchange over legal moves, so pins and facing kings count)."""
    victim = _occupant(board, capture.to_square)
    gain = PIECE_VALUE.get(victim.piece_type, 0)
    board.push_unchecked(capture)
    best_reply = 0
    for reply in _captures_on(board, capture.to_square):
        best_reply = max(best_reply, _exchange_gain(board, reply))
    board.pop()
    return gain - best_reply


def _mated(board: Board) -> bool:
    """The side to move has no legal move (mate or stalemate: both lose)."""
    return not board.has_legal_move()


def _mates_in_one(board: Board) -> bool:
    for move in board.legal_moves:
        board.push_unchecked(move)
        mated = _mated(board)
        board.pop()
        if mated:
            return True
    return False


def _mates_by_checks(board: Board, checks: int) -> bool:
    """The side to move mates with at most ``checks`` checking moves, every one a check."""
    for move in board.legal_moves:
        if not board.gives_check(move):
            continue
        board.push_unchecked(move)
        replies = board.legal_moves
        if not replies:
            board.pop()
            return True
        forced = checks > 1
        if forced:
            for reply in replies:
                board.push_unchecked(reply)
                forced = _mates_by_checks(board, checks - 1)
                board.pop()
                if not forced:
                    break
        board.pop()
        if forced:
            return True
    return False


def _passed(board: Board) -> Board:
    """The position with the other side to move and no history (a null move)."""
    other = board.copy(stack=False)
    other.turn_code = board.turn_code ^ 1
    return other


def _winnable_captures(board: Board) -> list[tuple[Move, int]]:
    """Captures of 子力 by the side to move that win material and are not answered by mate,
    with the exchange gain."""
    result = []
    for move in board.legal_moves:
        victim = board.piece_at(move.to_square)
        if victim is None or not is_material(victim, move.to_square):
            continue
        gain = _exchange_gain(board, move)
        if gain <= 0:
            continue
        board.push_unchecked(move)
        refuted = _mates_in_one(board)
        board.pop()
        if not refuted:
            result.append((move, gain))
    return result


def _threats(board: Board) -> set[tuple[int, int, bool]]:
    """What the side to move threatens to win now: (attacker point, victim point, by check)."""
    threats = {(m.from_square, m.to_square, False) for m, _ in _winnable_captures(board)}
    # Won after one check: every reply to the check leaves the same piece to be won.
    for check in board.legal_moves:
        if not board.gives_check(check) or board.piece_at(check.to_square) is not None:
            continue
        board.push_unchecked(check)
        replies = board.legal_moves
        common: set[int] | None = None
        for reply in replies:
            board.push_unchecked(reply)
            won = {m.to_square for m, _ in _winnable_captures(board)}
            board.pop()
            common = won if common is None else common & won
            if not common:
                break
        board.pop()
        # Only pieces standing there before the check: a reply may have moved the victim.
        for victim in common or ():
            if board.piece_at(victim) is None:
                continue
            if (check.from_square, victim, False) not in threats:
                threats.add((check.from_square, victim, True))
    return threats


# -- classifying a move ------------------------------------------------------------------------

def classify_move(board: Board, move: Move, rules: str | RuleSet = "chinese") -> MoveClass:
    """Classify the legal ``move`` in ``board`` (which is left unchanged).

    >>> board = Board("4k4/9/9/9/9/2n6/9/9/9/3K3R1 w")
    >>> str(classify_move(board, Move.from_iccs("h0h4")))
    'h0h4 捉 (车h4 threatens 马c4)'
    >>> classify_move(board, Move.from_iccs("h0h9")).label
    '将'
    """
    rules = ruleset(rules)
    color = board.turn
    mover = board.piece_at(move.from_square)
    if mover is None or not board.is_legal(move):
        raise RulesError(f"{move.iccs()} is not a legal move in {board.fen()}")
    before = _threats(board)
    after_board = board.copy(stack=False)
    after_board.push_unchecked(move)
    if after_board.is_check():
        return MoveClass(move, color, Kind.CHECK)
    passed = _passed(after_board)
    if _mates_by_checks(passed, MATE_THREAT_CHECKS):
        return MoveClass(move, color, Kind.MATE_THREAT)
    # A threat is new unless the same attacker already threatened the same victim (从捉到捉).
    moved = {move.from_square: move.to_square}
    old = {(moved.get(a, a), v) for a, v, _ in before}
    chases, pawn_chases, notes = [], [], []
    for attacker, victim, by_check in sorted(_threats(passed)):
        if (attacker, victim) in old:
            continue
        piece = _occupant(passed, attacker)
        chase = Chase(attacker, victim, piece, _occupant(passed, victim), by_check)
        if piece.piece_type == KING:
            notes.append(f"the king's own threat on {square_name(victim)} is idle (27.1)")
        elif piece.piece_type == PAWN:
            pawn_chases.append(chase)
        else:
            chases.append(chase)
    if pawn_chases:
        notes.append("a pawn's own threat is idle unless both sides attack every move (27.2)"
                     if rules.pawn_chase_counts_when_mutual else
                     "pawns may chase perpetually under these rules")
    if chases:
        return MoveClass(move, color, Kind.CHASE, tuple(chases), tuple(pawn_chases),
                         notes=tuple(notes))
    return MoveClass(move, color, Kind.IDLE, (), tuple(pawn_chases),
                     idle_kind=_offer_kind(after_board, move), notes=tuple(notes))


def _offer_kind(after: Board, move: Move) -> str | None:
    """兑 if the moved piece may be taken by an equal piece in an even exchange, 献 if it is
    left to be taken for nothing by a piece of its own kind; else None."""
    mover = _occupant(after, move.to_square)
    if mover.piece_type in (KING, PAWN):
        return None
    for capture in _captures_on(after, move.to_square):
        taker = _occupant(after, capture.from_square)
        if PIECE_VALUE.get(taker.piece_type) != PIECE_VALUE[mover.piece_type]:
            continue
        gain = _exchange_gain(after, capture)
        if gain == 0:
            return "兑"
        if taker.piece_type == mover.piece_type:
            return "献"
    return None


def classify_line(board: Board, moves: list[Move],
                  rules: str | RuleSet = "chinese") -> list[MoveClass]:
    """Classify each of ``moves`` played in turn from ``board`` (left unchanged)."""
    work = board.copy(stack=False)
    result = []
    for move in moves:
        result.append(classify_move(work, move, rules))
        work.push_unchecked(move)
    return result


# -- cycles and verdicts -----------------------------------------------------------------------

@dataclass(frozen=True)
class Cycle:
    """The last repetition: the moves from the previous occurrence of the current position
    back to it, and how often the position has occurred (this time included)."""
    start_ply: int
    moves: tuple[Move, ...]
    occurrences: int
    start_fen: str


def find_cycle(board: Board) -> Cycle | None:
    """The most recent repetition cycle ending in ``board``'s position, or None.

    >>> board = Board("3k5/R8/9/9/9/9/9/9/9/4K4 w")
    >>> for text in ["a8a9", "d9d8", "a9a8", "d8d9"]:
    ...     _ = board.push_iccs(text)
    >>> cycle = find_cycle(board)
    >>> cycle.start_ply, len(cycle.moves), cycle.occurrences
    (0, 4, 2)
    """
    history = board.copy()
    moves = history.move_stack
    target = (board.board_fen(), board.turn)
    occurrences = 1
    last_match: int | None = None
    for ply in range(len(moves) - 1, -1, -1):
        taken = history.pop()
        if history.piece_at(taken.to_square) is not None:
            break           # a capture: no earlier position can repeat this one
        if (history.board_fen(), history.turn) == target:
            occurrences += 1
            if last_match is None:
                last_match = ply
                start_fen = history.fen()
    if last_match is None:
        return None
    return Cycle(last_match, tuple(moves[last_match:]), occurrences, start_fen)


@dataclass(frozen=True)
class SideConduct:
    """One side's moves in the cycle and what the rules make of them."""
    color: Color
    moves: tuple[MoveClass, ...]
    label: str              # 长将, 长杀, 长捉, 一将一捉 ..., or 闲 (allowed)
    forbidden: bool
    perpetual_check: bool
    reason: str


@dataclass(frozen=True)
class Ruling:
    """The judgement of a repetition under one rule set."""
    rules: str
    result: str             # "draw", or "loss" for ``loser`` if it repeats again
    loser: Color | None
    clause: str
    cycle: Cycle
    conduct: tuple[SideConduct, SideConduct]    # indexed by colour

    def __str__(self) -> str:
        sides = "; ".join(f"{COLOR_NAMES[c.color]}: {c.label} ({c.reason})"
                          for c in self.conduct)
        if self.loser is None:
            head = "Draw by repetition"
        else:
            head = (f"{COLOR_NAMES[self.loser]} must deviate: repeating again loses")
        return f"{head}. {sides}. Rule: {self.clause} [{self.rules}]"


_MIXED_NAMES = {
    frozenset({Kind.CHECK, Kind.MATE_THREAT}): "一将一杀",
    frozenset({Kind.CHECK, Kind.CHASE}): "一将一捉",
    frozenset({Kind.MATE_THREAT, Kind.CHASE}): "一杀一捉",
    frozenset({Kind.CHECK, Kind.MATE_THREAT, Kind.CHASE}): "将杀捉",
}
_PERPETUAL_NAMES = {Kind.CHECK: "长将", Kind.MATE_THREAT: "长杀", Kind.CHASE: "长捉"}


def _effective_kind(mc: MoveClass, rules: RuleSet, pawn_chases_count: bool) -> Kind:
    """The kind a move counts as under ``rules`` (mate threats and pawn chases may be idle)."""
    if mc.kind is Kind.MATE_THREAT and not rules.mate_threat_forbidden:
        return Kind.IDLE
    if mc.kind is Kind.IDLE and mc.pawn_chases and pawn_chases_count:
        return Kind.CHASE
    return mc.kind


def _victims(mc: MoveClass, ids: dict[int, int], pawn_chases_count: bool) -> set[int]:
    chases = mc.chases + (mc.pawn_chases if pawn_chases_count else ())
    return {ids[c.victim] for c in chases}


def _conduct(color: Color, classes: list[MoveClass], rules: RuleSet, pawn_chases_count: bool,
             victim_ids: list[set[int]]) -> SideConduct:
    kinds = [_effective_kind(mc, rules, pawn_chases_count) for mc in classes]
    if all(k is Kind.CHECK for k in kinds):
        return SideConduct(color, tuple(classes), "长将", True, True,
                           "checks on every move")
    idle = [i for i, k in enumerate(kinds) if k is Kind.IDLE]
    if idle:
        return SideConduct(color, tuple(classes), "闲", False, False,
                           f"idle move {classes[idle[0]].move.iccs()}")
    distinct = frozenset(kinds)
    if len(distinct) == 1:
        kind = kinds[0]
        if kind is Kind.CHASE and rules.chase_same_victim:
            common = set.intersection(*victim_ids)
            if not common:
                return SideConduct(color, tuple(classes), "闲", False, False,
                                   "chases different pieces in turn (allowed)")
        what = {Kind.MATE_THREAT: "threatens mate on every move",
                Kind.CHASE: "chases on every move"}[kind]
        return SideConduct(color, tuple(classes), _PERPETUAL_NAMES[kind], True, False, what)
    name = _MIXED_NAMES[distinct]
    if rules.mixed_attacks_forbidden:
        return SideConduct(color, tuple(classes), name, True, False,
                           "attacks on every move (打)")
    return SideConduct(color, tuple(classes), "闲", False, False,
                       f"{name}: a mixture of checks and chases (allowed)")


def adjudicate(board: Board, rules: str | RuleSet = "chinese",
               min_occurrences: int = 3) -> Ruling | None:
    """Judge the repetition that ``board``'s last move completed, once its position has
    occurred ``min_occurrences`` times; None if there is none (yet)."""
    rules = ruleset(rules)
    cycle = find_cycle(board)
    if cycle is None or cycle.occurrences < min_occurrences:
        return None
    start = Board(cycle.start_fen)
    classes = classify_line(start, list(cycle.moves), rules)
    # Identify pieces through the cycle so that "the same victim" survives its moves.
    ids = {sq: sq for sq in start.piece_map()}
    per_move_ids = []
    for move in cycle.moves:
        ids = dict(ids)
        ids[move.to_square] = ids.pop(move.from_square)
        per_move_ids.append(ids)
    sides: dict[int, list[tuple[MoveClass, dict[int, int]]]] = {RED: [], BLACK: []}
    for mc, move_ids in zip(classes, per_move_ids):
        sides[mc.color].append((mc, move_ids))

    def conduct(color: Color, pawn_chases_count: bool) -> SideConduct:
        entries = sides[color]
        victims = [_victims(mc, move_ids, pawn_chases_count) for mc, move_ids in entries]
        return _conduct(color, [mc for mc, _ in entries], rules, pawn_chases_count, victims)

    red, black = conduct(RED, False), conduct(BLACK, False)
    if rules.pawn_chase_counts_when_mutual:
        # 27.2: pawn chases count as chases when both sides attack on every move.
        red_mutual, black_mutual = conduct(RED, True), conduct(BLACK, True)
        if red_mutual.forbidden and black_mutual.forbidden:
            red, black = red_mutual, black_mutual
    return _ruling(rules, cycle, red, black)


def _ruling(rules: RuleSet, cycle: Cycle, red: SideConduct, black: SideConduct) -> Ruling:
    conduct = (red, black)
    chinese = rules.name == "chinese"
    if red.perpetual_check != black.perpetual_check:
        loser = RED if red.perpetual_check else BLACK
        clause = ("中国象棋竞赛规则 26.1: 单方面长将 (one-sided perpetual check) loses"
                  if chinese else "AXF rule 6: one-sided perpetual check loses")
        return Ruling(rules.name, "loss", loser, clause, cycle, conduct)
    if red.forbidden != black.forbidden:
        loser = RED if red.forbidden else BLACK
        clause = ("中国象棋竞赛规则 26.4: 禁止着法 against 允许着法, the forbidden side must "
                  "change or lose" if chinese else
                  "AXF rules: the side making the forbidden perpetual attack must change or lose")
        return Ruling(rules.name, "loss", loser, clause, cycle, conduct)
    if red.perpetual_check:
        clause = ("中国象棋竞赛规则 26.3: both sides check perpetually (双方长将), draw"
                  if chinese else "AXF rule 7: both sides keep checking (解将还将), draw")
    elif red.forbidden:
        clause = ("中国象棋竞赛规则 26.3: both sides forbidden (双方均为禁止着法), draw"
                  if chinese else "AXF rules: both sides attack perpetually, draw")
    else:
        clause = ("中国象棋竞赛规则 26.2: both sides allowed (双方均为允许着法), draw"
                  if chinese else "AXF rules: no forbidden perpetual attack, draw")
    return Ruling(rules.name, "draw", None, clause, cycle, conduct)


# -- the natural limit -------------------------------------------------------------------------

@dataclass(frozen=True)
class NaturalLimit:
    """Where a game stands against the 60-move limit (自然限着) for a claimant."""
    rules: str
    claimant: Color
    plies_without_capture: int
    claimant_checks: int        # the claimant's checks among the plies looked at
    counted_plies: int          # plies that count toward the limit
    limit_plies: int
    unrecorded_plies: int = 0   # plies before the recorded moves (from the FEN's clock)
    reached: bool = False

    def __str__(self) -> str:
        state = "reached: a draw may be claimed" if self.reached else "not reached"
        text = (f"Natural limit {state}: {self.counted_plies / 2:g} of "
                f"{self.limit_plies // 2} moves count ({self.plies_without_capture} plies "
                f"without a capture, {COLOR_NAMES[self.claimant]} checked "
                f"{self.claimant_checks} times) [{self.rules}]")
        if self.unrecorded_plies:
            text += f"; {self.unrecorded_plies} plies before the recorded moves counted as quiet"
        return text


def natural_limit(board: Board, claimant: Color | None = None,
                  rules: str | RuleSet = "chinese") -> NaturalLimit:
    """The natural limit for ``claimant`` (default: the side to move).

    Chinese rules (23.3): 60 moves without a capture, where the claimant's checks count at
    most 10.  Asian rules: the last 60 moves without a capture and with at most 10 checks by
    the claimant.  Plies before the recorded moves (from the FEN's halfmove clock) count as
    quiet moves.
    """
    rules = ruleset(rules)
    claimant = board.turn if claimant is None else claimant
    history = board.copy()
    recorded = min(board.halfmove_clock, history.ply_count)
    unrecorded = board.halfmove_clock - recorded
    checks_by_age = []      # the claimant's checks, most recent first (True/False per ply)
    for _ in range(recorded):
        move = history.pop()
        mover = history.turn
        gave_check = mover == claimant and history.gives_check(move)
        checks_by_age.append(gave_check)
    plies = board.halfmove_clock
    limit = rules.natural_limit_plies
    if rules.name == "asian":
        window = checks_by_age[:limit]
        checks = sum(window)
        counted = min(plies, limit)
        reached = plies >= limit and checks <= rules.natural_limit_checks
    else:
        checks = sum(checks_by_age)
        counted = plies - max(0, checks - rules.natural_limit_checks)
        reached = counted >= limit
    return NaturalLimit(rules.name, claimant, plies, checks, counted, limit, unrecorded, reached)
