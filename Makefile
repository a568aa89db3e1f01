# Two commands: `make demo` and `make test`. Each creates .venv if needed, installs what it needs
# (skipped when pyproject.toml has not changed since the last install) and runs.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install -q -e ".[test,experiments]"
	touch $(STAMP)

demo: $(STAMP)
	$(PY) -m experiments.demo

test: $(STAMP)
	$(PY) -m pytest -q

bench: $(STAMP)
	$(PY) -m experiments.bench

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
