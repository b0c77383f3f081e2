"""Build script: one cythonize call over every .pyx in the project.

OpenMP is used when the compiler accepts -fopenmp; otherwise the extensions build serial.
"""
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup


def compiler_supports_openmp() -> bool:
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        return False
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp, "omp.c")
        src.write_text("#include <omp.h>\nint main(void){return omp_get_max_threads() < 1;}\n")
        try:
            result = subprocess.run(
                [cc, "-fopenmp", str(src), "-o", str(Path(tmp, "omp"))],
                capture_output=True,
            )
        except OSError:
            return False
        return result.returncode == 0


OPENMP = compiler_supports_openmp()
compile_args = ["-O3", "-Wno-unused-function", "-Wno-unreachable-code"]
link_args = []
if OPENMP:
    compile_args.append("-fopenmp")
    link_args.append("-fopenmp")
else:
    print("setup.py: compiler has no OpenMP support; building serial extensions", file=sys.stderr)

PACKAGES = ["xiangqi", "tablebases", "solver", "puzzles", "tui"]
extensions = [
    Extension(
        str(path.with_suffix("")).replace(os.sep, "."),
        [str(path)],
        extra_compile_args=compile_args,
        extra_link_args=link_args,
    )
    for package in PACKAGES
    for path in sorted(Path(package).rglob("*.pyx"))
]

setup(
    ext_modules=cythonize(
        extensions,
        language_level=3,
        compile_time_env={"HAVE_OPENMP": OPENMP},
        compiler_directives={
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
    ),
)
