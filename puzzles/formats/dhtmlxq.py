"""DhtmlXQ, the UBB format of 东萍象棋 (dpxq.com), also written by 微思象棋 (vschess).

A game is a ``[DhtmlXQ]`` ... ``[/DhtmlXQ]`` block of fields ``[DhtmlXQ_name]value[/DhtmlXQ_name]``
(a file may hold several blocks, with other text, e.g. HTML, between them; a text of bare fields
without the wrapper is one game).  The block may also be wrapped as ``[DhtmlXQiFrame]`` (the
东萍 viewer's iframe form, also vschess's sample file) or ``[DhtmlXQHTML]`` (南山象棋谱), each
closed by its own closing tag.  The fields read:

``binit``
    64 digits, 32 pieces of two digits ``XY``: X 0..8 the column from the left, Y 0..9 the row
    from the top, Red at the bottom (so the point is file ``a``+X, rank 9-Y); ``99``: not on the
    board.  Piece order, Red then Black: 车马相仕帅仕相马车炮炮兵兵兵兵兵 (rook, horse,
    elephant, advisor, king, advisor, elephant, horse, rook, two cannons, five pawns).  This is
    the order of the 东萍 viewer and of vschess (``RNBAKABNRCCPPPPPrnbakabnrccppppp``); the start
    position is ``8979695949392919097717866646260600102030405060708012720323436383``.  Absent:
    the start position.
``movelist``
    4 digits per move, ``XYXY`` from and to in the same coordinates (``7747`` is 炮二平五).
``fen``
    (vschess) the start FEN; gives the side to move and the clocks, and must agree with
    ``binit``.
``comment0``
    the comment before the first move (``||`` is a line break): the ``comment`` tag.
``move_*``, ``comment<n>``, ``comment<b>_<n>``
    variations and move comments: skipped.
others
    tags: ``title``, ``event``, ``date``, ``red``, ``black``, ``result`` (红胜/黑胜/和棋/未知 are
    read as ``1-0``/``0-1``/``1/2-1/2``/``*``), ``place`` (as ``site``), ``open`` (as ``opening``),
    and the rest under their own names; empty fields are dropped.

The side to move: from the ``fen`` field; else the colour of the piece the first move moves
(as vschess does); else Red, unless Red to move is impossible (Black in check), then Black.
A closing tag that names another field (``[DhtmlXQ_blacktime][/DhtmlXQ_time]``, as the 东萍
template has it) is accepted.

A bad ``binit`` (not 64 digits, a column off the board, two pieces on one point, a piece on a
point it can never reach, a missing king) or ``movelist`` (not digits in fours, an illegal
move) raises :class:`FormatError` with the line of the field and the offset in it.

>>> [record] = parse_dhtmlxq('''[DhtmlXQ]
... [DhtmlXQ_title]例局[/DhtmlXQ_title]
... [DhtmlXQ_binit]8979695949392919097717866646260600102030405060708012720323436383[/DhtmlXQ_binit]
... [DhtmlXQ_movelist]77477062[/DhtmlXQ_movelist]
... [/DhtmlXQ]''')
>>> record.fen == STARTING_FEN, record.moves, record.tags
(True, ['h2e2', 'h9g7'], {'title': '例局'})
>>> parse_dhtmlxq("[DhtmlXQ_binit]8979695949[/DhtmlXQ_binit]", "x.dhtml")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
puzzles.formats.FormatError: x.dhtml, line 1: [DhtmlXQ_binit] offset 10: 10 digits, expected 64 ...
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from xiangqi import STARTING_FEN, Board, FenError, Move
from xiangqi.fen import placement_fen
from xiangqi.notation import why_illegal

from . import FilePath, FormatError, Record, checked_fen, replay
from ._slots import codes_to_slots, slots_to_codes

_OPEN_RE = re.compile(r"\[DhtmlXQ_([A-Za-z0-9_]+)\]", re.I)
_CLOSE_RE = re.compile(r"\[/DhtmlXQ_([A-Za-z0-9_]*)\]", re.I)
_BLOCK_OPEN_RE = re.compile(r"\[(DhtmlXQ(?:iFrame|HTML)?)\]", re.I)
_SKIPPED_RE = re.compile(r"move_\d+_\d+_\d+|comment\d*_\d+|comment[1-9]\d*")
_READ_NAMES = {"place": "site", "open": "opening", "comment0": "comment"}
_WRITE_NAMES = {"site": "place", "opening": "open", "comment": "comment0"}
_RESERVED = {"binit", "movelist", "fen"}
_RESULT_READ = {"红胜": "1-0", "紅勝": "1-0", "黑胜": "0-1", "黑勝": "0-1", "和棋": "1/2-1/2",
                "和局": "1/2-1/2", "未知": "*"}
_RESULT_WRITE = {"1-0": "红胜", "0-1": "黑胜", "1/2-1/2": "和棋", "*": "未知"}


class _Text:
    """Line numbers of offsets in a text."""

    def __init__(self, text: str) -> None:
        self.starts = [0] + [m.end() for m in re.finditer(r"\n", text)]

    def line(self, offset: int) -> int:
        low, high = 0, len(self.starts)
        while high - low > 1:
            middle = (low + high) // 2
            if self.starts[middle] <= offset:
                low = middle
            else:
                high = middle
        return low + 1


def _fields(text: str, start: int, stop: int, lines: _Text,
            path: FilePath | None) -> Iterator[tuple[str, str, int]]:
    """(name, value, line) of the fields between ``start`` and ``stop``."""
    pos = start
    while True:
        while pos < stop and text[pos].isspace():
            pos += 1
        if pos >= stop:
            return
        match = _OPEN_RE.match(text, pos, stop)
        if not match:
            snippet = text[pos:min(stop, pos + 30)].split("\n")[0]
            raise FormatError(f"unexpected text {snippet!r} (expected [DhtmlXQ_name])",
                              path, lines.line(pos))
        close = _CLOSE_RE.search(text, match.end(), stop)
        inner = _OPEN_RE.search(text, match.end(), close.start() if close else stop)
        if close is None or inner is not None:
            raise FormatError(f"[DhtmlXQ_{match.group(1)}] is never closed", path,
                              lines.line(pos))
        yield match.group(1).lower(), text[match.end():close.start()], lines.line(pos)
        pos = close.end()


def _binit_codes(digits: str, path: FilePath | None, line: int) -> list[int]:
    def error(offset: int, message: str) -> FormatError:
        return FormatError(f"[DhtmlXQ_binit] offset {offset}: {message}", path, line, offset)

    for offset, char in enumerate(digits):
        if not ("0" <= char <= "9"):
            raise error(offset, f"{char!r} is not a digit")
    if len(digits) != 64:
        raise error(min(len(digits), 64), f"{len(digits)} digits, expected 64 (32 pieces of "
                                          "two digits)")
    points: list[int | None] = []
    for slot in range(32):
        x, y = int(digits[2 * slot]), int(digits[2 * slot + 1])
        if (x, y) == (9, 9):
            points.append(None)
        elif x > 8:
            raise error(2 * slot, f"column {x} is off the board ('{x}{y}': columns are 0..8, "
                                  "99 is a piece not on the board)")
        else:
            points.append((9 - y) * 9 + x)
    return slots_to_codes(points, lambda slot, message: error(2 * slot, message))


def _movelist(digits: str, path: FilePath | None,
              line: int) -> list[tuple[Move, int]]:
    def error(offset: int, message: str) -> FormatError:
        return FormatError(f"[DhtmlXQ_movelist] offset {offset}: {message}", path, line, offset)

    for offset, char in enumerate(digits):
        if not ("0" <= char <= "9"):
            raise error(offset, f"{char!r} is not a digit")
    if len(digits) % 4:
        raise error(len(digits) - len(digits) % 4,
                    f"{len(digits)} digits is not a whole number of moves (4 digits each)")
    moves = []
    for offset in range(0, len(digits), 4):
        fx, fy, tx, ty = (int(c) for c in digits[offset:offset + 4])
        if fx > 8 or tx > 8:
            raise error(offset, f"move {digits[offset:offset + 4]!r} leaves the board "
                                "(columns are 0..8)")
        moves.append((Move((9 - fy) * 9 + fx, (9 - ty) * 9 + tx), offset))
    return moves


def _side_fen(placement: str, path: FilePath | None, line: int) -> str:
    """Red to move, unless that is impossible and Black to move is not."""
    try:
        return Board(f"{placement} w").fen()
    except FenError as red_error:
        try:
            return Board(f"{placement} b").fen()
        except FenError:
            raise FormatError(f"bad position {placement!r}: {red_error}", path, line) from None


def _record(fields: list[tuple[str, str, int]], line: int,
            path: FilePath | None) -> Record:
    seen: dict[str, tuple[str, int]] = {}
    tags: dict[str, str] = {}
    for name, value, field_line in fields:
        if name in _RESERVED:
            if name in seen:
                raise FormatError(f"a second [DhtmlXQ_{name}] field (the first is on line "
                                  f"{seen[name][1]})", path, field_line)
            seen[name] = (value.strip(), field_line)
            continue
        if _SKIPPED_RE.fullmatch(name):
            continue
        value = value.replace("||", "\n").strip() if name == "comment0" else value.strip()
        if not value:
            continue
        key = _READ_NAMES.get(name, name)
        if key == "result":
            value = _RESULT_READ.get(value, value)
        tags[key] = value

    codes: list[int] | bytes | None = None
    binit_line = seen["binit"][1] if "binit" in seen else line
    if "binit" in seen:
        codes = _binit_codes(seen["binit"][0], path, binit_line)
    movelist_line = seen["movelist"][1] if "movelist" in seen else line
    moves = _movelist(seen["movelist"][0], path, movelist_line) if "movelist" in seen else []

    if "fen" in seen:
        fen_text, fen_line = seen["fen"]
        fen = checked_fen(fen_text, path, fen_line)
        if codes is not None and fen.split()[0] != placement_fen(codes):
            raise FormatError(f"[DhtmlXQ_fen] {fen_text!r} is not the position of "
                              f"[DhtmlXQ_binit] (line {binit_line})", path, fen_line)
    else:
        if codes is None:
            codes = Board(STARTING_FEN).codes()
        placement = placement_fen(codes)
        if moves:
            mover = codes[moves[0][0].from_square]
            if not mover:
                raise FormatError(f"[DhtmlXQ_movelist] offset 0: no piece on "
                                  f"{moves[0][0].iccs()[:2]} to make the first move", path,
                                  movelist_line, 0)
            fen = checked_fen(f"{placement} {'b' if mover & 8 else 'w'}", path, binit_line)
        else:
            fen = _side_fen(placement, path, binit_line)

    board = Board(fen)
    played = []
    for move, offset in moves:
        reason = why_illegal(board, move)
        if reason is not None:
            raise FormatError(f"[DhtmlXQ_movelist] offset {offset}: illegal move "
                              f"{seen['movelist'][0][offset:offset + 4]!r} ({move.iccs()}, "
                              f"ply {offset // 4 + 1}): {reason}", path, movelist_line, offset)
        board.push_unchecked(move)
        played.append(move.iccs())
    return Record(fen, played, tags, line)


def parse_dhtmlxq(text: str, path: FilePath | None = None) -> list[Record]:
    """Every game of a DhtmlXQ text (``path`` only names the file in errors)."""
    text = text.lstrip("\ufeff")
    lines = _Text(text)
    records = []
    opening = _BLOCK_OPEN_RE.search(text)
    if opening is None:
        if not _OPEN_RE.search(text):
            raise FormatError("no DhtmlXQ data ([DhtmlXQ] or [DhtmlXQ_...] fields)", path)
        fields = list(_fields(text, 0, len(text), lines, path))
        return [_record(fields, fields[0][2], path)]
    while opening is not None:
        wrapper = opening.group(1)
        close = re.compile(rf"\[/{wrapper}\]", re.I).search(text, opening.end())
        nested = _BLOCK_OPEN_RE.search(text, opening.end(), close.start() if close else len(text))
        if close is None or nested is not None:
            raise FormatError(f"[{wrapper}] is never closed by [/{wrapper}]", path,
                              lines.line(opening.start()))
        fields = list(_fields(text, opening.end(), close.start(), lines, path))
        records.append(_record(fields, lines.line(opening.start()), path))
        opening = _BLOCK_OPEN_RE.search(text, close.end())
    return records


def _binit_order(sq: int, color: int) -> tuple[int, int]:
    """Red's pieces from Red's right (file i first), Black's from Black's right (file a
    first); on one file the one nearer its own back rank first: the 东萍 start position."""
    file, rank = sq % 9, sq // 9
    return (-file, rank) if color == 0 else (file, -rank)


def binit_of(fen: str) -> str:
    """The 64 ``binit`` digits of a position.

    >>> binit_of(STARTING_FEN)
    '8979695949392919097717866646260600102030405060708012720323436383'
    """
    points = codes_to_slots(Board(fen).codes(), _binit_order)
    return "".join("99" if sq is None else f"{sq % 9}{9 - sq // 9}" for sq in points)


def _field(name: str, value: str) -> str:
    if re.search(r"\[/?DhtmlXQ", value, re.I):
        raise FormatError(f"the {name} field holds a DhtmlXQ tag")
    return f"[DhtmlXQ_{name}]{value}[/DhtmlXQ_{name}]"


def write_dhtmlxq(record: Record) -> str:
    """One record as a ``[DhtmlXQ]`` block: the tags, ``binit``, ``fen`` (the side to move
    and clocks, as vschess writes it), ``movelist`` and ``comment0``."""
    moves = replay(record)
    fen = Board(record.fen).fen()
    lines = ["[DhtmlXQ]"]
    comment = None
    for key, value in record.tags.items():
        name = _WRITE_NAMES.get(key, key)
        if (not re.fullmatch(r"[a-z0-9_]+", name) or name in _RESERVED
                or _SKIPPED_RE.fullmatch(name)):
            raise FormatError(f"tag name {key!r} cannot be written in DhtmlXQ")
        if name == "comment0":
            comment = value.replace("\r\n", "\n").replace("\n", "||")
            continue
        if "\n" in value or "\r" in value:
            raise FormatError(f"tag {key!r} holds a line break")
        if key == "result":
            value = _RESULT_WRITE.get(value, value)
        lines.append(_field(name, value))
    lines.append(_field("binit", binit_of(fen)))
    lines.append(_field("fen", fen))
    if moves:
        lines.append(_field("movelist", "".join(
            f"{m.from_square % 9}{9 - m.from_square // 9}{m.to_square % 9}{9 - m.to_square // 9}"
            for m in moves)))
    if comment:
        lines.append(_field("comment0", comment))
    lines.append("[/DhtmlXQ]")
    return "\n".join(lines) + "\n"


def write_dhtmlxq_list(records: Iterable[Record]) -> str:
    """Several records, one block each, separated by blank lines."""
    blocks = []
    for number, record in enumerate(records, start=1):
        try:
            blocks.append(write_dhtmlxq(record))
        except FormatError as error:
            raise FormatError(f"record {number}: {error.message}") from None
    return "\n".join(blocks)


__all__ = ["parse_dhtmlxq", "write_dhtmlxq", "write_dhtmlxq_list", "binit_of"]
