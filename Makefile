# Two entry points on a fresh machine: `make repro` and `make test`.
# Both create .venv with a Python >= 3.12 when it is missing or stale, install, then run.
SHELL := /bin/bash
VENV := .venv
STAMP := $(VENV)/.installed
BIN := $(VENV)/bin
export DVC_NO_ANALYTICS := 1
# Stage commands call `python`: make it the environment's.
export PATH := $(CURDIR)/$(BIN):$(PATH)

.PHONY: repro push test check check-params env clean-env bench screenshot

$(STAMP): pyproject.toml scripts/find_python.sh
	@set -e; \
	if [ ! -x $(BIN)/python ] || ! $(BIN)/python -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then \
		PY=$$(scripts/find_python.sh); \
		echo "creating $(VENV) with $$PY"; \
		rm -rf $(VENV); "$$PY" -m venv $(VENV); \
	fi; \
	$(BIN)/python -m pip install --quiet --upgrade pip; \
	$(BIN)/python -m pip install --quiet -e '.[test]'; \
	touch $(STAMP)

env: $(STAMP)

# Our own schema first: a typo or a dotted model key is named in one line, before DVC reads
# params.yaml (DVC would pass a typo silently, or fail with "Parameters ... are missing").
check-params: $(STAMP)
	$(BIN)/sideways check

# Then delete the outputs of models removed from params.yaml (DVC leaves them, and annotate, jury
# and calibrate depend on their folders). With a default DVC remote, fetch into DVC's cache every
# result the lock names (the answers paid stages carry included: a stage that reruns reads them
# before it pays) and the run-cache; then `--pull` restores what was already computed elsewhere
# instead of running it.
repro: $(STAMP) check-params
	$(BIN)/sideways prune
	@if $(BIN)/dvc remote default >/dev/null 2>&1; then \
		echo "dvc fetch --run-cache"; \
		$(BIN)/dvc fetch --run-cache || echo "(some results are not on the remote: their stages will run)"; \
		echo "dvc repro --pull"; $(BIN)/dvc repro --pull; \
	else \
		echo "dvc repro"; $(BIN)/dvc repro; \
	fi
	$(BIN)/sideways show

# Share everything a run paid for: outputs (answers included) and the run-cache. Then `git push`.
push: $(STAMP)
	$(BIN)/dvc push --run-cache

# Static checks first (seconds), then the tests: CI runs `make test`.
check: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

test: check
	$(BIN)/python -m pytest

# Run the benchmarks (bounded) and rewrite the figures table of docs/performance.md and README.md.
bench: $(STAMP)
	$(BIN)/python scripts/bench.py

# The README's picture of the report: build it (the report stage and what it needs), then shoot
# the leaderboard in the OS Chromium, headless (scripts/screenshot.py; `--tabs --out DIR` for all tabs).
screenshot: $(STAMP)
	$(BIN)/dvc repro report
	$(BIN)/python scripts/screenshot.py --out docs/report.png
	$(BIN)/python scripts/screenshot.py --tabs --out docs/img/report

clean-env:
	rm -rf $(VENV)
