"""Xiangqi PGN, as written by XQStudio, 象棋桥 and the WXF.

Reading:

* tag pairs ``[Name "value"]`` (``\\"`` and ``\\\\`` escaped); a ``[`` line that is not a tag
  pair is an error.  ``[Game "..."]``, when present, must name Chinese chess (``Chinese
  Chess``, ``Xiangqi``, ``中国象棋``); ``FEN`` gives a set-up position (``SetUp`` is ignored);
  ``[Format "WXF"]`` / ``[Format "ICCS"]`` / ``[Format "Chinese"]`` fix the notation, without it
  each move's notation is detected (Chinese, WXF, ICCS or 一字三码).  Other tags go to
  ``Record.tags`` lower-cased.
* movetext: move numbers (``1.``, ``1...``, also glued to a move, ``1.炮二平五``), comments
  ``{...}`` and ``;`` to the end of the line, ``%`` escape lines, NAGs (``$1``), suffixes
  ``!``/``?``, variations ``(...)`` (nested; skipped, the main line is kept), and a result
  ``1-0``, ``0-1``, ``1/2-1/2`` or ``*`` that ends the game.  A comment before the first move
  is kept as the ``comment`` tag; the others are dropped.
* several games per file: a game ends at its result, or where the next tag section starts.
  After a result the next game starts at a tag section or at a move number (``1.``); any
  other text up to the next tag section is a trailer and is skipped, such as the footer
  that 象棋百科全书 (xqbase.com) puts under its games (a line of ``=``, then advertising).
* line ends: ``\\n``, ``\\r\\n`` (as Windows programs write) or ``\\r``.

Every move is read in the position it is played in (:func:`xiangqi.notation.parse_move`);
Chinese moves may use traditional characters and full-width digits.  A move that names no
piece, is ambiguous or illegal raises :class:`FormatError` naming the line and the move; a
``Result`` tag that contradicts the result ending the movetext is an error too.

Writing (:func:`write_pgn`): ``[Game "Chinese Chess"]`` first, then Event, Site, Date, Round,
Red, Black, Result, the other tags, ``FEN`` for a set-up position and ``Format`` for WXF and
ICCS (written ``H2-E2``); one move number per line; the ``comment`` tag as ``{...}`` before the
first move; the result ends the game.

>>> [record] = parse_pgn('''[Game "Chinese Chess"]
... [Event "例"]
... 1. 炮二平五 {当头炮} 馬８進７ (1... 炮8平5 2. 马二进三) 2. 傌二進三 *''')
>>> record.moves, record.tags
(['h2e2', 'h9g7', 'h0g2'], {'event': '例', 'result': '*'})
>>> print(write_pgn([record], "wxf"), end="")
[Game "Chinese Chess"]
[Event "例"]
[Result "*"]
[Format "WXF"]
<BLANKLINE>
1. C2.5 H8+7
2. H2+3 *
>>> [game] = parse_pgn('1. h2e2 h9g7 *\\r\\n=====\\r\\n欢迎访问《象棋百科全书》网站\\r\\n')
>>> game.moves, game.tags
(['h2e2', 'h9g7'], {'result': '*'})
>>> parse_pgn('1. 炮二平五 马8进7 2. 马二进三 马9进7', "problems.pgn")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
puzzles.formats.FormatError: problems.pgn, line 1: unknown move '马9进7' at 2...: no Black horse ...
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from xiangqi import RED, STARTING_FEN, Board, IllegalMoveError, InvalidMoveError
from xiangqi.notation import AMBIGUOUS, ILLEGAL, NotationError, parse_move, write_line

from . import RESULTS, FilePath, FormatError, Record, checked_fen, replay

NOTATION_TAGS = {"wxf": "WXF", "iccs": "ICCS"}
_FORMAT_NAMES = {"wxf": "wxf", "iccs": "iccs", "chinese": "chinese", "中文": "chinese",
                 "cn": "chinese"}
_GAME_NAMES = {"chinese chess", "xiangqi", "中国象棋", "中國象棋", "象棋"}
_CONSUMED = {"game", "fen", "format", "setup"}
# Tags written first, in this order (after Game), and the spelling of the well-known ones.
_FIRST = ("event", "site", "date", "round", "red", "black", "result")
_PGN_NAMES = {
    "event": "Event", "site": "Site", "date": "Date", "round": "Round", "red": "Red",
    "black": "Black", "result": "Result", "title": "Title", "opening": "Opening",
    "variation": "Variation", "ecco": "ECCO", "author": "Author", "annotator": "Annotator",
    "redteam": "RedTeam", "blackteam": "BlackTeam", "redelo": "RedElo",
    "blackelo": "BlackElo", "timecontrol": "TimeControl", "termination": "Termination",
    "plycount": "PlyCount", "index": "Index", "type": "Type",
}

_TAG_RE = re.compile(r'\[[ \t]*([A-Za-z][A-Za-z0-9_]*)[ \t]+"((?:[^"\\\n]|\\.)*)"[ \t]*\]')
_WORD_RE = re.compile(r'[^\s{}\[\];()]+')
_SPACE_RE = re.compile(r"\s+")
_NUMBER_RE = re.compile(r"\d+\.+")
_GLUED_NUMBER_RE = re.compile(r"\d+\.+(?=[^\d.+\-=])")
_SUFFIX_RE = re.compile(r"[!?]+$")


@dataclass
class _Game:
    line: int
    tags: list[tuple[str, str, int]] = field(default_factory=list)   # name, value, line
    moves: list[tuple[str, int]] = field(default_factory=list)       # text, line
    comment: str | None = None
    result: tuple[str, int] | None = None

    @property
    def has_movetext(self) -> bool:
        return bool(self.moves) or self.result is not None


def _lines_of(text: str) -> list[int]:
    """Offsets where the lines of ``text`` start."""
    return [0] + [m.end() for m in re.finditer(r"\n", text)]


def _events(text: str,
            path: FilePath | None) -> Iterator[tuple[str, str | tuple[str, str] | None, int]]:
    """(kind, value, line) tokens of a PGN text."""
    starts = _lines_of(text)
    line = 1

    def line_at(pos: int) -> int:
        nonlocal line
        while line < len(starts) and starts[line] <= pos:
            line += 1
        return line

    pos, end = 0, len(text)
    while pos < end:
        space = _SPACE_RE.match(text, pos)
        if space:
            pos = space.end()
            continue
        char, number = text[pos], line_at(pos)
        if char == "%" and (pos == 0 or text[pos - 1] == "\n"):
            stop = text.find("\n", pos)
            pos = end if stop < 0 else stop
        elif char == "[":
            match = _TAG_RE.match(text, pos)
            if not match:
                stop = text.find("\n", pos)
                rest = text[pos:end if stop < 0 else stop].strip()
                raise FormatError(f"unknown tag syntax {rest!r} (expected [Name \"value\"])",
                                  path, number)
            yield "tag", (match.group(1), re.sub(r"\\(.)", r"\1", match.group(2))), number
            pos = match.end()
        elif char == "{":
            stop = text.find("}", pos + 1)
            if stop < 0:
                raise FormatError("comment '{' is never closed", path, number)
            yield "comment", text[pos + 1:stop].strip(), number
            pos = stop + 1
        elif char == ";":
            stop = text.find("\n", pos)
            stop = end if stop < 0 else stop
            yield "comment", text[pos + 1:stop].strip(), number
            pos = stop
        elif char in "()":
            yield char, None, number
            pos += 1
        elif char in "}]":
            raise FormatError(f"unexpected {char!r}", path, number)
        else:
            match = _WORD_RE.match(text, pos)
            assert match is not None            # every other character starts a word
            yield "word", match.group(), number
            pos = match.end()


def _games(text: str, path: FilePath | None) -> list[_Game]:
    games: list[_Game] = []
    game: _Game | None = None
    finished = False
    trailing = False                            # in text after a result: skipped
    opened: list[int] = []                      # lines of the open variations

    def start(line: int) -> _Game:
        nonlocal game, finished
        game, finished = _Game(line), False
        games.append(game)
        return game

    for kind, value, line in _events(text, path):
        if kind == "tag":
            trailing = False
            if opened:
                raise FormatError("tag inside a variation (unclosed '(' on line "
                                  f"{opened[-1]})", path, line)
            if game is None or finished or game.has_movetext:
                game = start(line)
            assert isinstance(value, tuple), "a tag token holds (name, value)"
            game.tags.append((value[0], value[1], line))
        elif trailing:
            continue
        elif kind == "(":
            if game is None or finished or not game.moves:
                raise FormatError("variation '(' before any move", path, line)
            opened.append(line)
        elif kind == ")":
            if not opened:
                raise FormatError("')' without a matching '('", path, line)
            opened.pop()
        elif opened:
            continue                            # inside a variation: skipped
        elif kind == "comment":
            if game is not None and not finished and not game.moves and game.comment is None:
                assert isinstance(value, str), "a comment token holds its text"
                game.comment = value
        else:
            assert isinstance(value, str), "a word token holds its text"
            word = value
            if finished:
                if not _NUMBER_RE.match(word):      # not "1." nor "1.炮二平五": a trailer
                    trailing = True
                    continue
                game = start(line)
            if _NUMBER_RE.fullmatch(word) or re.fullmatch(r"\$\d+", word):
                continue
            if game is None:
                game = start(line)
            if word in RESULTS:
                game.result = (word, line)
                finished = True
                continue
            glued = _GLUED_NUMBER_RE.match(word)
            if glued:
                word = word[glued.end():]
            word = _SUFFIX_RE.sub("", word) or word
            game.moves.append((word, line))
    if opened:
        raise FormatError("variation '(' is never closed", path, opened[-1])
    return [g for g in games if g.tags or g.has_movetext]


def _strip_subject(detail: str, text: str) -> str:
    for prefix in (f"{text!r} is not legal: ", f"{text!r}: ", f"{text!r} "):
        if detail.startswith(prefix):
            return detail[len(prefix):]
    return detail


def _record(game: _Game, path: FilePath | None) -> Record:
    tags: dict[str, str] = {}
    fen, notation = STARTING_FEN, None
    tag_result: tuple[str, int] | None = None
    for name, value, line in game.tags:
        key = name.lower()
        if key == "game":
            if value.strip().lower() not in _GAME_NAMES:
                raise FormatError(f"not a Chinese chess game: [Game {value!r}]", path, line)
        elif key == "fen":
            fen = checked_fen(value.strip(), path, line)
        elif key == "format":
            notation = _FORMAT_NAMES.get(value.strip().lower())
            if notation is None:
                raise FormatError(f"unknown move format {value!r} (expected WXF, ICCS or "
                                  "Chinese)", path, line)
        elif key == "setup":
            continue
        else:
            tags[key] = value
            if key == "result":
                tag_result = (value.strip(), line)
    board = Board(fen)
    moves = []
    for text, line in game.moves:
        try:
            move = parse_move(board, text, notation)
        except NotationError as error:
            word = {AMBIGUOUS: "ambiguous", ILLEGAL: "illegal"}.get(error.kind, "unknown")
            number = f"{board.fullmove_number}{'.' if board.turn == RED else '...'}"
            raise FormatError(f"{word} move {text!r} at {number}: "
                              f"{_strip_subject(str(error), text)}", path, line) from None
        except (IllegalMoveError, InvalidMoveError) as error:
            raise FormatError(f"illegal move {text!r}: {error}", path, line) from None
        board.push_unchecked(move)
        moves.append(move.iccs())
    if game.result is not None:
        if tag_result is not None and tag_result[0] != game.result[0]:
            raise FormatError(f"the game ends {game.result[0]} but its Result tag (line "
                              f"{tag_result[1]}) says {tag_result[0]!r}", path,
                              game.result[1])
        tags.setdefault("result", game.result[0])
    if game.comment and "comment" not in tags:
        tags["comment"] = game.comment
    return Record(fen, moves, tags, game.line)


def parse_pgn(text: str, path: FilePath | None = None) -> list[Record]:
    """Every game of a PGN text (``path`` only names the file in errors)."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    return [_record(game, path) for game in _games(text, path)]


def _pgn_name(key: str, number: int) -> str:
    name = _PGN_NAMES.get(key, key[:1].upper() + key[1:])
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name) or key.lower() in _CONSUMED:
        raise FormatError(f"record {number}: tag name {key!r} cannot be written in PGN")
    return name


def _tag_line(name: str, value: str, number: int) -> str:
    if "\n" in value or "\r" in value:
        raise FormatError(f"record {number}: tag {name!r} holds a line break")
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{escaped}"]'


def write_pgn(records: Iterable[Record], notation: str = "chinese") -> str:
    """The records as PGN games, moves in ``notation``: ``chinese``, ``wxf`` or ``iccs``."""
    if notation not in ("chinese", "wxf", "iccs"):
        raise ValueError(f"unknown notation {notation!r} (choose chinese, wxf or iccs)")
    games = []
    for number, record in enumerate(records, start=1):
        moves = replay(record, f"record {number}")
        board = Board(record.fen)
        result = record.tags.get("result", "*")
        if result not in RESULTS:
            raise FormatError(f"record {number}: result {result!r} is not one of "
                              f"{', '.join(RESULTS)}")
        lines = ['[Game "Chinese Chess"]']
        keys = [k for k in _FIRST if k in record.tags or k == "result"]
        keys += [k for k in record.tags if k not in _FIRST and k != "comment"]
        for key in keys:
            value = result if key == "result" else record.tags[key]
            lines.append(_tag_line(_pgn_name(key, number), value, number))
        if board.fen() != STARTING_FEN:
            lines.append(_tag_line("FEN", board.fen(), number))
        if notation in NOTATION_TAGS:
            lines.append(_tag_line("Format", NOTATION_TAGS[notation], number))
        lines.append("")
        comment = record.tags.get("comment")
        if comment:
            if "}" in comment:
                raise FormatError(f"record {number}: the comment holds '}}'")
            lines.append("{" + comment + "}")
        texts = write_line(board, moves, notation)
        if notation == "iccs":
            texts = [f"{t[:2].upper()}-{t[2:].upper()}" for t in texts]
        movetext, pair = [], []
        fullmove, red = board.fullmove_number, board.turn == RED
        if not red and texts:
            pair = [f"{fullmove}..."]
        for text in texts:
            if red:
                pair = [f"{fullmove}.", text]
            else:
                pair.append(text)
                movetext.append(" ".join(pair))
                pair = []
                fullmove += 1
            red = not red
        if pair:
            movetext.append(" ".join(pair))
        if movetext:
            movetext[-1] += f" {result}"
        else:
            movetext.append(result)
        lines.extend(movetext)
        games.append("\n".join(lines) + "\n")
    return "\n".join(games)


__all__ = ["parse_pgn", "write_pgn"]
