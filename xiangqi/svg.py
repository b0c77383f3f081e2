"""Printable diagrams of a position: SVG (vector, through drawsvg), PNG and PDF (through
cairosvg), the way python-chess has ``chess.svg``.

The board is drawn as a composer prints it: the 9×10 grid with the river (楚河 汉界) and the
palace diagonals, the cannon and pawn position marks, the file numbers of both conventions
(Red's 九..一 along Red's side, Black's 1..9 along Black's), and the pieces as wooden discs
lettered 帅仕相马车炮兵 in red and 将士象马车炮卒 in black.  ``marks`` frames points and
``arrows`` draws moves (ICCS squares: ``h2e2``).  Needs the ``diagrams`` extra (drawsvg,
cairosvg), imported only when a diagram is drawn.

>>> point_xy(parse_square("a9"))        # the top left point, Red at the bottom
(45.0, 69.0)
>>> point_xy(parse_square("a9"), flipped=True)
(525.0, 609.0)
>>> point_xy(parse_square("e0"), title="第1局")     # a title takes a band above
(285.0, 663.0)
"""
from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .board import Board
from .output import require, write_atomically
from .pieces import (
    BLACK,
    CHINESE_PIECES,
    FILE_NAMES,
    RED,
    Piece,
    parse_square,
    square,
    square_file,
    square_name,
    square_rank,
)

# A point's (x, y) on the drawing, by file and rank (as the board is turned).
PointOnDrawing = Callable[[int, int], tuple[float, float]]

UNIT = 60.0
"""The distance between two neighbouring points, in SVG user units (pixels at scale 1)."""

# Margins around the grid, in units: the pieces on the edge points reach 0.45 outside it,
# the file numbers stand beyond them, and a title takes a band of its own above.
_SIDE = 0.75
_NUMBERS = 1.15
_TITLE = 0.9

FONT_FAMILY = ("KaiTi, STKaiti, 'Kaiti SC', 'AR PL UKai CN', 'LXGW WenKai', 'Noto Serif CJK SC', "
               "'Source Han Serif SC', SimSun, 'Songti SC', 'Noto Sans CJK SC', "
               "'WenQuanYi Micro Hei', 'Microsoft YaHei', serif")
"""The font families of the Chinese text, most traditional first (楷体, the pieces' letters),
then Song and sans fonts that cover the characters; a browser takes the first it has."""

COLORS = {RED: "#c3161c", BLACK: "#1a1a1a"}
BOARD_FILL = "#f4e2b8"
PAPER_FILL = "#fbf4e2"
PIECE_FACE = "#fbecc8"
LINE_COLOR = "#3b2a1a"
MARK_COLOR = "#1f5fbf"
ARROW_COLOR = "#2e7d32"

RIVER_TEXT = ("楚", "河", "汉", "界")
RED_FILE_NUMBERS = "九八七六五四三二一"      # Red's files, a..i
BLACK_FILE_NUMBERS = "123456789"            # Black's files, a..i

# The cannons' and pawns' starting points carry the small position marks (炮位, 兵位).
POSITION_MARKS = tuple(parse_square(name) for name in
                       "b2 h2 b7 h7 a3 c3 e3 g3 i3 a6 c6 e6 g6 i6".split())


class DiagramError(ValueError):
    """A diagram that cannot be drawn as asked: a bad point or move, an unknown format."""


@dataclass(frozen=True)
class Arrow:
    """An arrow from ``tail`` to ``head`` (points 0..89)."""
    tail: int
    head: int
    color: str = ARROW_COLOR

    @classmethod
    def from_iccs(cls, text: str, color: str = ARROW_COLOR) -> Arrow:
        """``h2e2`` (or ``H2-E2``) as an arrow; a move need not be legal to be drawn.

        >>> Arrow.from_iccs("h2e2")
        Arrow(tail=25, head=22, color='#2e7d32')
        """
        cleaned = text.strip().replace("-", "")
        if len(cleaned) != 4:
            raise DiagramError(f"not an arrow: {text!r} (two points, e.g. h2e2)")
        try:
            tail, head = parse_square(cleaned[:2]), parse_square(cleaned[2:])
        except ValueError as error:
            raise DiagramError(f"not an arrow: {text!r}: {error}") from None
        if tail == head:
            raise DiagramError(f"not an arrow: {text!r} starts and ends on one point")
        return cls(tail, head, color)


def parse_marks(text: str) -> list[int]:
    """Points named in a list such as ``e4,e5`` (commas or spaces).

    >>> parse_marks("e4, e5")
    [40, 49]
    """
    names = [name for name in text.replace(",", " ").split() if name]
    try:
        return [parse_square(name) for name in names]
    except ValueError as error:
        raise DiagramError(f"bad mark in {text!r}: {error}") from None


def parse_arrows(text: str) -> list[Arrow]:
    """Arrows named in a list such as ``h2e2,b0c2``."""
    return [Arrow.from_iccs(item) for item in text.replace(",", " ").split() if item]


# -- geometry -----------------------------------------------------------------------------------

def _top(title: str | None) -> float:
    return UNIT * (_NUMBERS + (_TITLE if title else 0.0))


def size(title: str | None = None) -> tuple[float, float]:
    """The diagram's width and height in user units (pixels at scale 1).

    >>> size(), size("title")
    ((570.0, 678.0), (570.0, 732.0))
    """
    return UNIT * (8 + 2 * _SIDE), _top(title) + UNIT * (9 + _NUMBERS)


def point_xy(point: int, flipped: bool = False, title: str | None = None) -> tuple[float, float]:
    """Where ``point`` is drawn (user units from the top left): Red at the bottom unless
    ``flipped``."""
    file, rank = square_file(point), square_rank(point)
    column, row = (8 - file, rank) if flipped else (file, 9 - rank)
    return UNIT * (_SIDE + column), _top(title) + UNIT * row


# -- drawing --------------------------------------------------------------------------------------

def board(position: Board | None = None, *, flipped: bool = False, marks: Iterable[int] = (),
          arrows: Iterable[Arrow] = (), title: str | None = None,
          font_family: str = FONT_FAMILY) -> str:
    """The SVG document of ``position`` (default: the start position).

    ``flipped`` puts Black at the bottom; ``marks`` frames those points; ``arrows`` are drawn
    over the pieces; ``title`` is set above the board.  Every piece is a ``<g
    class="piece">`` with ``data-square`` (``e0``) and ``data-piece`` (its FEN letter)."""
    draw = require("drawsvg", "diagrams")
    position = Board() if position is None else position
    width, height = size(title)
    drawing = draw.Drawing(width, height, font_family=font_family)
    drawing.append(draw.Title(title or f"Xiangqi diagram: {position.fen()}"))
    drawing.append(draw.Rectangle(0, 0, width, height, fill=PAPER_FILL))

    def at(file: int, rank: int) -> tuple[float, float]:
        return point_xy(square(file, rank), flipped, title)

    _draw_grid(draw, drawing, at)
    _draw_river(draw, drawing, at)
    _draw_file_numbers(draw, drawing, at, flipped)
    if title:
        drawing.append(draw.Text(title, 0.5 * UNIT, width / 2, 0.72 * UNIT, text_anchor="middle",
                                 font_weight="bold", fill=LINE_COLOR, class_="title"))
    for point, piece in sorted(position.piece_map().items()):
        _draw_piece(draw, drawing, piece, point, point_xy(point, flipped, title))
    for point in marks:
        _draw_mark(draw, drawing, point, point_xy(point, flipped, title))
    occupied = set(position.piece_map())
    for arrow in arrows:
        _draw_arrow(draw, drawing, arrow, point_xy(arrow.tail, flipped, title),
                    point_xy(arrow.head, flipped, title),
                    arrow.tail in occupied, arrow.head in occupied)
    return str(drawing.as_svg())


def _draw_grid(draw: Any, drawing: Any, at: PointOnDrawing) -> None:
    grid = draw.Group(stroke=LINE_COLOR, fill="none", class_="grid")
    left, top = at(0, 9)
    right, bottom = at(8, 0)
    outer = 0.16 * UNIT
    drawing.append(draw.Rectangle(min(left, right) - outer, min(top, bottom) - outer,
                                  abs(right - left) + 2 * outer, abs(bottom - top) + 2 * outer,
                                  fill=BOARD_FILL, stroke=LINE_COLOR, stroke_width=0.055 * UNIT,
                                  class_="frame"))
    grid.stroke_width = 0.02 * UNIT
    for rank in range(10):
        grid.append(draw.Line(*at(0, rank), *at(8, rank), stroke_width=0.022 * UNIT))
    for file in range(9):
        if file in (0, 8):
            grid.append(draw.Line(*at(file, 0), *at(file, 9), stroke_width=0.022 * UNIT))
        else:          # the river cuts the inner files
            grid.append(draw.Line(*at(file, 0), *at(file, 4), stroke_width=0.022 * UNIT))
            grid.append(draw.Line(*at(file, 5), *at(file, 9), stroke_width=0.022 * UNIT))
    for low, high in ((0, 2), (7, 9)):     # the palaces' diagonals
        grid.append(draw.Line(*at(3, low), *at(5, high), stroke_width=0.022 * UNIT))
        grid.append(draw.Line(*at(5, low), *at(3, high), stroke_width=0.022 * UNIT))
    for point in POSITION_MARKS:
        _position_mark(draw, grid, at(square_file(point), square_rank(point)),
                       (min(left, right), max(left, right)))
    drawing.append(grid)


def _position_mark(draw: Any, grid: Any, xy: tuple[float, float],
                   edges: tuple[float, float]) -> None:
    """The four small corners around a cannon's or pawn's point (none beyond the edge)."""
    x, y = xy
    gap, arm = 0.08 * UNIT, 0.2 * UNIT
    for dx in (-1, 1):
        if not edges[0] < x + dx * gap < edges[1]:
            continue
        for dy in (-1, 1):
            cx, cy = x + dx * gap, y + dy * gap
            grid.append(draw.Lines(cx + dx * arm, cy, cx, cy, cx, cy + dy * arm,
                                   close=False, stroke_width=0.022 * UNIT))


def _draw_river(draw: Any, drawing: Any, at: PointOnDrawing) -> None:
    """楚河 in the left half, 汉界 in the right, upright whichever side is at the bottom."""
    middle = (at(0, 4)[1] + at(0, 5)[1]) / 2
    river = draw.Group(class_="river", fill=LINE_COLOR)
    for text, column in zip(RIVER_TEXT, (1.5, 2.5, 5.5, 6.5)):
        river.append(draw.Text(text, 0.6 * UNIT, UNIT * (_SIDE + column), middle + 0.22 * UNIT,
                               text_anchor="middle"))
    drawing.append(river)


def _draw_file_numbers(draw: Any, drawing: Any, at: PointOnDrawing, flipped: bool) -> None:
    """Red's numbers (九..一) along Red's side, Black's (1..9) along Black's."""
    numbers = draw.Group(class_="file-numbers", fill=LINE_COLOR)
    for file in range(9):
        for rank, labels, side in ((0, RED_FILE_NUMBERS, "red"), (9, BLACK_FILE_NUMBERS, "black")):
            x, y = at(file, rank)
            outward = 1 if (rank == 0) != flipped else -1     # below the board or above it
            numbers.append(draw.Text(labels[file], 0.36 * UNIT, x,
                                     y + outward * 0.85 * UNIT + 0.13 * UNIT,
                                     text_anchor="middle", class_=f"file-number {side}",
                                     data_file=FILE_NAMES[file]))
    drawing.append(numbers)


def _draw_piece(draw: Any, drawing: Any, piece: Piece, point: int,
                xy: tuple[float, float]) -> None:
    x, y = xy
    color = COLORS[piece.color]
    group = draw.Group(class_=f"piece {('red', 'black')[piece.color]}",
                       data_square=square_name(point), data_piece=piece.symbol())
    # A soft shadow, the disc with its rim, the engraved inner ring, the letter.
    group.append(draw.Circle(x + 0.03 * UNIT, y + 0.04 * UNIT, 0.45 * UNIT, fill="#000000",
                             fill_opacity=0.18, stroke="none"))
    group.append(draw.Circle(x, y, 0.44 * UNIT, fill=PIECE_FACE, stroke=color,
                             stroke_width=0.06 * UNIT))
    group.append(draw.Circle(x, y, 0.355 * UNIT, fill="none", stroke=color,
                             stroke_width=0.022 * UNIT))
    # Baseline 0.36 em below the centre: a Chinese glyph's box sits about that far above its
    # baseline, in every renderer (dominant-baseline is not one that cairosvg follows).
    font = 0.5 * UNIT
    group.append(draw.Text(CHINESE_PIECES[piece.color][piece.piece_type], font, x,
                           y + 0.36 * font, text_anchor="middle", fill=color,
                           font_weight="bold"))
    drawing.append(group)


def _draw_mark(draw: Any, drawing: Any, point: int, xy: tuple[float, float]) -> None:
    """Four corners framing the point, outside any piece on it."""
    x, y = xy
    reach, arm = 0.49 * UNIT, 0.17 * UNIT
    group = draw.Group(class_="mark", data_square=square_name(point), stroke=MARK_COLOR,
                       fill="none", stroke_width=0.06 * UNIT, stroke_linecap="square")
    for dx in (-1, 1):
        for dy in (-1, 1):
            cx, cy = x + dx * reach, y + dy * reach
            group.append(draw.Lines(cx - dx * arm, cy, cx, cy, cx, cy - dy * arm, close=False))
    drawing.append(group)


def _draw_arrow(draw: Any, drawing: Any, arrow: Arrow, tail: tuple[float, float],
                head: tuple[float, float], from_piece: bool, onto_piece: bool) -> None:
    """The arrow over the board, from the rim of the piece that moves (or the point's
    centre) to the target point (or the rim of the piece taken): no letter is covered."""
    (x0, y0), (x1, y1) = tail, head
    length = ((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5
    ux, uy = (x1 - x0) / length, (y1 - y0) / length
    rim = 0.47 * UNIT
    if from_piece:
        x0, y0 = x0 + ux * rim, y0 + uy * rim
    if onto_piece:
        x1, y1 = x1 - ux * rim, y1 - uy * rim
    head_length, head_width = 0.36 * UNIT, 0.18 * UNIT
    bx, by = x1 - ux * head_length, y1 - uy * head_length
    group = draw.Group(class_="arrow", data_from=square_name(arrow.tail),
                       data_to=square_name(arrow.head), fill_opacity=0.85, stroke_opacity=0.85)
    group.append(draw.Line(x0, y0, bx, by, stroke=arrow.color, stroke_width=0.12 * UNIT,
                           stroke_linecap="butt"))
    group.append(draw.Lines(x1, y1, bx - uy * head_width, by + ux * head_width,
                            bx + uy * head_width, by - ux * head_width, close=True,
                            fill=arrow.color, stroke="none"))
    drawing.append(group)


# -- PNG and PDF ----------------------------------------------------------------------------------

def _families(stack: str) -> list[str]:
    return [name.strip().strip("'\"") for name in stack.split(",")]


@lru_cache(maxsize=1)
def installed_chinese_families() -> tuple[str, ...]:
    """The font families with Chinese characters that fontconfig (and so cairo) knows, by
    ``fc-list :lang=zh``; empty when there are none or fontconfig's tools are missing."""
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return ()
    try:
        listing = subprocess.run([fc_list, ":lang=zh", "family"], capture_output=True,
                                 text=True, timeout=20, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return ()
    names = {name.strip() for line in listing.splitlines() for name in line.split(",")}
    return tuple(sorted(name for name in names if name))


def cairo_font_family() -> str | None:
    """The family to name for cairo, which takes only the first of a list: the first of
    :data:`FONT_FAMILY` that is installed, else any installed family with Chinese
    characters; None when there is none (the pieces would then have no letters)."""
    installed = installed_chinese_families()
    for name in _families(FONT_FAMILY):
        if name in installed:
            return name
    return installed[0] if installed else None


MISSING_FONT = ("no font with Chinese characters is installed for cairo (fc-list :lang=zh "
                "finds none), so the pieces and the river are drawn without their letters: "
                "install one, e.g. `make fonts` (Debian's fonts-arphic-ukai)")


@dataclass(frozen=True)
class Written:
    """A diagram written to ``path`` in ``format`` (svg, png or pdf); ``warnings`` says
    what could not be drawn as it should (no Chinese font for cairo)."""
    path: str
    format: str
    warnings: tuple[str, ...] = ()


FORMATS = ("svg", "png", "pdf")


def format_of(path: str | os.PathLike[str]) -> str:
    """The diagram format a file name asks for, by its suffix.

    >>> format_of("d.SVG"), format_of("x/d.png")
    ('svg', 'png')
    """
    suffix = os.path.splitext(os.fspath(path))[1].lower().lstrip(".")
    if suffix not in FORMATS:
        raise DiagramError(f"{os.fspath(path)}: unknown diagram format {suffix or '(none)'!r} "
                           f"(use .svg, .png or .pdf)")
    return suffix


def render(svg: str, fmt: str, scale: float = 2.0) -> bytes:
    """``svg`` as PNG or PDF bytes through cairosvg (``scale``: PNG pixels per unit)."""
    cairosvg = require("cairosvg", "diagrams")
    data = svg.encode("utf-8")
    if fmt == "png":
        return bytes(cairosvg.svg2png(bytestring=data, scale=scale))
    if fmt == "pdf":
        return bytes(cairosvg.svg2pdf(bytestring=data))
    raise DiagramError(f"cannot render {fmt!r} (png or pdf)")


def save(path: str | os.PathLike[str], position: Board | None = None, *, scale: float = 2.0,
         **options: Any) -> Written:
    """Write the diagram of ``position`` to ``path``, in the format of its suffix (.svg,
    .png, .pdf); ``options`` as :func:`board`.  The file appears whole or not at all."""
    fmt = format_of(path)
    warnings: Sequence[str] = ()
    if fmt == "svg":
        data = board(position, **options).encode("utf-8")
    else:
        family = cairo_font_family()
        if family is None:
            warnings = (MISSING_FONT,)
        data = render(board(position, font_family=family or FONT_FAMILY, **options), fmt,
                      scale)
    write_atomically(path, data)
    return Written(os.fspath(path), fmt, tuple(warnings))
