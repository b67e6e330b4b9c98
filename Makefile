# All set-up goes through `install`: a fresh machine needs only Python 3.11+.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install bytecode browser demo test lint bench clean

install: $(STAMP) bytecode browser

# The environment sets PYTHONDONTWRITEBYTECODE=1 (CI too), so without this every `assay`
# process would compile assay's own sources (about 0.3 s of CPU). compileall skips what is
# up to date; an edited source is still picked up (Python checks its mtime against the .pyc).
bytecode: $(STAMP)
	$(BIN)/python -m compileall -q src

# The dashboard's browser tests drive Debian's Chromium (never a browser download). Installed
# when missing and apt-get can; otherwise those tests skip, loudly (.ci/run makes that fail).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium \
	      >/dev/null) || echo "warning: could not install chromium; browser tests will skip"; \
	  else \
	    echo "warning: chromium is missing and apt-get cannot install it here;" \
	      "the dashboard's browser tests will skip (apt-get install chromium)"; \
	  fi; }

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
	$(BIN)/python bench/bench_web.py

clean:
	rm -rf $(VENV) .assay
