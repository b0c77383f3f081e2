"""XQF, the binary game file of 象棋演播室 (XQStudio), versions 10 and lower (unencrypted).

Versions above 10 (XQStudio 1.1 and later) encrypt the piece positions and move records; they
are refused with a :class:`FormatError` saying so.  The layout read and written here (all
integers little-endian), as XQStudio's ``XQFRW.pas`` and the readers derived from it (walker
li's ``cchess``, ElephantEye's XQF2PGN) have it:

=======  ====  ==============================================================================
offset   size  field
=======  ====  ==============================================================================
0        2     magic ``XQ``
2        1     version (10 written; 11 and up: encrypted, refused)
3        13    key fields (KeyMask, ProductId, KeyOrA..D, KeysSum, KeyXY, KeyXYf, KeyXYt),
               used by the encrypted versions only; ignored for version 10 and lower
16       32    the 32 pieces, Red's 车马相仕帅仕相马车炮炮兵兵兵兵兵 then Black's, each one byte
               ``x*10 + y``: x 0..8 the file from Red's left (``a``..``i``), y 0..9 the rank from
               Red's back rank (so a byte is the ICCS point: ``0x00`` a0, ``0x59`` = 89 i9);
               a byte above 89 (written 0xFF) is a piece not on the board
48       2     step number shown (ignored; written 0)
50       1     side to move: 0 Red, 1 Black
51       1     result: 0 unknown ``*``, 1 ``1-0``, 2 ``0-1``, 3 (also 4) ``1/2-1/2``
64       1     game type: 0 全局, 1 开局, 2 中局, 3 残局 (the ``type`` tag; 全局 not kept)
80       64    title, a Pascal string (length byte, then at most 63 bytes of GB18030 text)
208      64    event (match name)
272      16    date (length byte + 15)
288      16    site
304      16    Red player
320      16    Black player
464      16    commentator (the ``annotator`` tag)
480      16    author
1024           the move records
=======  ====  ==============================================================================

Move records (version 10 and lower), in pre-order of the game tree: 4 bytes -- from, to,
flags, reserved -- then a 4-byte comment length and the comment (GB18030).  From and to are
points as above plus 0x18 (from) and 0x20 (to), modulo 256.  Flags: a bit of 0xF0 set: the
record has a following move (its record comes next); a bit of 0x0F set: it has a variation
(a sibling, whose subtree follows the record's own subtree).  The first record is the root: no
move, its comment is the comment before the first move (the ``comment`` tag), its 0xF0 bits
say whether there is a first move.

The whole tree is walked to check its structure (a truncated record, or a comment running past
the end, is an error naming its byte offset; so are non-zero bytes left after the tree); the
main line -- each move's first continuation -- is kept, checked move by move, and the
variations and move comments are skipped.  A file of the 1024-byte header alone is a position
without moves.

The side to move is the colour of the piece the first move moves (real files do not always set
byte 50 right); a file without moves uses byte 50.

Written (:func:`write_xqf`): version 10, key fields zero, flag 0x80 for "a following move"
(read so under both the old 0xF0 and the newer 0x80 convention), the pieces of one kind in
the order of their files from Red's left (then nearer their own back rank first), the main
line, and the ``comment`` tag as the root comment.  Tags other than those in the table above
cannot be stored and are left out; a string too long for its field is an error.

>>> from xiangqi import STARTING_FEN
>>> data = write_xqf(Record(STARTING_FEN, ["h2e2", "h9g7"], {"title": "中炮", "result": "1-0"}))
>>> data[:3], len(data), data[16:21].hex()
(b'XQ\\n', 1048, '000a141e28')
>>> record = parse_xqf(data)
>>> record.fen == STARTING_FEN, record.moves, record.tags
(True, ['h2e2', 'h9g7'], {'title': '中炮', 'result': '1-0'})
>>> parse_xqf(data[:1044], "game.xqf")
Traceback (most recent call last):
...
puzzles.formats.FormatError: game.xqf, byte 1040: truncated move record: 4 of its 8 bytes
"""
from __future__ import annotations

from dataclasses import dataclass

from xiangqi import Board, Move
from xiangqi.fen import placement_fen
from xiangqi.notation import why_illegal

from . import FilePath, FormatError, Record, checked_fen, replay
from ._slots import codes_to_slots, slots_to_codes

HEADER_SIZE = 1024
WRITTEN_VERSION = 10
_FROM_BIAS, _TO_BIAS = 0x18, 0x20
_STRINGS = (("title", 80, 63), ("event", 208, 63), ("date", 272, 15), ("site", 288, 15),
            ("red", 304, 15), ("black", 320, 15), ("annotator", 464, 15), ("author", 480, 15))
_TYPES = ("全局", "开局", "中局", "残局")
_RESULT_READ = {0: "*", 1: "1-0", 2: "0-1", 3: "1/2-1/2", 4: "1/2-1/2"}
_RESULT_WRITE = {"*": 0, "1-0": 1, "0-1": 2, "1/2-1/2": 3}


@dataclass(frozen=True)
class _Node:
    offset: int
    source: int
    target: int
    has_next: bool
    has_variation: bool
    comment: bytes


def _point(byte: int) -> int:
    """The point (0..89, ``rank * 9 + file``) of an XQF coordinate byte ``x*10 + y``."""
    return (byte % 10) * 9 + byte // 10


def _byte(sq: int) -> int:
    return (sq % 9) * 10 + sq // 9


def _read_node(data: bytes, offset: int, path: FilePath | None) -> tuple[_Node, int]:
    left = len(data) - offset
    if left < 8:
        raise FormatError(f"truncated move record: {left} of its 8 bytes", path, offset=offset)
    source, target, flags = data[offset], data[offset + 1], data[offset + 2]
    length = int.from_bytes(data[offset + 4:offset + 8], "little", signed=True)
    if length < 0 or length > left - 8:
        raise FormatError(f"the move record's comment length {length} runs past the end of the "
                          f"file ({left - 8} bytes left)", path, offset=offset + 4)
    comment = data[offset + 8:offset + 8 + length]
    node = _Node(offset, source, target, bool(flags & 0xF0), bool(flags & 0x0F), comment)
    return node, offset + 8 + length


def _decode(raw: bytes, what: str, offset: int, path: FilePath | None) -> str:
    raw = raw.rstrip(b"\x00")
    try:
        return raw.decode("gb18030")
    except UnicodeDecodeError as error:
        if error.start >= len(raw) - 3 and error.end == len(raw):   # a character cut short
            try:
                return raw[:error.start].decode("gb18030")
            except UnicodeDecodeError:
                pass
        raise FormatError(f"the {what} is not GB18030 text (byte 0x{raw[error.start]:02x})",
                          path, offset=offset + error.start) from None


def _tags(data: bytes, path: FilePath | None) -> dict[str, str]:
    tags: dict[str, str] = {}
    for name, offset, capacity in _STRINGS:
        length = data[offset]
        if length > capacity:
            raise FormatError(f"the {name} string claims {length} bytes; its field holds "
                              f"{capacity}", path, offset=offset)
        value = _decode(data[offset + 1:offset + 1 + length], name, offset + 1, path).strip()
        if value:
            tags[name] = value
    if data[51] in _RESULT_READ:
        tags["result"] = _RESULT_READ[data[51]]
    if 1 <= data[64] < len(_TYPES):
        tags["type"] = _TYPES[data[64]]
    return tags


def parse_xqf(data: bytes, path: FilePath | None = None) -> Record:
    """The record of an XQF file (version 10 or lower): start position, main line, tags."""
    data = bytes(data)
    if data[:2] != b"XQ":
        raise FormatError(f"not an XQF file: it starts {data[:2]!r}, not b'XQ'", path, offset=0)
    if len(data) < 3:
        raise FormatError("truncated header: no version byte", path, offset=len(data))
    version = data[2]
    if version > 10:
        raise FormatError(f"encrypted XQF (version {version}) is not supported; only "
                          "versions 10 and lower (unencrypted) are read", path, offset=2)
    if len(data) < HEADER_SIZE:
        raise FormatError(f"truncated header: {len(data)} of its {HEADER_SIZE} bytes", path,
                          offset=len(data))
    points = [None if byte > 89 else _point(byte) for byte in data[16:48]]
    codes = slots_to_codes(
        points, lambda slot, message: FormatError(f"piece {slot} (byte 0x{data[16 + slot]:02x})"
                                                  f": {message}", path, offset=16 + slot))
    tags = _tags(data, path)

    # Walk the whole tree; keep the main line.
    main_line: list[_Node] = []
    offset = HEADER_SIZE
    if len(data) > HEADER_SIZE:
        root, offset = _read_node(data, offset, path)
        if root.comment:
            comment = _decode(root.comment, "comment", root.offset + 8, path).strip()
            if comment:
                tags["comment"] = comment.replace("\r\n", "\n")
        pending, on_main = int(root.has_next), True
        while pending:
            node, offset = _read_node(data, offset, path)
            pending += node.has_next + node.has_variation - 1
            if on_main:
                main_line.append(node)
                on_main = node.has_next
        if any(data[offset:]):
            raise FormatError(f"{len(data) - offset} bytes after the last move record of the "
                              "tree", path, offset=offset)

    moves: list[tuple[Move, _Node]] = []
    for node in main_line:
        source = (node.source - _FROM_BIAS) & 0xFF
        target = (node.target - _TO_BIAS) & 0xFF
        if source > 89 or target > 89:
            raise FormatError(f"move record with from byte 0x{node.source:02x} and to byte "
                              f"0x{node.target:02x}: not points of the board", path,
                              offset=node.offset)
        moves.append((Move(_point(source), _point(target)), node))

    if moves:
        mover = codes[moves[0][0].from_square]
        if not mover:
            raise FormatError(f"the first move {moves[0][0].iccs()} starts from an empty point",
                              path, offset=moves[0][1].offset)
        side = "b" if mover & 8 else "w"
    elif data[50] in (0, 1):
        side = "wb"[data[50]]
    else:
        raise FormatError(f"side to move byte is {data[50]}, not 0 (Red) or 1 (Black)", path,
                          offset=50)
    fen = checked_fen(f"{placement_fen(codes)} {side}", path, offset=16)

    board = Board(fen)
    played = []
    for ply, (move, node) in enumerate(moves, start=1):
        reason = why_illegal(board, move)
        if reason is not None:
            raise FormatError(f"illegal move {move.iccs()} (ply {ply}): {reason}", path,
                              offset=node.offset)
        board.push_unchecked(move)
        played.append(move.iccs())
    return Record(fen, played, tags, None)


def _order(sq: int, color: int) -> tuple[int, int]:
    return (sq % 9, sq // 9 if color == 0 else -(sq // 9))


def write_xqf(record: Record) -> bytes:
    """``record`` as a version-10 XQF file (see the module documentation for what is kept)."""
    moves = replay(record)
    board = Board(record.fen)
    header = bytearray(HEADER_SIZE)
    header[0:3] = b"XQ" + bytes([WRITTEN_VERSION])
    for slot, sq in enumerate(codes_to_slots(board.codes(), _order)):
        header[16 + slot] = 0xFF if sq is None else _byte(sq)
    header[50] = board.turn
    result = record.tags.get("result", "*")
    if result not in _RESULT_WRITE:
        raise FormatError(f"result {result!r} is not one of {', '.join(_RESULT_WRITE)}")
    header[51] = _RESULT_WRITE[result]
    if "type" in record.tags:
        if record.tags["type"] not in _TYPES:
            raise FormatError(f"game type {record.tags['type']!r} is not one of "
                              f"{', '.join(_TYPES)}")
        header[64] = _TYPES.index(record.tags["type"])
    for name, offset, capacity in _STRINGS:
        value = record.tags.get(name, "")
        try:
            raw = value.encode("gb18030")
        except UnicodeEncodeError:
            raise FormatError(f"the {name} {value!r} cannot be written in GB18030") from None
        if len(raw) > capacity:
            raise FormatError(f"the {name} {value!r} takes {len(raw)} bytes in GB18030; XQF "
                              f"holds {capacity}")
        header[offset] = len(raw)
        header[offset + 1:offset + 1 + len(raw)] = raw
    body = bytearray()
    comment = record.tags.get("comment", "").replace("\n", "\r\n").encode("gb18030")
    body += bytes([_FROM_BIAS, _TO_BIAS, 0x80 if moves else 0, 0])
    body += len(comment).to_bytes(4, "little") + comment
    for ply, move in enumerate(moves, start=1):
        body += bytes([(_byte(move.from_square) + _FROM_BIAS) & 0xFF,
                       (_byte(move.to_square) + _TO_BIAS) & 0xFF,
                       0x80 if ply < len(moves) else 0, 0])
        body += (0).to_bytes(4, "little")
    return bytes(header + body)


__all__ = ["parse_xqf", "write_xqf", "HEADER_SIZE"]
