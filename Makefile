# Two commands on a fresh machine: `make demo` and `make test`. Everything else is a step of those.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON313 := $(shell scripts/find-python313.sh)
ifeq ($(PYTHON313),)
$(error no Python 3.13 interpreter found: see the message above)
endif

VENV := .venv
SAM_VENV := .venv-sam
PY := $(VENV)/bin/python
SAM := $(SAM_VENV)/bin/sam
BUILD_DIR := .aws-sam/build
# sam build looks up `python3.13` on PATH for BuildMethod python3.13: the interpreter's own bin
# directory goes first (sys.executable, so a pyenv shim resolves to the real one).
PYTHON313_BIN := $(dir $(shell $(PYTHON313) -c 'import sys; print(sys.executable)'))
SAM_RUN := PATH="$(PYTHON313_BIN):$$PATH" SAM_CLI_TELEMETRY=0
SAM_ENV := $(SAM_RUN) AWS_DEFAULT_REGION=us-east-1
# `make lock` needs uv (e.g. `python3.13 -m venv /tmp/uv && /tmp/uv/bin/pip install uv`, then
# `make lock UV=/tmp/uv/bin/uv`); add --upgrade-package NAME to move one pin.
UV ?= uv
LOCK := $(UV) pip compile --quiet --generate-hashes --python-version 3.13 --python-platform x86_64-manylinux_2_28 \
	--index-url https://pypi.org/simple --custom-compile-command "make lock"
export PYTHONPATH := layers/slea:.
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: help test lint typecheck sam-validate sam-build build deploy upgrade backfill lock pytest unit demo serve smoke bench clean

help:
	@echo "make demo   - run the main job locally (offline, no AWS account, no API key)"
	@echo "make serve  - the web app and the HTTP API on http://127.0.0.1:8080/ over the local AWS"
	@echo "make test   - everything CI checks: ruff, import contract, mypy, sam validate --lint, sam build, pytest"
	@echo "make unit   - the fast tests alone (no local AWS, no browser)"
	@echo "make bench  - the benchmarks in bench/"
	@echo "make build  - sam build (with the Python 3.13 that the layer and functions need)"
	@echo "make deploy - sam deploy (first time: make deploy ARGS=--guided); an older stack's new indexes first"
	@echo "make upgrade - only the staged index deploys (ARGS=--dry-run prints the plan)"
	@echo "make backfill - give records of earlier releases the attributes new indexes key on (ARGS=--dry-run)"
	@echo "make smoke  - sign in, play a round and read the level on the deployed stack (ARGS=--stack NAME;"
	@echo "              ARGS=--local checks the stack make serve runs on http://127.0.0.1:8080)"
	@echo "make lock   - recompile the hashed lock files from the .in files (needs uv)"

# The locks (exact versions, hashes), then this project with no dependencies of its own to
# resolve: console commands slea-retry-queue, slea-seed and slea-local.
$(VENV)/.installed: requirements/dev.txt layers/slea/requirements.txt layers/slea/requirements-no-deps.txt pyproject.toml
	$(PYTHON313) -m venv $(VENV)
	$(PY) -m pip install --quiet --require-hashes -r requirements/dev.txt
	$(PY) -m pip install --quiet --require-hashes --no-deps -r layers/slea/requirements-no-deps.txt
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $@

$(SAM_VENV)/.installed: requirements/sam.txt
	$(PYTHON313) -m venv $(SAM_VENV)
	$(SAM_VENV)/bin/pip install --quiet -r requirements/sam.txt
	touch $@

test: lint typecheck sam-validate sam-build pytest

# tests/browser drive Debian's chromium through Playwright (never a browser build of Playwright's
# own, which cannot be downloaded here) and a CJK font for Korean pages; installed once, when missing.
CHROMIUM := /usr/bin/chromium
$(CHROMIUM):
	apt-get update && apt-get install -y chromium fonts-noto-cjk

# lint-imports: the layer's packages import downwards only (pyproject.toml, docs/architecture.md).
lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports

typecheck: $(VENV)/.installed
	$(VENV)/bin/mypy layers/slea/slea functions slea_local ops

sam-validate: $(SAM_VENV)/.installed
	$(SAM_ENV) $(SAM) validate --lint

sam-build: $(SAM_VENV)/.installed
	$(SAM_ENV) $(SAM) build --build-dir $(BUILD_DIR)

build: sam-build

# No region override: samconfig.toml (or the AWS profile) decides where the stack goes. An
# existing stack whose tables are more than one index behind is first brought up one index per
# table per deploy (python -m ops.upgrade, docs/operations.md); a new stack deploys in one step.
deploy: $(SAM_VENV)/.installed $(VENV)/.installed
	$(SAM_RUN) $(PY) -m ops.upgrade --sam $(SAM) -- $(ARGS)
	$(SAM_RUN) $(SAM) deploy $(ARGS)

# The staged index plan alone: make upgrade ARGS="--dry-run" (or --stack NAME, --region R).
upgrade: $(SAM_VENV)/.installed $(VENV)/.installed
	$(SAM_RUN) $(PY) -m ops.upgrade --sam $(SAM) $(ARGS)

# Records written by earlier releases given the attributes the new indexes key on: ARGS=--dry-run.
backfill: $(VENV)/.installed
	$(PY) -m ops.backfill $(ARGS)

lock:
	$(LOCK) layers/slea/requirements.in -o layers/slea/requirements.txt
	$(LOCK) --no-deps layers/slea/requirements-no-deps.in -o layers/slea/requirements-no-deps.txt
	$(LOCK) requirements/dev.in -o requirements/dev.txt
	cd functions/mcp && $(LOCK) requirements.in -o requirements.txt

# One worker per core (pytest-xdist): every test builds its own local AWS, so none shares state.
# The slowest tests are printed at the end; a test that hangs fails after pyproject.toml's timeout.
pytest: $(VENV)/.installed $(CHROMIUM)
	$(PY) -m pytest -n auto --durations=25

# The fast part alone, while working: no local AWS, no browser, nothing marked slow.
unit: $(VENV)/.installed
	$(PY) -m pytest -n auto -q -m "not aws and not browser and not slow"

demo: $(VENV)/.installed
	$(PY) -m slea_local demo

# SERVE_ARGS=--signed-tokens: only tokens the local user pool signs, checked as API Gateway does.
serve: $(VENV)/.installed
	$(PY) -m slea_local serve --review-demo $(SERVE_ARGS)

# The deployed stack end to end (python -m ops.smoke): ARGS=--stack NAME, else samconfig.toml's.
smoke: $(VENV)/.installed
	$(PY) -m ops.smoke $(ARGS)

bench: $(VENV)/.installed
	$(PY) bench/run.py

clean:
	rm -rf $(VENV) $(SAM_VENV) .aws-sam .mypy_cache .pytest_cache .ruff_cache .hypothesis
