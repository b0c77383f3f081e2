"""Kill patterns (杀法) recognised in a mating line.

:func:`recognise` takes a position and a line that ends in mate and names the patterns of the
catalogue (``kill_patterns.toml``) that the mate shows, each with the attacker's pieces that
make it.  Every pattern is a rule on what can be measured: the final position (which pieces
check, which of the king's flight points each covers, which of them the defender's own pieces
block, which piece is a cannon's screen) and the line's moves (captures, sacrifices, a pawn's
steps).  The rules follow the seed's definitions (第七节 基本杀法); the comment of each rule says
which words of the definition it measures.  A mate may show several patterns (a horse in the
trough often makes a 马后炮 too).

Points are seen from the defender: ``depth`` 0 is his back rank, 1 his second rank (卧槽's
rank), 2 his third (the palace's front); files keep their letters (the board's symmetry makes
a..i and i..a one question, so "the 3rd or 7th file" is the files c and g).

>>> from xiangqi import Board
>>> board = Board("3aka3/9/9/5N2C/9/9/4c2n1/4B4/4A4/3AK4 w - - 0 1")
>>> [m.name_zh for m in recognise(board, "f6g8 e9e8 i6i8".split())]
['卧槽马', '马后炮']
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final

from xiangqi import Board, Move
from xiangqi.pieces import (
    ADVISOR,
    BLACK,
    CANNON,
    ELEPHANT,
    HORSE,
    KING,
    PAWN,
    RED,
    ROOK,
    Color,
    Piece,
    square,
    square_file,
    square_rank,
)

CENTRE_FILE: Final = 4
PALACE_FILES: Final = (3, 4, 5)
TROUGH_FILES: Final = (2, 6)            # 卧槽, 钓鱼: the 3rd and 7th files
ROLLING_FILES: Final = (1, 7)           # 打滚马's sealing horse: the 2nd and 8th files
# The patterns read from moves look at the line's last moves only: the catalogue's examples
# make their picture within five attacker moves, and a composition of thirty moves takes an
# advisor early for other reasons.
FINISH_MOVES: Final = 5


def depth(sq: int, defender: Color) -> int:
    """Ranks from the defender's back rank (0) to ``sq``.

    >>> depth(85, BLACK), depth(85, RED)
    (0, 9)
    """
    return 9 - square_rank(sq) if defender == BLACK else square_rank(sq)


def in_palace(sq: int, color: Color) -> bool:
    return square_file(sq) in PALACE_FILES and depth(sq, color) <= 2


def _between(a: int, b: int) -> list[int] | None:
    """The points strictly between ``a`` and ``b`` on their file or rank (None: not in line)."""
    fa, ra, fb, rb = square_file(a), square_rank(a), square_file(b), square_rank(b)
    if fa == fb and ra != rb:
        step = 1 if rb > ra else -1
        return [square(fa, r) for r in range(ra + step, rb, step)]
    if ra == rb and fa != fb:
        step = 1 if fb > fa else -1
        return [square(f, ra) for f in range(fa + step, fb, step)]
    return None


def attacks(pieces: dict[int, Piece], frm: int, to: int) -> bool:
    """Whether the piece on ``frm`` attacks the point ``to`` (whatever stands there): the
    moves the piece could capture with, the two kings' facing counted as the king's attack."""
    piece = pieces[frm]
    kind = piece.piece_type
    df, dr = square_file(to) - square_file(frm), square_rank(to) - square_rank(frm)
    if kind in (ROOK, CANNON, KING):
        between = _between(frm, to)
        if between is None:
            return False
        blockers = sum(sq in pieces for sq in between)
        if kind == CANNON:
            return blockers == 1
        if kind == KING and abs(df) + abs(dr) == 1:
            return in_palace(to, piece.color)
        return blockers == 0 and (kind == ROOK or df == 0)
    if kind == HORSE:
        if sorted((abs(df), abs(dr))) != [1, 2]:
            return False
        leg = square(square_file(frm) + (df // 2 if abs(df) == 2 else 0),
                     square_rank(frm) + (dr // 2 if abs(dr) == 2 else 0))
        return leg not in pieces
    if kind == PAWN:
        forward = 1 if piece.color == RED else -1
        if df == 0 and dr == forward:
            return True
        crossed = depth(frm, piece.color) >= 5
        return crossed and dr == 0 and abs(df) == 1
    if kind == ADVISOR:
        return abs(df) == 1 and abs(dr) == 1 and in_palace(to, piece.color)
    if kind == ELEPHANT:
        eye = square((square_file(frm) + square_file(to)) // 2,
                     (square_rank(frm) + square_rank(to)) // 2)
        return abs(df) == 2 and abs(dr) == 2 and eye not in pieces and depth(to, piece.color) <= 4
    return False


def screen_of(pieces: dict[int, Piece], cannon: int, target: int) -> int | None:
    """The point of the one piece between a cannon and the point it attacks."""
    between = _between(cannon, target) or []
    inside = [sq for sq in between if sq in pieces]
    return inside[0] if len(inside) == 1 else None


def attackers_of(pieces: dict[int, Piece], target: int, color: Color) -> list[int]:
    """The points of ``color``'s pieces that attack ``target``."""
    return sorted(sq for sq, piece in pieces.items()
                  if piece.color == color and sq != target and attacks(pieces, sq, target))


@dataclass
class Step:
    """One move of the line, with what it did."""
    move: Move
    piece: Piece
    captured: Piece | None
    check: bool
    before: dict[int, Piece]        # the pieces before the move


@dataclass
class MatePicture:
    """What the final position and the line show: the facts the pattern rules read."""
    pieces: dict[int, Piece]
    attacker: Color
    king: int
    mate: bool
    checkers: list[int]
    covered: dict[int, list[int]]           # an empty (or attacker's) flight point: its coverers
    blocked: dict[int, Piece]               # a flight point the defender's own piece holds
    steps: list[Step] = field(default_factory=list)
    final: Board | None = None

    @property
    def defender(self) -> Color:
        return 1 - self.attacker

    def of(self, kind: int) -> list[int]:
        """The attacker's pieces of a kind."""
        return sorted(sq for sq, p in self.pieces.items()
                      if p.color == self.attacker and p.piece_type == kind)

    def working(self) -> set[int]:
        """The attacker's pieces that take part in the mate: the checkers, their screens
        (a cannon's), and every piece that covers a flight point."""
        found = set(self.checkers)
        for sq in self.checkers:
            if self.pieces[sq].piece_type == CANNON:
                screen = screen_of(self.pieces, sq, self.king)
                if screen is not None and self.pieces[screen].color == self.attacker:
                    found.add(screen)
        for coverers in self.covered.values():
            found.update(coverers)
        return found

    def depth(self, sq: int) -> int:
        return depth(sq, self.defender)

    @property
    def finish(self) -> list[Step]:
        """The end of the line that makes the mate: its last :data:`FINISH_MOVES` attacker
        moves and the replies (a long composition's early captures are another story)."""
        attacker_moves = [i for i, s in enumerate(self.steps) if s.piece.color == self.attacker]
        if len(attacker_moves) <= FINISH_MOVES:
            return self.steps
        return self.steps[attacker_moves[-FINISH_MOVES]:]

    @property
    def finish_start(self) -> dict[int, Piece]:
        """The pieces where :attr:`finish` begins."""
        return self.finish[0].before if self.finish else self.pieces

    def attacker_steps(self) -> list[Step]:
        """The attacker's moves of :attr:`finish`."""
        return [s for s in self.finish if s.piece.color == self.attacker]


def picture(board: Board, line: Sequence[Move | str]) -> MatePicture:
    """Play ``line`` from ``board`` (ICCS strings or moves) and describe the end.  The side to
    move at ``board`` is the attacker.  Raises ValueError naming the first move of the line
    that is not legal."""
    board = board.copy()
    attacker = board.turn
    steps: list[Step] = []
    for item in line:
        try:
            move = board.parse_iccs(item) if isinstance(item, str) else item
        except ValueError:
            move = None
        if move is None or move not in board.legal_moves:
            text = item if isinstance(item, str) else item.iccs()
            raise ValueError(f"move {len(steps) + 1} of the line, {text}, is not legal in "
                             f"{board.fen()}")
        before = board.piece_map()
        piece = before[move.from_square]
        captured = before.get(move.to_square)
        board.push(move)
        steps.append(Step(move, piece, captured, board.is_check(), before))
    pieces = board.piece_map()
    defender = 1 - attacker
    king = board.king(defender)
    if king is None:
        raise ValueError("the position has no defending king")
    checkers = attackers_of(pieces, king, attacker)
    covered: dict[int, list[int]] = {}
    blocked: dict[int, Piece] = {}
    kf, kr = square_file(king), square_rank(king)
    for f, r in ((kf - 1, kr), (kf + 1, kr), (kf, kr - 1), (kf, kr + 1)):
        if not (0 <= f <= 8 and 0 <= r <= 9) or not in_palace(square(f, r), defender):
            continue
        flight = square(f, r)
        occupant = pieces.get(flight)
        if occupant is not None and occupant.color == defender:
            blocked[flight] = occupant
            continue
        moved = {sq: p for sq, p in pieces.items() if sq not in (king, flight)}
        moved[flight] = pieces[king]
        covered[flight] = attackers_of(moved, flight, attacker)
    mated = board.turn == defender and not board.has_legal_move()
    return MatePicture(pieces, attacker, king, mated,
                       checkers, covered, blocked, steps, board)


@dataclass(frozen=True)
class PatternMatch:
    """A pattern the line shows, with the attacker's pieces (their points) that make it."""
    pattern_id: str
    name_zh: str
    pieces: tuple[int, ...]

    def describe(self, pic: MatePicture) -> str:
        from xiangqi.pieces import square_name
        return f"{self.name_zh}: " + " ".join(
            pic.pieces[sq].chinese() + square_name(sq) if sq in pic.pieces else square_name(sq)
            for sq in self.pieces)


# -- the rules, one per pattern (each returns the pieces that make it, or None) -------------

def facing_kings(pic: MatePicture) -> list[int] | None:
    """对面笑 (白脸将): the mate rests on the rule that the two kings may not face each other: a
    move of the defender that would escape is refused only because it leaves the kings
    facing (a king step onto the attacking king's file, or a piece leaving the file between
    them).  Only a king on the centre file counts: from a rib file, covering a corner is the
    help of most mates, not their idea."""
    king = next(iter(pic.of(KING)), None)
    if king is None or square_file(king) != CENTRE_FILE or pic.final is None:
        return None
    legal = set(pic.final.legal_moves)
    for move in pic.final.pseudo_legal_moves:
        if move in legal:
            continue
        after = dict(pic.pieces)
        mover = after.pop(move.from_square)
        after[move.to_square] = mover
        target = move.to_square if mover.piece_type == KING else pic.king
        if attackers_of(after, target, pic.attacker) == [king]:
            return sorted({king, *pic.checkers})
    return None


def staggered_rooks(pic: MatePicture) -> list[int] | None:
    """双车错: a rook checks and the other rook, on the next file or rank, holds the king's
    escape line."""
    rooks = pic.of(ROOK)
    for checker in pic.checkers:
        if pic.pieces[checker].piece_type != ROOK:
            continue
        for other in rooks:
            if other == checker or not any(other in c for c in pic.covered.values()):
                continue
            next_line = (abs(square_file(other) - square_file(checker)) == 1 or
                         abs(square_rank(other) - square_rank(checker)) == 1)
            if next_line:
                return sorted((checker, other))
    return None


def rooks_flank_advisors(pic: MatePicture) -> list[int] | None:
    """双车胁士: two rooks on the palace's rib files; one is given up for an advisor (takes it
    and is taken, or is taken by it) and the other mates."""
    # The rook that takes an advisor is given up: it is taken in turn (弃车杀士).
    rooks_took = any(s.piece.piece_type == ROOK and s.piece.color == pic.attacker and
                     s.captured is not None and s.captured.piece_type == ADVISOR and
                     i + 1 < len(pic.finish) and
                     pic.finish[i + 1].move.to_square == s.move.to_square
                     for i, s in enumerate(pic.finish))
    rook_taken = any(s.piece.color == pic.defender and s.piece.piece_type == ADVISOR and
                     s.captured is not None and s.captured.piece_type == ROOK
                     for s in pic.finish)
    rib_rooks = [sq for sq, p in pic.finish_start.items() if p.color == pic.attacker and
                 p.piece_type == ROOK and square_file(sq) in (3, 5) and depth(sq, pic.defender) <= 2
                 ]
    checker_rooks = [sq for sq in pic.checkers if pic.pieces[sq].piece_type == ROOK]
    if (rooks_took or rook_taken) and len(rib_rooks) >= 2 and checker_rooks:
        return checker_rooks
    return None


def _horse_checks_from(pic: MatePicture, points: set[tuple[int, int]]) -> list[int]:
    """The checking horses on points given as (file, depth)."""
    return [sq for sq in pic.checkers if pic.pieces[sq].piece_type == HORSE and
            (square_file(sq), pic.depth(sq)) in points]


PALACE_CORNERS: Final = {(3, 0), (5, 0), (3, 2), (5, 2)}


def corner_horse(pic: MatePicture) -> list[int] | None:
    """挂角马: the horse checks from a corner of the palace (士角)."""
    horses = _horse_checks_from(pic, PALACE_CORNERS)
    return horses or None


def _diagonal_two(a: int, b: int) -> bool:
    return abs(square_file(a) - square_file(b)) == 2 and abs(square_rank(a) - square_rank(b)) == 2


def eight_corner_horse(pic: MatePicture) -> list[int] | None:
    """八角马: a horse on a corner of the palace, the king on the opposite corner (the two
    corners of a 田), and another piece mates."""
    for horse in pic.of(HORSE):
        if (square_file(horse), pic.depth(horse)) in PALACE_CORNERS and \
                _diagonal_two(horse, pic.king) and any(c != horse for c in pic.checkers):
            return sorted({horse, *pic.checkers})
    return None


def trough_horse(pic: MatePicture) -> list[int] | None:
    """卧槽马: a horse on the defender's second rank, 3rd or 7th file, checking or covering."""
    working = pic.working()
    horses = [sq for sq in pic.of(HORSE) if sq in working and pic.depth(sq) == 1 and
              square_file(sq) in TROUGH_FILES]
    return sorted({*horses, *pic.checkers}) if horses else None


def fishing_horse(pic: MatePicture) -> list[int] | None:
    """钓鱼马: a horse on the defender's third rank, 3rd or 7th file, two points diagonally
    from the king, holding its sideways flight; a rook (or another piece) mates."""
    for horse in pic.of(HORSE):
        if pic.depth(horse) == 2 and square_file(horse) in TROUGH_FILES and \
                horse in pic.working() and horse not in pic.checkers:
            return sorted({horse, *pic.checkers})
    return None


def side_tiger(pic: MatePicture) -> list[int] | None:
    """侧面虎: the horse diagonally next to the king, covering the points beyond it, and a
    rook mates."""
    for horse in pic.of(HORSE):
        if abs(square_file(horse) - square_file(pic.king)) == 1 and \
                abs(square_rank(horse) - square_rank(pic.king)) == 1 and horse in pic.working() \
                and any(pic.pieces[c].piece_type == ROOK for c in pic.checkers):
            return sorted({horse, *pic.checkers})
    return None


def lined_horse_rook(pic: MatePicture) -> list[int] | None:
    """列马车: the horse on the far corner of a 田 from the king (two points diagonally), and
    the rook mates on the centre file."""
    rooks = [c for c in pic.checkers if pic.pieces[c].piece_type == ROOK and
             square_file(c) == CENTRE_FILE]
    for horse in pic.of(HORSE):
        if _diagonal_two(horse, pic.king) and horse in pic.working() and rooks:
            return sorted({horse, *rooks})
    return None


def rolling_horses(pic: MatePicture) -> list[int] | None:
    """打滚马: one horse seals a side of the palace from the defender's second rank (2nd or
    8th file) and the other checks."""
    horses = pic.of(HORSE)
    sealing = [h for h in horses if pic.depth(h) == 1 and square_file(h) in ROLLING_FILES]
    checking = [h for h in horses if h in pic.checkers and h not in sealing]
    if sealing and checking:
        return sorted({*sealing, *checking})
    return None


def _cannon_screens(pic: MatePicture) -> list[tuple[int, int]]:
    """(cannon, screen) of every checking cannon."""
    found = []
    for checker in pic.checkers:
        if pic.pieces[checker].piece_type == CANNON:
            screen = screen_of(pic.pieces, checker, pic.king)
            if screen is not None:
                found.append((checker, screen))
    return found


def cannon_behind_horse(pic: MatePicture) -> list[int] | None:
    """马后炮: the cannon checks with its own horse as the screen, the horse covering a
    flight point (or, seen the other way, the horse steps in front of the cannon)."""
    for cannon, screen in _cannon_screens(pic):
        piece = pic.pieces[screen]
        if piece.color == pic.attacker and piece.piece_type == HORSE and \
                any(screen in c for c in pic.covered.values()):
            return sorted((cannon, screen))
    return None


def double_cannon(pic: MatePicture) -> list[int] | None:
    """重炮: the rear cannon checks with the front cannon as its screen."""
    for cannon, screen in _cannon_screens(pic):
        piece = pic.pieces[screen]
        if piece.color == pic.attacker and piece.piece_type == CANNON:
            return sorted((cannon, screen))
    return None


def heaven_earth_cannons(pic: MatePicture) -> list[int] | None:
    """天地炮: one cannon on the centre file, the other on the defender's back rank, both at
    work in the mate (a rook usually mates with them)."""
    cannons = [c for c in pic.of(CANNON) if c in pic.working()]
    centre = [c for c in pic.of(CANNON) if square_file(c) == CENTRE_FILE]
    bottom = [c for c in cannons if pic.depth(c) == 0]
    for a in centre:
        for b in bottom:
            if a != b and (a in pic.working() or _aims_at_palace(pic, a) and _pins(pic, a)):
                return sorted({a, b, *pic.checkers})
    return None


def _aims_at_palace(pic: MatePicture, cannon: int) -> bool:
    """A cannon on the centre file pointing into the defender's palace (pinning what stands
    on it)."""
    return square_file(cannon) == CENTRE_FILE and pic.depth(cannon) > 2


def _pins(pic: MatePicture, cannon: int) -> bool:
    """The cannon pins a defender to the king on its file: between them, its screen and then
    one defending piece (which cannot leave without uncovering the king)."""
    line = _between(cannon, pic.king)
    if line is None:
        return False
    standing = [sq for sq in sorted(line, key=lambda sq: -pic.depth(sq)) if sq in pic.pieces]
    return len(standing) == 2 and pic.pieces[standing[1]].color == pic.defender


def _blocked_by_own(pic: MatePicture, kinds: tuple[int, ...]) -> list[int]:
    return [sq for sq, p in pic.blocked.items() if p.piece_type in kinds]


def smothered_palace(pic: MatePicture) -> list[int] | None:
    """闷宫: one piece (usually a cannon) mates a king whose flight points its own two
    advisors block."""
    if len(pic.checkers) != 1 or len(_blocked_by_own(pic, (ADVISOR,))) < 2:
        return None
    return list(pic.checkers)


def smothered_mate(pic: MatePicture) -> list[int] | None:
    """闷杀: one piece mates a king hemmed in by his own pieces, at least one of which a
    sacrifice drew onto its flight point (it took there, and stayed)."""
    if len(pic.checkers) != 1 or len(pic.blocked) < 2:
        return None
    drawn = any(s.piece.color == pic.defender and s.captured is not None and
                s.move.to_square in pic.blocked and pic.pieces.get(s.move.to_square) == s.piece
                for s in pic.finish)
    return list(pic.checkers) if drawn else None


def double_check(pic: MatePicture) -> list[int] | None:
    """双将: two pieces check at once."""
    return list(pic.checkers) if len(pic.checkers) >= 2 else None


def _pinning_cannons(pic: MatePicture) -> list[int]:
    """The attacker's cannons on the king's file that pin a defender there: with that piece
    gone, the cannon would check."""
    found = []
    for cannon in pic.of(CANNON):
        between = _between(cannon, pic.king) or []
        for sq in between:
            piece = pic.pieces.get(sq)
            if piece is None or piece.color != pic.defender:
                continue
            without = {k: v for k, v in pic.pieces.items() if k != sq}
            if attacks(without, cannon, pic.king):
                found.append(cannon)
                break
    return found


def iron_bolt(pic: MatePicture) -> list[int] | None:
    """铁门栓: a cannon on the centre file pins the centre of the palace (the advisor or
    elephant there cannot leave it without letting the cannon check) while a rook mates."""
    if square_file(pic.king) != CENTRE_FILE:
        return None
    cannons = [c for c in _pinning_cannons(pic) if square_file(c) == CENTRE_FILE]
    rooks = [c for c in pic.checkers if pic.pieces[c].piece_type == ROOK]
    if cannons and rooks:
        return sorted({*cannons, *rooks})
    return None


def bold_heart_piercing(pic: MatePicture) -> list[int] | None:
    """大胆穿心 (大刀剜心): a rook, or another piece given up as it, takes the palace's centre
    advisor by force, and the mate follows.  Another piece counts only when it is given up
    (taken later in the line): a pawn that takes the advisor and mates is 二鬼拍门's or
    三车闹士's picture."""
    for i, s in enumerate(pic.finish):
        to = s.move.to_square
        if s.piece.color == pic.attacker and s.captured is not None and \
                s.captured.piece_type == ADVISOR and square_file(to) == CENTRE_FILE and \
                depth(to, pic.defender) == 1 and \
                (s.piece.piece_type == ROOK or _given_up(pic.finish[i + 1:], to)):
            return sorted(pic.working())
    return None


def _given_up(later: Sequence[Step], sq: int) -> bool:
    """Whether the attacker's piece on ``sq`` is taken in the ``later`` moves (followed as it
    moves)."""
    for s in later:
        if s.move.from_square == sq:
            sq = s.move.to_square
        elif s.move.to_square == sq:
            return True                 # the defender takes it
    return False


def _pawns_beside_centre(pieces: dict[int, Piece], attacker: Color) -> list[int]:
    return [sq for sq, p in pieces.items() if p.color == attacker and p.piece_type == PAWN and
            square_file(sq) in (3, 5) and depth(sq, 1 - attacker) <= 1]


def two_ghosts_knocking(pic: MatePicture) -> list[int] | None:
    """二鬼拍门: two pawns in the palace on the 4th and 6th files, beside the centre advisor,
    and a pawn takes part in the mate."""
    boards = [s.before for s in pic.finish] + [pic.pieces]
    pair = any({square_file(sq) for sq in _pawns_beside_centre(b, pic.attacker)} == {3, 5}
               for b in boards)
    pawns = [sq for sq in pic.working() if pic.pieces[sq].piece_type == PAWN]
    return sorted(pawns) if pair and pawns else None


def _wing(sq: int) -> int:
    f = square_file(sq)
    return 0 if f == CENTRE_FILE else (-1 if f < CENTRE_FILE else 1)


def three_pieces_one_side(pic: MatePicture) -> list[int] | None:
    """三子归边: rook, horse and cannon gathered on one wing (the centre file with it) at the
    start of the line, and the mate made by two of them at least, from that wing."""
    start = pic.finish_start
    working = pic.working()
    for wing in (-1, 1):
        kinds = {start[sq].piece_type for sq in start
                 if start[sq].color == pic.attacker and _wing(sq) == wing}
        if not {ROOK, HORSE, CANNON} <= kinds:
            continue
        makers = [sq for sq in working if pic.pieces[sq].piece_type in (ROOK, HORSE, CANNON)
                  and _wing(sq) in (wing, 0)]
        if len({pic.pieces[sq].piece_type for sq in makers}) >= 2:
            return sorted(makers)
    return None


def _near_palace(pic: MatePicture, sq: int) -> bool:
    return pic.depth(sq) <= 2


def _between_cannons(pic: MatePicture, kind: int) -> list[int] | None:
    """A piece of ``kind`` at work in the mate with two cannons at or near the palace, one of
    them at work too (夹车炮, 夹马炮)."""
    working = pic.working()
    middles = [sq for sq in pic.of(kind) if sq in working and pic.depth(sq) in (1, 2)]
    cannons = [sq for sq in pic.of(CANNON) if sq in working or _near_palace(pic, sq)]
    if middles and len(cannons) >= 2 and any(c in working for c in cannons):
        return sorted({middles[0], *cannons[:2]})
    return None


def rook_between_cannons(pic: MatePicture) -> list[int] | None:
    """夹车炮: a rook and two cannons on the defender's second and third ranks mate
    together."""
    return _between_cannons(pic, ROOK)


def horse_between_cannons(pic: MatePicture) -> list[int] | None:
    """夹马炮: a horse and two cannons mate together."""
    return _between_cannons(pic, HORSE)


def horse_rook_clamp(pic: MatePicture) -> list[int] | None:
    """夹马车: a horse and a rook mate together, one on the defender's second rank and the
    other on his third."""
    working = pic.working()
    for horse in pic.of(HORSE):
        for rook in pic.of(ROOK):
            if horse in working and rook in working and \
                    {pic.depth(horse), pic.depth(rook)} == {1, 2}:
                return sorted((horse, rook))
    return None


def three_rooks_harass(pic: MatePicture) -> list[int] | None:
    """三车闹士: two rooks and a pawn broken into the palace mate (the pawn a third rook)."""
    working = pic.working()
    rooks = pic.of(ROOK)
    pawns = [sq for sq in pic.of(PAWN) if sq in working and pic.depth(sq) <= 3]
    if len(rooks) >= 2 and pawns and any(r in working for r in rooks):
        return sorted({*rooks, pawns[0]})
    return None


def three_pawn_advances(pic: MatePicture) -> list[int] | None:
    """三进兵: a pawn that advanced in the line, step after step, mates."""
    for checker in pic.checkers:
        if pic.pieces[checker].piece_type != PAWN:
            continue
        # Follow the pawn back through the line: its advances (a step towards the king).
        sq, advances = checker, 0
        for s in reversed(pic.steps):
            if s.move.to_square == sq and s.piece.piece_type == PAWN:
                if depth(s.move.to_square, pic.defender) < depth(s.move.from_square,
                                                                 pic.defender):
                    advances += 1
                sq = s.move.from_square
        if advances >= 2:
            return [checker]
    return None


def immortal_sword(pic: MatePicture) -> list[int] | None:
    """仙人背剑: a cannon is given up with check and a pawn then mates."""
    pawns = [c for c in pic.checkers if pic.pieces[c].piece_type == PAWN]
    if not pawns:
        return None
    finish = pic.finish
    for i, s in enumerate(finish):
        if s.piece.color == pic.attacker and s.piece.piece_type == CANNON and s.check and \
                i + 1 < len(finish) and finish[i + 1].move.to_square == s.move.to_square:
            return sorted({*pawns, s.move.to_square})
    return None


def moon_from_sea_bottom(pic: MatePicture) -> list[int] | None:
    """海底捞月: the rook on the defender's bottom centre point, and the cannon takes (or
    attacks) with the enemy king as its screen; rook and cannon win."""
    for s in pic.attacker_steps():
        if s.piece.piece_type == CANNON and s.captured is not None:
            screen = screen_of(s.before, s.move.from_square, s.move.to_square)
            if screen is not None and s.before[screen] == Piece(KING, pic.defender):
                rooks = [sq for sq in pic.of(ROOK)]
                return sorted({s.move.to_square, *rooks}) if rooks else None
    bottom_rook = [sq for sq in pic.of(ROOK) if pic.depth(sq) == 0 and
                   square_file(sq) == CENTRE_FILE and sq in pic.checkers]
    cannons = [sq for sq in pic.of(CANNON) if sq in pic.working()]
    if bottom_rook and cannons and pic.mate:
        return sorted({*bottom_rook, *cannons})
    return None


def cannon_grinds_cinnabar(pic: MatePicture) -> list[int] | None:
    """炮碾丹沙: a cannon on the defender's back rank sweeps it, taking advisors and
    elephants."""
    for s in pic.attacker_steps():
        if s.piece.piece_type == CANNON and s.captured is not None and \
                s.captured.piece_type in (ADVISOR, ELEPHANT) and \
                depth(s.move.from_square, pic.defender) == 0 and \
                depth(s.move.to_square, pic.defender) == 0:
            return sorted(pic.working() | {s.move.to_square} & set(pic.pieces))
    return None


def half_moon(pic: MatePicture) -> list[int] | None:
    """半边月: two pawns hold the palace heart and a bottom corner, the king in the other
    bottom corner."""
    if not (square_file(pic.king) in (3, 5) and pic.depth(pic.king) == 0):
        return None
    pawns = pic.of(PAWN)
    heart = [p for p in pawns if square_file(p) == CENTRE_FILE and pic.depth(p) == 1]
    corner = [p for p in pawns if pic.depth(p) == 0 and square_file(p) in (3, 5) and
              square_file(p) != square_file(pic.king)]
    bottom = [p for p in pawns if pic.depth(p) == 0 and p in pic.working()]
    if heart and (corner or bottom):
        return sorted({heart[0], *(corner or bottom)[:1], *pic.checkers})
    return None


def monkey_holds_horse(pic: MatePicture) -> list[int] | None:
    """猴拉马: a cannon, the defender's pawn as its screen, ties down his horse (or rook), and
    the tied piece cannot defend the mate."""
    boards = [pic.finish_start, pic.pieces]
    for pieces in boards:
        for sq, p in pieces.items():
            if p.color != pic.attacker or p.piece_type != CANNON:
                continue
            for target, victim in pieces.items():
                if victim.color != pic.defender or victim.piece_type not in (HORSE, ROOK):
                    continue
                screen = screen_of(pieces, sq, target)
                if screen is not None and pieces[screen] == Piece(PAWN, pic.defender) and \
                        attacks(pieces, sq, target):
                    return sorted({sq, *pic.checkers})
    return None


RULES: Final[dict[str, Callable[[MatePicture], list[int] | None]]] = {
    "facing-kings": facing_kings,
    "staggered-rooks": staggered_rooks,
    "rooks-flank-advisors": rooks_flank_advisors,
    "corner-horse": corner_horse,
    "eight-corner-horse": eight_corner_horse,
    "trough-horse": trough_horse,
    "fishing-horse": fishing_horse,
    "side-tiger": side_tiger,
    "lined-horse-rook": lined_horse_rook,
    "rolling-horses": rolling_horses,
    "cannon-behind-horse": cannon_behind_horse,
    "double-cannon": double_cannon,
    "heaven-earth-cannons": heaven_earth_cannons,
    "smothered-palace": smothered_palace,
    "smothered-mate": smothered_mate,
    "double-check": double_check,
    "iron-bolt": iron_bolt,
    "bold-heart-piercing": bold_heart_piercing,
    "two-ghosts-knocking": two_ghosts_knocking,
    "three-pieces-one-side": three_pieces_one_side,
    "rook-between-cannons": rook_between_cannons,
    "horse-between-cannons": horse_between_cannons,
    "horse-rook-clamp": horse_rook_clamp,
    "three-rooks-harass": three_rooks_harass,
    "three-pawn-advances": three_pawn_advances,
    "immortal-sword": immortal_sword,
    "moon-from-sea-bottom": moon_from_sea_bottom,
    "cannon-grinds-cinnabar": cannon_grinds_cinnabar,
    "half-moon": half_moon,
    "monkey-holds-horse": monkey_holds_horse,
}

# Patterns that are read from the line alone: they hold for a line that wins without a mate
# at its end (the catalogue's "win" examples end in a won ending).
LINE_PATTERNS: Final = frozenset({"moon-from-sea-bottom", "cannon-grinds-cinnabar",
                                  "rooks-flank-advisors", "bold-heart-piercing"})


def recognise(board: Board, line: Sequence[Move | str]) -> list[PatternMatch]:
    """The kill patterns that ``line`` (played from ``board``) shows, in the catalogue's
    order.  The line is the whole solution, both sides' moves; a line that does not end in
    mate is read for the patterns of :data:`LINE_PATTERNS` only."""
    pic = picture(board, line)
    names = pattern_names()
    found = []
    for pattern_id, rule in RULES.items():
        if not pic.mate and pattern_id not in LINE_PATTERNS:
            continue
        pieces = rule(pic)
        if pieces:
            found.append(PatternMatch(pattern_id, names[pattern_id], tuple(pieces)))
    return found


@functools.cache
def pattern_names() -> dict[str, str]:
    """Each pattern's Chinese name, from the catalogue's data (kill_patterns.toml)."""
    from puzzles.catalogue import load_patterns
    return {p["id"]: p["name_zh"] for p in load_patterns()}
