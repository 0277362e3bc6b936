"""Where the gradebook lives, and grading into a real PostgreSQL gradebook.

nbgrader_config.py takes the database URL from $GPTCOURSE_DB_URL, else from the
first URL line of gradebook-url.txt, else SQLite under course-data/. The grading
tests compare a PostgreSQL gradebook with the serial SQLite run of the same batch.
"""

import os
import runpy
import shutil
import subprocess
import sys

import pytest
from traitlets.config import Config

from nbgrader.api import Gradebook
from testsupport.course import ROOT, nbgrader_env
from testsupport.course import run_grader
from testsupport.left_behind import ProcessTree, left_behind
from testsupport.postgres import PostgresError, TemporaryPostgres
from testsupport.scaling import (ASSIGNMENT, GRADER_TIMEOUT, STUDENTS, batch_course, finish,
                                 gradebook_rows, output_files, release, sqlite_path,
                                 start_grader, wait_for_recorded)


@pytest.fixture
def course_config(tmp_path):
    """A course folder holding only a copy of nbgrader_config.py."""
    shutil.copy(os.path.join(ROOT, "nbgrader_config.py"), tmp_path / "nbgrader_config.py")
    return tmp_path


def load_db_url(course, monkeypatch, env_url=None):
    """CourseDirectory.db_url as nbgrader_config.py sets it in ``course``."""
    if env_url is None:
        monkeypatch.delenv("GPTCOURSE_DB_URL", raising=False)
    else:
        monkeypatch.setenv("GPTCOURSE_DB_URL", env_url)
    namespace = runpy.run_path(str(course / "nbgrader_config.py"),
                               init_globals={"get_config": Config})
    return namespace["c"].CourseDirectory.db_url


def nbgrader(course, *args, env_url=None):
    """Runs an nbgrader command in ``course``; the environment carries no URL unless given."""
    return subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course,
                          env=nbgrader_env(env_url),
                          capture_output=True, text=True, timeout=120)


def test_default_gradebook_is_sqlite_under_course_data(course_config, monkeypatch):
    url = load_db_url(course_config, monkeypatch)
    assert url == "sqlite:///" + str(course_config / "course-data" / "gradebook.db")
    assert (course_config / "course-data").is_dir()


def test_url_file_gives_its_first_line_that_is_not_a_comment(course_config, monkeypatch):
    (course_config / "gradebook-url.txt").write_text(
        "# the shared gradebook\n\n  postgresql://grader:pw@db.example.org:5433/course  \n"
        "sqlite:////ignored.db\n")
    url = load_db_url(course_config, monkeypatch)
    assert url == "postgresql+psycopg2://grader:pw@db.example.org:5433/course"


def test_environment_variable_wins_over_the_url_file(course_config, monkeypatch):
    (course_config / "gradebook-url.txt").write_text("postgresql://grader:pw@db/course\n")
    url = load_db_url(course_config, monkeypatch, env_url="postgres://a:b@127.0.0.1/grades")
    assert url == "postgresql+psycopg2://a:b@127.0.0.1/grades"  # the short scheme is accepted


def test_relative_sqlite_path_is_relative_to_the_course(course_config, monkeypatch):
    url = load_db_url(course_config, monkeypatch, env_url="sqlite:///grades/book.db")
    assert url == "sqlite:///" + str(course_config / "grades" / "book.db")


@pytest.mark.parametrize("bad_url, reason", [
    ("postgresql://grader:secret@db.example.org:54x2/course", "not a database URL"),
    ("localhost:5432/course", "not a database URL"),
    ("mysql://grader@db/course", "supports sqlite and postgresql databases, not 'mysql'"),
    ("postgresql+nodriver://db/course", "not a database URL"),
    ("postgresql://grader@db.example.org", "names no database"),
    ("sqlite://", "names no database"),
])
def test_malformed_url_is_refused_naming_its_source(course_config, monkeypatch, bad_url, reason):
    (course_config / "gradebook-url.txt").write_text("# shared gradebook\n" + bad_url + "\n")
    with pytest.raises(SystemExit) as stopped:
        load_db_url(course_config, monkeypatch)
    message = str(stopped.value.code)
    assert reason in message
    assert f"{course_config / 'gradebook-url.txt'}, line 2" in message
    assert "secret" not in message  # a password is never printed


def test_url_file_without_a_url_is_refused(course_config, monkeypatch):
    (course_config / "gradebook-url.txt").write_text("# postgresql://grader@db/course\n\n")
    with pytest.raises(SystemExit) as stopped:
        load_db_url(course_config, monkeypatch)
    assert "no database URL in it" in str(stopped.value.code)


def test_nbgrader_stops_on_a_malformed_url_instead_of_using_another_gradebook(course_config):
    result = nbgrader(course_config, "db", "student", "list",
                      env_url="postgresql://grader:secret@db:5432")
    assert result.returncode != 0
    assert "environment variable GPTCOURSE_DB_URL" in result.stderr
    assert "names no database" in result.stderr
    assert "secret" not in result.stderr + result.stdout
    assert not (course_config / "course-data" / "gradebook.db").exists()
    assert not (course_config / "gradebook.db").exists()


@pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")  # nbgrader 0.9 with SQLAlchemy 2
def test_nbgrader_writes_to_the_postgresql_gradebook_from_the_environment(
        course_config, postgres_database):
    added = nbgrader(course_config, "db", "student", "add", "ada", "--last-name=Lovelace",
                     env_url=postgres_database)
    assert added.returncode == 0, added.stderr
    assignment = nbgrader(course_config, "db", "assignment", "add", "parameters",
                          env_url=postgres_database)
    assert assignment.returncode == 0, assignment.stderr
    assert not (course_config / "course-data" / "gradebook.db").exists()

    # nbgrader's own Gradebook API reads them back and records a grade
    with Gradebook(postgres_database, course_id="gptcourse") as gradebook:
        assert [s.id for s in gradebook.students] == ["ada"]
        assert gradebook.find_student("ada").last_name == "Lovelace"
        gradebook.add_notebook("parameters", "parameters")
        gradebook.add_grade_cell("output_shape", "parameters", "parameters",
                                 max_score=2, cell_type="code")
        gradebook.add_submission("parameters", "ada")
        grade = gradebook.find_grade("output_shape", "parameters", "parameters", "ada")
        grade.auto_score = 1.5
        gradebook.db.commit()
    with Gradebook(postgres_database, course_id="gptcourse") as gradebook:
        submission = gradebook.find_submission("parameters", "ada")
        assert (submission.score, submission.max_score) == (1.5, 2.0)


# --- grading into PostgreSQL ----------------------------------------------------------


def test_postgresql_gradebook_gets_the_same_grades_as_sqlite(
        serial_sqlite_run, released_postgres_database, tmp_path):
    course, _ = batch_course(str(tmp_path / "course"))
    run_grader(course, ASSIGNMENT, "--jobs", "2", db_url=released_postgres_database,
               timeout=GRADER_TIMEOUT, check=True)
    assert gradebook_rows(released_postgres_database) == serial_sqlite_run.rows
    assert not os.path.exists(sqlite_path(course))
    assert output_files(course) == serial_sqlite_run.files


def test_two_graders_on_disjoint_shards_share_one_postgresql_gradebook(
        serial_sqlite_run, released_postgres_database, tmp_path):
    """Two grader processes, as on two machines, write one gradebook at the same time."""
    course, _ = batch_course(str(tmp_path / "course"))
    db_url = released_postgres_database
    graders = [start_grader(course, "--jobs", "1", "--shard", shard, db_url=db_url)
               for shard in ("1/2", "2/2")]
    outcomes = [finish(grader) for grader in graders]
    for code, output in outcomes:
        assert code == 0, output[-4000:]
    rows = gradebook_rows(db_url)
    assert rows["submissions"] == [(student, 1) for student in STUDENTS]  # none lost or doubled
    assert rows["grade_rows"] == serial_sqlite_run.rows["grade_rows"]
    assert rows == serial_sqlite_run.rows
    # both wrote into one course folder, as on a shared file system
    assert output_files(course) == serial_sqlite_run.files


# --- the URL as the docs give it, and a database that stops mid-run --------------------

RETRY_SECONDS = 3  # how long the grader waits for the stopped database, in these tests


@pytest.fixture
def own_postgres_server():
    """A PostgreSQL server of this test's own, which it may stop and start again."""
    server = TemporaryPostgres()
    try:
        server.start()
    except PostgresError as error:
        pytest.fail(f"PostgreSQL could not start:\n{error}", pytrace=False)
    yield server
    server.stop()


def test_the_documented_postgresql_url_is_read_with_the_installed_driver(
        course_config, monkeypatch):
    url = load_db_url(course_config, monkeypatch,
                      env_url="postgresql://grader:secret@db.example.org:5432/gptcourse")
    assert url == "postgresql+psycopg2://grader:secret@db.example.org:5432/gptcourse"


def test_postgresql_stopped_mid_run_stops_grading_with_one_message_and_the_rerun_grades_all(
        serial_sqlite_run, own_postgres_server, tmp_path):
    server = own_postgres_server
    # the form docs/scaling.md gives instructors: no driver named
    db_url = server.create_database("gradebook").replace("postgresql+psycopg2://",
                                                         "postgresql://")
    release_course, _ = batch_course(str(tmp_path / "release"), students=[])
    release(release_course, db_url)
    course, _ = batch_course(str(tmp_path / "course"))
    with open(os.path.join(course, "nbgrader_config.py"), "a") as config:
        config.write(f"\nc.GradebookWriter.retry_seconds = {RETRY_SECONDS}\n")
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()

    grader = start_grader(course, "--jobs", "2", db_url=db_url, TMPDIR=str(tmpdir))
    tree = ProcessTree(grader)
    wait_for_recorded(server.url("gradebook"), 2, grader)
    server.halt()
    code, output = finish(grader)
    assert code != 0, output[-4000:]
    errors = [line for line in output.splitlines() if line.startswith("error")]
    assert len(errors) == 1, output[-4000:]  # one message, not one per student
    shown = f"postgresql+psycopg2://postgres:***@127.0.0.1:{server.port}/gradebook"
    assert shown in errors[0] and f"within {RETRY_SECONDS} s" in errors[0], errors[0]
    assert server.password not in output
    assert left_behind(tree, str(tmpdir), course) == []

    server.resume()
    recorded = gradebook_rows(server.url("gradebook"))["submissions"]
    assert 2 <= len(recorded) < len(STUDENTS) and all(n == 1 for _, n in recorded)
    run_grader(course, ASSIGNMENT, "--jobs", "2", db_url=db_url, timeout=GRADER_TIMEOUT,
               check=True)
    rows = gradebook_rows(server.url("gradebook"))
    assert rows["submissions"] == [(student, 1) for student in STUDENTS]  # none lost or doubled
    assert rows == serial_sqlite_run.rows
    assert output_files(course) == serial_sqlite_run.files
