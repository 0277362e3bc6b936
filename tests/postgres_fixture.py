"""Session fixture: one real PostgreSQL server for the gradebook tests.

Load it with ``pytest_plugins = ["postgres_fixture"]`` so every test module shares
the one server. It installs Debian's ``postgresql`` when the server binaries are
missing and runs the server as the ``postgres`` user in a temporary directory on
127.0.0.1. If it cannot start, the tests that use it fail (they never skip).
"""

import itertools

import pytest

from testsupport.postgres import PostgresError, TemporaryPostgres

_database_numbers = itertools.count(1)


@pytest.fixture(scope="session")
def postgres_server():
    server = TemporaryPostgres()
    try:
        server.start()
    except PostgresError as error:
        pytest.fail(f"PostgreSQL is needed for the shared gradebook tests and could not "
                    f"start:\n{error}", pytrace=False)
    yield server
    server.stop()


@pytest.fixture
def postgres_database(postgres_server):
    """The URL of a new, empty database on the session's server."""
    return postgres_server.create_database(f"gradebook_{next(_database_numbers)}")
