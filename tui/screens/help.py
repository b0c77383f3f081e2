"""``HelpScreen``: the key bindings of the screen shown, read from the ``BINDINGS`` themselves.

The app passes the sections (a title and the bindings of one class each: the studio's, the
screen's and those of the widgets on it, see ``XQStudioApp.help_sections``), so the list
cannot drift from the keys that really work there.  Keys bound to one description are shown
together.
"""
from __future__ import annotations

from collections.abc import Iterable

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

HelpSection = tuple[str, Iterable[BindingType]]


def binding_rows(bindings: Iterable[BindingType]) -> list[tuple[list[Binding], str]]:
    """The bindings grouped by description, in the order they are declared."""
    groups: dict[str, list[Binding]] = {}
    for binding in Binding.make_bindings(bindings):
        groups.setdefault(binding.description or binding.action, []).append(binding)
    return [(keys, description) for description, keys in groups.items()]


class HelpScreen(ModalScreen[None]):
    """The key bindings, section by section."""

    BINDINGS = [Binding("escape,q,question_mark,f1", "close", "Close help")]

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 80;
        max-width: 100%;
        height: 90%;
        border: thick $primary;
        border-title-align: center;
        background: $surface;
        padding: 0 1;
    }
    HelpScreen .help-section { margin-bottom: 1; }
    """

    def __init__(self, sections: Iterable[HelpSection], where: str = "") -> None:
        """``where``: the name of the screen whose keys these are, for the title."""
        super().__init__()
        self._sections = [(title, list(bindings)) for title, bindings in sections]
        self._where = where

    def compose(self) -> ComposeResult:
        scroll = VerticalScroll(id="help-body")
        where = f" · {self._where}" if self._where else ""
        scroll.border_title = f"XQ Studio keys{where} · Escape closes"
        with scroll:
            for title, bindings in self._sections:
                yield Static(self._section_table(title, bindings), classes="help-section")

    def _section_table(self, title: str, bindings: list[BindingType]) -> Table:
        table = Table(title=title, title_justify="left", title_style="bold", show_header=False,
                      box=None, padding=(0, 2, 0, 0), expand=False)
        table.add_column("keys", style="bold", no_wrap=True, min_width=14)
        table.add_column("action")
        for keys, description in binding_rows(bindings):
            table.add_row(" ".join(self.app.get_key_display(key) for key in keys), description)
        return table

    def action_close(self) -> None:
        self.dismiss(None)
