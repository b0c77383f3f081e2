"""Tablebase subcommands: ``tb build``, ``tb probe``, ``tb stats``, ``tb verify``, ``tb list``."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from xiangqi import Board, FenError
from xiangqi.cli import whole_number
from xiangqi.fen import placement_fen

from .build import (
    METRICS,
    BuildError,
    build,
    checkpoint_path,
    default_threads,
    indexer_for,
    table_problem,
    verify_file,
)
from .format import CorruptTableError, TableFile, table_path
from .material import Material, MaterialError
from .paths import default_directory
from .probe import MissingTableError, describe, open_tablebase
from .stats import format_histogram, side_name, table_stats
from .values import code_words


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
        summary = build(args.material, args.dir, threads=args.threads, rebuild=args.rebuild,
                        log=log, progress=progress)
    except (MaterialError, BuildError, CorruptTableError) as error:
        progress.done()
        print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        progress.done()
        _report_interrupted_build(args)
        return 130
    progress.done()
    for name in args.material:
        canonical = str(Material.parse(name).canonical())
        path = table_path(args.dir, canonical)
        state = "built" if canonical in summary else "already present"
        print(f"{canonical}: {state}, {path}")
    return 0


def _report_interrupted_build(args: argparse.Namespace) -> None:
    """After Ctrl-C: which tables are finished, which metrics are kept as checkpoints."""
    finished, kept = [], []
    for text in args.material:
        for material in Material.parse(text).build_order():
            name = str(material)
            if table_path(args.dir, name).exists():
                if name not in finished:
                    finished.append(name)
                continue
            for metric in METRICS:
                if checkpoint_path(args.dir, name, metric).exists():
                    kept.append(f"{name} {metric}")
    print("interrupted: nothing half-written is left; "
          f"finished tables: {', '.join(finished) or 'none'}; "
          f"checkpoints kept: {', '.join(kept) or 'none'}. "
          "The same command resumes.", file=sys.stderr)


def cmd_probe(args: argparse.Namespace) -> int:
    try:
        board = Board(args.fen)
    except FenError as error:
        print(f"error: invalid FEN: {error}", file=sys.stderr)
        return 1
    tablebase = open_tablebase(args.dir)
    try:
        value = tablebase.probe(board)
        ranked = tablebase.ranked_moves(board)
    except (MissingTableError, CorruptTableError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    finally:
        pass
    print(describe(value, board.turn))
    if value.wdl:
        print(f"distance to conversion (capture or mate): {value.dtc} "
              f"{'ply' if value.dtc == 1 else 'plies'}")
    write = _writer(args.notation)
    for item in ranked:
        print(f"  {write(board, item.move):<10} {describe(item.value, board.turn)}")
    tablebase.close()
    return 0


def _writer(notation: str):
    if notation == "iccs":
        return lambda board, move: move.iccs()
    from xiangqi.notation import write_move
    return lambda board, move: write_move(board, move, notation)


def cmd_stats(args: argparse.Namespace) -> int:
    try:
        material = Material.parse(args.material).canonical()
        stats = table_stats(str(material), args.dir)
    except (MaterialError, CorruptTableError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except FileNotFoundError:
        print(f"error: no table for {args.material} in {args.dir}", file=sys.stderr)
        return 1
    print(f"{material}")
    table = TableFile(table_path(args.dir, str(material)))
    table.close()
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
            board = Board(s.longest_win_fen)
            print(f"  longest win: {s.longest_win_plies} plies, {s.longest_win_fen}")
            if args.line:
                tablebase = open_tablebase(args.dir)
                line = tablebase.best_line(board)
                tablebase.close()
                print("  line: " + " ".join(m.iccs() for m in line))
        if s.longest_conversion_fen:
            plies = s.longest_conversion_plies
            print(f"  longest conversion: {plies} plies ({(plies + 1) // 2} moves) before the "
                  f"first capture or mate, {s.longest_conversion_fen}")
            if args.line:
                tablebase = open_tablebase(args.dir)
                line = tablebase.conversion_line(Board(s.longest_conversion_fen))
                tablebase.close()
                print("  line: " + " ".join(m.iccs() for m in line))
        print("  DTM histogram:")
        print("\n".join(format_histogram(s.dtm_histogram)))
        print("  DTC histogram:")
        print("\n".join(format_histogram(s.dtc_histogram)))
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    examples: list[tuple] = []
    try:
        result = verify_file(args.material, args.dir, threads=args.threads, examples=examples)
    except (MaterialError, CorruptTableError, FileNotFoundError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    for metric, bad in result.items():
        print(f"{metric}: {'OK' if bad == 0 else f'{bad} mismatches'}")
        for example in (e for e in examples if e[0] == metric):
            print(f"  {_mismatch_text(args.material, *example[1:])}")
    return 0 if not any(result.values()) else 1


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
    tablebase = open_tablebase(args.dir)
    names = tablebase.materials()
    if not names:
        print(f"no tables in {args.dir}")
        return 0
    damaged = 0
    for name in names:
        path = table_path(args.dir, name)
        try:
            header = tablebase.header(name)
        except CorruptTableError as error:
            print(f"{name:<14} DAMAGED: {error}")
            damaged += 1
            continue
        problem = None if args.quick else table_problem(path)
        if problem is not None:
            print(f"{name:<14} DAMAGED: {problem} (xqstudio tb build {name} rebuilds it)")
            damaged += 1
            continue
        red = header.counts.get("red", {})
        print(f"{name:<14} {header.size * 2:>12,} positions  {path.stat().st_size / 2**20:8.2f} MiB"
              f"  longest win {red.get('longest_dtm_plies', 0)} plies"
              + ("" if args.quick else "  data OK"))
    tablebase.close()
    return 1 if damaged else 0


def register(subparsers: argparse._SubParsersAction) -> None:
    tb = subparsers.add_parser("tb", help="endgame tablebases: build, probe, stats, verify, list")
    commands = tb.add_subparsers(dest="tb_command", metavar="ACTION", required=True)

    def with_dir(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
        parser.add_argument("--dir", type=Path, default=default_directory(),
                            help=f"table directory (default {default_directory()}; "
                                 "or set XQSTUDIO_TABLES)")
        return parser

    build_ = with_dir(commands.add_parser("build", help="build tables (and their sub-tables)"))
    build_.add_argument("material", nargs="+", metavar="MATERIAL", help="e.g. KRKAABB")
    build_.add_argument("--threads", type=whole_number(1, 1024), default=default_threads())
    build_.add_argument("--rebuild", action="store_true", help="rebuild even if the file exists")
    build_.set_defaults(handler=cmd_build)

    probe = with_dir(commands.add_parser("probe", help="value of a position and of every move"))
    probe.add_argument("fen", metavar="FEN")
    probe.add_argument("--notation", choices=("iccs", "wxf", "chinese", "code3"), default="chinese")
    probe.set_defaults(handler=cmd_probe)

    stats = with_dir(commands.add_parser("stats", help="counts, histograms and the longest win"))
    stats.add_argument("material", metavar="MATERIAL")
    stats.add_argument("--line", action="store_true",
                       help="print the main lines of the longest win and the longest conversion")
    stats.set_defaults(handler=cmd_stats)

    verify = with_dir(commands.add_parser("verify",
                                          help="re-derive every value from its successors"))
    verify.add_argument("material", metavar="MATERIAL")
    verify.add_argument("--threads", type=whole_number(1, 1024), default=default_threads())
    verify.set_defaults(handler=cmd_verify)

    list_ = with_dir(commands.add_parser(
        "list", help="the tables in the directory, each checked block by block"))
    list_.add_argument("--quick", action="store_true",
                       help="check the headers only, not every block and the data checksum")
    list_.set_defaults(handler=cmd_list)
