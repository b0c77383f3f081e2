"""Every ``xqstudio`` command the README (and docs/) shows, run as a user would type it.

The commands are read from the documents' ``sh`` blocks, in order (a later one may use what
an earlier one built: ``tb stats KRKAABB`` after ``tb build KRKAABB``), and run in a
temporary directory with their own tables and catalogue.  A placeholder (``"<FEN>"``,
``<moves>``) is replaced by a position the command can work on.  A command fails the test if
it prints a traceback, is not a command, or exits with a status other than the one the
documents promise (0, or 1 where they say a negative answer gives 1).  Where a ``text``
block follows a shell block, every line it shows (but "...") must be in what the block's
commands print.

A command marked ``[heavy]`` in its comment (minutes of work, or a Dask cluster) or
``[interactive]`` (it starts the studio) is not run: its words are parsed by the real parser,
so a renamed command or option still fails here.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tui.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
# The README, then the manual's pages in the site's order (mkdocs.yml's nav), as a reader
# meets them; a page the nav does not list comes last.
NAV = re.findall(r":\s*([\w-]+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"),
                 re.MULTILINE)
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"), key=lambda page: (
    NAV.index(page.name) if page.name in NAV else len(NAV), page.name))]
XQSTUDIO = str(Path(sys.executable).parent / "xqstudio")
HEAVY = "[heavy]"
INTERACTIVE = "[interactive]"
NOT_RUN = (HEAVY, INTERACTIVE)
# Where a document leaves the position to the reader: one each command can work on.
FENS = {
    "position judge": "4k4/9/R1n6/9/9/9/9/9/9/3K5 w",     # the README's own 长捉 example
    "position": "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
    "problem": "3ak4/4a4/9/9/9/9/9/9/9/3K4R w",             # K R vs K A A: mate in 3
    "draw": "4k4/9/9/9/9/9/9/B4n3/9/3K5 w",                 # the README's K B vs K N draw
}
MOVES = "a7a9 e9e8 a9a7 e8e9 a7a9 e9e8 a9a7 e8e9"
# The commands whose documented answer may be negative (exit status 1): a FEN check of a
# position with a fault.
NEGATIVE_OK = ("position check",)
SHELL_STOPS = {">", ">>", "&&", "||", "|", ";", "&"}
SAMPLE_PGN = """[Event "mine 1"]
[FEN "3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1"]

1. a0a9 1-0
"""


def documented_commands() -> list[tuple[str, int, str]]:
    """(document, line number, command) of every ``xqstudio`` line in an ``sh`` block, its
    continuation lines joined."""
    found = []
    for document in DOCUMENTS:
        in_shell, pending, start = False, "", 0
        for number, line in enumerate(document.read_text(encoding="utf-8").splitlines(), 1):
            if line.startswith("```"):
                in_shell = line.strip() == "```sh"
                continue
            if not in_shell:
                continue
            if pending:
                pending += " " + line.strip()
            elif line.startswith("xqstudio "):
                pending, start = line, number
            if pending and not pending.rstrip().endswith("\\"):
                found.append((document.name, start, pending))
                pending = ""
            elif pending:
                pending = pending.rstrip()[:-1]
    return found


def shown_outputs() -> dict[tuple[str, range], list[str]]:
    """What the documents show a shell block printing: a ``text`` block right after an
    ``sh`` block (blank lines between), keyed by (document, the sh block's line numbers),
    its lines other than "...", each with its spaces collapsed."""
    shown = {}
    for document in DOCUMENTS:
        lines = document.read_text(encoding="utf-8").splitlines()
        index = 0
        while index < len(lines):
            if lines[index].strip() != "```sh":
                index += 1
                continue
            end = lines.index("```", index + 1)
            after = end + 1
            while after < len(lines) and not lines[after].strip():
                after += 1
            if after < len(lines) and lines[after].strip() == "```text":
                close = lines.index("```", after + 1)
                shown[(document.name, range(index + 2, end + 1))] = [
                    " ".join(line.split()) for line in lines[after + 1:close]
                    if line.strip() and line.strip() != "..."]
            index = end + 1
    return shown


def shown_in_comments() -> dict[tuple[str, int], list[str]]:
    """What the documents show a command printing in the comment lines under it (a line that
    starts with ``#``), keyed by (document, line of the command): the parts between "..."."""
    shown: dict[tuple[str, int], list[str]] = {}
    for document in DOCUMENTS:
        in_shell, command = False, None
        for number, line in enumerate(document.read_text(encoding="utf-8").splitlines(), 1):
            if line.startswith("```"):
                in_shell, command = line.strip() == "```sh", None
            elif in_shell and line.startswith("xqstudio "):
                command = number
            elif in_shell and line.startswith("#") and command is not None:
                parts = [" ".join(part.split()) for part in line[1:].split("...")]
                shown.setdefault((document.name, command), []).extend(p for p in parts if p)
            elif in_shell and not line.startswith(" "):
                command = None
    return shown


def test_the_documents_show_what_their_commands_print():
    assert len(shown_outputs()) >= 3
    assert len(shown_in_comments()) >= 3


def words_of(command: str) -> tuple[list[str], bool]:
    """The command's words, up to a shell operator, and whether it runs in the background."""
    words = shlex.split(command, comments=True)
    background = words[-1] == "&"
    for index, word in enumerate(words):
        if word in SHELL_STOPS:
            words = words[:index]
            break
    return words[1:], background


def with_placeholders(words: list[str]) -> list[str]:
    group = " ".join(words[:2])
    fen = FENS.get(group) or FENS.get(words[0], FENS["problem"])
    if "--draw" in words or "draw" in words:
        fen = FENS["draw"]
    result: list[str] = []
    for word in words:
        if word == "<moves>":
            result.extend(MOVES.split())
        else:
            result.append(word.replace("<FEN>", fen))
    return result


def test_the_documents_show_commands():
    commands = documented_commands()
    assert len(commands) >= 40
    assert any(HEAVY in line for _, _, line in commands)


@pytest.mark.parametrize("where, number, command",
                         [c for c in documented_commands()
                          if any(mark in c[2] for mark in NOT_RUN)],
                         ids=lambda value: str(value)[:60])
def test_a_heavy_command_is_spelled_right(where, number, command):
    words, _ = words_of(command)
    try:
        build_parser().parse_args(with_placeholders(words))
    except SystemExit as exit:
        pytest.fail(f"{where}:{number}: {command!r} does not parse (exit {exit.code})")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def serve_and_query(words: list[str], env: dict, cwd: Path, where: str) -> str | None:
    """``tb serve ... &``: start it on a free port, ask the README's example query, stop it."""
    port = free_port()
    words = [str(port) if previous == "--port" else word
             for previous, word in zip(["", *words], words)]
    server = subprocess.Popen([XQSTUDIO, *words], env=env, cwd=cwd, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        url = f"http://127.0.0.1:{port}/xiangqi?fen=4k4/9/9/9/9/9/9/9/9/R2K5_w"
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(url, timeout=5) as response:
                    document = json.loads(response.read())
                break
            except urllib.error.HTTPError as error:
                document = json.loads(error.read())
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    return f"{where}: the server did not answer: {server.stderr.read()}"
                time.sleep(0.2)
        if "error" in document and "no table" not in document["error"]:
            return f"{where}: the server answered {document}"
        return None
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.mark.slow
def test_every_documented_command_runs(tmp_path):
    """Each command in order, as a user in a fresh home directory would run it."""
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "XQSTUDIO_TABLES": str(tmp_path / "tables"),
           "XQSTUDIO_CATALOGUE": str(tmp_path / "catalogue.sqlite")}
    (tmp_path / "problems.pgn").write_text(SAMPLE_PGN, encoding="utf-8")
    failures = []
    shown = shown_outputs()
    commented = shown_in_comments()
    printed: dict[tuple[str, range], str] = {}
    for where, number, command in documented_commands():
        block = next((key for key in shown if key[0] == where and number in key[1]), None)
        if any(mark in command for mark in NOT_RUN):
            continue
        words, background = words_of(command)
        words = with_placeholders(words)
        place = f"{where}:{number}: xqstudio {' '.join(words)}"
        if background:
            problem = serve_and_query(words, env, tmp_path, place)
            if problem:
                failures.append(problem)
            continue
        result = subprocess.run([XQSTUDIO, *words], env=env, cwd=tmp_path, text=True,
                                capture_output=True, timeout=300, stdin=subprocess.DEVNULL)
        said = result.stderr + result.stdout
        if block is not None:
            printed[block] = printed.get(block, "") + " ".join(result.stdout.split()) + "\n"
        output = " ".join(result.stdout.split())
        missing = [part for part in commented.get((where, number), []) if part not in output]
        if missing:
            failures.append(f"{place}\n  the output shown is not printed: {missing}")
        negative = any(" ".join(words).startswith(start.replace("<FEN>", FENS["problem"]))
                       or start in command for start in NEGATIVE_OK)
        allowed = (0, 1) if negative else (0,)
        if "Traceback" in said or re.search(r"unknown (command|action)|unrecognized", said) \
                or result.returncode not in allowed:
            failures.append(f"{place}\n  exit {result.returncode}: {said.strip()[-400:]}")
    for (where, numbers), lines in shown.items():
        missing = [line for line in lines if line not in printed.get((where, numbers), "")]
        if missing:
            failures.append(f"{where}:{numbers.start}: the output shown is not printed: "
                            f"{missing}")
    assert not failures, "\n".join(failures)
