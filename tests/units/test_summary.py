"""The summary: who needs attention, and why."""

from grader.results import NotebookResult, StudentResult, TestResult


def test_a_refused_or_failed_student_needs_attention_once_with_the_reason():
    from types import SimpleNamespace

    from grader.results import FAILED, REFUSED
    from grader.summary import attention

    why = "submission folder is a symbolic link; not graded"
    refused = StudentResult("eve", "a", REFUSED, [why], [
        NotebookResult("nb", "unreadable", why, tests=[TestResult("c", 0.0, 1.0, "not run", why)])])
    failed = StudentResult("fay", "a", FAILED, ["not graded: the grader failed (boom)"])
    needs = attention(["eve", "fay"], SimpleNamespace(submissions={}), [refused, failed])
    assert needs == [("eve", f"nb unreadable ({why})"),
                     ("fay", "not graded: the grader failed (boom)")]
