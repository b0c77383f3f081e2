"""The catalogue of kill patterns and compositions (SQLite) and the problem-file formats.

The public API; the modules behind it (:mod:`puzzles.catalogue`, :mod:`puzzles.formats`) hold
the rest::

    from puzzles import open_catalogue, query, read, write

    db = open_catalogue()                       # built from puzzles/data on first use
    page = query(db, text="马后炮", limit=20)    # a Page of Entry
    records = read("problems.pgn")              # Record list; FormatError for a bad file
"""
from .catalogue import (
    KINDS,
    BuildReport,
    CatalogueError,
    CollectionSummary,
    Entry,
    Page,
    PatternSummary,
    build,
    export_records,
    get_entry,
    import_file,
    list_collections,
    list_patterns,
    open_catalogue,
    pattern_of,
    query,
    search,
)
from .formats import FORMATS, Format, FormatError, Record, format_of, read, write
from .paths import default_database

__all__ = [
    # the catalogue
    "open_catalogue", "build", "query", "search", "get_entry", "pattern_of", "list_patterns",
    "list_collections", "import_file", "export_records", "default_database", "CatalogueError",
    "BuildReport",
    # its entry types
    "Entry", "Page", "PatternSummary", "CollectionSummary", "KINDS",
    # problem files
    "read", "write", "format_of", "Record", "Format", "FORMATS", "FormatError",
]
