"""Rules-engine subcommands: ``position perft|moves|check|judge|diagram`` (the old flat
spellings ``perft``, ``moves``, ``fen check`` and ``judge`` still work, and ``diagram`` is
``position diagram``), and the pieces every package's command line shares:
:func:`read_board`, :func:`fail`, :func:`emit`, :func:`whole_number`, :func:`add_json_option`,
:func:`add_notation_option`, :func:`add_diagram_options` and :func:`write_diagram`.

Exit status, for every ``xqstudio`` command: 0 ok; 1 the answer is negative or the input is
bad (with ``--json`` stdout then holds ``{"error": message}``); 2 a usage error (argparse);
130 interrupted.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
import unicodedata
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from ._core import PerftInterrupted
from .board import Board
from .fen import FenError
from .notation import NOTATIONS, Notation
from .rules import RuleSetName

if TYPE_CHECKING:
    from .svg import Arrow

# What number_argument reads: a whole number or a float.
NumberT = TypeVar("NumberT", int, float)

DEFAULT_NOTATION = Notation.CHINESE     # the one default of every --notation


def emit(document: Any) -> None:
    """One JSON document on stdout (UTF-8, Chinese as is)."""
    print(json.dumps(document, ensure_ascii=False))


def fail(args: argparse.Namespace, message: str, status: int = 1, **details: Any) -> int:
    """Report a failure: ``error: message`` on stderr and, with ``--json``, ``{"error":
    message, **details}`` on stdout.  Returns ``status`` (1: bad input or a negative answer)."""
    print(f"error: {message}", file=sys.stderr)
    if getattr(args, "json", False):
        emit({"error": message, **details})
    return status


def read_board(fen: str, args: argparse.Namespace | None = None) -> Board | None:
    """The board of ``fen``, or None after reporting what is wrong with it (see :func:`fail`):
    the FEN-or-error step of every command that takes a position."""
    try:
        return Board(fen)
    except FenError as error:
        fail(args or argparse.Namespace(), f"invalid FEN: {error}")
        return None


def cmd_perft(args: argparse.Namespace) -> int:
    board = read_board(args.fen, args)
    if board is None:
        return 1
    if args.divide and args.depth < 1:
        return fail(args, "--divide counts under each move: the depth must be at least 1")
    start = time.perf_counter()
    divide: dict[str, int] | None = None
    try:
        if args.divide:
            divide = {move.iccs(): count for move, count in
                      sorted(board.perft_divide(args.depth), key=lambda mc: mc[0].iccs())}
            total = sum(divide.values())
        else:
            total = board.perft(args.depth)
    except PerftInterrupted as stop:
        # What is known: the exact count under each root move finished before Ctrl-C.
        elapsed = time.perf_counter() - start
        print(f"interrupted after {elapsed:.1f} s: {len(stop.done)} of "
              f"{len(stop.done) + stop.remaining} root moves counted", file=sys.stderr)
        if args.json:
            emit({"fen": board.fen(), "depth": args.depth, "interrupted": True,
                  "divide": {move.iccs(): count for move, count in stop.done},
                  "partial_total": stop.partial_total, "remaining_root_moves": stop.remaining})
            return 130
        for move, count in stop.done:
            print(f"{move.iccs()}: {count}")
        print(f"partial total (the root moves above): {stop.partial_total}")
        return 130
    elapsed = time.perf_counter() - start
    if args.verbose:
        rate = total / elapsed if elapsed > 0 else float("inf")
        print(f"{elapsed:.3f} s, {rate / 1e6:.2f} M nodes/s", file=sys.stderr)
    if args.json:
        emit({"fen": board.fen(), "depth": args.depth, "nodes": total, "divide": divide,
              "seconds": round(elapsed, 3)})
        return 0
    if divide is not None:
        for move_text, count in divide.items():
            print(f"{move_text}: {count}")
        print()
    print(total)
    return 0


def cmd_moves(args: argparse.Namespace) -> int:
    from .notation import write_move

    board = read_board(args.fen, args)
    if board is None:
        return 1
    moves = sorted(board.legal_moves, key=lambda m: (m.from_square, m.to_square))
    written = [write_move(board, move, args.notation) for move in moves]
    if args.json:
        emit({"fen": board.fen(), "notation": args.notation,
              "moves": [{"move": move.iccs(), "written": text}
                        for move, text in zip(moves, written)]})
        return 0
    print(" ".join(written))
    return 0


def cmd_fen_check(args: argparse.Namespace) -> int:
    try:
        board = Board(args.fen)
    except FenError as error:
        if args.json:
            emit({"fen": args.fen, "valid": False, "error": str(error)})
        else:
            print(f"invalid: {error}")
        return 1
    if args.json:
        emit({"fen": args.fen, "valid": True, "error": None, "normalized": board.fen()})
    else:
        print("OK")
    return 0


def cmd_judge(args: argparse.Namespace) -> int:
    from .notation import NotationError, parse_line, write_move
    from .rules import adjudicate, classify_move, natural_limit

    board = read_board(args.fen, args)
    if board is None:
        return 1
    start = board.copy(stack=False)
    try:
        moves = parse_line(board.copy(stack=False), args.moves)
    except NotationError as error:
        return fail(args, str(error))
    rows: list[dict[str, Any]] = []
    for number, move in enumerate(moves, 1):
        mc = classify_move(board, move, args.rules)
        rows.append({"ply": number, "move": move.iccs(),
                     "written": write_move(board, move, args.notation),
                     "side": "red" if mc.color == 0 else "black", "kind": mc.kind.name.lower(),
                     "label": mc.label, "chases": [str(c) for c in mc.chases],
                     "notes": list(mc.notes)})
        board.push_unchecked(move)
    verdict = adjudicate(board, args.rules, min_occurrences=args.occurrences)
    limit = natural_limit(board, rules=args.rules)
    if args.json:
        emit({
            "fen": start.fen(), "rules": args.rules, "moves": rows,
            "verdict": None if verdict is None else {
                "result": verdict.result,
                "loser": None if verdict.loser is None else ("red", "black")[verdict.loser],
                "clause": verdict.clause,
                "cycle_start_ply": verdict.cycle.start_ply,
                "cycle_moves": [m.iccs() for m in verdict.cycle.moves],
                "occurrences": verdict.cycle.occurrences,
                "conduct": {("red", "black")[c.color]: {"label": c.label, "forbidden": c.forbidden,
                                                        "reason": c.reason}
                            for c in verdict.conduct}},
            "natural_limit": {"reached": limit.reached, "counted_plies": limit.counted_plies,
                              "plies_without_capture": limit.plies_without_capture,
                              "claimant_checks": limit.claimant_checks},
        })
        return 0
    for row in rows:
        detail = "; ".join(row["chases"] + row["notes"])
        print(f"{row['ply']:>3}. {_pad(row['written'], 10)} {row['label']}"
              + (f"  ({detail})" if detail else ""))
    if verdict is None:
        print(f"No repetition judged yet (needs the position {args.occurrences} times).")
    else:
        print(verdict)
    print(limit)
    return 0


def cmd_diagram(args: argparse.Namespace) -> int:
    board = read_board(args.fen, args)
    if board is None:
        return 1
    return write_diagram(args, board, args.title)


def _arrow(board: Board, text: str) -> Arrow:
    """An arrow from ICCS points (``h2e2``, any two points) or a legal move of ``board`` in
    any notation (``炮二平五``)."""
    from .notation import NotationError, parse_move
    from .svg import Arrow, DiagramError

    try:
        return Arrow.from_iccs(text)
    except DiagramError as error:
        try:
            move = parse_move(board, text)
        except NotationError:
            raise DiagramError(f"{error}; nor a legal move of the position") from None
        return Arrow(move.from_square, move.to_square)


def write_diagram(args: argparse.Namespace, board: Board, title: str | None) -> int:
    """Write the diagram of ``board`` as the options of :func:`add_diagram_options` ask and
    report it (``wrote FILE``, or JSON ``{"file", "format", "fen", "title", "warnings"}``)."""
    from .output import MissingExtraError
    from .svg import DiagramError, parse_marks, save

    try:
        arrows = [_arrow(board, text) for text in args.arrows.replace(",", " ").split()]
        written = save(args.output, board, scale=args.scale, flipped=args.flip,
                       marks=parse_marks(args.marks), arrows=arrows, title=title)
    except (DiagramError, MissingExtraError) as error:
        return fail(args, str(error))
    for warning in written.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if args.json:
        emit({"file": written.path, "format": written.format, "fen": board.fen(),
              "title": title, "warnings": list(written.warnings)})
    else:
        print(f"wrote {written.path} ({written.format})")
    return 0


def add_diagram_options(parser: argparse.ArgumentParser,
                        json_option: bool = True) -> argparse.ArgumentParser:
    """``-o FILE`` (.svg, .png, .pdf), ``--title``, ``--flip``, ``--marks``, ``--arrows``,
    ``--scale`` (and ``--json``): the options of every command that draws a diagram."""
    parser.add_argument("-o", "--output", required=True, metavar="FILE",
                        help="the file to write: .svg (vector), .png or .pdf (the format "
                             "from the suffix)")
    parser.add_argument("--title", help="a title above the board")
    parser.add_argument("--flip", action="store_true", help="Black at the bottom")
    parser.add_argument("--marks", default="", metavar="POINTS",
                        help="points to frame, e.g. e4,e5")
    parser.add_argument("--arrows", default="", metavar="MOVES",
                        help="arrows, e.g. h2e2,b0c2 (ICCS points, or moves in any notation)")
    parser.add_argument("--scale", type=number_argument(0.1, 20, float), default=2.0,
                        help="PNG pixels per SVG unit (default 2: 1140x1356 pixels)")
    return add_json_option(parser) if json_option else parser


def _diagram_arguments(diagram: argparse.ArgumentParser) -> None:
    diagram.add_argument("fen", metavar="FEN")
    add_diagram_options(diagram)
    diagram.set_defaults(handler=cmd_diagram)


def display_width(text: str) -> int:
    """The terminal columns ``text`` takes (a Chinese character takes two).

    >>> display_width("trap 车四进五")
    13
    """
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def cut_to_width(text: str, cells: int) -> str:
    """``text`` cut to at most ``cells`` terminal columns, never in a wide character.

    >>> cut_to_width("line 车四进五", 10)
    'line 车四'
    """
    width = 0
    for index, char in enumerate(text):
        width += display_width(char)
        if width > cells:
            return text[:index]
    return text


def _pad(text: str, cells: int) -> str:
    """``text`` padded to ``cells`` terminal columns (Chinese characters take two)."""
    return text + " " * max(0, cells - display_width(text))


# The largest whole number any argument takes: the catalogue's SQLite INTEGER and the
# solver's counters are 64-bit signed.
MAX_WHOLE_NUMBER = 2**63 - 1
# The longest time budget (about 115 days): timers and deadlines take no more.
MAX_SECONDS = 10.0**7


def number_argument(minimum: float, maximum: float | None = None,
                    kind: Callable[[str], NumberT] = int) -> Callable[[str], NumberT]:
    """An argparse type: a finite ``kind`` (int or float) from ``minimum`` to ``maximum``
    (default: :data:`MAX_WHOLE_NUMBER`), else a usage error naming the range.  Every numeric
    option of every command is read by it, so none can overflow what it is given to.

    >>> number_argument(1, 200)("30")
    30
    >>> number_argument(0)("99999999999999999999")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be at most 9,223,372,036,854,775,807, not 99999999999999999999
    """
    top = MAX_WHOLE_NUMBER if maximum is None else maximum
    noun = "whole number" if kind is int else "number"

    def parse(text: str) -> NumberT:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a {noun}, not {text!r}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"must be a finite number, not {text}")
        if not minimum <= value <= top:
            if maximum is not None:
                bound = f"from {_shown(minimum)} to {_shown(top)}"
            else:
                bound = f"at least {_shown(minimum)}" if value < minimum else \
                    f"at most {_shown(top)}"
            raise argparse.ArgumentTypeError(f"must be {bound}, not {text}")
        return value
    parse.__name__ = noun       # argparse names the type in its own messages
    return parse


def _shown(number: float) -> str:
    """``10,000,000`` for a whole number, ``0.1`` otherwise."""
    return f"{int(number):,}" if float(number).is_integer() else f"{number:g}"


def whole_number(minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number from ``minimum`` to ``maximum`` (see
    :func:`number_argument`)."""
    return number_argument(minimum, maximum, int)


def seconds_argument() -> Callable[[str], float]:
    """An argparse type: a time budget in seconds, 0 (none) to :data:`MAX_SECONDS`."""
    return number_argument(0.0, MAX_SECONDS, float)


def add_json_option(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("--json", action="store_true",
                        help="one JSON document on stdout (with an error: {\"error\": ...})")
    return parser


def add_notation_option(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("--notation", choices=NOTATIONS, default=str(DEFAULT_NOTATION),
                        help=f"how moves are written (default {DEFAULT_NOTATION}; JSON always "
                             "has ICCS too)")
    return parser


def _perft_arguments(perft: argparse.ArgumentParser) -> None:
    perft.add_argument("fen", metavar="FEN")
    perft.add_argument("depth", metavar="DEPTH", type=whole_number(0, 64))
    perft.add_argument("--divide", action="store_true", help="show the count under each move")
    perft.add_argument("-v", "--verbose", action="store_true", help="print time and speed")
    add_json_option(perft)
    perft.set_defaults(handler=cmd_perft)


def _moves_arguments(moves: argparse.ArgumentParser) -> None:
    moves.add_argument("fen", metavar="FEN")
    add_notation_option(moves)
    add_json_option(moves)
    moves.set_defaults(handler=cmd_moves)


def _check_arguments(check: argparse.ArgumentParser) -> None:
    check.add_argument("fen", metavar="FEN")
    add_json_option(check)
    check.set_defaults(handler=cmd_fen_check)


def _judge_arguments(judge: argparse.ArgumentParser) -> None:
    judge.add_argument("fen", metavar="FEN", help="the position before the moves")
    judge.add_argument("moves", metavar="MOVE", nargs="*",
                       help="moves in ICCS, WXF, Chinese or 一字三码 (detected)")
    judge.add_argument("--rules", choices=tuple(str(r) for r in RuleSetName),
                       default=str(RuleSetName.CHINESE),
                       help="rule set: chinese (中国象棋竞赛规则) or asian (AXF)")
    judge.add_argument("--occurrences", type=whole_number(2, 1000), default=3,
                       help="judge once the final position has occurred this often (default 3)")
    add_notation_option(judge)
    add_json_option(judge)
    judge.set_defaults(handler=cmd_judge)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    position = subparsers.add_parser(
        "position", help="a position: perft, legal moves, FEN check, repetition judging, "
                         "diagrams")
    actions = position.add_subparsers(dest="position_command", metavar="ACTION", required=True)
    _perft_arguments(actions.add_parser("perft", help="count leaf nodes of the legal move tree"))
    _moves_arguments(actions.add_parser("moves", help="list the legal moves of a position"))
    _check_arguments(actions.add_parser("check", help="validate a FEN: OK, or what is wrong "
                                                      "(exit status 1)"))
    _judge_arguments(actions.add_parser(
        "judge", help="classify moves by the repetition rules (将/杀/捉/闲) and judge a cycle"))
    _diagram_arguments(actions.add_parser(
        "diagram", help="a printable diagram of the position: SVG, PNG or PDF"))

    # The old flat spellings, kept for scripts (not listed in the help).
    _perft_arguments(subparsers.add_parser("perft"))
    _moves_arguments(subparsers.add_parser("moves"))
    _judge_arguments(subparsers.add_parser("judge"))
    _diagram_arguments(subparsers.add_parser("diagram"))      # the spelling
    fen = subparsers.add_parser("fen")
    fen_commands = fen.add_subparsers(dest="fen_command", metavar="ACTION", required=True)
    _check_arguments(fen_commands.add_parser("check", help="validate a FEN"))
