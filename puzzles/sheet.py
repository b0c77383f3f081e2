"""Problem sheets: catalogue entries printed as a composer's page, in HTML (and PDF).

Each problem has its diagram (inline SVG, from :mod:`xiangqi.svg`), its stipulation as books
write it (红先胜, 红先和, 红先 连照 7 步), the solution in Chinese notation, numbered, and the
soundness notes: what the solver proved of it (exact, at most, unproven), and for a draw
study what settled it, how its drawing line ends and its traps (陷阱).

The HTML is well-formed XML as well (no named entities, every element closed), so any XML
tool reads it; PDF comes from WeasyPrint (the ``pdf`` extra), which sets the same page.

>>> board_entry = Entry("composition", 1, "t", None, None, "c", 1, "3k5/9/9/9/9/9/9/9/4R4/4K4 w",
...                     "checks", "mate", 3, [], "", "R", "", "", None)
>>> stipulation_text(board_entry)
'红先 连照 3 步'
"""
from __future__ import annotations

import html
import os
from collections.abc import Sequence
from dataclasses import dataclass

import sqlite_utils

from tablebases.material import Material
from xiangqi import RED, Board, Move
from xiangqi.notation import write_line, write_numbered_line
from xiangqi.output import JsonObject, require, write_atomically
from xiangqi.pieces import COLOR_NAMES

from .catalogue import SOLVER_VERSION, CatalogueError, Entry, draw_analysis, table_words
from .verification import TABLE_DRAW

SHEET_FORMATS = ("html", "pdf")


def side_name(fen: str) -> str:
    """红 or 黑: the side to move, who plays first in the problem."""
    return "红" if Board(fen).turn == RED else "黑"


def stipulation_text(entry: Entry) -> str:
    """The stipulation as a book prints it: 红先胜 (a win, quiet moves allowed), 红先和 (a
    draw study) or 红先 连照 N 步 (mate in N by continuous checks); 黑先 when Black moves
    first."""
    side = side_name(entry.fen)
    if entry.stipulation == "draw":
        return f"{side}先和"
    if entry.stipulation == "checks":
        return f"{side}先 连照 {entry.moves} 步" if entry.moves else f"{side}先 连照胜"
    return f"{side}先胜"


def stipulation_english(entry: Entry) -> str:
    """The same in English."""
    side = "Red" if side_name(entry.fen) == "红" else "Black"
    if entry.stipulation == "draw":
        return f"{side} to move and draw"
    if entry.stipulation == "checks":
        length = f" in {entry.moves}" if entry.moves else ""
        return f"{side} to move, mate{length} by continuous checks"
    return f"{side} to move and win"


def solution_text(entry: Entry) -> str:
    """The main line (the solution, or a draw study's drawing line) in Chinese notation,
    numbered; empty when the catalogue has none."""
    if not entry.main_line:
        return ""
    return write_numbered_line(Board(entry.fen), [Move.from_iccs(m) for m in entry.main_line])


def soundness_notes(entry: Entry, draw: JsonObject | None = None) -> list[str]:
    """What is known of the entry's soundness, in sentences: the solver's verdict (and for a
    draw study, ``draw`` from :func:`puzzles.catalogue.draw_analysis`)."""
    if entry.kind == "practice":
        return [f"Forced mate in {entry.moves}, the shortest, with one key: proved by the "
                f"solver when the position was {entry.verification} for practice "
                f"({entry.source})."]
    if entry.kind == "example":
        notes = [f"Forced mate in {entry.moves}, the shortest: proved by the solver "
                 f"({SOLVER_VERSION})." if entry.verification == "verified" else
                 f"The solution is replayed to mate in {entry.moves}; its minimality is proved "
                 "by `xqstudio catalogue build --verify`."]
        if entry.note:
            notes.append(entry.note)
        return notes
    notes = [_verdict_note(entry)]
    if draw is not None:
        notes.extend(_draw_notes(entry, draw))
    return notes


# A verdict (or its prefix before the bound N) and what it says; {moves} is the mate's length.
_VERDICT_NOTES = {
    "mate": "Sound: the solver proves a forced mate in {moves}, none shorter (exact).",
    "mate within": "The solver proves a forced mate in at most {n}; a shorter one is not ruled "
                   "out.",
    "no mate within": "The solver finds no forced mate within {n} moves: as a win the problem "
                      "is unsound, or its mate is longer.",
    "refuted": "Unsound: lost as set. Whatever {side} plays, {other} mates in {moves} (proved "
               "by the solver); the line shows the longest resistance.",
    "refuted within": "Unsound: lost as set. Whatever {side} plays, {other} mates in at most "
                      "{n} (proved by the solver); the line shows a resistance.",
    TABLE_DRAW: "Unsound: a draw as set. The tablebase shows that {side} cannot force a win, "
                "however many moves, and does not lose (exact).",
    "draw": "Sound: the draw is proven by a tablebase (exact).",
    "no win within": "Neither side forces a win within {n} moves (a bounded search, not a proof "
                     "of the draw).",
    "unproven within": "Unproven: whether a side forces a win within {n} moves is not settled "
                       "within the solver's budget.",
    "unproven": "Unproven: the solver neither found a mate nor ruled one out within its budget.",
    "unverified": "Not yet checked by the solver.",
}


def _verdict_note(entry: Entry) -> str:
    """The verdict in a sentence (``mate within 9`` is looked up as ``mate within``)."""
    words = entry.verdict.split()
    bounded = len(words) > 1 and words[-1].isdigit()
    key = " ".join(words[:-1]) if bounded else entry.verdict
    template = _VERDICT_NOTES.get(key)
    if template is None:
        return f"Verdict: {entry.verdict}."
    side = Board(entry.fen).turn
    return template.format(moves=entry.moves, n=words[-1] if bounded else "",
                           side=COLOR_NAMES[side], other=COLOR_NAMES[1 - side])


def _draw_notes(entry: Entry, draw: JsonObject) -> list[str]:
    notes = []
    if draw.get("settled_by", "-") not in ("", "-"):
        notes.append(f"Settled by the {draw['settled_by']}.")
    elif draw.get("table", "").startswith("missing"):
        material = str(Material.from_board(Board(entry.fen)).canonical())
        words = table_words(material, draw["table"])
        notes.append(f"Not settled: {words}.")
    if draw.get("line_end"):
        notes.append(f"The drawing line ends: {draw['line_end']}.")
    board = Board(entry.fen)
    traps = []
    for trap in draw.get("traps", []):
        move = Move.from_iccs(trap["move"])
        text = write_line(board, [move], "chinese")[0] + "?"
        if trap.get("refutation"):
            after = board.copy(stack=False)
            after.push(move)
            text += " " + write_line(after, [Move.from_iccs(trap["refutation"])], "chinese")[0]
            text += "!"
        if trap.get("length"):
            text += f" (Black mates in {trap['length']})"
        traps.append(text)
    if traps:
        notes.append("Traps (陷阱): " + "; ".join(traps) + ".")
    return notes


# -- the page -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Problem:
    """One problem of a sheet: the entry and its draw analysis (None for others)."""
    entry: Entry
    draw: JsonObject | None = None


def problems(db: sqlite_utils.Database, entries: Sequence[Entry]) -> list[Problem]:
    """The entries with what the catalogue knows of their soundness."""
    return [Problem(entry, draw_analysis(db, entry)) for entry in entries]


def heading(entry: Entry) -> str:
    """``适情雅趣 第492局 凭险自固``, or an example's title (``马后炮 例2``)."""
    if entry.kind == "composition":
        return f"{entry.collection} 第{entry.number}局 {entry.title}".strip()
    return entry.title


LATIN_FONTS = "Georgia, 'DejaVu Serif', 'Times New Roman'"

PAGE_CSS = """
@page { size: A4; margin: 14mm 14mm 16mm; }
body { font-family: %(fonts)s; color: #1a1a1a; margin: 0 auto; max-width: 190mm; }
h1 { font-size: 17pt; text-align: center; margin: 0 0 5mm; }
.problem { display: flex; gap: 6mm; align-items: flex-start; padding: 4mm 0;
           border-top: 0.4pt solid #b9a27a; break-inside: avoid; page-break-inside: avoid; }
.diagram { flex: 0 0 74mm; }
.diagram svg { width: 74mm; height: auto; display: block; }
.text { flex: 1; font-size: 10.5pt; line-height: 1.45; }
.text h2 { font-size: 12.5pt; margin: 0 0 2mm; }
.stipulation { font-size: 14pt; font-weight: bold; margin: 0; }
.stipulation .english { font-size: 9.5pt; font-weight: normal; color: #555; }
.solution { margin: 2mm 0; }
.notes { margin: 1mm 0 0; padding-left: 5mm; font-size: 9.5pt; color: #333; }
.fen { font-family: 'DejaVu Sans Mono', monospace; font-size: 7.5pt; color: #777;
       word-break: break-all; }
"""


def sheet_html(items: Sequence[Problem], title: str = "象棋排局 Problem sheet",
               solutions: bool = True) -> str:
    """The problem sheet as one HTML page (A4 when printed); ``solutions=False`` leaves the
    solutions and notes out (a sheet to solve)."""
    from xiangqi import svg

    fonts = f"{LATIN_FONTS}, {svg.FONT_FAMILY}"      # Latin letters first, Chinese after
    sections = []
    for number, item in enumerate(items, start=1):
        entry = item.entry
        diagram = svg.board(Board(entry.fen))
        diagram = diagram[diagram.index("<svg"):]            # no XML declaration inline
        parts = [f'<section class="problem" id="problem-{number}" data-kind="{entry.kind}" '
                 f'data-id="{entry.id}">',
                 f'<div class="diagram">{diagram}</div>', '<div class="text">',
                 f"<h2>{number}. {_text(heading(entry))}</h2>",
                 f'<p class="stipulation">{_text(stipulation_text(entry))} '
                 f'<span class="english">({_text(stipulation_english(entry))})</span></p>']
        if solutions:
            line = solution_text(entry)
            label = ("Drawing line 和棋着法" if entry.stipulation == "draw" else
                     "Refutation 破解" if entry.verdict.startswith("refuted") else
                     "Solution 着法")
            parts.append(f'<p class="solution"><b>{label}:</b> '
                         f"{_text(line) if line else 'none recorded'}</p>")
            notes = "".join(f"<li>{_text(note)}</li>"
                            for note in soundness_notes(entry, item.draw))
            parts.append(f'<ul class="notes">{notes}</ul>')
        parts.append(f'<p class="fen">{_text(entry.fen)}</p></div></section>')
        sections.append("\n".join(parts))
    return ("<!DOCTYPE html>\n"
            '<html xmlns="http://www.w3.org/1999/xhtml" lang="zh-Hans">\n<head>\n'
            '<meta charset="utf-8"/>\n'
            f"<title>{_text(title)}</title>\n<style>{PAGE_CSS % {'fonts': fonts}}</style>\n"
            f"</head>\n<body>\n<h1>{_text(title)}</h1>\n" + "\n".join(sections)
            + "\n</body>\n</html>\n")


def _text(text: str) -> str:
    return html.escape(text, quote=True)


def sheet_format(path: str | os.PathLike[str]) -> str:
    """``html`` or ``pdf``, by the file's suffix (.html, .htm, .pdf)."""
    suffix = os.path.splitext(os.fspath(path))[1].lower()
    formats = {".html": "html", ".htm": "html", ".pdf": "pdf"}
    if suffix not in formats:
        raise CatalogueError(f"{os.fspath(path)}: a sheet is .html or .pdf, not "
                             f"{suffix or 'a file without a suffix'}")
    return formats[suffix]


def save_sheet(path: str | os.PathLike[str], page: str) -> str:
    """Write the sheet's HTML ``page`` to ``path`` as HTML or PDF (by its suffix); the file
    appears whole or not at all.  Returns the format."""
    fmt = sheet_format(path)
    if fmt == "pdf":
        weasyprint = require("weasyprint", "pdf")
        data = weasyprint.HTML(string=page).write_pdf()
    else:
        data = page.encode("utf-8")
    write_atomically(path, data)
    return fmt
