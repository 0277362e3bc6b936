"""Does `python -m grader autograde` tell the instructor's mistakes (exit 2) from students' (exit 0)
in a released course?

The tiny course (testsupport.tiny_course) is released once for the module.
"""

import os
import shutil

from testsupport.tiny_course import grader


def test_an_unknown_assignment_is_the_instructors_error(tiny_course):
    result = grader("autograde", "no-such-assignment", cwd=tiny_course)
    assert result.returncode == 2
    assert "unknown assignment 'no-such-assignment'" in result.stderr


def test_an_assignment_not_released_into_the_gradebook_is_the_instructors_error(tiny_course,
                                                                              tmp_path):
    other = str(tmp_path / "course")
    shutil.copytree(os.path.join(tiny_course, "source"), os.path.join(other, "source"))
    shutil.copy(os.path.join(tiny_course, "nbgrader_config.py"), other)
    os.makedirs(os.path.join(other, "course-data"))
    result = grader("autograde", "tiny", cwd=other)
    assert result.returncode == 2
    assert "not in the gradebook" in result.stderr and "make release" in result.stderr


def test_a_bad_shard_is_refused(tiny_course):
    result = grader("autograde", "tiny", "--shard", "3/2", cwd=tiny_course)
    assert result.returncode == 2
    assert "K must be between 1 and N" in result.stderr


def test_no_submissions_is_not_an_error(tiny_course):
    result = grader("autograde", "tiny", cwd=tiny_course)
    assert result.returncode == 0, result.stderr
    assert "0 submission(s)" in result.stderr
