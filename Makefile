# The whole set-up is two commands: `make book` and `make test`.
# Each creates .venv if it is missing and installs requirements.txt into it.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: help setup system test book benchmark clean

help:
	@echo "make book       build the course site into _build/html"
	@echo "make test       run every test"
	@echo "make benchmark  print the benchmark figures"

# Python environment: rebuilt when requirements.txt or pyproject.toml change.
$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

# Debian packages the tests use (the sandbox, the PostgreSQL gradebook, the browser
# that checks the built site); installed only where a command is missing.
SYSTEM_PACKAGES := bwrap:bubblewrap chromium:chromium
system:
	@missing=""; for pair in $(SYSTEM_PACKAGES); do \
	  cmd=$${pair%%:*}; pkg=$${pair##*:}; \
	  command -v $$cmd >/dev/null 2>&1 || missing="$$missing $$pkg"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

setup: $(STAMP) system

test: setup
	$(BIN)/python -m pytest

book: setup
	$(BIN)/jupyter-book build . --warningiserror --nitpick --keep-going

benchmark: setup
	$(BIN)/python benchmarks/meta_device_counting.py

clean:
	rm -rf _build
