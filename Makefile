# Two commands: `make demo` and `make test`. Each creates .venv if needed, installs what it needs
# (skipped when pyproject.toml has not changed since the last install) and runs.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# torch for the learned agents (the `train` extra). Installed first and explicitly: this release's
# CPU build is on this machine's disk, while a bare `torch` would fetch a multi-GB CUDA build.
TORCH  ?= torch==2.13.0

.PHONY: demo test bench play docs clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install -q "$(TORCH)"
	$(PY) -m pip install -q -e ".[test,experiments,train,web,render,distributed,clients,docs,openspiel]"
	touch $(STAMP)

demo: $(STAMP)
	$(PY) -m fiveplay_env.experiments.demo

# The whole suite (1,766 tests): 11 min 53 s of tests on a quiet 2-core machine (14 min 39 s from a fresh
# clone, install and the numba kernels' compile included; measured 2026-12-06), longer when other jobs share
# the cores. The numba kernels are compiled (or loaded from their cache) first, once. Two worker processes (pytest-xdist), a test file per worker at a time
# (module fixtures and compiled JAX functions are shared within a file); PYTEST_WORKERS=0 runs everything
# in one process. It prints a dot per test with the share done at each line's end, then the summary:
# skips with their reasons (-ra), the ten slowest tests, and the warnings (none from this project's code).
PYTEST_WORKERS ?= 2
test: $(STAMP)
	@echo "make test: the whole suite in $(PYTEST_WORKERS) worker processes; about 12 minutes on a quiet 2-core machine"
	@$(PY) -c "from fiveplay_env.vector import compile_kernels as c; print('make test: the numba kernels compiled or loaded (s):', {k: round(v, 1) for k, v in c(processes=$(PYTEST_WORKERS) or 1).items()})"
	$(PY) -m pytest -q -n $(PYTEST_WORKERS) --dist loadfile --durations=10

# The local web app (play against the bots, replays, results): http://127.0.0.1:8000
play: $(STAMP)
	$(PY) -m fiveplay_env.experiments.web --runs runs --port 8000

bench: $(STAMP)
	$(PY) -m fiveplay_env.experiments.bench

# The documentation site into docs/_build/html: warnings are errors (nitpicky: every internal reference
# resolves), and the offline link check of README.md and the Markdown sources (docs/_ext/fiveplay_docs)
docs: $(STAMP)
	$(PY) -m sphinx -W --keep-going -n -q -b html docs docs/_build/html
	@echo "docs: docs/_build/html/index.html"

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache docs/_build docs/games docs/_generated
	find fiveplay_env agents -name '*.nbi' -delete -o -name '*.nbc' -delete  # the numba kernels' caches (and the compiled searches')
