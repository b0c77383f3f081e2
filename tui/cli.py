"""The ``xqstudio`` command line.  Each package registers its own subcommands."""
from __future__ import annotations

import argparse
import sys

from puzzles import cli as puzzles_cli
from solver import cli as solver_cli
from tablebases import cli as tablebases_cli
from xiangqi import cli as xiangqi_cli

# Packages that contribute subcommands, lowest layer first.
COMMAND_MODULES = [xiangqi_cli, tablebases_cli, solver_cli, puzzles_cli]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="xqstudio",
        description="XQ Studio: Xiangqi rules, endgame tablebases, mate solving and kill patterns.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMAND_MODULES:
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        return args.handler(args) or 0
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
