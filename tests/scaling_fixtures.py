"""Session fixtures for the scaling tests (load with pytest_plugins; see testsupport.scaling).

The assignment is released once per session into a SQLite gradebook and once
into a PostgreSQL template database; each run starts from a copy. The serial
run into SQLite is the reference the other runs are compared with.
"""

import pytest

from testsupport.scaling import (GradedRun, batch_course, gradebook_rows, output_files,
                                 release, run_grader, sqlite_path)
from testsupport.gradebook import sqlite_url


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
    run_grader(course, "--jobs", "1")
    db_url = sqlite_url(course)
    return GradedRun(course, db_url, kinds, gradebook_rows(db_url), output_files(course))
