"""The resume files of the benchmarks that run problem by problem (bench_proposer.py,
bench_quiet_vs_fairy.py): a title line, the settings as ``# setting NAME=VALUE`` lines, a
header of tab-separated column names, then one tab-separated row per problem, appended and
synced as it finishes, so that a killed run can be taken up again."""
from __future__ import annotations

import os
import sys
from pathlib import Path


def read_rows(path: Path, columns: list[str]) -> tuple[list[str], dict[int, dict[str, str]]]:
    """The header's setting lines and the rows, by number (a row cut short is left out).
    The file's own header line names its columns: a file from before a column was added
    is read with the columns it has."""
    header, rows = [], {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# setting "):
            header.append(line)
        elif line.startswith("number\t"):
            columns = line.split("\t")
        elif line and not line.startswith("#"):
            cells = line.split("\t")
            if len(cells) == len(columns):
                rows[int(cells[0])] = dict(zip(columns, cells))
    return header, rows


def append_row(path: Path, row: dict[str, str], columns: list[str]) -> None:
    """``row`` as one line at the end of the file, synced to disk before returning."""
    with path.open("a", encoding="utf-8") as out:
        out.write("\t".join(row[c] for c in columns) + "\n")
        out.flush()
        os.fsync(out.fileno())


class SettingsDiffer(ValueError):
    """A resume file made with other settings than the run's (its message lists them)."""


def resumed_rows(path: Path | None, title: str, settings: list[str],
                 columns: list[str]) -> dict[int, dict[str, str]]:
    """The rows already in the resume file ``path`` (none if it does not exist yet: then it
    is started with ``title``, ``settings`` and the header; none without a file).  Raises
    :class:`SettingsDiffer` if the file was made with other settings."""
    if path is None:
        return {}
    if not path.exists():
        path.write_text("\n".join([title, *settings, "\t".join(columns)]) + "\n",
                        encoding="utf-8")
        return {}
    header, rows = read_rows(path, columns)
    if header != settings:
        raise SettingsDiffer(f"{path} was made with other settings:\n" + "\n".join(header))
    return rows


def resumed_rows_or_report(path: Path | None, title: str, settings: list[str],
                           columns: list[str]) -> dict[int, dict[str, str]] | None:
    """:func:`resumed_rows`, or None after saying on stderr why a file made with other
    settings is refused (the benchmark then exits with status 2)."""
    try:
        return resumed_rows(path, title, settings, columns)
    except SettingsDiffer as error:
        print(f"error: {error}", file=sys.stderr)
        return None
