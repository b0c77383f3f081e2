"""Compare two directories of tables array by array: the check that a builder change keeps
every value.

Usage:
    python benchmarks/compare_tables.py REFERENCE CANDIDATE [MATERIAL ...]

Every table of REFERENCE (or only the MATERIALs named) must exist in CANDIDATE with the same
arrays (the codes of each metric and side to move, the perpetual-check sets and the chase
marks) holding the same contents, and the same header counts.  Prints one line per table that
differs and a total; exit status 1 if any table differs or is missing.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tablebases.format import SUFFIX, TableFile, table_path


def table_differences(reference: Path, candidate: Path) -> list[str]:
    """What differs between two table files (empty: the same arrays and counts)."""
    if not candidate.exists():
        return ["missing"]
    one, two = TableFile(reference), TableFile(candidate)
    try:
        problems = []
        names_one, names_two = set(one.header.blocks), set(two.header.blocks)
        if names_one != names_two:
            problems.append(f"arrays {sorted(names_one ^ names_two)} in one file only")
        for name in sorted(names_one & names_two):
            first, second = one.load_array(name), two.load_array(name)
            if first != second:
                if len(first) != len(second):
                    problems.append(f"{name}: {len(first)} against {len(second)} entries")
                else:
                    at = next(i for i, (a, b) in enumerate(zip(first, second)) if a != b)
                    differing = sum(a != b for a, b in zip(first, second))
                    problems.append(f"{name}: {differing} entries differ, first at {at} "
                                    f"({first[at]} against {second[at]})")
        if one.header.counts != two.header.counts:
            problems.append("header counts differ")
        return problems
    finally:
        one.close()
        two.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reference", type=Path)
    parser.add_argument("candidate", type=Path)
    parser.add_argument("materials", nargs="*")
    args = parser.parse_args(argv)
    names = args.materials or sorted(p.name[:-len(SUFFIX)]
                                     for p in args.reference.glob(f"*{SUFFIX}"))
    bad = 0
    for name in names:
        problems = table_differences(table_path(args.reference, name),
                                     table_path(args.candidate, name))
        if problems:
            bad += 1
            print(f"{name}: " + "; ".join(problems))
    print(f"{len(names) - bad} of {len(names)} tables identical (every array by contents)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
