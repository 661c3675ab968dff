# Two commands do everything: `make run` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test install lint bench clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/companion serve --source demo --open

test: $(STAMP)
	PY=$(BIN)/python bash scripts/install-browser-deps.sh
	@# pytest exits 5 when it collects nothing; that is not a failure
	COMPANION_REQUIRE_BROWSER=1 $(BIN)/python -m pytest; rc=$$?; if [ $$rc -eq 5 ]; then echo 'no tests collected'; exit 0; fi; exit $$rc

lint: $(STAMP)
	$(BIN)/ruff check companion tests benchmarks

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_rules.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
