"""The documents hold: the Python examples of ``docs/`` run as shown, the command-line
reference is the one the parsers give, every relative link and anchor resolves, and the
site's navigation lists every page.

The shell commands of the README and ``docs/`` are run by ``test_readme_commands.py``.
"""
from __future__ import annotations

import doctest
import json
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from engine_session import EngineSession

from tablebases import open_tablebase
from tablebases.build import build
from tui.cli_reference import reference
from tui.frontends.web import position_document
from xiangqi import Board

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))
DOCUMENTS = [ROOT / name for name in ("README.md", "ARCHITECTURE.md", "BENCHMARKS.md",
                                      "CHANGELOG.md")] + PAGES
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def python_examples(page: Path) -> str:
    """The page's ``pycon`` blocks, one after another."""
    return "\n".join(body for kind, body in FENCE.findall(page.read_text(encoding="utf-8"))
                     if kind == "pycon")


@pytest.mark.parametrize("page", [p for p in PAGES if python_examples(p)], ids=lambda p: p.name)
def test_the_python_examples_run_as_shown(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XQSTUDIO_TABLES", str(tmp_path / "tables"))
    monkeypatch.setenv("XQSTUDIO_CATALOGUE", str(tmp_path / "catalogue.sqlite"))
    test = doctest.DocTestParser().get_doctest(python_examples(page), {}, page.name,
                                                str(page), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    output: list[str] = []
    runner.run(test, out=output.append)
    assert runner.failures == 0, "".join(output)
    assert runner.tries >= 5


def test_the_command_line_reference_is_generated_from_the_parsers():
    committed = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert committed == reference(), (
        "docs/cli.md is out of date: python -m tui.cli_reference > docs/cli.md")


def slug(heading: str) -> str:
    """The anchor MkDocs (Python-Markdown's toc) gives a heading."""
    text = re.sub(r"`|\*\*", "", heading)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(document: Path) -> set[str]:
    text = FENCE.sub("", document.read_text(encoding="utf-8"))
    return {slug(line.lstrip("#")) for line in text.splitlines() if line.startswith("#")}


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda d: d.name)
def test_every_relative_link_resolves(document):
    assert document.exists(), document
    broken = []
    text = FENCE.sub("", document.read_text(encoding="utf-8"))
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        linked = (document.parent / path).resolve() if path else document
        if not linked.exists():
            broken.append(target)
        elif document.parent == DOCS and not linked.is_relative_to(DOCS):
            # MkDocs (strict) refuses a target outside docs_dir: the site has no such page.
            broken.append(target)
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(target)
    assert not broken, f"{document.name}: links that do not resolve: {broken}"


def test_the_site_lists_every_page():
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    listed = re.findall(r":\s*([\w-]+\.md)\s*$", config, re.MULTILINE)
    assert sorted(listed) == sorted(page.name for page in PAGES)
    assert len(listed) == len(set(listed))


def test_every_current_benchmark_figure_has_its_command_date_and_machine():
    text = (ROOT / "BENCHMARKS.md").read_text(encoding="utf-8")
    current = text.split("## Current figures", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in current.splitlines()
            if line.startswith("| ") and not line.startswith(("| ---", "| benchmark"))]
    assert len(rows) >= 20
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert len(cells) == 4, row
        benchmark, figure, when, command = cells
        assert figure and re.match(r"\d{4}-\d{2}-\d{2}", when) and "ci-2core" in when, row
        assert command.startswith("`") and command.endswith("`"), row


def test_the_benchmark_history_is_rows_of_figures():
    results = sorted((ROOT / "benchmarks" / "results").glob("*.tsv"))
    assert {path.stem for path in results} >= {"summary", "rules", "tablebases", "solver"}
    for path in results:
        lines = path.read_text(encoding="utf-8").splitlines()
        width = len(lines[0].split("\t"))
        assert len(lines) > 1 and width >= 6, path.name
        assert all(len(line.split("\t")) == width for line in lines), path.name


def normalised(line: str) -> str:
    """An engine line without what varies between runs: times, node counts, the default
    table directory."""
    line = re.sub(r"\btime \d+", "time T", line)
    line = re.sub(r"\b\d[\d,]* nodes\b", "N nodes", line)
    return re.sub(r"(TablebasePath type string default) \S+", r"\1 DIR", line)


def test_the_engine_session_is_what_the_engine_says(tmp_path, monkeypatch):
    build("KRKAA", tmp_path, log=lambda line: None)
    monkeypatch.setenv("XQSTUDIO_TABLES", str(tmp_path))
    text = (DOCS / "engine.md").read_text(encoding="utf-8")
    session_text = text.split("## A session", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    session = EngineSession()
    try:
        for line in session_text.splitlines():
            if line.startswith("> "):
                session.send(line[2:])
                wanted = "bestmove" if line[2:].startswith("go") else (
                    "uciok" if line[2:] == "uci" else None)
                if wanted:
                    session.until(wanted)
        session.send("quit")
    finally:
        session.process.wait(timeout=30)
    said = [normalised(line[2:]) for line in session.transcript if line.startswith("< ")]
    shown = [normalised(line[2:]) for line in session_text.splitlines() if line.startswith("< ")]
    assert said == shown


def test_the_web_api_answers_as_shown(tmp_path):
    text = (DOCS / "web-api.md").read_text(encoding="utf-8")
    shown_text = text.split("```json\n", 1)[1].split("```", 1)[0]
    shown = json.loads(shown_text.replace(", ...}", "}").replace(", ...]", "]"))
    build("KRK", tmp_path, log=lambda line: None)
    with open_tablebase(tmp_path) as tablebase:
        answer = position_document(tablebase, Board(shown["fen"]))
    assert {key: answer[key] for key in shown} | {"moves": None} == shown | {"moves": None}
    for shown_move, move in zip(shown["moves"], answer["moves"]):
        assert {key: move[key] for key in shown_move} == shown_move


@pytest.mark.slow
def test_the_site_builds_strictly(tmp_path):
    """``make docs``'s build: MkDocs in strict mode turns every warning (a link outside
    ``docs/``, a page missing from the navigation, a broken anchor) into a failure."""
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stdout + built.stderr
    assert (tmp_path / "site" / "solving" / "index.html").exists()
