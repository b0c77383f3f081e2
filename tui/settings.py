"""``Settings``: where the studio and the front ends find their files, resolved once.

The command line (``xqstudio studio``, ``engine``, ``tb serve``) makes one from its
arguments (:meth:`Settings.from_arguments`: ``--tables DIR`` and ``--db FILE`` win over the
environment), and ``XQStudioApp()`` without one from the environment alone; the app, its
screens and panels, the engine and the HTTP server are handed that object and never look at
the environment themselves.

* ``tables``: the table directory (``$XQSTUDIO_TABLES``, else
  ``~/.local/share/xqstudio/tablebases``: :func:`tablebases.paths.default_directory`, which
  the ``tb`` and ``problem`` commands below this package use too);
* ``catalogue``: the catalogue database (``$XQSTUDIO_CATALOGUE``, else
  ``~/.local/share/xqstudio/catalogue.sqlite``: :func:`puzzles.paths.default_database`);
* ``diagrams``: where the studio writes diagrams (``$XQSTUDIO_DIAGRAMS``, else the current
  directory).

This module imports no Textual: the engine and the HTTP server use it without the app.
"""
from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path

from puzzles.paths import default_database
from tablebases.paths import default_directory

# Nodes between the solver's progress calls in the interactive front ends (the studio's
# panels and practice, the engine): the search holds the GIL in between, so calls this often
# (the search's finest step) keep the screen and the keys responsive and let a cancel stop it
# within milliseconds.
INTERACTIVE_PROGRESS_NODES = 4096


class SettingsError(ValueError):
    """A setting that names something unusable; the message says what and how to fix it."""


@dataclass(frozen=True)
class Settings:
    tables: Path
    catalogue: Path
    diagrams: Path

    @classmethod
    def resolve(cls, *, tables: Path | str | None = None, catalogue: Path | str | None = None,
                diagrams: Path | str | None = None) -> Settings:
        """What is given wins; the rest comes from the environment, else the defaults.
        Raises :class:`SettingsError` for a table directory that is a file."""
        table_directory = Path(tables) if tables is not None else default_directory()
        if table_directory.exists() and not table_directory.is_dir():
            source = "" if tables is not None else ", set by XQSTUDIO_TABLES"
            raise SettingsError(f"{table_directory} is not a directory (the table "
                                f"directory{source})")
        return cls(tables=table_directory,
                   catalogue=Path(catalogue) if catalogue is not None else default_database(),
                   diagrams=Path(diagrams) if diagrams is not None else _diagram_directory())

    @classmethod
    def from_arguments(cls, args: argparse.Namespace) -> Settings:
        """The settings of a command: its ``--tables`` and ``--db`` where it has them."""
        return cls.resolve(tables=getattr(args, "tables", None),
                           catalogue=getattr(args, "db", None))

    def existing_tables(self) -> Path:
        """The table directory, which must exist: a front end that only serves tables has
        nothing to do without it.  Raises :class:`SettingsError` naming the directory and the
        command that fills it."""
        if not self.tables.is_dir():
            raise SettingsError(f"no table directory {self.tables} (build tables with: "
                                "xqstudio tb build MATERIAL)")
        return self.tables


def _diagram_directory() -> Path:
    configured = os.environ.get("XQSTUDIO_DIAGRAMS")
    return Path(configured).expanduser() if configured else Path.cwd()
