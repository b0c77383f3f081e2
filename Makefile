# Quick start: `make run` starts the studio, `make test` runs every test.
# Both create .venv and install the project (with its compiled extensions) when needed.
# Developer harness: `make lint` (ruff), `make typecheck` (mypy, then stubtest on the compiled
# modules' stubs), `make test-fast` (the tests not marked slow), `make test-serial` (every test
# in one process, for timing and debugging).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
SOURCES := setup.py pyproject.toml $(shell find xiangqi tablebases solver puzzles tui -name '*.pyx' -o -name '*.pxd' 2>/dev/null)
PACKAGES := xiangqi tablebases solver puzzles tui

.PHONY: run test test-fast test-serial lint typecheck fuzz bench docs install clean fonts

$(STAMP): $(SOURCES)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,web,diagrams,pdf,datasette,cluster]'
	touch $(STAMP)

install: $(STAMP)

# PNG and PDF diagrams need a font with Chinese characters that cairo finds through
# fontconfig (the pieces' letters, the river); SVG names its fonts and needs none here.
# Installs Debian's fonts-arphic-ukai (楷体, the pieces' traditional lettering) when no such
# font is present and apt-get can be run; otherwise says what to install.  Checked before
# every target that installs or uses the venv (order-only: it never forces a reinstall).
$(STAMP): | fonts
fonts:
	@if [ -n "$$(fc-list :lang=zh family 2>/dev/null)" ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing fonts-arphic-ukai (Chinese font for PNG/PDF diagrams)"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			fonts-arphic-ukai >/dev/null) || echo "could not install fonts-arphic-ukai"; \
	else echo "no Chinese font for PNG/PDF diagrams: install one, e.g. fonts-arphic-ukai"; fi

run: $(STAMP)
	$(VENV)/bin/xqstudio

# -n auto: one pytest-xdist worker per core present, tests handed out one by one (--dist load;
# on 2 cores 199 s against 237 s with --dist loadfile, whose long test files leave one worker
# idle at the end, though it builds each module's fixtures once).
XDIST := -n auto

test: $(STAMP)
	$(PY) -m pytest -q $(XDIST) tests $(PACKAGES)

test-fast: $(STAMP)
	$(PY) -m pytest -q $(XDIST) -m "not slow" tests $(PACKAGES)

test-serial: $(STAMP)
	$(PY) -m pytest -q -p no:xdist tests $(PACKAGES)

lint: $(STAMP)
	$(VENV)/bin/ruff check .

# The compiled modules whose .pyi stubs stubtest checks against the built extensions (what it
# cannot check is in stubtest-allowlist.txt, with reasons).
STUBTEST_MODULES := xiangqi._core tablebases._builder tablebases._chase tablebases._index \
	tablebases._probe solver._mate_ab solver._mate_eval solver._dfpn

typecheck: $(STAMP)
	$(VENV)/bin/mypy
	PYTHONPATH=. $(PY) -m mypy.stubtest --allowlist stubtest-allowlist.txt $(STUBTEST_MODULES)

fuzz: $(STAMP)
	$(PY) tests/fuzz/run.py --cases 20000 --rounds 3

bench: $(STAMP)
	$(PY) benchmarks/run_all.py

# The manual (docs/) as a static site in site/, with MkDocs from the `docs` extra (installed
# here on first use, MkDocs alone: reinstalling the project would recompile it).  docs/cli.md
# is regenerated first.  tests/test_docs.py builds the same site strictly.
DOCS_REQUIREMENTS = $(PY) -c "import tomllib; print(*tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['docs'])"

docs: $(STAMP)
	$(PY) -c "import mkdocs" 2>/dev/null || $(PY) -m pip install --quiet $$($(DOCS_REQUIREMENTS))
	$(PY) -m tui.cli_reference > docs/cli.md
	$(PY) -m mkdocs build --strict

clean:
	rm -rf build site $(VENV)
	find $(PACKAGES) \( -name '*.so' -o -name '*.c' \) -delete
