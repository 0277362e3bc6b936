"""A run removes every cgroup, sandbox folder and temporary file it made, however it ends.

Each run grades the batch (testsupport.scaling) with two workers, its
temporary folder a fresh one of the test's, while testsupport.left_behind
follows its processes: the cgroups counted afterwards are those named after
one of them, so other graders on the machine do not count.
"""

import os
import signal

from grader.sandbox import SandboxCgroups
from testsupport.left_behind import ProcessTree, left_behind
from testsupport.scaling import (GRADER_TIMEOUT, STUDENTS, finish, batch_course,
                                 gradebook_rows, start_grader, wait_for_recorded)
from testsupport.gradebook import sqlite_url


def started(course, tmp_path, *args):
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir(exist_ok=True)
    grader = start_grader(course, "--jobs", "2", *args, TMPDIR=str(tmpdir))
    return grader, ProcessTree(grader), str(tmpdir)


def test_a_run_that_ends_normally_leaves_no_cgroup_folder_or_temporary_file(
        released_sqlite_gradebook, tmp_path):
    assert SandboxCgroups.available()[0]  # else there would be no cgroups to count
    course, _ = batch_course(str(tmp_path / "course"), released_sqlite_gradebook)
    grader, tree, tmpdir = started(course, tmp_path)
    code, output = finish(grader)
    assert code == 0, output[-4000:]
    assert tree.seen_cgroups, "the run made no cgroup that could be counted"
    assert left_behind(tree, tmpdir, course) == []


def test_a_run_stopped_by_sigterm_leaves_nothing_and_the_same_command_grades_the_rest(
        released_sqlite_gradebook, tmp_path):
    course, _ = batch_course(str(tmp_path / "course"), released_sqlite_gradebook)
    db_url = sqlite_url(course)
    grader, tree, tmpdir = started(course, tmp_path)
    wait_for_recorded(db_url, 1, grader)
    os.kill(grader.pid, signal.SIGTERM)
    code, output = finish(grader)
    assert code == 128 + signal.SIGTERM, output[-4000:]
    assert "stopped by SIGTERM" in output
    assert tree.seen_cgroups
    assert left_behind(tree, tmpdir, course) == []
    recorded = gradebook_rows(db_url)["submissions"]
    assert 1 <= len(recorded) < len(STUDENTS) and all(n == 1 for _, n in recorded)

    again, tree, tmpdir = started(course, tmp_path)
    code, output = finish(again, GRADER_TIMEOUT)
    assert code == 0, output[-4000:]
    assert gradebook_rows(db_url)["submissions"] == [(student, 1) for student in STUDENTS]
    assert left_behind(tree, tmpdir, course) == []
