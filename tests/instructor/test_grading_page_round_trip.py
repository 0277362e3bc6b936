"""A student's regrade request goes round trip: asked on the course page's store, seen
beside her answer on the staff's grading page, the answer scored again there and the
request answered with a change, and the new score pushed to the LMS (Canvas, the small
API of testsupport.fake_canvas) once, as the push sends any changed grade."""

import re

import pytest
import requests
from nbgrader.api import Gradebook

from testsupport.explain_course import ASSIGNMENT, CELL, NOTEBOOK, class_of_two
from testsupport.fake_canvas import canvas_push
from testsupport.grading_page import served

TOKENS = {"ta": "token-of-the-ta-" + "e" * 20, "tb": "token-of-the-tb-" + "f" * 20}


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    return class_of_two(str(tmp_path_factory.mktemp("round-trip") / "course"),
                        "c.GradingPage.graders = ['ta', 'tb']\nc.GradingPage.strict = False\n"
                        "c.CanvasPush.backoff_seconds = 0.001")


def push(course):
    return canvas_push(course.root, ASSIGNMENT)


def signed_in(page, grader):
    session = requests.Session()
    assert session.get(f"{page}/login", params={"token": TOKENS[grader]},
                       timeout=30).status_code == 200
    return session


def form(session, page, student):
    """(the group, the answer's article, its form's fields) as the page shows them now."""
    body = session.get(f"{page}/q/{ASSIGNMENT}", params={"view": "all"}, timeout=60).text
    for group in dict.fromkeys(re.findall(r"group=([0-9a-zA-Z_-]+)'", body)):
        text = session.get(f"{page}/q/{ASSIGNMENT}", params={"view": "all", "group": group},
                           timeout=60).text
        article = re.search(rf"<article id='a-{student}'.*?</article>", text, re.S)
        if article:
            return group, article.group(0), dict(re.findall(
                r"name=[\"']?(_xsrf|shown_score)[\"']? value=[\"']([^\"']*)[\"']",
                article.group(0)))
    raise AssertionError(f"{student} is in no group")


def post_mark(session, page, group, fields, student, items):
    answer = session.post(f"{page}/q/{ASSIGNMENT}/mark", params={"view": "all", "group": group},
                          data={**fields, "student": student, "item": items}, timeout=60)
    assert answer.status_code == 200, answer.text
    return answer.text


def save(session, page, student, items):
    group, article, fields = form(session, page, student)
    post_mark(session, page, group, fields, student, items)
    return article, fields["_xsrf"]


def test_a_regrade_request_ends_in_a_changed_score_in_the_gradebook_and_in_canvas(
        course, canvas_of_two):
    from grader.recording import ask_regrade, requests_of

    with served(course, TOKENS) as page:
        session = signed_in(page, "ta")
        save(session, page, "cyd", ["counts"])
        save(session, page, "dan", ["counts", "head"])
        assert push(course) == 0
        assert {(w.user, w.posted_grade) for w in canvas_of_two.writes} == {
            ("101", "0.5"), ("102", "1")}
        asked = ask_regrade(course, "cyd", ASSIGNMENT, CELL,
                            "My answer names the head's matrix too.", feedback_out=True)
        assert asked.status == "asked", asked.sentence
        article, xsrf = save(session, page, "cyd", ["counts", "head"])
        assert "My answer names the head&#x27;s matrix too." in article  # seen beside it
        answered = session.post(f"{page}/requests", timeout=30, data={
            "_xsrf": xsrf, "request": asked.request.id, "changed": "yes",
            "answer": "Right: the head item applies, 1 point."})
        assert answered.status_code == 200
    with Gradebook(course.db_url, course.course_id) as gb:
        assert gb.find_grade(CELL, NOTEBOOK, ASSIGNMENT, "cyd").manual_score == 1.0
    [request] = requests_of(course, "cyd")  # what her course page shows her
    assert (request.state, request.changed, request.answer) == (
        "answered", True, "Right: the head item applies, 1 point.")
    assert push(course) == 0
    assert [(w.user, w.posted_grade) for w in canvas_of_two.writes[2:]] == [("101", "1")]


def test_two_graders_scoring_one_answer_at_once_the_second_sees_the_conflict(course):
    with served(course, TOKENS) as page:
        first, second = signed_in(page, "ta"), signed_in(page, "tb")
        one, two = form(first, page, "dan"), form(second, page, "dan")
        assert one[2]["shown_score"] == two[2]["shown_score"]  # both see the same score
        post_mark(first, page, one[0], one[2], "dan", ["counts", "head", "shared"])
        said = post_mark(second, page, two[0], two[2], "dan", ["counts"])
    with Gradebook(course.db_url, course.course_id) as gb:
        assert gb.find_grade(CELL, NOTEBOOK, ASSIGNMENT, "dan").manual_score == 1.5
    shown = two[2]["shown_score"] or "no score"
    assert f"the gradebook holds 1.5, not {shown} as this page showed" in said
    assert "your 0.5 was not written over it" in said
