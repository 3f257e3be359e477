# Two entry points on a fresh machine: `make repro` and `make test`.
# Both create .venv with a Python >= 3.12 when it is missing or stale, install, then run.
SHELL := /bin/bash
VENV := .venv
STAMP := $(VENV)/.installed
BIN := $(VENV)/bin
export DVC_NO_ANALYTICS := 1
# Stage commands call `python`: make it the environment's (VENV may be another folder's, absolute).
export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: repro push test check check-params env clean-env bench screenshot harness

# `remotes`: DVC's S3, SSH, GCS and Azure plugins, so that any remote the docs name works (docs/remotes.md).
$(STAMP): pyproject.toml scripts/find_python.sh
	@set -e; \
	if [ ! -x $(BIN)/python ] || ! $(BIN)/python -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then \
		PY=$$(scripts/find_python.sh); \
		echo "creating $(VENV) with $$PY"; \
		rm -rf $(VENV); "$$PY" -m venv $(VENV); \
	fi; \
	$(BIN)/python -m pip install --quiet --upgrade pip; \
	$(BIN)/python -m pip install --quiet -e '.[test,remotes]'; \
	touch $(STAMP)

env: $(STAMP)

# inspect-ai in an environment of its own, never the project's (0.3.285 pins fsspec below the one DVC's S3
# remote resolves to): sideways reads inspect's .eval logs through its `inspect log convert`, found as
# $$SIDEWAYS_INSPECT or on PATH (docs/exams.md, "Runs made elsewhere"). The tests of .eval logs run it.
HARNESS := .venv-harness
INSPECT_AI := inspect-ai==0.3.285
$(HARNESS)/.inspect-installed: scripts/find_python.sh
	@set -e; \
	if [ ! -x $(HARNESS)/bin/python ]; then PY=$$(scripts/find_python.sh); "$$PY" -m venv $(HARNESS); fi; \
	echo "installing $(INSPECT_AI) in $(HARNESS) (its own environment)"; \
	$(HARNESS)/bin/python -m pip install --quiet '$(INSPECT_AI)'; \
	touch $@

harness: $(HARNESS)/.inspect-installed

# Our own schema first: a typo, a dotted model key or a key written twice is named in one line,
# before DVC reads params.yaml (DVC would pass a typo silently, or fail with "Parameters ... are missing").
check-params: $(STAMP)
	$(BIN)/sideways check

# Then delete the outputs of models removed from models.yaml (DVC leaves them, and annotate, jury
# and calibrate depend on their folders). `sideways fetch`: with a default DVC remote, fetch into
# DVC's cache every result the lock names (the answers paid stages carry included: a stage that
# reruns reads them before it pays) and the run-cache; then stop before anything is sent when a paid
# stage's locked outputs cannot be restored (SIDEWAYS_PAY_AGAIN=1 pays again on purpose;
# docs/remotes.md). `--pull` restores what was already computed elsewhere instead of running it
# (not when paying again: DVC 3.67.1's `repro --pull` fails on an object the remote lacks; the fetch
# has already brought the rest into the cache, from which `dvc repro` restores unchanged stages).
# When a paid job failed (a provider down, the spending cap), every other job's results are written
# and the leaderboards shown; the last lines name the failed jobs and how to retry, and make exits
# non-zero (docs/design.md, "Failed jobs").
repro: $(STAMP) check-params
	$(BIN)/sideways prune
	@status=0; \
	$(BIN)/sideways fetch || exit $$?; \
	if $(BIN)/dvc remote default >/dev/null 2>&1 && [ "$$SIDEWAYS_PAY_AGAIN" != 1 ]; then \
		echo "dvc repro --pull"; $(BIN)/dvc repro --pull || status=$$?; \
	else \
		echo "dvc repro"; $(BIN)/dvc repro || status=$$?; \
	fi; \
	if [ $$status -eq 0 ]; then $(BIN)/sideways show; \
	elif ! $(BIN)/sideways status --failed >/dev/null 2>&1; then \
		$(BIN)/sideways show; \
	fi; \
	exit $$status

# Share everything a run paid for: outputs (answers included) and the run-cache, then check on the
# remote itself that it holds every object dvc.lock names (docs/remotes.md). Then `git push`.
push: $(STAMP)
	$(BIN)/sideways push

# Static checks first (seconds), then the tests: CI runs `make test`.
check: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

# SIDEWAYS_NEED_INSPECT=1: a test of .eval logs fails, rather than skips, when the harness's inspect is missing.
test: check harness
	SIDEWAYS_INSPECT=$(abspath $(HARNESS))/bin/inspect SIDEWAYS_NEED_INSPECT=1 $(BIN)/python -m pytest

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
