"""Run every benchmark and print its figures (``make bench``)."""
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_legal_moves
import bench_perft
import bench_rules
import bench_tablebase
import bench_vs_fairy


def main() -> None:
    print(f"# {time.strftime('%Y-%m-%d')} {platform.machine()} {platform.processor() or ''} "
          f"Python {platform.python_version()}")
    bench_perft.run(quick="--quick" in sys.argv)
    bench_legal_moves.run()
    bench_rules.run()
    bench_tablebase.main(["--set", "quick"])
    bench_vs_fairy.main([])     # only with XQ_FAIRY_STOCKFISH set; otherwise one line, skipped


if __name__ == "__main__":
    main()
