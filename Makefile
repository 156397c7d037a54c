# kinduct: `make demo` and `make test` each create .venv and install what they need.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-all lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml setup.py
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,plot,dask]'
	touch $(STAMP)

# Exit code 40 is kinduct's (Kind 2's) "some property falsified": expected for these models.
demo: $(STAMP)
	$(BIN)/kinduct plugins
	$(BIN)/kinduct check examples/vmt/counter.vmt --timeout 10
	$(BIN)/kinduct check examples/vmt/counter_bug.vmt --timeout 10 || [ $$? -eq 40 ]
	$(BIN)/kinduct check examples/lucent/combine.lus --timeout 10 || [ $$? -eq 40 ]
	$(BIN)/kinduct crasp eval examples/crasp/dyck1.crasp "[[][]]][]"

test: $(STAMP)
	$(BIN)/python -m pytest -q -n 2 --dist loadfile

test-all: $(STAMP)
	$(BIN)/python -m pytest -q -n 2 --dist loadfile -m ''

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) build *.egg-info
