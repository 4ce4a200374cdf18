# `make run` and `make test` set everything up themselves on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SHARED ?= ../shared

.PHONY: run test lint typecheck chromium postgresql unit examples fuzz bench screens catalogues pyodide \
  bundles clean

# The JavaScript the project pins (package.json, package-lock.json): Pyodide, the engine's
# Python in the browser, and eslint. npm ci installs exactly the lock; Node.js and npm are
# Debian's, installed when missing.
NODE_STAMP := node_modules/.installed
$(NODE_STAMP): package.json package-lock.json
	command -v npm >/dev/null || (apt-get update && apt-get install -y nodejs npm)
	npm ci --no-audit --no-fund
	touch $@

# The Pyodide files the browser needs, copied into the package (package data, gitignored), so
# that lifeledger serve, lifeledger app and a built wheel carry them; never fetched at run time.
PYODIDE_DIR := src/lifeledger_table/pyodide
PYODIDE_FILES := pyodide.js pyodide.mjs pyodide.asm.mjs pyodide.asm.wasm python_stdlib.zip \
  pyodide-lock.json
PYODIDE := $(addprefix $(PYODIDE_DIR)/,$(PYODIDE_FILES))
$(PYODIDE): $(PYODIDE_DIR)/%: $(NODE_STAMP)
	mkdir -p $(PYODIDE_DIR)
	cp node_modules/pyodide/$* $@

pyodide: $(PYODIDE)

# The pages' scripts as the browser loads them (docs/table.md, "The page's scripts"): the ES
# modules in static/ (the source, checked by eslint) bundled by esbuild into one file per page,
# index.html's from index.js and table.html's from table.js (whose first import, boot.js, runs
# first): ES module format, no code splitting, whitespace and syntax minified, names kept (a
# stack trace reads without a source map). Written into the package (package data, gitignored)
# like Pyodide's files, and built again when a module (or this Makefile) changes.
# tests/table/test_page_modules.py builds them again with this rule (make BUNDLE_DIR=<a
# temporary folder> bundles) and checks the package's are the same bytes.
STATIC_DIR := src/lifeledger_table/static
BUNDLE_DIR := src/lifeledger_table/bundles
BUNDLE_ENTRIES := index table
BUNDLES := $(BUNDLE_ENTRIES:%=$(BUNDLE_DIR)/%.bundle.js)
PAGE_MODULES := $(filter-out $(STATIC_DIR)/sw.js $(STATIC_DIR)/engine-worker.js, \
  $(wildcard $(STATIC_DIR)/*.js))
$(BUNDLES) &: $(PAGE_MODULES) Makefile $(NODE_STAMP)
	node_modules/.bin/esbuild $(BUNDLE_ENTRIES:%=$(STATIC_DIR)/%.js) --bundle --format=esm \
	  --minify-whitespace --minify-syntax --charset=utf8 --legal-comments=none \
	  '--entry-names=[name].bundle' --outdir=$(BUNDLE_DIR) --log-level=warning

bundles: $(BUNDLES)

$(STAMP): pyproject.toml | $(PYODIDE)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[table,dev,fast]'
	touch $(STAMP)

# Phones on the same Wi-Fi join: it listens on every interface and prints the address (and a
# QR code) they open. make run HOST=127.0.0.1 keeps it to this machine (docs/table.md): set
# on make's command line, never taken from the environment, where some shells keep the
# machine's name in HOST.
HOST = 0.0.0.0
PORT = 8000
run: $(STAMP) $(PYODIDE) $(BUNDLES)
	$(BIN)/lifeledger serve --host $(HOST) --port $(PORT)

test: lint typecheck unit examples

# eslint (eslint.config.js): the page's modules, the service worker, the engine worker and the
# tests' page audits, with eslint's recommended rules.
lint: $(STAMP) $(PYODIDE) $(NODE_STAMP)
	node_modules/.bin/eslint .
	$(BIN)/ruff check src tests benchmarks tools
	$(BIN)/ruff format --check src tests benchmarks tools
	$(BIN)/lint-imports
	$(BIN)/python tools/catalogues.py check

typecheck: $(STAMP)
	$(BIN)/mypy --strict src/lifeledger src/lifeledger_table src/lifeledger_fast

# The browser tests drive Debian's chromium; install it when it is missing.
chromium:
	command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium)

# The PostgreSQL store's tests start a server of their own with Debian's initdb and pg_ctl
# (in /usr/lib/postgresql/<version>/bin); install them when they are missing.
postgresql:
	ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || command -v pg_ctl >/dev/null || \
	  (apt-get update && apt-get install -y postgresql)

# The tests run in TEST_JOBS processes (pytest-xdist), each test file whole in one of them (its
# browser, server and PostgreSQL fixtures are made once, as in one process).
TEST_JOBS ?= 2
unit: $(STAMP) $(PYODIDE) $(BUNDLES) chromium postgresql
	$(BIN)/pytest -n $(TEST_JOBS) --dist loadfile --durations=25

examples: $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python $(SHARED)/tools/check-records $(SHARED)/examples

# Property tests with random seeds and many examples, over and over for FUZZ_SECONDS (default
# 600); the first failure stops it and is kept in .hypothesis/ to replay first next time.
FUZZ_SECONDS ?= 600
fuzz: $(STAMP)
	end=$$(( $$(date +%s) + $(FUZZ_SECONDS) )); \
	while [ $$(date +%s) -lt $$end ]; do \
	  HYPOTHESIS_PROFILE=fuzz $(BIN)/pytest -x -q tests/test_properties.py tests/table/test_table_model.py \
	    tests/test_properties_v2.py tests/test_properties_stack.py tests/test_properties_shortcut.py \
	    tests/test_engine_work.py tests/test_record_fast.py tests/test_italian.py \
	    tests/test_rules_life.py tests/test_rules_two_headed_giant.py || exit 1; \
	done

# The screenshots docs/table.md shows, taken anew by the browser tests (a plain test run takes
# none, so it leaves the tree as it found it).
screens: $(STAMP) chromium
	LIFELEDGER_SCREENSHOTS=1 $(BIN)/pytest -q tests/table/test_table_browser.py \
	  tests/table/test_page_layouts.py tests/table/test_page_table_mode.py tests/table/test_page_taps.py \
	  tests/table/test_table_graph_browser.py tests/table/test_table_panels.py tests/table/test_tools_browser.py \
	  tests/table/test_page_turns.py tests/table/test_page_designations.py tests/table/test_page_choices.py \
	  tests/table/test_page_grid.py tests/table/test_page_reading.py tests/table/test_page_languages.py \
	  tests/table/test_page_commander_table.py

# The message catalogues: every message the code uses, merged into each language's .po, and
# the .mo files compiled (docs/table.md, Languages). make test checks them.
catalogues: $(STAMP)
	$(BIN)/python tools/catalogues.py update

bench: $(STAMP)
	$(BIN)/python benchmarks/replay.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
