"""Suite-wide test configuration.

* Every test gets its own default tablebase directory and catalogue file, in a temporary
  directory of its own (``XQSTUDIO_TABLES``, ``XQSTUDIO_CATALOGUE``; its fixtures may point them
  elsewhere), so no test reads or writes the user's ``~/.local/share/xqstudio`` and tests
  running in parallel (pytest-xdist) never share a file; and one process a search
  (``XQSTUDIO_THREADS``).
* Tests that use an expensive shared fixture are marked ``slow``, so ``make test-fast``
  (``-m "not slow"``) skips the fixture's cost too: ``table_dir`` builds eleven tablebases,
  ``corpus`` asks Fairy-Stockfish about thousands of positions.
"""
from __future__ import annotations

import pytest

SLOW_FIXTURES = {"table_dir", "corpus"}


@pytest.fixture(autouse=True)
def _private_defaults(tmp_path_factory: pytest.TempPathFactory,
                      monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path_factory.mktemp("xqstudio-home")
    monkeypatch.setenv("XQSTUDIO_TABLES", str(home / "tablebases"))
    monkeypatch.setenv("XQSTUDIO_CATALOGUE", str(home / "catalogue.sqlite"))
    # One process a search unless a test says otherwise: on several, which proof is found
    # first depends on timing, and the tests check exact lines and node counts.
    monkeypatch.setenv("XQSTUDIO_THREADS", "1")


@pytest.fixture(scope="session")
def shipped_catalogue(tmp_path_factory: pytest.TempPathFactory):
    """The catalogue built from ``puzzles/data`` as shipped, once for the session: read it,
    or copy it to change it."""
    from puzzles.catalogue import build

    path = tmp_path_factory.mktemp("catalogue") / "catalogue.sqlite"
    build(path)
    return path


@pytest.fixture
def uninstalled(monkeypatch: pytest.MonkeyPatch):
    """``uninstalled("cairosvg", ...)``: those optional modules look missing to
    :func:`xiangqi.output.require` (what a core install without the extra sees)."""
    import xiangqi.output as output

    real = output.importlib.import_module

    def hide(*modules: str) -> None:
        def import_module(name: str):
            if name in modules:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return real(name)
        monkeypatch.setattr(output.importlib, "import_module", import_module)
    return hide


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if SLOW_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="module")
def krkab_tables(tmp_path_factory: pytest.TempPathFactory):
    """KRKAB for the oracle; its sub-tables (KRKA, KRKB ...) alone for the solver's leaves
    (two directories; about a second to build)."""
    from tablebases.build import build

    oracle = tmp_path_factory.mktemp("krkab")
    leaves = tmp_path_factory.mktemp("krkab-leaves")
    build(["KRKAB"], oracle, log=lambda line: None)
    build(["KRKA", "KRKB"], leaves, log=lambda line: None)
    return oracle, leaves


def damage_table(path) -> None:
    """Flip 64 bytes in the middle of the table file at ``path`` (a checksum then fails)."""
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle:middle + 64] = bytes(b ^ 0xFF for b in data[middle:middle + 64])
    path.write_bytes(bytes(data))


@pytest.fixture(scope="module")
def damaged_tables(tmp_path_factory: pytest.TempPathFactory):
    """KRKAA and its sub-tables, KRKAA.xqtb damaged (:func:`damage_table`)."""
    from tablebases.build import build

    directory = tmp_path_factory.mktemp("damaged")
    build("KRKAA", directory, log=lambda line: None)
    damage_table(directory / "KRKAA.xqtb")
    return directory

