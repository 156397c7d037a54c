# kinduct: `make demo` and `make test` each create .venv and install what they need.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-all lint bench clean kind2 vscode

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

# Bytecode first: where PYTHONDONTWRITEBYTECODE is set, every `kinduct` process the tests start
# would otherwise compile the whole package again (about 0.4 s of CPU each).
COMPILE := $(BIN)/python -m compileall -q -j 0 api kernel frontends plugins

test: $(STAMP)
	$(COMPILE)
	$(BIN)/python -m pytest -q -n 2 --dist loadfile

test-all: $(STAMP)
	$(COMPILE)
	$(BIN)/python -m pytest -q -n 2 --dist loadfile -m ''

# vulture: dead code (names used only by frameworks are in vulture_allow.py; pytest fixtures and
# marks by their names).
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/vulture kernel frontends plugins api tests benchmarks vulture_allow.py --min-confidence 60 \
		--ignore-names 'pytestmark,installed_template'

clean:
	rm -rf $(VENV) build *.egg-info

# Kind 2 v3.0.0 from ../shared/kind2 into .kind2/bin/kind2 (the real-Kind-2 tests use it).
# Rebuilt only when the source tarball's sha256 differs from the stamp of the last build;
# SKIP_APT=1 is passed on when the Debian build packages are already installed.
KIND2_SRC ?= ../shared/kind2
KIND2_DIR := .kind2
KIND2_DEBS := ocaml-nox ocaml-dune libdune-ocaml-dev menhir libmenhir-ocaml-dev libnum-ocaml-dev \
	libyojson-ocaml-dev libzmq3-dev pkg-config z3

kind2:
	@sum=$$(sha256sum $(KIND2_SRC)/kind2-src.tar.gz | cut -d' ' -f1); \
	if [ -x $(KIND2_DIR)/bin/kind2 ] && [ "$$(cat $(KIND2_DIR)/source.sha256 2>/dev/null)" = "$$sum" ]; then \
		echo "kind2: $(KIND2_DIR)/bin/kind2 is up to date"; \
	else \
		skip=0; dpkg -s $(KIND2_DEBS) >/dev/null 2>&1 && skip=1; \
		SKIP_APT=$$skip bash $(KIND2_SRC)/build.sh $(KIND2_DIR) && echo "$$sum" > $(KIND2_DIR)/source.sha256; \
	fi

# The VS Code extension in editors/vscode (Node.js and npm needed; CI does not build it):
# editors/vscode/kinduct-lucent-0.1.0.vsix, for `code --install-extension`.
vscode:
	cd editors/vscode && npm install --no-audit --no-fund && npx tsc -p ./ && npx vsce package
