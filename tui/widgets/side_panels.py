"""``SidePanels``: the analyse screen's tabbed panels, whose keys work wherever the focus is
inside them, the tab bar included.

A panel's own ``BINDINGS`` act while the focus is in the panel.  The tab bar is not inside a
panel, so :class:`SidePanels` repeats the bindings of its panels (read from their classes, so
nothing is listed twice by hand) and hands each key to the panel of the active tab, if that
panel has the key and can use it now.  A key two panels bind (``x``: cancel the build or the
search) is repeated once per panel, each enabled only while its panel's tab is active, so the
footer shows the active panel's description.
"""
from __future__ import annotations

from typing import ClassVar

from textual.actions import parse as parse_action
from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import TabbedContent

from .solver_panel import SolverPanel
from .tablebase_panel import TablebasePanel

PANEL_CLASSES: tuple[type[Widget], ...] = (TablebasePanel, SolverPanel)


def _forwarded_bindings() -> list[BindingType]:
    """One ``forward`` binding per panel class and key, with that panel's action and
    description (keys of one action share it, so the footer shows the action once)."""
    return [Binding(binding.key, f"forward({panel_class.__name__!r}, {binding.action!r})",
                    binding.description, show=binding.show)
            for panel_class in PANEL_CLASSES
            for binding in Binding.make_bindings(panel_class.BINDINGS)]


class SidePanels(TabbedContent):
    """The tabbed side panels; keys pressed on the tab bar go to the active tab's panel."""

    BINDINGS: ClassVar[list[BindingType]] = _forwarded_bindings()

    def active_panel(self) -> Widget | None:
        """The panel of the active tab (the pane's first child), if it is a panel class."""
        pane = self.active_pane
        if pane is None or not pane.children:
            return None
        panel = pane.children[0]
        return panel if isinstance(panel, PANEL_CLASSES) else None

    def _target(self, panel_class: str) -> Widget | None:
        """The active panel, if it is a ``panel_class``."""
        panel = self.active_panel()
        return panel if panel is not None and type(panel).__name__ == panel_class else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action != "forward":
            return True
        panel = self._target(str(parameters[0]))
        if panel is None:
            return False
        _, name, arguments = parse_action(str(parameters[1]))
        return panel.check_action(name, arguments) is not False

    async def action_forward(self, panel_class: str, action: str) -> None:
        panel = self._target(panel_class)
        if panel is not None:
            await panel.run_action(action)
