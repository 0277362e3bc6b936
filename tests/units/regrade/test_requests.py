"""`make regrade` lists the requests students asked on the course page beside the rows of
regrade-requests.csv: open ones only, each with its id, and what the regrade does for it."""

import pytest

from grader.recording import answer_request, ask_regrade
from grader.regrade import RegradeRequest, RequestSource, page_requests
from grader.regrade.changes import CheckChange, StudentChange
from grader.regrade.regrading import request_lines
from grader.settings import load
from testsupport.tiny_course import ASSIGNMENT

pytestmark = pytest.mark.usefixtures("no_regrade_requests")


@pytest.fixture(scope="module")
def settings(tiny_course):
    return load(tiny_course)


def test_the_dry_run_lists_the_pages_open_requests_beside_the_files_rows(settings):
    asked = ask_regrade(settings, "bob", ASSIGNMENT, "double_visible", "2.0 doubles too\x1b[2J",
                        feedback_out=True).request
    done = ask_regrade(settings, "ann", ASSIGNMENT, "answer_value", "41 is close",
                       feedback_out=True).request
    answer_request(settings, done.id, "tess", "42 it is", False)
    from_page = page_requests(settings, ASSIGNMENT)
    assert from_page == [RegradeRequest("bob", ASSIGNMENT, "double_visible",
                                        "2.0 doubles too\x1b[2J", 0, RequestSource.PAGE,
                                        asked.id)]
    from_file = [RegradeRequest("carol", ASSIGNMENT, "answer_value", "41 is close", 2)]
    changes = {"bob": StudentChange("bob", 3.0, 4.0, 6.0, [
        CheckChange("tiny", "double_visible", 0.0, 1.0, "failed", "passed", "")])}
    assert request_lines(from_file + from_page, {"bob", "carol"}, changes) == [
        "regrade requests (regrade-requests.csv): 1",
        '  carol, answer_value: "41 is close" -> not answered: the check\'s result does not '
        "change",
        "regrade requests (the course page, open): 1",
        f'  bob, double_visible (request {asked.id}): "2.0 doubles too\\x1b[2J" -> answered: '
        "tiny/double_visible: 0 -> 1 (failed -> passed)"]


def test_with_no_request_anywhere_both_sources_say_none(settings):
    assert page_requests(settings, ASSIGNMENT) == []
    assert request_lines([], set(), {}) == [
        "regrade requests (regrade-requests.csv): none for this assignment",
        "regrade requests (the course page, open): none for this assignment"]
