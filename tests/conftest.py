"""What every folder of the tests shares: the quick subset by folder, and the tiny course.

The tests mirror what they test, one folder each:

    package      the gptcourse package and its command line
    docs         the README's doors, the documents' links, the package's page
    units        the grader's pieces, with no notebook graded, sandbox, site or server:
                 a folder per wing of src/grader/ (ground/ for its top-level modules,
                 commands/ for autograde, engines and cli), a file per module
    sandbox      sandboxes and kernels started for real
    submissions  graded batches of honest, broken and hostile submissions
    instructor   the instructor's loop: make targets, nbgrader's commands, grades out
    scale        grading in parallel, on Dask and into PostgreSQL
    book         the course site
    hub          a real JupyterHub in a browser
    service      the grading service (`python -m grader serve`) as a real process

`make test` and `make test-fast` run the tests on two workers side by side
(pytest-xdist), each test file whole on one worker, the site's on one, the publishing
tests on one, the hub's on one, and the files that take one costly session
set-up (SHARED_SETUPS: the rehearsal, the serial batch, the 124M model) on one; `make
test TEST_WORKERS=0` runs them in one process. docs/testing.md says where the time goes.

The quick subset (`make test-fast`, `pytest -m "not slow"`) is package/, docs/ and units/,
less the few tests there marked slow by hand (a fresh interpreter that builds the 124M
model); every test in any other folder is marked slow. Helpers live in testsupport/.
"""

import ast
import collections
import functools
import itertools
import os
import shutil
import sys
import tempfile

import pytest

from grader.numerics import fork_safe_numerics

# Where Python is told not to write bytecode (PYTHONDONTWRITEBYTECODE, as on some CI
# machines), pytest would rewrite and compile the assertions of every test module in each
# worker at each run, seconds of a quick run. The test modules' rewritten bytecode is kept
# (tests/**/__pycache__, git-ignored) and read by the next run; the processes the tests
# start are told what the environment tells them.
sys.dont_write_bytecode = False

# The tests' processes, and what they start, run their numeric libraries as the grader does
# (grader/numerics.py), set before anything loads torch: some fork grading workers
# themselves, and two test workers share the machine's cores.
fork_safe_numerics()

from testsupport.course import SHARED_RELEASES  # noqa: E402
from testsupport.postgres import PostgresError, TemporaryPostgres  # noqa: E402

QUICK_FOLDERS = {"package", "docs", "units"}
# Folders whose tests must run on one worker when the tests run side by side
# (pytest-xdist, `make test`): the site's tests read the course's own _build/, the
# publishing tests write its _publish/ (each on its worker; the first to run `make book`
# builds the site while the other waits, testsupport.course.site_build_lock); the hub's
# tests make the same system accounts and their homes.
ONE_WORKER = {"book": "site", "publish": "publish", "hub": "hub"}
# Set-ups made once per test process that cost more than most test files (session fixtures
# of a folder's conftest.py: a rehearsal of a class, a batch graded, the 124M model): the
# files whose tests or fixtures take one run on one worker, so it is made once, not once
# on each worker.
SHARED_SETUPS = ("rehearsal", "serial_sqlite_run", "model_124m")
# The longest units of work (each four to fifteen minutes of one worker in a whole
# run, docs/testing.md), handed out first and in this order; the others follow in the order
# of collection. A long unit taken last keeps one worker busy while the other, out of work,
# waits for it; taken first, the short files that end the run fill both workers. The
# publishing unit comes after the site's, whose build it reads.
LONGEST_FIRST = ("site", "hub", "submissions/test_honest_students.py",
                 "instructor/test_assignments.py", "publish", "serial_sqlite_run")
TESTS = os.path.dirname(os.path.abspath(__file__))
_database_numbers = itertools.count(1)


def share_of(path):
    """The unit of work a test runs in when the tests run side by side: its folder's
    shared name in ONE_WORKER, else the name of the shared set-up it takes
    (SHARED_SETUPS), else its file. `path` is relative to tests/."""
    folder = path.split("/")[0]
    if folder in ONE_WORKER:
        return ONE_WORKER[folder]
    return _setup_units().get(path, path)


def setups_taken(source):
    """The SHARED_SETUPS that a test file's functions (tests and fixtures) take by name,
    less those the file makes itself (a module fixture of the same name)."""
    if not any(name in source for name in SHARED_SETUPS):
        return []
    taken, made = set(), set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            taken.update(arg.arg for arg in node.args.args + node.args.kwonlyargs)
            made.add(node.name)
    return sorted(taken.intersection(SHARED_SETUPS) - made)


@functools.lru_cache(maxsize=None)
def _setup_units():
    """{test file relative to tests/: its unit}, for the files that take a shared set-up;
    a file that takes two joins their units into one."""
    unit = {name: name for name in SHARED_SETUPS}

    def root(name):
        while unit[name] != name:
            name = unit[name]
        return name

    taken = {}
    for directory, _, files in os.walk(TESTS):
        for name in files:
            if name.startswith("test_") and name.endswith(".py"):
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8") as handle:
                    setups = setups_taken(handle.read())
                if setups:
                    taken[os.path.relpath(path, TESTS).replace(os.sep, "/")] = setups
                    for other in setups[1:]:
                        unit[root(other)] = root(setups[0])
    return {path: root(setups[0]) for path, setups in taken.items()}


def runs_tests(config):
    """Whether this process runs tests: a worker of `pytest -n 2`, or a run without workers.
    The controller of the workers only hands the tests out, so it imports nothing that only
    the tests use (nbgrader: 1.5 s before the workers start)."""
    return hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None)


def pytest_configure(config):
    """In a process that runs tests, nbgrader asks alembic once; in the first process, the
    run's folder of released courses (testsupport.course.released_once), made before the
    workers start so that they inherit it: a course is released once per run, not once per
    worker."""
    if runs_tests(config):
        import nbgrader.api

        # A new gradebook asks `alembic heads` for the version it records, a fresh
        # interpreter of a second or more each time; the answer is the installed
        # nbgrader's, the same for every gradebook, so each test process asks once (what
        # the grader's own commands run, in their processes, still asks for itself).
        if not hasattr(nbgrader.api.get_alembic_version, "cache_info"):
            nbgrader.api.get_alembic_version = functools.cache(
                nbgrader.api.get_alembic_version)
    if hasattr(config, "workerinput") or os.environ.get(SHARED_RELEASES):
        return
    folder = tempfile.mkdtemp(prefix="released-courses-")
    os.environ[SHARED_RELEASES] = folder
    config.add_cleanup(lambda: (shutil.rmtree(folder, ignore_errors=True),
                                os.environ.pop(SHARED_RELEASES, None)))


def pytest_collection_modifyitems(config, items):
    """Every test outside the quick folders marked slow; the units of LONGEST_FIRST moved
    to the front, each unit's tests kept together and in their order."""
    for item in items:
        folder = os.path.relpath(str(item.path), TESTS).split(os.sep)[0]
        if folder not in QUICK_FOLDERS:
            item.add_marker(pytest.mark.slow)
    place = {unit: rank for rank, unit in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: place.get(unit_of(item.nodeid), len(place)))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """Side by side (`pytest -n 2`), each unit of `share_of` goes whole to one worker, so that
    its module-scoped fixtures are made once and the shared folders are used by one worker
    at a time. The units keep the order of collection, which puts the longest first
    (LONGEST_FIRST): the site's and the hub's are the first two the workers take."""
    from xdist.scheduler import LoadScopeScheduling

    class ByShare(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            return share_of(nodeid.split("::")[0].split("/", 1)[1])

    config.option.loadscopereorder = False
    return ByShare(config, log)


_seconds = collections.Counter()  # (worker, unit) -> seconds of set-up, test and tear-down


def unit_of(nodeid):
    """The unit of work (share_of) of a test's node id, "tests/..." or "..." under tests/."""
    path = nodeid.split("::")[0]
    return share_of(path.split("/", 1)[1] if path.startswith("tests/") else path)


def pytest_runtest_logreport(report):
    worker = getattr(getattr(getattr(report, "node", None), "gateway", None), "id", "main")
    _seconds[worker, unit_of(report.nodeid)] += report.duration


def units_summary(seconds, longest=10):
    """The lines that say how long each worker ran and the longest units of work, from
    {(worker, unit): seconds}."""
    workers, units = collections.Counter(), collections.Counter()
    for (worker, unit), spent in seconds.items():
        workers[worker] += spent
        units[unit] += spent
    lines = ["seconds per worker: " + ", ".join(
        f"{worker} {spent:.0f}" for worker, spent in sorted(workers.items()))]
    lines += [f"{spent:8.1f}s  {unit}" for unit, spent in units.most_common(longest)]
    return lines


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter):
    """After the slowest thirty: each worker's seconds and the ten longest units of work,
    to see whether the units are balanced (docs/testing.md)."""
    if _seconds:
        terminalreporter.section("longest units of work")
        for line in units_summary(_seconds):
            terminalreporter.write_line(line)


@pytest.fixture(scope="module")
def tiny_course(tmp_path_factory):
    """The tiny course released (testsupport.tiny_course), one copy per test module."""
    from testsupport.tiny_course import make_course

    return make_course(str(tmp_path_factory.mktemp("cli") / "course"))


@pytest.fixture
def no_regrade_requests(tiny_course):
    """The module's tiny course with no regrade request before the test, none after it."""
    from grader.recording.asked_regrades import requests_folder
    from grader.settings import load

    folder = requests_folder(load(tiny_course))
    shutil.rmtree(folder, ignore_errors=True)
    yield
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_server():
    """One real PostgreSQL server for the whole test run (testsupport.postgres), on 127.0.0.1. If it
    cannot start, the tests that use it fail (they never skip)."""
    server = TemporaryPostgres()
    try:
        server.start()
    except PostgresError as error:
        pytest.fail(f"PostgreSQL is needed for these tests and could not start:\n{error}",
                    pytrace=False)
    yield server
    server.stop()


@pytest.fixture
def postgres_database(postgres_server):
    """The URL of a new, empty database on the test run's server."""
    return postgres_server.create_database(f"gradebook_{next(_database_numbers)}")
