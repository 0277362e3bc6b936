"""A student's regrade request goes round trip: asked on the course page's store, seen
beside her answer on the staff's grading page, the answer scored again there and the
request answered with a change, and the new score pushed to the LMS (Canvas, the small
API of testsupport.fake_canvas) once, as the push sends any changed grade."""

import re
import warnings

import pytest
import requests
from nbgrader.api import Gradebook

from grader.cli import main
from testsupport.explain_course import ASSIGNMENT, CELL, NOTEBOOK, explain_course, own_values
from testsupport.fake_canvas import FakeCanvas, Served
from testsupport.grading_page import served

TOKENS = {"ta": "token-of-the-ta-" + "e" * 20, "tb": "token-of-the-tb-" + "f" * 20}
CANVAS_TOKEN = "round-trip-token"


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    from grader.settings import load
    from testsupport.course import ROOT

    salt = load(ROOT).variant_salt
    answers = {}
    for student in ("cyd", "dan"):
        counts = own_values(student, salt)
        answers[student] = (f"Untied {counts['untied']:,} and tied {counts['tied']:,}: the "
                            f"head's [{counts['vocab_size']}, {counts['emb_dim']}] matrix.")
    folder = str(tmp_path_factory.mktemp("round-trip") / "course")
    explain_course(folder, answers, "c.GradingPage.graders = ['ta', 'tb']\n"
                   "c.GradingPage.strict = False\nc.CanvasPush.backoff_seconds = 0.001")
    roster = f"{folder}/roster-in.csv"
    with open(roster, "w", encoding="utf-8") as handle:
        handle.write("id,first_name,last_name,lms_user_id\ncyd,Cyd,Cole,101\ndan,Dan,Dee,102\n")
    assert main(["roster", roster, "--course", folder]) == 0
    return load(folder)


@pytest.fixture
def canvas(monkeypatch, tmp_path):
    fake = FakeCanvas(77, CANVAS_TOKEN, {5: {"name": ASSIGNMENT, "points_possible": 2.0}},
                      students={"101", "102"})
    api = Served(fake)
    token_file = tmp_path / "token"
    token_file.write_text(CANVAS_TOKEN)
    token_file.chmod(0o600)
    monkeypatch.setenv("CANVAS_URL", api.url)
    monkeypatch.setenv("CANVAS_COURSE", "77")
    monkeypatch.setenv("CANVAS_TOKEN_FILE", str(token_file))
    yield fake
    api.close()


def push(course):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Canvas may respond unexpectedly")  # http: on 127.0.0.1
        return main(["canvas-push", ASSIGNMENT, "--course", course.root])


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


def test_a_regrade_request_ends_in_a_changed_score_in_the_gradebook_and_in_canvas(course,
                                                                                  canvas):
    from grader.recording import ask_regrade, requests_of

    with served(course, TOKENS) as page:
        session = signed_in(page, "ta")
        save(session, page, "cyd", ["counts"])
        save(session, page, "dan", ["counts", "head"])
        assert push(course) == 0
        assert {(w.user, w.posted_grade) for w in canvas.writes} == {("101", "0.5"),
                                                                     ("102", "1")}
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
    assert [(w.user, w.posted_grade) for w in canvas.writes[2:]] == [("101", "1")]


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
