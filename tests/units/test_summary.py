"""The summary: who needs attention, and why."""

from grader.results import CheckResult, NotebookResult, StudentResult


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
