PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PIP := $(BIN)/pip install --constraint constraints.txt
DEMO_OUT ?= demo-output
# The tests compare figures to the last digit, and numpy's and OpenBLAS's kernels round
# differently on CPUs with AVX-512: on x86-64 the tests and benchmarks run numpy's AVX2 code and
# OpenBLAS's Haswell kernels on every machine (any x86-64 CPU with AVX2), as the figures in the
# README were measured.
ifeq ($(shell uname -m),x86_64)
NUMERIC_ENV ?= NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL AVX512_SPR" OPENBLAS_CORETYPE=Haswell
endif
# The thread counts are pinned as the kernels are: BLAS and LAPACK split their sums by thread,
# so an inner solver's points (scipy's SLSQP calls LAPACK) differ in their last bits between
# one thread and two. The suite passes with either (the layout breaks its near-ties by rules;
# tests/loop/test_blas_threads.py runs one run with both), but a test marked `golden` (pytest -m
# golden) compares whole trajectories to the last digit, and the figures in the docs were
# measured pinned. Pinning is not what makes the suite pass. The variables must be set before
# numpy loads its BLAS, hence here rather than in tests/conftest.py.
THREAD_ENV ?= OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
TEST_ENV = $(NUMERIC_ENV) $(THREAD_ENV)

.PHONY: help venv install install-dev install-docs demo test test-slow test-row test-py310 lint docs docs-serve bench bench-smoke clean

help:
	@echo "make demo       create $(VENV), install paretosurf, run the demo (writes $(DEMO_OUT)/)"
	@echo "make test       install with the dev, rl, ray, llm, slurm and fast extras, run the test suite"
	@echo "make test-slow  run the slow tests (Table 1 figures, minutes)"
	@echo "make test-row   run the full MO-MountainCar row (8 seeds, about 45 minutes)"
	@echo "make test-py310 the default suite on Python 3.10 (a second venv, without the extras)"
	@echo "make lint       ruff format --check, ruff check, mypy"
	@echo "make docs       build the documentation site into build/site (warnings are errors)"
	@echo "make bench      run the benchmarks under benchmarks/ (outputs in $(BENCH_OUT)/NAME/)"
	@echo "make bench-smoke  every benchmark's --smoke mode (tiny sizes, seconds each)"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

venv: $(BIN)/python

install: venv
	$(PIP) --quiet -e .

install-dev: venv
	$(PIP) --quiet -e ".[dev,rl,ray,llm,slurm,fast]"

install-docs: venv
	$(PIP) --quiet -e ".[docs]"

demo: install
	$(BIN)/paretosurf demo --out $(DEMO_OUT)

test: install-dev
	$(TEST_ENV) $(BIN)/python -m pytest -n 2 -q

test-slow: install-dev
	$(TEST_ENV) $(BIN)/python -m pytest -n 2 -q -m "slow and not row"

test-row: install-dev
	$(TEST_ENV) $(BIN)/python -m pytest -q -m row

# Python 3.10, the oldest the package declares: the default suite in a second venv with the
# dev extra only (torch, Ray and the LLM stack are tested on the main Python; their tests skip
# here). Where no python3.10 is installed (on PATH or under pyenv) it says so and stops.
PYTHON310 ?= $(shell for p in python3.10 $${PYENV_ROOT:-$$HOME/.pyenv}/versions/3.10.*/bin/python3.10; do $$p -c 'import sys; assert sys.version_info[:2] == (3, 10)' 2>/dev/null && { command -v $$p; break; }; done)
VENV310 ?= .venv310

test-py310:
	@if [ -z "$(PYTHON310)" ]; then echo "make test-py310: no python3.10 on this machine, not run"; exit 0; fi; \
	set -e; \
	[ -x $(VENV310)/bin/python ] || $(PYTHON310) -m venv $(VENV310); \
	$(VENV310)/bin/pip install --quiet --upgrade pip; \
	$(VENV310)/bin/pip install --quiet --constraint constraints.txt -e ".[dev]"; \
	$(TEST_ENV) $(VENV310)/bin/python -m pytest -n 2 -q

lint: install-dev
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy

# The site is built from docs/ and the docstrings (read, not imported: no extra is needed).
docs: install-docs
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

docs-serve: install-docs
	$(BIN)/mkdocs serve

# Each benchmark writes into $(BENCH_OUT)/NAME (bench_NAME.py), never into docs/: the published
# files under docs/results are rewritten only by a benchmark's --write-docs (see
# benchmarks/_bench_io.py).
BENCH_OUT ?= bench-output
# bench_authors.py times the paper authors' research code, read from a clone of their
# repository (https://github.com/Liuyuan999/MOO_Uniform_PF): make bench AUTHORS=PATH runs it.
AUTHORS ?=

bench: install-dev
	@for f in benchmarks/bench_*.py; do n=$$(basename $$f .py); echo "== $$f"; extra=; \
	  if [ $$n = bench_authors ]; then \
	    if [ -z "$(AUTHORS)" ]; then echo "skipped: make bench AUTHORS=PATH (a clone of the authors' code)"; continue; fi; \
	    extra="--authors $(AUTHORS)"; fi; \
	  $(NUMERIC_ENV) $(BIN)/python $$f $$extra --out $(BENCH_OUT)/$${n#bench_} || exit 1; done

bench-smoke: install-dev
	@for f in benchmarks/bench_*.py; do n=$$(basename $$f .py); echo "== $$f --smoke"; \
	  $(TEST_ENV) $(BIN)/python $$f --smoke --out $(BENCH_OUT)/smoke/$${n#bench_} || exit 1; done

clean:
	rm -rf $(VENV) $(VENV310) $(DEMO_OUT) bench-output build/site .pytest_cache .mypy_cache .ruff_cache
