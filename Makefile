PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PIP := $(BIN)/pip install --constraint constraints.txt
DEMO_OUT ?= demo-output

.PHONY: help venv install install-dev install-rl demo test test-slow test-row lint typecheck bench clean

help:
	@echo "make demo       create $(VENV), install paretosurf, run the demo (writes $(DEMO_OUT)/)"
	@echo "make test       install with the dev, rl, ray and llm extras, run the test suite"
	@echo "make test-slow  run the slow tests (Table 1 figures, minutes)"
	@echo "make test-row   run the full MO-MountainCar row (8 seeds, about 45 minutes)"
	@echo "make lint       ruff + mypy"
	@echo "make bench      run the benchmarks under benchmarks/"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

venv: $(BIN)/python

install: venv
	$(PIP) --quiet -e .

install-dev: venv
	$(PIP) --quiet -e ".[dev,rl,ray,llm]"

demo: install
	$(BIN)/paretosurf demo --out $(DEMO_OUT)

test: install-dev
	$(BIN)/python -m pytest -n 2 -q

test-slow: install-dev
	$(BIN)/python -m pytest -n 2 -q -m "slow and not row"

test-row: install-dev
	$(BIN)/python -m pytest -q -m row

lint: install-dev
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy

bench: install-dev
	@for f in benchmarks/bench_*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) $(DEMO_OUT) bench-output .pytest_cache .mypy_cache .ruff_cache
