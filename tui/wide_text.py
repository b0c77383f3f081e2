"""East Asian wide characters (汉字 take two terminal cells): the studio's one display-width
helper, and a repair of Textual's compositor so that an overlay keeps them whole.

Text that is padded or cut for a column is measured with :func:`display_width` and fitted
with :func:`fit_to_width`, never with ``len`` or an f-string width, which count code points.

The compositor repair (:func:`keep_wide_characters_whole`, installed by :mod:`tui.app`):
Textual 8.2.8 cuts every screen line at the left and right edge of every visible widget and
gives each piece to the front-most widget there.  A widget in front of others -- a Select's
drop-down list, a notification, a tooltip -- is cut at the edges of the widgets *behind* it
too, and a wide character straddling such an edge is replaced by two spaces
(``rich.segment.Segment.split_cells``).  That is how the catalogue's collection list showed
"江湖四大名   (5)" for "江湖四大名局 (5)" at 120 columns: the edge of the "Max moves" field
behind the list ran through 局.  The repaired ``_render_chops`` cuts a widget's line only
where the owner of the cells changes, so nothing a widget shows is cut by a widget it covers.
Upstream: Textualize/textual issue 6357 (open for 8.2.8, the version pyproject.toml pins).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import cast

import textual
from rich.cells import cell_len, set_cell_size
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text
from textual._compositor import ChopsUpdate, Compositor
from textual.geometry import Region
from textual.strip import Strip

# The Textual release whose compositor the repair replaces methods of: another release may
# have changed those methods (or fixed the bug), so the repair must be checked against it.
REPAIRED_TEXTUAL = "8.2.8"


def display_width(text: str) -> int:
    """The number of terminal cells ``text`` takes (a Chinese character takes two)."""
    return cell_len(text)


def fit_to_width(text: str, width: int) -> str:
    """``text`` padded with spaces or cut to exactly ``width`` cells; a wide character that
    would be cut in half is replaced by a space."""
    return set_cell_size(text, width)


# Chinese line breaking (禁则): closing punctuation never begins a line, opening punctuation
# never ends one.  Rich breaks Chinese text, which has no spaces, after any character, so a
# description could show "，" at the start of a line.
NOT_AT_LINE_START = frozenset("，。、；：？！）」』》〉】’”…,.;:?!)")
NOT_AT_LINE_END = frozenset("（「『《〈【‘“(")


def _breakable_pieces(line: str) -> list[str]:
    """``line`` cut where a line may break: after each space run that ends a word, around
    every wide character, never before closing or after opening punctuation."""
    pieces: list[str] = []
    for char in line:
        if pieces and (
                char in NOT_AT_LINE_START or pieces[-1][-1] in NOT_AT_LINE_END
                or (not char.isspace() and display_width(char) == 1
                    and not pieces[-1][-1].isspace() and display_width(pieces[-1][-1]) == 1)
                or (char.isspace() and pieces[-1][-1].isspace())):
            pieces[-1] += char
        else:
            pieces.append(char)
    return pieces


def line_breaks(line: str, width: int) -> list[int]:
    """Where ``line`` (no newline in it) is cut to fit lines of ``width`` cells: the offsets
    of the starts of the second and later lines.  Words and punctuation stay with their
    neighbours (:data:`NOT_AT_LINE_START`); a piece wider than a line is cut by characters."""
    pieces = []
    offset = 0
    for piece in _breakable_pieces(line):
        pieces.append((offset, piece, False))
        offset += len(piece)
    return _filled(pieces, width)


def _filled(pieces: Iterable[tuple[int, str, bool]], width: int) -> list[int]:
    """The offsets where lines of ``width`` cells start, filled greedily with ``pieces``:
    (offset, text, whether it must start a line).  A piece's trailing spaces may pass the
    width (they are not shown at a break); a piece wider than a line is cut by characters."""
    breaks: list[int] = []
    used = 0                # cells on the current line
    for offset, piece, new_line in pieces:
        if new_line:
            breaks.append(offset)
            used = 0
        piece_width = display_width(piece.rstrip())
        if used and used + piece_width > width:
            breaks.append(offset)
            used = 0
        if piece_width > width:                 # a long word: cut it by characters
            for index, char in enumerate(piece):
                if used and used + display_width(char) > width and not char.isspace():
                    breaks.append(offset + index)
                    used = 0
                used += display_width(char)
        else:
            used += display_width(piece)
    return breaks


class WrappedText:
    """A Rich renderable: ``text`` wrapped to the width it is given by :func:`line_breaks`
    (Chinese line-breaking rules), each line's styles kept."""

    def __init__(self, text: Text) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text.plain

    def wrapped(self, width: int) -> Text:
        lines: list[Text] = []
        for line in self.text.split("\n", allow_blank=True):
            lines.extend(line.divide(line_breaks(line.plain, max(1, width))))
        return _joined(lines)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.wrapped(options.max_width)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        widest = max((display_width(line) for line in self.text.plain.split("\n")), default=0)
        return Measurement(1, min(widest, options.max_width))


def _joined(lines: list[Text]) -> Text:
    """``lines`` as one text that Rich shows as it is: the spaces (and a newline) where a
    line breaks are not shown."""
    for line in lines:
        line.rstrip()
    result = Text("\n").join(lines)
    result.no_wrap = True
    result.overflow = "crop"
    return result


class TokenWrappedText(WrappedText):
    """A Rich renderable: ``text`` wrapped to the width it is given only where a line may
    start, at the offsets ``starts`` (a numbered line of moves: before each move with its
    number, never inside a move nor between a number and its move; a FEN: after a rank's
    slash).  A piece wider than a line is cut by characters; the text's own newlines are
    kept.  Its lines keep their styles."""

    def __init__(self, text: Text, starts: Sequence[int]) -> None:
        super().__init__(text)
        self.starts = sorted(set(starts))

    def breaks(self, width: int) -> list[int]:
        """The offsets in ``text`` where its lines start, its own newlines' included."""
        plain = self.text.plain
        cuts = sorted({0, len(plain), *self.starts,
                       *(index + 1 for index, char in enumerate(plain) if char == "\n")})
        return _filled(((start, plain[start:end].rstrip("\n"),
                         start > 0 and plain[start - 1] == "\n")
                        for start, end in zip(cuts, cuts[1:])), width)

    def wrapped(self, width: int) -> Text:
        return _joined(list(self.text.divide(self.breaks(max(1, width)))))


def _render_chops(self: Compositor, crop: Region,
                  is_rendered_line: Callable[[int], bool]) -> Sequence[Mapping[int, Strip]]:
    """``Compositor._render_chops`` of Textual 8.2.8, except that each widget's line is cut
    only where the cells change owner: a run of pieces the widget wins becomes one strip,
    keyed by the run's first cut (the keys of the cuts inside the run are dropped)."""
    cuts = self.cuts
    # Marks a cut inside a run that a widget in front has taken whole.
    taken = Strip([], 0)
    chops: list[dict[int, Strip | None]] = [dict.fromkeys(line_cuts[:-1]) for line_cuts in cuts]
    # Widgets come front to back: the first to reach a piece of a line wins it.
    for region, clip, strips in self._get_renders(crop):
        render_region = region.intersection(clip)
        render_x = render_region.x
        first_cut, last_cut = render_region.column_span
        for y, strip in zip(render_region.line_range, strips):
            if not is_rendered_line(y):
                continue
            line = chops[y]
            widget_cuts = [cut for cut in cuts[y] if first_cut <= cut <= last_cut]
            free = [line.get(cut) is None for cut in widget_cuts[:-1]]
            bounds = [widget_cuts[0]]
            bounds += [cut for index, cut in enumerate(widget_cuts[1:-1], 1)
                       if free[index] != free[index - 1]]
            bounds.append(widget_cuts[-1])
            pieces = strip.divide([bound - render_x for bound in bounds[1:]])
            for start, end, piece in zip(bounds, bounds[1:], pieces):
                if line.get(start) is not None:
                    continue                          # covered by a widget in front
                line[start] = piece
                for cut in widget_cuts:
                    if start < cut < end:
                        line[cut] = taken
    # Cuts no widget reached keep None, as in Textual (lines left out of a partial update).
    kept = [{x: strip for x, strip in line.items() if strip is not taken} for line in chops]
    return cast("Sequence[Mapping[int, Strip]]", kept)


def _render_partial_update(self: Compositor) -> ChopsUpdate | None:
    """``Compositor.render_partial_update`` of Textual 8.2.8, except that each chop ends
    where the next chop kept by :func:`_render_chops` begins (not at the next cut)."""
    screen_region = self.size.region
    update_regions = self._dirty_regions.copy()
    self._dirty_regions.clear()
    if not update_regions:
        return None
    crop = Region.from_union(update_regions).intersection(screen_region)
    spans = list(self._regions_to_spans(update_regions))
    is_rendered_line = {y for y, _, _ in spans}.__contains__
    chops = self._render_chops(crop, is_rendered_line)
    chop_ends = [[*list(line)[1:], line_cuts[-1]] for line, line_cuts in zip(chops, self.cuts)]
    return ChopsUpdate(chops, spans, chop_ends)


def keep_wide_characters_whole() -> None:
    """Install the compositor repair (see the module's description); calling it again does
    nothing."""
    if textual.__version__ != REPAIRED_TEXTUAL:
        raise RuntimeError(
            f"tui.wide_text repairs the compositor of Textual {REPAIRED_TEXTUAL}, but Textual "
            f"{textual.__version__} is installed: check whether Textualize/textual issue 6357 "
            "is fixed there (then delete the repair) or port it, and run the TUI tests")
    Compositor._render_chops = _render_chops               # type: ignore[method-assign]
    Compositor.render_partial_update = _render_partial_update  # type: ignore[method-assign]
