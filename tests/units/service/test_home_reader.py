"""The home reader reads a saved notebook for the page only, of the course's names only, as
a person's account only; a page that cannot reach it tells the student so."""

import os
import threading

import pytest

from grader.service.page.home_reader import HomeReader, read_as_student

NOTEBOOKS = {"tiny": ["tiny"]}
NOBODY = 65534  # an account that is not the caller's


@pytest.fixture
def reader(tmp_path):
    def started(page_uid):
        server = HomeReader(str(tmp_path / "reader.sock"), page_uid, NOTEBOOKS)
        thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
        thread.start()
        running.append(server)
        return server.server_address

    running = []
    yield started
    for server in running:
        server.shutdown()
        server.server_close()


def test_the_socket_is_the_page_accounts_alone(reader):
    path = reader(os.getuid())
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    assert os.stat(path).st_uid == os.getuid()


def test_a_caller_that_is_not_the_pages_account_is_refused(reader):
    path = reader(NOBODY if os.getuid() != NOBODY else 0)
    assert read_as_student(path, "gptc-alice", "tiny", ["tiny"]) == (
        {}, ["the home reader answers the students' page only"])


def test_a_system_account_is_never_read_as(reader):
    path = reader(os.getuid())
    assert read_as_student(path, "root", "tiny", ["tiny"]) == (
        {}, ["root is a system account, not a student's"])


@pytest.mark.parametrize("assignment, notebooks", [("tiny", ["../../etc/shadow"]),
                                                   ("other", ["tiny"]), ("tiny", [])])
def test_only_the_courses_notebooks_are_read(reader, assignment, notebooks):
    path = reader(os.getuid())
    assert read_as_student(path, "root", assignment, notebooks) == (
        {}, [f"the course has no notebooks {notebooks} of {assignment!r}"])


def test_a_page_that_cannot_reach_the_reader_says_so(tmp_path):
    assert read_as_student(str(tmp_path / "none.sock"), "gptc-alice", "tiny", ["tiny"]) == (
        {}, ["your saved notebook cannot be read now: the page's reader of the home folders "
             "does not answer (No such file or directory); ask your instructor"])
