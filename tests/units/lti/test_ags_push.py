"""Does the AGS push post each student's exported grade (after the late policy) once, list
who has no LTI user id, and stop clearly when the platform refuses the tool?"""

import datetime
import re

import pytest

from grader.lti.ags_push import push_scores
from grader.reports import AssignmentGrades, Person
from grader.reports.grades import Check, SubmissionGrades
from grader.settings import CourseError

DUE = datetime.datetime(2026, 12, 1, 17, 0)


def grades_of():
    """parameters, 10 points: ada 9 on time, bob 10 a day late (2 points off), cy nothing."""
    checks = [Check("parameters", "count_parameters", 10.0)]

    def handed_in(student, raw, late=0.0, penalty=0.0):
        return SubmissionGrades(student, DUE, late, raw, penalty, 10.0,
                                points={("parameters", "count_parameters"): raw})

    return AssignmentGrades("parameters", DUE, 10.0, checks, {
        "ada": handed_in("ada", 9.0), "bob": handed_in("bob", 10.0, 90000.0, 2.0)})


PEOPLE = {"ada": Person("ada", "Ada", "Adams", lti_user_id="sub-ada"),
          "bob": Person("bob", "Bob", "Brown", lti_user_id="sub-bob"),
          "cy": Person("cy", "Cy", "Cole", lti_user_id="sub-cy"),
          "dee": Person("dee", "Dee", "Dunn")}


def line_item_number(platform):
    [number] = platform.line_items
    return number


def test_the_grade_after_the_late_policy_is_posted_and_dee_without_an_id_is_listed(
        services, platform):
    lines, status = push_scores(services, PEOPLE, grades_of())
    assert status == 0
    assert {u: s["scoreGiven"] for u, s in platform.results_of(
        line_item_number(platform)).items()} == {"sub-ada": 9.0, "sub-bob": 8.0, "sub-cy": 0.0}
    assert [line.split()[:4] for line in lines[2:6]] == [
        ["ada", "sub-ada", "-", "9"], ["bob", "sub-bob", "-", "8"], ["cy", "sub-cy", "-", "0"],
        ["dee", "-", "-", "0"]]
    assert "no LTI user id in the roster (make lti-roster" in lines[5]
    assert lines[-1] == "3 score(s) posted, 0 up to date, 1 without an LTI user id, 0 failed"


def test_a_changed_grade_posts_that_one_student_again(services, platform):
    push_scores(services, PEOPLE, grades_of())
    changed = grades_of()
    changed.submissions["ada"].raw_score = 10.0
    lines, _ = push_scores(services, PEOPLE, changed)
    assert lines[-1] == "1 score(s) posted, 2 up to date, 1 without an LTI user id, 0 failed"
    assert [s["userId"] for s in platform.scores_of(line_item_number(platform))] == [
        "sub-ada", "sub-bob", "sub-cy", "sub-ada"]


def test_a_401_stops_the_push_with_what_was_sent_and_why(services, platform):
    push_scores(services, {"ada": PEOPLE["ada"]}, grades_of())  # the line item made
    platform.fail_once("POST", r"/course/lineitems/\d+/scores", 401)
    changed = grades_of()
    changed.submissions["ada"].raw_score = 10.0
    with pytest.raises(CourseError) as refused:
        push_scores(services, PEOPLE, changed)
    message = str(refused.value)
    assert re.search(r"\nada +sub-ada +9 +10 +not sent \(the platform answered 401\)\n", message)
    assert re.search(r"\nbob +sub-bob +- +8 +not sent \(the platform answered 401\)\n", message)
    assert message.splitlines()[-1].startswith(
        "user sub-ada's score: the platform at ") and (
        "refused the tool (401: {\"error\": \"the access token is not accepted\"}): check "
        "c.LtiTool.client_id") in message
    assert [s["scoreGiven"] for s in platform.scores_of(line_item_number(platform))] == [9.0]


def test_two_students_with_one_lti_user_id_get_nothing_posted_to_it(services, platform):
    shared = {**PEOPLE, "cy": Person("cy", "Cy", "Cole", lti_user_id="sub-ada")}
    lines, status = push_scores(services, shared, grades_of())
    assert status == 1
    assert {s["userId"] for s in platform.scores_of(line_item_number(platform))} == {"sub-bob"}
    assert [line.split()[0] for line in lines[2:5]] == ["ada", "bob", "cy"]
    assert "shares LTI user id sub-ada with cy: one LMS user, two students" in lines[2]
    assert lines[-1] == "refused: ada and cy share LTI user id sub-ada; nothing was sent to it"
