"""The catalogue as open data: ``puzzles/data/datasette.json`` names only tables and columns a
built catalogue has and describes every column; ``xqstudio catalogue schema`` prints it; and
Datasette (its own test client, no server) browses the catalogue with it."""
from __future__ import annotations

import asyncio
import json

import pytest

from puzzles import schema as schema_module
from puzzles.catalogue import open_catalogue
from puzzles.schema import datasette_metadata, metadata, schema, undescribed_columns, unknown_names
from tui.cli import main


@pytest.fixture
def shipped(shipped_catalogue):
    return shipped_catalogue


def test_metadata_names_only_what_a_built_catalogue_has(shipped):
    db = open_catalogue(shipped)
    assert unknown_names(db) == []
    assert undescribed_columns(db) == []
    described = set(metadata()["databases"]["catalogue"]["tables"])
    # Every table of the catalogue is described, but the FTS index's own shadow tables.
    assert {t for t in db.table_names() if not t.startswith("search_")} == described


def test_a_name_the_catalogue_lacks_is_reported(shipped, monkeypatch):
    broken = metadata()
    tables = broken["databases"]["catalogue"]["tables"]
    tables["compositions"]["columns"]["author"] = "who composed it"
    tables["compositions"]["facets"].append("era")
    tables["ratings"] = {"columns": {}}
    monkeypatch.setattr(schema_module, "_metadata", lambda: broken)
    assert unknown_names(open_catalogue(shipped)) == ["compositions.author", "compositions.era",
                                                      "ratings"]


def test_metadata_facets_by_pattern_and_collection():
    tables = metadata()["databases"]["catalogue"]["tables"]
    assert "pattern_id" in tables["examples"]["facets"]
    assert "collection" in tables["compositions"]["facets"]
    assert tables["patterns"]["label_column"] == "name_zh"     # pattern ids shown as 马后炮
    assert tables["search"]["hidden"] is True


def run(capsys, *argv: str):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_schema_command(shipped, capsys):
    status, out, _ = run(capsys, "catalogue", "schema", "--db", str(shipped))
    assert status == 0
    tables = schema(open_catalogue(shipped))
    for table in tables:
        assert f"{table.name} — {table.title}" in out
        for column in table.columns:
            assert any(line.split()[:2] == [column.name, column.type or column.description
                                            .split()[0]] and line.endswith(column.description)
                       for line in out.splitlines())
    assert "facets: collection, stipulation, verdict" in out
    status, out, _ = run(capsys, "catalogue", "schema", "--db", str(shipped), "--json")
    document = json.loads(out)
    compositions = next(t for t in document["tables"] if t["name"] == "compositions")
    verdict = next(c for c in compositions["columns"] if c["name"] == "verdict")
    assert verdict["type"] == "TEXT" and verdict["description"].startswith("The solver's verdict")


def test_schema_datasette_metadata_for_another_file(tmp_path, capsys):
    status, out, _ = run(capsys, "catalogue", "schema", "--datasette", "--db",
                         str(tmp_path / "club.sqlite"))
    assert status == 0
    document = json.loads(out)
    assert list(document["databases"]) == ["club"]
    assert document["databases"]["club"] == metadata()["databases"]["catalogue"]
    assert not (tmp_path / "club.sqlite").exists()       # printing it builds nothing


def test_datasette_browses_the_catalogue_with_facets_and_descriptions(shipped):
    datasette_app = pytest.importorskip("datasette.app")

    async def browse():
        datasette = datasette_app.Datasette([str(shipped)],
                                            metadata=datasette_metadata(shipped))
        client = datasette.client
        compositions = (await client.get("/catalogue/compositions.json?_size=1")).json()
        examples = (await client.get("/catalogue/examples.json?_size=1&_labels=on")).json()
        page = (await client.get("/catalogue/compositions")).text
        database = (await client.get("/catalogue.json")).json()
        query = (await client.get("/catalogue/draw_studies.json?_shape=array")).json()
        return compositions, examples, page, database, query

    compositions, examples, page, database, query = asyncio.run(browse())
    collections = {f["value"]: f["count"]
                   for f in compositions["facet_results"]["collection"]["results"]}
    assert collections == {"适情雅趣": 551, "江湖四大名局": 5}
    patterns = examples["facet_results"]["pattern_id"]["results"]
    assert any(f["label"] == "马后炮" for f in patterns)
    assert examples["rows"][0]["pattern_id"]["label"] == "对面笑"
    assert "The solver&#39;s verdict" in page or "The solver's verdict" in page
    visible = {t["name"] for t in database["tables"] if not t["hidden"]}
    assert "search" not in visible and {"patterns", "examples", "compositions"} <= visible
    assert len(query) == 57 and {row["collection"] for row in query} == {"适情雅趣", "江湖四大名局"}
