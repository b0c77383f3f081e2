"""Diagrams from the studio: ``d`` (or "Export diagram" in the palette) writes the position
shown, or the catalogue entry highlighted, as an SVG file in ``$XQSTUDIO_DIAGRAMS`` and says
where."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from test_tui_catalogue import SIZE, catalogue_opened  # tests/tui is on sys.path (rootdir)

from puzzles.catalogue import query
from tui.app import XQStudioApp
from tui.commands import STUDIO_COMMANDS
from tui.widgets.status_line import StatusLine

SVG = "{http://www.w3.org/2000/svg}"
FEN = "3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1"


def drawn_pieces(path) -> dict[str, str]:
    return {g.get("data-square"): g.get("data-piece")
            for g in ET.parse(path).getroot().iter(f"{SVG}g")
            if "piece" in (g.get("class") or "").split()}


def test_d_writes_the_position_shown_and_the_status_line_says_where(studio, tmp_path,
                                                                      monkeypatch):
    monkeypatch.setenv("XQSTUDIO_DIAGRAMS", str(tmp_path))

    async def scenario(pilot):
        await pilot.press("d")
        await pilot.pause()
        first = str(pilot.app.screen.query_one("#status", StatusLine).render())
        await pilot.press("f")                 # flip the board, then a second diagram
        await pilot.press("d")
        await pilot.pause()
        return first, str(pilot.app.screen.query_one("#status", StatusLine).render())

    first, second = studio(scenario, fen=FEN)
    path, flipped = tmp_path / "xqstudio-diagram.svg", tmp_path / "xqstudio-diagram-2.svg"
    assert first.endswith(f"diagram written to {path}")
    assert second.endswith(f"diagram written to {flipped}")
    assert drawn_pieces(path) == drawn_pieces(flipped) == {"d9": "k", "a0": "R", "e0": "K"}
    # The second one is drawn as the board was shown: Black at the bottom.
    def y_of(path, square):
        group = next(g for g in ET.parse(path).getroot().iter(f"{SVG}g")
                     if g.get("data-square") == square)
        return float(next(c for c in group.iter(f"{SVG}circle") if c.get("stroke") != "none")
                     .get("cy"))
    assert y_of(path, "e0") > y_of(path, "d9") and y_of(flipped, "e0") < y_of(flipped, "d9")


@pytest.mark.slow
def test_palette_exports_the_diagram(studio, tmp_path, monkeypatch):
    monkeypatch.setenv("XQSTUDIO_DIAGRAMS", str(tmp_path))
    assert any(c.action == "screen.export_diagram" for c in STUDIO_COMMANDS)

    async def scenario(pilot):
        await pilot.press("ctrl+p", *"export diagram")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()

    studio(scenario, fen=FEN)
    assert drawn_pieces(tmp_path / "xqstudio-diagram.svg") == {"d9": "k", "a0": "R", "e0": "K"}


def test_d_in_the_catalogue_writes_the_highlighted_entry_with_its_title(catalogue, drive,
                                                                         tmp_path, monkeypatch):
    monkeypatch.setenv("XQSTUDIO_DIAGRAMS", str(tmp_path))

    async def scenario(pilot):
        await catalogue_opened(pilot)
        await pilot.press("d")
        await pilot.pause()

    app = XQStudioApp()
    notified: list[str] = []
    notify = app.notify
    monkeypatch.setattr(app, "notify", lambda message, **options: (
        notified.append(message), notify(message, **options)))
    drive(app, scenario, SIZE)
    entry = query(catalogue, limit=1).entries[0]
    path = tmp_path / f"xqstudio-{entry.kind}-{entry.id}.svg"
    assert notified == [str(path)]
    root = ET.parse(path).getroot()
    assert [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "title"] == \
        [f"{entry.pattern_name} 例1"]
