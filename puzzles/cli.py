"""Catalogue subcommands: ``catalogue build|list|show|search|import|export|diagram|sheet|schema|
verify``.

An entry reference (``show``, ``diagram``, ``sheet``, ``export``, ``search``) is, as
:data:`puzzles.catalogue.REFERENCE_HELP` says: a composition's catalogue id (``12``, the first
column of ``list compositions``); a book reference ``COLLECTION:N`` -- the collection's name or
source key and the number printed in the book, which is what the studio lists (``适情雅趣:7``,
``shiqingyaqu:7``); a kill pattern (id, Chinese name or alias: all its examples); or one
example of it (``马后炮:2``).

Each prints text for a person; with ``--json`` it prints one JSON document on stdout instead
(UTF-8, Chinese as is), in these shapes (an *entry* is a :class:`puzzles.catalogue.Entry` as a
JSON object: kind, id, title, pattern, pattern_name, collection, number, fen, stipulation,
verdict, moves, main_line, main_line_zh, pieces, source, note, verification):

=======================  ======================================================================
command                  JSON
=======================  ======================================================================
build                    ``{"path", "patterns", "examples", "compositions", "practice",
                         "verified"}``
generate                 ``{"pattern", "seed", "first_candidate", "kept", "seconds",
                         "written_to"}``
list [patterns]          ``{"patterns": [{"id", "name_zh", "name_en", "aliases_zh",
                         "description_zh", "description_en", "pieces", "tags", "examples",
                         "practice", "rating"}]}`` (``examples``, ``practice``: how many;
                         ``rating``: the user's, ``{"rating", "deviation", "games",
                         "wins"}``, or null before his first result)
list collections         ``{"collections": [{"name", "compositions", "verdicts": {verdict:
                         count}}]}``
list compositions        ``{"total", "offset", "limit", "entries": [entry]}`` (``limit`` null:
list examples            all)
list practice
show REF                 a composition or an example: its entry with ``"reference"``
                         (``适情雅趣:7``) and, for a composition, ``"licence"`` added
show PATTERN             ``{"kind": "pattern", "id", "name_zh", "name_en", "aliases_zh",
                         "description_zh", "description_en", "pieces", "tags",
                         "examples": [entry]}`` (a pattern's entries, not its count)
search TEXT              ``{"query", "hits": [{"kind", "id", "title"}]}`` (kind "pattern",
                         "composition", or "example" with its reference as id)
import FILE              ``{"file", "collection", "imported", "first_number", "last_number",
                         "verdicts": {verdict: count}, "replaced": [number], "skipped":
                         [number]}`` (imported: new entries; verdicts: of those written); a
                         refused import of repeated positions adds ``"repeated": [{"record",
                         "number"}]`` to its error
export FILE [REF...]     ``{"file", "format", "records", "solutions"}`` (records with moves)
diagram REF -o FILE      ``{"file", "format", "fen", "title", "warnings"}``
sheet REF... -o FILE     ``{"file", "format", "problems": [{"kind", "id", "heading",
                         "stipulation"}]}``
schema                   ``{"tables": [{"name", "title", "description", "facets",
                         "columns": [{"name", "type", "description"}]}]}``; with
                         ``--datasette``, the Datasette metadata for ``--db``
verify                   ``{"verified", "changed", "seconds", "verdicts": {verdict: count},
                         "compositions": [{"id", "collection", "number", "previous",
                         "stipulation", "verdict", "moves", "main_line", "main_line_zh",
                         "seconds"}]}``
=======================  ======================================================================

On failure the exit status is 1, the message goes to stderr, and with ``--json`` stdout holds
``{"error": message}`` -- with ``"problems"`` (every located problem) for a failed build and
``"file"``, ``"line"``, ``"offset"`` for a file that cannot be read or written.
"""
from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import sqlite_utils

from solver import MAX_THREADS
from xiangqi import Board
from xiangqi.cli import add_diagram_options, seconds_argument, whole_number, write_diagram
from xiangqi.output import JsonObject

from .catalogue import (
    REFERENCE_HELP,
    CatalogueError,
    Entry,
    RepeatedPositions,
    add_practice,
    build,
    composition_numbers,
    compositions_to_verify,
    database_error,
    entries_of,
    entry_reference,
    export_records,
    import_problems,
    list_collections,
    list_patterns,
    open_catalogue,
    pattern_of,
    pattern_pictures,
    practice_sources,
    query,
    resolve_reference,
    search,
    student_ratings,
    write_verdicts,
)
from .generate import (
    MINED_PREFIX,
    PracticePosition,
    append_practice,
    generate,
    mine,
    next_candidate,
    practice_row,
    read_practice,
    seed_prefix,
)
from .paths import default_database
from .patterns import pattern_names
from .verification import WIN_BOUND, VerifySettings, verify_composition

# A catalogue action: the parsed arguments in, the exit status out.
CommandHandler = Callable[[argparse.Namespace], int]

# What ``catalogue list`` names: the kind of entry it lists.
ENTRY_KINDS = {"compositions": "composition", "examples": "example", "practice": "practice"}

_ENTRY_FILTERS = ("collection", "pattern", "shows", "text", "pieces", "min_moves", "max_moves",
                  "verdict", "limit", "offset")


def _emit(document: object) -> None:
    print(json.dumps(document, ensure_ascii=False))


def _fail(args: argparse.Namespace, message: str, **details: object) -> int:
    print(f"error: {message}", file=sys.stderr)
    if args.json:
        _emit({"error": message, **details})
    return 1


def _moves_text(entry: Entry) -> str:
    return f"{entry.moves} moves" if entry.moves else ""


def cmd_build(args: argparse.Namespace) -> int:
    try:
        report = build(args.db, verify=args.verify)
    except CatalogueError as error:
        return _fail(args, str(error), problems=error.problems)
    if args.json:
        _emit({"path": str(report.path), "patterns": report.patterns,
               "examples": report.examples, "compositions": report.compositions,
               "practice": report.practice, "verified": report.verified})
        return 0
    print(f"{report.path}: {report.patterns} kill patterns, {report.examples} examples"
          f"{' (all verified by the solver)' if args.verify else ' (solutions replayed)'}, "
          f"{report.compositions} compositions, {report.practice} practice positions")
    return 0


def cmd_generate(args: argparse.Namespace) -> int:
    """Practice positions of a pattern, built at random (seeded) or mined from the
    compositions' lines (``--mine``), kept when sound and showing the pattern; into the
    catalogue (one transaction a batch) or ``--output FILE``."""
    db = open_catalogue(args.db)
    if args.pattern is None and not args.mine:
        return _fail(args, "--pattern is needed (only --mine may go without: any pattern)")
    pattern = pattern_of(db, args.pattern) if args.pattern is not None else None
    # A built position's source names its pattern and seed; a mined one's, only the index
    # in the compositions' lines, the same for every pattern asked for.
    mined_for = pattern.id if args.mine and pattern is not None else None
    if args.output is not None:
        sources = [row["source"] for row in read_practice(args.output)
                   if mined_for is None or row["pattern_id"] == mined_for]
    else:
        sources = practice_sources(db, mined_for)
    start = next_candidate(sources, MINED_PREFIX if args.mine or pattern is None
                           else seed_prefix(pattern.id, args.seed))
    batch: list[dict[str, str]] = []
    kept = 0
    began = time.perf_counter()

    def flush() -> None:
        if not batch:
            return
        if args.output is not None:
            append_practice(args.output, batch)
        else:
            add_practice(db, batch)
        batch.clear()

    def report(index: int, so_far: int, position: PracticePosition | None) -> None:
        if not args.json and (position is not None or (index - start + 1) % 50 == 0):
            print(f"candidate {index}: {so_far} of {args.count} kept "
                  f"({time.perf_counter() - began:.0f} s)", file=sys.stderr, flush=True)

    if args.mine:
        lines = [(entry_reference(e), e.fen, " ".join(e.main_line)) for e in
                 query(db, kind="composition", verdict="mate", limit=None).entries
                 if e.main_line]
        found = mine(lines, pattern.id if pattern is not None else None, args.count, start,
                     args.attempts, report)
    else:
        assert pattern is not None
        pieces = [letter for letter in pattern.pieces if letter != "K"]
        known = pattern_pictures(db, pattern.id)
        if args.output is not None:
            known += [(row["fen"], row["solution_iccs"]) for row in read_practice(args.output)
                      if pattern.id in row["shows"].split()]
        pictures = []
        for fen in dict(known):
            try:
                pictures.append(Board(fen))
            except ValueError as error:
                return _fail(args, f"{args.output}: the position {fen} is not legal: {error}")
        found = generate(pattern.id, pieces, args.count, args.seed, start, args.attempts,
                         report, pictures=pictures, known_lines=[line for _, line in known])
    try:
        for _index, position in found:
            batch.append(practice_row(pattern.id if pattern is not None else position.shows[0],
                                      position))
            kept += 1
            if len(batch) >= args.batch:
                flush()
    finally:
        flush()                                     # what was kept before a stop is kept
    seconds = time.perf_counter() - began
    where = str(args.output) if args.output is not None else str(args.db)
    if args.json:
        _emit({"pattern": pattern.id if pattern is not None else None,
               "seed": None if args.mine else args.seed, "first_candidate": start,
               "kept": kept, "seconds": round(seconds, 1), "written_to": where})
        return 0
    rate = kept / seconds * 60 if seconds else 0.0
    name = pattern.name_zh if pattern is not None else "every pattern"
    origin = "mined from the compositions' lines" if args.mine else f"seed {args.seed}"
    print(f"{name}: {kept} practice positions kept from candidate {start} on, {origin}, in "
          f"{seconds:.0f} s ({rate:.1f} a minute); written to {where}")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    db = open_catalogue(args.db)
    if args.what in ("patterns", "collections"):
        given = [f"--{name.replace('_', '-')}" for name in _ENTRY_FILTERS
                 if getattr(args, name) not in (None, 0)]
        if given:
            return _fail(args, f"{', '.join(given)} apply to compositions and examples, not to "
                               f"{args.what}")
    if args.what == "patterns":
        patterns = list_patterns(db)
        ratings = student_ratings(db)
        if args.json:
            _emit({"patterns": [{**asdict(p), "rating": asdict(ratings[p.id])
                                 if p.id in ratings else None} for p in patterns]})
            return 0
        for p in patterns:
            rated = f"  your rating {ratings[p.id]}" if p.id in ratings else ""
            print(f"{p.id:<24} {p.name_zh:<8}\t{p.name_en:<40} {p.examples} examples, "
                  f"{p.practice:>3} practice{rated}")
        return 0
    if args.what == "collections":
        collections = list_collections(db)
        if args.json:
            _emit({"collections": [asdict(c) for c in collections]})
            return 0
        for c in collections:
            verdicts = ", ".join(f"{count} {verdict}" for verdict, count in c.verdicts.items())
            print(f"{c.name}\t{c.compositions} compositions ({verdicts})")
        return 0
    page = query(db, text=args.text, pattern=args.pattern, collection=args.collection,
                 pieces=args.pieces, min_moves=args.min_moves, max_moves=args.max_moves,
                 kind=ENTRY_KINDS[args.what], verdict=args.verdict, limit=args.limit,
                 offset=args.offset, shows=args.shows)
    if args.json:
        _emit(asdict(page))
        return 0
    for e in page.entries:
        if e.kind == "composition":
            print(f"{e.id:>5}  {entry_reference(e):<10}  {e.title:<12}\t{e.verdict_text:<10} "
                  f"{_moves_text(e)}")
        else:
            print(f"{entry_reference(e):<10}  {e.title:<10}\t{e.stipulation:<7} mate in "
                  f"{e.moves}  attacker {e.pieces}")
    if not page.entries:
        print(f"none after the first {page.offset} of {page.total}" if page.total
              else "nothing matches")
    elif len(page.entries) < page.total:
        print(f"({page.offset + 1}-{page.offset + len(page.entries)} of {page.total}; "
              "--offset for more)")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    db = open_catalogue(args.db)
    found = resolve_reference(db, args.ref)
    if isinstance(found, Entry):
        return _show_entry(args, db, found)
    pattern = found
    examples = query(db, pattern=pattern.id, limit=None).entries
    if args.json:
        _emit({"kind": "pattern", **asdict(pattern), "examples": [asdict(e) for e in examples]})
        return 0
    aliases = "、".join(pattern.aliases_zh)
    print(f"{pattern.name_zh} — {pattern.name_en}" + (f"  (also {aliases})" if aliases else ""))
    print(pattern.description_zh)
    if pattern.description_en:
        print(pattern.description_en)
    for e in examples:
        print(f"\nExample {e.number} ({entry_reference(e)}): {e.stipulation}, mate in {e.moves}"
              f"  [{e.verification}]")
        print(Board(e.fen).unicode())
        print(f"FEN: {e.fen}")
        print(f"Solution: {e.main_line_zh}")
    return 0


def _show_entry(args: argparse.Namespace, db: sqlite_utils.Database, entry: Entry) -> int:
    """One composition (with its licence) or one example."""
    reference = entry_reference(entry)
    licence = (db.table("compositions").get(entry.id)["licence"]
               if entry.kind == "composition" else None)
    if args.json:
        _emit({**asdict(entry), "reference": reference,
               **({"licence": licence} if entry.kind == "composition" else {})})
        return 0
    if entry.kind == "composition":
        print(f"{reference} {entry.title} (id {entry.id})")
    else:
        print(f"{reference} {entry.title} · {entry.note}".rstrip(" ·"))
    print(Board(entry.fen).unicode())
    print(f"FEN: {entry.fen}")
    print(f"Stipulation: {entry.stipulation}  verdict: {entry.verdict_text}"
          + (f", {_moves_text(entry)}" if entry.moves else ""))
    if entry.main_line_zh:
        print(f"{'Main line' if entry.kind == 'composition' else 'Solution'}: "
              f"{entry.main_line_zh}")
    if entry.shows:
        names = pattern_names()
        print("Shows: " + "、".join(names.get(p, p) for p in entry.shows))
    print(f"Source: {entry.source}" + (f"  licence: {licence}" if licence is not None else ""))
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    hits = search(open_catalogue(args.db), args.query)
    if args.json:
        _emit({"query": args.query, "hits": hits})
        return 0
    if not hits:
        print("no matches")
    for hit in hits:
        print(f"{hit['kind']:<12} {hit['id']!s:<24} {hit['title']}")
    return 0


def _numbers_text(collection: str, numbers: list[int]) -> str:
    """``适情雅趣:1-3, 适情雅趣:7`` for numbers 1, 2, 3, 7."""
    runs: list[list[int]] = []
    for number in sorted(numbers):
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    return ", ".join(f"{collection}:{run[0]}" + (f"-{run[-1]}" if len(run) > 1 else "")
                     for run in runs)


def cmd_import(args: argparse.Namespace) -> int:
    from .formats import FormatError

    db = open_catalogue(args.db)
    existing = "replace" if args.replace else "skip" if args.skip_existing else None
    try:
        report = import_problems(db, args.file, args.collection, args.verify_seconds, existing)
    except FormatError as error:
        return _fail(args, f"{error} (nothing imported)", file=error.path, line=error.line,
                     offset=error.offset)
    except RepeatedPositions as error:
        return _fail(args, str(error), repeated=[{"record": record, "number": number}
                                                 for record, number in error.repeated])
    written = report.added + report.replaced
    verdicts = dict(db.execute(
        "SELECT verdict, count(*) FROM compositions WHERE collection = ? AND number IN "
        f"({', '.join('?' for _ in written)}) GROUP BY verdict ORDER BY count(*) DESC, verdict",
        [args.collection, *written]).fetchall()) if written else {}
    added = report.added
    if args.json:
        _emit({"file": str(args.file), "collection": args.collection, "imported": len(added),
               "first_number": added[0] if added else None,
               "last_number": added[-1] if added else None, "verdicts": verdicts,
               "replaced": report.replaced, "skipped": report.skipped})
        return 0
    summary = ", ".join(f"{n} {verdict}" for verdict, n in verdicts.items())
    count = len(added)
    numbers = (f"number {added[0]}" if count == 1 else
               f"numbers {added[0]}-{added[-1]}" if count else "")
    parts = [f"imported {count} new position{'' if count == 1 else 's'} into "
             f"{args.collection!r}" + (f" as {numbers}" if count else "")]
    if report.replaced:
        parts.append(f"replaced the data of {len(report.replaced)} already there "
                     f"({_numbers_text(args.collection, report.replaced)})")
    if report.skipped:
        parts.append(f"kept {len(report.skipped)} already there as they were "
                     f"({_numbers_text(args.collection, report.skipped)})")
    if summary:
        parts.append(f"verdicts of the positions written: {summary}")
    print("; ".join(parts))
    return 0


def _export_formats() -> str:
    """The suffixes ``catalogue export`` writes, by format."""
    from .formats import FORMATS

    return "; ".join(f"{' '.join(f.suffixes)} ({f.name})" for f in FORMATS)


def cmd_export(args: argparse.Namespace) -> int:
    from .formats import FormatError, format_of, write

    try:
        fmt = format_of(args.file)
    except FormatError:
        suffix = args.file.suffix or "(no suffix)"
        return _fail(args, f"cannot export to {args.file}: unknown file type {suffix!r}; "
                           f"export writes {_export_formats()}", file=str(args.file),
                     line=None, offset=None)
    selected = [name for name in ("collection", "pattern") if getattr(args, name) is not None]
    if args.refs and selected:
        return _fail(args, f"name entries (REF) or --{selected[0]}, not both")
    records = export_records(open_catalogue(args.db), args.collection, args.pattern, args.refs)
    if not records:
        return _fail(args, "nothing to export (check --collection / --pattern)")
    if fmt.name == "xqf" and len(records) != 1:
        return _fail(args, f"an XQF file holds one problem and {len(records)} are selected: "
                           "name one entry (适情雅趣:7, 马后炮:2) or write .pgn, .dhtml or .fen")
    options = {"solutions": "comment"} if fmt.name == "fen" else {}
    try:
        write(args.file, records, **options)
    except FormatError as error:
        return _fail(args, str(error), file=error.path, line=error.line, offset=error.offset)
    solutions = sum(1 for record in records if record.moves)
    if args.json:
        _emit({"file": str(args.file), "format": fmt.name, "records": len(records),
               "solutions": solutions})
        return 0
    note = ""
    if fmt.name == "fen" and solutions:
        note = (f" ({solutions} solution{'' if solutions == 1 else 's'} kept as "
                "'# solution:' comments; a FEN list holds positions)")
    print(f"wrote {len(records)} record{'' if len(records) == 1 else 's'} ({fmt.name}) to "
          f"{args.file}{note}")
    return 0


def _one_entry(db: sqlite_utils.Database, reference: str) -> Entry:
    entries = entries_of(db, reference)
    if len(entries) != 1:
        raise CatalogueError(f"{reference!r} names {len(entries)} examples: name one as "
                             f"{reference}:1 to {reference}:{len(entries)}")
    return entries[0]


def cmd_diagram(args: argparse.Namespace) -> int:
    from .sheet import heading

    entry = _one_entry(open_catalogue(args.db), args.ref)
    return write_diagram(args, Board(entry.fen),
                         heading(entry) if args.title is None else args.title or None)


def cmd_sheet(args: argparse.Namespace) -> int:
    from xiangqi.output import MissingExtraError

    from .sheet import heading, problems, save_sheet, sheet_html, stipulation_text

    db = open_catalogue(args.db)
    entries = [entry for reference in args.refs for entry in entries_of(db, reference)]
    items = problems(db, entries)
    try:
        fmt = save_sheet(args.output, sheet_html(items, args.title,
                                                 solutions=not args.no_solutions))
    except MissingExtraError as error:
        return _fail(args, str(error))
    if args.json:
        _emit({"file": args.output, "format": fmt, "problems": [
            {"kind": e.kind, "id": e.id, "heading": heading(e),
             "stipulation": stipulation_text(e)} for e in entries]})
        return 0
    print(f"wrote {args.output} ({fmt}): {len(entries)} "
          f"problem{'' if len(entries) == 1 else 's'}")
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    from .schema import datasette_metadata, schema, schema_text

    if args.datasette:
        _emit(datasette_metadata(args.db))
        return 0
    tables = schema(open_catalogue(args.db))
    if args.json:
        _emit({"tables": [asdict(table) for table in tables]})
        return 0
    print(schema_text(tables), end="")
    return 0


def _numbers(text: str) -> list[int]:
    """An argparse type: composition numbers, e.g. ``1-40,316``."""
    try:
        return composition_numbers(text)
    except CatalogueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def cmd_verify(args: argparse.Namespace) -> int:
    """Solve the compositions again within the budget, serially or one task each on a Dask
    cluster, and write every verdict at the end in one transaction."""
    import time

    on_cluster = args.cluster is not None or args.workers is not None
    if on_cluster:
        from tablebases.cluster import require_distributed

        from .cluster import ClusterError
        try:
            require_distributed()
        except ClusterError as error:
            return _fail(args, f"{error} (no verdict written)")
    db = open_catalogue(args.db)
    compositions = compositions_to_verify(db, args.collection, args.numbers)
    if not compositions:
        return _fail(args, "no composition matches (check --collection / --numbers)")
    budget = VerifySettings.uniform(seconds=args.seconds, nodes=args.nodes,
                                    max_moves=args.max_moves, threads=args.threads,
                                    tables=str(args.tables.resolve()) if args.tables else None)
    verdicts: dict[int, JsonObject] = {}
    start = time.perf_counter()

    def report(i: int, result: JsonObject) -> None:
        c = compositions[i]
        verdicts[c["id"]] = result
        if not args.json:
            change = "" if result["verdict"] == c["verdict"] else f" (was {c['verdict']})"
            print(f"[{len(verdicts)}/{len(compositions)}] {c['collection']} {c['number']:>3} "
                  f"{result['stipulation']:<6} {result['verdict']}{change}  "
                  f"{result['seconds']:.1f} s", file=sys.stderr, flush=True)

    if on_cluster:
        from .cluster import connect, dashboard_note, verify_on_cluster
        try:
            with connect(args.cluster, args.workers) as client:
                print(f"verifying {len(compositions)} compositions on "
                      + (f"the scheduler at {args.cluster}" if args.cluster is not None else
                         f"a LocalCluster of {args.workers} worker process(es)")
                      + f"; {dashboard_note(client, args.cluster is None)}", file=sys.stderr)
                verify_on_cluster(client, compositions, budget, report)
        except ClusterError as error:
            return _fail(args, f"{error} (no verdict written)")
        except Exception as error:              # a task's failure, reported
            return _fail(args, f"a composition's task failed: {type(error).__name__}: "
                               f"{error} (no verdict written)")
    else:
        for i, c in enumerate(compositions):
            report(i, verify_composition(c["fen"], c["stipulation"], budget))
    written = write_verdicts(db, verdicts)
    rows = [{"id": c["id"], "collection": c["collection"], "number": c["number"],
             "previous": c["verdict"], **verdicts[c["id"]]} for c in compositions]
    counts = dict(Counter(r["verdict"] for r in rows).most_common())
    changed = sum(1 for r in rows if r["verdict"] != r["previous"])
    elapsed = time.perf_counter() - start
    if args.json:
        _emit({"verified": written, "changed": changed, "seconds": round(elapsed, 1),
               "verdicts": counts, "compositions": rows})
        return 0
    print(f"verified {written} compositions in {elapsed:.0f} s: "
          + ", ".join(f"{n} {verdict}" for verdict, n in counts.items())
          + f"; {changed} verdicts changed; written in one transaction to "
          f"{args.db}")
    return 0


def _new_catalogue_note(path: Path) -> None:
    """A ``--db`` that names no file: the catalogue is built there, and the user is told so
    (a mistyped path would otherwise look like progress lost).  A missing folder is refused
    unless it is the default one, which is made on first use."""
    if not path.parent.is_dir() and path != default_database():
        raise CatalogueError(f"no folder {path.parent} for the catalogue {path.name}: check the "
                             "path (or create the folder for a new catalogue)")
    print(f"note: no catalogue at {path}: a new one is built there (no progress recorded)",
          file=sys.stderr)


def _handled(command: CommandHandler) -> CommandHandler:
    """``command`` with a catalogue that cannot be opened or a bad request reported, not
    raised."""
    def run(args: argparse.Namespace) -> int:
        try:
            if command is not cmd_build and not args.db.exists():
                _new_catalogue_note(args.db)
            return command(args)
        except CatalogueError as error:
            return _fail(args, str(error))
        except sqlite3.Error as error:          # a file that breaks after it was opened
            return _fail(args, str(database_error(str(args.db), error)))
    return run


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    catalogue = subparsers.add_parser("catalogue", help="kill patterns and compositions (SQLite)")
    commands = catalogue.add_subparsers(dest="catalogue_command", metavar="ACTION", required=True)

    # Resolved once, for every action's default and help: the commands read args.db alone.
    database = default_database()

    def common(parser: argparse.ArgumentParser,
               handler: CommandHandler) -> argparse.ArgumentParser:
        parser.add_argument("--db", type=Path, default=database,
                            help=f"catalogue file (default {database}; "
                                 "or set XQSTUDIO_CATALOGUE)")
        parser.add_argument("--json", action="store_true",
                            help="one JSON document on stdout (shapes: see puzzles/cli.py)")
        parser.set_defaults(handler=_handled(handler))
        return parser

    b = common(commands.add_parser("build", help="compile puzzles/data into the catalogue"),
               cmd_build)
    b.add_argument("--verify", action="store_true",
                   help="prove every example's forced length with the solver")

    ls = common(commands.add_parser(
        "list", help="patterns, collections, or compositions / examples matching filters"),
        cmd_list)
    ls.add_argument("what", choices=("patterns", "collections", *ENTRY_KINDS),
                    nargs="?", default="patterns",
                    help="what to list (default patterns)")
    ls.add_argument("--collection", help="a name or source key, e.g. 适情雅趣 or shiqingyaqu")
    ls.add_argument("--pattern", help="a pattern's id, Chinese name or alias (examples)")
    ls.add_argument("--shows", metavar="PATTERN",
                    help="entries whose line shows this pattern (recognised in the mate)")
    ls.add_argument("--text", help="full-text search, Chinese or English")
    ls.add_argument("--pieces", help="the attacker has at least these pieces: RNC or 车马炮")
    ls.add_argument("--min-moves", type=whole_number(0), default=None,
                    help="entries whose solution takes at least this many moves")
    ls.add_argument("--max-moves", type=whole_number(0), default=None,
                    help="entries whose solution takes at most this many moves")
    ls.add_argument("--verdict", help="e.g. mate")
    ls.add_argument("--limit", type=whole_number(0), default=None,
                    help="at most this many (default all)")
    ls.add_argument("--offset", type=whole_number(0), default=0, help="skip this many first")

    show = common(commands.add_parser(
        "show", help="a composition, an example or a pattern, named by a reference "
                     "(适情雅趣:7, 马后炮:2, 马后炮, 12)",
        description="Show the entry a reference names: " + REFERENCE_HELP + "."), cmd_show)
    show.add_argument("ref", metavar="REF", help="适情雅趣:7 (a book reference), 马后炮:2, "
                                                 "马后炮 or facing-kings (a pattern), 12 (an id)")

    find = common(commands.add_parser(
        "search", help="full-text search (Chinese or English); a reference of one entry "
                       "(适情雅趣:7, 马后炮:2) finds that entry"), cmd_search)
    find.add_argument("query", help="words or characters: 卧槽, trough horse")

    imp = common(commands.add_parser(
        "import", help="add a problem file (FEN list, PGN, DhtmlXQ, XQF)",
        description="Add every record of a problem file to a collection, in one transaction. "
                    "A file that repeats positions already in the collection is refused "
                    "(nothing written) unless --replace or --skip-existing says what to do."),
        cmd_import)
    imp.add_argument("file", type=Path,
                     help="the file; its format from the suffix: .fen .epd .txt .pgn .dhtml .xqf")
    imp.add_argument("--collection", required=True, help="collection name for the new entries")
    repeats = imp.add_mutually_exclusive_group()
    repeats.add_argument("--replace", action="store_true",
                         help="a position already in the collection: replace that entry's data "
                              "(title, line, verdict, source) with the file's")
    repeats.add_argument("--skip-existing", action="store_true",
                         help="a position already in the collection: keep that entry as it "
                              "is, add only the new positions")
    imp.add_argument("--verify-seconds", type=seconds_argument(), default=0.0,
                     help="solve each position within this budget and record the verdict")

    ver = common(commands.add_parser(
        "verify", help="solve compositions again and record the verdicts (one transaction at "
                       "the end); --cluster/--workers: one Dask task per composition"),
        cmd_verify)
    ver.add_argument("--collection", default=None,
                     help="a name or source key, e.g. 适情雅趣 or shiqingyaqu (default: every "
                          "one)")
    ver.add_argument("--numbers", type=_numbers, default=None, metavar="N[-M],...",
                     help="only these numbers, as printed in the book and in references such "
                          "as 适情雅趣:7 (not catalogue ids), e.g. 1-40,316")
    ver.add_argument("--seconds", type=seconds_argument(), default=60.0,
                     help="budget of each search (default 60; 0: none)")
    ver.add_argument("--nodes", type=whole_number(0), default=0,
                     help="node budget of each search (0: none); unlike seconds, the verdicts "
                          "then do not depend on the machine or its load")
    ver.add_argument("--max-moves", type=whole_number(1, 200), default=WIN_BOUND,
                     help=f"bound of the quiet-move search (default {WIN_BOUND})")
    ver.add_argument("--threads", type=whole_number(1, MAX_THREADS), default=1,
                     help="processes of each search, sharing its table (the node budget "
                          "counts all of them; default 1)")
    ver.add_argument("--tables", type=Path, default=None, metavar="DIR",
                     help="tablebases answering the leaves (on a cluster: a directory every "
                          "worker sees)")
    where = ver.add_mutually_exclusive_group()
    where.add_argument("--cluster", metavar="ADDRESS", default=None,
                       help="run on the Dask cluster of this scheduler (tcp://host:8786); "
                            "needs the extra xqstudio[cluster]")
    where.add_argument("--workers", type=whole_number(1, 1024), default=None, metavar="N",
                       help="run on a Dask LocalCluster of N worker processes here; needs the "
                            "extra xqstudio[cluster]")

    exp = common(commands.add_parser(
        "export", help="write entries, a collection or a pattern's examples to a file",
        description="Write the entries the references name (REF...), or a pattern's examples "
                    "(--pattern), or a collection (--collection; without any: every "
                    "composition), each titled by its own name.  The format comes from the "
                    "suffix of FILE: .fen .epd .txt (a FEN list: positions, each solution a "
                    "'# solution:' comment), .pgn, .dhtml .dhtmlxq (DhtmlXQ), .xqf (one "
                    "problem).  " + REFERENCE_HELP[0].upper() + REFERENCE_HELP[1:] + "."),
        cmd_export)
    exp.add_argument("file", type=Path, help="format from the suffix: .fen .epd .txt .pgn "
                                             ".dhtml .dhtmlxq .xqf")
    exp.add_argument("refs", nargs="*", metavar="REF",
                     help="entries to write: 适情雅趣:7, 马后炮:2, a pattern, a composition id")
    group = exp.add_mutually_exclusive_group()
    group.add_argument("--collection", help="a collection's name or source key (适情雅趣, "
                                            "shiqingyaqu)")
    group.add_argument("--pattern", help="a pattern's id, Chinese name or alias: its examples")

    diagram = commands.add_parser(
        "diagram", help="a printable diagram of an entry (SVG, PNG, PDF; titled by default)",
        description="A printable diagram of the entry a reference names: " + REFERENCE_HELP
                    + ".")
    diagram.add_argument("ref", metavar="REF", help="one entry: 适情雅趣:7, 马后炮:2 or a "
                                                    "composition id")
    add_diagram_options(common(diagram, cmd_diagram), json_option=False)

    sheet = common(commands.add_parser(
        "sheet", help="a problem sheet: diagrams, stipulations, solutions, soundness notes",
        description="A problem sheet of the entries the references name: " + REFERENCE_HELP
                    + "."), cmd_sheet)
    sheet.add_argument("refs", nargs="+", metavar="REF",
                       help="适情雅趣:7, 马后炮:2, patterns (all their examples), composition ids")
    sheet.add_argument("-o", "--output", required=True, metavar="FILE",
                       help=".html, or .pdf (needs the pdf extra: WeasyPrint)")
    sheet.add_argument("--title", default="象棋排局 Problem sheet", help="the sheet's heading")
    sheet.add_argument("--no-solutions", action="store_true",
                       help="leave the solutions and notes out (a sheet to solve)")

    gen = common(commands.add_parser(
        "generate", help="practice positions of a pattern, built at random and kept when "
                         "sound (unique key, exact mate in 1-7) and showing the pattern"),
        cmd_generate)
    gen.add_argument("--pattern", help="a pattern's id, Chinese name or alias (with --mine "
                                       "it may be left out: every pattern)")
    gen.add_argument("--mine", action="store_true",
                     help="mine the positions of the compositions' main lines (a mate in 1-7 "
                          "from there) instead of building them at random")
    gen.add_argument("--count", type=whole_number(1), default=10,
                     help="how many to keep (default 10)")
    gen.add_argument("--seed", type=whole_number(0), default=1,
                     help="the random seed (default 1): the same seed, the same positions; a "
                          "run is taken up after the last position it kept")
    gen.add_argument("--attempts", type=whole_number(1), default=10_000,
                     help="stop after this many candidates (default 10,000)")
    gen.add_argument("--batch", type=whole_number(1), default=5,
                     help="positions written together, in one transaction (default 5)")
    gen.add_argument("--output", type=Path, default=None, metavar="FILE",
                     help="append to this practice file (TSV, the format of "
                          "puzzles/data/practice_positions.tsv) instead of the catalogue")

    schema = common(commands.add_parser(
        "schema", help="the catalogue's tables and columns, described (as Datasette shows "
                       "them)"), cmd_schema)
    schema.add_argument("--datasette", action="store_true",
                        help="print the Datasette metadata for this catalogue file (datasette "
                             "FILE -m metadata.json)")
