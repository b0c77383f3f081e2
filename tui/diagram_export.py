"""Diagrams from the studio: the position shown (or a catalogue entry) written as an SVG
file, in the settings' diagram directory (``$XQSTUDIO_DIAGRAMS`` or else the current
directory: :class:`tui.settings.Settings`), under a name not yet taken
(``xqstudio-diagram.svg``, ``xqstudio-diagram-2.svg``, ...)."""
from __future__ import annotations

from pathlib import Path

from xiangqi import Board, svg


def free_path(stem: str, directory: Path, suffix: str = ".svg") -> Path:
    """``directory/stem.svg``, or with ``-2``, ``-3`` ... when that file exists."""
    path, number = directory / f"{stem}{suffix}", 1
    while path.exists():
        number += 1
        path = directory / f"{stem}-{number}{suffix}"
    return path


def export_diagram(board: Board, stem: str, directory: Path, *, title: str | None = None,
                   flipped: bool = False) -> Path:
    """Write the diagram of ``board`` in ``directory``; returns the file's absolute path.  Raises
    :class:`xiangqi.output.MissingExtraError` without the ``diagrams`` extra, ``OSError``
    when the directory cannot be written."""
    path = free_path(stem, directory).resolve()
    svg.save(path, board, title=title, flipped=flipped)
    return path
