# Quick start: `make run` starts the studio, `make test` runs every test.
# Both create .venv and install the project (with its compiled extensions) when needed.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
SOURCES := setup.py pyproject.toml $(shell find xiangqi tablebases solver puzzles tui -name '*.pyx' -o -name '*.pxd' 2>/dev/null)
PACKAGES := xiangqi tablebases solver puzzles tui

.PHONY: run test bench install clean fuzz

$(STAMP): $(SOURCES)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(VENV)/bin/xqstudio

test: $(STAMP)
	$(PY) -m pytest -q tests $(PACKAGES)

fuzz: $(STAMP)
	$(PY) tests/fuzz/run.py --cases 20000 --rounds 3

bench: $(STAMP)
	$(PY) benchmarks/run_all.py

clean:
	rm -rf build $(VENV)
	find $(PACKAGES) \( -name '*.so' -o -name '*.c' \) -delete
