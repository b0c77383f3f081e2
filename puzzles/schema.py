"""The catalogue as open data: its schema, documented, and its Datasette metadata.

``puzzles/data/datasette.json`` is the one description of every table and column: ``xqstudio
catalogue schema`` prints it beside the real columns of a built catalogue, and Datasette reads
it (``datasette catalogue.sqlite -m puzzles/data/datasette.json``) for titles, column
descriptions, facets (by pattern, collection, stipulation, verdict) and canned queries.

>>> sorted(metadata()["databases"]["catalogue"]["tables"])[:3]
['compositions', 'draw_analyses', 'examples']
"""
from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import sqlite_utils

from xiangqi.output import JsonObject

from .paths import DATA_DIR

METADATA_FILE = DATA_DIR / "datasette.json"
DATABASE = "catalogue"
"""The database's name in the metadata: Datasette names a database by its file's stem
(``catalogue.sqlite``); :func:`datasette_metadata` renames it for another file."""


@lru_cache(maxsize=1)
def _metadata() -> JsonObject:
    document: JsonObject = json.loads(METADATA_FILE.read_text(encoding="utf-8"))
    return document


def metadata() -> JsonObject:
    """The Datasette metadata (a copy, to change freely)."""
    return copy.deepcopy(_metadata())


def datasette_metadata(database: str | Path | None = None) -> JsonObject:
    """The metadata for the catalogue file ``database`` (its stem names it in Datasette)."""
    document = metadata()
    name = Path(database).stem if database is not None else DATABASE
    document["databases"] = {name: document["databases"][DATABASE]}
    return document


@dataclass(frozen=True)
class Column:
    name: str
    type: str
    description: str


@dataclass(frozen=True)
class Table:
    """A table of the catalogue: its name, title, description, columns and facets."""
    name: str
    title: str
    description: str
    columns: list[Column]
    facets: list[str]


def _facet_name(facet: str | JsonObject) -> str:
    return facet if isinstance(facet, str) else next(iter(facet.values()))


def schema(db: sqlite_utils.Database) -> list[Table]:
    """The tables of the built catalogue ``db`` with their columns (name, SQLite type) and
    the descriptions of the metadata, in the metadata's order; tables it does not describe
    (an FTS index's own tables) are left out."""
    described = _metadata()["databases"][DATABASE]["tables"]
    present = set(db.table_names())
    tables = []
    for name, info in described.items():
        if name not in present:
            continue
        columns = [Column(column.name, column.type or "", info.get("columns", {}).get(
            column.name, "")) for column in db.table(name).columns]
        tables.append(Table(name, info.get("title", name), info.get("description", ""),
                            columns, [_facet_name(f) for f in info.get("facets", [])]))
    return tables


def unknown_names(db: sqlite_utils.Database) -> list[str]:
    """What the metadata names that ``db`` lacks: tables, columns, facets, label columns
    (``table.column``); empty when the metadata fits the catalogue."""
    problems = []
    present = set(db.table_names())
    for name, info in _metadata()["databases"][DATABASE]["tables"].items():
        if name not in present:
            problems.append(name)
            continue
        columns = {column.name for column in db.table(name).columns}
        named = [*info.get("columns", {}), *map(_facet_name, info.get("facets", [])),
                 *filter(None, [info.get("label_column"), info.get("sort")])]
        problems.extend(f"{name}.{column}" for column in named if column not in columns)
    return problems


def undescribed_columns(db: sqlite_utils.Database) -> list[str]:
    """The columns of the described tables that have no description (``table.column``)."""
    return [f"{table.name}.{column.name}" for table in schema(db)
            for column in table.columns if not column.description]


def schema_text(tables: list[Table]) -> str:
    """The schema for a person: each table, its description and its columns."""
    lines = []
    for table in tables:
        lines.append(f"{table.name} — {table.title}")
        lines.append(f"  {table.description}")
        if table.facets:
            lines.append(f"  facets: {', '.join(table.facets)}")
        width = max(len(column.name) for column in table.columns)
        for column in table.columns:
            lines.append(f"  {column.name:<{width}}  {column.type:<7}  {column.description}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
