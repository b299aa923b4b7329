# Attention Lab. The two commands a person needs:
#   make run    set up, build static/ and serve it on http://127.0.0.1:8000
#   make test   set up, build, and run every test (unit + browser)
# Others: make check (the unit tests only, Python and the page's pure JS:
# a couple of minutes), make build, make trace, make bench, make screenshot,
# make loadtest, make stress, make clean.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PORT   ?= 8000
# pytest workers (pytest-xdist): a module's warm-page tests stay together on
# one worker (tests/e2e/conftest.py); JOBS=0 runs every test in one process.
JOBS   ?= 2
# One thread each for NumPy's BLAS and torch in the test processes: their
# arrays are small, and per-process thread pools only fight the other
# worker and Chromium for the same cores.
TEST_ENV := OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1

.PHONY: run test check build bench screenshot loadtest stress trace setup setup-test chromium clean

run: build
	$(PY) scripts/serve.py --port $(PORT)

# The build and the test tools' install share nothing: they run side by side.
test:
	@$(MAKE) --no-print-directory -j2 build chromium
	$(TEST_ENV) $(PY) -m pytest tests -n $(JOBS) --dist loadgroup

check: setup-test
	$(TEST_ENV) $(PY) -m pytest tests/unit -n $(JOBS) --dist loadgroup

bench: build setup-test chromium
	$(PY) scripts/bench.py

screenshot: build setup-test chromium
	$(PY) scripts/screenshot.py

# A classroom's worth of clients against scripts/serve.py, on loopback.
loadtest: build
	$(PY) scripts/loadtest.py

# The whole suite, from a fresh clone, three times with a core kept busy and
# once under 4× CPU throttling: the results must not depend on speed.
stress:
	$(PYTHON) scripts/stress.py

build: setup
	$(PY) scripts/build.py

# Which of Pyodide's files the lab opens (scripts/runtime_trace.json, which
# the build ships): rerun when lab_core imports something new.
trace: setup setup-test chromium
	$(PY) scripts/trace_runtime.py

# Python side: a venv with lab_core (editable) and the build tools.
setup: $(VENV)/.installed node_modules/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[build]'
	touch $@

# Test tools on top (pytest, Playwright's Python driver): pyproject's test
# extra, without installing lab_core again (setup did), so that this can run
# while `make build` builds the wheel from the same tree.
setup-test: $(VENV)/.installed-test

$(VENV)/.installed-test: $(VENV)/.installed pyproject.toml
	$(PY) -m pip install --quiet $$($(PY) -c 'import tomllib; print(" ".join(d for d in tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["test"] if not d.startswith("lab_core")))')
	touch $@

# The Pyodide runtimes, pinned by package-lock.json.
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

# A Chromium for the browser tests: an installed one, else Debian's, else Playwright's.
chromium: setup-test
	$(PY) scripts/chromium.py --ensure

clean:
	rm -rf static build dist *.egg-info .bench
