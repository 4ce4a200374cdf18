# `make run` and `make test` set everything up themselves on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SHARED ?= ../shared

.PHONY: run test lint typecheck chromium unit examples bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[table,dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/lifeledger serve

test: lint typecheck unit examples

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy --strict src/lifeledger src/lifeledger_table

# The browser tests drive Debian's chromium; install it when it is missing.
chromium:
	command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium)

unit: $(STAMP) chromium
	$(BIN)/pytest

examples: $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python $(SHARED)/tools/check-records $(SHARED)/examples

bench: $(STAMP)
	$(BIN)/python benchmarks/replay.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
