"""``TooSmallScreen``: shown over everything while the terminal is below the studio's minimum
size, so a small window says why it shows nothing instead of drawing a broken layout."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import Static

MIN_WIDTH, MIN_HEIGHT = 80, 24


def too_small_message(width: int, height: int) -> str:
    """The message for a ``width`` × ``height`` terminal.

    >>> too_small_message(70, 20)
    'Window too small (70×20): XQ Studio needs 80×24.\\nEnlarge the terminal, or Ctrl+Q quits.'
    """
    return (f"Window too small ({width}×{height}): XQ Studio needs {MIN_WIDTH}×{MIN_HEIGHT}.\n"
            "Enlarge the terminal, or Ctrl+Q quits.")


class TooSmallScreen(ModalScreen[None]):
    """The "window too small" message; the app removes it once the terminal is large enough."""

    BINDINGS = [Binding("ctrl+q", "app.quit", "Quit", priority=True)]

    def __init__(self, width: int, height: int) -> None:
        super().__init__()
        self._window = (width, height)

    def compose(self) -> ComposeResult:
        yield Static(too_small_message(*self._window), id="too-small-message", markup=False)

    def show_size(self, width: int, height: int) -> None:
        self._window = (width, height)
        for message in self.query("#too-small-message").results(Static):   # once composed
            message.update(too_small_message(width, height))
