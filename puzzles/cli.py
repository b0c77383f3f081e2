"""Catalogue subcommands: ``catalogue build|list|show|search|import|export``."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from xiangqi import Board

from .catalogue import CatalogueError, build, export_records, import_file, open_catalogue, search
from .paths import default_database


def _db(args):
    return open_catalogue(args.db)


def cmd_build(args: argparse.Namespace) -> int:
    try:
        report = build(args.db, verify=args.verify)
    except CatalogueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"{report.path}: {report.patterns} kill patterns, {report.examples} examples"
          f"{' (all verified by the solver)' if args.verify else ' (solutions replayed)'}, "
          f"{report.compositions} compositions")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    db = _db(args)
    if args.what == "patterns":
        rows = list(db.query(
            "SELECT p.id, p.name_zh, p.name_en, count(e.id) AS examples FROM patterns p "
            "LEFT JOIN examples e ON e.pattern_id = p.id GROUP BY p.id ORDER BY p.rowid"))
        if args.json:
            print(json.dumps(rows, ensure_ascii=False))
            return 0
        for r in rows:
            print(f"{r['id']:<24} {r['name_zh']:<8}\t{r['name_en']:<34} {r['examples']} examples")
        return 0
    where, params = [], []
    if args.collection:
        where.append("collection = ?")
        params.append(args.collection)
    if args.max_moves:
        where.append("moves <= ?")
        params.append(args.max_moves)
    sql = "SELECT id, collection, number, title, verdict, moves FROM compositions"
    if where:
        sql += " WHERE " + " AND ".join(where)
    rows = list(db.query(sql + " ORDER BY collection, number", params))
    if args.json:
        print(json.dumps(rows, ensure_ascii=False))
        return 0
    for r in rows:
        length = f"{r['moves']} moves" if r["moves"] else ""
        print(f"{r['id']:>5}  {r['collection']} {r['number']:>3}  {r['title']:<12}\t"
              f"{r['verdict']:<10} {length}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    db = _db(args)
    if args.ref.isdigit():
        rows = list(db.query("SELECT * FROM compositions WHERE id = ?", [int(args.ref)]))
        if not rows:
            print(f"error: no composition {args.ref}", file=sys.stderr)
            return 1
        c = rows[0]
        if args.json:
            print(json.dumps(c, ensure_ascii=False))
            return 0
        print(f"{c['collection']} No. {c['number']} {c['title']}")
        print(Board(c["fen"]).unicode())
        print(f"FEN: {c['fen']}")
        print(f"Stipulation: {c['stipulation']}  verdict: {c['verdict']}"
              + (f", {c['moves']} moves" if c["moves"] else ""))
        if c["main_line_zh"]:
            print(f"Main line: {c['main_line_zh']}")
        print(f"Source: {c['source']}  licence: {c['licence']}")
        return 0
    rows = list(db.query("SELECT * FROM patterns WHERE id = ? OR name_zh = ?", [args.ref, args.ref]))
    if not rows:
        print(f"error: no pattern or composition {args.ref!r}", file=sys.stderr)
        return 1
    p = rows[0]
    examples = list(db.query("SELECT * FROM examples WHERE pattern_id = ? ORDER BY id", [p["id"]]))
    if args.json:
        print(json.dumps({**p, "examples": examples}, ensure_ascii=False))
        return 0
    aliases = json.loads(p["aliases_zh"])
    print(f"{p['name_zh']} — {p['name_en']}" + (f"  (also {'、'.join(aliases)})" if aliases else ""))
    print(p["description_zh"])
    if p["description_en"]:
        print(p["description_en"])
    for number, e in enumerate(examples, start=1):
        print(f"\nExample {number}: {e['stipulation']}, mate in {e['moves']}  [{e['verification']}]")
        print(Board(e["fen"]).unicode())
        print(f"FEN: {e['fen']}")
        print(f"Solution: {e['solution_zh']}")
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    hits = search(_db(args), args.query)
    if args.json:
        print(json.dumps(hits, ensure_ascii=False))
        return 0
    if not hits:
        print("no matches")
    for hit in hits:
        print(f"{hit['kind']:<12} {hit['id']!s:<24} {hit['title']}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from .formats import FormatError

    db = _db(args)
    try:
        count = import_file(db, args.file, args.collection, args.verify_seconds)
    except FormatError as error:
        print(f"error: {error} (nothing imported)", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"imported {count} positions into {args.collection!r}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from .formats import FormatError, write

    records = export_records(_db(args), args.collection, args.pattern)
    if not records:
        print("error: nothing to export (check --collection / --pattern)", file=sys.stderr)
        return 1
    try:
        write(args.file, records)
    except FormatError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"wrote {len(records)} records to {args.file}")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    catalogue = subparsers.add_parser("catalogue", help="kill patterns and compositions (SQLite)")
    commands = catalogue.add_subparsers(dest="catalogue_command", metavar="ACTION", required=True)

    def common(parser):
        parser.add_argument("--db", type=Path, default=None,
                            help=f"catalogue file (default {default_database()}; "
                                 "or set XQSTUDIO_CATALOGUE)")
        parser.add_argument("--json", action="store_true", help="JSON for scripts")
        return parser

    b = common(commands.add_parser("build", help="compile puzzles/data into the catalogue"))
    b.add_argument("--verify", action="store_true",
                   help="prove every example's forced length with the solver")
    b.set_defaults(handler=cmd_build)

    ls = common(commands.add_parser("list", help="patterns or compositions"))
    ls.add_argument("what", choices=("patterns", "compositions"), nargs="?", default="patterns")
    ls.add_argument("--collection", help="e.g. 适情雅趣")
    ls.add_argument("--max-moves", type=int, default=None)
    ls.set_defaults(handler=cmd_list)

    show = common(commands.add_parser("show", help="a pattern (id or Chinese name) or composition id"))
    show.add_argument("ref")
    show.set_defaults(handler=cmd_show)

    find = common(commands.add_parser("search", help="full-text search (Chinese or English)"))
    find.add_argument("query")
    find.set_defaults(handler=cmd_search)

    imp = common(commands.add_parser("import", help="add a problem file (FEN list, PGN, DhtmlXQ, XQF)"))
    imp.add_argument("file", type=Path)
    imp.add_argument("--collection", required=True, help="collection name for the new entries")
    imp.add_argument("--verify-seconds", type=float, default=0.0,
                     help="solve each position within this budget and record the verdict")
    imp.set_defaults(handler=cmd_import)

    exp = common(commands.add_parser("export", help="write a collection or a pattern's examples"))
    exp.add_argument("file", type=Path, help="format from the suffix: .fen .pgn .dhtml .xqf")
    group = exp.add_mutually_exclusive_group()
    group.add_argument("--collection")
    group.add_argument("--pattern")
    exp.set_defaults(handler=cmd_export)
