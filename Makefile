# The whole set-up is two commands: `make book` and `make test`.
# Each creates .venv if it is missing and installs requirements.txt into it.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: help setup system grading-system test test-fast book benchmark clean

help:
	@echo "Set-up and checks"
	@echo "  make book                build the course site into _build/html"
	@echo "  make test                set up everything the tests use and run every test"
	@echo "  make test-fast           the quick subset (tests/package, tests/docs, tests/units; under a minute)"
	@echo "  make test-setup          everything the tests use, made side by side (make test does it first)"
	@echo "  make benchmark           print the benchmark figures"
	@echo "  make setup               .venv and every Debian package the tests use"
	@echo "  make lock                requirements.lock again from requirements.txt (pinned, with hashes)"
	@echo "  make system              the Debian packages only (bubblewrap, chromium, npm, postgresql, strace)"
	@echo "  make grading-system      the one Debian package grading uses (bubblewrap)"
	@echo "  make book-system         a Chromium for the site's PDF, when none is installed (make book runs it)"
	@echo "  make clean               remove the built site"
	@echo "Rehearsal: a whole fake class on this machine"
	@echo "  make rehearse            [REHEARSAL_STUDENTS=4] release, fetch, submit, collect, grade, feedback"
	@echo "  make rehearse-lms        the same without a hub: a Canvas download, extensions, feedback zip"
	@echo "  make rehearse-lti        an LTI 1.3 platform on 127.0.0.1: launch, NRPS roster, grading, AGS scores"
	@echo "Homework, the instructor's side ([ASSIGNMENT=name] limits each to one assignment)"
	@echo "  make release             solutions/ -> exercises/ (with the term's salt) and the gradebook [DUEDATE=\"2026-12-01 17:00:00 UTC\"]"
	@echo "  make roster              ROSTER=students.csv: ids, names, e-mails, sections into the gradebook"
	@echo "  make extensions          [EXTENSIONS=extensions.csv] the students' extensions into the gradebook; one past"
	@echo "                           an assignment's public solutions is refused [DESPITE_PUBLIC_SOLUTIONS=1]"
	@echo "  make late-policy         every recorded grade's late penalty again under nbgrader_config.py's late policy"
	@echo "  make release-to-exchange copy the student versions into the exchange"
	@echo "  make collect             the latest submissions into course-data/submitted/"
	@echo "  make collect-zip         ZIP=download.zip ASSIGNMENT=name [LMS=canvas|moodle]: an LMS's zip into submitted/"
	@echo "  make serve               [WORKERS=N] [SCHEDULER=tls://HOST:8786] grade each hand-in as it arrives"
	@echo "  make queue               every hand-in the grading service knows, and whether it is warm"
	@echo "  make autograde           grade in the sandbox [JOBS=N | SCHEDULER=tls://host:8786] [STUDENTS=a,b] [SHARD=K/N]"
	@echo "  make dask-certs          the certificates of a Dask cluster's TLS into dask-certs/ (docs/scaling.md)"
	@echo "  make feedback            feedback pages into course-data/feedback/"
	@echo "  make release-feedback    feedback pages into the exchange for the students"
	@echo "                           (and a list of those who did not hand in through it)"
	@echo "  make feedback-zip        the feedback of students collected from an LMS, one zip"
	@echo "  make grades              grades.csv, Canvas and roster exports, summary, report pages"
	@echo "  make canvas-push         ASSIGNMENT=name [DRY_RUN=1]: grades and feedback summaries into Canvas"
	@echo "  make push-grades         ASSIGNMENT=name [DRY_RUN=1]: the same through c.GradePush.plugin_class"
	@echo "  make lti-keys            the LTI 1.3 tool's key pair and JWKS, in course-data/lti/ (docs/lti.md)"
	@echo "  make lti-roster          [DRY_RUN=1]: the LTI platform's learners (NRPS) into the roster"
	@echo "  make lti-push            ASSIGNMENT=name [DRY_RUN=1]: scores into the LTI platform's gradebook (AGS)"
	@echo "  make item-analysis       ASSIGNMENT=name: each check's difficulty and discrimination (also in make grades)"
	@echo "  make regrade             ASSIGNMENT=name [STUDENTS=a,b] [REASON=\"...\"] [APPLY=1]: who changes, then change them"
	@echo "  make grade-explain       ASSIGNMENT=name [STUDENTS=a,b] [SEED=text]: the explain answers by their rubric, at the terminal"
	@echo "  make grading-page        [PORT=8765]: the staff's grading page of the explain answers, grouped, shared among graders"
	@echo "  make defense-questions   ASSIGNMENT=name [STUDENTS=a,b]: one printable page of oral questions per student"
	@echo "  make similarity          pairs of students whose answers look alike (docs/similarity.md)"
	@echo "  make check-config        check nbgrader_config.py (every target above does it first)"
	@echo "Terms (docs/terms.md)"
	@echo "  make new-term            TO=../gptcourse-2027-spring TERM_NAME=2027-spring START=2027-01-18"
	@echo "                           [ZONE=Europe/Berlin] [WEEKS=N] [COURSE_ID=...]: next term's course, due"
	@echo "                           dates moved by whole weeks, a new salt and course id, nothing of this term's"
	@echo "  make archive-term        the term's data in term-archives/, one archive and its sha256;"
	@echo "                           PURGE=1 CONFIRM=yes [ARCHIVE=...]: then, after c.TermRetention.grace_days,"
	@echo "                           remove every file of the students' work or values (grades stay)"
	@echo "  make restore-term        ARCHIVE=term-archives/NAME.tar.gz: an archived term back, checksum checked"
	@echo "Publishing the course without its answers (docs/publishing.md)"
	@echo "  make publish             _publish/: the site, the released notebooks, the students' wheel, a page"
	@echo "                           for students; refused if any byte holds a solution, hidden test or"
	@echo "                           rubric text, decoded (archives, PDFs, base64, %-escapes, UTF-16/32)"
	@echo "  make leak-scan           search _publish/ for every solution, hidden test and rubric text; exit 1 on a hit"
	@echo "  make publish-repo        REMOTE=git-url [PUBLISH_BRANCH=main]: _publish/ into a separate public"
	@echo "                           repository; the course's own, however spelled, is refused"
	@echo "  make release-solutions   ASSIGNMENT=name: its solutions into _publish/ once no student can still earn"
	@echo "                           points on it under the late policy [DESPITE_OPEN_STUDENTS=ids: all those who can]"
	@echo "Homework, a student's side on this machine (ASSIGNMENT=name [STUDENT=id])"
	@echo "  make fetch               fetch the released assignment"
	@echo "  make submit              submit it"
	@echo "  make fetch-feedback      fetch the released feedback"

# Python environment: rebuilt when the lock, requirements.txt or a pyproject.toml change.
# requirements.lock pins every package with its hashes (pip refuses any other file), so it
# is installed whole and without pip's own resolution (--no-deps: it holds every dependency
# but those left out on purpose, LEFT_OUT below, which an older .venv loses);
# requirements.txt is the list it is made from: after editing it, run `make lock`.
# Two distributions of this repository, both editable: the course package (pyproject.toml,
# the students' wheel) and the grader (src/grader/pyproject.toml, course-grader).
GRADER_PROJECT := src/grader/pyproject.toml

# The lock is installed by uv, pinned in the lock itself (pip installs it first, by its hash):
# it installs and compiles side by side, 37 s where pip took 155 s. It looks where pip is
# told to look (pip's find-links: torch's CPU build may lie there); where uv cannot install
# the lock, pip does.
$(STAMP): requirements.lock requirements.txt pyproject.toml $(wildcard $(GRADER_PROJECT))
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	awk '/^[^ ]/ { keep = ($$0 ~ /^uv==/) } keep' requirements.lock > $(VENV)/uv-pin.txt
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --require-hashes \
	  --no-deps -r $(VENV)/uv-pin.txt
	links=$$({ echo "$$PIP_FIND_LINKS"; $(BIN)/python -m pip config get global.find-links \
	  2>/dev/null; } | tr ' ' '\n' | sed -n 's/^./--find-links=&/p'); \
	$(BIN)/uv pip install --quiet --python $(BIN)/python --require-hashes --no-deps \
	  --compile-bytecode $$links -r requirements.lock \
	|| $(BIN)/python -m pip install --quiet --disable-pip-version-check --require-hashes \
	  --no-deps -r requirements.lock
	$(BIN)/python -m pip uninstall --quiet --disable-pip-version-check --yes $(LEFT_OUT) \
	  2>/dev/null || true
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps \
	  -e . -e $(dir $(GRADER_PROJECT))
	touch $@

# The lock made again from requirements.txt and the dependencies of both pyproject.toml
# files (the grader's extras included), by pip-tools in a venv of its own (.lock-tools/);
# pip, not uv: torch's CPU build is found where pip looks (find-links), and its hash is
# that file's.
#
# LEFT_OUT are left out of the lock, and so of .venv (which installs the lock whole, with
# --no-deps): jsonschema's optional check of the "iri" format, pulled in by jupyter-events,
# builds 38 Earley grammars with lark each time jsonschema is imported, about 2 s of
# processor time in every process that reads a notebook (nbformat) or starts a Jupyter
# server. Nothing here validates an "iri"; without the package jsonschema skips that format.
PIP_TOOLS := pip-tools==7.6.2
LEFT_OUT := rfc3987-syntax lark
.PHONY: lock
lock:
	test -x .lock-tools/bin/pip-compile || { $(PYTHON) -m venv .lock-tools && \
	  .lock-tools/bin/pip install --quiet --disable-pip-version-check $(PIP_TOOLS); }
	grep -v '^-e' requirements.txt > .lock-tools/requirements.in
	cp requirements.lock .lock-tools/requirements.lock  # pip-compile keeps its versions
	.lock-tools/bin/pip-compile --quiet --generate-hashes --allow-unsafe --strip-extras \
	  --no-emit-index-url --no-emit-find-links --all-extras \
	  --output-file .lock-tools/requirements.lock pyproject.toml $(GRADER_PROJECT) \
	  .lock-tools/requirements.in
	awk -v left_out="^($$(echo $(LEFT_OUT) | tr ' ' '|'))==" \
	  '/^[^ ]/ { skip = ($$0 ~ left_out) } !skip' .lock-tools/requirements.lock > requirements.lock

# Debian packages, installed only where a command is missing (apt-get update first).
# Grading needs only the sandbox, bubblewrap; the tests also use the browser that
# checks the built site and the hub, npm, PostgreSQL and strace (which records every
# path the course's page names in tests/hub/test_pod_standin.py). The instructor's targets
# install only what grading needs, so a grader account without root can grade
# on a machine that has bubblewrap.
GRADING_PACKAGES := bwrap:bubblewrap
TEST_PACKAGES := chromium:chromium npm:npm /usr/lib/postgresql/*/bin/postgres:postgresql \
	patchelf:patchelf strace:strace
define install_missing
	@missing=""; for pair in $(1); do \
	  cmd=$${pair%%:*}; pkg=$${pair##*:}; \
	  command -v $$cmd >/dev/null 2>&1 || missing="$$missing $$pkg"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi
endef
system:
	$(call install_missing,$(GRADING_PACKAGES) $(TEST_PACKAGES))
grading-system:
	$(call install_missing,$(GRADING_PACKAGES))

# The course's own modules compiled once (quick when nothing changed): where Python is
# told not to write bytecode, every grader process and sandbox would compile them again.
setup: $(STAMP) system
	$(if $(wildcard src),$(BIN)/python -m compileall -q src $(wildcard testsupport) > /dev/null)

# .venv/bin on PATH: nbgrader runs the `alembic` command when it creates a gradebook.
# The tests run on TEST_WORKERS workers side by side (pytest-xdist; tests/conftest.py
# keeps each file, and the site's and the hub's folders, whole on one worker);
# TEST_WORKERS=0 runs them in one process. The slowest tests are listed at the end,
# so a run records where its time went. What the tests need is made first, side by side
# (make -j: the environment, the Debian packages, npm's proxy and axe-core and the
# students' wheels, each a prerequisite of test-setup).
TEST_WORKERS ?= 2
.PHONY: test-setup
test:
	@$(MAKE) --no-print-directory -j4 --output-sync=target test-setup
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadscope \
	  --durations=30 $(PYTEST_ARGS)
test-setup: setup

# --- set-up of the JupyterHub browser test (tests/hub/test_jupyterhub.py) ------
# JupyterHub's proxy, configurable-http-proxy, from npm into .hub-deps/ (git-ignored).
# (patchelf, in TEST_PACKAGES, lets the test's copy of .venv's interpreter, which may
# be readable by root only, find its library, so that the students' servers run it.)
HUB_PROXY := .hub-deps/node_modules/.bin/configurable-http-proxy
test-setup: $(HUB_PROXY)
$(HUB_PROXY): | system
	npm install --prefix .hub-deps --no-audit --no-fund --silent configurable-http-proxy@5
# --- end of the JupyterHub test set-up ------------------------------------------

# --- set-up of the site's accessibility test (tests/book/test_accessibility.py) ---
# axe-core from npm into .book-deps/ (git-ignored), injected into each page by the
# test, so nothing is fetched while it runs. The stamp names the version, so a new
# pin installs over an older copy (testsupport/accessibility.py checks the one it runs).
AXE_VERSION := 4.14.1
AXE := .book-deps/.axe-core-$(AXE_VERSION)
test-setup: $(AXE)
$(AXE): | system
	npm install --prefix .book-deps --no-audit --no-fund --silent axe-core@$(AXE_VERSION)
	touch $@
# --- end of the accessibility test set-up ---------------------------------------

# The quick subset: the folders of tests that grade no notebook, build no site and start
# no sandbox or server, less the few tests in them marked slow (a fresh interpreter that
# builds the 124M model); every test of the other folders is marked slow, so
# `pytest -m "not slow"` is the same.
test-fast: $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python -m pytest -n 2 --dist loadscope \
	  -m "not slow" tests/package tests/docs tests/units $(PYTEST_ARGS)

# The course site. Strict: a failing cell or any Sphinx warning fails the build.
# BOOK_OUT=DIR builds into DIR/_build instead (the build benchmark uses it).
# MathJax comes from npm and is served by the site itself, so pages load nothing
# from another host. .build-ok marks a build that finished without error.
# Executed pages are cached, keyed on each page's code only; the pages also read
# gptcourse, the student notebooks, nbgrader_config.py and the small trained GPT
# (book/_data), so when any of those change (BOOK_INPUTS_KEY differs) the cache is
# dropped and every page runs again.
BOOK_OUT ?= .
BOOK_BUILD = $(BOOK_OUT)/_build
BOOK_INPUTS_KEY = $$(find src/gptcourse exercises nbgrader_config.py book/_data -type f \
	-not -path '*/__pycache__/*' 2>/dev/null | LC_ALL=C sort | xargs cat | sha256sum | cut -c1-16)
# Of MathJax's files the site serves the component its pages load (MATHJAX_COMPONENT, as
# _config.yml's mathjax_path names it) and the folders of what that loads on demand (TeX
# extensions, fonts, the menu, accessibility and speech, the other renderer); not the
# dozen other combined components (15 MB that no page loads, copied, scanned for leaks and
# published).
MATHJAX_VERSION := 3.2.2
MATHJAX_COMPONENT := tex-chtml.js
MATHJAX := .book-deps/static/mathjax/.copied-$(MATHJAX_VERSION)

$(MATHJAX):
	@command -v npm >/dev/null 2>&1 || $(MAKE) system
	npm install --prefix .book-deps --no-audit --no-fund --silent mathjax@$(MATHJAX_VERSION)
	rm -rf .book-deps/static/mathjax
	mkdir -p .book-deps/static/mathjax
	cp .book-deps/node_modules/mathjax/es5/$(MATHJAX_COMPONENT) .book-deps/static/mathjax/
	find .book-deps/node_modules/mathjax/es5 -mindepth 1 -maxdepth 1 -type d \
	  -exec cp -r {} .book-deps/static/mathjax/ \;
	touch $@

# Each page's paired notebook, book/<page>.ipynb, is rewritten first when its page changed
# (book/_ext/pair_notebooks.py; the launch buttons open it: commit it with the page).
# Pages that need running are executed BOOK_JOBS at a time first (book/_ext/execute_pages.py)
# into the same cache, so the build itself only reads them. After the build, Pagefind
# indexes every word of the pages into _build/html/pagefind/ for the search page, and
# Chromium prints the whole book into one PDF (book/_ext/book_pdf.py; skipped when no
# page changed), which every page's download menu links.
BOOK_JOBS ?= $(shell nproc)
# The PDF needs a Chromium (chromium, chromium-browser or google-chrome, as
# book/_ext/book_pdf.py looks for them): Debian's chromium is installed when none is there.
.PHONY: book-system
book-system:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	  command -v google-chrome >/dev/null 2>&1 || { echo "installing Debian packages: chromium"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
# The site is built again only when a page, the configuration, the course's package or
# a released notebook is newer than the last finished build: `make book` twice builds once.
BOOK_SOURCES := _config.yml _toc.yml nbgrader_config.py \
	$(shell find book src/gptcourse exercises -type f -not -path '*/__pycache__/*' 2>/dev/null)
book: $(BOOK_BUILD)/html/.build-ok
$(BOOK_BUILD)/html/.build-ok: $(BOOK_SOURCES) | $(STAMP) $(MATHJAX) book-system
	rm -f $@
	@key=$(BOOK_INPUTS_KEY); \
	if [ -d $(BOOK_BUILD)/.jupyter_cache ] && [ "$$(cat $(BOOK_BUILD)/.inputs-key 2>/dev/null)" != "$$key" ]; then \
	  echo "gptcourse, exercises/, nbgrader_config.py or book/_data changed: running every page again"; \
	  rm -rf $(BOOK_BUILD)/.jupyter_cache $(BOOK_BUILD)/.doctrees; \
	fi
	$(BIN)/python book/_ext/pair_notebooks.py
	$(BIN)/python book/_ext/execute_pages.py $(BOOK_BUILD)/.jupyter_cache $(BOOK_JOBS)
	$(BIN)/jupyter-book build . --path-output $(BOOK_OUT) --warningiserror --nitpick --keep-going
	$(BIN)/python -m pagefind --site $(BOOK_BUILD)/html --output-subdir pagefind \
	  --exclude-selectors ".headerlink, details.hide > summary, .course-widget"
	$(BIN)/python book/_ext/book_pdf.py $(BOOK_BUILD)/html
	@echo $(BOOK_INPUTS_KEY) > $(BOOK_BUILD)/.inputs-key
	touch $@

# meta-device counting and the book build take a minute or two; grading a class of
# 60 notebooks with stock nbgrader, one worker and two takes several minutes (its
# per-notebook figures and the speed-up of two workers are the grader's speed goals).
benchmark: setup
	$(BIN)/python benchmarks/meta_device_counting.py
	$(BIN)/python benchmarks/book_build.py
	$(BIN)/python benchmarks/similarity.py
	$(BIN)/python benchmarks/grouping.py
	$(BIN)/python benchmarks/grading.py --students 30 --assignments logits-to-text,parameters \
	  --engines stock,local --jobs 1,2

# Homework: the student versions in exercises/ are generated from solutions/ by
# nbgrader (solution regions become stubs, hidden tests are removed). Run it after
# editing a notebook in solutions/; a test fails while exercises/ is out of date,
# and grading refuses until it is run. DUEDATE="2026-12-01 17:00:00 UTC" records
# the due date in the gradebook (DUEDATE=none removes it); the zone is UTC, an offset
# (+01:00) or an IANA name (Europe/Berlin), never an abbreviation such as PST; late
# submissions get the penalty set in nbgrader_config.py.
#
# The grading loop, with nbgrader's own commands (docs/instructor.md):
# release-to-exchange -> students fetch and submit -> collect -> autograde ->
# feedback -> release-feedback -> grades. autograde runs student code only inside
# the bubblewrap sandbox, JOBS students at a time, or on the workers of a Dask
# cluster with SCHEDULER=tls://host:8786 (docs/scaling.md); STUDENTS=a,b or SHARD=K/N
# grade a subset; ASSIGNMENT=name limits a target to one assignment.
#
# Every target that runs nbgrader first checks nbgrader_config.py and ASSIGNMENT
# (CHECK_CONFIG): nbgrader itself would skip a broken file and carry on with its
# defaults (a gradebook.db here, the exchange in /usr/local/share). Names and dates
# given on the command line reach the commands through the environment, quoted,
# so ids with spaces, accents or a leading '-' arrive intact.
# The assignments are the folders of solutions/ (sorted, as the grader lists them):
# a new assignment needs no edit here.
ASSIGNMENTS := $(sort $(notdir $(patsubst %/,%,$(wildcard solutions/*/))))
JOBS ?= $(shell nproc)
STUDENTS ?=
SHARD ?=
SCHEDULER ?=
ASSIGNMENT ?=
DUEDATE ?=
ROSTER ?=
STUDENT ?=
EXTENSIONS ?=
DESPITE_PUBLIC_SOLUTIONS ?=
REHEARSAL_STUDENTS ?= 4
ZIP ?=
LMS ?= canvas
export ZIP LMS
export ASSIGNMENT STUDENTS SHARD SCHEDULER DUEDATE ROSTER STUDENT REHEARSAL_STUDENTS EXTENSIONS
export DESPITE_PUBLIC_SOLUTIONS
THE_ASSIGNMENTS = $(if $(ASSIGNMENT),$(ASSIGNMENT),$(ASSIGNMENTS))
ON_PATH := PATH="$(CURDIR)/$(BIN):$$PATH"
NBGRADER := $(ON_PATH) $(BIN)/nbgrader
# the instructor's commands: nbgrader's own, and the grader's, one entry point
GRADER := $(ON_PATH) $(BIN)/python -m grader
CHECK_CONFIG = @$(GRADER) check-config --assignment="$$ASSIGNMENT" --duedate="$$DUEDATE"
# $(call for_each_assignment,COMMAND): COMMAND for each assignment (as $$assignment), in
# order, stopping at the first that fails with its exit status
define for_each_assignment
	for assignment in $(THE_ASSIGNMENTS); do \
	  $(1) || exit $$?; \
	done
endef
.PHONY: release roster check-config release-to-exchange fetch submit fetch-feedback collect \
	autograde feedback release-feedback feedback-zip grades rehearse rehearse-lms rehearse-lti

check-config: $(STAMP)
	$(CHECK_CONFIG)

release: $(STAMP)
	$(GRADER) release-lines
	$(CHECK_CONFIG)
	$(call for_each_assignment,$(NBGRADER) generate_assignment $$assignment --force \
	  && { [ -z "$$DUEDATE" ] || $(GRADER) due $$assignment "$$DUEDATE"; })

roster: $(STAMP)
	@test -n "$$ROSTER" || { echo "make roster ROSTER=students.csv"; exit 2; }
	$(CHECK_CONFIG)
	$(GRADER) roster "$$ROSTER"

# The students' extensions (student_id,assignment,extra_hours or new_due,note), by
# default extensions.csv here (git-ignored: it names students); the whole list, so
# a row removed removes that extension. Late penalties are charged again. A file that lets a
# student earn points on an assignment after its solutions went out is refused whole, unless
# DESPITE_PUBLIC_SOLUTIONS=1 (then a warning names each).
.PHONY: extensions
extensions: $(STAMP)
	@case "$$DESPITE_PUBLIC_SOLUTIONS" in ""|1) ;; *) \
	  echo "DESPITE_PUBLIC_SOLUTIONS=1, or leave it out; not '$$DESPITE_PUBLIC_SOLUTIONS'"; exit 2;; esac
	$(CHECK_CONFIG)
	$(GRADER) extensions $${EXTENSIONS:+"$$EXTENSIONS"} \
	  $${DESPITE_PUBLIC_SOLUTIONS:+--despite-public-solutions}

# After the late policy in nbgrader_config.py changed: every recorded grade charged again
# under it (of ASSIGNMENT's students, or every assignment's), naming whose late penalty
# changed, before -> after (docs/deadlines.md).
.PHONY: late-policy
late-policy: $(STAMP)
	$(CHECK_CONFIG)
	$(GRADER) apply-late-policy $(THE_ASSIGNMENTS)

release-to-exchange: $(STAMP)
	$(CHECK_CONFIG)
	$(call for_each_assignment,$(NBGRADER) release_assignment $$assignment --force)

# A student's side on one machine: make fetch / submit / fetch-feedback
# ASSIGNMENT=parameters [STUDENT=id]. With STUDENT, the student works in
# course-data/students/<id>/, which is also their HOME, so each simulated student
# has their own nbgrader cache and fetches only their own feedback; without it,
# in course-data/student-work/ as the current user. (On JupyterHub students use
# the Assignments tab instead.)
STUDENT_WORK ?= course-data/student-work
LOCAL_EXCHANGE := --course gptcourse --Exchange.root=$(CURDIR)/course-data/exchange
AS_STUDENT = @test -n "$(ASSIGNMENT)" || { echo "make $@ ASSIGNMENT=name [STUDENT=id]"; exit 2; }; \
	if [ -n "$$STUDENT" ]; then \
	  case "$$STUDENT" in */*|-*|.*|*'*'*|*+*) echo "STUDENT=$$STUDENT: not a student id"; exit 2;; esac; \
	  work="$(CURDIR)/course-data/students/$$STUDENT"; mkdir -p "$$work"; \
	  export HOME="$$work" USER="$$STUDENT" LOGNAME="$$STUDENT"; set -- "--student=$$STUDENT"; \
	else work="$(CURDIR)/$(STUDENT_WORK)"; mkdir -p "$$work"; set --; fi; \
	cd "$$work" && echo "as $${STUDENT:-$$USER}, in $$work:" && $(CURDIR)/$(BIN)/nbgrader
fetch: $(STAMP)
	$(CHECK_CONFIG)
	$(AS_STUDENT) fetch_assignment $(ASSIGNMENT) $(LOCAL_EXCHANGE)
submit: $(STAMP)
	$(CHECK_CONFIG)
	$(AS_STUDENT) submit $(ASSIGNMENT) $(LOCAL_EXCHANGE) "$$@"
fetch-feedback: $(STAMP)
	$(CHECK_CONFIG)
	$(AS_STUDENT) fetch_feedback $(ASSIGNMENT) $(LOCAL_EXCHANGE) "$$@"

collect: $(STAMP)
	$(CHECK_CONFIG)
	$(call for_each_assignment,$(NBGRADER) collect $$assignment --update)

# An LMS's "download all submissions" zip of one assignment (Canvas or Moodle) into
# course-data/submitted/, students matched through the roster (make roster first).
.PHONY: collect-zip
collect-zip: $(STAMP)
	@test -n "$$ZIP" -a -n "$$ASSIGNMENT" || \
	  { echo "make collect-zip ZIP=download.zip ASSIGNMENT=name [LMS=canvas|moodle]"; exit 2; }
	$(CHECK_CONFIG)
	$(GRADER) collect-zip "$$ASSIGNMENT" "$$ZIP" --lms="$$LMS" $${QUEUE:+--queue}

# The grading service in the foreground: each hand-in graded as it arrives (the exchange,
# the service's queue), until Ctrl-C or SIGTERM; at each student's due date it releases
# their feedback through the exchange; make release while it runs is picked up without a
# restart. make queue lists what it knows.
WORKERS ?= 1
.PHONY: serve queue
serve: $(STAMP) $(if $(SCHEDULER),,grading-system)
	$(CHECK_CONFIG)
	$(GRADER) serve --workers $(WORKERS) $${SCHEDULER:+"--scheduler=$$SCHEDULER"}
queue: $(STAMP)
	$(GRADER) queue

# With SCHEDULER the sandbox runs on the Dask workers: this machine needs no bubblewrap.
autograde: $(STAMP) $(if $(SCHEDULER),,grading-system)
	$(CHECK_CONFIG)
	$(call for_each_assignment,$(GRADER) autograde $$assignment --jobs $(JOBS) \
	  $${SCHEDULER:+"--scheduler=$$SCHEDULER"} $${STUDENTS:+"--students=$$STUDENTS"} \
	  $${SHARD:+"--shard=$$SHARD"})

.PHONY: dask-certs
dask-certs: $(STAMP)
	$(GRADER) dask-certs

feedback: $(STAMP)
	$(CHECK_CONFIG)
	$(call for_each_assignment,$(NBGRADER) generate_feedback $$assignment --force)

# Through the exchange for those who handed in through it (nbgrader's release_feedback);
# one line for each student whose feedback must go another way (make feedback-zip).
release-feedback: $(STAMP)
	$(CHECK_CONFIG)
	$(call for_each_assignment,$(GRADER) release-feedback $$assignment)

# The feedback pages of the students collected with make collect-zip, in one zip per
# assignment named as the LMS takes it back: course-data/lms/feedback-<assignment>.zip.
feedback-zip: $(STAMP)
	$(CHECK_CONFIG)
	$(call for_each_assignment,$(GRADER) feedback-zip $$assignment)

grades: $(STAMP)
	$(CHECK_CONFIG)
	$(GRADER) grades $(THE_ASSIGNMENTS)

# Each student's grade (as make grades exports it) and feedback summary into Canvas's
# gradebook, through its API (docs/canvas.md): CANVAS_URL, CANVAS_COURSE and
# CANVAS_TOKEN_FILE, or c.CanvasPush in nbgrader_config.py. DRY_RUN=1 writes nothing.
.PHONY: canvas-push
canvas-push: $(STAMP)
	@test -n "$$ASSIGNMENT" || { echo "make canvas-push ASSIGNMENT=name [DRY_RUN=1]"; exit 2; }
	$(CHECK_CONFIG)
	$(GRADER) canvas-push "$$ASSIGNMENT" $(if $(filter 1 yes true,$(DRY_RUN)),--dry-run)

# The same through the push c.GradePush.plugin_class names in nbgrader_config.py (Canvas's
# by default; docs/canvas.md: another LMS's push as a plugin class).
.PHONY: push-grades
push-grades: $(STAMP)
	@test -n "$$ASSIGNMENT" || { echo "make push-grades ASSIGNMENT=name [DRY_RUN=1]"; exit 2; }
	$(CHECK_CONFIG)
	$(GRADER) push-grades "$$ASSIGNMENT" $(if $(filter 1 yes true,$(DRY_RUN)),--dry-run)

# The course as an LTI 1.3 tool (docs/lti.md), its registration in c.LtiTool: the tool's
# key pair (made once; the private key stays in course-data/lti/, 0600), the platform's
# learners into the roster (NRPS), an assignment's scores into its gradebook (AGS).
# DRY_RUN=1 writes nothing.
.PHONY: lti-keys lti-roster lti-push
lti-keys: $(STAMP)
	$(GRADER) lti-keys

lti-roster: $(STAMP)
	$(CHECK_CONFIG)
	$(GRADER) lti-roster $(if $(filter 1 yes true,$(DRY_RUN)),--dry-run)

lti-push: $(STAMP)
	@test -n "$$ASSIGNMENT" || { echo "make lti-push ASSIGNMENT=name [DRY_RUN=1]"; exit 2; }
	$(CHECK_CONFIG)
	$(GRADER) lti-push "$$ASSIGNMENT" $(if $(filter 1 yes true,$(DRY_RUN)),--dry-run)

# Each check's difficulty and discrimination (docs/regrading.md):
# course-data/reports/<assignment>-items.csv and .html. make grades writes them too.
.PHONY: item-analysis regrade grade-explain grading-page defense-questions
item-analysis: $(STAMP)
	@test -n "$$ASSIGNMENT" || { echo "make item-analysis ASSIGNMENT=name"; exit 2; }
	$(CHECK_CONFIG)
	$(GRADER) item-analysis "$$ASSIGNMENT"

# After a check was changed in solutions/ and make release run: grade again against the
# current release. Without APPLY=1 it prints who would change and writes only a record
# under course-data/regrades/; APPLY=1 changes those students and no one else.
REASON ?=
APPLY ?=
export REASON APPLY
regrade: $(STAMP) grading-system
	@test -n "$$ASSIGNMENT" || { echo "make regrade ASSIGNMENT=name [STUDENTS=a,b] [REASON=\"...\"] [APPLY=1]"; exit 2; }
	$(CHECK_CONFIG)
	$(GRADER) regrade "$$ASSIGNMENT" --jobs $(JOBS) $${STUDENTS:+"--students=$$STUDENTS"} \
	  --reason="$$REASON" $(if $(filter 1 yes true,$(APPLY)),--apply)

# The explain answers graded by rubrics/ASSIGNMENT.yaml at the terminal, in an order kept
# between sittings; it resumes where it stopped (docs/explain-questions.md).
grade-explain: $(STAMP)
	@test -n "$$ASSIGNMENT" || { echo "make grade-explain ASSIGNMENT=name [STUDENTS=a,b] [SEED=text]"; exit 2; }
	$(CHECK_CONFIG)
	$(GRADER) grade-explain "$$ASSIGNMENT" $${STUDENTS:+"--students=$$STUDENTS"} $${SEED:+"--seed=$$SEED"}

# The staff's grading page: the explain answers of each question in groups, graded by the
# rubric's items, the class shared among c.GradingPage.graders; on 127.0.0.1, one address
# per grader printed (docs/grading-page.md).
grading-page: $(STAMP)
	$(CHECK_CONFIG)
	$(GRADER) grading-page $${PORT:+"--port=$$PORT"}

# Per student, three questions about their own model and code with the expected answers,
# one printable page each, in reports/defense-ASSIGNMENT/ (docs/explain-questions.md).
defense-questions: $(STAMP)
	@test -n "$$ASSIGNMENT" || { echo "make defense-questions ASSIGNMENT=name [STUDENTS=a,b]"; exit 2; }
	$(CHECK_CONFIG)
	$(GRADER) defense-questions "$$ASSIGNMENT" $${STUDENTS:+"--students=$$STUDENTS"}

# Pairs of students whose answer cells look alike, for a person to read (docs/similarity.md):
# course-data/reports/similarity-<assignment>.csv and .html. It changes no grade.
.PHONY: similarity
similarity: $(STAMP)
	$(CHECK_CONFIG)
	$(GRADER) similarity $(THE_ASSIGNMENTS)

# --- terms (docs/terms.md) ---------------------------------------------------------
# make new-term writes next term's course into TO (which must not exist): the course's own
# content (c.TermCarryOver.carried), its due dates moved by whole weeks on the clocks of ZONE
# (the fewest that put the first due date on or after START, or WEEKS), a new salt named
# after TERM_NAME, a course id of its own (COURSE_ID, or this one's with the term replaced
# or added); nothing of this term's state (data, reports, released solutions, extensions).
# make archive-term writes the term's data into term-archives/ (git-ignored) with a .sha256
# file; PURGE=1 CONFIRM=yes removes every file of the students' work or values once
# c.TermRetention.grace_days have passed, keeping the grades and the item analysis.
# make restore-term ARCHIVE=... puts an archive back (then make regrade works again).
TO ?=
TERM_NAME ?=
START ?=
WEEKS ?=
ZONE ?= UTC
COURSE_ID ?=
ARCHIVE ?=
PURGE ?=
CONFIRM ?=
export TO TERM_NAME START WEEKS ZONE COURSE_ID ARCHIVE
.PHONY: new-term archive-term restore-term
new-term: $(STAMP)
	@test -n "$$TO" -a -n "$$TERM_NAME" -a -n "$$START$$WEEKS" || { echo "make new-term TO=../gptcourse-2027-spring TERM_NAME=2027-spring START=2027-01-18 [ZONE=Europe/Berlin] [WEEKS=N] [COURSE_ID=...]"; exit 2; }
	$(CHECK_CONFIG)
	$(GRADER) new-term "$$TO" --term "$$TERM_NAME" --zone "$$ZONE" \
	  $${START:+--start "$$START"} $${WEEKS:+--weeks "$$WEEKS"} \
	  $${COURSE_ID:+--course-id "$$COURSE_ID"}

archive-term: $(STAMP)
	$(CHECK_CONFIG)
	$(GRADER) archive-term $(if $(filter 1 yes true,$(PURGE)),--purge \
	  $${ARCHIVE:+--archive "$$ARCHIVE"} $(if $(filter yes,$(CONFIRM)),--confirm))

restore-term: $(STAMP)
	@test -n "$$ARCHIVE" || { echo "make restore-term ARCHIVE=term-archives/NAME.tar.gz"; exit 2; }
	$(GRADER) restore-term "$$ARCHIVE"

# A whole fake class on this machine, in course-data/rehearsal/ (docs/instructor.md).
rehearse: $(STAMP) grading-system
	$(CHECK_CONFIG)
	$(GRADER) rehearse --students "$$REHEARSAL_STUDENTS"

# A class that hands in through Canvas, in course-data/rehearsal-lms/ (docs/instructor.md).
rehearse-lms: $(STAMP) grading-system
	$(CHECK_CONFIG)
	$(GRADER) rehearse-lms

# A class whose LMS is an LTI 1.3 platform started on 127.0.0.1, in
# course-data/rehearsal-lti/: a student launched, the roster by NRPS, scores by AGS.
rehearse-lti: $(STAMP) grading-system
	$(CHECK_CONFIG)
	$(GRADER) rehearse-lti

# --- publishing the course without its answers (docs/publishing.md) ---------------
# make publish builds the site, then writes _publish/ (git-ignored) whole: the site, the
# released notebooks of exercises/ (refused while they differ from what solutions/
# generates), the students' wheel of the course package and its sha256, students.html,
# and the solutions released so far (solutions-released.csv); every byte is searched for
# the solutions and hidden tests of solutions/ and the texts of rubrics/ first, under every
# layer it is decoded from, and a bundle that holds one is refused, naming the file. The released notebooks install the wheel from the site
# c.CourseSite.url names (make release writes the line). make publish-repo commits
# _publish/ to a separate public repository (for Colab's and Binder's launch buttons);
# make release-solutions adds an assignment's solutions, hidden tests out, once no student
# can still hand it in for points under the late policy (extensions and late days
# included); DESPITE_OPEN_STUDENTS=ids (comma-separated, or @file) releases them all the same
# when it names exactly every student who still can.
REMOTE ?=
PUBLISH_BRANCH ?= main
DESPITE_OPEN_STUDENTS ?=
export REMOTE PUBLISH_BRANCH DESPITE_OPEN_STUDENTS
.PHONY: publish publish-repo release-solutions leak-scan
publish: book
	$(CHECK_CONFIG)
	$(GRADER) publish --site "$(BOOK_BUILD)/html"

leak-scan: $(STAMP)
	$(GRADER) leak-scan

publish-repo: $(STAMP)
	@test -n "$$REMOTE" || { echo "make publish-repo REMOTE=git-url [PUBLISH_BRANCH=main]"; exit 2; }
	$(CHECK_CONFIG)
	$(GRADER) publish-repo "$$REMOTE" --branch "$$PUBLISH_BRANCH"

release-solutions: book
	@test -n "$$ASSIGNMENT" || { echo "make release-solutions ASSIGNMENT=name"; exit 2; }
	$(CHECK_CONFIG)
	$(GRADER) release-solutions "$$ASSIGNMENT" --site "$(BOOK_BUILD)/html" \
	  $${DESPITE_OPEN_STUDENTS:+--despite-open-students "$$DESPITE_OPEN_STUDENTS"}

# The test of the released install line (tests/publish/test_install_line.py) installs the
# wheel from the bundle into a fresh venv offline: its dependencies (torch, tiktoken, numpy
# and theirs, at the lock's versions) are downloaded here once, at set-up, into
# .student-wheels/ (git-ignored), from wherever pip finds them on this machine.
STUDENT_WHEELS := .student-wheels/.complete
test-setup: $(STUDENT_WHEELS)
$(STUDENT_WHEELS): requirements.lock pyproject.toml | $(STAMP)
	$(BIN)/python -m testsupport.student_wheels .student-wheels
# --- end of publishing -----------------------------------------------------------------

clean:
	rm -rf _build
