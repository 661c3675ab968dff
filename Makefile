# Two commands do everything: `make run` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test

.PHONY: run test install lint bench clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

# Tests also train a tiny model, so they need the [train] extra (torch, CPU wheel).
$(TEST_STAMP): $(STAMP)
	$(BIN)/pip install -q -e '.[dev,train]'
	touch $(TEST_STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/companion serve --source demo --open

test: $(TEST_STAMP)
	PY=$(BIN)/python bash scripts/install-browser-deps.sh
	@# pytest exits 5 when it collects nothing; that is not a failure
	COMPANION_REQUIRE_BROWSER=1 $(BIN)/python -m pytest; rc=$$?; if [ $$rc -eq 5 ]; then echo 'no tests collected'; exit 0; fi; exit $$rc

lint: $(STAMP)
	$(BIN)/ruff check companion tests benchmarks

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_rules.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis

# Regenerates every file in fixtures/ byte-for-byte (see fixtures/README.md); takes minutes.
.PHONY: fixtures
fixtures: $(STAMP)
	$(BIN)/companion synth-scenes --out fixtures/scenes --count 300 --seed 2026 --width 960 --height 540 --jpeg-quality 80
	$(BIN)/companion synth-game --game kendra-kari --players 4 --seed 2 --width 960 --height 540 --out fixtures/videos/kendra-kari-4p.mp4
	$(BIN)/companion synth-game --game ganjifa --players 4 --seed 9 --width 960 --height 540 --pace brisk --out fixtures/videos/ganjifa-4p.mp4
	$(BIN)/companion synth-game --game kendra-kari --players 4 --seed 8 --width 960 --height 540 --max-moves 14 --hard --out fixtures/videos/kendra-kari-hard.mp4
