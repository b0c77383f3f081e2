"""Fuzz harnesses for the front ends (issue 36): the command line's argument vectors and the
web API's queries.  The engine's command sequences have their own harness.

* ``argv``: argument vectors built from the real parser's commands and options, with values
  from pools of good, bad and boundary words, run in this process through
  :func:`tui.cli.main`.  Every case must end as a user expects: a return status 0 or 1, or
  argparse's exit 0 (help) or 2 (usage); any exception escaping ``main`` is a finding.
  The front ends for other programs (``studio``, ``engine``, ``tb serve``) are left out,
  and the values keep each search and build small (a depth of at most 3, tables of at most
  four pieces, searches of 0.2 s, no Dask cluster).
* ``web``: requests to the Starlette application over its in-process test client: random
  paths, methods and query strings, FENs mutated from real ones.  Every answer is JSON, and
  its status 200, 400, 404 or 405, never 500.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import tempfile
import warnings
from pathlib import Path

from fuzz_harnesses import SEEDS, _mutated_fen

FRONT_ENDS_FOR_PROGRAMS = {"studio", "engine", "serve"}
# Dask clusters: starting one, or waiting for one that is not there, takes seconds each
# (tests/test_cluster.py and test_boundaries.py take those paths).
NOT_DRAWN = {"--cluster", "--workers"}
NUMBERS = ["0", "1", "2", "3", "-1", "1.5", "x", "", "1e3", "nan", "inf", "-inf",
           "99999999999999999999", "9223372036854775807", "9223372036854775808", "٣", " 2"]
MATERIALS = ["KRK", "KNK", "KPK", "KK", "KAK", "K", "", "XYZ", "KRRRK", "krk", "KRK KNK",
             "KRRNNCCPPPPPAABBKRRNNCCPPPPPAABB", "KRKAA"]
WORDS = ["", "-", "--", "x", "马后炮", "适情雅趣:7", "适情雅趣:0", "1", "999999", "mine", "all",
         "examples", "compositions", "collections", "patterns", "a0a9", "车一平二", "\t",
         "-h", "--json", "--bogus", "=", "'", '"', "\\", "\x00"]
SUFFIXES = [".pgn", ".fen", ".txt", ".xqf", ".dhtml", ".svg", ".png", ".pdf", ".html", ".json",
            ".bogus", ""]
# Values that would start long work: not drawn for these options.
SMALL = {"--seconds": ["0.2", "0.1", "-1", "x", "inf", "1e300"],
         "--verify-seconds": ["0.2", "-1", "x"],
         "--nodes": ["1", "1000", "20000", "-1", "x", "99999999999999999999"],
         "--threads": ["1", "2", "0", "1025", "x"],
         "--max-moves": ["1", "2", "3", "0", "-1", "10001", "x"],
         "--moves": ["1", "2", "3", "0", "10001", "x"],
         "--table-bits": ["2", "10", "1", "35", "x"], "--trap-moves": ["1", "0", "x"],
         "--line-plies": ["1", "4", "0", "x"], "--scale": ["0.1", "1", "20", "0", "21", "x",
                                                            "nan"],
         "--port": ["0", "65536", "-1", "x"], "--occurrences": ["1", "2", "3", "1001", "x"]}


def _leaf_commands(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()):
    """(words, parser) of every command the help lists, down to the actions."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            listed = {choice.dest for choice in action._choices_actions}
            for name, sub in action.choices.items():
                if name in listed and name not in FRONT_ENDS_FOR_PROGRAMS:
                    yield from _leaf_commands(sub, (*prefix, name))
            return
    yield prefix, parser


def _value(rng: random.Random, action: argparse.Action, work: Path) -> str:
    option = max(action.option_strings, key=len) if action.option_strings else action.dest
    if option in SMALL:
        return rng.choice(SMALL[option])
    if action.choices:
        return rng.choice([*map(str, action.choices), "nosuch", ""])
    name = (action.metavar or action.dest or "").lower()
    if "fen" in name:
        return _mutated_fen(rng) if rng.random() < 0.5 else rng.choice(SEEDS)
    if "material" in name:
        return rng.choice(MATERIALS)
    if "depth" in name:
        return rng.choice(["0", "1", "2", "3", "-1", "65", "x", "99999999999999999999"])
    if name in ("tables", "dir", "db", "file", "output", "o") or "file" in name:
        return str(work / f"out{rng.randrange(3)}{rng.choice(SUFFIXES)}") \
            if rng.random() < 0.8 else rng.choice(["", "/", "/nonexistent/dir/x", str(work)])
    if rng.random() < 0.6:
        return rng.choice(NUMBERS)
    return rng.choice(WORDS)


def random_argv(rng: random.Random, commands, work: Path) -> list[str]:
    words, parser = rng.choice(commands)
    argv = list(words)
    optionals = [a for a in parser._actions if a.option_strings and a.dest != "help"
                 and not NOT_DRAWN.intersection(a.option_strings)]
    positionals = [a for a in parser._actions if not a.option_strings
                   and not isinstance(a, argparse._SubParsersAction)]
    for action in positionals:
        count = 1 if action.nargs in (None, "?") else rng.randrange(0, 4)
        if rng.random() < 0.1:
            count = 0               # a missing argument
        argv.extend(_value(rng, action, work) for _ in range(count))
    for action in rng.sample(optionals, k=min(len(optionals), rng.randrange(0, 5))):
        argv.append(rng.choice(action.option_strings))
        if action.nargs != 0:
            argv.append(_value(rng, action, work))
    if rng.random() < 0.1:
        argv.insert(rng.randrange(len(argv) + 1), rng.choice(WORDS))
    # Keep searches and builds small whatever else was drawn.
    if words and words[0] == "problem" and "--seconds" not in argv:
        argv += ["--seconds", "0.2"]
    if words and words[0] == "catalogue" and words[-1] == "verify":
        argv += ["--seconds", "0.2", "--numbers", "1-2"]
    if words[-1:] == ("perft",) and len(argv) > 3 and argv[3].isdigit() and int(argv[3]) > 3:
        argv[3] = "3"
    return argv


@contextlib.contextmanager
def _private_home():
    """A fresh table directory and catalogue for the run (the user's are never touched)."""
    with tempfile.TemporaryDirectory() as folder:
        saved = {key: os.environ.get(key) for key in ("XQSTUDIO_TABLES", "XQSTUDIO_CATALOGUE")}
        os.environ["XQSTUDIO_TABLES"] = str(Path(folder) / "tables")
        os.environ["XQSTUDIO_CATALOGUE"] = str(Path(folder) / "catalogue.sqlite")
        try:
            yield Path(folder)
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


def fuzz_argv(rng: random.Random, cases: int) -> None:
    from tui.cli import build_parser, main

    commands = list(_leaf_commands(build_parser()))
    with _private_home() as work:
        previous = os.getcwd()
        os.chdir(work)                  # relative outputs land in the temporary folder
        try:
            for _ in range(cases):
                argv = random_argv(rng, commands, work)
                out, err = io.StringIO(), io.StringIO()
                try:
                    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                        status = main(argv)
                except SystemExit as exit:
                    assert exit.code in (0, 2), f"{argv!r}: exit {exit.code}: {err.getvalue()}"
                    continue
                except BaseException as error:
                    raise AssertionError(f"{argv!r}: {type(error).__name__}: {error}") from error
                assert status in (0, 1), f"{argv!r}: returned {status}: {err.getvalue()}"
                if status == 1:     # a negative answer (stdout) or an error (stderr)
                    assert (out.getvalue() + err.getvalue()).strip(), \
                        f"{argv!r}: exit 1 with nothing said"
        finally:
            os.chdir(previous)


PATHS = ["/", "/xiangqi", "/xiangqi/", "/XIANGQI", "/nosuch", "//", "/xiangqi/..", "/%00",
         "/xiangqi%3Ffen=x", "/favicon.ico", "/" + "a" * 300]
METHODS = ["GET", "GET", "GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH"]


def _query(rng: random.Random) -> dict | str:
    choice = rng.random()
    if choice < 0.5:
        fen = _mutated_fen(rng) if rng.random() < 0.7 else rng.choice(SEEDS)
        return {"fen": fen.replace(" ", rng.choice([" ", "_", "+", "%20", "__"]))}
    if choice < 0.7:
        return {"fen": "".join(rng.choice("rnbakcpRNBAKCP0123456789/ wb-_%\x00é车")
                               for _ in range(rng.randrange(0, 120)))}
    if choice < 0.85:
        return "&".join(rng.choice(["fen", "fen=", "fen=%", "fen=%zz", "x=1", "fen[]=1", "=",
                                    "&", "fen=3k5/9/9/9/9/9/9/9/9/R3K4_w"])
                        for _ in range(rng.randrange(0, 4)))
    return {}


def fuzz_web(rng: random.Random, cases: int) -> None:
    with warnings.catch_warnings():     # Starlette would rather have httpx2: not a finding
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    from tablebases.build import build
    from tui.frontends.web import TablebaseService, create_app

    with tempfile.TemporaryDirectory() as folder:
        build("KRK", folder, log=lambda line: None)
        service = TablebaseService(folder, cache_size=16)
        client = TestClient(create_app(service), raise_server_exceptions=True)
        try:
            for _ in range(cases):
                method, path, query = rng.choice(METHODS), rng.choice(PATHS), _query(rng)
                where = f"{method} {path} {query!r}"
                try:
                    response = client.request(method, path, params=query)
                except Exception as error:          # the application raised
                    raise AssertionError(f"{where}: {type(error).__name__}: {error}") from error
                assert response.status_code in (200, 400, 404, 405), \
                    f"{where}: status {response.status_code}: {response.text[:200]}"
                if method != "HEAD":
                    document = json.loads(response.text)
                    assert response.status_code == 200 or document.get("error"), \
                        f"{where}: {response.status_code} without an error: {document}"
        finally:
            client.close()
            service.close()


FRONT_END_HARNESSES = {"argv": fuzz_argv, "web": fuzz_web}
