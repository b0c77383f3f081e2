"""FEN lists: one position per line, or blocks of ``[TAG "value"]`` lines.

Two layouts are read, and may be mixed in one file:

* one FEN per line; blank lines and lines starting with ``#`` are skipped.  A line may end with
  EPD operations (``... w - - 0 1 id "p1"; c0 "mate in 3";``), kept as tags;
* blocks as in the 适情雅趣 collection (``shiqingyaqu551.fen``)::

      [FEN_INDEX "shiqingyaqu-551-001"]
      [EVENT "适情雅趣_李浭551局新版 第001局 气吞关右"]
      [FEN "2baka3/3P3N1/bN7/7nc/9/4C1P2/P5n1P/B3R3B/4Apr2/2RAK3c w - - 0 1"]

  Every tag is kept (``FEN_INDEX`` as ``index``, the others lower-cased); a block ends at a
  blank line, at a tag repeated in it, or at a plain FEN line, and must hold one ``FEN`` tag.

Every FEN is checked with :class:`xiangqi.Board`; a bad one raises :class:`FormatError` with
its line.  Positions only: a record's moves are refused when written, or written as a
``# solution:`` comment, or dropped (see :func:`write_fen_list`).

>>> records = parse_fen_list('''# two problems
... 3k5/9/9/9/9/9/9/9/4R4/4K4 w
... [FEN_INDEX "p-2"]
... [FEN "4k4/9/9/9/9/9/9/9/9/3K5 b - - 0 1"]
... ''')
>>> [(r.fen, r.tags, r.line) for r in records]  # doctest: +NORMALIZE_WHITESPACE
[('3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1', {}, 2),
 ('4k4/9/9/9/9/9/9/9/9/3K5 b - - 0 1', {'index': 'p-2'}, 3)]
>>> text = "3k5/9/9/9/9/9/9/9/9/4K4 w\\n4k4/9/9/9/9/9/9/9/9/X3K4 w"
>>> parse_fen_list(text, "list.fen")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
puzzles.formats.FormatError: list.fen, line 2: bad FEN '4k4/9/9/9/9/9/9/9/9/X3K4 w': unknown ...
"""
from __future__ import annotations

import re
from collections.abc import Iterable

from . import FilePath, FormatError, Record, checked_fen, replay

# One or more [NAME "value"] on a line; values may escape \" and \\.
_TAG = r'\[\s*([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"\s*\]'
_TAG_RE = re.compile(_TAG)
_TAG_LINE_RE = re.compile(rf"(?:\s*{_TAG})+\s*")
# The FEN fields before EPD operations (only looked for when the line holds a ';').
_EPD_RE = re.compile(r"(\S+(?:\s+[wbrWBR])?(?:\s+-){0,2}(?:\s+\d+){0,2})\s+(\S.*)")
_EPD_OP_RE = re.compile(r'\s*([A-Za-z][A-Za-z0-9_]*)\s*((?:"[^"]*"|[^;"])*?)\s*;')

_READ_NAMES = {"fen_index": "index"}
_WRITE_NAMES = {"index": "FEN_INDEX"}


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def parse_tag_line(text: str, path: FilePath | None = None,
                   line: int | None = None) -> list[tuple[str, str]]:
    """The ``(name, value)`` pairs of a line of ``[NAME "value"]`` tags, or FormatError."""
    if not _TAG_LINE_RE.fullmatch(text):
        raise FormatError(f"unknown tag syntax {text.strip()!r} "
                          '(expected [NAME "value"])', path, line)
    return [(name, _unescape(value)) for name, value in _TAG_RE.findall(text)]


def _epd_operations(text: str, path: FilePath | None, line: int) -> dict[str, str]:
    tags, position = {}, 0
    for match in _EPD_OP_RE.finditer(text):
        if match.start() != position:
            break
        value = match.group(2).strip()
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1]
        tags[match.group(1).lower()] = value
        position = match.end()
    if text[position:].strip():
        raise FormatError(f"bad EPD operation {text[position:].strip()!r} "
                          "(expected e.g. id \"name\";)", path, line)
    return tags


def parse_fen_list(text: str, path: FilePath | None = None) -> list[Record]:
    """Every record of a FEN list (``path`` only names the file in errors)."""
    records: list[Record] = []
    pending: dict[str, str] = {}
    pending_fen: str | None = None
    pending_line = 0

    def close() -> None:
        nonlocal pending, pending_fen
        if pending or pending_fen is not None:
            if pending_fen is None:
                raise FormatError("tag block without a [FEN \"...\"] tag", path, pending_line)
            records.append(Record(pending_fen, [], pending, pending_line))
        pending, pending_fen = {}, None

    for number, raw in enumerate(text.lstrip("\ufeff").splitlines(), start=1):
        stripped = raw.strip()
        if not stripped:
            close()
            continue
        if stripped.startswith("#"):
            continue
        if stripped.startswith("["):
            for name, value in parse_tag_line(stripped, path, number):
                key = _READ_NAMES.get(name.lower(), name.lower())
                if key in pending or (key == "fen" and pending_fen is not None):
                    close()
                if not pending and pending_fen is None:
                    pending_line = number
                if key == "fen":
                    pending_fen = checked_fen(value.strip(), path, number)
                else:
                    pending[key] = value
            continue
        close()
        tags: dict[str, str] = {}
        fen = stripped
        if ";" in stripped:
            match = _EPD_RE.fullmatch(stripped)
            if match:
                fen = match.group(1)
                tags = _epd_operations(match.group(2), path, number)
        records.append(Record(checked_fen(fen, path, number), [], tags, number))
    close()
    return records


SOLUTIONS = ("refuse", "comment", "drop")


def write_fen_list(records: Iterable[Record], solutions: str = "refuse") -> str:
    """The records as a FEN list: one FEN per line if none has tags, else tag blocks.

    A FEN list holds positions; ``solutions`` says what becomes of a record's moves:
    "refuse" (:class:`FormatError`), "comment" (each move checked, then written as a
    ``# solution: h2e2 h9g7`` line just before its position, which readers skip) or "drop".

    >>> print(write_fen_list([Record("4k4/9/9/9/9/9/9/9/9/3K5 b", [], {"index": "7"})]), end="")
    [FEN_INDEX "7"]
    [FEN "4k4/9/9/9/9/9/9/9/9/3K5 b - - 0 1"]
    >>> print(write_fen_list([Record("3k5/9/9/9/9/9/9/9/9/R3K4 w", ["a0d0"])], "comment"), end="")
    # solution: a0d0
    3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1
    """
    if solutions not in SOLUTIONS:
        raise ValueError(f"solutions must be one of {SOLUTIONS}, not {solutions!r}")
    records = list(records)
    fens, comments = [], []
    for number, record in enumerate(records, start=1):
        if record.moves and solutions == "refuse":
            raise FormatError(f"record {number} has {len(record.moves)} moves; a FEN list "
                              "holds positions only")
        fens.append(checked_fen(record.fen))
        if record.moves and solutions == "comment":
            moves = replay(record, f"record {number}")
            comments.append(f"# solution: {' '.join(m.iccs() for m in moves)}\n")
        else:
            comments.append("")
    if not any(record.tags for record in records):
        return "".join(f"{comment}{fen}\n" for comment, fen in zip(comments, fens))
    blocks = []
    for number, (record, fen) in enumerate(zip(records, fens), start=1):
        lines = [comments[number - 1]]
        for key, value in record.tags.items():
            name = _WRITE_NAMES.get(key, key.upper())
            if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name) or name == "FEN":
                raise FormatError(f"record {number}: tag name {key!r} cannot be written")
            if "\n" in value or "\r" in value:
                raise FormatError(f"record {number}: tag {key!r} holds a line break")
            lines.append(f'[{name} "{_escape(value)}"]\n')
        lines.append(f'[FEN "{fen}"]\n')
        blocks.append("".join(lines))
    return "\n".join(blocks)


__all__ = ["parse_fen_list", "write_fen_list", "parse_tag_line"]
