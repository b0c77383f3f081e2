"""The studio's footer: Textual's, except that a key whose description does not fit whole is
left out rather than cut mid-word ("] Fo▏^p palette" at 80 columns).  The keys are listed in
their bindings' order, so the ones left out are the last; ``?`` (help) lists every key."""
from __future__ import annotations

from textual.widgets import Footer
from textual.widgets._footer import FooterKey


class FittingFooter(Footer):
    """A :class:`textual.widgets.Footer` that shows only the keys it has room for whole."""

    async def recompose(self) -> None:
        await super().recompose()
        self.call_after_refresh(self._fit)

    def on_resize(self) -> None:
        # Wider again: every key is laid out, then those that do not fit are hidden.
        for child in self.children:
            child.display = True
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        """Hide each key (or group) from the first that ends past the room left of the
        palette key, which is docked on the right."""
        palette = [key for key in self.query(FooterKey) if key.has_class("-command-palette")]
        limit = palette[0].region.x if palette else self.region.right
        overflowing = False
        for child in self.children:
            if child in palette:
                continue
            overflowing = overflowing or child.region.right > limit
            child.display = not overflowing
