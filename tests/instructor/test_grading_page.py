"""The staff's grading page, as graders and a forger use it over HTTP: a class of six with
parameters' explain answers waiting, two graders with a strict split, each signed in by
the token the page printed for them."""

import re

import pytest
import requests
from nbgrader.api import Gradebook

from testsupport.explain_course import ASSIGNMENT, CELL, NOTEBOOK, explain_course, own_values
from testsupport.grading_page import served

STUDENTS = ("ada", "bob", "cyd", "dee", "eve", "fay")
DECLARED = "I asked <b>a chatbot</b> to check my sums."
LONG = "word " * 2_100_000  # a 10 MB answer
TOKENS = {"ta1": "token-of-ta1-" + "a" * 20, "ta2": "token-of-ta2-" + "b" * 20}
SCRIPT = "<script>alert('owned')</script>"


def _answers(salt):
    answers = {}
    for number, student in enumerate(STUDENTS):
        counts = own_values(student, salt)
        if number % 2:
            answers[student] = (f"Untied {counts['untied']:,}, tied {counts['tied']:,}: the head "
                                f"[{counts['vocab_size']}, {counts['emb_dim']}] is shared.")
        else:
            answers[student] = (f"state_dict shows two names for one tensor; torch.save writes "
                                f"it once. {counts['tied']:,} remain.")
    answers["fay"] += " " + SCRIPT
    answers["eve"] += " " + LONG
    return answers


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    from grader.settings import load

    folder = str(tmp_path_factory.mktemp("grading-page") / "course")
    salt = load_salt()
    explain_course(folder, _answers(salt), "c.GradingPage.graders = ['ta1', 'ta2']\n"
                   "c.GradingPage.seed = 'fixed-split'", declarations={"bob": DECLARED})
    return load(folder)


def load_salt():
    from grader.settings import load
    from testsupport.course import ROOT

    return load(ROOT).variant_salt


@pytest.fixture(scope="module")
def page(course):
    """The page on 127.0.0.1, a free port, in a thread of this process."""
    with served(course, TOKENS) as address:
        yield address


def signed_in(page, grader):
    session = requests.Session()
    answer = session.get(f"{page}/login", params={"token": TOKENS[grader]}, timeout=30)
    assert answer.status_code == 200, answer.text
    return session


def form_of(session, page, student, view="all"):
    """The page of the group holding `student`, and the fields of that student's form."""
    text = session.get(f"{page}/q/{ASSIGNMENT}", params={"view": view}, timeout=60).text
    groups = re.findall(r"group=([0-9a-zA-Z_-]+)'", text)
    for group in dict.fromkeys(groups):
        body = session.get(f"{page}/q/{ASSIGNMENT}", params={"view": view, "group": group},
                           timeout=60).text
        article = re.search(rf"<article id='a-{student}'.*?</article>", body, re.S)
        if article:
            fields = dict(re.findall(r"name=[\"']?(_xsrf|shown_score)[\"']? "
                                     r"value=[\"']([^\"']*)[\"']", article.group(0)))
            if "_xsrf" not in fields:  # not hers to score: the page's other forms carry it
                fields["_xsrf"] = re.search(r"name=[\"']?_xsrf[\"']? value=[\"']([^\"']*)",
                                            body).group(1)
                fields.setdefault("shown_score", "")
            return group, body, fields
    raise AssertionError(f"{student} is in no group")


def gradebook_score(course, student):
    with Gradebook(course.db_url, course.course_id) as gb:
        return gb.find_grade(CELL, NOTEBOOK, ASSIGNMENT, student).manual_score


def split_of(course):
    from grader.grading_page.staff import StaffSplit

    return StaffSplit(course).split(ASSIGNMENT, list(STUDENTS))


def test_no_token_no_page_and_a_wrong_token_is_refused(page):
    assert requests.get(f"{page}/q/{ASSIGNMENT}", allow_redirects=False,
                        timeout=30).status_code == 302
    refused = requests.get(f"{page}/login", params={"token": "guess"}, timeout=30)
    assert refused.status_code == 403
    assert "the address the grading page printed" in refused.text


def test_an_answers_html_is_shown_as_text_never_run(page):
    session = signed_in(page, "ta1")
    _, body, _ = form_of(session, page, "fay")
    assert SCRIPT not in body
    assert "&lt;script&gt;alert(&#x27;owned&#x27;)&lt;/script&gt;" in body
    assert "script-src 'self'" in session.get(f"{page}/q/{ASSIGNMENT}",
                                              timeout=30).headers["Content-Security-Policy"]


def test_the_rubrics_suggestions_are_shown_never_applied(page):
    """(before any test below grades or drafts an answer)"""
    session = signed_in(page, "ta1")
    _, body, _ = form_of(session, page, "ada")  # "state_dict ... torch.save writes it once"
    ada = re.search(r"<article id='a-ada'.*?</article>", body, re.S).group(0)
    labels = {key: label for key, label in re.findall(
        r"<label><input type=checkbox name=item value='([a-z-]+)'(.*?)</label>", ada, re.S)}
    assert {key for key, label in labels.items() if "suggested by the rubric" in label} == {
        "shared", "save"}
    assert not any(" checked" in label.split(">")[0] for label in labels.values())


def test_a_saved_mark_is_the_items_points_in_the_gradebook_with_the_record_naming_the_grader(
        page, course):
    split = split_of(course)
    student = next(s for s in STUDENTS if split[s] == "ta1" and s != "fay")
    session = signed_in(page, "ta1")
    group, _, fields = form_of(session, page, student)
    assert fields["shown_score"] == ""
    answer = session.post(f"{page}/q/{ASSIGNMENT}/mark",
                          params={"view": "all", "group": group},
                          data={"_xsrf": fields["_xsrf"], "student": student, "shown_score": "",
                                "item": ["counts", "head"], "adjust": "0.25",
                                "own": "Well argued."}, timeout=60)
    assert answer.status_code == 200, answer.text
    assert gradebook_score(course, student) == 1.25  # 0.5 + 0.5 + 0.25
    from grader.explain import read_state, state_path

    entry = read_state(state_path(course, ASSIGNMENT), None, None)["graded"][student]
    assert entry["by"] == "ta1" and entry["items"] == ["counts", "head"]
    assert "+0.25** the grader's adjustment" in entry["comment"]
    assert "Well argued." in entry["comment"]


def test_an_item_applied_to_a_group_scores_nobody_until_each_answer_is_saved(page, course):
    split = split_of(course)
    session = signed_in(page, "ta2")
    mine = [s for s in STUDENTS if split[s] == "ta2"]
    group, _, fields = form_of(session, page, mine[0])
    answer = session.post(f"{page}/q/{ASSIGNMENT}/group", params={"view": "all"},
                          data={"_xsrf": fields["_xsrf"], "group": group, "item": "shared"},
                          timeout=60)
    assert answer.status_code == 200
    assert "drafted on" in answer.text
    assert all(gradebook_score(course, s) is None for s in mine)
    from grader.explain import read_state, state_path

    drafts = read_state(state_path(course, ASSIGNMENT), None, None)["drafts"]
    assert mine[0] in drafts and drafts[mine[0]]["items"] == ["shared"]
    assert not any(s in drafts for s in STUDENTS if split[s] != "ta2")  # strict: only hers


def test_a_score_changed_in_formgrader_meanwhile_is_a_conflict_and_kept(page, course):
    split = split_of(course)
    student = [s for s in STUDENTS if split[s] == "ta2"][-1]
    session = signed_in(page, "ta2")
    group, _, fields = form_of(session, page, student)
    shown = fields["shown_score"]
    with Gradebook(course.db_url, course.course_id) as gb:  # formgrader, in between
        grade = gb.find_grade(CELL, NOTEBOOK, ASSIGNMENT, student)
        grade.manual_score = 2.0
        gb.db.commit()
    answer = session.post(f"{page}/q/{ASSIGNMENT}/mark", params={"view": "all", "group": group},
                          data={"_xsrf": fields["_xsrf"], "student": student,
                                "shown_score": shown, "item": ["counts"]}, timeout=60)
    assert answer.status_code == 200
    assert gradebook_score(course, student) == 2.0
    assert "the gradebook holds 2, not no score as this page showed" in answer.text
    assert "your 0.5 was not written over it" in answer.text


def test_a_grader_scoring_a_student_not_theirs_is_refused_with_a_sentence(page, course):
    split = split_of(course)
    student = next(s for s in STUDENTS if split[s] == "ta2")
    session = signed_in(page, "ta1")
    _, _, fields = form_of(session, page, "ada")
    answer = session.post(f"{page}/q/{ASSIGNMENT}/mark",
                          data={"_xsrf": fields["_xsrf"], "student": student,
                                "shown_score": "", "item": ["counts"]}, timeout=60)
    assert answer.status_code == 403
    assert "ta2" in answer.text and gradebook_score(course, student) in (None, 2.0)


def test_a_forged_or_cross_site_form_and_a_removed_item_change_nothing(page, course):
    split = split_of(course)
    student = next(s for s in STUDENTS if split[s] == "ta1" and gradebook_score(course, s)
                   is None)
    session = signed_in(page, "ta1")
    _, _, fields = form_of(session, page, student)
    data = {"student": student, "shown_score": "", "item": ["counts"]}
    forged = session.post(f"{page}/q/{ASSIGNMENT}/mark", data=data, timeout=60)
    cross = session.post(f"{page}/q/{ASSIGNMENT}/mark", data={**data, "_xsrf": fields["_xsrf"]},
                         headers={"Origin": "http://evil.example"}, timeout=60)
    gone = session.post(f"{page}/q/{ASSIGNMENT}/mark",
                        data={**data, "_xsrf": fields["_xsrf"], "item": ["no-such-item"]},
                        timeout=60)
    assert (forged.status_code, cross.status_code, gone.status_code) == (403, 403, 400)
    assert "another site" in cross.text
    assert "has no item no-such-item" in gone.text
    assert gradebook_score(course, student) is None


def test_a_declaration_and_a_ten_megabyte_answer_are_shown_and_the_page_still_answers(page):
    session = signed_in(page, "ta1")
    _, body, _ = form_of(session, page, "bob")
    bob = re.search(r"<article id='a-bob'.*?</article>", body, re.S).group(0)
    assert "Their AI declaration (never graded): I asked &lt;b&gt;a chatbot&lt;/b&gt;" in bob
    _, body, _ = form_of(session, page, "eve")
    eve = re.search(r"<article id='a-eve'.*?</article>", body, re.S).group(0)
    assert len(eve) < 60_000
    assert f"goes on for {len(_answers(load_salt())['eve'].strip()) - 20_000:,} more" in eve


def test_a_students_regrade_request_shows_on_the_answer_and_is_answered_once(page, course):
    from grader.recording import ask_regrade, requests_of

    asked = ask_regrade(course, "cyd", ASSIGNMENT, CELL, "Please look again <i>now</i>",
                        feedback_out=True)
    assert asked.status == "asked", asked.sentence
    session = signed_in(page, "ta2")
    _, body, _ = form_of(session, page, "cyd")
    cyd = re.search(r"<article id='a-cyd'.*?</article>", body, re.S).group(0)
    assert "Please look again &lt;i&gt;now&lt;/i&gt;" in cyd
    listing = session.get(f"{page}/requests", timeout=30).text
    xsrf = re.search(r"name=[\"']?_xsrf[\"']? value=[\"']([^\"']*)", listing).group(1)
    assert "1 open, 0 answered" in listing
    data = {"_xsrf": xsrf, "request": asked.request.id, "answer": "Right: 2 points now.",
            "changed": "yes"}
    answered = session.post(f"{page}/requests", data=data, timeout=30)
    again = session.post(f"{page}/requests", data=data, timeout=30)
    assert answered.status_code == 200 and "0 open, 1 answered" in answered.text
    assert again.status_code == 400 and "answered already by ta2" in again.text
    [stored] = requests_of(course, "cyd")
    assert (stored.state, stored.by, stored.changed, stored.answer) == (
        "answered", "ta2", True, "Right: 2 points now.")



def test_answers_moved_to_another_grader_are_hers_to_score_and_a_stranger_is_refused(
        page, course):
    split = split_of(course)
    student = next(s for s in STUDENTS if split[s] == "ta2" and gradebook_score(course, s)
                   is None)
    session = signed_in(page, "ta1")
    group, body, fields = form_of(session, page, student)
    assert "Move the " in body  # no instructors listed: every grader may move answers
    moved = session.post(f"{page}/q/{ASSIGNMENT}/reassign", params={"group": group},
                         data={"_xsrf": fields["_xsrf"], "student": student, "to": "ta1"},
                         timeout=30)
    stranger = session.post(f"{page}/q/{ASSIGNMENT}/reassign", params={"group": group},
                            data={"_xsrf": fields["_xsrf"], "student": student, "to": "tz9"},
                            timeout=30)
    assert moved.status_code == 200 and "1 answer(s) moved to ta1" in moved.text
    assert stranger.status_code == 403 and "tz9 is no grader of this course" in stranger.text
    assert split_of(course)[student] == "ta1"
    scored = session.post(f"{page}/q/{ASSIGNMENT}/mark", params={"group": group},
                          data={"_xsrf": fields["_xsrf"], "student": student,
                                "shown_score": fields["shown_score"], "item": ["save"]},
                          timeout=30)
    assert scored.status_code == 200 and gradebook_score(course, student) == 0.5
