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

import ast
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import TabbedContent

from .solver_panel import SolverPanel
from .tablebase_panel import TablebasePanel

PANEL_CLASSES: tuple[type[Widget], ...] = (TablebasePanel, SolverPanel)


def _forwarded_bindings() -> list[BindingType]:
    """One ``forward`` binding per panel class and key, with that panel's description."""
    return [Binding(binding.key, f"forward({panel_class.__name__!r}, {binding.key!r})",
                    binding.description, show=binding.show)
            for panel_class in PANEL_CLASSES
            for binding in Binding.make_bindings(panel_class.BINDINGS)]


def panel_binding(panel: Widget, key: str) -> Binding | None:
    """The binding of ``panel``'s class for ``key``, if it has one."""
    for binding in Binding.make_bindings(type(panel).BINDINGS):
        if binding.key == key:
            return binding
    return None


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

    def _target(self, panel_class: str, key: str) -> tuple[Widget, Binding] | None:
        """The active panel and its binding for ``key``, if it is a ``panel_class``."""
        panel = self.active_panel()
        if panel is None or type(panel).__name__ != panel_class:
            return None
        binding = panel_binding(panel, key)
        if binding is None:
            return None
        return panel, binding

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action != "forward":
            return True
        target = self._target(str(parameters[0]), str(parameters[1]))
        if target is None:
            return False
        panel, binding = target
        name, _, rest = binding.action.partition("(")
        arguments = tuple(ast.literal_eval(f"({rest[:-1]},)")) if rest else ()
        return panel.check_action(name, arguments) is not False

    async def action_forward(self, panel_class: str, key: str) -> None:
        target = self._target(panel_class, key)
        if target is not None:
            panel, binding = target
            await panel.run_action(binding.action)
