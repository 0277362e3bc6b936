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
(pytest-xdist), each test file whole on one worker, the site's and the publishing
tests together on one, the hub's on one; `make test TEST_WORKERS=0` runs them in one
process.

The quick subset (`make test-fast`, `pytest -m "not slow"`) is package/, docs/ and units/,
less the few tests there marked slow by hand (a fresh interpreter that builds the 124M
model); every test in any other folder is marked slow. Helpers live in testsupport/.
"""

import itertools
import os

import pytest

from grader.numerics import fork_safe_numerics

# The tests' processes, and what they start, run their numeric libraries as the grader does
# (grader/numerics.py), set before anything loads torch: some fork grading workers
# themselves, and two test workers share the machine's cores.
fork_safe_numerics()

from testsupport.postgres import PostgresError, TemporaryPostgres  # noqa: E402
from testsupport.tiny_course import make_course  # noqa: E402

QUICK_FOLDERS = {"package", "docs", "units"}
# Folders whose tests must run on one worker when the tests run side by side
# (pytest-xdist, `make test`): the site's tests and the publishing tests build the
# site and the bundle in the course's own _build/ and _publish/; the hub's tests make
# the same system accounts and their homes.
ONE_WORKER = {"book": "site", "publish": "site", "hub": "hub"}
TESTS = os.path.dirname(os.path.abspath(__file__))
_database_numbers = itertools.count(1)


def share_of(path):
    """The unit of work a test runs in when the tests run side by side: its file, or its
    folder's shared name in ONE_WORKER. `path` is relative to tests/."""
    return ONE_WORKER.get(path.split("/")[0], path)


def pytest_collection_modifyitems(config, items):
    for item in items:
        folder = os.path.relpath(str(item.path), TESTS).split(os.sep)[0]
        if folder not in QUICK_FOLDERS:
            item.add_marker(pytest.mark.slow)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """Side by side (`pytest -n 2`), each unit of `share_of` goes whole to one worker, so that
    its module-scoped fixtures are made once and the shared folders are used by one worker
    at a time. The units keep the order of collection: the site's and the hub's, the
    longest, are among the first two each worker takes."""
    from xdist.scheduler import LoadScopeScheduling

    class ByShare(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            return share_of(nodeid.split("::")[0].split("/", 1)[1])

    config.option.loadscopereorder = False
    return ByShare(config, log)


@pytest.fixture(scope="module")
def tiny_course(tmp_path_factory):
    """The tiny course released (testsupport.tiny_course), one copy per test module."""
    return make_course(str(tmp_path_factory.mktemp("cli") / "course"))


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
