"""A run removes every cgroup, sandbox folder and temporary file it made, however it ends.

Each run grades the batch (testsupport.scaling) with two workers, its
temporary folder a fresh one of the test's, while testsupport.left_behind
follows its processes: the cgroups counted afterwards are those named after
one of them, so other graders on the machine do not count. The kinds of end:
normal, SIGTERM, a full disk (here), and the gradebook gone
(test_postgres_gradebook.py).
"""

import errno
import os
import signal
import subprocess

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


def fill(folder):
    """Writes a file into `folder` until its file system is full."""
    with open(os.path.join(folder, "filler"), "wb") as handle:
        try:
            while True:
                handle.write(b"\0" * (1 << 16))
                handle.flush()
        except OSError as error:
            assert error.errno == errno.ENOSPC, error


def test_a_disk_full_mid_run_is_said_per_student_and_the_same_command_then_grades_everyone(
        released_sqlite_gradebook, tmp_path):
    course, _ = batch_course(str(tmp_path / "course"), released_sqlite_gradebook)
    db_url = sqlite_url(course)
    autograded = os.path.join(course, "course-data", "autograded")
    os.makedirs(autograded, exist_ok=True)
    # a small file system of its own for the autograded notebooks (the tests run as root,
    # as the sandbox's cgroups need)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=32m", "tmpfs", autograded],
                             capture_output=True, text=True)
    assert mounted.returncode == 0, f"a tmpfs could not be mounted: {mounted.stderr}"
    try:
        grader, tree, tmpdir = started(course, tmp_path)
        wait_for_recorded(db_url, 1, grader)
        fill(autograded)
        code, output = finish(grader)
        assert code == 1, output[-4000:]
        failed = [line for line in output.splitlines() if line.startswith("error recording")]
        recorded = gradebook_rows(db_url)["submissions"]
        assert failed and len(failed) + len(recorded) == len(STUDENTS), output[-4000:]
        assert all(line.endswith("No space left on device") for line in failed), failed
        assert all(n == 1 for _, n in recorded)
        assert left_behind(tree, tmpdir, course) == []

        os.remove(os.path.join(autograded, "filler"))
        again, tree, tmpdir = started(course, tmp_path)
        code, output = finish(again)
        assert code == 0, output[-4000:]
        assert gradebook_rows(db_url)["submissions"] == [(student, 1) for student in STUDENTS]
        assert left_behind(tree, tmpdir, course) == []
    finally:
        subprocess.run(["umount", "-l", autograded], capture_output=True)
