"""``StudioScreen``: what the studio's full screens share — a footer that starts with Help.

Textual's footer lists the focused widget's keys first and the app's last, so at 80 columns
Help and Quit fell off its right end on every screen with a busy board or table.  Help is the
key that leads to all the others (each screen's help lists every key that works there), so
it and Quit come first.
"""
from __future__ import annotations

from typing import Generic, TypeVar

from textual.binding import ActiveBinding
from textual.screen import Screen

# The app's actions shown first in every footer, in this order.
FOOTER_FIRST = ("show_help", "quit")

ScreenResult = TypeVar("ScreenResult")


class StudioScreen(Screen[ScreenResult], Generic[ScreenResult]):
    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        bindings = super().active_bindings
        first = sorted((key for key, active in bindings.items()
                        if active.binding.action in FOOTER_FIRST),
                       key=lambda key: FOOTER_FIRST.index(bindings[key].binding.action))
        return {key: bindings[key] for key in first} | \
            {key: active for key, active in bindings.items() if key not in first}
