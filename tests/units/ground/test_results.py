"""A result is a typed record (grader.results) that becomes JSON only at the edge."""

from grader.results import StudentResult


def test_a_result_becomes_json_only_for_the_report_and_reads_back_the_same():
    import json

    from grader.results import CheckResult, NotebookResult, StudentStatus

    result = StudentResult("ada", "hw", StudentStatus.REFUSED, ["folder is a link"], [
        NotebookResult("hw", "unreadable", "folder is a link", ["a note"],
                       [CheckResult("check_a", 0.0, 2.0, "not run", "folder is a link")],
                       1.5, {"cells": []})])
    part = json.loads(json.dumps(result.to_json()))
    assert "autograded" not in part["notebooks"][0]  # the notebook goes to autograded/ only
    back = StudentResult.from_json(part)
    result.notebooks[0].autograded = None
    assert back == result
    assert (back.points, back.max_points) == (0.0, 2.0)
