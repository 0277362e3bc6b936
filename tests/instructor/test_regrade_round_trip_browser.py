"""A student's regrade request goes round trip in Chromium. Cyd reads her feedback on the
course page (0.5 of 2 for her explain answer), asks there for a regrade of it; her grader
sees the request beside her answer on the staff's grading page, scores it again and
answers the request with a change; `make feedback` writes her feedback again and the push
to Canvas (testsupport.fake_canvas) sends her new grade, and only hers. Her course page
then shows the answer, the new score where she stands and on her feedback page."""

import datetime
import os
import re
import subprocess
import sys

import pytest
from nbgrader.api import Gradebook

from testsupport.accessibility import CHROMIUM, CHROMIUM_FLAGS, DESKTOP, WAIT_MS
from testsupport.course import nbgrader_env
from testsupport.course_page import served_course_page
from testsupport.explain_course import ASSIGNMENT, CELL, NOTEBOOK, class_of_two
from testsupport.fake_canvas import canvas_push
from testsupport.grading_page import groups_in_chromium, served

TOKEN = "token-of-the-ta-" + "a" * 20
MESSAGE = "My answer <b>names</b> the head's matrix: please look again."
ANSWER = "Right: your answer names the [vocab, emb] matrix, the head item applies."


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """cyd's and dan's answers, their checks passed (10 of the 12 points)."""
    return class_of_two(str(tmp_path_factory.mktemp("regrade-round-trip") / "course"),
                        "c.GradingPage.graders = ['ta']\nc.CanvasPush.backoff_seconds = 0.001",
                        checks_passed=True)


@pytest.fixture
def store(course, tmp_path):
    """The grading service's queue: both hand-ins graded, their feedback given out at the
    due date (what the course page reads to show the feedback and the regrade form)."""
    from grader.service.queue.records import JobState, ReleaseOutcome
    from grader.service.queue.store import Store

    store = Store(str(tmp_path / "queue.db"))
    for student in ("cyd", "dan"):
        job = store.hand_in(student, ASSIGNMENT, {f"{NOTEBOOK}.ipynb": b"{}"},
                            f"exchange:{student}+{ASSIGNMENT}+1",
                            datetime.datetime(2026, 12, 1, tzinfo=datetime.UTC))
        store.finish(job.id, JobState.GRADED, score=10.0, max_score=12.0, checks=[])
        store.record_release(job, ReleaseOutcome.THROUGH_EXCHANGE,
                             datetime.datetime(2026, 12, 2, tzinfo=datetime.UTC))
    return store


def make_feedback(course):
    """`make feedback`'s step: nbgrader's generate_feedback with the course's config."""
    done = subprocess.run([sys.executable, "-m", "nbgrader", "generate_feedback", ASSIGNMENT,
                           "--force"], cwd=course.root, env=nbgrader_env(),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert os.path.isfile(f"{course.feedback}/cyd/{ASSIGNMENT}/{NOTEBOOK}.html")


def manual_score(course, student):
    with Gradebook(course.db_url, course.course_id) as gb:
        return gb.find_grade(CELL, NOTEBOOK, ASSIGNMENT, student).manual_score


def open_answer(tab, staff, student):
    """The grading page at `student`'s answer, found through the groups of the question."""
    for articles in groups_in_chromium(tab, staff, ASSIGNMENT):
        if any(a.get_attribute("data-student") == student for a in articles):
            return tab.locator(f"article[data-student='{student}']")
    raise AssertionError(f"{student}'s answer is in no group")


def score_by_keys(tab, article, keys):
    """A grader's keys on one answer: the items' numbers, then Enter to save."""
    article.focus()
    for key in keys:
        tab.keyboard.press(key)
    with tab.expect_navigation():
        tab.keyboard.press("Enter")


def summary_row(tab):
    """The feedback page's row of the explain answer, and its total."""
    text = re.sub(r"\s+", " ", tab.locator("body").inner_text())
    row = re.search(r"Your answer \(explain_tying\), graded by hand \S+ \w+ ([\d.]+ / 2)", text)
    total = re.search(r"Score: ([\d.]+) of 12 points", text)
    assert row and total, text[:1500]
    return row.group(1), total.group(1)


@pytest.fixture
def chromium():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                             args=CHROMIUM_FLAGS)

        def tab():
            context = browser.new_context(viewport=DESKTOP)  # cookies of its own
            context.set_default_timeout(WAIT_MS)
            return context.new_page()

        yield tab
        browser.close()


def test_a_regrade_request_ends_in_a_changed_score_on_the_feedback_page_and_in_canvas(
        course, store, canvas_of_two, chromium):
    with served(course, {"ta": TOKEN}) as staff, \
            served_course_page(course, store, "cyd") as page:
        ta, cyd = chromium(), chromium()
        ta.goto(f"{staff}/login?token={TOKEN}")
        score_by_keys(ta, open_answer(ta, staff, "cyd"), ["1"])  # counts: 0.5
        score_by_keys(ta, open_answer(ta, staff, "dan"), ["1", "2"])  # counts, head: 1
        assert (manual_score(course, "cyd"), manual_score(course, "dan")) == (0.5, 1.0)
        make_feedback(course)
        assert canvas_push(course.root, ASSIGNMENT) == 0
        assert {(w.user, w.posted_grade) for w in canvas_of_two.writes} == {
            ("101", "10.5"), ("102", "11")}

        cyd.goto(page)  # where she stands, then her feedback page; the message escaped
        assert "10.5 / 12 (checks 10 + by hand 0.5)" in cyd.locator("body").inner_text()
        cyd.get_by_role("link", name=re.compile(NOTEBOOK)).first.click()
        assert summary_row(cyd) == ("0.5 / 2", "10.5")
        cyd.go_back()
        cyd.get_by_label(re.compile("Which item")).select_option(CELL)
        cyd.get_by_label(re.compile("Your message")).fill(MESSAGE)
        with cyd.expect_navigation():
            cyd.get_by_role("button", name=f"Ask for a regrade ({ASSIGNMENT})").click()
        requests_table = cyd.locator("table", has_text="Message")
        assert "open" in requests_table.inner_text() and MESSAGE in requests_table.inner_text()

        article = open_answer(ta, staff, "cyd")  # seen beside her answer, escaped
        assert article.locator("q").inner_text() == MESSAGE
        score_by_keys(ta, article, ["2"])  # head, beside counts: 1
        assert manual_score(course, "cyd") == 1.0
        with ta.expect_navigation():
            open_answer(ta, staff, "cyd").get_by_role("link", name="answer it").click()
        request = ta.locator("article", has_text=MESSAGE)
        request.get_by_label("Your answer").fill(ANSWER)
        request.get_by_label(re.compile("the score was changed")).check()
        with ta.expect_navigation():
            request.get_by_role("button", name="Answer").click()
        assert "score changed" in ta.locator("article", has_text=MESSAGE).inner_text()

        make_feedback(course)
        assert canvas_push(course.root, ASSIGNMENT) == 0
        assert [(w.user, w.posted_grade) for w in canvas_of_two.writes[2:]] == [("101", "11")]
        cyd.reload()
        body = cyd.locator("body").inner_text()
        assert "11 / 12 (checks 10 + by hand 1)" in body
        row = cyd.locator("table", has_text="Message").locator("tr", has_text=ASSIGNMENT)
        assert [c.inner_text() for c in row.locator("td").all()][4:] == ["answered", ANSWER,
                                                                       "yes"]
        cyd.get_by_role("link", name=re.compile(NOTEBOOK)).first.click()
        assert summary_row(cyd) == ("1 / 2", "11")
