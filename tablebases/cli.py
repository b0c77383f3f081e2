"""Tablebase subcommands: ``tb build``, ``tb probe``, ``tb stats``, ``tb verify``, ``tb list``.

Every one takes ``--tables DIR`` (``--dir`` still works) and ``--json``; a table opened is
closed on every path.  Exit status 1: bad input, a missing or damaged table, or (``verify``)
mismatches; 2: usage.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import TypeVar

from xiangqi import Board, Move
from xiangqi.cli import add_json_option, add_notation_option, emit, fail, read_board, whole_number
from xiangqi.fen import placement_fen
from xiangqi.output import JsonObject

from .build import (
    METRICS,
    BuildError,
    Mismatch,
    build,
    checkpoint_path,
    default_threads,
    indexer_for,
    rules_directory,
    table_problem,
    verify_file,
)
from .format import CorruptTableError, TablebaseError, TableFile, rebuild_command, table_path
from .material import Material, MaterialError
from .paths import default_directory
from .probe import TableValue, describe, open_tablebase
from .stats import format_histogram, side_name, table_stats
from .values import RULE_SET_RULES, code_words

# The parser class of the front end's subcommands (tui's CommandParser).
ParserT = TypeVar("ParserT", bound=argparse.ArgumentParser)


class _Progress:
    """A progress bar on stderr: time spent against the estimate, the metric and its pass."""

    WIDTH = 24

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self.table = ""
        self.estimate = 0.0
        self.start = time.perf_counter()

    def start_table(self, name: str, estimate: float) -> None:
        self.table, self.estimate, self.start = name, estimate, time.perf_counter()

    def __call__(self, label: str, n: int, found: int) -> None:
        elapsed = time.perf_counter() - self.start
        share = min(elapsed / self.estimate, 0.99) if self.estimate > 0 else 0.0
        bar = "#" * round(self.WIDTH * share) + "." * (self.WIDTH - round(self.WIDTH * share))
        line = (f"[{bar}] {label} pass {n}: {found:,} at distance {n}  "
                f"{elapsed:.0f} s of ~{self.estimate:.0f} s")
        if self.tty:
            sys.stderr.write("\r" + line[:110].ljust(110))
            sys.stderr.flush()
        elif n % 25 == 0:
            print(line, file=sys.stderr)

    def done(self) -> None:
        if self.tty:
            sys.stderr.write("\n")


def cmd_build(args: argparse.Namespace) -> int:
    progress = _Progress()

    def log(line: str) -> None:
        if progress.tty:
            sys.stderr.write("\r" + " " * 110 + "\r")
        print(line, file=sys.stderr)

    try:
        for name in args.material:
            Material.parse(name)
        if (args.cluster is not None or args.workers is not None) and args.rules is not None:
            return fail(args, "--rules cannot be combined with --cluster or --workers yet: "
                              "build the tables of a rule set in one process", status=2)
        if args.cluster is not None or args.workers is not None:
            summary = _build_on_cluster(args, log, progress.tty)
        else:
            summary = build(args.material, args.tables, threads=args.threads or default_threads(),
                            rebuild=args.rebuild, log=log, progress=progress, verify=args.verify,
                            rules=args.rules, verbose=args.verbose)
    except TablebaseError as error:
        progress.done()
        return fail(args, error.user_text())
    except (MaterialError, BuildError, OSError, ValueError) as error:
        progress.done()
        return fail(args, str(error))
    except KeyboardInterrupt:
        progress.done()
        return _interrupted(args)
    progress.done()
    try:
        return _report_built(args, summary)
    except KeyboardInterrupt:         # Ctrl-C just after the last table was written
        return _interrupted(args)


def _build_on_cluster(args: argparse.Namespace, log: Callable[[str], None],
                      tty: bool) -> dict[str, JsonObject]:
    """``tb build --cluster ADDRESS`` / ``--workers N``: the set as Dask tasks
    (:mod:`tablebases.cluster`, imported here so that the core install runs without Dask).
    Raises BuildError (a ClusterError is one's message) for the CLI to report."""
    from .cluster import ClusterError, build_on_cluster, connect, dashboard_note

    threads = args.threads or (max(1, default_threads() // args.workers)
                               if args.workers is not None else 1)

    def status(line: str) -> None:
        sys.stderr.write("\r" + line[:110].ljust(110))
        sys.stderr.flush()

    try:
        with connect(args.cluster, args.workers) as client:
            where = (f"the scheduler at {args.cluster}" if args.cluster is not None else
                     f"a LocalCluster of {args.workers} worker process(es)")
            log(f"building on {where}, {threads} thread(s) a table; "
                f"{dashboard_note(client, args.cluster is None)}")
            results = build_on_cluster(client, args.material, args.tables, threads=threads,
                                       rebuild=args.rebuild, verify=args.verify, log=log,
                                       status=status if tty else None)
    except ClusterError as error:
        raise BuildError(str(error)) from None
    return {name: {**result, "verified": args.verify} for name, result in results.items()
            if result["state"] == "built"}


def _interrupted(args: argparse.Namespace) -> int:
    _report_interrupted_build(args)
    if args.json:
        emit({"error": "interrupted", "interrupted": True})
    return 130


def _report_built(args: argparse.Namespace, summary: dict[str, JsonObject]) -> int:
    """What the build did to each table asked for."""
    tables = []
    for name in args.material:
        canonical = str(Material.parse(name).canonical())
        path = summary[canonical]["path"] if canonical in summary else \
            table_path(_rules_tables(args), canonical)
        state = "built" if canonical in summary else "already present"
        if canonical in summary and not summary[canonical]["verified"]:
            state = "built (not re-checked)"
        tables.append({"material": canonical, "state": state, "path": str(path)})
    if args.json:
        emit({"directory": str(args.tables), "tables": tables,
              "built": sorted(summary)})
        return 0
    for table in tables:
        print(f"{table['material']}: {table['state']}, {table['path']}")
    return 0


def _report_interrupted_build(args: argparse.Namespace) -> None:
    """After Ctrl-C: which tables are finished, which metrics are kept as checkpoints."""
    finished, kept = [], []
    for text in args.material:
        for material in Material.parse(text).build_order():
            name = str(material)
            if table_path(args.tables, name).exists():
                if name not in finished:
                    finished.append(name)
                continue
            for metric in METRICS:
                if checkpoint_path(args.tables, name, metric).exists():
                    kept.append(f"{name} {metric}")
    print("interrupted: nothing half-written is left; "
          f"finished tables: {', '.join(finished) or 'none'}; "
          f"checkpoints kept: {', '.join(kept) or 'none'}. "
          "The same command resumes.", file=sys.stderr)


def _value_json(value: TableValue, side_to_move: int) -> JsonObject:
    return {**asdict(value), "description": describe(value, side_to_move)}


def cmd_probe(args: argparse.Namespace) -> int:
    board = read_board(args.fen, args)
    if board is None:
        return 1
    with open_tablebase(_rules_tables(args)) as tablebase:
        try:
            value = tablebase.probe(board)
            ranked = tablebase.ranked_moves(board)
        except TablebaseError as error:
            return fail(args, error.user_text())
    write = _writer(args.notation)
    if args.json:
        emit({"fen": board.fen(), "value": _value_json(value, board.turn),
              "notation": args.notation,
              "moves": [{"move": item.move.iccs(), "written": write(board, item.move),
                         "value": _value_json(item.value, board.turn),
                         "forbidden": item.forbidden} for item in ranked]})
        return 0
    print(describe(value, board.turn))
    if value.wdl:
        print(f"distance to conversion (capture or mate): {value.dtc} "
              f"{'ply' if value.dtc == 1 else 'plies'}")
    for item in ranked:
        if item.forbidden:
            what = "a perpetual attack (长将, 长杀, 长捉 or their mixtures)" \
                if value.rule_set == "chinese" else "a perpetual check (长将)"
            print(f"  {write(board, item.move):<10} forbidden: {what} the rule takes away here")
        else:
            print(f"  {write(board, item.move):<10} {describe(item.value, board.turn)}")
    return 0


def _writer(notation: str) -> Callable[[Board, Move], str]:
    if notation == "iccs":
        return lambda board, move: move.iccs()
    from xiangqi.notation import write_move
    return lambda board, move: write_move(board, move, notation)


def cmd_stats(args: argparse.Namespace) -> int:
    try:
        material = Material.parse(args.material).canonical()
        stats = table_stats(str(material), _rules_tables(args))
        # The figures come from the header: a damaged table's would be told as true.
        table = TableFile(table_path(_rules_tables(args), str(material)))
        try:
            table.check_data_checksum()
        finally:
            table.close()
    except TablebaseError as error:
        return fail(args, error.user_text())
    except MaterialError as error:
        return fail(args, str(error))
    except FileNotFoundError:
        return fail(args, f"no table for {args.material} in {args.tables}")
    from xiangqi.notation import write_line, write_numbered_line

    # The main lines as moves; printed in --notation, in ICCS and --notation in JSON.
    lines: dict[int, dict[str, tuple[Board, list[Move]]]] = {}
    if args.line:
        with open_tablebase(_rules_tables(args)) as tablebase:
            for side, s in stats.items():
                lines[side] = {}
                if s.longest_win_fen:
                    board = Board(s.longest_win_fen)
                    lines[side]["longest_win"] = (board, tablebase.best_line(board))
                if s.longest_conversion_fen:
                    board = Board(s.longest_conversion_fen)
                    lines[side]["longest_conversion"] = (board,
                                                         tablebase.conversion_line(board))
    if args.json:
        def line_json(side: int) -> JsonObject:
            if side not in lines:
                return {}
            return {"lines": {key: [m.iccs() for m in moves]
                              for key, (_, moves) in lines[side].items()},
                    "lines_written": {key: write_line(board, moves, args.notation)
                                      for key, (board, moves) in lines[side].items()}}

        emit({"material": str(material), "rules": table.header.rules,
              "notation": args.notation,
              "sides": {side_name(side).lower(): {**asdict(s), **line_json(side)}
                        for side, s in stats.items()}})
        return 0

    def print_line(side: int, key: str) -> None:
        if key in lines.get(side, {}):
            board, moves = lines[side][key]
            print("  line: " + write_numbered_line(board, moves, args.notation))
    print(f"{material}")
    for rule, text in table.header.rules.items():
        print(f"  rule {rule}: {text}")
    for side, s in stats.items():
        legal = s.wins + s.draws + s.losses
        print(f"\n{side_name(side)} to move: {legal:,} positions "
              f"(index entries {legal + s.illegal:,}; mirror twins counted twice)")
        for label, count in (("wins", s.wins), ("draws", s.draws), ("losses", s.losses)):
            share = 100.0 * count / legal if legal else 0.0
            print(f"  {label:<7}{count:>12,}  {share:5.1f}%")
        if s.chase_marked:
            print(f"  {s.chase_marked:,} of the draws could change under the chase rule (长捉)")
        if s.longest_win_fen:
            print(f"  longest win: {_plies(s.longest_win_plies)}, {s.longest_win_fen}")
            print_line(side, "longest_win")
        elif not s.wins:
            print(f"  no win for {side_name(side)}")
        if s.longest_conversion_fen:
            plies = s.longest_conversion_plies
            print(f"  longest conversion: {_plies(plies)} ({_moves((plies + 1) // 2)}) before "
                  f"the first capture or mate, {s.longest_conversion_fen}")
            print_line(side, "longest_conversion")
        print("  DTM histogram:")
        print("\n".join(format_histogram(s.dtm_histogram)))
        print("  DTC histogram:")
        print("\n".join(format_histogram(s.dtc_histogram)))
    return 0


def _plies(n: int) -> str:
    return f"{n} {'ply' if n == 1 else 'plies'}"


def _moves(n: int) -> str:
    return f"{n} {'move' if n == 1 else 'moves'}"


def cmd_verify(args: argparse.Namespace) -> int:
    examples: list[Mismatch] = []
    try:
        result = verify_file(args.material, args.tables, threads=args.threads,
                             examples=examples, rules=args.rules)
    except TablebaseError as error:
        return fail(args, error.user_text())
    except (MaterialError, FileNotFoundError) as error:
        return fail(args, str(error))
    ok = not any(result.values())
    if args.json:
        emit({"material": str(Material.parse(args.material).canonical()), "ok": ok,
              "mismatches": result,
              "examples": [{"metric": metric, "side": side_name(side).lower(), "index": index,
                            "stored": stored, "expected": expected,
                            "text": _mismatch_text(args.material, side, index, stored, expected)}
                           for metric, side, index, stored, expected in examples]})
        return 0 if ok else 1
    for metric, bad in result.items():
        print(f"{metric}: {'OK' if bad == 0 else f'{bad} mismatches'}")
        for example in (e for e in examples if e[0] == metric):
            print(f"  {_mismatch_text(args.material, *example[1:])}")
    return 0 if ok else 1


def _mismatch_text(material: str, side: int, index: int, stored: int, expected: int) -> str:
    """Where a re-check mismatch is (side to move, index, FEN) and what differs."""
    indexer = indexer_for(Material.parse(material).canonical())
    placement = indexer.placement(index)
    turn = "w" if side == 0 else "b"
    where = f"{placement_fen(placement)} {turn} - - 0 1" if placement is not None else \
        "(two pieces on one point)"
    return (f"{side_name(side)} to move, index {index:,}: {where}: stored "
            f"{code_words(stored)}, its moves give {code_words(expected)}")


def cmd_list(args: argparse.Namespace) -> int:
    rows = []
    row_wins: dict[str, list[str]] = {}     # the sides to move that win somewhere (text only)
    with open_tablebase(args.tables) as tablebase:
        for name in tablebase.materials():
            path = table_path(args.tables, name)
            row: JsonObject = {"material": name, "path": str(path), "damaged": None}
            try:
                header = tablebase.header(name)
            except CorruptTableError as error:
                row["damaged"] = error.user_text()
                rows.append(row)
                continue
            problem = None if args.quick else table_problem(path)
            if problem is not None:
                row["damaged"] = f"{problem}; rebuild it with: {rebuild_command(path)}"
                rows.append(row)
                continue
            red, black = header.counts.get("red", {}), header.counts.get("black", {})
            row.update(positions=header.size * 2, bytes=path.stat().st_size,
                       longest_win_plies=red.get("longest_dtm_plies", 0),
                       data_checked=not args.quick)
            row_wins[name] = [side for side, counts in (("Red", red), ("Black", black))
                              if counts.get("wins", counts.get("longest_dtm_plies", 0))]
            rows.append(row)
    damaged = sum(row["damaged"] is not None for row in rows)
    if args.json:
        emit({"directory": str(args.tables), "tables": rows, "damaged": damaged})
        return 1 if damaged else 0
    if not rows:
        print(f"no tables in {args.tables}")
        return 0
    for row in rows:
        if row["damaged"] is not None:
            print(f"{row['material']:<14} DAMAGED: {row['damaged']}")
            continue
        if "Red" in row_wins[row["material"]]:
            win = f"longest win {_plies(row['longest_win_plies'])}"
        else:
            win = "no win for Red" if row_wins[row["material"]] else "no win"
        print(f"{row['material']:<14} {row['positions']:>12,} positions  "
              f"{row['bytes'] / 2**20:8.2f} MiB  {win}" + ("" if args.quick else "  data OK"))
    return 1 if damaged else 0


def _rules_tables(args: argparse.Namespace) -> Path:
    """The directory the tables of ``--rules`` are read from (the tables' own without it)."""
    return args.tables if args.rules is None else rules_directory(args.tables, args.rules)


def table_directory(text: str) -> Path:
    """An argparse type: a table directory (it need not exist yet; a file is refused).  The
    default goes through it too (it is given as text), so a ``$XQSTUDIO_TABLES`` that names
    a file is refused as the option is, naming the variable."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        configured = os.environ.get("XQSTUDIO_TABLES")
        source = " (set by XQSTUDIO_TABLES)" if configured and \
            Path(configured).expanduser() == path else ""
        raise argparse.ArgumentTypeError(f"{text!r}{source} is not a directory")
    return path


def add_tables_option(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """``--tables DIR`` (and its old spelling ``--dir``, not listed in the help).  Its default
    is resolved here, once, when the parser is built: every command then reads the directory
    from ``args.tables`` alone, whichever package it is in."""
    where = default_directory()
    parser.add_argument("--tables", type=table_directory, default=str(where), metavar="DIR",
                        help=f"table directory (default {where}; or set XQSTUDIO_TABLES)")
    parser.add_argument("--dir", dest="tables", type=table_directory, help=argparse.SUPPRESS)
    return parser


def tb_actions(subparsers: argparse._SubParsersAction[ParserT]
               ) -> argparse._SubParsersAction[ParserT]:
    """The ``tb`` group's ACTION subparsers, once :func:`register` has made the group: the
    front ends above this package add their own actions there (``tb serve`` comes from
    ``tui``, which this package must not import)."""
    tb = subparsers.choices["tb"]
    return next(action for action in tb._actions
                if isinstance(action, argparse._SubParsersAction))


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    tb = subparsers.add_parser("tb", help="endgame tablebases: build, probe, stats, verify, list")
    commands = tb.add_subparsers(dest="tb_command", metavar="ACTION", required=True)

    def common(parser: argparse.ArgumentParser,
               handler: Callable[[argparse.Namespace], int]) -> argparse.ArgumentParser:
        add_tables_option(parser)
        add_json_option(parser)
        parser.set_defaults(handler=handler, rules=None)
        return parser

    def rules_option(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--rules", choices=sorted(RULE_SET_RULES), default=None,
                            help="the two-sided tables that apply this rule set's chase rule "
                                 "too (in DIR/RULES; default: the tables that apply perpetual "
                                 "check only and mark the draws the chase rule could change)")

    build_ = common(commands.add_parser("build", help="build tables (and their sub-tables)"),
                    cmd_build)
    build_.add_argument("material", nargs="+", metavar="MATERIAL", help="e.g. KRKAABB")
    build_.add_argument("--threads", type=whole_number(1, 1024), default=None,
                        help="threads of each table's build (default: every core here; with "
                             "--workers N the cores over N; with --cluster 1)")
    build_.add_argument("--rebuild", action="store_true", help="rebuild even if the file exists")
    rules_option(build_)
    where = build_.add_mutually_exclusive_group()
    where.add_argument("--cluster", metavar="ADDRESS", default=None,
                       help="build on the Dask cluster of this scheduler (e.g. "
                            "tcp://host:8786): one task per table, the table directory on a "
                            "filesystem every worker shares; needs the extra xqstudio[cluster]")
    where.add_argument("--workers", type=whole_number(1, 1024), default=None, metavar="N",
                       help="build on a Dask LocalCluster of N worker processes on this "
                            "machine; needs the extra xqstudio[cluster]")
    build_.add_argument("--no-verify", dest="verify", action="store_false",
                        help="skip the full re-check of every value (about a quarter of the "
                             "time); the table is marked unverified, `tb verify` checks it later")
    build_.add_argument("-v", "--verbose", action="store_true",
                        help="the developer figures in each metric's line: positions per second "
                             "per thread per pass and the CPU seconds of each phase (a "
                             "cluster's tasks log the short lines)")

    probe = common(commands.add_parser("probe", help="value of a position and of every move"),
                   cmd_probe)
    probe.add_argument("fen", metavar="FEN")
    rules_option(probe)
    add_notation_option(probe)

    stats = common(commands.add_parser("stats", help="counts, histograms and the longest win"),
                   cmd_stats)
    stats.add_argument("material", metavar="MATERIAL")
    rules_option(stats)
    stats.add_argument("--line", action="store_true",
                       help="print the main lines of the longest win and the longest conversion")
    add_notation_option(stats)

    verify = common(commands.add_parser(
        "verify", help="re-derive every value from its successors (exit status 1: mismatches)"),
        cmd_verify)
    verify.add_argument("material", metavar="MATERIAL")
    rules_option(verify)
    verify.add_argument("--threads", type=whole_number(1, 1024), default=default_threads())

    list_ = common(commands.add_parser(
        "list", help="the tables in the directory, each checked block by block (exit status 1: "
                     "a damaged table)"), cmd_list)
    list_.add_argument("--quick", action="store_true",
                       help="check the headers only, not every block and the data checksum")
