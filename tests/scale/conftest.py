"""Session fixtures of the scaling tests (see testsupport.scaling).

One real PostgreSQL server (tests/conftest.py's `postgres_server`) serves every test
of the folder. It installs Debian's ``postgresql`` when the server binaries are
missing and runs the server as the ``postgres`` user in a temporary directory on
127.0.0.1. If it cannot start, the tests that use it fail (they never skip).

The assignment is released once per session into a SQLite gradebook and once
into a PostgreSQL template database; each run starts from a copy. The serial
run into SQLite is the reference the other runs are compared with.
"""

import pytest

from testsupport.gradebook import sqlite_url
from testsupport.course import run_grader
from testsupport.scaling import (ASSIGNMENT, GRADER_TIMEOUT, GradedRun, batch_course,
                                 gradebook_rows, output_files, release, sqlite_path)


@pytest.fixture(scope="session")
def released_sqlite_gradebook(tmp_path_factory):
    """A SQLite gradebook file holding the released assignment and no students."""
    course, _ = batch_course(str(tmp_path_factory.mktemp("release-sqlite")), students=[])
    release(course)
    return sqlite_path(course)


@pytest.fixture(scope="session")
def released_postgres_template(postgres_server, tmp_path_factory):
    """A PostgreSQL database holding the released assignment, used as a template."""
    course, _ = batch_course(str(tmp_path_factory.mktemp("release-postgres")), students=[])
    release(course, postgres_server.create_database("released"))
    return "released"


@pytest.fixture
def released_postgres_database(postgres_server, released_postgres_template, request):
    """A new PostgreSQL gradebook holding the released assignment and no students."""
    name = "graded_" + "".join(c if c.isalnum() else "_" for c in request.node.name)[:50]
    return postgres_server.create_database(name, template=released_postgres_template)


@pytest.fixture(scope="session")
def serial_sqlite_run(tmp_path_factory, released_sqlite_gradebook):
    """The batch graded by one worker into the default SQLite gradebook: the reference."""
    course, kinds = batch_course(str(tmp_path_factory.mktemp("serial")), released_sqlite_gradebook)
    run_grader(course, ASSIGNMENT, "--jobs", "1", timeout=GRADER_TIMEOUT, check=True)
    db_url = sqlite_url(course)
    return GradedRun(course, db_url, kinds, gradebook_rows(db_url), output_files(course))
