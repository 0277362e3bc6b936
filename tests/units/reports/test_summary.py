"""The summary (grader.reports.summary): who needs attention, and why, and what the summary and
the report page say of a student's due date, extension and penalty."""

import datetime

import pytest

from grader.reports.grades import SubmissionGrades
from grader.results import CheckResult, NotebookResult, StudentResult
from grader.reports.summary import deadline_text

HOUR = 3600.0
DUE = datetime.datetime(2026, 12, 7, 17, 0)
EXTENSION = datetime.timedelta(hours=48)


def handed_in(seconds_late, after_class_due=None, penalty=0.0, raw=10.0, extension=None,
              **budget):
    return SubmissionGrades("alice", DUE, seconds_late, raw, penalty, 10.0, extension=extension,
                            seconds_after_class_due=(seconds_late if after_class_due is None
                                                     else after_class_due), **budget)


CASES = [
    ("on time", handed_in(0.0), None, "on time"),
    ("on time thanks to an extension", handed_in(0.0, 25 * HOUR, extension=EXTENSION),
     EXTENSION, "1 d 1 h after the class's due date, extension 48 h: on time"),
    ("late, a percentage taken", handed_in(25 * HOUR, penalty=2.0), None,
     "late 1 d 1 h: -2 points (20%)"),
    ("late after an extension", handed_in(HOUR, 49 * HOUR, penalty=10.0, extension=EXTENSION),
     EXTENSION, "late 1 h after the extension 48 h: -10 points (100%)"),
    ("late, covered by late days", handed_in(25 * HOUR, late_days_used=2, late_days_left=3),
     None, "late 1 d 1 h: 2 late days used, 3 left, no penalty"),
    ("late, the last late day spent", handed_in(25 * HOUR, penalty=1.0, late_days_used=1,
                                                late_days_left=0),
     None, "late 1 d 1 h: 1 late day used, 0 left, -1 points (10%)"),
    ("late with nothing earned", handed_in(60.0, raw=0.0), None, "late 1 min: no penalty"),
    ("an extension, nothing handed in", None, EXTENSION,
     "extension 48 h (due 2026-12-09 17:00 UTC): nothing handed in yet"),
]


@pytest.mark.parametrize("case, submission, extension, words", CASES, ids=[c[0] for c in CASES])
def test_deadline_words(case, submission, extension, words):
    assert deadline_text(submission, extension, DUE) == words


def test_a_refused_or_failed_student_needs_attention_once_with_the_reason():
    from types import SimpleNamespace

    from grader.results import StudentStatus
    from grader.reports import attention

    why = "submission folder is a symbolic link; not graded"
    refused = StudentResult("eve", "a", StudentStatus.REFUSED, [why], [
        NotebookResult("nb", "unreadable", why, tests=[CheckResult("c", 0.0, 1.0, "not run", why)])])
    failed = StudentResult("fay", "a", StudentStatus.GRADER_FAILED, ["not graded: the grader failed (boom)"])
    needs = attention(["eve", "fay"], SimpleNamespace(submissions={}), [refused, failed])
    assert needs == [("eve", f"nb unreadable ({why})"),
                     ("fay", "not graded: the grader failed (boom)")]
