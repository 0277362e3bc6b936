"""The gradebook writer records a student in one transaction, in the tiny course's gradebook."""

import os

import pytest

from testsupport import tiny_course as fx
from testsupport.gradebook import gradebook_scores


def test_a_failure_while_recording_leaves_the_gradebook_as_it_was(tiny_course):
    """One connection for the run, as the writer keeps it: a student's failed transaction
    is rolled back and the next students are recorded through the same connection."""
    from grader.recording import record_in_gradebook
    from grader.recording.gradebook import open_gradebook
    from grader.results import CheckResult, NotebookResult, StudentResult

    tests = [CheckResult(g, p, p, "passed") for g, p in fx.POINTS.items()]
    tests[-1].points = "not a number"  # fails half way through the student's grades
    record = StudentResult("halfway", "tiny",
                           notebooks=[NotebookResult("tiny", "graded", tests=tests)])
    url = "sqlite:///" + os.path.join(tiny_course, "course-data", "gradebook.db")
    gradebook = open_gradebook(url, "tinycourse")
    try:
        with pytest.raises(ValueError):
            record_in_gradebook(gradebook, record, None)
        assert "halfway" not in gradebook_scores(tiny_course, fx.ASSIGNMENT)
        tests[-1].points = 1.0
        record_in_gradebook(gradebook, record, None)
        assert gradebook_scores(tiny_course, fx.ASSIGNMENT)["halfway"] == fx.POINTS  # committed already
        tests[0].points = 0.0
        record_in_gradebook(gradebook, record, None)  # again: overwritten, not doubled
    finally:
        gradebook.close()
    assert gradebook_scores(tiny_course, fx.ASSIGNMENT)["halfway"] == dict(fx.POINTS, **{tests[0].grade_id: 0.0})
    from nbgrader.api import Gradebook

    with Gradebook(url) as gb:
        assert len(gb.find_submission("tiny", "halfway").notebooks[0].grades) == 4
