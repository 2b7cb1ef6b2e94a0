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
# sam build looks up `python3.13` on PATH for BuildMethod python3.13.
SAM_ENV := PATH="$(dir $(PYTHON313)):$$PATH" SAM_CLI_TELEMETRY=0 AWS_DEFAULT_REGION=us-east-1
export PYTHONPATH := layers/slea:.
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: help test lint typecheck sam-validate sam-build unit demo bench clean

help:
	@echo "make demo   - run the main job locally (offline, no AWS account, no API key)"
	@echo "make test   - everything CI checks: ruff, mypy, sam validate --lint, sam build, pytest"
	@echo "make bench  - the benchmarks in bench/"

$(VENV)/.installed: requirements/dev.txt layers/slea/requirements.txt
	$(PYTHON313) -m venv $(VENV)
	$(PY) -m pip install --quiet -r requirements/dev.txt
	touch $@

$(SAM_VENV)/.installed: requirements/sam.txt
	$(PYTHON313) -m venv $(SAM_VENV)
	$(SAM_VENV)/bin/pip install --quiet -r requirements/sam.txt
	touch $@

test: lint typecheck sam-validate sam-build unit

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: $(VENV)/.installed
	$(VENV)/bin/mypy layers/slea/slea functions slea_local

sam-validate: $(SAM_VENV)/.installed
	$(SAM_ENV) $(SAM) validate --lint

sam-build: $(SAM_VENV)/.installed
	$(SAM_ENV) $(SAM) build --build-dir $(BUILD_DIR)

unit: $(VENV)/.installed
	$(PY) -m pytest

demo: $(VENV)/.installed
	$(PY) -m slea_local demo

bench: $(VENV)/.installed
	$(PY) bench/run.py

clean:
	rm -rf $(VENV) $(SAM_VENV) .aws-sam .mypy_cache .pytest_cache .ruff_cache .hypothesis
