"""How the studio's parts depend on each other (issue 39): screens and widgets reach the
tablebases through :mod:`tui.services` alone and never import the app, which imports them;
widgets reach the solver and the catalogue through it too."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

TUI = Path(__file__).resolve().parents[2] / "tui"
PARTS = sorted([*TUI.glob("screens/*.py"), *TUI.glob("widgets/*.py")])


def imported_modules(path: Path) -> set[str]:
    """The absolute names of the modules ``path`` imports (relative ones resolved)."""
    package = ".".join(path.relative_to(TUI.parent).with_suffix("").parts[:-1])
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            names.add(".".join(part for part in (base, node.module or "") if part))
    return names


@pytest.mark.parametrize("path", PARTS, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_screens_and_widgets_go_through_the_services_and_not_the_app(path):
    modules = imported_modules(path)
    assert not {name for name in modules if name.split(".")[0] == "tablebases"}
    assert "tui.app" not in modules


@pytest.mark.parametrize("path", sorted(TUI.glob("widgets/*.py")), ids=lambda path: path.name)
def test_widgets_reach_the_layers_below_the_rules_through_the_services(path):
    below = {"tablebases", "solver", "puzzles"}
    assert not {name for name in imported_modules(path) if name.split(".")[0] in below}
