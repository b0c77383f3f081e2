"""``xqstudio engine``: the studio's mate solver and tablebases behind the engine protocols
that Xiangqi GUIs speak.

Two dialects, chosen by ``--protocol`` or by the GUI's first command:

* UCI with ``UCI_Variant xiangqi``, as Fairy-Stockfish speaks it: moves with files ``a``..``i``
  and ranks ``1``..``10`` counted from Red's side (Red's left rook starts on ``a1``; the
  studio's own ICCS names that point ``a0``).  Scores ``cp N`` / ``mate N``.
* UCCI (中国象棋通用引擎协议): ICCS moves, ranks ``0``..``9``; ``setoption NAME VALUE``;
  ``go time`` in seconds unless ``setoption usemillisec true``; scores are plain numbers, a
  mate ``±(10000 - plies)`` as ElephantEye writes it; ``nobestmove`` and ``bye``.

What it plays.  It is a solver and tablebase engine, not a playing engine:

* ``go mate N``: the df-pn solver (``solver.search.Solver``, the tables at its leaves)
  proves a mate within N moves: ``info ... score mate N pv ...`` and ``bestmove``.
* ``go`` in a position a built table covers: the table's best move at once (forbidden
  perpetual checks last, as ``Tablebase.ranked_moves`` orders them), ``score mate N`` (N < 0
  when the side to move is mated) or ``cp 0`` for a draw, a cursed win or a blessed loss
  (the 60-move limit draws those; an ``info string`` says so), and the table's main line.
* ``go`` elsewhere: the solver looks for a forced mate within the time (``movetime``, the
  clock, ``depth`` as a bound of ``depth/2`` moves, ``infinite`` until ``stop``).  Without a
  table or a proof the engine says so in an ``info string``, sends no score (it has no
  evaluation to give) and plays a legal move picked by a one-move material rule (win the
  most material, lose the least, never allow a mate in one).

The search runs in a thread and the commands are read in another, so the GUI is answered
during any search: ``stop`` ends it at once (the solver's progress hook returns True) and the
answer is what is known then (a mate proven so far, with its line); ``isready`` is answered
by ``readyok`` at once; ``quit`` stops the search and ends the engine without waiting for the
search's work (issue 36: ``setoption`` used to wait for a ``go`` without limits, and the
command loop, which also read the input, never saw ``quit``).  ``setoption`` of an option
the running search uses (the hash size, the table directory) is refused with an ``info
string`` and the search goes on; the other options count from the next ``go``.  A ``go``
sent while a finite search runs waits for that search's ``bestmove`` (every ``go`` gets its
own, in order), and so do the commands after it, but ``isready``, ``stop`` and ``quit`` are
carried out at once.  At the end of the input the search is stopped and the engine exits.

A damaged or missing table never ends a search: an ``info string`` names the table and how
to rebuild it, and the solver answers without the tables.  Every malformed command is
answered by ``info string error: ...`` naming what is wrong; the engine never exits on bad
input.
"""
from __future__ import annotations

import argparse
import math
import queue
import re
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from solver import MAX_THREADS
from solver.search import (
    DEFAULT_MAX_MOVES,
    MAX_MOVES_BOUND,
    TABLE_BITS_RANGE,
    Limits,
    Solver,
    SolverError,
    SolveResult,
    table_bytes,
    table_memory_problem,
)
from solver.types import Mode, Verdict
from tablebases import MissingTableError, TablebaseError, open_tablebase
from tablebases.build import available_memory
from tablebases.format import CorruptTableError
from tablebases.material import Material
from tablebases.probe import Tablebase, describe
from xiangqi import (
    ADVISOR,
    CANNON,
    ELEPHANT,
    HORSE,
    KING,
    PAWN,
    ROOK,
    STARTING_FEN,
    Board,
    FenError,
    Move,
    square,
)
from xiangqi.notation import why_illegal
from xiangqi.quantities import memory_text

from ..settings import INTERACTIVE_PROGRESS_NODES, Settings

PROTOCOLS = ("uci", "ucci")
ENGINE_NAME = "XQ Studio"
ENGINE_AUTHOR = "the XQ Studio authors"
# The solver's transposition table: 2**20 entries of 32 bytes.  ``problem solve`` uses
# 2**DEFAULT_TABLE_BITS, but a fresh table's huge pages cost time when first touched (0.5 s
# to 3 s for 128 MB on a busy machine, before the first ``bestmove``), and a GUI can ask for
# more.
DEFAULT_HASH_MB = 32
MAX_HASH_MB = 65536


def hash_table_bits(megabytes: int) -> int:
    """The table bits of a Hash option of ``megabytes``: the most entries it holds."""
    entries = megabytes * 2**20 // table_bytes(0)          # table_bytes(0): one entry
    low, high = TABLE_BITS_RANGE
    return max(low, min(high, entries.bit_length() - 1))


def largest_hash_mb(megabytes: int) -> int:
    """The largest Hash up to ``megabytes`` whose table the machine can give: the size of
    the largest table that fits, at least 1."""
    bits = hash_table_bits(megabytes)
    while bits > TABLE_BITS_RANGE[0] and table_memory_problem(bits) is not None:
        bits -= 1
    return max(1, table_bytes(bits) // 2**20)
UCCI_MATE = 10000               # a UCCI mate score: UCCI_MATE - plies (ElephantEye's scale)
INFO_EVERY = 1.0                # seconds between ``info nodes ...`` lines of a long search
DEFAULT_MOVES_TO_GO = 30        # a clock without movestogo is shared over this many moves
MIN_BUDGET = 0.05               # seconds: the least a timed search gets
OVERHEAD = 0.05                 # seconds kept back from movetime for the reply itself
PV_PLIES = 120                  # the longest table line sent as a pv
MATE_MODES = (Mode.ANY, Mode.CHECKS)
NODES_PER_SECOND = 100_000      # about the solver's speed, to size a timed search's table
QUIT_WAIT = 0.1                 # seconds ``quit`` and the end of input give a stopped search
POLL = 0.01                     # seconds between looks at a search that commands wait for
URGENT = ("isready", "stop", "quit")   # carried out at once, even with commands held back
# The options a running search uses: they cannot change until it is over.
SEARCH_OPTIONS = frozenset({"hash", "hashsize", "tablebasepath", "egtbpaths", "tables",
                            "threads"})

# For the fallback move only (the material rule): rook 9, cannon and horse 4, ...
_MATERIAL = {KING: 0, ADVISOR: 2, ELEPHANT: 2, HORSE: 4, ROOK: 9, CANNON: 4.5, PAWN: 1}

_UCI_MOVE = re.compile(r"([a-i])(10|[1-9])([a-i])(10|[1-9])")
_UCCI_MOVE = re.compile(r"([a-i])([0-9])([a-i])([0-9])")


class CommandError(ValueError):
    """A command the engine cannot carry out; the message says what is wrong."""


def table_trouble(error: TablebaseError) -> str:
    """What an ``info string`` says of a table error: the table, and how to mend it."""
    if isinstance(error, CorruptTableError):
        return f"{error.user_text()}; the solver answers without the tables"
    return f"no table answer: {error.user_text()}"


def engine_version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("xqstudio")
    except PackageNotFoundError:         # run from a source tree that is not installed
        return "dev"


# -- the two dialects -----------------------------------------------------------------------

@dataclass(frozen=True)
class Dialect:
    name: str            # "uci" or "ucci"

    @property
    def uci(self) -> bool:
        return self.name == "uci"

    def square_name(self, point: int) -> str:
        rank = point // 9
        return "abcdefghi"[point % 9] + str(rank + 1 if self.uci else rank)

    def write(self, move: Move) -> str:
        return self.square_name(move.from_square) + self.square_name(move.to_square)

    def read(self, board: Board, text: str) -> Move:
        """The legal move ``text`` at ``board``, or :class:`CommandError` saying why not."""
        pattern = _UCI_MOVE if self.uci else _UCCI_MOVE
        match = pattern.fullmatch(text.lower())
        if match is None:
            if self.uci and _UCCI_MOVE.fullmatch(text.lower()) and "0" in text[1::2]:
                raise CommandError(f"{text!r} is not a UCI move: UCI for xiangqi counts ranks "
                                   "1..10 from Red's side (a1 is Red's left corner); rank 0 "
                                   "is UCCI's")
            example = "h3e3" if self.uci else "h2e2"
            raise CommandError(f"{text!r} is not a {self.name.upper()} move (expected e.g. "
                               f"{example})")
        f1, r1, f2, r2 = match.groups()
        offset = 1 if self.uci else 0
        move = Move(square("abcdefghi".index(f1), int(r1) - offset),
                    square("abcdefghi".index(f2), int(r2) - offset))
        reason = why_illegal(board, move)
        if reason is not None:
            raise CommandError(f"{text!r} is not legal: {reason}{self._other_reading(board, text)}")
        return move

    def _other_reading(self, board: Board, text: str) -> str:
        """A hint where ``text`` is a legal move in the other dialect's rank numbering."""
        other = UCCI if self.uci else UCI
        match = (_UCCI_MOVE if other is UCCI else _UCI_MOVE).fullmatch(text.lower())
        if match is None:
            return ""
        f1, r1, f2, r2 = match.groups()
        offset = 1 if other is UCI else 0
        move = Move(square("abcdefghi".index(f1), int(r1) - offset),
                    square("abcdefghi".index(f2), int(r2) - offset))
        if why_illegal(board, move) is not None:
            return ""
        return (f" (with {other.name.upper()}'s ranks, {'1..10' if other is UCI else '0..9'}, "
                f"it would be {move.iccs()} in ICCS: this engine speaks {self.name.upper()} "
                f"here, ranks {'1..10' if self.uci else '0..9'})")

    def mate_score(self, plies: int, winning: bool) -> str:
        """``mate 3`` / ``mate -2`` (UCI, in moves) or ``9995`` / ``-9996`` (UCCI)."""
        if self.uci:
            moves = (plies + 1) // 2 if winning else plies // 2
            return f"mate {moves if winning else -moves}"
        return str(UCCI_MATE - plies if winning else plies - UCCI_MATE)

    def draw_score(self) -> str:
        return "cp 0" if self.uci else "0"


UCI = Dialect("uci")
UCCI = Dialect("ucci")


# -- go ---------------------------------------------------------------------------------------

@dataclass
class GoRequest:
    """What one ``go`` asks for; times in seconds."""
    mate: int | None = None
    depth: int | None = None
    nodes: int = 0
    movetime: float | None = None
    clock: float | None = None           # the side to move's remaining time
    increment: float = 0.0
    moves_to_go: int | None = None
    infinite: bool = False
    ponder: bool = False
    search_moves: list[Move] = field(default_factory=list)

    def budget(self) -> float:
        """Seconds for the search, 0 for none (until done or ``stop``)."""
        if self.movetime is not None:
            return max(MIN_BUDGET, self.movetime - OVERHEAD)
        if self.clock is not None:
            share = self.clock / (self.moves_to_go or DEFAULT_MOVES_TO_GO) + 0.75 * self.increment
            return max(MIN_BUDGET, min(share, 0.5 * self.clock) - OVERHEAD)
        return 0.0


def _number(tokens: list[str], at: int, name: str, kind: type = int) -> float:
    if at + 1 >= len(tokens):
        raise CommandError(f"go {name} needs a number")
    text = tokens[at + 1]
    try:
        value = kind(text)
    except ValueError:
        raise CommandError(f"go {name} needs a number, not {text!r}") from None
    if value < 0 or (kind is float and not math.isfinite(value)):
        raise CommandError(f"go {name} must not be negative: {text!r}")
    return float(value)


def parse_go(tokens: list[str], board: Board, dialect: Dialect, millis: bool) -> GoRequest:
    """The request of ``go`` (``tokens``: the words after it).  UCI's and UCCI's words are
    both understood; UCI times are milliseconds, UCCI's seconds unless ``millis``."""
    request = GoRequest()
    white = board.turn == 0
    unit = 0.001 if dialect.uci or millis else 1.0
    at = 0
    while at < len(tokens):
        word = tokens[at].lower()
        if word in ("infinite", "ponder", "draw"):
            request.infinite |= word == "infinite"
            request.ponder |= word == "ponder"
            at += 1
            continue
        if word == "searchmoves":
            request.search_moves = [dialect.read(board, text) for text in tokens[at + 1:]]
            if not request.search_moves:
                raise CommandError("go searchmoves needs at least one move")
            break
        if word == "depth" and at + 1 < len(tokens) and tokens[at + 1].lower() == "infinite":
            request.infinite = True               # UCCI: go depth infinite
        elif word in ("depth", "mate", "movestogo", "nodes"):
            value = int(_number(tokens, at, word))
            if word in ("depth", "mate") and value > MAX_MOVES_BOUND:
                raise CommandError(f"go {word} {value} is more than the solver can count "
                                   f"(at most {MAX_MOVES_BOUND:,})")
            if word == "depth":
                request.depth = max(1, value)
            elif word == "mate":
                if value < 1:
                    raise CommandError("go mate needs a number of moves of at least 1")
                request.mate = value
            elif word == "movestogo":
                request.moves_to_go = value or None
            else:
                request.nodes = value
        elif word == "movetime":
            request.movetime = _number(tokens, at, word, float) * 0.001
        elif word in ("wtime", "btime", "winc", "binc"):
            seconds = _number(tokens, at, word, float) * 0.001
            if (word[0] == "w") == white:
                if word.endswith("time"):
                    request.clock = seconds
                else:
                    request.increment = seconds
        elif word in ("time", "increment"):          # UCCI: the side to move's clock
            seconds = _number(tokens, at, word, float) * unit
            if word == "time":
                request.clock = seconds
            else:
                request.increment = seconds
        elif word in ("opptime", "oppincrement", "oppmovestogo"):
            _number(tokens, at, word, float)          # the opponent's clock: not needed
        else:
            raise CommandError(f"go: unknown word {tokens[at]!r} (expected depth, nodes, mate, "
                               "movetime, wtime, btime, winc, binc, movestogo, infinite, "
                               "ponder, searchmoves; UCCI: time, increment, opptime, ...)")
        at += 2
    return request


# -- the answer of one search -----------------------------------------------------------------

@dataclass
class Answer:
    """What a search found: the move to send, its score (None: no honest score), the line."""
    move: Move | None
    score: str | None = None
    line: list[Move] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    depth: int = 0
    bound: str = ""                      # "lowerbound": a mate at most this long


def material_move(board: Board, allowed: Iterable[Move]) -> Move:
    """A legal move by a one-move material rule: no mate in one allowed if that can be
    helped, then the most material won less the piece left where it can be taken, then
    checks, then ICCS order.  The fallback where neither a table nor a proof decides."""
    def piece_value(point: int) -> float:
        piece = board.piece_at(point)
        return 0.0 if piece is None else _MATERIAL[piece.piece_type]

    def key(move: Move) -> tuple[bool, float, bool, str]:
        gain = piece_value(move.to_square)
        mover = piece_value(move.from_square)
        board.push_unchecked(move)
        try:
            mated_next = exposed = False
            for reply in board.legal_moves:
                if reply.to_square == move.to_square:
                    exposed = True
                if board.gives_check(reply):
                    board.push_unchecked(reply)
                    mated_next |= not board.has_legal_move()
                    board.pop()
                if mated_next:
                    break
            checks = board.is_check()
        finally:
            board.pop()
        return (mated_next, -(gain - (mover if exposed else 0.0)), not checks, move.iccs())

    return min(allowed, key=key)


# -- the engine -------------------------------------------------------------------------------

class Engine:
    """One GUI session: reads commands with :meth:`handle`, writes replies to ``out``."""

    def __init__(self, out: TextIO, protocol: str | None = None,
                 settings: Settings | None = None) -> None:
        self.out = out
        self.forced = protocol
        self.dialect = UCCI if protocol == "ucci" else UCI
        self._write = threading.Lock()
        self.board = Board()
        self.banned: list[Move] = []
        settings = settings or Settings.resolve()
        # The GUI's TablebasePath option changes it (None: no tables); the settings do not.
        self.tables: Path | None = settings.tables
        self.hash_mb = DEFAULT_HASH_MB
        self.threads = 1                  # processes of a search (solver.parallel)
        self.mate_mode: str = Mode.ANY
        self.millis = False
        self._tablebase: Tablebase | None = None
        self.search: SearchThread | None = None
        self.closed = False                   # the output is gone: the engine winds up
        self.ending = False                   # the input has ended: every search is stopped
        self.held: deque[str] = deque()       # commands that wait for a search to end
        self.searches = 0                     # searches started (each sends one bestmove)
        self.abandoned = False                # a stopped search outlived QUIT_WAIT at the end

    # output
    def send(self, line: str) -> None:
        with self._write:
            if self.closed:
                return
            try:
                self.out.write(line + "\n")
                self.out.flush()
            except (BrokenPipeError, ValueError, OSError):   # the GUI has gone
                self.closed = True

    def error(self, message: str) -> None:
        self.send(f"info string error: {message}")

    # tables
    def tablebase(self) -> Tablebase | None:
        if self.tables is None or not self.tables.is_dir():
            return None
        if self._tablebase is None or self._tablebase.directory != self.tables:
            self.close_tables()
            self._tablebase = open_tablebase(self.tables)
        return self._tablebase

    def close_tables(self) -> None:
        if self._tablebase is not None:
            self._tablebase.close()
            self._tablebase = None

    @property
    def table_bits(self) -> int:
        return hash_table_bits(self.hash_mb)

    # commands
    def handle(self, line: str) -> bool:
        """Carry out one command line; False once the engine should exit."""
        tokens = line.split()
        if not tokens:
            return True
        command, rest = tokens[0], tokens[1:]
        try:
            return self._dispatch(command, rest)
        except CommandError as error:
            self.error(str(error))
        except Exception as error:          # a bug must not take the GUI's engine down
            self.error(f"{command}: internal error: {type(error).__name__}: {error}")
        return True

    def _dispatch(self, command: str, rest: list[str]) -> bool:
        handler: Callable[[list[str]], None] | None = {
            "uci": self.cmd_handshake, "ucci": self.cmd_handshake,
            "isready": lambda _: self.send("readyok"),
            "setoption": self.cmd_setoption,
            "position": self.cmd_position,
            "banmoves": self.cmd_banmoves,
            "go": self.cmd_go,
            "stop": lambda _: self.stop(),
            "ponderhit": lambda _: self.search.ponderhit() if self.search else None,
            "ucinewgame": self.cmd_newgame, "uccinewgame": self.cmd_newgame,
            "debug": lambda _: None, "register": lambda _: None,
            "d": lambda _: self.send(f"info string fen {self.board.fen()}"),
        }.get(command)
        if command == "quit":
            self.wind_up()
            if not self.dialect.uci:
                self.send("bye")
            with self._write:
                self.closed = True           # a search that outlives quit says nothing more
            return False
        if handler is None:
            self.error(f"unknown command {command!r} (commands: uci, ucci, isready, setoption, "
                       "ucinewgame, position, go, stop, ponderhit, banmoves, quit)")
            return True
        if command in ("uci", "ucci"):
            handler([command])
        else:
            handler(rest)
        return True

    def cmd_handshake(self, words: list[str]) -> None:
        wanted = words[0]
        if self.forced is not None and wanted != self.forced:
            raise CommandError(f"{wanted!r}: this engine was started with --protocol "
                               f"{self.forced}; send {self.forced!r}")
        self.dialect = UCI if wanted == "uci" else UCCI
        name = f"{ENGINE_NAME} {engine_version()} (df-pn solver and tablebases)"
        tables = str(self.tables) if self.tables is not None else "<empty>"
        if self.dialect.uci:
            lines = [f"id name {name}", f"id author {ENGINE_AUTHOR}",
                     "option name UCI_Variant type combo default xiangqi var xiangqi",
                     f"option name Hash type spin default {DEFAULT_HASH_MB} min 1 "
                     f"max {MAX_HASH_MB}",
                     f"option name Threads type spin default 1 min 1 max {MAX_THREADS}",
                     f"option name TablebasePath type string default {tables}",
                     "option name MateMode type combo default any var any var checks",
                     "uciok"]
        else:
            lines = [f"id name {name}", f"id author {ENGINE_AUTHOR}",
                     "option usemillisec type check default false",
                     f"option hashsize type spin min 1 max {MAX_HASH_MB} "
                     f"default {DEFAULT_HASH_MB}",
                     f"option threads type spin min 1 max {MAX_THREADS} default 1",
                     f"option egtbpaths type string default {tables}",
                     "option matemode type combo var any var checks default any",
                     "ucciok"]
        for line in lines:
            self.send(line)

    def cmd_newgame(self, words: list[str]) -> None:
        self.banned = []

    def cmd_setoption(self, words: list[str]) -> None:
        if words and words[0].lower() == "name":              # UCI: name N... [value V...]
            lowered = [word.lower() for word in words]
            cut = lowered.index("value") if "value" in lowered else len(words)
            name, value = " ".join(words[1:cut]), " ".join(words[cut + 1:])
        elif words:                                            # UCCI: NAME VALUE
            name, value = words[0], " ".join(words[1:])
        else:
            raise CommandError("setoption needs an option name (setoption name Hash value 64)")
        if not name:
            raise CommandError("setoption name needs an option name")
        key = name.lower().replace(" ", "").replace("_", "")
        if key in SEARCH_OPTIONS and self.searching():
            # The search holds its hash table and its tables: it goes on, the option stays.
            self.send(f"info string {name} cannot change during a search; send stop first")
            return
        if key in ("matemode", "usemillisec") and self.searching():
            self.send(f"info string {name}: from the next go on (the search running keeps "
                      "its own)")
        if key == "ucivariant":
            if value.lower() != "xiangqi":
                raise CommandError(f"UCI_Variant {value!r} is not played here: this engine "
                                   "knows only xiangqi")
        elif key in ("hash", "hashsize"):
            try:
                megabytes = int(value)
            except ValueError:
                raise CommandError(f"{name} needs a whole number of megabytes, not "
                                   f"{value!r}") from None
            if not 1 <= megabytes <= MAX_HASH_MB:
                raise CommandError(f"{name} must be between 1 and {MAX_HASH_MB} MB, not "
                                   f"{megabytes}")
            problem = table_memory_problem(hash_table_bits(megabytes))
            if problem is not None:
                # A GUI sets the advertised maximum unasked: the search it then starts must
                # still run (and a table still answer), so the table is the largest that fits.
                fits = largest_hash_mb(megabytes)
                self.send(f"info string {name} {megabytes} MB is more than the memory "
                          f"available ({memory_text(available_memory())}): {fits} MB used")
                megabytes = fits
            self.hash_mb = megabytes
        elif key in ("tablebasepath", "egtbpaths", "tables"):
            if value in ("", "<empty>"):
                self.tables = None
                self.close_tables()
                return
            path = Path(value.split(";")[0]).expanduser()
            if path.exists() and not path.is_dir():
                raise CommandError(f"{name}: {value!r} is not a directory")
            self.tables = path
            self.close_tables()
            if not path.is_dir():
                self.send(f"info string {name}: {value} does not exist (yet): no tables")
        elif key == "matemode":
            if value.lower() not in MATE_MODES:
                raise CommandError(f"MateMode must be 'any' (quiet moves allowed) or 'checks' "
                                   f"(every attacking move checks, 连照杀), not {value!r}")
            self.mate_mode = value.lower()
        elif key == "usemillisec":
            if value.lower() not in ("true", "false"):
                raise CommandError(f"usemillisec must be true or false, not {value!r}")
            self.millis = value.lower() == "true"
        elif key == "threads":
            try:
                threads = int(value)
            except ValueError:
                raise CommandError(f"{name} needs a whole number, not {value!r}") from None
            if not 1 <= threads <= MAX_THREADS:
                raise CommandError(f"{name} must be between 1 and {MAX_THREADS}, not {threads}")
            self.threads = threads
        else:
            raise CommandError(f"no option {name!r} (options: UCI_Variant, Hash, Threads, "
                               "TablebasePath, MateMode; UCCI: hashsize, threads, egtbpaths, "
                               "matemode, usemillisec)")

    def cmd_position(self, words: list[str]) -> None:
        if not words:
            raise CommandError("position needs 'startpos' or 'fen <FEN>', then optionally "
                               "'moves ...'")
        lowered = [word.lower() for word in words]
        cut = lowered.index("moves") if "moves" in lowered else len(words)
        head, moves = words[:cut], words[cut + 1:]
        if lowered[0] == "startpos":
            if len(head) > 1:
                raise CommandError(f"position startpos: unexpected {head[1]!r} before 'moves'")
            fen = STARTING_FEN
        elif lowered[0] == "fen":
            if len(head) < 2:
                raise CommandError("position fen needs a FEN")
            fen = " ".join(head[1:])
        else:
            raise CommandError(f"position needs 'startpos' or 'fen <FEN>', not {words[0]!r}")
        try:
            board = Board(fen)
        except FenError as error:
            raise CommandError(f"invalid FEN {fen!r}: {error}; the position is unchanged") \
                from None
        self.board = board
        self.banned = []
        for number, text in enumerate(moves, start=1):
            try:
                move = self.dialect.read(board, text)
            except CommandError as error:
                raise CommandError(f"position: move {number} of {len(moves)}: {error}; the "
                                   f"position is set up to the move before it "
                                   f"({board.fen()})") from None
            board.push(move)

    def cmd_banmoves(self, words: list[str]) -> None:
        self.banned = [self.dialect.read(self.board, text) for text in words]

    def cmd_go(self, words: list[str]) -> None:
        search = self.search
        if search is not None and search.answered.is_set():
            search.join()       # its bestmove is out: the thread is only returning
        if search is not None and search.is_alive():
            # (The command loop holds a go back until a finite search has ended.)
            if not search.release.is_set():
                raise CommandError("go during an infinite or ponder search: send stop first")
            raise CommandError("go while a search runs: wait for its bestmove or send stop")
        request = parse_go(words, self.board, self.dialect, self.millis)
        self.search = SearchThread(self, self.board.copy(), request, list(self.banned))
        self.searches += 1
        self.search.start()
        if self.ending:
            self.search.stop()

    # searching
    def searching(self) -> bool:
        search = self.search
        return search is not None and search.is_alive() and not search.answered.is_set()

    def must_wait(self, line: str) -> bool:
        """Whether ``line`` waits for the search running: a ``go`` after a finite search
        (or a stopped one) until its ``bestmove``, and everything after a waiting command
        but ``isready``, ``stop`` and ``quit``."""
        words = line.split()
        if not words:
            return False
        if self.held:
            return words[0] not in URGENT
        search = self.search
        return (words[0] == "go" and search is not None and search.is_alive()
                and search.release.is_set())

    def stop(self) -> None:
        """End the running search (if any): it sends its ``bestmove`` in its own thread."""
        search = self.search
        if search is not None:
            search.stop()

    def wind_up(self) -> None:
        """``quit`` or the end of the input: stop the search and give it ``QUIT_WAIT`` to
        send its ``bestmove``; the tables close only once no search reads them."""
        self.held.clear()
        search, self.search = self.search, None
        if search is not None:
            search.stop()
            search.join(QUIT_WAIT)
            self.abandoned = search.is_alive()
        if not self.abandoned:
            self.close_tables()

    def drain_held(self) -> None:
        """At the end of the input: the commands held back, each search stopped as it
        starts (so every ``go`` still gets its ``bestmove``, at once)."""
        while self.held and not self.closed:
            search = self.search
            if search is not None:
                search.join(QUIT_WAIT)
                if search.is_alive():       # a stopped search that does not end: give up
                    return
            if not self.handle(self.held.popleft()):
                return

    def submit(self, line: str) -> bool:
        """One input line, as it arrives: carried out now or held back (see
        :meth:`must_wait`); False once the engine should exit."""
        if self.must_wait(line):
            self.held.append(line)
            return True
        return self.handle(line)

    def run(self, lines: Iterable[str]) -> int:
        """The command loop: ``lines`` are read in a thread of their own, so that a command
        is never kept waiting behind a search (nor behind the input)."""
        inbox: queue.Queue[str | None] = queue.Queue()

        def read() -> None:
            try:
                for line in lines:
                    inbox.put(line)
            except (OSError, ValueError):      # the input is gone: as its end
                pass
            finally:
                inbox.put(None)

        threading.Thread(target=read, name="xqstudio-input", daemon=True).start()
        try:
            while not self.closed:
                if self.held and not self.searching():
                    if not self.handle(self.held.popleft()):
                        break
                    continue
                try:
                    line = inbox.get(timeout=POLL if self.held else 0.5)
                except queue.Empty:
                    continue
                if line is None:                # the end of the input
                    self.ending = True
                    self.stop()
                    self.drain_held()
                    break
                if not self.submit(line):
                    break
        finally:
            self.wind_up()
            with self._write:
                self.closed = True             # nothing after the end (a late bestmove)
        return 0


class SearchThread(threading.Thread):
    """One ``go``: works out the answer, then sends ``bestmove`` (after ``stop`` or
    ``ponderhit`` where the GUI asked for ``infinite`` or ``ponder``)."""

    def __init__(self, engine: Engine, board: Board, request: GoRequest,
                 banned: list[Move]) -> None:
        super().__init__(name="xqstudio-search", daemon=True)
        self.engine, self.board, self.request = engine, board, request
        self.dialect = engine.dialect
        self.stopped = threading.Event()
        self.release = threading.Event()      # bestmove may be sent
        # Set just before the bestmove is written: from then on the GUI may send what it may
        # send between searches (setoption Hash...), though the thread has not ended yet.
        self.answered = threading.Event()
        if not (request.infinite or request.ponder):
            self.release.set()
        # What the search uses of the options, as they are at go: setoption goes on.
        self.table_bits = self.hash_bits = engine.table_bits
        self.mate_mode = engine.mate_mode
        self.threads = engine.threads
        self.tables_failed = False            # a table error was reported: no tables now
        self.started = time.perf_counter()
        self.last_info = self.started
        allowed = request.search_moves or board.legal_moves
        self.allowed = [move for move in allowed if move not in banned] or list(allowed)

    def stop(self) -> None:
        self.stopped.set()
        self.release.set()

    def ponderhit(self) -> None:
        """The GUI's move was the one pondered on: from now on the search is a normal one
        (its own time from now, or until done)."""
        if not self.request.ponder:
            return
        self.request.ponder = False
        budget = self.request.budget()
        if budget:
            timer = threading.Timer(budget, self.stop)
            timer.daemon = True
            timer.start()
        if not self.request.infinite:
            self.release.set()

    def run(self) -> None:
        try:
            answer = self.answer()
        except Exception as error:            # keep the GUI's game going
            self.engine.error(f"search failed: {type(error).__name__}: {error}")
            answer = self.fallback([]) if self.board.has_legal_move() else Answer(None)
        self.release.wait()
        self.report(answer)

    def report(self, answer: Answer) -> None:
        send = self.engine.send
        for note in answer.notes:
            send(f"info string {note}")
        if answer.move is None:
            if self.dialect.uci:
                send(f"info depth 0 score {self.dialect.mate_score(0, False)}")
                self.answered.set()
                send("bestmove (none)")
            else:
                self.answered.set()
                send("nobestmove")
            return
        elapsed = max(1, round(1000 * (time.perf_counter() - self.started)))
        line = answer.line or [answer.move]
        parts = [f"info depth {max(answer.depth, len(line))}"]
        if answer.score is not None:
            parts.append(f"score {answer.score}" + (f" {answer.bound}" if answer.bound else ""))
        parts.append(f"time {elapsed}")
        parts.append("pv " + " ".join(self.dialect.write(move) for move in line))
        send(" ".join(parts))
        self.answered.set()
        send(f"bestmove {self.dialect.write(answer.move)}")

    def answer(self) -> Answer:
        board = self.board
        if not board.has_legal_move():
            mated = "checkmated" if board.is_check() else "stalemated (困毙, a loss)"
            return Answer(None, notes=[f"the side to move is {mated}: no move"])
        if self.request.mate is None:
            table = self.table_answer()
            if table is not None:
                return table
        return self.solver_answer()

    # tables
    def table_failed(self, error: TablebaseError) -> None:
        """A table error: an ``info string`` names the table and how to rebuild it, and the
        rest of this search does without the tables."""
        self.tables_failed = True
        self.engine.send(f"info string {table_trouble(error)}")

    def tablebase(self) -> Tablebase | None:
        if self.tables_failed:
            return None
        try:
            tablebase = self.engine.tablebase()
            if tablebase is not None and not tablebase.materials():
                return None
        except TablebaseError as error:
            self.table_failed(error)
            return None
        except OSError as error:               # e.g. the directory cannot be read
            self.tables_failed = True
            self.engine.send(f"info string the tables cannot be read ({error}); the solver "
                             "answers without them")
            return None
        return tablebase

    def table_answer(self) -> Answer | None:
        tablebase = self.tablebase()
        if tablebase is None:
            return None
        board = self.board
        try:
            value = tablebase.probe(board)
            ranked = tablebase.ranked_moves(board)
        except MissingTableError as error:
            if Material.from_board(board).piece_count() <= tablebase.max_pieces():
                self.engine.send(f"info string no table answer: {error}")
            return None
        except CorruptTableError as error:
            self.table_failed(error)
            return None
        choices = [item for item in ranked if item.move in self.allowed]
        best = choices[0]
        notes = [f"table: {describe(value, board.turn)}"]
        if len(choices) < len(ranked):
            notes.append("restricted to the moves allowed (searchmoves/banmoves)")
        if best.forbidden:
            notes.append("every move left is a perpetual check the rule forbids (长将)")
        mover = best.value
        line = [best.move]
        if value.wdl and not best.forbidden:
            main = tablebase.best_line(board, max_plies=PV_PLIES)
            if main and main[0] == best.move:
                line = main
        if abs(mover.wdl) == 2 and mover.dtm is not None:
            score = self.dialect.mate_score(mover.dtm, mover.wdl > 0)
        else:
            score = self.dialect.draw_score()
        return Answer(best.move, score, line, notes)

    # the solver
    def progress(self, nodes: int, table_used: int) -> bool:
        now = time.perf_counter()
        if now - self.last_info >= INFO_EVERY:
            self.last_info = now
            elapsed = now - self.started
            entries = 1 << self.table_bits
            if self.dialect.uci:
                self.engine.send(f"info nodes {nodes} nps {int(nodes / elapsed)} time "
                                 f"{int(1000 * elapsed)} hashfull "
                                 f"{min(1000, 1000 * table_used // entries)}")
            else:
                self.engine.send(f"info time {int(1000 * elapsed)} nodes {nodes}")
        return self.stopped.is_set()

    def solver_answer(self) -> Answer:
        request, board = self.request, self.board
        mode = self.mate_mode if request.mate is not None else Mode.ANY
        bound = request.mate or (max(1, (request.depth + 1) // 2) if request.depth else
                                 DEFAULT_MAX_MOVES[mode])
        seconds = 0.0 if request.ponder else request.budget()
        self.table_bits = self.hash_bits
        if seconds:
            # A short search fills a small table only, and a fresh large one costs time to
            # touch (see DEFAULT_HASH_MB): at most 4 entries per node it can visit.
            fill = math.ceil(math.log2(seconds * 4 * NODES_PER_SECOND))
            self.table_bits = min(self.table_bits, max(16, fill))
        tablebase = self.tablebase()
        how = "every move a check" if mode == Mode.CHECKS else "quiet moves allowed"
        try:
            limits = Limits(nodes=request.nodes, seconds=seconds, table_bits=self.table_bits,
                            progress_nodes=INTERACTIVE_PROGRESS_NODES, threads=self.threads)
            try:
                solver = Solver(board, mode, limits, tablebase, self.progress)
                result = solver.run(bound)
            except TablebaseError as error:        # a table at the solver's leaves
                self.table_failed(error)
                if seconds:
                    left = seconds - (time.perf_counter() - self.started)
                    limits.seconds = max(MIN_BUDGET, left)
                solver = Solver(board, mode, limits, None, self.progress)
                result = solver.run(bound)
        except SolverError as error:
            return self.fallback([f"the solver cannot run: {error}"])
        if result.verdict == Verdict.MATE and result.main_line:
            return self.proof_answer(result, how)
        if result.verdict == Verdict.NO_MATE:
            why = f"the solver proved there is no mate within {bound} moves ({how})"
        else:
            reason = "stopped" if self.stopped.is_set() else "the limits ran out"
            why = (f"no mate proven within {bound} moves ({how}; {reason} after "
                   f"{result.nodes:,} nodes)")
        return self.fallback([why])

    def proof_answer(self, result: SolveResult, how: str) -> Answer:
        assert result.length is not None
        line = result.main_line
        if line[0] not in self.allowed:
            return self.fallback([f"the proven mate starts with {self.dialect.write(line[0])}, "
                                  "which is not among the moves allowed"])
        if result.table_moves is not None:      # the root's table answered: no search ran
            notes = [f"table: mate in {result.length} ({how}), read from the tablebase"]
        else:
            notes = [f"proof: mate in {result.length} ({how}), {result.nodes:,} nodes"]
        bound = ""
        if not result.exact:
            notes.append(f"mate in at most {result.length}: a shorter one was not ruled out "
                         "within the limits")
            bound = "lowerbound" if self.dialect.uci else ""
        score = self.dialect.mate_score(2 * result.length - 1, True)
        return Answer(line[0], score, line, notes, depth=len(line), bound=bound)

    def fallback(self, notes: list[str]) -> Answer:
        """No proof: a table's answer where one covers the position (the solver may have
        failed before reading it), else a move by the material rule, without a score."""
        table = self.table_answer() if self.board.has_legal_move() else None
        if table is not None:
            table.notes[:0] = notes
            return table
        move = material_move(self.board, self.allowed)
        notes = notes + [
            "no table covers this position and no proof decides it: no score; "
            f"{self.dialect.write(move)} is picked by a one-move material rule (XQ Studio is a "
            "solver and tablebase engine, not a playing engine)"]
        return Answer(move, None, [move], notes)


# -- command line -----------------------------------------------------------------------------

def cmd_engine(args: argparse.Namespace) -> int:
    """``xqstudio engine``: the protocol loop on standard input and output."""
    stdin = sys.stdin
    if hasattr(stdin, "reconfigure"):
        stdin.reconfigure(errors="replace")
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="replace", line_buffering=True)
    engine = Engine(sys.stdout, args.protocol, Settings.from_arguments(args))
    return engine.run(iter(stdin.readline, ""))


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    from tablebases.cli import add_tables_option

    engine = subparsers.add_parser(
        "engine", help="speak UCI (UCI_Variant xiangqi) or UCCI to a GUI: the solver's proofs "
                       "and the tables' moves")
    engine.add_argument("--protocol", choices=PROTOCOLS,
                        help="the protocol (default: the GUI's first command, uci or ucci)")
    add_tables_option(engine)
    engine.set_defaults(handler=cmd_engine)
