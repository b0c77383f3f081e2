"""Text bars of a material's distance-to-mate distribution, with one position's bucket marked.

The counts come from :func:`tablebases.stats.table_stats` for one side to move: a DTM of an
odd number of plies is a win for the side to move (mate in ``(plies + 1) // 2`` moves), an
even number a loss (mated after ``plies // 2`` of the opponent's moves; 0 plies: no move at
all).  Draws are a bar of their own.
"""
from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.widgets import Static

from ..wide_text import display_width, fit_to_width


@dataclass(frozen=True)
class Bucket:
    """One bar: positions whose DTM lies in ``first``..``last`` plies (None for draws)."""
    outcome: str                 # "win", "draw" or "loss", for the side to move
    first: int | None
    last: int | None
    count: int

    def holds(self, plies: int | None) -> bool:
        if self.first is None or self.last is None or plies is None:
            return self.first is None and plies is None
        return self.first <= plies <= self.last and plies % 2 == self.first % 2

    def label(self, plies: bool = True) -> str:
        """The bucket in moves and plies, e.g. ``mate in 3-5 (5-9 plies)``; in moves only
        (``mate in 3-5``) without ``plies``."""
        if self.first is None or self.last is None:    # both None: the draws
            return "draw"
        span = _span(self.first, self.last)
        unit = "ply" if self.first == self.last == 1 else "plies"
        in_plies = f" ({span} {unit})" if plies else ""
        if self.outcome == "win":
            return f"mate in {_span(_moves(self.first), _moves(self.last))}{in_plies}"
        if self.last == 0:
            return "no move, lost now" + (" (0 plies)" if plies else "")
        return f"mated in {_span(self.first // 2, self.last // 2)}{in_plies}"


def _moves(plies: int) -> int:
    return (plies + 1) // 2


def _span(first: int, last: int) -> str:
    return str(first) if first == last else f"{first}\u2013{last}"


def buckets(histogram: dict[int, int], draws: int, max_bars: int) -> list[Bucket]:
    """Wins fastest first, then draws, then losses quickest first; when one outcome has more
    distinct distances than ``max_bars``, neighbouring distances share a bar."""
    result = _grouped("win", {p: n for p, n in histogram.items() if p % 2}, max_bars)
    if draws:
        result.append(Bucket("draw", None, None, draws))
    if histogram.get(0):
        # Mated or stalemated already: a bar of its own, never merged with "mated in 1".
        result.append(Bucket("loss", 0, 0, histogram[0]))
    result += _grouped("loss", {p: n for p, n in histogram.items() if p and not p % 2},
                       max_bars)
    return result


def _grouped(outcome: str, counts: dict[int, int], max_bars: int) -> list[Bucket]:
    if not counts:
        return []
    distances = sorted(counts)
    # Distances of one outcome step by two plies; a bar spans ``width`` of those steps.
    steps = (distances[-1] - distances[0]) // 2 + 1
    width = -(-steps // max_bars)
    groups: dict[int, list[int]] = {}
    for plies in distances:
        groups.setdefault((plies - distances[0]) // 2 // width, []).append(plies)
    return [Bucket(outcome, members[0], members[-1], sum(counts[p] for p in members))
            for _, members in sorted(groups.items())]


class DtmHistogram(Static):
    """The DTM histogram of one material for one side to move.

    Call :meth:`show_histogram` with the counts and the position to mark, or
    :meth:`show_message` when there is nothing to draw.
    """

    DEFAULT_CSS = """
    DtmHistogram {
        height: auto;
        padding: 0 1;
    }
    """

    BAR_WIDTH = 20       # the longest bar, where the panel is wide enough
    MIN_BAR_WIDTH = 8    # narrower than this, the labels drop their plies to make room
    MAX_BARS = 12        # per outcome, so that a long win does not make the panel scroll
    MARK = " \u25c0 here"

    def __init__(self, *, name: str | None = None, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__("", markup=False, name=name, id=id, classes=classes)
        self.bars: list[Bucket] = []
        self.marked: Bucket | None = None
        self.title = ""

    def show_histogram(self, title: str, histogram: dict[int, int], draws: int,
                       marked_plies: int | None) -> None:
        """Draw the bars of ``histogram`` (plies -> positions) and ``draws``; mark the bar
        holding ``marked_plies`` (None: the draws)."""
        self.bars = buckets(histogram, draws, self.MAX_BARS)
        self.marked = next((b for b in self.bars if b.holds(marked_plies)), None)
        self.title = title
        self._draw()

    def on_resize(self) -> None:
        if self.bars:
            self._draw()

    def _draw(self) -> None:
        """The bars, as long as the widget's width lets each line fit on one line."""
        room = self.content_region.width or 80       # not laid out yet: drawn again then
        top = max((b.count for b in self.bars), default=0)
        count_width = max((len(f"{b.count:,}") for b in self.bars), default=0)
        fixed = count_width + 2 + display_width(self.MARK)      # two spaces around the count
        plies = max((display_width(b.label()) for b in self.bars), default=0) + fixed \
            + self.MIN_BAR_WIDTH <= room
        label_width = max((display_width(b.label(plies)) for b in self.bars), default=0)
        bar_width = max(1, min(self.BAR_WIDTH, room - label_width - fixed))
        text = Text(self.title + "\n", style="bold")
        for bar in self.bars:
            length = max(1, round(bar_width * bar.count / top))
            style = {"win": "green", "draw": "yellow", "loss": "red"}[bar.outcome]
            line = Text(f"{fit_to_width(bar.label(plies), label_width)} "
                        f"{bar.count:>{count_width},} ")
            line.append("\u2588" * length, style=style)
            if bar is self.marked:
                line.append(self.MARK, style="bold")
                line.stylize("bold reverse", 0, label_width)
            text.append_text(line)
            text.append("\n")
        if not self.bars:
            text.append("(no legal positions)\n")
        text.rstrip()
        self.update(text)

    def show_message(self, message: str) -> None:
        """Replace the bars with a line of text (e.g. while the counts are being read)."""
        self.bars, self.marked = [], None
        self.update(Text(message))
