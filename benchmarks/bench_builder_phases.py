"""One table's build by phase: CPU and wall seconds of each phase, and the whole process's
CPU seconds, wall time and peak memory as /usr/bin/time -v gives them.

Usage:
    python benchmarks/bench_builder_phases.py KRNKAABB --dir DIR [--threads 2] [--no-verify]
        [--reference REFDIR] [--rules chinese]

The sub-tables are built first into DIR where missing (not timed); the table itself is then
rebuilt by ``xqstudio tb build`` in a process of its own under ``/usr/bin/time -v``.  The
phases come from the build-info side file the build writes (``<table>.xqtb.build.json``):
per metric the first sweep (every position from its captures), the un-move passes
(predecessors of each pass's frontier), the candidate checks, the end-of-pass settling, the
perpetual-check search (and with ``--rules chinese`` the perpetual-attack search, "chase", of
the chase rule's rounds, with the positions each round's searches tested); then the chase
marks, the full re-check (every metric at once), the compression of the arrays and the final
file.  The peak memory is also given as a ratio to the table's value arrays (the codes of
its distinct metrics, both sides).  With ``--reference``, the table's arrays are compared
with the same table in REFDIR (built by another version of the builder): every value must be
equal.
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

from tablebases.build import METRICS, PHASES, build, rules_directory, two_sided
from tablebases.format import build_info_path, read_header, table_path
from tablebases.material import Material

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare_tables import table_differences


def timed_build(material: str, directory: Path, threads: int, verify: bool,
                rules: str | None = None) -> dict[str, float]:
    """Rebuild ``material`` under /usr/bin/time -v: CPU seconds, wall seconds, peak MiB."""
    xqstudio = Path(sys.executable).parent / "xqstudio"
    command = ["/usr/bin/time", "-v", str(xqstudio), "tb", "build", material, "--tables",
               str(directory), "--threads", str(threads), "--rebuild"]
    if not verify:
        command.append("--no-verify")
    if rules is not None:
        command += ["--rules", rules]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    report = done.stderr

    def field(label: str) -> str:
        found = re.search(rf"{re.escape(label)}: (.+)", report)
        if found is None:
            raise RuntimeError(f"/usr/bin/time gave no {label!r}")
        return found.group(1).strip()

    wall = 0.0
    for part in field("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":"):
        wall = wall * 60 + float(part)
    return {"cpu": float(field("User time (seconds)")) + float(field("System time (seconds)")),
            "wall": wall, "peak_mib": int(field("Maximum resident set size (kbytes)")) / 1024}


def phase_rows(timings: dict) -> list[tuple[str, float, float]]:
    """(phase, CPU seconds, wall seconds) in build order, from a build-info file."""
    rows = []
    for metric in METRICS:
        if timings.get(f"{metric}_passes", 0) == 0 and f"{metric}_first_sweep_seconds" \
                not in timings:
            continue                    # DTC60 equal to DTC: not built
        for phase in PHASES:
            wall = timings.get(f"{metric}_{phase}_seconds")
            if wall is None:
                continue
            rows.append((f"{metric} {phase.replace('_', ' ')}",
                         timings.get(f"{metric}_{phase}_cpu_seconds", 0.0), wall))
    for name, label in (("chase_marks", "chase marks"),
                        ("recheck", "re-check (every metric at once)"),
                        ("write", "compression (zlib)")):
        if f"{name}_seconds" in timings:
            rows.append((label, timings.get(f"{name}_cpu_seconds", 0.0),
                         timings[f"{name}_seconds"]))
    rows.append(("file (header, blocks, rename)", timings.get("finish_seconds", 0.0),
                 timings.get("finish_seconds", 0.0)))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("material")
    parser.add_argument("--dir", type=Path, required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--no-verify", dest="verify", action="store_false")
    parser.add_argument("--reference", type=Path, default=None)
    parser.add_argument("--rules", default=None, help="build under this rule set (chinese)")
    args = parser.parse_args(argv)
    material = Material.parse(args.material).canonical()
    name = str(material)
    for sub in material.build_order()[:-1]:
        build(str(sub), args.dir, threads=args.threads, log=lambda line: None, rules=args.rules)
    whole = timed_build(name, args.dir, args.threads, args.verify, args.rules)
    where = rules_directory(args.dir, args.rules) if args.rules and two_sided(material) \
        else args.dir
    # The timings are in the side file, the pass counts in the header.
    timings = {**read_header(table_path(where, name)).extra,
               **json.loads(build_info_path(table_path(where, name)).read_text())}
    print(f"{name}: {args.threads} threads, {'verified' if args.verify else 'not re-checked'}")
    print(f"{'phase':<32} {'CPU s':>9} {'wall s':>9}")
    for label, cpu, wall in phase_rows(timings):
        print(f"{label:<32} {cpu:>9.2f} {wall:>9.2f}")
    passes = ", ".join(f"{m} {timings[f'{m}_passes']}" for m in METRICS
                       if timings.get(f"{m}_passes"))
    print(f"passes: {passes}; perpetual-check rounds: {timings.get('perpetual_check_rounds', 0)}")
    if timings.get("rule_search_tested"):
        # The first search tests every draw; the later ones only what their round changed.
        tested = ", ".join(f"{count:,}" for count in timings["rule_search_tested"])
        print(f"positions the rule searches tested, round by round: {tested}")
    distinct = 2 if timings.get("dtc60_is_dtc") else 3
    arrays_mib = distinct * 2 * 2 * read_header(table_path(where, name)).size / 2**20
    print(f"whole process: {whole['cpu']:.1f} CPU s, {whole['wall']:.1f} s wall, "
          f"peak {whole['peak_mib']:.0f} MiB ({whole['peak_mib'] / arrays_mib:.2f}x the "
          f"{arrays_mib:.0f} MiB of its {distinct} distinct metrics' arrays)")
    if args.reference is not None:
        problems = table_differences(table_path(args.reference, name), table_path(where, name))
        print(f"against {args.reference}: " + ("; ".join(problems) if problems
                                                else "every array identical"))
        return 1 if problems else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
