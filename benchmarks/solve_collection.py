"""Solve every composition of 《适情雅趣》 and write the verdicts the catalogue records.

    python benchmarks/solve_collection.py [--any-seconds 60] [--jobs 2] [--numbers 1-40,316]
    python benchmarks/solve_collection.py --any-seconds 0 --any-nodes 1000000 --jobs 2
    python benchmarks/solve_collection.py --tables DIR ...    # tablebases answer the leaves
    python benchmarks/solve_collection.py --tables DIR --build-tables 15 ...  # build some first
    python benchmarks/solve_collection.py --cluster tcp://HOST:8786 ...   # on a Dask cluster
    python benchmarks/solve_collection.py --workers 2 ...     # on a Dask LocalCluster here
    python benchmarks/solve_collection.py --refute-recorded --refute-seconds 0 \
        --refute-nodes 5000000 --jobs 2        # only refute the recorded unproven wins
    python benchmarks/solve_collection.py --numbers 431-438 --update ...  # those rows again
    python benchmarks/solve_collection.py --resume run.tsv ...    # kill it, rerun: it goes on
    python benchmarks/solve_collection.py --from-resume run.tsv   # the verdicts from its rows
    python benchmarks/solve_collection.py --sample --any-seconds 0 --any-nodes 5000000 \
        --refute-seconds 0 --refute-nodes 1000000 --jobs 2 --resume sample.tsv  # the 41

Each position is first solved as a continuous-check problem (every Red move checks, up to
``--checks-moves`` moves, ``--checks-seconds`` each); if that proves no such mate, quiet moves
are allowed (λ-search, then full width) up to ``--any-moves`` moves within ``--any-seconds``;
with ``--tables DIR`` the tables there answer every leaf whose material they cover (the figures
then say how many leaves they answered); ``--build-tables MINUTES`` first builds there the
table of every composition's material (with its sub-tables) whose build is estimated at MINUTES
or less on two threads, so that the table set behind the verdicts is named by the command, not
by what a machine happened to have built. Compositions whose titles say 和 are draw studies:
they get the draw stipulation and are not searched here (their analysis is a separate task).
Each search runs in one process (``--threads N``: N processes sharing its table, the node
budgets counting all of them); ``--jobs`` runs that many problems at once; ``--cluster
ADDRESS`` (a ``dask scheduler``) or ``--workers N`` (a LocalCluster here) makes each problem a
Dask task instead (``puzzles.cluster``; the extra ``xqstudio[cluster]``), the verdicts
collected by this process and the file written once at the end, as without a cluster.

``--resume FILE`` makes a run that survives interruptions: each problem's row is appended to
FILE as soon as it finishes (by this process, one whole row at a time, flushed and synced to
the disk, whatever ``--jobs`` or cluster), and the problems already in FILE are not solved
again, so the same command run again after a kill goes on where it stopped (a row cut short
by the kill is left out and solved again; Ctrl-C stops the searches at once), and
``--numbers`` can take the book in slices; FILE is locked while a run appends to it.  Its header
(lines "# setting NAME=VALUE", written once, when FILE is new) records what decides the rows:
the budgets and bounds, the tables (directory and the names of its tables) and a digest of the
solver's source; a run whose settings differ is refused, naming each setting that differs.
Its rows: number, stipulation, verdict, moves, exact (yes or no for a proof), order,
main_line (ICCS), nodes, seconds, tb_leaves, threat_tests (all the problem's searches) and
ran_out: where a budget ran out ("checks", "order N" or "full width" for the quiet-move search,
"line", "refutation"; several joined with "; "), "" if none did.  When the run ends, the rows of
all the problems chosen (those from FILE too) make the summary and the verdicts file, as in a
run without ``--resume``.  ``--from-resume FILE`` solves nothing: the verdicts file is written
from FILE's rows (the same replay check of every line, the same summary) if FILE has every
problem chosen (all 551, or ``--numbers``); if some are missing it says how many and which,
writes nothing and exits with status 1.  ``--from-resume FILE --update`` puts FILE's rows (of
``--numbers`` if given, else all it has) in the verdicts file, the other rows kept.
``--output PATH`` reads (``--update``, ``--refute-recorded``) and writes that verdicts file
instead.  ``--sample``: the development sample, the 41 problems of :data:`SAMPLE` (every
seventh of the 281 quiet-move wins; like ``--numbers``, no verdicts file written without
``--update``).

Writes puzzles/data/shiqingyaqu551_verdicts.tsv (number, stipulation, verdict, moves,
order, main_line, budget: "budget 5,000,000 nodes", what the verdict's search had) unless
``--no-write`` or ``--numbers`` (without ``--update``) is given:
verdict "mate" (shortest length proven), "mate within N" (a mate proven with its line, its
minimality not within the budget), "no mate within N" (the full-width search proved none),
"unproven", "refuted" (no mate proven, and Black mates in ``moves`` whatever Red plays: the
position is lost as set; its line is Red's longest resistance, then Black's mate;
``--refute-seconds``) or "refuted within N", "table draw" (a table covers the position and
gives Red neither a win nor a loss, however many moves), or for draw studies "unverified".
With a table, the bound of the quiet-move search (and of the refutation) is the table's mate
if that is longer.  Prints one line per problem and the figures of the benchmark: the share
of the wins without a continuous-check solution proved with a main line and with the exact
length, the continuous-check ones still exact, the refuted ones and the table draws.
"""
from __future__ import annotations

import argparse
import csv
import fcntl
import hashlib
import os
import re
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import IO

from puzzles.catalogue import composition_numbers, replay_fault
from puzzles.verification import (
    TABLE_DRAW,
    VerifySettings,
    verify_composition,
    with_refutation,
)
from solver.search import DEFAULT_PROPOSER, DEFAULT_PROPOSER_SHARE, PROPOSERS
from tablebases import open_tablebase
from xiangqi import Board, Move

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "puzzles" / "data" / "shiqingyaqu551.fen"
TARGET = ROOT / "puzzles" / "data" / "shiqingyaqu551_verdicts.tsv"
# More pieces than this never fit a table here (and their index would not fit 64 bits).
MAX_TABLE_PIECES = 9
COLUMNS = ["number", "stipulation", "verdict", "moves", "order", "main_line", "budget"]
# A resume file's rows: the verdicts file's columns and what the search spent.  ``exact``: yes
# or no for a proven mate or refutation; ``nodes``, ``seconds``, ``tb_leaves``,
# ``threat_tests``: all the searches of the problem together; ``ran_out``: where a budget ran
# out (see :func:`puzzles.verification.ran_out`), "" if none did.
RESUME_COLUMNS = ["number", "stipulation", "verdict", "moves", "exact", "order", "main_line",
                  "nodes", "seconds", "tb_leaves", "threat_tests", "ran_out"]
# The options a resume file records in its header and a resumed run must repeat: they decide
# the rows.  (Not --jobs, --numbers, --sample, --cluster: they decide only which and where.)
RESUME_SETTINGS = ["checks_seconds", "checks_moves", "any_seconds", "any_moves", "any_nodes",
                   "orders", "proposer_share", "proposer", "threads", "refute_seconds",
                   "refute_nodes", "refute_moves", "tables"]
RESUME_TITLE = "# solve_collection.py resume file: one row per problem, appended as it finishes"
# The development sample: every seventh of the 281 quiet-move wins (stipulation "win" in the
# verdicts file, in the book's order, the first included): the 41 of the session-6 to
# session-13 figures (`--sample`; rows in benchmarks/results/solver.tsv).
SAMPLE = [4, 37, 63, 95, 124, 176, 195, 228, 249, 275, 285, 293, 300, 307, 314, 321, 328, 336,
          344, 351, 358, 366, 373, 380, 387, 394, 401, 408, 415, 422, 429, 436, 443, 450, 457,
          464, 481, 495, 506, 528, 549]


def problems() -> list[tuple[int, str, str]]:
    """(number, FEN, title) of every composition, in the book's order."""
    text = SOURCE.read_text(encoding="utf-8-sig")
    fens = re.findall(r'\[FEN "([^"]+)"\]', text)
    titles = re.findall(r'\[EVENT "([^"]+)"\]', text)
    return [(number, fen, title) for number, (fen, title) in enumerate(zip(fens, titles), 1)]


def chosen_positions(numbers: str = "") -> dict[int, str]:
    """{number: FEN} of the compositions ``numbers`` names (comma-separated, as the
    benchmarks' ``--numbers`` takes them), or of the development sample when it names none.

    >>> list(chosen_positions("37, 95"))
    [37, 95]
    """
    fens = {number: fen for number, fen, _ in problems()}
    return {number: fens[number]
            for number in [int(n) for n in numbers.split(",") if n.strip()] or SAMPLE}


def is_draw_study(title: str) -> bool:
    """The title names the result: 《适情雅趣》's endgame studies say 和 (e.g. 马双兵和双卒双士)."""
    return "和" in title


def cheap_tables(every: list[tuple[int, str, str]], minutes: float) -> list[str]:
    """The materials of the compositions (not the draw studies) whose tables build within
    ``minutes`` on two threads by the builder's estimate (sub-tables not counted), smallest
    first.

    >>> cheap_tables([(1, "3k5/9/9/9/9/9/9/9/4R4/4K4 w", "单车"),
    ...               (2, "3k5/9/9/9/9/9/9/9/4R4/4K4 w", "单车和")], 1.0)
    ['KRK']
    """
    from tablebases.build import estimated_seconds
    from tablebases.material import Material, indexer_for

    sizes: dict[str, int] = {}
    for _number, fen, title in every:
        if is_draw_study(title):
            continue
        material = Material.from_board(Board(fen)).canonical()
        if material.piece_count() > MAX_TABLE_PIECES or str(material) in sizes:
            continue
        size = indexer_for(material).size
        if estimated_seconds(size, 2, material=material) <= minutes * 60:
            sizes[str(material)] = size
    return sorted(sizes, key=lambda name: (sizes[name], name))


def settings_of(args: argparse.Namespace) -> VerifySettings:
    """The budgets and bounds of a problem's searches, as the command line sets them."""
    return VerifySettings(checks_seconds=args.checks_seconds, checks_moves=args.checks_moves,
                          any_seconds=args.any_seconds, any_nodes=args.any_nodes,
                          any_moves=args.any_moves,
                          refute=bool(args.refute_seconds or args.refute_nodes),
                          refute_seconds=args.refute_seconds, refute_nodes=args.refute_nodes,
                          refute_moves=args.refute_moves, orders=args.orders,
                          proposer_share=args.proposer_share, proposer=args.proposer,
                          threads=args.threads,
                          tables=args.tables)


def resume_row(number: int, verdict: dict) -> dict:
    """A row of this runner (:data:`RESUME_COLUMNS`) from a verdict of
    :func:`puzzles.verification.verify_composition`: no length or no proof as empty cells,
    ``exact`` as yes or no."""
    exact = verdict["exact"]
    return {"number": number, "stipulation": verdict["stipulation"],
            "verdict": verdict["verdict"],
            "moves": "" if verdict["moves"] is None else verdict["moves"],
            "exact": "" if exact is None or exact == "" else ("yes" if exact in (True, "yes")
                                                              else "no"),
            "order": verdict["order"], "main_line": verdict["main_line"],
            "nodes": int(verdict["nodes"] or 0), "seconds": float(verdict["seconds"] or 0.0),
            "tb_leaves": int(verdict["tb_leaves"] or 0),
            "threat_tests": int(verdict["threat_tests"] or 0), "ran_out": verdict["ran_out"]}


def verdict_of(task: tuple) -> dict:
    """One problem's row: a draw study "unverified" (its analysis is a task of its own),
    any other verified (:func:`puzzles.verification.verify_composition`)."""
    number, fen, title, args = task
    if is_draw_study(title):
        return {"number": number, "stipulation": "draw", "verdict": "unverified", "moves": "",
                "exact": "", "order": "", "main_line": "", "nodes": 0, "seconds": 0.0,
                "tb_leaves": 0, "threat_tests": 0, "ran_out": ""}
    return resume_row(number, verify_composition(fen, "win", settings_of(args)))


def refutation_of(task: tuple) -> dict:
    """``--refute-recorded``: a recorded row of a win without a proven mate, refuted if the
    refutation proves within its budget that Black mates whatever Red plays, else as it was."""
    row, fen, args = task
    start = time.perf_counter()
    settings = settings_of(args)
    tables = open_tablebase(args.tables) if args.tables else None
    try:
        refuted = with_refutation(row, Board(fen), tables, settings)
    finally:
        if tables is not None:
            tables.close()
    return {**resume_row(row["number"], {**refuted, "seconds": 0.0}),
            "seconds": time.perf_counter() - start}


def recorded_rows(target: Path = TARGET) -> list[dict]:
    with target.open(encoding="utf-8", newline="") as handle:
        return [{**row, "number": int(row["number"]), "seconds": 0.0, "tb_leaves": 0}
                for row in csv.DictReader(handle, delimiter="\t")]


def summary(rows: list[dict], elapsed: float) -> list[str]:
    quiet = [r for r in rows if r["stipulation"] == "win"]
    checks = [r for r in rows if r["stipulation"] == "checks"]
    proved = [r for r in quiet if r["verdict"].startswith("mate")]
    with_line = [r for r in proved if r["main_line"]]
    exact = [r for r in quiet if r["verdict"] == "mate"]
    checks_exact = [r for r in checks if r["verdict"] == "mate"]

    def share(part: list, whole: list) -> str:
        return f"{len(part)} of {len(whole)} ({100.0 * len(part) / max(1, len(whole)):.1f}%)"

    seconds = sorted(r["seconds"] for r in quiet if r["verdict"].startswith("mate"))
    median = seconds[len(seconds) // 2] if seconds else 0.0
    return [
        f"{len(rows)} positions in {elapsed:.0f} s",
        f"continuous check: {share(checks_exact, checks)} exact",
        f"quiet-move wins (no continuous-check solution, title not 和): proved with a main "
        f"line {share(with_line, quiet)}, exact length {share(exact, quiet)}; median time of "
        f"a proof {median:.1f} s",
        "quiet-move proofs by order: " + ", ".join(
            f"{order or '-'}: {sum(1 for r in proved if r['order'] == order)}"
            for order in sorted({r["order"] for r in proved})),
        f"refuted (lost for Red as set: Black mates whatever Red plays): "
        f"{share([r for r in quiet if r['verdict'].startswith('refuted')], quiet)}",
        f"drawn by their tables (not a win as set, however long): "
        f"{share([r for r in quiet if r['verdict'] == TABLE_DRAW], quiet)}",
        f"draw studies (title says 和): {sum(1 for r in rows if r['stipulation'] == 'draw')}",
        f"tablebase leaves: {sum(r['tb_leaves'] for r in rows):,} in "
        f"{sum(1 for r in rows if r['tb_leaves'])} problems",
    ]


def line_fault(row: dict, fen: str) -> str | None:
    """What is wrong with a proved row's main line, or None: it must replay to mate (checking
    on every Red move of a continuous-check problem) in the stated number of moves (at most
    that many for "mate within N": its defence is not proven the longest)."""
    try:
        moves = [Move.from_iccs(text) for text in row["main_line"].split()]
    except ValueError as error:
        return str(error)
    refuted = row["verdict"].startswith("refuted")
    fault = replay_fault(Board(fen), moves, row["stipulation"] == "checks" and not refuted,
                         refutation=refuted)
    if fault is not None:
        return fault
    # A refutation's line is Red's move, then Black's mate: two plies a Black move.
    stated = 2 * int(row["moves"]) - (0 if refuted else 1)
    if len(moves) > stated or (row["verdict"] in ("mate", "refuted")
                               and len(moves) != stated):
        return f"the line takes {len(moves)} plies, the verdict {stated}"
    return None


def write(rows: list[dict], target: Path = TARGET) -> None:
    """Replace the verdicts file: a temporary file in its directory, renamed when complete."""
    fd, temp = tempfile.mkstemp(dir=target.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, COLUMNS, delimiter="\t", lineterminator="\n",
                                    extrasaction="ignore")
            writer.writeheader()
            writer.writerows(rows)
        os.replace(temp, target)
    except BaseException:
        os.unlink(temp)
        raise


def run_settings(args: argparse.Namespace) -> dict[str, str]:
    """What decides a run's rows, as a resume file's header records it: the budgets and
    bounds (:data:`RESUME_SETTINGS`), the tables (their directory and the names of the tables
    there) and the solver's source (a digest of solver/*.py, *.pyx, *.pxd)."""
    settings = {name: str(getattr(args, name) or "") if name == "tables"
                else str(getattr(args, name)) for name in RESUME_SETTINGS}
    names = sorted(p.name for p in Path(args.tables).glob("*.xqtb")) if args.tables else []
    settings["table_set"] = (f"{len(names)} tables "
                             f"{hashlib.sha1(' '.join(names).encode()).hexdigest()[:12]}"
                             if args.tables else "")
    digest = hashlib.sha1()
    for path in sorted((ROOT / "solver").glob("*.py*")):
        if path.suffix in (".py", ".pyx", ".pxd"):
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    settings["solver_source"] = digest.hexdigest()[:12]
    return settings


class ResumeError(Exception):
    """A resume file that cannot be read or does not fit the run."""


def read_resume(path: Path) -> tuple[dict[str, str], dict[int, dict], int]:
    """(settings, rows by number, the length of the complete part) of a resume file.  A last
    line without its newline (the run was killed while writing it) is left out of all three;
    a file without its line of column names (new, or killed while writing its header) has
    none of them."""
    data = path.read_bytes()
    complete = data.rfind(b"\n") + 1
    lines = data[:complete].decode("utf-8").splitlines()
    settings: dict[str, str] = {}
    rows: dict[int, dict] = {}
    header: list[str] | None = None
    for count, line in enumerate(lines, 1):
        if line.startswith("#"):
            if line.startswith("# setting ") and "=" in line:
                name, _, value = line[len("# setting "):].partition("=")
                settings[name] = value
            continue
        fields = line.split("\t")
        if header is None:
            header = fields
            if header != RESUME_COLUMNS:
                raise ResumeError(f"{path}: line {count} is not the header of a resume file "
                                  f"({chr(9).join(RESUME_COLUMNS)})")
            continue
        if len(fields) != len(header):
            raise ResumeError(f"{path}: line {count} has {len(fields)} fields, not "
                              f"{len(header)}")
        row: dict = dict(zip(header, fields))
        try:
            row.update(number=int(row["number"]), nodes=int(row["nodes"]),
                       seconds=float(row["seconds"]), tb_leaves=int(row["tb_leaves"]),
                       threat_tests=int(row["threat_tests"]))
        except ValueError as error:
            raise ResumeError(f"{path}: line {count}: {error}") from None
        if row["number"] in rows:
            raise ResumeError(f"{path}: line {count}: No. {row['number']} a second time")
        rows[row["number"]] = row
    if header is None:
        title = RESUME_TITLE.encode()
        if not (data.startswith(title) or title.startswith(data)):
            raise ResumeError(f"{path}: not a resume file (its first line is not "
                              f"{RESUME_TITLE!r})")
        return {}, {}, 0        # new, or its header unfinished: written again
    return settings, rows, complete


class ResumeFile:
    """A resume file open for appending: its header (settings, then the columns) written
    once when it is new, one row per problem then, each flushed and synced to the disk before
    the next.  It is locked while open, so two runs never append to one file."""

    def __init__(self, path: Path, settings: dict[str, str]):
        self.path = path
        self.rows: dict[int, dict] = {}
        self.handle: IO[str] = path.open("a+", encoding="utf-8", newline="")
        try:
            fcntl.flock(self.handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.handle.close()
            raise ResumeError(f"{path}: another run is appending to it") from None
        try:
            self._open(settings)
        except BaseException:
            self.close()
            raise

    def _open(self, settings: dict[str, str]) -> None:
        stored, self.rows, complete = read_resume(self.path)
        if complete:
            differ = [f"{name} {stored.get(name, '(none)')!r} there, {settings.get(name)!r} now"
                      for name in sorted(set(stored) | set(settings))
                      if stored.get(name) != settings.get(name)]
            if differ:
                raise ResumeError(f"{self.path}: its rows were solved with other settings "
                                  f"({'; '.join(differ)}): use another file, or the settings "
                                  f"of the file")
        if complete < self.path.stat().st_size:
            if complete:
                print(f"{self.path}: an unfinished last row left out (the run was stopped "
                      f"while writing it)", flush=True)
            self.handle.truncate(complete)
        self.handle.seek(0, os.SEEK_END)
        if complete == 0:
            header = [RESUME_TITLE] + [f"# setting {name}={value}"
                                       for name, value in settings.items()]
            self._append("\n".join(header) + "\n" + "\t".join(RESUME_COLUMNS) + "\n")

    def _append(self, text: str) -> None:
        self.handle.write(text)
        self.handle.flush()
        os.fsync(self.handle.fileno())

    def append(self, row: dict) -> None:
        values = {**row, "seconds": f"{row['seconds']:.3f}"}
        self._append("\t".join(str(values.get(name, "")) for name in RESUME_COLUMNS) + "\n")
        self.rows[row["number"]] = row

    def close(self) -> None:
        self.handle.close()       # the lock goes with it


def on_cluster(tasks: list[tuple], args: argparse.Namespace, show) -> list[dict]:
    """The rows of ``tasks``, one Dask task each (keys from the problem and the budget, so two
    runs asking the same of one scheduler share the searches), in the order of ``tasks``."""
    import hashlib

    from puzzles.cluster import ClusterError, connect, dashboard_note, run_tasks

    budget = repr([args.checks_seconds, args.checks_moves, args.any_seconds, args.any_moves,
                   args.any_nodes, args.orders, args.tables, args.refute_seconds,
                   args.refute_nodes, args.refute_moves])
    token = "0" + hashlib.sha1(budget.encode()).hexdigest()[:11]
    try:
        with connect(args.cluster, args.workers) as client:
            print(f"on {args.cluster or f'a LocalCluster of {args.workers} workers'}; "
                  f"{dashboard_note(client, not args.cluster)}", flush=True)
            return run_tasks(client, verdict_of, [(task,) for task in tasks],
                             [f"solve-collection-{token}-{task[0]}" for task in tasks],
                             lambda i, row: show(row))
    except ClusterError as error:
        raise SystemExit(str(error)) from None


def number_ranges(numbers: list[int]) -> str:
    """``numbers`` (sorted) as ranges: "12-14, 40".

    >>> number_ranges([1, 2, 3, 7, 9, 10])
    '1-3, 7, 9-10'
    """
    parts: list[str] = []
    for number in numbers:
        if parts and int(parts[-1].split("-")[-1]) == number - 1:
            parts[-1] = f"{parts[-1].split('-')[0]}-{number}"
        else:
            parts.append(str(number))
    return ", ".join(parts)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    # Ten seconds: No. 7's exact mate in 20 takes 4.4 s alone and more on a shared machine
    # (at 4 s it came out "within 20" under load 6-8).
    parser.add_argument("--checks-seconds", type=float, default=10.0)
    parser.add_argument("--checks-moves", type=int, default=80)
    parser.add_argument("--any-seconds", type=float, default=60.0)
    parser.add_argument("--any-moves", type=int, default=30)
    parser.add_argument("--any-nodes", type=int, default=0,
                        help="node budget of a quiet-move search (0: none); unlike seconds, "
                             "the verdicts then do not depend on the machine or its load")
    parser.add_argument("--orders", type=int, default=3, help="λ orders before full width")
    parser.add_argument("--proposer-share", type=float, default=DEFAULT_PROPOSER_SHARE,
                        help="share of a quiet-move search's budget for the alpha-beta mate "
                             "finder whose moves df-pn tries first (0: none)")
    parser.add_argument("--proposer", choices=PROPOSERS, default=DEFAULT_PROPOSER,
                        help="the finder of --proposer-share: threats or eval")
    parser.add_argument("--threads", type=int, default=1,
                        help="processes of each problem's search, sharing one table (the node "
                             "budgets count all of them; with --jobs J, J x THREADS processes)")
    parser.add_argument("--refute-seconds", type=float, default=10.0,
                        help="a win without a proven mate: time to prove that Black mates "
                             "whatever Red plays (0 with --refute-nodes 0: no refutation)")
    parser.add_argument("--refute-nodes", type=int, default=0,
                        help="node budget of a refutation (0: none)")
    parser.add_argument("--refute-moves", type=int, default=30,
                        help="bound on Black's moves in a refutation")
    parser.add_argument("--refute-recorded", action="store_true",
                        help="only refute the recorded wins without a proven mate (the other "
                             "rows of the verdicts file are kept) and write the file again")
    parser.add_argument("--jobs", type=int, default=1, help="problems solved at once")
    parser.add_argument("--cluster", default=None, metavar="ADDRESS",
                        help="a Dask scheduler (tcp://host:8786): one task per problem")
    parser.add_argument("--workers", type=int, default=None, metavar="N",
                        help="a Dask LocalCluster of N single-thread workers here")
    parser.add_argument("--numbers", default=None,
                        help="e.g. 1-40,316 (implies --no-write, unless --update)")
    parser.add_argument("--sample", action="store_true",
                        help="the development sample: the 41 problems of SAMPLE (every seventh "
                             "quiet-move win; like --numbers, implies --no-write)")
    parser.add_argument("--update", action="store_true",
                        help="with --numbers: put their new rows in the verdicts file, the "
                             "other rows kept, and write it (with --from-resume alone: the "
                             "rows of the resume file)")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--output", default=None, metavar="PATH",
                        help=f"the verdicts file read (--update, --refute-recorded) and written "
                             f"(default: {TARGET.relative_to(ROOT)})")
    parser.add_argument("--resume", default=None, metavar="FILE",
                        help="append each problem's row to FILE as it finishes and skip the "
                             "problems already there (the settings must be FILE's)")
    parser.add_argument("--from-resume", default=None, metavar="FILE",
                        help="solve nothing: the verdicts from the rows of FILE (every problem "
                             "chosen must be there)")
    parser.add_argument("--tables", default=None, metavar="DIR",
                        help="tablebase directory whose tables answer the leaves (default: none, "
                             "so the verdicts do not depend on what a machine has built)")
    parser.add_argument("--build-tables", type=float, default=None, metavar="MINUTES",
                        help="first build into --tables every composition's table estimated "
                             "to build within MINUTES on two threads (with its sub-tables)")
    args = parser.parse_args(argv)
    if args.build_tables is not None and args.build_tables < 0:
        parser.error(f"--build-tables: minutes must be at least 0, not {args.build_tables}")
    if args.tables and not Path(args.tables).is_dir():
        parser.error(f"--tables: {args.tables} is not a directory")
    if args.tables:
        args.tables = str(Path(args.tables).resolve())     # the same path on every worker
    if args.sample and args.numbers:
        parser.error("--sample and --numbers: one or the other")
    if args.sample:
        args.numbers = ",".join(map(str, SAMPLE))
    if args.update and not (args.numbers or args.from_resume):
        parser.error("--update needs --numbers (the rows to solve again)")
    if args.update and args.refute_recorded:
        parser.error("--update and --refute-recorded: one or the other")
    if args.cluster and args.workers:
        parser.error("--cluster and --workers: one or the other")
    if args.build_tables is not None and not args.tables:
        parser.error("--build-tables needs --tables DIR (where to build them)")
    if args.resume and args.refute_recorded:
        parser.error("--resume and --refute-recorded: one or the other")
    if args.from_resume:
        for given, option in [(args.resume, "--resume"), (args.refute_recorded,
                              "--refute-recorded"), (args.cluster or args.workers,
                              "--cluster/--workers"), (args.build_tables is not None,
                              "--build-tables")]:
            if given:
                parser.error(f"--from-resume solves nothing: not with {option}")
    target = Path(args.output).resolve() if args.output else TARGET
    if not target.parent.is_dir():
        parser.error(f"--output: {target.parent} is not a directory")
    every = problems()
    chosen = set(composition_numbers(args.numbers) if args.numbers
                 else range(1, len(every) + 1))
    if args.build_tables is not None:
        from tablebases.build import build

        # The tables of the problems this run solves (all of the book's without --numbers).
        wanted = cheap_tables([problem for problem in every if problem[0] in chosen],
                              args.build_tables)
        print(f"tables built or present first ({len(wanted)}): {' '.join(wanted)}", flush=True)
        build(wanted, args.tables, threads=2, log=lambda line: print(line, flush=True))
    tasks: list[tuple] = [(number, fen, title, args) for number, fen, title in every
                          if number in chosen]
    solve_one = verdict_of
    recorded: dict[int, dict] = {}
    if args.refute_recorded:
        if not (args.refute_seconds or args.refute_nodes):
            parser.error("--refute-recorded needs a refutation budget (--refute-seconds or "
                         "--refute-nodes)")
        recorded = {row["number"]: row for row in recorded_rows(target)}
        fens = {number: fen for number, fen, _ in every}
        tasks = [(row, fens[number], args) for number, row in recorded.items()
                 if number in chosen and row["stipulation"] == "win"
                 and not row["verdict"].startswith(("mate", "refuted"))]
        solve_one = refutation_of
    start = time.perf_counter()
    rows: list[dict] = []
    resume: ResumeFile | None = None
    if args.from_resume:
        rows = rows_from_resume(Path(args.from_resume), chosen,
                                args.update and not args.numbers)
    elif args.resume:
        try:
            resume = ResumeFile(Path(args.resume), run_settings(args))
        except (OSError, ResumeError) as error:
            raise SystemExit(f"--resume: {error}") from None
        rows = [row for number, row in sorted(resume.rows.items()) if number in chosen]
        tasks = [task for task in tasks if task[0] not in resume.rows]
        print(f"{args.resume}: {len(rows)} of {len(chosen)} problems there, {len(tasks)} to "
              f"solve", flush=True)

    def show(row: dict) -> None:
        print(f"{row['number']:3d} {row['stipulation']:<6} {row['verdict']:<18} "
              f"{row['moves']!s:>3} {row['order']:>4} {row['seconds']:6.1f} s", flush=True)

    def record(row: dict) -> None:
        """A finished problem: shown, and in the resume file before the next is taken."""
        if resume is not None:
            resume.append(row)
        show(row)

    try:
        if args.from_resume:
            pass
        elif args.cluster or args.workers:
            if args.refute_recorded:
                parser.error("--refute-recorded runs here (--jobs), not on a cluster")
            if tasks:
                rows += on_cluster(tasks, args, record)
        elif tasks:
            rows += solved_here(solve_one, tasks, args.jobs, record)
    except KeyboardInterrupt:
        if resume is None:
            raise
        raise SystemExit(f"stopped: {len(resume.rows)} problems in {args.resume}; the same "
                         f"command goes on from there") from None
    finally:
        if resume is not None:
            resume.close()
    rows.sort(key=lambda row: row["number"])
    if args.update:
        recorded = {row["number"]: row for row in recorded_rows(target)}
    if args.refute_recorded or args.update:
        recorded.update((row["number"], row) for row in rows)
        rows = [recorded[number] for number in sorted(recorded)]
    fens = {number: fen for number, fen, _ in every}
    faults = [(row, fault) for row in rows
              if row["verdict"].startswith(("mate", "refuted"))
              and (fault := line_fault(row, fens[row["number"]])) is not None]
    for row, fault in faults:
        # The proof stands, but a line that does not show it is no answer to store: the
        # row is recorded as unproven (and the fault named) rather than the run lost.
        print(f"No. {row['number']}: {fault}; recorded as unproven (was {row['verdict']})")
        row.update(verdict="unproven", moves="", order="", main_line="")
    for line in summary(rows, time.perf_counter() - start):
        print(line)
    if faults:
        print(f"main lines failing the replay check: {len(faults)} "
              f"({', '.join(str(row['number']) for row, _ in faults)})")
    if not args.no_write and (args.update or not args.numbers):
        # The rows of this run say what budget their verdicts were reached within (the rows
        # kept from the verdicts file keep theirs).
        budgets = settings_of(args) if not args.from_resume else \
            settings_of(argparse.Namespace(**{**vars(args),
                                               **resume_budgets(Path(args.from_resume))}))
        for row in rows:
            if not row.get("budget") and row["stipulation"] != "draw":
                row["budget"] = budgets.budget_text(row["stipulation"])
        write(rows, target)
        print(f"-> {target}")


def solved_here(solve_one: Callable[[tuple], dict], tasks: list[tuple], jobs: int,
                record: Callable[[dict], None]) -> list[dict]:
    """The rows of ``tasks``, ``jobs`` at once in worker processes, ``record(row)`` called
    here (in this process, one row at a time) as each finishes; in the order they finish."""
    rows = []
    with ProcessPoolExecutor(max_workers=jobs, initializer=_die_with_parent) as pool:
        futures = [pool.submit(solve_one, task) for task in tasks]
        try:
            for future in as_completed(futures):
                rows.append(future.result())
                record(rows[-1])
        except BaseException:
            # Interrupted (Ctrl-C) or failed: the searches running are stopped now rather
            # than at the end of their budgets (they hold the GIL and see no signal).
            for future in futures:
                future.cancel()
            for process in list((getattr(pool, "_processes", None) or {}).values()):
                process.terminate()
            raise
    return rows


def _die_with_parent() -> None:
    """A worker ends when this process does, even if it is killed (Linux): a run stopped with
    ``kill -9`` leaves no search running on."""
    try:
        import ctypes
        import signal

        ctypes.CDLL(None).prctl(1, signal.SIGTERM)      # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def resume_budgets(path: Path) -> dict[str, float | int]:
    """The budgets a resume file's rows were solved within (its header's settings)."""
    settings, _, _ = read_resume(path)
    numbers: dict[str, float | int] = {}
    for name in ("checks_seconds", "any_seconds", "refute_seconds"):
        numbers[name] = float(settings.get(name) or 0)
    for name in ("any_nodes", "refute_nodes"):
        numbers[name] = int(settings.get(name) or 0)
    return numbers


def rows_from_resume(path: Path, chosen: set[int], present: bool) -> list[dict]:
    """``--from-resume``: the rows of ``chosen`` (every one of them, or the run stops saying
    how many are missing) from the resume file ``path``; with ``present``, its rows whatever
    they are."""
    try:
        settings, stored, _ = read_resume(path)
    except (OSError, ResumeError) as error:
        raise SystemExit(f"--from-resume: {error}") from None
    print(f"{path}: solved with " + (", ".join(f"{name} {value or '-'}"
                                              for name, value in settings.items()) or "?"))
    if present:
        chosen = set(stored)
    missing = sorted(chosen - set(stored))
    if missing or not chosen:
        print(f"{path}: {len(missing)} of {len(chosen)} problems missing (No. "
              f"{number_ranges(missing)}); nothing written", file=sys.stderr)
        raise SystemExit(1)
    return [dict(stored[number]) for number in sorted(chosen)]


if __name__ == "__main__":
    main()
