"""Solver subcommands: ``problem solve`` and ``problem verify`` (the old flat spellings
``solve`` and ``verify`` still work).

Exit status: ``solve`` 0 when a mate is proven, 1 when none is (no mate within the bound, or
unknown: a limit stopped the search); ``verify`` 0 for a sound problem (the stipulation met
with a unique key, nothing left unproven, the recorded line, if given, forced and minimal;
for a draw: neither side can force a win), 1 otherwise; both 1 for bad input, 2 for usage.
"""
from __future__ import annotations

import argparse
import shutil
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from tablebases.cli import add_tables_option
from xiangqi import Board, Move
from xiangqi.cli import (
    add_json_option,
    add_notation_option,
    cut_to_width,
    display_width,
    emit,
    fail,
    number_argument,
    read_board,
    seconds_argument,
    whole_number,
)
from xiangqi.notation import write_line
from xiangqi.output import JsonObject

from ._dfpn import MAX_ORDER, MAX_THREADS
from .draw import DEFAULT_DRAW_SECONDS, DEFAULT_LINE_PLIES, DEFAULT_TRAP_MOVES, default_seconds
from .search import (
    DEFAULT_LAMBDA_ORDERS,
    DEFAULT_MAX_MOVES,
    DEFAULT_PROPOSER,
    DEFAULT_PROPOSER_SHARE,
    DEFAULT_SEARCH_SECONDS,
    DEFAULT_TABLE_BITS,
    LINE_RESERVE,
    MAX_MOVES_BOUND,
    MAX_PROPOSER_SHARE,
    PROPOSERS,
    TABLE_BITS_RANGE,
    THREADS_VARIABLE,
    Limits,
    Solver,
    SolverError,
    default_bound,
    default_search_threads,
    game_position_text,
    order_name,
    search_ran_out_text,
)
from .types import DEFAULT_DRAW_BOUND, STIPULATIONS, DrawVerdict, Mode, Stipulation, Verdict

if TYPE_CHECKING:
    from tablebases.probe import Tablebase

    from .draw import TableNeed
    from .refute import Refutation
    from .soundness import Alternative, SoundnessReport

RULE_SETS = ("chinese", "asian")


def _open_tables(args: argparse.Namespace) -> Tablebase | None:
    """The tablebase the search probes (None: --no-tables, or no table in the directory);
    the caller closes it."""
    from tablebases import open_tablebase

    if args.no_tables:
        return None
    directory = args.tables
    if not directory.is_dir():
        return None
    tablebase = open_tablebase(directory)
    if not tablebase.materials():
        tablebase.close()
        return None
    return tablebase


class LiveProgress:
    """Nodes, speed, table fill and time on one stderr line; Ctrl-C cancels the search."""

    def __init__(self, quiet: bool) -> None:
        self.start = time.perf_counter()
        self.quiet = quiet or not sys.stderr.isatty()
        self.cancelled = False
        self.entries = 1
        self.solver: Solver | None = None    # set once made: the line names its λ order
        self.phase = ""                      # a draw analysis: what it searches, with the bound
        self.width = 0                       # the columns of the progress line shown

    def set_phase(self, text: str) -> None:
        self.phase = text

    def __call__(self, nodes: int, table_used: int) -> bool:
        if not self.quiet:
            elapsed = time.perf_counter() - self.start
            rate = nodes / elapsed if elapsed > 0 else 0.0
            order = f"  {self.solver.current_order}" if self.solver else ""
            if self.phase:
                order = f"  {self.phase}"
            line = (f"{nodes:>12,} nodes  {rate / 1e3:6.0f} k nodes/s  table "
                    f"{100.0 * table_used / self.entries:5.1f}%  {elapsed:7.1f} s{order}")
            # One terminal line, never wrapped (a carriage return goes back to the start of
            # the last row only): cut to the terminal's width, measured in columns (a phase
            # in Chinese takes two a character), and padded over the longer line before.
            line = cut_to_width(line, shutil.get_terminal_size().columns - 1)
            width = display_width(line)
            sys.stderr.write("\r" + line + " " * max(0, self.width - width))
            self.width = width
            sys.stderr.flush()
        return self.cancelled

    def finish(self) -> None:
        if not self.quiet:
            sys.stderr.write("\r" + " " * self.width + "\r")


def _limits(args: argparse.Namespace, draw: bool = False) -> Limits:
    """The search limits.  Without ``--seconds`` a search gets a finite budget (a draw
    analysis :data:`DEFAULT_DRAW_SECONDS`, any other :data:`DEFAULT_SEARCH_SECONDS`), unless
    ``--nodes`` alone sets one (node budgets give the same answer on any machine)."""
    if args.threads is None:            # the default: $XQSTUDIO_THREADS, else the cores
        args.threads = default_search_threads()
    if args.seconds is not None:
        seconds = args.seconds
    elif args.nodes and not draw:
        seconds = 0.0
    else:
        seconds = default_seconds(draw)
    return Limits(nodes=args.nodes, seconds=seconds, table_bits=args.table_bits,
                  lambda_orders=0 if args.full_width else args.orders, threads=args.threads,
                  proposer_share=args.proposer_share, proposer=args.proposer)


def budget_text(limits: Limits) -> str:
    """``budget 60 s`` / ``budget 5,000,000 nodes`` / ``no budget``, with how to change it."""
    parts = ([f"{limits.seconds:g} s"] if limits.seconds else []) + \
        ([f"{limits.nodes:,} nodes"] if limits.nodes else [])
    if not parts:
        return "no budget"
    return f"budget {' and '.join(parts)} (--seconds, --nodes; 0: none)"


def _budget_json(limits: Limits) -> JsonObject:
    # kept_for_line: the share of the budget the search leaves for a proof's main line.
    return {"seconds": limits.seconds, "nodes": limits.nodes, "kept_for_line": LINE_RESERVE}


@contextmanager
def _interruptible(progress: LiveProgress, tablebase: Tablebase | None) -> Iterator[None]:
    """Ctrl-C inside cancels the running search (within 0.1 s: the progress hook is called
    that often) instead of raising; on the way out the progress line is finished and the
    tables are closed."""
    previous = signal.signal(signal.SIGINT, lambda *_: setattr(progress, "cancelled", True))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        progress.finish()
        if tablebase is not None:
            tablebase.close()


def _request(args: argparse.Namespace, bound: int | None = None, option: str | None = None,
             draw: bool = False) -> tuple[Board, Limits] | int:
    """The board and the limits of a search command, or its exit status after saying what
    is wrong: a bad FEN; a game position with no bound asked for (``option`` names the bound:
    the search would run out its budget and settle nothing); limits that cannot be had (a
    table larger than the memory available, a bad $XQSTUDIO_THREADS)."""
    board = read_board(args.fen, args)
    if board is None:
        return 1
    game = game_position_text(board) if option is not None and bound is None else None
    if game is not None:
        return fail(args, f"{game}: a forced mate from it is beyond any search; give {option} "
                          "N to look for a mate within N moves all the same")
    try:
        return board, _limits(args, draw)
    except SolverError as error:
        return fail(args, str(error))


def cmd_solve(args: argparse.Namespace) -> int:
    if args.draw:
        return cmd_draw(args, args.max_moves)
    request = _request(args, args.max_moves, "--max-moves")
    if isinstance(request, int):
        return request
    board, limits = request
    progress = LiveProgress(args.json)
    progress.entries = 1 << args.table_bits
    mode = Mode.CHECKS if args.checks else Mode.ANY
    failed = _build_root_table(args, board)
    if failed is not None:
        return failed
    tablebase = _open_tables(args)
    try:
        with _interruptible(progress, tablebase):
            solver = Solver(board, mode, limits, tablebase, progress)
            progress.solver = solver
            result = solver.run(args.max_moves or default_bound(board, mode, tablebase))
    except SolverError as error:
        return fail(args, str(error))
    # Ctrl-C: what is known is printed, and the status says interrupted (130).
    status = 130 if progress.cancelled else 0 if result.verdict == Verdict.MATE else 1
    line = write_line(board, result.main_line, args.notation)
    if args.json:
        emit({
            "fen": board.fen(), "mode": result.mode, "max_moves": result.max_moves,
            "verdict": result.verdict, "moves": result.length, "plies": result.plies,
            "exact": result.exact,
            "order": (result.order if result.order is not None else "full")
            if result.verdict == Verdict.MATE else None,
            "main_line": [m.iccs() for m in result.main_line], "main_line_text": line,
            "line_complete": result.line_complete,
            "line_shorter_than_mate": result.line_shorter_than_mate,
            "nodes": result.nodes, "seconds": round(result.seconds, 3),
            "tb_leaves": result.tb_leaves, "threat_tests": result.threat_tests,
            "table_moves": result.table_moves, "interrupted": progress.cancelled,
            "minimality_skipped": None if result.minimality_skip is None else {
                "bound": result.minimality_skip.bound,
                "estimated_nodes": result.minimality_skip.estimated_nodes,
                "nodes_left": result.minimality_skip.nodes_left},
            "budget": _budget_json(limits),
        })
        return status
    how = "every move a check" if result.mode == Mode.CHECKS else (
        "quiet moves allowed, from the tablebase" if result.table_moves else
        f"quiet moves allowed, found at {order_name(result.order)}")
    if result.verdict == Verdict.MATE and not result.exact:
        if result.minimality_skip is not None:
            reason = (f"a shorter mate not searched for: "
                      f"{result.minimality_skip.text()}")
        else:
            reason = ("interrupted" if progress.cancelled else "a search limit was reached") + \
                " before a shorter mate was ruled out"
        print(f"Mate in at most {result.length} ({how}; {reason})")
    elif result.verdict == Verdict.MATE:
        print(f"Mate in {result.length} ({result.plies} plies), {how}")
    if result.verdict == Verdict.MATE:
        if not result.line_complete:
            print("Main line: not extracted within the budget" +
                  ("; its first moves:" if line else ""))
        elif result.line_shorter_than_mate:
            print(f"Main line: a mate in {result.line_moves} against a defence "
                  f"that is not the longest (the longest was not extracted)")
        elif result.line_shorter_than_bound:
            print(f"Main line: a mate in {result.line_moves} along the proof's defences (the "
                  f"longest defence lasts at most {result.length} moves)")
        if line:
            print(_numbered(line, board.turn))
    elif result.verdict == Verdict.NO_MATE:
        kind = "continuous-check " if result.mode == Mode.CHECKS else ""
        print(f"No {kind}mate within {result.max_moves} "
              f"{'move' if result.max_moves == 1 else 'moves'}")
        if result.table_moves:
            print(f"The tablebase gives mate in {result.table_moves}: run with --max-moves "
                  f"{result.table_moves}")
    else:
        reason = "interrupted before the search finished" if progress.cancelled else \
            search_ran_out_text()
        print(f"Unknown: {reason}; {budget_text(limits)}")
    tables = f", {result.tb_leaves:,} tablebase leaves" if result.tb_leaves else ""
    print(f"{result.nodes:,} nodes in {result.seconds:.2f} s "
          f"({result.nodes_per_second / 1e3:.0f} k nodes/s{tables}); {budget_text(limits)}",
          file=sys.stderr)
    return status


def _print_refutation(refutation: Refutation, board: Board, notation: str) -> None:
    print(refutation.describe(board))
    if refutation.main_line:
        print("Refutation (the longest resistance; ties: first in ICCS order):")
        print(_numbered(write_line(board, refutation.main_line, notation), board.turn))


def cmd_refute(args: argparse.Namespace) -> int:
    """``problem refute``: is the side to move mated whatever it plays?"""
    from .refute import DEFAULT_REFUTATION_MOVES, refute

    request = _request(args)
    if isinstance(request, int):
        return request
    board, limits = request
    progress = LiveProgress(args.json)
    progress.entries = 1 << args.table_bits
    tablebase = _open_tables(args)
    with _interruptible(progress, tablebase):
        refutation = refute(board, args.max_moves or DEFAULT_REFUTATION_MOVES, tablebase,
                            limits, progress)
    status = 130 if progress.cancelled else 0 if refutation.refuted else 1
    if args.json:
        emit({"fen": board.fen(), **refutation.to_dict(), "interrupted": progress.cancelled,
              "budget": _budget_json(limits)})
        return status
    if progress.cancelled and not refutation.refuted:
        print("Refutation unknown: interrupted (Ctrl-C)")
    else:
        _print_refutation(refutation, board, args.notation)
    tables = f", {refutation.tb_leaves:,} tablebase leaves" if refutation.tb_leaves else ""
    print(f"{refutation.nodes:,} nodes in {refutation.seconds:.2f} s{tables}; "
          f"{budget_text(limits)}", file=sys.stderr)
    return status


def _refute_arguments(refute_: argparse.ArgumentParser) -> None:
    from .refute import DEFAULT_REFUTATION_MOVES

    refute_.add_argument("fen", metavar="FEN")
    refute_.add_argument("--max-moves", type=whole_number(1, MAX_MOVES_BOUND), default=None,
                         help="bound on the other side's moves to mate (default "
                              f"{DEFAULT_REFUTATION_MOVES})")
    add_notation_option(refute_)
    add_json_option(refute_)
    _search_options(refute_)
    refute_.set_defaults(handler=cmd_refute)


def _sound(report: SoundnessReport) -> bool:
    """Whether the problem meets its stipulation soundly (the exit status of verify)."""
    if report.unproven:
        return False
    check = report.intended
    line_ok = check is None or (check.forced and check.minimal and not check.problem)
    return report.sound and line_ok


def cmd_verify(args: argparse.Namespace) -> int:
    from .soundness import verify

    if args.stipulation == Stipulation.DRAW:
        return cmd_draw(args, args.moves, line=args.line)
    request = _request(args, args.moves, "--moves")
    if isinstance(request, int):
        return request
    board, limits = request
    failed = _build_root_table(args, board)
    if failed is not None:
        return failed
    tablebase = _open_tables(args)
    # After Ctrl-C the report says what was established before it.
    progress = LiveProgress(args.json)
    try:
        with _interruptible(progress, tablebase):
            report = verify(board, args.stipulation, args.moves, args.line,
                            tablebase=tablebase, limits=limits, progress=progress,
                            refutation=not args.no_refute)
    except SolverError as error:
        return fail(args, str(error))
    status = 130 if progress.cancelled else 0 if _sound(report) else 1
    if progress.cancelled:
        report.unproven.insert(0, "interrupted (Ctrl-C): the report is incomplete")

    def name(move: Move, before: Board = board) -> str:
        return write_line(before, [move], args.notation)[0]

    if args.json:
        emit({**_report_json(report), "sound": status == 0, "budget": _budget_json(limits)})
        return status
    kind = "continuous check (连照杀)" if report.stipulation == Stipulation.CHECKS else "mate"
    print(f"Stipulation: {kind}"
          f" within {report.bound} moves; {budget_text(limits)}")
    if report.verdict != Verdict.MATE or report.length is None:
        print(f"Verdict: {report.verdict}")
    else:
        plies = 2 * report.length - 1
        at_most = "" if report.exact else "at most "
        print(f"Verdict: mate in {at_most}{report.length} "
              f"({plies} {'ply' if plies == 1 else 'plies'})")
        if report.key is None:
            print("Key: not known (the main line was not extracted within the budget)")
        else:
            print(f"Key: {name(report.key)} " + ("(unique)" if not report.cooks else
                                                 "(cooked)"))
        for cook in report.cooks:
            print(f"  cook: {name(cook.move)} also mates in {cook.length}")
        for trial in report.tries:
            after = board.copy()
            after.push(trial.move)
            assert trial.refutation is not None, "a try is refuted by a single defence"
            print(f"  try: {name(trial.move)}, refuted only by {name(trial.refutation, after)}")
        line = write_line(board, report.main_line, args.notation)
        print("Main line (longest defence; ties: first in ICCS order):" if
              report.line_complete else
              "Main line: not extracted within the budget" + (
                  "; its first moves:" if report.main_line else ""))
        if line:
            print(_numbered(line, board.turn))
        replay = board.copy()
        for ply, move in enumerate(report.main_line):
            for dual in report.duals:
                if dual.ply == ply:
                    print(f"  dual at move {ply // 2 + 1}: {name(dual.move, replay)} "
                          f"also mates "
                          f"in {dual.length}")
            replay.push(move)
        if not report.duals:
            print("No duals on the main line.")
    if report.refutation is not None:
        _print_refutation(report.refutation, board, args.notation)
    if report.intended is not None:
        check = report.intended
        verdict = "sound" if check.forced and check.minimal and not check.problem else "flawed"
        print(f"Recorded line: {verdict}" + (f": {check.problem}" if check.problem else ""))
    for item in report.unproven:
        print(f"unproven: {item}")
    print("Sound." if status == 0 else "Interrupted (exit status 130)." if status == 130
          else "Not sound (exit status 1).")
    return status


def _build_root_table(args: argparse.Namespace, board: Board) -> int | None:
    """``--build-tables`` on a mate search: the table of the position's own material (with
    its sub-tables) first, if it fits in memory, its cost said; the search then probes it
    at the root and at every leaf of that material (a long endgame's answer in
    milliseconds where a search runs out: issue 37's taxonomy)."""
    if not args.build_tables or args.no_tables:
        return None
    from .draw import table_need

    return _build_missing(args, [table_need(board, args.tables, args.threads)])


def _build_missing(args: argparse.Namespace, needs: list[TableNeed]) -> int | None:
    """Build each of ``needs`` (:class:`solver.draw.TableNeed`) that is missing and fits,
    saying what it costs; None when done, else the exit status of the failure."""
    from tablebases.build import BuildError
    from tablebases.format import CorruptTableError

    from .draw import build_tables

    for need in needs:
        if need.present:
            continue
        print(need.describe(), file=sys.stderr)
        if not need.fits:
            continue
        try:
            build_tables(need, args.tables, args.threads,
                         log=lambda text: print(text, file=sys.stderr))
        except (BuildError, CorruptTableError, OSError) as error:
            return fail(args, f"building {need.material}: {error}")
        except KeyboardInterrupt:
            fail(args, f"building {need.material} was interrupted")
            return 130
    return None


def cmd_draw(args: argparse.Namespace, bound: int | None, line: str | None = None) -> int:
    """``verify --stipulation draw`` and ``solve --draw``: the draw analysis of
    :mod:`solver.draw` (exit status 0: the draw is proven, by a table, or holds within the
    bound for both sides with nothing unproven; 1 otherwise; 130 interrupted)."""
    from .draw import analyse_draw, analysis_json, report_lines, table_need

    if line is not None:
        return fail(args, "--line checks a mating line; a draw study's line is found by the "
                          "analysis (leave --line out with --stipulation draw)")
    request = _request(args, draw=True)
    if isinstance(request, int):
        return request
    board, limits = request
    building = args.build_tables and not args.no_tables
    if building:
        failed = _build_missing(args, [table_need(board, args.tables, args.threads)])
        if failed is not None:
            return failed
    progress = LiveProgress(args.json)
    progress.entries = 1 << args.table_bits
    for attempt in ("first", "again"):
        tablebase = _open_tables(args)
        try:
            with _interruptible(progress, tablebase):
                analysis = analyse_draw(
                    board, bound or DEFAULT_DRAW_BOUND, tablebase, limits,
                    args.rules, progress, phase=progress.set_phase, traps=not args.no_traps,
                    line=not args.no_line, trap_moves=args.trap_moves,
                    line_plies=args.line_plies, threads=args.threads)
        except SolverError as error:
            return fail(args, str(error))
        # The tables the line and the traps reach by captures: built, then analysed again
        # once, so that those positions get their exact values.
        reached = [need for need in analysis.reached_tables if need.fits]
        if attempt == "again" or not building or not reached or progress.cancelled:
            break
        failed = _build_missing(args, reached)
        if failed is not None:
            return failed
        print("analysing again with the tables built", file=sys.stderr)
    proven = analysis.verdict in (DrawVerdict.DRAW, DrawVerdict.NO_WIN) and not analysis.unproven
    status = 130 if progress.cancelled else 0 if proven else 1
    if progress.cancelled:
        analysis.unproven.insert(0, "interrupted (Ctrl-C): the analysis is incomplete")
    if args.json:
        emit({**analysis_json(analysis), "interrupted": progress.cancelled})
        return status
    for text in report_lines(analysis, board, args.notation):
        print(text)
    if status == 130:
        print("Interrupted (exit status 130).")
    elif analysis.verdict == DrawVerdict.DRAW and proven:
        print("Sound: the draw is proven.")
    elif proven:
        print(f"Sound within {analysis.bound} moves (a bounded proof, not a proven draw).")
    elif analysis.unsound:
        print("Unsound: a side forces a win (exit status 1).")
    else:
        print("Not proven (exit status 1).")
    return status


def _report_json(report: SoundnessReport) -> JsonObject:
    def alt(a: Alternative) -> JsonObject:
        return {"move": a.move.iccs(), "length": a.length,
                "refutation": a.refutation.iccs() if a.refutation else None}

    data = {
        "stipulation": report.stipulation, "verdict": report.verdict, "moves": report.length,
        "bound": report.bound, "key": report.key.iccs() if report.key else None,
        "unique_key": report.key is not None and not report.cooks,
        "cooks": [alt(a) for a in report.cooks], "tries": [alt(a) for a in report.tries],
        "duals": [{"ply": d.ply, "move": d.move.iccs(), "length": d.length} for d in report.duals],
        "main_line": [m.iccs() for m in report.main_line], "unproven": report.unproven,
        "exact": report.exact, "line_complete": report.line_complete,
        "refutation": report.refutation.to_dict() if report.refutation else None,
    }
    if report.intended is not None:
        data["intended"] = report.intended.__dict__
    if report.draw is not None:
        data["draw"] = report.draw.__dict__
    return data


def _numbered(moves: list[str], first_turn: int) -> str:
    parts = []
    number = 1
    index = 0
    if first_turn == 1 and moves:
        parts.append(f"1. ... {moves[0]}")
        index, number = 1, 2
    while index < len(moves):
        pair = moves[index:index + 2]
        parts.append(f"{number}. " + " ".join(pair))
        index += 2
        number += 1
    return "\n".join(parts)


def _search_options(parser: argparse.ArgumentParser, per_search: bool = False) -> None:
    each = " per search" if per_search else ""
    parser.add_argument("--nodes", type=whole_number(0), default=0,
                        help=f"node budget{each} (0: none)")
    parser.add_argument("--seconds", type=seconds_argument(), default=None,
                        help=f"time budget{each} in seconds (0: none; default "
                             f"{DEFAULT_SEARCH_SECONDS:.0f}, for a draw analysis "
                             f"{DEFAULT_DRAW_SECONDS:.0f}; with --nodes alone, none)")
    parser.add_argument("--table-bits", type=whole_number(*TABLE_BITS_RANGE),
                        default=DEFAULT_TABLE_BITS,
                        help="transposition table of 2^N entries, 32 bytes each (default "
                             f"{DEFAULT_TABLE_BITS})")
    parser.add_argument("--orders", type=whole_number(1, MAX_ORDER), default=DEFAULT_LAMBDA_ORDERS,
                        help="quiet-move problems: λ orders tried before the full-width search "
                             f"(default {DEFAULT_LAMBDA_ORDERS}; order 1 = checks, order n = "
                             "moves that threaten an order n-1 win)")
    parser.add_argument("--full-width", action="store_true",
                        help="quiet-move problems: plain full-width search, no λ orders")
    parser.add_argument("--threads", type=whole_number(1, MAX_THREADS), default=None,
                        help="cores to use: processes searching together on one shared table "
                             "(the node budget counts all of them) and threads of a table build "
                             f"(default: ${THREADS_VARIABLE}, else every core)")
    parser.add_argument("--proposer-share", type=number_argument(0.0, MAX_PROPOSER_SHARE, float),
                        default=DEFAULT_PROPOSER_SHARE,
                        help="quiet-move problems: share of the budget for the alpha-beta mate "
                             "finder whose mates df-pn tries first (default "
                             f"{DEFAULT_PROPOSER_SHARE:g}: off)")
    parser.add_argument("--proposer", choices=PROPOSERS, default=DEFAULT_PROPOSER,
                        help="the mate finder of --proposer-share: threats (quiet moves admitted "
                             "by threat tests) or eval (evaluation-guided alpha-beta; default "
                             f"{DEFAULT_PROPOSER})")
    add_tables_option(parser)
    parser.add_argument("--no-tables", action="store_true", help="do not probe tablebases")


def _solve_arguments(solve_: argparse.ArgumentParser) -> None:
    solve_.add_argument("fen", metavar="FEN")
    solve_.add_argument("--checks", action="store_true",
                        help="continuous-check problem (连照杀): every attacker move checks")
    solve_.add_argument("--max-moves", type=whole_number(1, MAX_MOVES_BOUND), default=None,
                        help="bound on the attacker's moves (default "
                             f"{DEFAULT_MAX_MOVES[Mode.CHECKS]} with --checks, else "
                             f"{DEFAULT_MAX_MOVES[Mode.ANY]}, or the mate of the position's "
                             "table if longer)")
    solve_.add_argument("--draw", action="store_true",
                        help="a draw study (红先和): tables, bounded proofs for both sides, "
                             "traps and the drawing line (--max-moves: the bound)")
    add_notation_option(solve_)
    add_json_option(solve_)
    _search_options(solve_)
    _draw_options(solve_)
    solve_.set_defaults(handler=cmd_solve)


def _verify_arguments(verify: argparse.ArgumentParser) -> None:
    verify.add_argument("fen", metavar="FEN")
    verify.add_argument("--stipulation", choices=STIPULATIONS, default=str(Stipulation.WIN),
                        help="win: mate; checks: continuous check (连照杀); draw: 红先和")
    verify.add_argument("--moves", type=whole_number(1, MAX_MOVES_BOUND), default=None,
                        help="stipulated number of attacker moves (default: the forced length; "
                             f"for draw: the search bound, {DEFAULT_DRAW_BOUND})")
    verify.add_argument("--line", default=None, help="the recorded solution, any notation")
    verify.add_argument("--no-refute", action="store_true",
                        help="when no mate is proven, do not search for the other side's mate "
                             "against every move (by default it runs within the same budget)")
    add_notation_option(verify)
    add_json_option(verify)
    _search_options(verify, per_search=True)
    _draw_options(verify)
    verify.set_defaults(handler=cmd_verify)


def _draw_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("tables and draw analysis (verify --stipulation draw, "
                                      "solve --draw)")
    group.add_argument("--rules", choices=RULE_SETS, default="chinese",
                       help="repetition rules (棋例) that judge every repetition (default "
                            "chinese)")
    group.add_argument("--build-tables", action="store_true",
                       help="build the missing table of the position's material first, if it "
                            "fits in memory (its time and memory are said); a draw analysis "
                            "also builds those the drawing line and the traps reach by "
                            "captures, then analyses again")
    group.add_argument("--trap-moves", type=whole_number(1, 1000), default=DEFAULT_TRAP_MOVES,
                       help="first moves examined for traps, checks and captures first "
                            f"(default {DEFAULT_TRAP_MOVES})")
    group.add_argument("--line-plies", type=whole_number(1, MAX_MOVES_BOUND),
                       default=DEFAULT_LINE_PLIES,
                       help=f"plies of the drawing line at most (default {DEFAULT_LINE_PLIES})")
    group.add_argument("--no-traps", action="store_true", help="do not look for traps")
    group.add_argument("--no-line", action="store_true", help="no drawing line")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    problem = subparsers.add_parser("problem",
                                    help="mate problems: solve, verify soundness, refute")
    actions = problem.add_subparsers(dest="problem_command", metavar="ACTION", required=True)
    _solve_arguments(actions.add_parser("solve", help="prove a mate for the side to move "
                                                      "(exit status 1: none proven)"))
    _verify_arguments(actions.add_parser(
        "verify", help="soundness of a problem: key, cooks, duals, tries (exit status 1: "
                       "not sound)"))
    _refute_arguments(actions.add_parser(
        "refute", help="prove that the side to move is mated whatever it plays: a win "
                       "stipulation false as set (exit status 1: not proven)"))
    # The old flat spellings, kept for scripts (not listed in the help).
    _solve_arguments(subparsers.add_parser("solve"))
    _verify_arguments(subparsers.add_parser("verify"))
