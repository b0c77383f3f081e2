"""``FenDialog``: type or paste a FEN; the rules engine's complaint is shown under the input.

Dismissed with the :class:`xiangqi.Board` of a legal FEN, or None on Escape.
"""
from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from xiangqi import Board, FenError


class FenDialog(ModalScreen[Board | None]):
    """A modal with one input for a FEN."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    DEFAULT_CSS = """
    FenDialog { align: center middle; }
    FenDialog > Vertical {
        width: 90%;
        max-width: 100;
        height: auto;
        padding: 1 2;
        border: thick $primary;
        background: $surface;
    }
    FenDialog #fen-error { color: $text-error; height: auto; }
    FenDialog .fen-dialog--hint { color: $text-muted; }
    """

    def __init__(self, text: str = "") -> None:
        super().__init__()
        self._initial_text = text

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Open a position from a FEN")
            yield Input(self._initial_text, placeholder="rnbakabnr/9/1c5c1/... w - - 0 1",
                        id="fen-input")
            yield Static("", id="fen-error", markup=False)
            yield Label("Enter opens it · Escape cancels", classes="fen-dialog--hint")

    def on_input_changed(self) -> None:
        self.query_one("#fen-error", Static).update("")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        try:
            board = Board(event.value.strip())
        except FenError as error:
            self.query_one("#fen-error", Static).update(f"Not a legal position: {error}")
            return
        self.dismiss(board)

    def action_cancel(self) -> None:
        self.dismiss(None)
