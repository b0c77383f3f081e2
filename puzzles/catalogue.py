"""The SQLite catalogue: kill patterns (杀法) with verified examples, and compositions.

The source of truth is the text in ``puzzles/data`` (see its README); :func:`build` compiles it
into one SQLite file, written under a temporary name and renamed when complete, so a failed
build never leaves a half-written catalogue.  The file is plain SQLite: any SQLite tool reads
it.  Tables:

* ``patterns`` -- one kill pattern: names (Chinese, aliases, English), descriptions, pieces,
  tags (JSON lists);
* ``examples`` -- positions showing a pattern, with stipulation, forced length, solution line
  (ICCS and Chinese) and its verification (status, solver version, date);
* ``compositions`` -- collected problems (collection, number, title, FEN, stipulation,
  verdict, length, main line, source, licence);
* ``draw_analyses`` -- for a draw study (红先和): what settled its verdict (a table, a bound),
  the end of its drawing line and its traps (JSON), from ``data/draw_analyses.tsv``;
* ``search`` -- a full-text index (FTS5) over names, aliases, descriptions and titles; Chinese
  text is indexed character by character, so any run of characters can be searched;
* ``meta`` -- schema version, build time, solver version, and the digest of the source files
  it was compiled from: the user's catalogue is rebuilt (progress kept) when it is opened
  after the shipped data changed, so an update's new verdicts and lines are never hidden
  behind an old build;
* ``progress`` -- the user's practice of each entry (sessions, mates, clean mates, wrong
  tries, hints, solutions shown): :func:`pattern_progress` says which kill patterns are
  mastered and :func:`next_puzzle` picks from the others first.  It is created when a
  catalogue is opened (older catalogues lack it), and a rebuild keeps it.
"""
from __future__ import annotations

import csv
import datetime as _dt
import hashlib
import json
import os
import re
import sqlite3
import tempfile
import tomllib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlite_utils

from solver import Limits, solve
from xiangqi import RED, STARTING_FEN, Board, FenError, Move
from xiangqi.notation import write_line
from xiangqi.output import JsonObject

from .difficulty import features
from .difficulty import rating as difficulty_rating
from .generate import PRACTICE_FILE, read_practice
from .paths import DATA_DIR, default_database
from .patterns import recognise
from .rating import StudentRating, aged, update
from .verification import CHECKS_BOUND, draw_verdict, search_verdict

if TYPE_CHECKING:

    from .formats import Record

SCHEMA_VERSION = 4
SOLVER_VERSION = "dfpn-1"
COLLECTIONS = {
    "shiqingyaqu": ("适情雅趣", "shiqingyaqu551.fen", "shiqingyaqu551_verdicts.tsv",
                    "BSD-3-Clause (see shiqingyaqu551.LICENSE)"),
}


# Verdicts that a larger budget may change: shown with the budget they were reached within.
UNSETTLED_VERDICTS = ("unproven", "mate within", "refuted within")


class CatalogueError(ValueError):
    """Source data that cannot be compiled, or a request the catalogue cannot answer.

    ``problems`` lists every located problem of a failed build (empty otherwise)."""

    def __init__(self, message: str, problems: list[str] | None = None) -> None:
        super().__init__(message)
        self.problems = list(problems or [])


class _OtherSchema(CatalogueError):
    """A catalogue of another schema version (:func:`build` replaces it)."""


@dataclass
class BuildReport:
    path: Path
    patterns: int = 0
    examples: int = 0
    compositions: int = 0
    practice: int = 0
    verified: int = 0
    problems: list[str] = field(default_factory=list)


# -- reading the source files -----------------------------------------------------------------

def record_stipulation(title: str, result: str = "") -> str:
    """The stipulation a composition's record states: "draw" for a 和 study (a title such
    as 单马和单炮 or 红先和, or the result 1/2-1/2), otherwise "win".

    >>> record_stipulation("孤雁折群（单相和马）"), record_stipulation("气吞关右")
    ('draw', 'win')
    """
    return "draw" if "和" in title or result.strip() == "1/2-1/2" else "win"


DRAW_ANALYSES = "draw_analyses.tsv"
# The source keys of the shipped collections (draw_analyses.tsv's collection column): a book
# reference may name a collection by its key (shiqingyaqu:7) as well as by its name (适情雅趣:7).
COLLECTION_KEYS = {"shiqingyaqu": "适情雅趣", "jianghu": "江湖四大名局"}


# How draw_analyses.tsv's ``table`` column records a missing table (solver.draw's
# TableNeed.summary): "missing: ~666,860 s, 465.80 GiB", with " (does not fit)" when it needs
# more memory than the analysing machine had.
_MISSING_TABLE = re.compile(r"missing: ~([\d,.]+) s, ([\d,.]+) GiB( \(does not fit\))?")


def table_words(material: str, table: str) -> str:
    """A draw analysis's ``table`` column in a player's words: ``the table KNPPKPPAA is not
    built (about 7.7 days and 465.8 GiB of memory: more than the analysing machine had)``.

    >>> table_words("KNPKAA", "missing: ~600 s, 0.50 GiB")
    'the table KNPKAA is not built yet (about 10 min and 512 MiB of memory to build)'
    >>> table_words("KRKR", "present")
    'the table KRKR decides it'
    """
    from xiangqi.quantities import duration_text, memory_text

    missing = _MISSING_TABLE.fullmatch(table)
    if missing is not None:
        seconds = float(missing.group(1).replace(",", ""))
        memory = int(float(missing.group(2).replace(",", "")) * 2**30)
        cost = f"about {duration_text(seconds)} and {memory_text(memory)} of memory"
        if missing.group(3):
            return f"the table {material} is not built ({cost}: more than the analysing " \
                "machine had)"
        return f"the table {material} is not built yet ({cost} to build)"
    if table == "present":
        return f"the table {material} decides it"
    if table == "no table":
        return f"no table covers {material} (too many pieces to index)"
    return table


def load_draw_analyses(data_dir: Path = DATA_DIR) -> dict[tuple[str, int], JsonObject]:
    """The draw studies' analyses (``benchmarks/analyse_draws.py --write``), by (collection
    title, number): verdict, what settled it, the drawing line and the traps."""
    path = data_dir / DRAW_ANALYSES
    if not path.exists():
        return {}
    result = {}
    with path.open(encoding="utf-8", newline="") as handle:
        for line, row in enumerate(csv.DictReader(handle, delimiter="\t"), start=2):
            collection = COLLECTION_KEYS.get(row.get("collection", ""))
            if collection is None or not (row.get("number") or "").isdigit():
                raise CatalogueError(f"{path}, line {line}: unknown collection or number "
                                     f"{row.get('collection')!r} {row.get('number')!r}")
            result[(collection, int(row["number"]))] = row
    return result


def _with_draw_analysis(composition: JsonObject,
                        analyses: dict[tuple[str, int], JsonObject]) -> JsonObject:
    """A draw study's verdict and drawing line from its analysis, where there is one."""
    row = analyses.get((composition["collection"], composition["number"]))
    if row is None or composition["stipulation"] != "draw":
        return composition
    verdict = row["verdict"]
    if verdict == "no win within the bound":
        verdict = f"no win within {row['bound']}"
    elif verdict == "unknown":
        verdict = f"unproven within {row['bound']}"
    traps = []
    for item in filter(None, row.get("traps", "").split(";")):
        move, _, rest = item.partition(">")
        refutation, _, length = rest.partition("/")
        traps.append({"move": move, "refutation": None if refutation == "-" else refutation,
                      "length": int(length) if length.isdigit() else None})
    seconds, nodes = row.get("seconds", ""), row.get("nodes", "")
    budget = f"searched {int(nodes):,} nodes in {float(seconds):g} s" \
        if seconds and nodes else None
    return {**composition, "verdict": verdict, "main_line_iccs": row.get("line", ""),
            "budget": budget,
            "_draw": {"settled_by": row.get("settled_by", ""), "table": row.get("table", ""),
                      "line_end": row.get("line_end", ""), "traps": traps,
                      "seconds": row.get("seconds", ""), "nodes": row.get("nodes", "")}}

def load_patterns(data_dir: Path = DATA_DIR) -> list[JsonObject]:
    path = data_dir / "kill_patterns.toml"
    if not path.exists():
        raise CatalogueError(f"missing source file {path}")
    try:
        with path.open("rb") as handle:
            patterns: list[JsonObject] = tomllib.load(handle).get("pattern", [])
    except tomllib.TOMLDecodeError as error:
        raise CatalogueError(f"{path}: {error}") from None
    seen = set()
    for number, pattern in enumerate(patterns, start=1):
        for key in ("id", "name_zh", "name_en", "description_zh"):
            if not pattern.get(key):
                raise CatalogueError(f"{path}: pattern {number} has no {key!r}")
        if pattern["id"] in seen:
            raise CatalogueError(f"{path}: pattern id {pattern['id']!r} appears twice")
        seen.add(pattern["id"])
    return patterns


def load_examples(data_dir: Path = DATA_DIR) -> list[JsonObject]:
    path = data_dir / "kill_pattern_examples.tsv"
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    for line, row in enumerate(rows, start=2):
        row["_line"] = line
        row["_path"] = str(path)
    return rows


def load_compositions(key: str, data_dir: Path = DATA_DIR) -> list[JsonObject]:
    """The records of a collection with the verdicts recorded for them."""
    from .formats.fenlist import parse_fen_list

    title, fen_file, verdict_file, licence = COLLECTIONS[key]
    records = parse_fen_list((data_dir / fen_file).read_text(encoding="utf-8-sig"),
                             str(data_dir / fen_file))
    verdicts = {}
    verdict_path = data_dir / verdict_file
    if verdict_path.exists():
        with verdict_path.open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle, delimiter="\t"):
                verdicts[int(row["number"])] = row
    result = []
    for number, record in enumerate(records, start=1):
        event = record.tags.get("event", "")
        match = re.search(r"第(\d+)局\s*(.*)$", event)
        name = match.group(2).strip() if match else event
        verdict = verdicts.get(number, {})
        result.append({
            "collection": title, "number": number, "title": name, "fen": record.fen,
            "stipulation": verdict.get("stipulation") or record_stipulation(name),
            "verdict": verdict.get("verdict") or "unverified",
            "moves": int(verdict["moves"]) if verdict.get("moves") else None,
            "main_line_iccs": verdict.get("main_line", ""),
            "budget": verdict.get("budget") or None,
            "source": f"{fen_file} {record.tags.get('index', '')}".strip(),
            "licence": licence,
        })
    return result


def load_great_four(data_dir: Path = DATA_DIR) -> list[JsonObject]:
    path = data_dir / "jianghu_great_four.tsv"
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    result = []
    for number, row in enumerate(rows, start=1):
        try:
            Board(row["fen"])
        except FenError as error:
            raise CatalogueError(f"{path}, line {number + 1}: {error}") from None
        result.append({
            "collection": "江湖四大名局", "number": number, "title": row["name"],
            "fen": row["fen"], "stipulation": "draw", "verdict": row["traditional_result"],
            "moves": None, "main_line_iccs": "", "budget": None,
            "source": f"traditional result: {row['traditional_result']}; {row.get('note', '')}",
            "licence": "traditional (public domain)",
        })
    return result


# -- checking examples ------------------------------------------------------------------------

# A book's compositions are numbered from 1; no collection has this many (《适情雅趣》 551).
MAX_COMPOSITION_NUMBER = 100_000


def composition_numbers(text: str) -> list[int]:
    """Composition numbers written as ranges and single numbers, e.g. ``1-40,316``.

    >>> composition_numbers("1-3,316")
    [1, 2, 3, 316]
    """
    numbers: list[int] = []
    for part in text.split(","):
        first, _, last = part.strip().partition("-")
        if not first.isdecimal() or (last and not last.isdecimal()):
            raise CatalogueError(f"numbers such as 1-40,316, not {text!r}")
        low, high = int(first), int(last or first)
        if not 1 <= low <= high <= MAX_COMPOSITION_NUMBER:
            raise CatalogueError(f"{part.strip()}: numbers run from 1 to "
                                 f"{MAX_COMPOSITION_NUMBER:,}, a range from low to high")
        numbers.extend(range(low, high + 1))
    return numbers


def replay_fault(board: Board, moves: list[Move], checks: bool,
                 name: str = "line", refutation: bool = False) -> str | None:
    """What is wrong with the mating ``name`` (a line, a solution) from ``board``, or None:
    every move legal, every attacker move a check when ``checks`` (a continuous-check
    problem), and the last move mates (the defender to move without a legal move).  A
    ``refutation``'s line mates the side to move of ``board`` instead.

    >>> board = Board("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1")
    >>> replay_fault(board, [Move.from_iccs("a0a1")], checks=True)
    'line move 1 (a0a1) is not a check'
    >>> replay_fault(board, [Move.from_iccs("a0a9")], checks=True)
    'the line does not end in mate'
    >>> mate = Board("3k5/1R7/9/9/9/9/9/9/9/R3K4 w - - 0 1")
    >>> replay_fault(mate, [Move.from_iccs("a0a9"), Move.from_iccs("d9d8")], checks=True)
    'the line goes on after mate at ply 1'
    """
    replay = board.copy()
    for ply, move in enumerate(moves):
        if not replay.has_legal_move():
            end = "mate" if replay.is_check() else "stalemate (困毙)"
            return (f"the {name} goes on after {end} at ply {ply}" if ply else
                    f"the {name} starts from a position that is already {end}")
        if not replay.is_legal(move):
            return f"{name} move {ply + 1} ({move.iccs()}) is illegal"
        if checks and ply % 2 == 0 and not replay.gives_check(move):
            return f"{name} move {ply + 1} ({move.iccs()}) is not a check"
        replay.push_unchecked(move)
    if replay.has_legal_move() or (replay.turn == board.turn) != refutation:
        return f"the {name} does not end in mate"
    return None


def check_example(row: JsonObject, run_solver: bool,
                  seconds: float = 20.0) -> tuple[list[Move], str | None]:
    """Replay an example's solution; with ``run_solver`` also prove its forced length.

    Returns (the solution moves, None) or ([], the problem in words)."""
    where = f"{row['_path']}, line {row['_line']}"
    try:
        board = Board(row["fen"])
    except FenError as error:
        return [], f"{where}: {error}"
    try:
        moves = [Move.from_iccs(text) for text in row["solution_iccs"].split()]
    except ValueError as error:
        return [], f"{where}: {error}"
    fault = replay_fault(board, moves, row["stipulation"] == "checks", name="solution")
    if fault is not None:
        return [], f"{where}: {fault}"
    stated = int(row["moves"])
    if (len(moves) + 1) // 2 != stated:
        return [], f"{where}: the solution takes {(len(moves) + 1) // 2} moves, stated {stated}"
    if run_solver:
        mode = "checks" if row["stipulation"] == "checks" else "any"
        result = solve(board, mode=mode, max_moves=stated, limits=Limits(seconds=seconds))
        if result.verdict != "mate" or not result.exact:
            return [], f"{where}: the solver finds no forced mate in {stated} ({result.verdict})"
        if result.length != stated:
            return [], (f"{where}: the stated length {stated} is not the shortest: the solver "
                        f"forces mate in {result.length}")
    return moves, None


# -- building ---------------------------------------------------------------------------------

def build(path: Path | str | None = None, data_dir: Path = DATA_DIR, verify: bool = False,
          progress: Callable[[str], None] | None = None) -> BuildReport:
    """Compile the source files into the catalogue at ``path`` (default: the user's).

    Every example's solution is replayed; with ``verify`` the solver also proves each stated
    length.  Any problem aborts the build with a :class:`CatalogueError` listing them all."""
    path = Path(path) if path is not None else default_database()
    if path.exists() and (path.is_dir() or path.stat().st_size > 0):
        try:
            catalogue_database(path).close()
        except _OtherSchema:
            pass                                # an older catalogue: rebuilt
        except CatalogueError as error:         # any other file is kept
            raise CatalogueError(f"{error}; not replaced (remove it, or give another "
                                 "--db)") from None
    patterns = load_patterns(data_dir)
    examples = load_examples(data_dir)
    known = {p["id"] for p in patterns}
    report = BuildReport(path)
    example_rows = []
    now = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
    for row in examples:
        if row["pattern_id"] not in known:
            report.problems.append(f"{row['_path']}, line {row['_line']}: unknown pattern "
                                   f"{row['pattern_id']!r}")
            continue
        moves, problem = check_example(row, verify)
        if problem:
            report.problems.append(problem)
            continue
        if progress:
            progress(f"example {row['pattern_id']} ok")
        board = Board(row["fen"])
        example_rows.append({
            "pattern_id": row["pattern_id"], "fen": board.fen(), "stipulation": row["stipulation"],
            "moves": int(row["moves"]), "solution_iccs": row["solution_iccs"],
            "solution_zh": " ".join(write_line(board, moves, "chinese")),
            "source": row.get("source", ""), "note": row.get("note", ""),
            "verification": "verified" if verify else "replayed",
            "shows": shown_patterns(board.fen(), row["solution_iccs"]),
            "rating": position_rating(board, row["solution_iccs"]),
            "solver_version": SOLVER_VERSION if verify else None,
            "verified_at": now if verify else None,
        })
    if report.problems:
        raise CatalogueError("the catalogue was not built:\n  " + "\n  ".join(report.problems),
                             report.problems)
    practice_rows = []
    for row in read_practice(data_dir / PRACTICE_FILE):
        fault = practice_fault(row, known)
        if fault:
            report.problems.append(f"{data_dir / PRACTICE_FILE}: {fault}")
        else:
            practice_rows.append(practice_record(row))
    if report.problems:
        raise CatalogueError("the catalogue was not built:\n  " + "\n  ".join(report.problems),
                             report.problems)
    compositions = load_great_four(data_dir)
    for key in COLLECTIONS:
        compositions.extend(load_compositions(key, data_dir))
    analyses = load_draw_analyses(data_dir)
    compositions = [_with_draw_analysis(c, analyses) for c in compositions]
    draws = {(c["collection"], c["number"]): c.pop("_draw") for c in compositions if "_draw" in c}
    for composition in compositions:
        line = composition["main_line_iccs"].split()
        board = Board(composition["fen"])
        composition["main_line_zh"] = " ".join(write_line(board, [Move.from_iccs(m) for m in line],
                                                          "chinese")) if line else ""
        composition["shows"] = shown_patterns(composition["fen"], composition["main_line_iccs"])
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp_name = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        db = sqlite_utils.Database(temp_name)
        with db.conn:
            _create_schema(db)
            db.table("meta").insert_all([
                {"key": "schema_version", "value": str(SCHEMA_VERSION)},
                {"key": "built_at", "value": now},
                {"key": "solver_version", "value": SOLVER_VERSION},
                {"key": "source_digest", "value": source_digest(data_dir)},
            ])
            db.table("patterns").insert_all({
                "id": p["id"], "name_zh": p["name_zh"], "name_en": p["name_en"],
                "aliases_zh": json.dumps(p.get("aliases_zh", []), ensure_ascii=False),
                "description_zh": p["description_zh"],
                "description_en": p.get("description_en", ""),
                "pieces": json.dumps(p.get("pieces", [])), "tags": json.dumps(p.get("tags", []),
                                                                             ensure_ascii=False),
            } for p in patterns)
            db.table("examples").insert_all(example_rows)
            db.table("practice").insert_all(practice_rows)
            db.table("compositions").insert_all(compositions)
            db.table("draw_analyses").insert_all(
                {"composition_id": ident, **draws[(collection, number)],
                 "traps": json.dumps(draws[(collection, number)]["traps"])}
                for ident, collection, number in db.execute(
                    "SELECT id, collection, number FROM compositions").fetchall()
                if (collection, number) in draws)
            _index_search(db)
            _carry_progress(db, path)
        db.conn.close()
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temp_name, 0o666 & ~umask)
        os.replace(temp_name, path)
    except BaseException:
        if os.path.exists(temp_name):
            os.unlink(temp_name)
        raise
    report.patterns, report.examples = len(patterns), len(example_rows)
    report.compositions = len(compositions)
    report.practice = len(practice_rows)
    report.verified = len(example_rows) if verify else 0
    return report


def practice_fault(row: dict[str, str], known: set[str]) -> str | None:
    """What is wrong with a practice position (its pattern unknown or not among those it says
    it shows, its line not legal or not mating in its moves), or None.  The line is replayed;
    that it shows its patterns, and that its mate is exact with one key, the shipped file's
    test checks (tests/test_practice_data.py), once rather than at every build."""
    if row["pattern_id"] not in known or row["pattern_id"] not in row["shows"].split():
        return f"{row['fen']}: pattern {row['pattern_id']!r} unknown or not among its shows"
    try:
        end = Board(row["fen"])
        for text in row["solution_iccs"].split():
            end.push(Move.from_iccs(text))
    except ValueError as error:
        return f"{row['fen']}: {error}"
    if end.has_legal_move() or len(row["solution_iccs"].split()) != 2 * int(row["moves"]) - 1:
        return f"{row['fen']}: the line does not mate in {row['moves']}"
    return None


def position_rating(board: Board, line: str) -> int:
    """The difficulty of the position ``board`` whose solution is ``line`` (ICCS), on the
    practice rating scale (:mod:`puzzles.difficulty`)."""
    return difficulty_rating(features(board, line))


def practice_record(row: dict[str, str]) -> JsonObject:
    """A practice file's row as a row of the ``practice`` table."""
    board = Board(row["fen"])
    return {"pattern_id": row["pattern_id"], "fen": board.fen(),
            "stipulation": row["stipulation"], "moves": int(row["moves"]),
            "solution_iccs": row["solution_iccs"],
            "solution_zh": " ".join(write_line(board, [Move.from_iccs(m) for m in
                                                       row["solution_iccs"].split()], "chinese")),
            "shows": row["shows"], "source": row["source"],
            "generated": int(row["source"].startswith("generated")),
            "rating": position_rating(board, row["solution_iccs"])}


def add_practice(db: sqlite_utils.Database, rows: list[dict[str, str]]) -> int:
    """Practice positions (rows of a practice file) into the catalogue, in one transaction:
    all of them or none.  A position already there is left as it is.  Returns how many were
    new."""
    records = [practice_record(row) for row in rows]
    try:
        with db.conn:
            if not db.conn.in_transaction:
                db.conn.execute("BEGIN IMMEDIATE")    # the write lock now, or a clear error
            before = db.conn.total_changes
            columns = list(records[0]) if records else []
            db.conn.executemany(
                f"INSERT OR IGNORE INTO practice ({', '.join(columns)}) "
                f"VALUES ({', '.join('?' for _ in columns)})",
                [[record[c] for c in columns] for record in records])
            return db.conn.total_changes - before
    except sqlite3.OperationalError as error:
        raise database_error(db, error, "no practice position written") from None


def practice_sources(db: sqlite_utils.Database, pattern_id: str | None) -> list[str]:
    """The sources of the practice positions kept for ``pattern_id`` (None: all of them)."""
    if pattern_id is None:
        return [source for (source,) in db.execute("SELECT source FROM practice")]
    return [source for (source,) in db.execute(
        "SELECT source FROM practice WHERE pattern_id = ?", [pattern_id])]


def pattern_pictures(db: sqlite_utils.Database, pattern_id: str) -> list[tuple[str, str]]:
    """(FEN, solution in ICCS) of every example and practice position whose line shows
    ``pattern_id``, in the catalogue's order: what the generator builds from."""
    rows = db.execute(
        "SELECT fen, solution_iccs, shows FROM examples UNION ALL "
        "SELECT fen, solution_iccs, shows FROM practice").fetchall()
    return [(fen, line) for fen, line, shows in rows if pattern_id in (shows or "").split()]


def practice_counts(db: sqlite_utils.Database) -> dict[str, int]:
    """Practice positions by pattern: those whose line shows it (a position counts for every
    pattern it shows)."""
    counts: Counter[str] = Counter()
    for (shows,) in db.execute("SELECT shows FROM practice"):
        counts.update(shows.split())
    return dict(counts)


def source_digest(data_dir: Path = DATA_DIR) -> str:
    """SHA-256 of the source files (names and contents) a catalogue is compiled from.

    >>> len(source_digest())
    64
    """
    digest = hashlib.sha256()
    for file in sorted(p for p in data_dir.iterdir() if p.is_file()):
        digest.update(file.name.encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()


_PROGRESS_TABLES = {
    "progress": "kind, entry_id, pattern_id, attempts, solved, clean, tries, hints, solutions, "
                "last_at",
    "pattern_ratings": "pattern_id, rating, deviation, games, wins, last_at",
}
"""The user's tables a rebuild carries over, with their columns."""


def _carry_progress(db: sqlite_utils.Database, old: Path) -> None:
    """Copy the user's progress (per entry, and his ratings per pattern) from the catalogue
    being replaced (its entry ids come from the same source order).  A table the old file
    lacks (not a catalogue, or one from before the table) is skipped."""
    if not old.exists():
        return
    for table, columns in _PROGRESS_TABLES.items():
        try:
            source = sqlite3.connect(f"file:{old}?mode=ro", uri=True)
            try:
                rows = source.execute(f"SELECT {columns} FROM {table}").fetchall()
            finally:
                source.close()
        except sqlite3.Error:
            continue
        marks = ", ".join("?" for _ in columns.split(","))
        db.conn.executemany(f"INSERT INTO {table} ({columns}) VALUES ({marks})", rows)


def _create_schema(db: sqlite_utils.Database) -> None:
    db.table("meta").create({"key": str, "value": str}, pk="key")
    db.table("patterns").create({
        "id": str, "name_zh": str, "name_en": str, "aliases_zh": str, "description_zh": str,
        "description_en": str, "pieces": str, "tags": str}, pk="id", not_null={"name_zh"})
    db.table("examples").create({
        "id": int, "pattern_id": str, "fen": str, "stipulation": str, "moves": int,
        "solution_iccs": str, "solution_zh": str, "source": str, "note": str,
        "verification": str, "solver_version": str, "verified_at": str, "shows": str,
        "rating": int}, pk="id", foreign_keys=[("pattern_id", "patterns", "id")],
        not_null={"fen"})
    db.table("compositions").create({
        "id": int, "collection": str, "number": int, "title": str, "fen": str,
        "stipulation": str, "verdict": str, "moves": int, "main_line_iccs": str,
        "main_line_zh": str, "budget": str, "source": str, "licence": str, "shows": str},
        pk="id",
        not_null={"fen"})
    db.table("draw_analyses").create({
        "composition_id": int, "settled_by": str, "table": str, "line_end": str, "traps": str,
        "seconds": str, "nodes": str}, pk="composition_id",
        foreign_keys=[("composition_id", "compositions", "id")])
    db.table("practice").create({
        "id": int, "pattern_id": str, "fen": str, "stipulation": str, "moves": int,
        "solution_iccs": str, "solution_zh": str, "shows": str, "source": str,
        "generated": int, "rating": int}, pk="id", foreign_keys=[("pattern_id", "patterns", "id")],
        not_null={"fen"})
    db.table("practice").create_index(["fen"], unique=True)
    db.table("practice").create_index(["pattern_id"])
    db.table("examples").create_index(["pattern_id"])
    db.table("compositions").create_index(["collection", "number"], unique=True)
    db.table("compositions").create_index(["moves"])
    db.execute("CREATE VIRTUAL TABLE search USING fts5(kind UNINDEXED, ref UNINDEXED, title, body)")
    db.execute(PROGRESS_SQL)
    db.execute(RATINGS_SQL)


_CJK = re.compile(r"([\u3400-\u9fff\uf900-\ufaff])")


def spaced(text: str) -> str:
    """Chinese characters separated by spaces, so the FTS tokenizer indexes each one."""
    return re.sub(r"\s+", " ", _CJK.sub(r" \1 ", text)).strip()


def _index_search(db: sqlite_utils.Database) -> None:
    rows = []
    for p in db["patterns"].rows:
        aliases = " ".join(json.loads(p["aliases_zh"]))
        rows.append(("pattern", p["id"], spaced(f"{p['name_zh']} {aliases} {p['name_en']}"),
                     spaced(f"{p['description_zh']} {p['description_en']} {p['tags']}")))
    db.conn.executemany("INSERT INTO search (kind, ref, title, body) VALUES (?, ?, ?, ?)", rows)
    _index_compositions(db, "1", [])


def _index_compositions(db: sqlite_utils.Database, condition: str, params: list[object]) -> None:
    """The search entries of the compositions ``condition`` selects: title and collection;
    verdict, stipulation and the names of the kill patterns their line shows (so 马后炮 finds
    the compositions that end in one)."""
    names = _pattern_names(db)
    db.conn.executemany(
        "INSERT INTO search (kind, ref, title, body) VALUES ('composition', ?, ?, ?)",
        [(str(ident), spaced(f"{collection} {title}"),
          spaced(" ".join([verdict or "", stipulation or "",
                           *(names.get(p, p) for p in (shows or "").split())])))
         for ident, collection, title, verdict, stipulation, shows in db.execute(
            "SELECT id, collection, title, verdict, stipulation, shows FROM compositions "
            f"WHERE {condition}", params).fetchall()])


def _pattern_names(db: sqlite_utils.Database) -> dict[str, str]:
    return {ident: name for ident, name in db.execute("SELECT id, name_zh FROM patterns")}


def shown_patterns(fen: str, line: str | Sequence[str]) -> str:
    """The ids of the kill patterns (:mod:`puzzles.patterns`) that a recorded line shows,
    space-separated ("" for no line, or one that does not replay: a catalogue's line is
    replayed when it is built, this only reads it).

    >>> shown_patterns("3aka3/9/9/5N2C/9/9/4c2n1/4B4/4A4/3AK4 w - - 0 1", "f6g8 e9e8 i6i8")
    'trough-horse cannon-behind-horse'
    """
    moves = line.split() if isinstance(line, str) else list(line)
    if not moves:
        return ""
    try:
        return " ".join(match.pattern_id for match in recognise(Board(fen), moves))
    except ValueError:
        return ""


# -- using a built catalogue ------------------------------------------------------------------

def open_catalogue(path: Path | str | None = None,
                   build_if_missing: bool = True) -> sqlite_utils.Database:
    """The catalogue database; built from the source files first if it does not exist, and
    the user's (:func:`puzzles.paths.default_database`) rebuilt, progress kept, when it was
    built from other source files than the shipped ones."""
    path = Path(path) if path is not None else default_database()
    if not path.exists():
        if not build_if_missing:
            raise CatalogueError(f"no catalogue at {path} (run: xqstudio catalogue build)")
        build(path)
    elif path == default_database() and _built_from_other_data(path):
        build(path)                     # the user's catalogue, from older data: progress kept
    db = catalogue_database(path)
    try:
        ensure_progress_table(db)
    except sqlite3.Error as error:
        raise database_error(db, error) from None
    return db


def catalogue_database(path: Path | str) -> sqlite_utils.Database:
    """The existing catalogue file at ``path``, opened and checked: any SQLite failure (a file
    that is not SQLite at all, an SQLite file without the catalogue's tables, a lock) and a
    schema this program does not read raise a :class:`CatalogueError` naming the file.
    :func:`open_catalogue` opens every catalogue through it."""
    path = Path(path)
    db = None
    try:
        db = sqlite_utils.Database(path)
        version = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except sqlite3.Error as error:
        if db is not None:
            db.close()
        if "locked" in str(error) or "busy" in str(error):
            raise database_error(str(path), error) from None
        raise CatalogueError(f"{path} is not a catalogue database ({error})") from None
    if version is None or not str(version[0]).isdigit() or int(version[0]) != SCHEMA_VERSION:
        db.close()
        raise _OtherSchema(f"{path} has schema {version[0] if version else '?'}, this program "
                             f"reads {SCHEMA_VERSION}: rebuild it with xqstudio catalogue build")
    return db


def _built_from_other_data(path: Path) -> bool:
    """Whether the catalogue at ``path`` was compiled from source files other than the shipped
    ones (an older build has no digest).  A file that is not a readable catalogue is left to
    the checks of :func:`open_catalogue`, which name what is wrong."""
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            row = connection.execute(
                "SELECT value FROM meta WHERE key = 'source_digest'").fetchone()
        finally:
            connection.close()
    except sqlite3.Error:
        return False
    return row is None or row[0] != source_digest()


def search(db: sqlite_utils.Database, query: str, limit: int = 50) -> list[JsonObject]:
    """Full-text search over names, aliases, descriptions and titles, best matches first; a
    reference of one entry (``适情雅趣:7``, ``马后炮:2``) finds that entry."""
    if not query.strip():
        return []
    entry = _referenced_entry(db, query)
    if entry is not None:
        return [_hit(entry)]
    rows = db.execute(
        "SELECT kind, ref FROM search WHERE search MATCH ? ORDER BY rank LIMIT ?",
        [_match_expression(query), limit]).fetchall()
    hits = []
    for kind, ref in rows:
        if kind == "pattern":
            p = db.table("patterns").get(ref)
            hits.append({"kind": kind, "id": ref, "title": f"{p['name_zh']} ({p['name_en']})"})
        else:
            hits.append(_hit(get_entry(db, "composition", int(ref))))
    return hits


def _hit(entry: Entry) -> JsonObject:
    """A search hit for an entry: a composition by its catalogue id, an example by its
    reference (examples have no id of their own that commands read)."""
    reference = entry_reference(entry)
    if entry.kind == "composition":
        return {"kind": "composition", "id": entry.id, "title": f"{reference} {entry.title}"}
    return {"kind": "example", "id": reference, "title": entry.title}


_REFERENCE_SHAPE = re.compile(r"\s*([^\s:：][^:：]*?)\s*[:：]\s*(练?\d+)\s*")


def _referenced_entry(db: sqlite_utils.Database, text: str) -> Entry | None:
    """The entry ``text`` names when it is a reference of one entry, NAME:N whose NAME is a
    pattern or a collection (``适情雅趣:7``, ``马后炮:2``, ``马后炮:练3``); None for any other
    text (searched as words).  A number beyond the pattern's or collection's raises
    :class:`CatalogueError`."""
    match = _REFERENCE_SHAPE.fullmatch(text)
    if match is None or (_pattern_named(db, match.group(1)) is None
                         and _collection_named(db, match.group(1)) is None):
        return None
    found = resolve_reference(db, text)
    return found if isinstance(found, Entry) else None


# -- browsing: examples and compositions as one list ------------------------------------------

# Attacking pieces in the order material signatures use (tablebases.material: K R N C P A B).
PIECE_ORDER = "RNCPAB"
_PIECE_LETTERS = {
    "车": "R", "車": "R", "俥": "R", "马": "N", "馬": "N", "傌": "N", "H": "N", "炮": "C",
    "砲": "C", "包": "C", "兵": "P", "卒": "P", "仕": "A", "士": "A", "相": "B", "象": "B",
    "E": "B", "帅": "K", "帥": "K", "将": "K", "將": "K",
}
KINDS = ("example", "composition", "practice")


@dataclass(frozen=True)
class Entry:
    """One kill-pattern example or one composition, as a browser lists it.

    ``kind`` is "example" or "composition" and ``id`` its row in that table.  An example has a
    ``pattern`` (id) and ``pattern_name`` (Chinese) and ``number``, its place among the
    pattern's examples; a composition has a ``collection`` and its ``number`` there.
    ``verdict`` is the solver's ("mate", "no mate", "unproven", ...; an example's is "mate"),
    ``moves`` the length of the forced mate in attacker moves (None if not known),
    ``main_line`` its moves in ICCS, ``main_line_zh`` the same in Chinese notation.
    ``pieces`` is the material of the side to move (the attacker) without its king, in the
    order R N C P A B (``"RRC"``).  ``source`` says where the position comes from, ``note``
    what an example's mating picture shows (empty for compositions).  ``verification`` says
    how an example's mate was checked ("verified" by the solver, or "replayed"); None for
    compositions.  ``budget`` says what the search behind a composition's verdict had
    ("budget 5,000,000 nodes", "searched 191,488 nodes in 7.4 s"; None where not recorded):
    see :attr:`verdict_text`.  ``shows`` holds the ids of the kill patterns that the main line
    shows (:mod:`puzzles.patterns`), in the catalogue's order.  ``rating`` is an example's or
    practice position's difficulty (:mod:`puzzles.difficulty`); None for compositions.
    """
    kind: str
    id: int
    title: str
    pattern: str | None
    pattern_name: str | None
    collection: str | None
    number: int
    fen: str
    stipulation: str
    verdict: str
    moves: int | None
    main_line: list[str]
    main_line_zh: str
    pieces: str
    source: str
    note: str
    verification: str | None
    budget: str | None = None
    shows: tuple[str, ...] = ()
    rating: int | None = None

    @property
    def verdict_text(self) -> str:
        """The verdict with the budget it was reached within where that budget decides it
        (``unproven (budget 5,000,000 nodes)``, ``mate within 19 (budget 5,000,000
        nodes)``): a larger one may settle it.  A proven verdict stands alone."""
        if self.budget and self.verdict.startswith(UNSETTLED_VERDICTS):
            return f"{self.verdict} ({self.budget})"
        return self.verdict


@dataclass(frozen=True)
class Page:
    """A page of :func:`query`: ``total`` entries match, ``entries`` holds those from
    ``offset`` on (at most ``limit``; None: all)."""
    total: int
    offset: int
    limit: int | None
    entries: list[Entry]


@dataclass(frozen=True)
class PatternSummary:
    """A kill pattern: names, descriptions, the pieces it uses (FEN letters, K included),
    search tags, its number of examples and of practice positions."""
    id: str
    name_zh: str
    name_en: str
    aliases_zh: list[str]
    description_zh: str
    description_en: str
    pieces: list[str]
    tags: list[str]
    examples: int
    practice: int = 0


@dataclass(frozen=True)
class CollectionSummary:
    """A collection of compositions: its name, size, and how many have each verdict
    (``{"mate": 239, "unproven": 214, "no mate within 10": 79, ...}``, most first)."""
    name: str
    compositions: int
    verdicts: dict[str, int]


def attacker_pieces(fen: str) -> str:
    """The pieces of the side to move other than its king, in the order R N C P A B.

    >>> attacker_pieces("3k5/9/9/9/9/9/9/9/4C4/R2K4R w - - 0 1")
    'RRC'
    >>> attacker_pieces("3k5/9/9/9/9/9/9/9/4C4/R2K4R b")
    ''
    """
    placement, side = fen.split()[:2]
    red = side in ("w", "r")
    own = (c for c in placement if c.isalpha() and c.isupper() == red)
    return "".join(sorted((c.upper() for c in own if c.upper() != "K"), key=PIECE_ORDER.index))


def parse_pieces(text: str) -> str:
    """Pieces named by FEN letters (``RNC``, any case, H/E for N/B) or Chinese characters
    (``车马炮``, traditional too), in canonical order; kings are dropped.

    >>> parse_pieces("炮车c"), parse_pieces("KRh")
    ('RCC', 'RN')
    >>> parse_pieces("RQ")
    Traceback (most recent call last):
    ...
    puzzles.catalogue.CatalogueError: unknown piece 'Q' in 'RQ' (use R N C P A B or 车马炮兵仕相)
    """
    letters = []
    for char in text:
        if char.isspace():
            continue
        letter = _PIECE_LETTERS.get(char, _PIECE_LETTERS.get(char.upper(), char.upper()))
        if letter == "K":
            continue
        if letter not in PIECE_ORDER:
            raise CatalogueError(f"unknown piece {char!r} in {text!r} (use R N C P A B or "
                                 "车马炮兵仕相)")
        letters.append(letter)
    return "".join(sorted(letters, key=PIECE_ORDER.index))


def _has_pieces(fen: str, wanted: str) -> int:
    return int(Counter(wanted) <= Counter(attacker_pieces(fen)))


# Examples, compositions and practice positions in one relation; examples first (in pattern
# order), then the compositions by collection and number, then the practice positions (in
# pattern order), numbered within their pattern as the examples are.
_ENTRIES_SQL = """
SELECT 'example' AS kind, e.id AS id, p.name_zh || ' 例' || row_number() OVER win AS title,
       e.pattern_id AS pattern, p.name_zh AS pattern_name, NULL AS collection,
       row_number() OVER win AS number, e.fen AS fen, e.stipulation AS stipulation,
       'mate' AS verdict, e.moves AS moves, e.solution_iccs AS main_line,
       e.solution_zh AS main_line_zh, e.source AS source, e.note AS note,
       e.verification AS verification, NULL AS budget, e.shows AS shows,
       0 AS kind_order, p.rowid AS group_order, '' AS collection_order, e.rating AS rating
FROM examples e JOIN patterns p ON p.id = e.pattern_id
WINDOW win AS (PARTITION BY e.pattern_id ORDER BY e.id)
UNION ALL
SELECT 'composition', c.id, c.title, NULL, NULL, c.collection, c.number, c.fen, c.stipulation,
       c.verdict, c.moves, c.main_line_iccs, c.main_line_zh, c.source, '', NULL, c.budget,
       c.shows,
       1, 0, c.collection, NULL
FROM compositions c
UNION ALL
SELECT 'practice', x.id, p.name_zh || ' 练' || row_number() OVER pwin, x.pattern_id, p.name_zh,
       NULL, row_number() OVER pwin, x.fen, x.stipulation, 'mate', x.moves, x.solution_iccs,
       x.solution_zh, x.source, '', CASE x.generated WHEN 1 THEN 'generated' ELSE 'mined' END,
       NULL, x.shows, 2, p.rowid, '', x.rating
FROM practice x JOIN patterns p ON p.id = x.pattern_id
WINDOW pwin AS (PARTITION BY x.pattern_id ORDER BY x.id)
"""


def query(db: sqlite_utils.Database, text: str | None = None, pattern: str | None = None,
          collection: str | None = None, pieces: str | None = None,
          min_moves: int | None = None, max_moves: int | None = None, kind: str | None = None,
          verdict: str | Sequence[str] | None = None, limit: int | None = 50,
          offset: int = 0, shows: str | None = None) -> Page:
    """Examples and compositions matching every filter given, a page at a time.

    ``text``: full-text search (as :func:`search`; an example matches through its pattern's
    names, aliases and descriptions), best matches first; a reference of one entry (``适情雅趣:7``,
    ``马后炮:2``, see :func:`resolve_reference`) matches that entry.  ``pattern``: a pattern's id,
    Chinese name or alias (only its examples match).  ``collection``: a collection's name or
    source key (only its compositions match).  ``pieces``: the attacker has at least these pieces
    besides its king (``"RN"``: a rook and a horse, maybe more; ``"RR"``: two rooks), see
    :func:`parse_pieces`.  ``min_moves``/``max_moves``: the forced mate's length in attacker
    moves (entries of unknown length are left out when either is given).  ``kind``: "example" or
    "composition".  ``shows``: a pattern (id, Chinese name or alias) that the entry's line
    shows, as :mod:`puzzles.patterns` recognises it (examples and compositions alike).
    ``verdict``: e.g. "mate", or several, any of which matches (the studio's
    verdict classes: "mate within 10", "mate within 11", ...).  Without ``text`` the order is
    the examples in pattern order, then the compositions by collection and number.  An unknown
    pattern or collection, a bad piece or kind raises :class:`CatalogueError`.  With ``text``
    the examples come first, then the compositions, each by relevance.
    """
    if kind is not None and kind not in KINDS:
        raise CatalogueError(f"unknown kind {kind!r} (use example, composition or practice)")
    if offset < 0 or (limit is not None and limit < 0):
        raise CatalogueError("limit and offset cannot be negative")
    where: list[str] = []
    params: list[object] = []
    if kind is not None:
        where.append("kind = ?")
        params.append(kind)
    referenced = _referenced_entry(db, text) if text is not None else None
    if referenced is not None:                  # 适情雅趣:7 typed in the search: that entry
        where.append("kind = ? AND id = ?")
        params.extend([referenced.kind, referenced.id])
        text = None
    elif kind is None:
        where.append("kind != 'practice'")      # hundreds of them: asked for by name only
    if pattern is not None:
        where.append("pattern = ?")
        params.append(pattern_of(db, pattern).id)
    if shows is not None:
        where.append("(' ' || coalesce(shows, '') || ' ') LIKE ?")
        params.append(f"% {pattern_of(db, shows).id} %")
    if collection is not None:
        where.append("collection = ?")
        params.append(collection_name(db, collection))
    if pieces is not None:
        wanted = parse_pieces(pieces)
        if wanted:
            db.conn.create_function("has_pieces", 2, _has_pieces, deterministic=True)
            where.append("has_pieces(fen, ?)")
            params.append(wanted)
    if min_moves is not None:
        where.append("moves >= ?")
        params.append(min_moves)
    if max_moves is not None:
        where.append("moves <= ?")
        params.append(max_moves)
    if isinstance(verdict, str):
        where.append("verdict = ?")
        params.append(verdict)
    elif verdict is not None:
        where.append(f"verdict IN ({', '.join('?' * len(verdict))})")
        params.extend(verdict)
    source = f"({_ENTRIES_SQL}) AS entries"
    order = "kind_order, group_order, collection_order, number"
    if text is not None and text.strip():
        # Examples match through their pattern's row, compositions through their own.
        source += (" JOIN (SELECT kind AS hit_kind, ref, rank FROM search WHERE search MATCH ?)"
                   " AS hits ON (hit_kind = 'pattern' AND kind = 'example' AND ref = pattern)"
                   " OR (hit_kind = 'composition' AND kind = 'composition'"
                   " AND ref = CAST(id AS TEXT))")
        params.insert(0, _match_expression(text))
        # A pattern's examples before the compositions that show it (a student who types
        # 马后炮 wants the pattern first), each kind by relevance.
        order = "kind_order, rank, " + order
    condition = f" WHERE {' AND '.join(where)}" if where else ""
    total = db.execute(f"SELECT count(*) FROM {source}{condition}", params).fetchone()[0]
    page_sql = f"SELECT * FROM {source}{condition} ORDER BY {order} LIMIT ? OFFSET ?"
    rows = db.query(page_sql, params + [-1 if limit is None else limit, offset])
    return Page(total, offset, limit, [_entry(row) for row in rows])


def _entry(row: JsonObject) -> Entry:
    return Entry(row["kind"], row["id"], row["title"], row["pattern"], row["pattern_name"],
                 row["collection"], row["number"], row["fen"], row["stipulation"],
                 row["verdict"], row["moves"], (row["main_line"] or "").split(),
                 row["main_line_zh"] or "", attacker_pieces(row["fen"]), row["source"] or "",
                 row["note"] or "", row["verification"], row["budget"],
                 tuple((row["shows"] or "").split()), row["rating"])


def _match_expression(text: str) -> str:
    """An FTS5 query: every whitespace-separated word as a phrase of its characters."""
    words = [w for w in re.split(r"\s+", text.strip()) if w]
    return " AND ".join('"' + spaced(w).replace('"', '""') + '"' for w in words)


def draw_analysis(db: sqlite_utils.Database, entry: Entry) -> JsonObject | None:
    """A draw study's analysis: ``settled_by`` (a table, a bound), ``table``, ``line_end``
    (how its drawing line, the entry's main line, ends) and ``traps`` (each a dict of ICCS
    ``move``, ``refutation`` and Black's mate ``length``); None for other entries."""
    if entry.kind != "composition" or "draw_analyses" not in db.table_names():
        return None
    row = db.execute("SELECT settled_by, \"table\", line_end, traps FROM draw_analyses "
                     "WHERE composition_id = ?", [entry.id]).fetchone()
    if row is None:
        return None
    return {"settled_by": row[0], "table": row[1], "line_end": row[2],
            "traps": json.loads(row[3] or "[]")}


MAX_SQLITE_INTEGER = 2**63 - 1


def get_entry(db: sqlite_utils.Database, kind: str, entry_id: int) -> Entry:
    """The example or composition ``entry_id`` (its row in the table of ``kind``)."""
    if kind not in KINDS:
        raise CatalogueError(f"unknown kind {kind!r} (use example, composition or practice)")
    # SQLite's integers are 64-bit: a larger id names no entry (and cannot be bound).
    rows = list(db.query(f"SELECT * FROM ({_ENTRIES_SQL}) WHERE kind = ? AND id = ?",
                         [kind, entry_id])) if 0 <= entry_id <= MAX_SQLITE_INTEGER else []
    if not rows:
        raise CatalogueError(f"no {kind} {entry_id}")
    return _entry(rows[0])


REFERENCE_HELP = (
    "a reference is a composition's catalogue id, the first column of `catalogue list "
    "compositions` (12); a book reference COLLECTION:N, the collection's name or source key and "
    "the number printed in the book, as the studio lists it (适情雅趣:7, shiqingyaqu:7); a kill "
    "pattern, meaning all its examples (an id such as facing-kings, a Chinese name or an "
    "alias); one example of a pattern, PATTERN:N (马后炮:2); or one of its practice "
    "positions, PATTERN:练N (马后炮:练3)")
"""What an entry reference is, for help texts and errors (see :func:`resolve_reference`)."""


def entry_reference(entry: Entry) -> str:
    """The reference that names ``entry`` alone, as the studio lists it and every command
    taking a reference reads it: ``适情雅趣:7`` (collection and book number) or ``马后炮:2``
    (pattern and example number)."""
    if entry.kind == "example":
        return f"{entry.pattern_name}:{entry.number}"
    if entry.kind == "practice":
        return f"{entry.pattern_name}:练{entry.number}"
    return f"{entry.collection}:{entry.number}"


def resolve_reference(db: sqlite_utils.Database,
                      reference: str) -> PatternSummary | Entry:
    """What a reference names (see :data:`REFERENCE_HELP`): a composition by its catalogue id
    (``12``) or its book reference (``适情雅趣:7``, ``shiqingyaqu:7``), an example of a pattern
    (``马后炮:2``, the entry titled 马后炮 例2), or a pattern as a whole (its id, Chinese name or
    alias).  A full-width colon (``适情雅趣：7``) is read as a colon.  Anything else raises a
    :class:`CatalogueError` saying what a reference is."""
    text = reference.strip().replace("：", ":")
    if text.isdecimal():
        return get_entry(db, "composition", int(text))
    name, colon, number = text.rpartition(":")
    name, number = name.strip(), number.strip()
    if colon and name and number.startswith("练") and number[1:].isdecimal():
        pattern = _pattern_named(db, name)
        if pattern is None:
            raise CatalogueError(f"no pattern {name!r} in {reference!r} ({REFERENCE_HELP})")
        drills = query(db, pattern=pattern.id, kind="practice", limit=None).entries
        if not 1 <= int(number[1:]) <= len(drills):
            raise CatalogueError(f"{pattern.name_zh} has {len(drills)} practice positions, no "
                                 f"{number}")
        return drills[int(number[1:]) - 1]
    if colon and name and number.isdecimal():
        pattern = _pattern_named(db, name)
        if pattern is not None:
            examples = query(db, pattern=pattern.id, kind="example", limit=None).entries
            if not 1 <= int(number) <= len(examples):
                raise CatalogueError(f"{pattern.name_zh} has {len(examples)} examples, no "
                                     f"example {number} (use {name}:1 to "
                                     f"{name}:{len(examples)})")
            return examples[int(number) - 1]
        collection = _collection_named(db, name)
        if collection is None:
            raise CatalogueError(f"no pattern or collection {name!r} in {reference!r} "
                                 f"({REFERENCE_HELP})")
        row = db.execute("SELECT id FROM compositions WHERE collection = ? AND number = ?",
                         [collection, int(number)]).fetchone() \
            if int(number) <= MAX_SQLITE_INTEGER else None
        if row is None:
            first, last = db.execute("SELECT min(number), max(number) FROM compositions "
                                     "WHERE collection = ?", [collection]).fetchone()
            raise CatalogueError(f"{collection} has no number {number} (its numbers run "
                                 f"{first} to {last}: {collection}:{first} to "
                                 f"{collection}:{last})")
        return get_entry(db, "composition", row[0])
    pattern = _pattern_named(db, text)
    if pattern is not None:
        return pattern
    collection = _collection_named(db, text)
    if collection is not None:
        last = db.execute("SELECT max(number) FROM compositions WHERE collection = ?",
                          [collection]).fetchone()[0]
        raise CatalogueError(f"{text!r} is a collection: name one of its compositions, "
                             f"{collection}:1 to {collection}:{last}")
    raise CatalogueError(f"no pattern {text!r} ({REFERENCE_HELP})")


def entries_of(db: sqlite_utils.Database, reference: str) -> list[Entry]:
    """The entries a reference names (see :func:`resolve_reference`): one entry, or every
    example of a pattern named as a whole."""
    found = resolve_reference(db, reference)
    if isinstance(found, PatternSummary):
        return query(db, pattern=found.id, limit=None).entries
    return [found]


def collection_name(db: sqlite_utils.Database, name: str) -> str:
    """The collection called ``name``, or whose source key ``name`` is (``shiqingyaqu``:
    适情雅趣); an unknown one raises :class:`CatalogueError` naming the known ones."""
    found = _collection_named(db, name)
    if found is None:
        known = "、".join(c.name for c in list_collections(db))
        raise CatalogueError(f"no collection {name!r} (known: {known})")
    return found


def _collection_named(db: sqlite_utils.Database, name: str) -> str | None:
    for candidate in (name, COLLECTION_KEYS.get(name.strip().lower())):
        if candidate and db.execute("SELECT 1 FROM compositions WHERE collection = ? LIMIT 1",
                                    [candidate]).fetchone() is not None:
            return candidate
    return None


def _pattern_named(db: sqlite_utils.Database, name: str) -> PatternSummary | None:
    try:
        return pattern_of(db, name)
    except CatalogueError:
        return None


def pattern_of(db: sqlite_utils.Database, name: str) -> PatternSummary:
    """The pattern with this id, Chinese name or alias."""
    summaries = _pattern_summaries(
        db, "WHERE p.id = ? OR p.name_zh = ? OR EXISTS "
            "(SELECT 1 FROM json_each(p.aliases_zh) WHERE value = ?)", [name, name, name])
    if not summaries:
        raise CatalogueError(f"no pattern {name!r} (an id such as facing-kings, a Chinese name "
                             "or an alias)")
    return summaries[0]


def list_patterns(db: sqlite_utils.Database) -> list[PatternSummary]:
    """Every kill pattern in the source order, with its number of examples."""
    return _pattern_summaries(db, "", [])


def _pattern_summaries(db: sqlite_utils.Database, condition: str,
                       params: list[object]) -> list[PatternSummary]:
    rows = db.query(f"SELECT p.*, count(e.id) AS examples, (SELECT count(*) FROM practice x "
                    f"WHERE x.pattern_id = p.id) AS practice FROM patterns p LEFT JOIN "
                    f"examples e ON e.pattern_id = p.id {condition} GROUP BY p.id "
                    f"ORDER BY p.rowid", params)
    return [PatternSummary(r["id"], r["name_zh"], r["name_en"], json.loads(r["aliases_zh"]),
                           r["description_zh"], r["description_en"], json.loads(r["pieces"]),
                           json.loads(r["tags"]), r["examples"], r["practice"])
            for r in rows]


def list_collections(db: sqlite_utils.Database) -> list[CollectionSummary]:
    """Every collection of compositions, by name, with its size and verdict counts."""
    verdicts: dict[str, dict[str, int]] = {}
    for name, verdict, count in db.execute(
            "SELECT collection, verdict, count(*) FROM compositions GROUP BY collection, verdict "
            "ORDER BY collection, count(*) DESC, verdict"):
        verdicts.setdefault(name, {})[verdict] = count
    return [CollectionSummary(name, sum(counts.values()), counts)
            for name, counts in verdicts.items()]


EXISTING = ("replace", "skip")
"""What an import does with positions its collection already holds (see
:func:`import_problems`)."""


class RepeatedPositions(CatalogueError):
    """An import refused because positions of the file are already in the collection:
    ``repeated`` lists each as (its record's number in the file, the entry's number in the
    collection)."""

    def __init__(self, message: str, repeated: list[tuple[int, int]]) -> None:
        super().__init__(message)
        self.repeated = repeated


@dataclass
class ImportReport:
    """What :func:`import_problems` did: the numbers (in ``collection``) of the entries it
    ``added``, of those whose data it ``replaced`` and of those it left as they were
    (``skipped``: their positions were in the file too); ``repeated`` pairs each record of the
    file whose position the collection already held (its number in the file, from 1) with
    that entry's number."""
    collection: str
    added: list[int] = field(default_factory=list)
    replaced: list[int] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)
    repeated: list[tuple[int, int]] = field(default_factory=list)

    @property
    def imported(self) -> int:
        """Records written: added or replacing an entry's data."""
        return len(self.added) + len(self.replaced)


_START_KEY = " ".join(STARTING_FEN.split()[:2])


def position_key(fen: str, moves: str | list[str] = "") -> str:
    """What makes two records the same problem for an import: the placement and the side to
    move (the move counters aside) -- and, for a game from the opening position, its moves
    (games all start there; their moves tell them apart).

    >>> position_key("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 3 9", ["a0d0"])
    '3k5/9/9/9/9/9/9/9/9/R3K4 w'
    """
    key = " ".join(Board(fen).fen().split()[:2])
    if key == _START_KEY:
        key += " " + " ".join(moves.split() if isinstance(moves, str) else moves)
    return key


def _references_text(collection: str, repeated: list[tuple[int, int]], shown: int = 8) -> str:
    parts = [f"record {record} = {collection}:{number}" for record, number in repeated[:shown]]
    more = len(repeated) - shown
    return ", ".join(parts) + (f" and {more} more" if more > 0 else "")


def import_file(db: sqlite_utils.Database, path: Path | str, collection: str,
                verify_seconds: float = 0.0, existing: str | None = None) -> int:
    """Add every record of a problem file to ``collection`` (see :func:`import_problems`);
    returns how many records were written."""
    return import_problems(db, path, collection, verify_seconds, existing).imported


def import_problems(db: sqlite_utils.Database, path: Path | str, collection: str,
                    verify_seconds: float = 0.0, existing: str | None = None) -> ImportReport:
    """Add every record of a problem file (any format of :mod:`puzzles.formats`) to the
    compositions of ``collection``, in one transaction: a bad record raises
    :class:`puzzles.formats.FormatError` (file and line or offset) and nothing is written.

    A record whose position (:func:`position_key`; a game from the opening position: with its
    moves) the collection already holds is a repeat.
    With repeats and no ``existing``, :class:`RepeatedPositions` is raised (how many, which)
    and nothing is written; ``existing="replace"`` replaces those entries' data (title,
    position, line, verdict, source; number and id kept) and ``existing="skip"`` keeps them
    as they are, adding only the new positions.

    With ``verify_seconds`` each position written is solved (continuous checks first, then
    quiet moves) within that budget and the verdict recorded; otherwise it is
    "unverified"."""
    from .formats import read

    if existing is not None and existing not in EXISTING:
        raise ValueError(f"existing must be one of {EXISTING} or None, not {existing!r}")
    records = read(path)
    try:
        start = db.execute("SELECT coalesce(max(number), 0) FROM compositions "
                           "WHERE collection = ?", [collection]).fetchone()[0]
        held: dict[str, tuple[int, int]] = {}
        for ident, number, fen, line in db.execute(
                "SELECT id, number, fen, main_line_iccs FROM compositions "
                "WHERE collection = ? ORDER BY number", [collection]).fetchall():
            held.setdefault(position_key(fen, line or ""), (ident, number))
    except sqlite3.OperationalError as error:
        raise database_error(db, error, "nothing imported") from None
    report = ImportReport(collection)
    targets: list[tuple[int, int] | None] = []      # (id, number) of the entry a record repeats
    for index, record in enumerate(records, start=1):
        found = held.get(position_key(record.fen, record.moves))
        if found is not None:
            report.repeated.append((index, found[1]))
        targets.append(found)
    if report.repeated and existing is None:
        count = len(report.repeated)
        raise RepeatedPositions(
            f"{count} of the {len(records)} position{'' if len(records) == 1 else 's'} in "
            f"{Path(path).name} {'is' if count == 1 else 'are'} already in {collection!r} "
            f"({_references_text(collection, report.repeated)}); nothing imported: "
            "--skip-existing adds only the new positions, --replace replaces the existing "
            "entries' data", report.repeated)
    rows: list[JsonObject] = []
    replacements: list[tuple[int, JsonObject]] = []
    for record, found in zip(records, targets):
        if found is not None and existing == "skip":
            report.skipped.append(found[1])
            continue
        board = Board(record.fen)
        verdict, moves, line = "unverified", None, [Move.from_iccs(m) for m in record.moves]
        title = record.tags.get("title") or record.tags.get("event") or ""
        stipulation = record_stipulation(title, record.tags.get("result", ""))
        if verify_seconds > 0 and stipulation == "draw":
            verdict, line = _analyse_for_catalogue(board, verify_seconds, line)
        elif verify_seconds > 0:
            verdict, stipulation, moves, line = _solve_for_catalogue(board, verify_seconds, line)
        row = {
            "title": title,
            "fen": board.fen(), "stipulation": stipulation, "verdict": verdict, "moves": moves,
            "main_line_iccs": " ".join(m.iccs() for m in line),
            "main_line_zh": " ".join(write_line(board, line, "chinese")),
            "source": str(Path(path).name), "licence": record.tags.get("licence", ""),
            "shows": shown_patterns(board.fen(), [m.iccs() for m in line]),
        }
        if found is not None:
            replacements.append((found[0], row))
            report.replaced.append(found[1])
        else:
            number = start + len(rows) + 1
            rows.append({"collection": collection, "number": number, **row})
            report.added.append(number)
    if not rows and not replacements:
        return report
    # One transaction for the rows and their search entries (sqlite-utils' insert_all
    # commits by itself, so plain statements are used): a failure anywhere writes nothing.
    try:
        with db.conn:
            if not db.conn.in_transaction:
                db.conn.execute("BEGIN IMMEDIATE")    # the write lock now, or a clear error
            if rows:
                columns = list(rows[0])
                db.conn.executemany(
                    f"INSERT INTO compositions ({', '.join(columns)}) "
                    f"VALUES ({', '.join('?' for _ in columns)})",
                    [[row[c] for c in columns] for row in rows])
            if replacements:
                columns = list(replacements[0][1])
                db.conn.executemany(
                    f"UPDATE compositions SET {', '.join(f'{c} = ?' for c in columns)} "
                    "WHERE id = ?", [[*row.values(), ident] for ident, row in replacements])
                if "draw_analyses" in db.table_names():    # the old data's analysis is void
                    db.conn.executemany("DELETE FROM draw_analyses WHERE composition_id = ?",
                                        [(ident,) for ident, _ in replacements])
                db.conn.executemany("DELETE FROM search WHERE kind = 'composition' AND ref = ?",
                                    [(str(ident),) for ident, _ in replacements])
            written = report.added + report.replaced
            _index_compositions(
                db, f"collection = ? AND number IN ({', '.join('?' for _ in written)})",
                [collection, *written])
    except sqlite3.OperationalError as error:
        raise database_error(db, error, "nothing imported") from None
    return report


def database_path(db: sqlite_utils.Database) -> str:
    """The file behind ``db`` (for messages)."""
    try:
        for _, name, file in db.conn.execute("PRAGMA database_list"):
            if name == "main":
                return file or ":memory:"
    except sqlite3.Error:
        pass
    return "the catalogue"


def database_error(db: sqlite_utils.Database | str, error: sqlite3.Error,
                   outcome: str = "") -> CatalogueError:
    """A :class:`CatalogueError` naming the file for an SQLite failure (a lock held by another
    process above all)."""
    where = db if isinstance(db, str) else database_path(db)
    text = str(error)
    if "locked" in text or "busy" in text:
        problem = "is locked by another process (another import or an open SQLite tool?)"
    else:
        problem = f"cannot be used: {text}"
    return CatalogueError(f"{where}: the catalogue {problem}" + (f"; {outcome}" if outcome else ""))


def _analyse_for_catalogue(board: Board, seconds: float,
                           recorded: list[Move]) -> tuple[str, list[Move]]:
    """A draw study's verdict within ``seconds`` (no tables), and its drawing line."""
    from solver.draw import analyse_draw

    analysis = analyse_draw(board, limits=Limits(seconds=seconds), traps=False)
    line = analysis.line.moves if analysis.line is not None and analysis.line.moves else recorded
    return draw_verdict(analysis), line


def _solve_for_catalogue(board: Board, seconds: float,
                         recorded: list[Move]) -> tuple[str, str, int | None, list[Move]]:
    for mode, bound in (("checks", CHECKS_BOUND), ("any", 10)):
        result = solve(board, mode=mode, max_moves=bound, limits=Limits(seconds=seconds))
        if result.verdict == "mate":
            return (search_verdict(result), "checks" if mode == "checks" else "win",
                    result.length, result.main_line)
    return "unproven", "win", None, recorded


# -- verifying compositions again (``catalogue verify``) ---------------------------------------

def compositions_to_verify(db: sqlite_utils.Database, collection: str | None = None,
                           numbers: list[int] | None = None) -> list[JsonObject]:
    """The compositions (id, collection, number, title, fen, stipulation, verdict, moves) of
    ``collection`` (every collection if None), only ``numbers`` if given, in order."""
    where: list[str] = []
    params: list[str | int] = []
    if collection is not None:
        where.append("collection = ?")
        params.append(collection_name(db, collection))
    if numbers:
        where.append(f"number IN ({', '.join('?' for _ in numbers)})")
        params.extend(numbers)
    rows = db.execute(
        "SELECT id, collection, number, title, fen, stipulation, verdict, moves "
        "FROM compositions" + (f" WHERE {' AND '.join(where)}" if where else "")
        + " ORDER BY collection, number", params).fetchall()
    keys = ("id", "collection", "number", "title", "fen", "stipulation", "verdict", "moves")
    return [dict(zip(keys, row)) for row in rows]


def write_verdicts(db: sqlite_utils.Database, verdicts: dict[int, JsonObject]) -> int:
    """Record the verdicts of :func:`verify_composition` (by composition id) and their search
    entries in one transaction: all of them, or, if anything fails (a locked catalogue),
    none.  Returns how many rows were written."""
    if not verdicts:
        return 0
    ids = sorted(verdicts)
    fens = dict(db.execute(f"SELECT id, fen FROM compositions WHERE id IN "
                           f"({', '.join('?' for _ in ids)})", ids).fetchall())
    try:
        with db.conn:
            if not db.conn.in_transaction:
                db.conn.execute("BEGIN IMMEDIATE")    # the write lock now, or a clear error
            db.conn.executemany(
                "UPDATE compositions SET stipulation = ?, verdict = ?, moves = ?, "
                "main_line_iccs = ?, main_line_zh = ?, budget = ?, shows = ? WHERE id = ?",
                [(verdicts[i]["stipulation"], verdicts[i]["verdict"], verdicts[i]["moves"],
                  verdicts[i]["main_line"], verdicts[i]["main_line_zh"],
                  verdicts[i].get("budget"), shown_patterns(fens[i], verdicts[i]["main_line"]),
                  i) for i in ids])
            db.conn.executemany("DELETE FROM search WHERE kind = 'composition' AND ref = ?",
                                [(str(i),) for i in ids])
            _index_compositions(db, f"id IN ({', '.join('?' for _ in ids)})", list(ids))
    except sqlite3.OperationalError as error:
        raise database_error(db, error, "no verdict written") from None
    return len(ids)


def export_records(db: sqlite_utils.Database, collection: str | None = None,
                   pattern: str | None = None, references: list[str] | None = None) -> list[Record]:
    """Records (for :func:`puzzles.formats.write`) of the entries ``references`` name (see
    :func:`resolve_reference`), else of a pattern's examples (``pattern``: id, Chinese name
    or alias), else of a collection (name or source key; None: every collection), each with
    its own title (see :func:`entry_record`)."""
    if references:
        entries = [entry for reference in references for entry in entries_of(db, reference)]
    elif pattern is not None:
        entries = query(db, pattern=pattern, limit=None).entries
    else:
        entries = query(db, collection=collection, kind="composition", limit=None).entries
    return [entry_record(entry) for entry in entries]


def entry_record(entry: Entry) -> Record:
    """An entry as a :class:`puzzles.formats.Record`: its position, main line and tags.  The
    title is the entry's own name (a composition's, 春雷惊蛰; an example's, 马后炮 例2; its
    reference if it has none); the event says where it comes from and what it is called, as
    the shipped collection's records do (适情雅趣 第7局 春雷惊蛰); the round is its number
    there.  So no two entries share a title or an event unless their names are equal."""
    from .formats import Record

    title = entry.title or entry_reference(entry)
    if entry.kind in ("example", "practice"):
        event, result = title, "1-0" if Board(entry.fen).turn == RED else "0-1"
    else:
        event = f"{entry.collection} 第{entry.number}局 {entry.title}".strip()
        result = "1-0" if entry.verdict == "mate" else "*"
    return Record(entry.fen, list(entry.main_line),
                  {"title": title, "event": event, "round": str(entry.number),
                   "result": result})


# -- the user's progress ------------------------------------------------------------------------

PROGRESS_SQL = """CREATE TABLE IF NOT EXISTS progress (
    kind TEXT NOT NULL, entry_id INTEGER NOT NULL, pattern_id TEXT,
    attempts INTEGER NOT NULL DEFAULT 0, solved INTEGER NOT NULL DEFAULT 0,
    clean INTEGER NOT NULL DEFAULT 0, tries INTEGER NOT NULL DEFAULT 0,
    hints INTEGER NOT NULL DEFAULT 0, solutions INTEGER NOT NULL DEFAULT 0,
    last_at TEXT, PRIMARY KEY (kind, entry_id))"""
"""One row an entry practised: practice sessions started (``attempts``), mates reached
(``solved``), mates reached without wrong tries, hints or the solution (``clean``), wrong
tries, hint steps and solutions shown, and when it was last practised."""

RATINGS_SQL = """CREATE TABLE IF NOT EXISTS pattern_ratings (
    pattern_id TEXT PRIMARY KEY, rating REAL NOT NULL, deviation REAL NOT NULL,
    games INTEGER NOT NULL, wins INTEGER NOT NULL, last_at TEXT NOT NULL)"""
"""The other half of the user's progress: a Glicko rating per kill pattern
(:mod:`puzzles.rating`), moved by each attempt's first result."""

PRACTICE_ROUND = 5
"""Practice positions of a pattern served after its examples are mastered, before the next
pattern's examples (a lesson, then a round of drill at the student's level)."""


@dataclass(frozen=True)
class PatternProgress:
    """How far a user has got with a kill pattern: of its ``examples``, how many were
    ``solved`` at least once and how many ``clean`` (mated without wrong tries, hints or the
    solution); the wrong ``tries``, hint steps and ``solutions`` shown in all; of its
    ``practice`` positions, how many were ``drilled`` (attempted) and ``drilled_clean``; and
    the user's ``rating`` on the pattern (None before the first result).  A pattern is
    ``mastered`` when every example has been solved clean."""
    pattern: str
    examples: int
    solved: int
    clean: int
    tries: int
    hints: int
    solutions: int
    practice: int = 0
    drilled: int = 0
    drilled_clean: int = 0
    rating: StudentRating | None = None

    @property
    def mastered(self) -> bool:
        return self.examples > 0 and self.clean == self.examples


def ensure_progress_table(db: sqlite_utils.Database) -> None:
    """Create the progress tables if this catalogue (built before they existed) lacks them."""
    with db.conn:
        db.conn.execute(PROGRESS_SQL)
        db.conn.execute(RATINGS_SQL)


def _now() -> _dt.datetime:
    return _dt.datetime.now(_dt.UTC)


def record_progress(db: sqlite_utils.Database, entry: Entry, *, attempt: bool = False,
                    solved: bool = False, clean: bool = False, tries: int = 0, hints: int = 0,
                    solutions: int = 0) -> StudentRating | None:
    """Add to ``entry``'s progress, in one transaction (a locked database raises a
    :class:`CatalogueError` naming the file, and nothing is written).

    The entry's first result ever rates the user on its pattern, as a game against the
    entry's difficulty (:mod:`puzzles.rating`): won by a mate reached clean, lost by a wrong
    try, a hint or the solution shown before it.  Later results on the same entry (a second
    attempt, the solution learnt) do not count.  Returns the new rating when this call rated
    the user, else None."""
    now = _now()
    stamp = now.isoformat(timespec="seconds")
    values = [int(attempt), int(solved), int(solved and clean), tries, hints, solutions]
    outcome = solved or tries > 0 or hints > 0 or solutions > 0
    rated = None
    try:
        with db.conn:
            if not db.conn.in_transaction:
                db.conn.execute("BEGIN IMMEDIATE")
            before = db.conn.execute(
                "SELECT solved + tries + hints + solutions FROM progress WHERE kind = ? AND "
                "entry_id = ?", [entry.kind, entry.id]).fetchone()
            first_result = outcome and (before is None or before[0] == 0)
            db.conn.execute(
                "INSERT INTO progress (kind, entry_id, pattern_id, attempts, solved, clean, "
                "tries, hints, solutions, last_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (kind, entry_id) DO UPDATE SET attempts = attempts + excluded."
                "attempts, solved = solved + excluded.solved, clean = clean + excluded.clean, "
                "tries = tries + excluded.tries, hints = hints + excluded.hints, solutions = "
                "solutions + excluded.solutions, last_at = excluded.last_at",
                [entry.kind, entry.id, entry.pattern, *values, stamp])
            if first_result and entry.pattern and entry.rating is not None:
                won = solved and clean and not (tries or hints or solutions)
                rated = update(_student_rating(db, entry.pattern, now), entry.rating, won)
                db.conn.execute(
                    "INSERT OR REPLACE INTO pattern_ratings VALUES (?, ?, ?, ?, ?, ?)",
                    [entry.pattern, rated.rating, rated.deviation, rated.games, rated.wins,
                     stamp])
    except sqlite3.OperationalError as error:
        raise database_error(db, error, "the progress was not saved") from None
    return rated


def _aged_rating(row: Sequence[Any], now: _dt.datetime) -> StudentRating:
    """A ``pattern_ratings`` row (without its pattern) as it stands ``now``."""
    rating, deviation, games, wins, last_at = row
    days = (now - _dt.datetime.fromisoformat(last_at)).total_seconds() / 86400
    return aged(StudentRating(rating, deviation, games, wins), days)


def _student_rating(db: sqlite_utils.Database, pattern: str,
                    now: _dt.datetime) -> StudentRating:
    row = db.execute("SELECT rating, deviation, games, wins, last_at FROM pattern_ratings "
                     "WHERE pattern_id = ?", [pattern]).fetchone()
    return StudentRating() if row is None else _aged_rating(row, now)


def student_ratings(db: sqlite_utils.Database) -> dict[str, StudentRating]:
    """The user's rating on every pattern practised (its deviation widened by the time since
    the last result), by pattern id."""
    if "pattern_ratings" not in db.table_names():
        return {}
    now = _now()
    return {row[0]: _aged_rating(row[1:], now) for row in db.execute(
        "SELECT pattern_id, rating, deviation, games, wins, last_at FROM pattern_ratings")}


def entry_progress(db: sqlite_utils.Database) -> dict[tuple[str, int], tuple[int, int]]:
    """``(kind, id) -> (solved, clean)`` for every entry practised."""
    return {(kind, entry_id): (solved, clean) for kind, entry_id, solved, clean in db.execute(
        "SELECT kind, entry_id, solved, clean FROM progress")}


def pattern_progress(db: sqlite_utils.Database) -> dict[str, PatternProgress]:
    """Every kill pattern's progress (see :class:`PatternProgress`), by pattern id."""
    rows = db.execute(
        "SELECT e.pattern_id, count(*), sum(coalesce(g.solved, 0) > 0), "
        "sum(coalesce(g.clean, 0) > 0), sum(coalesce(g.tries, 0)), sum(coalesce(g.hints, 0)), "
        "sum(coalesce(g.solutions, 0)) FROM examples e LEFT JOIN progress g "
        "ON g.kind = 'example' AND g.entry_id = e.id GROUP BY e.pattern_id").fetchall()
    drills = {row[0]: row[1:] for row in db.execute(
        "SELECT x.pattern_id, count(*), sum(coalesce(g.attempts, 0) > 0), "
        "sum(coalesce(g.clean, 0) > 0) FROM practice x LEFT JOIN progress g "
        "ON g.kind = 'practice' AND g.entry_id = x.id GROUP BY x.pattern_id")} \
        if "practice" in db.table_names() else {}
    ratings = student_ratings(db)
    progress = {}
    for pattern, examples, solved, clean, tries, hints, solutions in rows:
        practice, drilled, drilled_clean = drills.get(pattern, (0, 0, 0))
        progress[pattern] = PatternProgress(pattern, examples, solved, clean, tries, hints,
                                            solutions, practice, drilled, drilled_clean,
                                            ratings.get(pattern))
    return progress


def next_puzzle(db: sqlite_utils.Database, after: Entry | None = None) -> Entry | None:
    """The puzzle to practise next.

    The patterns are taken in the source order, each as a lesson then a drill: its first
    example not yet solved clean; once all are, :data:`PRACTICE_ROUND` of its practice
    positions, each the one not yet solved clean whose difficulty is nearest the user's
    rating on the pattern (one not tried yet first).  When every pattern has had its lesson
    and drill, the drill goes on with the pattern the user is weakest at (lowest rating),
    near his level; when nothing is left unsolved, the example or practice position
    practised longest ago.  ``after`` (the one
    just practised) is not picked again unless it is the only one."""
    progress = pattern_progress(db)
    ratings = {pattern: p.rating for pattern, p in progress.items() if p.rating is not None}
    examples = db.execute(
        "SELECT 'example', e.id, e.pattern_id, coalesce(g.clean, 0), g.last_at, e.rating "
        "FROM examples e JOIN patterns p ON p.id = e.pattern_id LEFT JOIN progress g "
        "ON g.kind = 'example' AND g.entry_id = e.id ORDER BY p.rowid, e.id").fetchall()
    drills = db.execute(
        "SELECT 'practice', x.id, x.pattern_id, coalesce(g.clean, 0), g.last_at, x.rating, "
        "coalesce(g.attempts, 0) "
        "FROM practice x JOIN patterns p ON p.id = x.pattern_id LEFT JOIN progress g "
        "ON g.kind = 'practice' AND g.entry_id = x.id ORDER BY p.rowid, x.id").fetchall() \
        if "practice" in db.table_names() else []
    skip = (after.kind, after.id) if after is not None else None
    choices = [row for row in examples if row[:2] != skip] or examples
    drill_choices = [row for row in drills if row[:2] != skip]
    if not choices:
        return None

    def nearest(pattern: str) -> Any:
        """The pattern's unsolved practice position nearest the user's level on it, one not
        tried yet first."""
        level = ratings.get(pattern, StudentRating()).rating
        open_drills = [row for row in drill_choices if row[2] == pattern and not row[3]]
        return min(open_drills, key=lambda row: (row[6] > 0, abs(row[5] - level), row[1]),
                   default=None)

    order = list(dict.fromkeys(row[2] for row in examples))
    for pattern in order:
        lesson = [row for row in choices if row[2] == pattern and not row[3]]
        if lesson and not progress[pattern].mastered:
            return get_entry(db, lesson[0][0], lesson[0][1])
        if progress[pattern].drilled < PRACTICE_ROUND:
            drill = nearest(pattern)
            if drill is not None:
                return get_entry(db, drill[0], drill[1])
    weakest = sorted(order, key=lambda p: (ratings.get(p, StudentRating()).rating,
                                           order.index(p)))
    for pattern in weakest:
        drill = nearest(pattern)
        if drill is not None:
            return get_entry(db, drill[0], drill[1])
    chosen = min(choices + drill_choices, key=lambda row: row[4] or "")
    return get_entry(db, chosen[0], chosen[1])
