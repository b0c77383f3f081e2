"""Import and export of problem and game files for the catalogue.

Every format reads into, and writes from, a list of :class:`Record` objects: a start position
(FEN), the main line as ICCS moves, and the tags (title, event, result, ...).  Every reader
checks what it reads -- each FEN with :class:`xiangqi.Board`, each move against the position it
is played in -- and raises :class:`FormatError`, naming the file and the line (text formats) or
the byte offset (XQF), for the first bad record; nothing is half-read silently.

=========  ====================================  =============================================
format     suffixes                              module
=========  ====================================  =============================================
fen        ``.fen`` ``.epd`` ``.txt``            :mod:`puzzles.formats.fenlist`
pgn        ``.pgn``                              :mod:`puzzles.formats.pgn`
dhtmlxq    ``.dhtml`` ``.dhtmlxq`` (``.txt``)    :mod:`puzzles.formats.dhtmlxq`
xqf        ``.xqf``                              :mod:`puzzles.formats.xqf`
=========  ====================================  =============================================

A ``.txt`` file is read as DhtmlXQ when it holds a ``[DhtmlXQ`` tag, else as a FEN list, and
is written as a FEN list.

Tags use one lower-case vocabulary across formats: ``title``, ``event``, ``site``, ``date``,
``round``, ``red``, ``black``, ``result`` (``1-0``, ``0-1``, ``1/2-1/2`` or ``*``),
``opening``, ``author``, ``annotator``, ``comment`` (the comment before the first move),
``index`` (``FEN_INDEX`` of the block FEN lists), ``type`` (XQF game type); any other tag
keeps its name, lower-cased.  Move comments and variations are not kept.

>>> import os, tempfile
>>> record = Record(STARTING_FEN, ["h2e2", "h9g7"], {"event": "demo", "result": "*"})
>>> folder = tempfile.mkdtemp()
>>> write(os.path.join(folder, "demo.pgn"), [record])
>>> read(os.path.join(folder, "demo.pgn")) == [record]
True
>>> read(os.path.join(folder, "missing.abc"))  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
puzzles.formats.FormatError: ...missing.abc: unknown file type '.abc' (known: .fen, .epd, ...)
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from xiangqi import STARTING_FEN, Board, FenError, IllegalMoveError, InvalidMoveError, Move
from xiangqi.output import UnwritableError, write_atomically

# A file's path, as open() takes it.
FilePath = str | os.PathLike[str]


class FormatError(ValueError):
    """A file (or text) that cannot be read as the format it claims, or a record that cannot
    be written in a format.

    ``path`` is the file (None for text parsed directly), ``line`` the 1-based line of a text
    format, ``offset`` a 0-based offset: the byte offset in an XQF file, or the offset of a
    bad digit inside a DhtmlXQ field (then the message names the field).  ``message`` is the
    description without the location.

    >>> str(FormatError("unknown move '马9进7'", "problems.pgn", line=12))
    "problems.pgn, line 12: unknown move '马9进7'"
    >>> str(FormatError("truncated move record", "game.xqf", offset=1032))
    'game.xqf, byte 1032: truncated move record'
    """

    def __init__(self, message: str, path: FilePath | None = None,
                 line: int | None = None, offset: int | None = None) -> None:
        self.message = message
        self.path = None if path is None else os.fspath(path)
        self.line = line
        self.offset = offset
        super().__init__(self._compose())

    def _compose(self) -> str:
        where = []
        if self.path is not None:
            where.append(str(self.path))
        if self.line is not None:
            where.append(f"line {self.line}")
        elif self.offset is not None:
            where.append(f"byte {self.offset}")
        return f"{', '.join(where)}: {self.message}" if where else self.message

    def __str__(self) -> str:
        return self._compose()

    def __reduce__(self) -> tuple[type[FormatError],
                                  tuple[str, str | None, int | None, int | None]]:
        return (type(self), (self.message, self.path, self.line, self.offset))


@dataclass
class Record:
    """One problem or game: the start position, the main line and the tags.

    ``fen`` is the full FEN of the start position, as :meth:`xiangqi.Board.fen` writes it;
    ``moves`` the main line in lowercase ICCS (may be empty); ``tags`` the header (see the
    module documentation for the names); ``line`` where the record starts in its file (None
    if unknown; not compared by ``==``).
    """
    fen: str = STARTING_FEN
    moves: list[str] = field(default_factory=list)
    tags: dict[str, str] = field(default_factory=dict)
    line: int | None = field(default=None, compare=False)

    def board(self) -> Board:
        """The start position."""
        return Board(self.fen)

    def final_board(self) -> Board:
        """The position after the main line (raises if a move is not legal)."""
        board = Board(self.fen)
        for text in self.moves:
            board.push_iccs(text)
        return board


@dataclass(frozen=True)
class Format:
    """A file format: its name, the suffixes it is read from and written to, binary or text."""
    name: str
    suffixes: tuple[str, ...]
    binary: bool
    description: str


FORMATS: tuple[Format, ...] = (
    Format("fen", (".fen", ".epd", ".txt"), False,
           "one FEN per line, or [FEN_INDEX]/[EVENT]/[FEN] blocks"),
    Format("pgn", (".pgn",), False, "Xiangqi PGN (Chinese, WXF or ICCS moves)"),
    Format("dhtmlxq", (".dhtml", ".dhtmlxq"), False, "DhtmlXQ (东萍象棋) UBB blocks"),
    Format("xqf", (".xqf",), True, "XQF (象棋演播室), version 10 and lower"),
)

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")


def _known_suffixes() -> str:
    return ", ".join(s for f in FORMATS for s in f.suffixes)


def format_of(path: FilePath, text: str | None = None) -> Format:
    """The format a file is read as, from its suffix (and, for ``.txt``, its ``text``)."""
    suffix = os.path.splitext(os.fspath(path))[1].lower()
    if suffix == ".txt":
        if text is not None and "[DhtmlXQ" in text:
            return FORMATS[2]
        return FORMATS[0]
    for fmt in FORMATS:
        if suffix in fmt.suffixes:
            return fmt
    raise FormatError(f"unknown file type {suffix or '(no suffix)'!r} "
                      f"(known: {_known_suffixes()})", path)


def decode_text(data: bytes, path: FilePath | None = None) -> str:
    """Text of a file: UTF-8 (a byte-order mark is dropped), else GB18030, as Chinese Xiangqi
    software writes; raises :class:`FormatError` with the byte offset if neither fits."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as utf8_error:
        try:
            return data.decode("gb18030")
        except UnicodeDecodeError:
            raise FormatError("neither UTF-8 nor GB18030 text (first bad byte "
                              f"0x{data[utf8_error.start]:02x})", path,
                              offset=utf8_error.start) from None


def read(path: FilePath) -> list[Record]:
    """Every record of the file at ``path``, in the format its suffix names."""
    from . import dhtmlxq, fenlist, pgn, xqf

    fmt = format_of(path)                      # unknown suffix: fail before reading
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise FormatError(f"cannot read: {error.strerror or error}", path) from error
    if fmt.name == "xqf":
        return [xqf.parse_xqf(data, path)]
    text = decode_text(data, path)
    fmt = format_of(path, text)
    if fmt.name == "pgn":
        return pgn.parse_pgn(text, path)
    if fmt.name == "dhtmlxq":
        return dhtmlxq.parse_dhtmlxq(text, path)
    return fenlist.parse_fen_list(text, path)


def write(path: FilePath, records: Iterable[Record], **options: str) -> None:
    """Write ``records`` to ``path`` in the format its suffix names (``.txt``: a FEN list).

    The file is written to a temporary file in the same directory, which replaces ``path``
    only once it is complete; a file that cannot be written raises :class:`FormatError`
    naming ``path`` (and the missing directory, if that is why).  ``options`` go to the
    writer (``notation=`` for PGN, ``solutions=`` for a FEN list).
    """
    from . import dhtmlxq, fenlist, pgn, xqf

    records = list(records)
    fmt = format_of(path)
    try:
        if fmt.name == "xqf":
            if len(records) != 1:
                raise FormatError(f"an XQF file holds one record, not {len(records)}")
            data = xqf.write_xqf(records[0])
        else:
            writer: Callable[..., str] = {
                "fen": fenlist.write_fen_list, "pgn": pgn.write_pgn,
                "dhtmlxq": dhtmlxq.write_dhtmlxq_list,
            }[fmt.name]
            data = writer(records, **options).encode("utf-8")
    except FormatError as error:
        if error.path is None:
            raise FormatError(error.message, path, error.line, error.offset) from None
        raise
    try:
        write_atomically(path, data)
    except UnwritableError as error:
        raise FormatError(f"cannot write: {error.reason}", path) from None
    except OSError as error:
        raise FormatError(f"cannot write: {error.strerror or error}", path) from None


# -- shared helpers for the format modules ----------------------------------------------------

def checked_fen(fen: str, path: FilePath | None = None, line: int | None = None,
                offset: int | None = None) -> str:
    """``fen`` in canonical form, or :class:`FormatError` at ``line``/``offset``."""
    try:
        return Board(fen).fen()
    except FenError as error:
        raise FormatError(f"bad FEN {fen!r}: {error}", path, line, offset) from None


def replay(record: Record, what: str = "record") -> list[Move]:
    """The moves of ``record`` checked against its positions (for the writers): raises
    :class:`FormatError` naming the first bad one."""
    try:
        board = Board(record.fen)
    except FenError as error:
        raise FormatError(f"{what} has a bad FEN {record.fen!r}: {error}") from None
    moves = []
    for ply, text in enumerate(record.moves, start=1):
        try:
            move = board.parse_iccs(text)
        except (IllegalMoveError, InvalidMoveError) as error:
            raise FormatError(f"{what} move {ply} {text!r}: {error}") from None
        board.push_unchecked(move)
        moves.append(move)
    return moves


__all__ = ["FormatError", "Record", "Format", "FORMATS", "RESULTS", "read", "write",
           "format_of", "decode_text", "STARTING_FEN"]
