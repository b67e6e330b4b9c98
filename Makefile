# All set-up goes through `install`: a fresh machine needs only Python 3.11+.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install demo test lint bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# goal-driven tests and judge metrics run when a model is given:
#   make demo JUDGE=openai:llama3.1:8b JUDGE_BASE_URL=http://127.0.0.1:11434/v1
demo: install
	$(BIN)/assay demo $(if $(JUDGE),--judge '$(JUDGE)') $(if $(JUDGE_BASE_URL),--judge-base-url '$(JUDGE_BASE_URL)')

test: install
	$(BIN)/python -m pytest

lint: install
	$(BIN)/ruff check src tests bench examples
	$(BIN)/ruff format --check src tests bench examples
	$(BIN)/mypy

bench: install
	$(BIN)/python bench/bench_run.py
	$(BIN)/python bench/bench_validate.py
	$(BIN)/python bench/bench_metrics.py

clean:
	rm -rf $(VENV) .assay
