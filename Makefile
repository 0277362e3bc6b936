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
SYSTEM_PACKAGES := bwrap:bubblewrap chromium:chromium npm:npm /usr/lib/postgresql/*/bin/postgres:postgresql
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

# .venv/bin on PATH: nbgrader runs the `alembic` command when it creates a gradebook
test: setup
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python -m pytest $(PYTEST_ARGS)

# --- set-up of the JupyterHub browser test (tests/test_jupyterhub.py) ----------
# JupyterHub's proxy, configurable-http-proxy, from npm into .hub-deps/ (git-ignored);
# patchelf lets the test's copy of .venv's interpreter (which may be readable by root
# only) find its library, so that the students' servers can run it.
HUB_PROXY := .hub-deps/node_modules/.bin/configurable-http-proxy
.PHONY: hub-test-setup
test: hub-test-setup
hub-test-setup: $(HUB_PROXY)
	@command -v patchelf >/dev/null 2>&1 || { echo "installing Debian packages: patchelf"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq patchelf >/dev/null; }
$(HUB_PROXY): | system
	npm install --prefix .hub-deps --no-audit --no-fund --silent configurable-http-proxy@5
# --- end of the JupyterHub test set-up ------------------------------------------

# The course site. Strict: a failing cell or any Sphinx warning fails the build.
# BOOK_OUT=DIR builds into DIR/_build instead (the build benchmark uses it).
# MathJax comes from npm and is served by the site itself, so pages load nothing
# from another host. .build-ok marks a build that finished without error.
# Executed pages are cached, keyed on each page's code only; the pages also read
# gptcourse, the student notebooks and nbgrader_config.py, so when any of those
# change (BOOK_INPUTS_KEY differs) the cache is dropped and every page runs again.
BOOK_OUT ?= .
BOOK_BUILD = $(BOOK_OUT)/_build
BOOK_INPUTS_KEY = $$(find src/gptcourse exercises nbgrader_config.py -type f \
	-not -path '*/__pycache__/*' 2>/dev/null | LC_ALL=C sort | xargs cat | sha256sum | cut -c1-16)
MATHJAX_VERSION := 3.2.2
MATHJAX := .book-deps/static/mathjax/tex-chtml.js

$(MATHJAX):
	@command -v npm >/dev/null 2>&1 || $(MAKE) system
	npm install --prefix .book-deps --no-audit --no-fund --silent mathjax@$(MATHJAX_VERSION)
	rm -rf .book-deps/static/mathjax
	mkdir -p .book-deps/static
	cp -r .book-deps/node_modules/mathjax/es5 .book-deps/static/mathjax
	touch $@

book: $(STAMP) $(MATHJAX)
	rm -f $(BOOK_BUILD)/html/.build-ok
	@key=$(BOOK_INPUTS_KEY); \
	if [ -d $(BOOK_BUILD)/.jupyter_cache ] && [ "$$(cat $(BOOK_BUILD)/.inputs-key 2>/dev/null)" != "$$key" ]; then \
	  echo "gptcourse, exercises/ or nbgrader_config.py changed: running every page again"; \
	  rm -rf $(BOOK_BUILD)/.jupyter_cache $(BOOK_BUILD)/.doctrees; \
	fi
	$(BIN)/jupyter-book build . --path-output $(BOOK_OUT) --warningiserror --nitpick --keep-going
	@echo $(BOOK_INPUTS_KEY) > $(BOOK_BUILD)/.inputs-key
	touch $(BOOK_BUILD)/html/.build-ok

# meta-device counting and the book build take a minute or two; grading.py (40
# submissions, four configurations) takes several minutes and is run on its own.
benchmark: setup
	$(BIN)/python benchmarks/meta_device_counting.py
	$(BIN)/python benchmarks/book_build.py

# Homework: the student versions in exercises/ are generated from solutions/ by
# nbgrader (solution regions become stubs, hidden tests are removed). Run it after
# editing a notebook in solutions/; a test fails while exercises/ is out of date.
ASSIGNMENTS := parameters logits-to-text
.PHONY: release
release: $(STAMP)
	for assignment in $(ASSIGNMENTS); do \
	  $(NBGRADER) generate_assignment $$assignment --force || exit 1; \
	done

# The grading loop, with nbgrader's own commands (README, "Grading homework"):
# release-to-exchange -> students fetch and submit -> collect -> autograde ->
# feedback -> grades. autograde runs student code only inside the bubblewrap
# sandbox, JOBS students at a time; STUDENTS=a,b or SHARD=K/N grade a subset.
JOBS ?= $(shell nproc)
STUDENTS ?=
SHARD ?=
ASSIGNMENT ?=
# ASSIGNMENT=name limits release-to-exchange, collect, autograde and feedback to one
THE_ASSIGNMENTS = $(if $(ASSIGNMENT),$(ASSIGNMENT),$(ASSIGNMENTS))
NBGRADER := PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/nbgrader
GRADER_ARGS := --jobs $(JOBS) $(if $(STUDENTS),--students $(STUDENTS)) $(if $(SHARD),--shard $(SHARD))
.PHONY: release-to-exchange fetch submit collect autograde feedback release-feedback grades

release-to-exchange: $(STAMP)
	for assignment in $(THE_ASSIGNMENTS); do \
	  $(NBGRADER) release_assignment $$assignment --force || exit 1; \
	done

# A student's side on one machine: make fetch / make submit ASSIGNMENT=parameters
# [STUDENT=id], working in course-data/student-work/ (on JupyterHub students use
# the Assignments tab instead).
STUDENT ?=
STUDENT_WORK ?= course-data/student-work
fetch: $(STAMP)
	@test -n "$(ASSIGNMENT)" || { echo "make fetch ASSIGNMENT=name"; exit 2; }
	mkdir -p $(STUDENT_WORK)
	cd $(STUDENT_WORK) && $(CURDIR)/$(BIN)/nbgrader fetch_assignment $(ASSIGNMENT) \
	  --course gptcourse --Exchange.root=$(CURDIR)/course-data/exchange
submit: $(STAMP)
	@test -n "$(ASSIGNMENT)" || { echo "make submit ASSIGNMENT=name"; exit 2; }
	cd $(STUDENT_WORK) && $(CURDIR)/$(BIN)/nbgrader submit $(ASSIGNMENT) --course gptcourse \
	  --Exchange.root=$(CURDIR)/course-data/exchange $(if $(STUDENT),--student $(STUDENT))

collect: $(STAMP)
	for assignment in $(THE_ASSIGNMENTS); do \
	  $(NBGRADER) collect $$assignment --update || exit 1; \
	done

autograde: setup
	for assignment in $(THE_ASSIGNMENTS); do \
	  PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python -m grader autograde $$assignment $(GRADER_ARGS) \
	    || exit $$?; \
	done

feedback: $(STAMP)
	for assignment in $(THE_ASSIGNMENTS); do \
	  $(NBGRADER) generate_feedback $$assignment --force || exit 1; \
	done

release-feedback: $(STAMP)
	for assignment in $(THE_ASSIGNMENTS); do \
	  $(NBGRADER) release_feedback $$assignment || exit 1; \
	done

grades: $(STAMP)
	$(NBGRADER) export --to course-data/grades.csv
	$(BIN)/python -m grader summary $(ASSIGNMENTS)

clean:
	rm -rf _build
