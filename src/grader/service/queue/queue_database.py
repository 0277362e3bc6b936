"""The queue's database: an SQLite file beside the gradebook, or the gradebook's PostgreSQL.

`queue_database` opens the one a path or URL names. The store writes its SQL
once (SQLAlchemy Core `text()`, named parameters) and runs it through
`QueueDatabase.connection` (reads) and `QueueDatabase.transaction` (one change
of state); the two backends differ only here:

- the schema's few types (the key, floating point);
- how a write transaction keeps every other writer out until it ends, so
  that a claim, which reads every waiting row before it picks one, and a
  hand-in, which looks for the student's latest before it adds a row, are
  never interleaved: SQLite takes its write lock at once (BEGIN IMMEDIATE);
  PostgreSQL takes ``LOCK TABLE jobs IN EXCLUSIVE MODE``, which queues
  every other writer (and ``SELECT ... FOR UPDATE``) behind it while plain
  reads go on. ``SELECT ... FOR UPDATE`` alone would not do: it locks the
  rows a claim reads, not the row a hand-in is about to add, so two hand-ins
  of the same bytes could both miss the other and neither be a duplicate.
  The queue changes a few times a second at most: writers waiting in turn
  cost nothing;
- where the tables live: in PostgreSQL, the schema ``grader_service`` of the
  gradebook's database (no name shared with nbgrader's tables).

Each connection is opened for one method and closed after it (no pool), so a
store may be used from any thread, and from processes forked after it was made.
"""

import contextlib
import os
from collections.abc import Iterator, Mapping
from typing import Any

import sqlalchemy
import sqlalchemy.exc
from sqlalchemy.pool import NullPool

from ...settings import shown_url, with_postgres_driver

SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    id {key},
    student TEXT NOT NULL,
    assignment TEXT NOT NULL,
    digest TEXT NOT NULL,
    files TEXT NOT NULL,
    source TEXT NOT NULL,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    arrived TEXT NOT NULL,
    graded TEXT,
    score {real},
    max_score {real},
    checks TEXT NOT NULL DEFAULT '[]',
    reason TEXT NOT NULL DEFAULT '',
    worker TEXT,
    lease_until {real}
);
CREATE INDEX IF NOT EXISTS jobs_by_state ON jobs (state, id);
CREATE INDEX IF NOT EXISTS jobs_by_student ON jobs (student, assignment, id);
CREATE INDEX IF NOT EXISTS jobs_by_source ON jobs (source);
CREATE TABLE IF NOT EXISTS feedback_releases (
    job_id INTEGER PRIMARY KEY,
    student TEXT NOT NULL,
    assignment TEXT NOT NULL,
    digest TEXT NOT NULL,
    released TEXT NOT NULL,
    outcome TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS grade_pushes (
    job_id INTEGER NOT NULL,
    lms TEXT NOT NULL,
    student TEXT NOT NULL,
    assignment TEXT NOT NULL,
    pushed TEXT NOT NULL,
    PRIMARY KEY (job_id, lms)
);
CREATE TABLE IF NOT EXISTS graded_against (
    job_id INTEGER PRIMARY KEY,
    release TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sent_grades (
    student TEXT NOT NULL,
    assignment TEXT NOT NULL,
    target TEXT NOT NULL,
    score {real},
    sent TEXT NOT NULL,
    PRIMARY KEY (student, assignment, target)
);
CREATE TABLE IF NOT EXISTS sent_digests (
    student TEXT NOT NULL,
    assignment TEXT NOT NULL,
    target TEXT NOT NULL,
    digest TEXT NOT NULL,
    PRIMARY KEY (student, assignment, target)
);
CREATE TABLE IF NOT EXISTS services (
    name TEXT PRIMARY KEY,
    state TEXT NOT NULL,
    since TEXT NOT NULL,
    started TEXT NOT NULL,
    seen {real} NOT NULL,
    lease_seconds {real} NOT NULL,
    detail TEXT NOT NULL DEFAULT ''
);
"""
POSTGRES_SCHEMA = "grader_service"  # the schema of the queue's tables in the gradebook's database
CONNECT_SECONDS = 10  # how long a PostgreSQL server that does not answer is waited for
BUSY_SECONDS = 60.0  # how long a call waits for the database locked by another (a setting)


class StoreError(Exception):
    """A hand-in the store cannot take (what is wrong is said), a job it does not know, or
    a queue database it cannot open or use (named, without its password)."""


class QueueUnreachable(StoreError):
    """The queue's database could not be reached or failed (its server stopped, a lock
    waited for too long): what the call was changing was rolled back (unless the
    connection was lost at its very commit), and the same call may be tried again."""


def reason(error: sqlalchemy.exc.DBAPIError) -> str:
    """What the database's driver said went wrong, any password in it hidden."""
    return shown_url(str(error.orig).strip())


class Statements:
    """One open connection of the queue, its SQL run with named parameters (``:name``)."""

    def __init__(self, connection: sqlalchemy.Connection):
        self.connection = connection

    def rows(self, sql: str, **values: Any) -> list[Mapping[str, Any]]:
        """Every row `sql` gives, as mappings of column to value."""
        return list(self.connection.execute(sqlalchemy.text(sql), values).mappings())

    def row(self, sql: str, **values: Any) -> Mapping[str, Any] | None:
        """The first row `sql` gives; None when it gives none."""
        return self.connection.execute(sqlalchemy.text(sql), values).mappings().first()

    def change(self, sql: str, **values: Any) -> int:
        """Run an INSERT, UPDATE or DELETE; returns how many rows it changed."""
        return self.connection.execute(sqlalchemy.text(sql), values).rowcount


class QueueDatabase:
    """The database of a queue: its engine, its schema made, its connections and transactions."""

    key = ""  # the type of the jobs' id column
    real = ""  # the type of a floating-point column

    def __init__(self, url: sqlalchemy.URL | str, shown: str, **engine_options: Any):
        self.shown = shown  # the database as it may be shown (no password)
        try:
            self.engine = sqlalchemy.create_engine(url, poolclass=NullPool, **engine_options)
        except (sqlalchemy.exc.ArgumentError, sqlalchemy.exc.NoSuchModuleError, ImportError,
                ValueError) as error:  # a URL that does not parse, a driver not installed
            raise StoreError(f"the service's queue cannot use {shown}: "
                             f"{shown_url(str(error))}") from None

    @contextlib.contextmanager
    def connection(self) -> Iterator[Statements]:
        """A connection for reads, closed after them."""
        try:
            connection = self.engine.connect()
        except sqlalchemy.exc.DBAPIError as error:
            raise QueueUnreachable(f"the service's queue cannot open {self.shown}: "
                                   f"{reason(error)}") from None
        try:
            yield Statements(connection)
        except (sqlalchemy.exc.OperationalError, sqlalchemy.exc.InterfaceError) as error:
            # the server went away mid-call (a restart): "connection already closed" too
            raise QueueUnreachable(f"the service's queue {self.shown} failed: "
                                   f"{reason(error)}") from None
        finally:
            connection.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Statements]:
        """One write transaction, every other writer kept out until it is committed (or
        rolled back, when what runs in it raises)."""
        with self.connection() as statements:
            self.begin_write(statements.connection)
            try:
                yield statements
            except BaseException:
                with contextlib.suppress(sqlalchemy.exc.SQLAlchemyError):  # a connection lost
                    self.end(statements.connection, commit=False)
                raise
            self.end(statements.connection, commit=True)

    def make_schema(self) -> None:
        """The queue's tables and indexes, made where they are missing."""
        with self.connection() as statements:
            self.begin_schema(statements.connection)
            try:
                for statement in SCHEMA.format(key=self.key, real=self.real).split(";"):
                    if statement.strip():
                        statements.connection.exec_driver_sql(statement)
            except BaseException:
                with contextlib.suppress(sqlalchemy.exc.SQLAlchemyError):
                    self.end(statements.connection, commit=False)
                raise
            self.end(statements.connection, commit=True)

    def begin_schema(self, connection: sqlalchemy.Connection) -> None:
        raise NotImplementedError

    def begin_write(self, connection: sqlalchemy.Connection) -> None:
        raise NotImplementedError

    def end(self, connection: sqlalchemy.Connection, commit: bool) -> None:
        if commit:
            connection.commit()
        else:
            connection.rollback()


class SqliteQueue(QueueDatabase):
    """The queue in an SQLite file (WAL): transactions begun by hand, BEGIN IMMEDIATE."""

    key = "INTEGER PRIMARY KEY AUTOINCREMENT"
    real = "REAL"

    def __init__(self, path: str, busy_seconds: float = BUSY_SECONDS):
        self.path = path
        # the driver begins no transaction of its own (isolation_level None): reads run
        # outside one, writes in the BEGIN IMMEDIATE of `begin_write`; a lock held by
        # another is waited for `busy_seconds`
        super().__init__(sqlalchemy.URL.create("sqlite", database=path), path,
                         connect_args={"timeout": busy_seconds, "isolation_level": None})

    def begin_schema(self, connection: sqlalchemy.Connection) -> None:
        connection.exec_driver_sql("PRAGMA journal_mode=WAL")
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    def begin_write(self, connection: sqlalchemy.Connection) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    def end(self, connection: sqlalchemy.Connection, commit: bool) -> None:
        connection.exec_driver_sql("COMMIT" if commit else "ROLLBACK")


class PostgresQueue(QueueDatabase):
    """The queue in the schema ``grader_service`` of a PostgreSQL database (psycopg2)."""

    key = "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"
    real = "DOUBLE PRECISION"

    def __init__(self, url: str, busy_seconds: float = BUSY_SECONDS):
        super().__init__(url, shown_url(url), connect_args={
            "connect_timeout": CONNECT_SECONDS,
            "options": f"-c search_path={POSTGRES_SCHEMA} "
                       f"-c lock_timeout={max(1, round(busy_seconds * 1000))}"})

    def begin_schema(self, connection: sqlalchemy.Connection) -> None:
        # services starting at once would race to make the same tables: one at a time
        connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock(hashtext('{POSTGRES_SCHEMA}'))")
        connection.exec_driver_sql(f"CREATE SCHEMA IF NOT EXISTS {POSTGRES_SCHEMA}")

    def begin_write(self, connection: sqlalchemy.Connection) -> None:
        connection.exec_driver_sql("LOCK TABLE jobs IN EXCLUSIVE MODE")


def is_postgres(path_or_url: str) -> bool:
    """Whether `path_or_url` names a PostgreSQL database."""
    return path_or_url.split("://")[0].split("+")[0] in ("postgresql", "postgres")


def sqlite_path(path_or_url: str) -> str | None:
    """The SQLite file of a path or an ``sqlite:///`` URL; None for a PostgreSQL URL."""
    if is_postgres(path_or_url):
        return None
    if "://" not in path_or_url:
        return os.path.abspath(path_or_url)
    if path_or_url.startswith("sqlite:///"):
        return os.path.abspath(path_or_url[len("sqlite:///"):])
    raise StoreError(f"the service's queue takes an SQLite file, an sqlite:/// URL or a "
                     f"PostgreSQL URL, not {path_or_url.split('://')[0]}:// "
                     f"({shown_url(path_or_url)})")


def queue_database(path_or_url: str, busy_seconds: float = BUSY_SECONDS) -> QueueDatabase:
    """The database of a path or ``sqlite:///`` URL (an SQLite file, its folder made) or a
    PostgreSQL URL (postgresql://user:password@host:5432/name, the gradebook's), its
    schema made; a call waits `busy_seconds` for it while another holds it locked."""
    path = sqlite_path(path_or_url)
    if path is None:
        database: QueueDatabase = PostgresQueue(with_postgres_driver(path_or_url), busy_seconds)
    else:
        database = SqliteQueue(path, busy_seconds)
    try:
        database.make_schema()
    except (sqlalchemy.exc.ProgrammingError, sqlalchemy.exc.InternalError) as error:
        raise StoreError(f"the service's queue cannot make its tables in {database.shown}: "
                         f"{reason(error)}") from None
    return database
