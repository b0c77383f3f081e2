"""Seeded fuzzing of ``xqstudio engine`` (issue 36): random command sequences, valid and
malformed, many of them sent while a search runs, driven through
:class:`tui.frontends.engine.Engine` in process (its command loop, its input thread and its
search threads, as the command line runs them, with a queue for the GUI's pipe).

The checks, for every session:

* the engine never raises, and never answers with an internal error (``internal error``,
  ``search failed``: the safety nets that keep a GUI's game going but mean a bug);
* every ``isready`` is answered by ``readyok`` within ``REPLY_LIMIT`` seconds, whatever runs;
* every search a ``go`` started sends exactly one ``bestmove`` (``nobestmove`` in UCCI);
  only a search still running ``QUIT_WAIT`` seconds after ``quit`` may go without one, and
  none is sent after the end;
* ``quit`` ends the command loop within ``QUIT_LIMIT`` seconds (the end of the input within
  ``EOF_LIMIT``), mid-search or not; a UCCI ``quit`` is answered by ``bye``, the last line.

``fuzz_engine(rng, cases)`` sends at least ``cases`` commands, in sessions of 1 to 30.  It
is a harness like those of ``fuzz_harnesses.py``;
``tests/test_engine_commands.py::test_engine_fuzz_seeded`` runs a small seeded share, and

    PYTHONPATH=. python tests/fuzz/fuzz_engine.py [--seconds S] [--seed N] [--cases N]

runs it for long (new seeds until the time is up), printing the figures.
"""
from __future__ import annotations

import argparse
import atexit
import queue
import random
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tui.frontends.engine import QUIT_WAIT, UCCI, UCI, Dialect, Engine
from tui.settings import Settings
from xiangqi import Board

QUIT_LIMIT = 0.5          # seconds from quit to the end of Engine.run
EOF_LIMIT = 1.0           # the end of the input (held commands are carried out first)
REPLY_LIMIT = 5.0         # isready -> readyok (at once, but the machine may be busy)
INTERNAL = ("internal error", "search failed")

FENS = [
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
    "4k4/9/9/9/9/9/9/9/9/3K4R w - - 0 1",         # KRK: the table's win
    "4k4/9/9/9/9/9/9/9/9/3K4R b - - 0 1",         # the losing side to move
    "3ak4/4a4/9/9/9/9/9/9/9/3K4R w - - 0 1",      # mate in 3 (the solver; no KRKAA table)
    "3k5/9/9/9/9/9/9/9/9/3RK4 b - - 0 1",         # checkmated: no move
    "3k5/4a4/9/9/9/9/9/9/9/4K4 w - - 0 1",        # KKA: no table here
    "r1bakab1r/9/1cn4c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R b - - 2 2",
]
BAD_FENS = ["9/9/9 w", "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNX w",
            "4k4/9/9/9/9/9/9/9/9/3K4R x", "4k4/4K4/9/9/9/9/9/9/9/9 w", "", "w"]
WORDS = ["go", "position", "setoption", "name", "value", "moves", "fen", "startpos", "stop",
         "isready", "ponderhit", "infinite", "mate", "depth", "movetime", "searchmoves",
         "uci", "ucci", "Hash", "xiangqi", "-1", "0", "99999999999999999999", "nan", "1e9",
         "h2e2", "h3e3", "a0a1", "zz", "中炮", "\x00", "\t", "GO", "Quit", "isready2"]


# -- the tables: KRK (sound), a damaged copy, a directory that does not exist ---------------

_TABLES: dict[str, Path] = {}


def tables() -> dict[str, Path]:
    if not _TABLES:
        from tablebases.build import build
        root = Path(tempfile.mkdtemp(prefix="fuzz_engine_"))
        atexit.register(shutil.rmtree, root, True)
        build("KRK", root / "good", log=lambda line: None)
        shutil.copytree(root / "good", root / "damaged")
        path = root / "damaged" / "KRK.xqtb"
        data = bytearray(path.read_bytes())
        for at in range(len(data) // 2, len(data) // 2 + 64):
            data[at] ^= 0xFF
        path.write_bytes(bytes(data))
        _TABLES.update(good=root / "good", damaged=root / "damaged", missing=root / "none",
                       file=path)
    return _TABLES


# -- the commands ---------------------------------------------------------------------------

@dataclass
class State:
    """What the fuzzer knows of the session, to write commands the engine may take."""
    dialect: Dialect
    fen: str = FENS[0]


def _moves(rng: random.Random, state: State, fen: str) -> list[str]:
    board = Board(fen)
    words = []
    for _ in range(rng.randint(0, 6)):
        legal = board.legal_moves
        if not legal:
            break
        move = rng.choice(legal)
        words.append(state.dialect.write(move))
        board.push(move)
    if words and rng.random() < 0.15:                        # one bad move in the line
        words[rng.randrange(len(words))] = rng.choice(["a1a1", "z9z9", "h2e2", "i10i9", "x"])
    return words


def _position(rng: random.Random, state: State) -> str:
    roll = rng.random()
    if roll < 0.1:
        return rng.choice(["position", "position fen", "position start",
                           "position startpos junk", "position fen " + rng.choice(BAD_FENS)])
    fen = rng.choice(FENS)
    head = "position startpos" if fen == FENS[0] and rng.random() < 0.5 else f"position fen {fen}"
    state.fen = fen
    moves = _moves(rng, state, fen)
    return head + (" moves " + " ".join(moves) if moves or rng.random() < 0.1 else "")


def _go(rng: random.Random, state: State) -> str:
    legal = Board(state.fen).legal_moves
    choices = [
        lambda: f"go movetime {rng.randint(0, 150)}",
        lambda: f"go depth {rng.randint(1, 5)}",
        lambda: f"go mate {rng.randint(1, 3)}",
        lambda: f"go nodes {rng.randint(1, 20_000)}",
        lambda: (f"go wtime {rng.randint(0, 3000)} btime {rng.randint(0, 3000)} "
                 f"winc {rng.randint(0, 100)} binc {rng.randint(0, 100)}"
                 + rng.choice(["", f" movestogo {rng.randint(0, 40)}"])),
        lambda: f"go time {rng.randint(0, 3)} increment 0 opptime 10",
        lambda: "go infinite",
        lambda: "go depth infinite",
        lambda: f"go ponder wtime {rng.randint(50, 2000)} btime {rng.randint(50, 2000)}",
        lambda: "go",
        lambda: "go mate 30",
        lambda: (f"go movetime {rng.randint(10, 100)} searchmoves "
                 + " ".join(state.dialect.write(move)
                            for move in rng.sample(legal, min(len(legal), 2)))),
        lambda: rng.choice(["go mate 0", "go movetime -5", "go movetime x", "go depth",
                            "go depth 99999999999", "go wtime", "go searchmoves",
                            "go searchmoves zz", "go frobnicate 3", "go movetime nan",
                            "go movetime inf"]),
    ]
    return rng.choice(choices)()


def _setoption(rng: random.Random, state: State) -> str:
    table = tables()
    where = rng.choice([table["good"], table["damaged"], table["missing"], table["file"],
                        "<empty>", ""])
    return rng.choice([
        f"setoption name Hash value {rng.choice([1, 2, 16, 0, -1, 'x', 99_999_999, ''])}",
        f"setoption name TablebasePath value {where}",
        f"setoption name MateMode value {rng.choice(['any', 'checks', 'CHECKS', 'some'])}",
        f"setoption name UCI_Variant value {rng.choice(['xiangqi', 'chess'])}",
        "setoption name Threads value 2",
        f"setoption usemillisec {rng.choice(['true', 'false', 'maybe'])}",
        f"setoption hashsize {rng.choice([1, 8, 0])}",
        f"setoption egtbpaths {where}",
        "setoption name Frobnicate value 3",
        "setoption", "setoption name", "setoption name value 3",
    ])


def _garbage(rng: random.Random, state: State) -> str:
    roll = rng.random()
    if roll < 0.3:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6)))
    if roll < 0.5:
        return "".join(chr(rng.randrange(1, 0x3000)) for _ in range(rng.randint(0, 20)))
    if roll < 0.6:
        return rng.choice(["", "   ", "\t", "go " + "1 " * 500, "position startpos moves "
                           + "a1a2 " * 200])
    return rng.choice(["d", "debug on", "register later", "banmoves", "banmoves zz",
                       "ucinewgame", "uccinewgame", "ponderhit", "stop", "bye", "quitx"])


def _handshake(rng: random.Random, state: State) -> str:
    word = rng.choice(["uci", "ucci"])
    return word


_KINDS: list[tuple[float, Callable[[random.Random, State], str]]] = [
    (14, lambda rng, state: "isready"),
    (18, _go),
    (9, lambda rng, state: "stop"),
    (3, lambda rng, state: "ponderhit"),
    (14, _position),
    (11, _setoption),
    (4, _handshake),
    (3, lambda rng, state: rng.choice(["ucinewgame", "uccinewgame"])),
    (2, lambda rng, state: "banmoves " + " ".join(
        state.dialect.write(move) for move in Board(state.fen).legal_moves[:2])),
    (8, _garbage),
]


def random_command(rng: random.Random, state: State) -> str:
    make = rng.choices([make for _, make in _KINDS], [weight for weight, _ in _KINDS])[0]
    return make(rng, state)


# -- one session ------------------------------------------------------------------------------

class Transcript:
    """The engine's output (its ``out``): the lines, and a way to wait for one."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.changed = threading.Condition()
        self._partial = ""

    def write(self, text: str) -> int:
        with self.changed:
            parts = (self._partial + text).split("\n")
            self._partial = parts.pop()
            self.lines.extend(parts)
            self.changed.notify_all()
        return len(text)

    def flush(self) -> None:
        pass

    def count(self, line: str) -> int:
        with self.changed:
            return self.lines.count(line)

    def wait_for(self, done: Callable[[], bool], timeout: float) -> bool:
        with self.changed:
            return self.changed.wait_for(done, timeout)


@dataclass
class Stats:
    sessions: int = 0
    commands: int = 0
    searches: int = 0
    abandoned: int = 0             # searches still running QUIT_WAIT after quit / the end
    quit_worst: float = 0.0        # seconds


def _failure(why: str, sent: list[str], out: Transcript) -> AssertionError:
    return AssertionError(f"{why}\nsent: {sent!r}\nreplies (last 40): {out.lines[-40:]!r}")


def run_session(rng: random.Random, length: int, stats: Stats) -> None:
    """One engine, ``length`` random commands (with pauses, so that many arrive mid-search),
    then ``quit`` or the end of the input; AssertionError with the commands if a check
    fails."""
    table = tables()
    out = Transcript()
    protocol = rng.choice([None, None, "uci", "ucci"])
    directory = rng.choice([table["good"], table["good"], table["damaged"], table["missing"],
                            None])
    engine = Engine(out, protocol,                  # type: ignore[arg-type]  (a TextIO's part)
                    Settings.resolve(tables=directory))
    state = State(UCCI if protocol == "ucci" else UCI)
    inbox: queue.Queue[str | None] = queue.Queue()
    raised: list[BaseException] = []

    def lines() -> Iterator[str]:
        while (line := inbox.get()) is not None:
            yield line

    def main() -> None:
        try:
            engine.run(lines())
        except BaseException as error:            # what the check is for
            raised.append(error)

    runner = threading.Thread(target=main, name="fuzz-engine", daemon=True)
    runner.start()
    sent: list[str] = []
    readies = 0
    for _ in range(length):
        command = random_command(rng, state)
        words = command.split()
        if words and words[0] in ("uci", "ucci") and protocol in (None, words[0]):
            state.dialect = UCI if words[0] == "uci" else UCCI
        sent.append(command)
        inbox.put(command)
        if words[:1] == ["isready"]:
            readies += 1
            if not out.wait_for(lambda wanted=readies: out.lines.count("readyok") >= wanted,
                                REPLY_LIMIT):
                raise _failure(f"isready number {readies} not answered within {REPLY_LIMIT} s",
                               sent, out)
        if rng.random() < 0.35:
            time.sleep(rng.choice([0.0005, 0.002, 0.01, 0.03, 0.08]))
    quitting = rng.random() < 0.8
    ending = rng.choice(["quit", "quit", "quit now"]) if quitting else None
    sent.append(ending or "<end of input>")
    started = time.monotonic()
    inbox.put(ending)
    limit = QUIT_LIMIT if quitting else EOF_LIMIT
    runner.join(limit)
    elapsed = time.monotonic() - started
    if runner.is_alive():
        runner.join(30)
        raise _failure(f"{sent[-1]} not honoured within {limit} s (took "
                       f"{time.monotonic() - started:.2f} s)", sent, out)
    if raised:
        raise _failure(f"Engine.run raised {raised[0]!r}", sent, out)
    lines_out = list(out.lines)
    internal = [line for line in lines_out if any(word in line for word in INTERNAL)]
    if internal:
        raise _failure(f"internal errors: {internal}", sent, out)
    if lines_out.count("readyok") != readies:
        raise _failure(f"{readies} isready, {lines_out.count('readyok')} readyok", sent, out)
    answers = sum(1 for line in lines_out
                  if line.startswith("bestmove ") or line == "nobestmove")
    missing = engine.searches - answers
    if not (missing == 0 or (missing == 1 and engine.abandoned)):
        raise _failure(f"{engine.searches} searches, {answers} bestmove/nobestmove "
                       f"(abandoned: {engine.abandoned})", sent, out)
    if quitting and engine.dialect is UCCI and lines_out[-1:] != ["bye"]:
        raise _failure("a UCCI quit not answered by bye, last", sent, out)
    stats.sessions += 1
    stats.commands += length + 1
    stats.searches += engine.searches
    stats.abandoned += engine.abandoned
    if quitting:
        stats.quit_worst = max(stats.quit_worst, elapsed)


def fuzz_engine(rng: random.Random, cases: int) -> Stats:
    """At least ``cases`` commands, in sessions of 1 to 30 commands."""
    stats = Stats()
    while stats.commands < cases:
        run_session(rng, rng.randint(1, 30), stats)
    return stats


def main() -> int:
    parser = argparse.ArgumentParser(description="fuzz xqstudio engine's command loop")
    parser.add_argument("--seconds", type=float, default=120.0, help="run for this long")
    parser.add_argument("--cases", type=int, default=500, help="commands per seed")
    parser.add_argument("--seed", type=int, default=None, help="first seed (default random)")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    total = Stats()
    seeds = 0
    start = time.monotonic()
    print(f"QUIT_WAIT {QUIT_WAIT} s, QUIT_LIMIT {QUIT_LIMIT} s", flush=True)
    while time.monotonic() - start < args.seconds:
        stats = Stats()
        try:
            stats = fuzz_engine(random.Random(f"engine:{seed + seeds}"), args.cases)
        except AssertionError as error:
            print(f"FAIL engine seed {seed + seeds}: {error}")
            return 1
        seeds += 1
        for name in ("sessions", "commands", "searches", "abandoned"):
            setattr(total, name, getattr(total, name) + getattr(stats, name))
        total.quit_worst = max(total.quit_worst, stats.quit_worst)
        print(f"seed {seed + seeds - 1}: {stats}", flush=True)
    print(f"engine: seeds {seed}..{seed + seeds - 1} ({seeds}), {total.sessions} sessions, "
          f"{total.commands} commands, {total.searches} searches, {total.abandoned} abandoned, "
          f"worst quit {total.quit_worst:.3f} s, {time.monotonic() - start:.0f} s, 0 failures")
    return 0


if __name__ == "__main__":
    sys.exit(main())
