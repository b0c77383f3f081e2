"""The ``xqstudio`` command line.  Each package registers its own subcommands.

One grammar, ``xqstudio GROUP ACTION [ARGUMENTS] [OPTIONS]`` (``docs/cli.md`` is the
reference, generated from these parsers by ``tui.cli_reference``): ``position perft|moves|
check|judge|diagram``, ``tb build|probe|stats|verify|list|serve``, ``problem solve|verify|
refute``, ``catalogue build|list|show|search|import|verify|export|diagram|sheet|schema``,
``engine`` and ``studio``.  Every command but ``studio``, ``engine`` and ``tb serve`` takes
``--json``; ``--tables DIR`` names the table directory and ``--notation`` (default chinese)
the move notation wherever they apply.  Exit status: 0 ok; 1 the answer is negative or the
input is bad; 2 usage; 130 interrupted.  The old spellings (``perft``, ``moves``, ``judge``,
``fen check``, ``solve``, ``verify``, ``tb ... --dir``) still work and are not listed in the
help.

``engine`` (``frontends/engine.py``: UCI/UCCI for GUIs) and ``tb serve``
(``frontends/web.py``: the tables over HTTP) are front ends for other programs and take no
``--json``.  They and the studio are handed a :class:`tui.settings.Settings` made from their
arguments.

``xqstudio`` alone starts the studio when standard output is a terminal and prints the help
otherwise (so scripts and CI never wait on a full-screen app); ``xqstudio studio [--fen FEN]``
always starts it.
"""
from __future__ import annotations

import argparse
import difflib
import re
import sys
from typing import NoReturn

from puzzles import cli as puzzles_cli
from solver import cli as solver_cli
from tablebases import TablebaseError
from tablebases import cli as tablebases_cli
from xiangqi import FenError
from xiangqi import cli as xiangqi_cli
from xiangqi.cli import fail

from .frontends import engine, web
from .settings import Settings, SettingsError

# Packages that contribute subcommands, lowest layer first.
COMMAND_MODULES = [xiangqi_cli, tablebases_cli, solver_cli, puzzles_cli]


class CommandParser(argparse.ArgumentParser):
    """The parser of ``xqstudio`` and of each of its groups (argparse makes the sub-parsers of
    the parent's class).  An unknown command is answered with the commands the help lists,
    not the old spellings kept for scripts, and the nearest one."""

    def error(self, message: str) -> NoReturn:
        unknown = re.match(r"argument [A-Z]+: invalid choice: '?(.*?)'? \(choose from ", message)
        listed = self._listed_commands()
        if unknown and listed:
            word = unknown.group(1)
            near = difflib.get_close_matches(word, listed, n=1)
            message = (f"unknown {'command' if self.prog == 'xqstudio' else 'action'} "
                       f"{word!r}: {', '.join(listed)}" +
                       (f" (did you mean {near[0]}?)" if near else ""))
        super().error(message)

    def _listed_commands(self) -> list[str]:
        """The commands the help shows (those registered with a help text)."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                return [choice.dest for choice in action._choices_actions]
        return []


def build_parser() -> argparse.ArgumentParser:
    parser = CommandParser(
        prog="xqstudio",
        description="XQ Studio: Xiangqi rules, endgame tablebases, mate solving and kill patterns.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMAND_MODULES:
        module.register(subparsers)
    engine.register(subparsers)
    web.register_serve(tablebases_cli.tb_actions(subparsers))
    studio = subparsers.add_parser(
        "studio", help="start the Textual studio (what xqstudio alone does in a terminal)")
    studio.add_argument("--fen", help="open analyse mode on this position (default: the studio "
                                      "opens on the catalogue)")
    tablebases_cli.add_tables_option(studio)   # the table panel's, the solver's and draw practice's
    studio.set_defaults(handler=run_studio)
    return parser


def run_studio(args: argparse.Namespace) -> int:
    """Start the studio on ``args.fen``; a bad FEN is reported before the screen is taken."""
    # Imported here: the other subcommands start faster without loading Textual.
    from .app import XQStudioApp
    try:
        app = XQStudioApp(getattr(args, "fen", None), settings=Settings.from_arguments(args))
    except FenError as error:
        print(f"error: invalid FEN: {error}", file=sys.stderr)
        return 1
    except SettingsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    app.run()
    return 0


def undecodable_argument(argv: list[str]) -> str | None:
    """The error for the first argument that is not valid UTF-8 (Python keeps its bytes as
    lone surrogates, which no output can print), or None."""
    for number, arg in enumerate(argv, start=1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            raw = arg.encode("utf-8", "surrogateescape")
            return f"argument {number} is not valid UTF-8: {raw!r}"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    problem = undecodable_argument(sys.argv[1:] if argv is None else argv)
    if problem is not None:
        parser.print_usage(sys.stderr)
        print(f"xqstudio: error: {problem}", file=sys.stderr)
        return 2
    args = parser.parse_args(argv)
    if args.command is None:
        if sys.stdout.isatty() and sys.stdin.isatty():
            return run_studio(args)
        parser.print_help()
        return 0
    try:
        return args.handler(args) or 0
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except TablebaseError as error:   # a table missing, damaged or too large, met anywhere
        return fail(args, error.user_text())
    except OSError as error:      # a path argument the file system refuses: bad input
        print(f"error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
