"""Where a student stands on the course page, and the regrade requests they ask there: the
table of every assignment first, the form only once the feedback is out, the request
stored for the login whatever the form says, and every typed text shown escaped."""

import asyncio
import dataclasses
import datetime
import os
import re
import urllib.parse
from datetime import UTC

import pytest
from nbgrader.api import Gradebook
from tornado import httpclient, web
from traitlets.config import Config

from grader.recording import RequestState, answer_request, ask_regrade, requests_of
from grader.service.page import actions
from grader.service.page.actions import PageOutcome
from grader.service.page.standing import (AssignmentStanding, Standing, StudentStanding,
                                          late_words, standing_html, standing_of)
from grader.service.queue.records import JobState, ReleaseOutcome
from grader.service.queue.store import Store
from grader.settings import HubTransport, load
from testsupport.course_page import (PREFIX, LoginHttpPage, LoginHttpRegrade, LoginPage,
                                     LoginRegrade)
from testsupport.gradebook import sqlite_url
from testsupport.tiny_course import ASSIGNMENT, NOTEBOOK, POINTS, record_grades

HTML_MESSAGE = '<img src=x onerror="alert(1)">my double is right & fair'

pytestmark = pytest.mark.usefixtures("no_regrade_requests")


@pytest.fixture(scope="module")
def settings(tiny_course):
    return load(tiny_course)


@pytest.fixture
def store(tmp_path):
    return Store(str(tmp_path / "queue.db"))


def graded(settings, store, student, points=None, feedback_out=True):
    """`student`'s hand-in graded into the gradebook (the checks' `points`), and its
    feedback given out when `feedback_out`."""
    with Gradebook(sqlite_url(settings.root), settings.course_id) as gb:
        gb.update_or_create_student(student)
    record_grades(settings.root, student, points or {"double_visible": 1.0,
                                                     "double_hidden": 0.0,
                                                     "ones_values": 2.0, "answer_value": 1.0})
    job = store.hand_in(student, ASSIGNMENT, {f"{NOTEBOOK}.ipynb": b"{}"},
                        f"exchange:{student}+tiny+1", datetime.datetime(2026, 12, 1, tzinfo=UTC))
    store.finish(job.id, JobState.GRADED, score=4.0, max_score=6.0, checks=[])
    if feedback_out:
        folder = os.path.join(settings.feedback, student, ASSIGNMENT)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, f"{NOTEBOOK}.html"), "wb") as handle:
            handle.write(b"<p>feedback</p>")
        store.record_release(job, ReleaseOutcome.THROUGH_EXCHANGE,
                             datetime.datetime(2026, 12, 2, tzinfo=UTC))
    return job


def test_each_state_of_an_assignment_for_a_student(settings, store):
    assert standing_of(settings, store, "nina").assignments == [
        AssignmentStanding(ASSIGNMENT, Standing.NOT_HANDED_IN)]
    store.hand_in("hank", ASSIGNMENT, {f"{NOTEBOOK}.ipynb": b"{}"}, "exchange:hank+tiny+1",
                  datetime.datetime(2026, 12, 1, tzinfo=UTC))
    assert standing_of(settings, store, "hank").assignments == [
        AssignmentStanding(ASSIGNMENT, Standing.HANDED_IN)]
    graded(settings, store, "gina", feedback_out=False)
    assert standing_of(settings, store, "gina").assignments == [
        AssignmentStanding(ASSIGNMENT, Standing.GRADED)]  # no score before the feedback


def test_the_score_once_the_feedback_is_out_is_the_checks_and_the_points_by_hand(settings,
                                                                                 store):
    graded(settings, store, "fred")
    with Gradebook(sqlite_url(settings.root), settings.course_id) as gb:
        grade = gb.find_grade("double_hidden", NOTEBOOK, ASSIGNMENT, "fred")
        grade.auto_score = None  # graded by a person only
        grade.manual_score = 1.5
        gb.db.commit()
    ask_regrade(settings, "fred", ASSIGNMENT, "answer_value", "why?", feedback_out=True)
    standing = standing_of(settings, store, "fred")
    [row] = standing.assignments
    assert row == AssignmentStanding(ASSIGNMENT, Standing.FEEDBACK_OUT, 4.0, 1.5, 0.0,
                                     sum(POINTS.values()), 0, 1)
    assert row.score == 5.5 and standing.late_days_budget is None
    page = standing_html(standing)
    assert ("<tr><td>tiny</td><td>feedback out</td><td>5.5 / 6 (checks 4 + by hand 1.5)</td>"
            "<td>-</td><td>1</td></tr>") in page
    assert ("Late days: no late days budget in this course; work handed in late gets the "
            "course&#x27;s late penalty.") in page
    assert page.index("<h2>Where do I stand</h2>") == 0


def test_late_days_used_and_left_under_a_late_day_budget(settings, store):
    config = Config(settings.config)
    config.AssignLatePenalties.plugin_class = "grader.plugins.late.LateDayBudget"
    config.LateDayBudget.days = 3
    budgeted = dataclasses.replace(settings, config=config)
    due = datetime.datetime(2026, 11, 1, 12, 0)
    with Gradebook(sqlite_url(settings.root), settings.course_id) as gb:
        gb.find_assignment(ASSIGNMENT).duedate = due
        gb.update_or_create_student("lea")
        gb.add_submission(ASSIGNMENT, "lea", timestamp=due + datetime.timedelta(hours=25))
        gb.db.commit()
    try:
        standing = standing_of(budgeted, store, "lea")
    finally:
        with Gradebook(sqlite_url(settings.root), settings.course_id) as gb:
            gb.find_assignment(ASSIGNMENT).duedate = None
            gb.db.commit()
    assert standing.late_days_budget == 3
    assert [(r.state, r.late_days_used) for r in standing.assignments] == [
        (Standing.GRADED, 2)]
    assert late_words(standing) == "Late days: 2 used, 1 left of 3."
    assert late_words(StudentStanding([], None)).startswith("Late days: no late days budget")


def test_a_request_before_the_feedback_is_out_is_refused_and_nothing_kept(settings, store):
    graded(settings, store, "olga", feedback_out=False)
    refused = actions.ask_for_regrade(settings, store, "olga", ASSIGNMENT, "double_hidden",
                                      "please look")
    assert (refused.outcome, refused.sentence) == (
        PageOutcome.REFUSED, f"not asked: your feedback of {ASSIGNMENT} is not out yet; ask "
        "once you have read it")
    assert requests_of(settings, "olga") == []


def test_a_message_of_the_limit_typed_in_lines_is_kept_with_its_line_breaks(settings, store):
    graded(settings, store, "lina")
    typed = ("x" * 999 + "\n") * 2  # 2,000 characters as typed; the form sends CR LF
    asked = actions.ask_for_regrade(settings, store, "lina", ASSIGNMENT, "ones_values",
                                    typed.replace("\n", "\r\n"))
    assert asked.outcome == PageOutcome.ASKED
    assert [r.message for r in requests_of(settings, "lina")] == [typed]


# --- the page itself, as the hub's login sees it --------------------------------------------

async def visit(settings, store, login, form, groups=None, post_groups=None):
    """The page as `login` sees it, then `form` posted with the page's XSRF token, then the
    page again; returns (the first page, the page after). With `groups` (the login's hub
    groups; `post_groups` when it posts, if they differ), the page over HTTP, whose students
    are the hub group "course-students"."""
    options = {"settings": settings, "store": store, "instructors": "nobody-group",
               "login": login}
    handlers = (LoginPage, LoginRegrade)
    if groups is not None:
        transport = HubTransport(transport="http", students_group="course-students")
        options.update(groups=groups, transport=transport)
        handlers = (LoginHttpPage, LoginHttpRegrade)
    posting = dict(options, groups=post_groups) if post_groups is not None else options
    app = web.Application([(PREFIX, handlers[0], options),
                           (PREFIX + "regrade", handlers[1], posting)],
                          cookie_secret="s" * 32, xsrf_cookies=True)
    server = app.listen(0, address="127.0.0.1")
    port = next(iter(server._sockets.values())).getsockname()[1]
    client = httpclient.AsyncHTTPClient(force_instance=True)
    url = f"http://127.0.0.1:{port}{PREFIX}"
    try:
        first = await client.fetch(url)
        cookies = "; ".join(c.split(";")[0] for c in first.headers.get_list("Set-Cookie"))
        token = re.search(r'name="_xsrf" value="([^"]+)"', first.body.decode()).group(1)
        posted = await client.fetch(url + "regrade", method="POST", headers={"Cookie": cookies},
                                    body=urllib.parse.urlencode(dict(form, _xsrf=token)),
                                    follow_redirects=False, raise_error=False)
        if posted.code != 302:
            return first.body.decode(), f"{posted.code}: {posted.body.decode()}"
        message = "; ".join(c.split(";")[0] for c in posted.headers.get_list("Set-Cookie"))
        after = await client.fetch(url, headers={"Cookie": f"{cookies}; {message}"})
        return first.body.decode(), after.body.decode()
    finally:
        client.close()
        server.stop()


def test_the_page_asks_for_the_login_whatever_the_form_says_and_shows_the_message_escaped(
        settings, store):
    graded(settings, store, "ann")
    first, after = asyncio.run(visit(settings, store, "ann", {
        "assignment": ASSIGNMENT, "item": "double_hidden", "message": HTML_MESSAGE,
        "student": "bob"}))
    assert first.index("<h2>Where do I stand</h2>") < first.index(f"<h2>{ASSIGNMENT}</h2>")
    assert '<option value="double_hidden">double_hidden (check)</option>' in first
    assert "Ask for a regrade (tiny)</button>" in first
    [request] = requests_of(settings, "ann")
    assert (request.student, request.item, request.message, request.state) == (
        "ann", "double_hidden", HTML_MESSAGE, RequestState.OPEN)
    assert requests_of(settings, "bob") == []
    assert (f'<p class="note" role="status">asked: your request about double_hidden of '
            f"{ASSIGNMENT} is with the staff; their answer shows here</p>") in after
    assert "<img" not in after
    assert ('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;my double is right &amp; fair'
            in after)
    assert "<td>tiny</td><td>feedback out</td>" in after and "<td>-</td><td>1</td></tr>" in after
    answer_request(settings, request.id, "tess", "<b>2 points back</b>", True)
    _, answered = asyncio.run(visit(settings, store, "ann", {
        "assignment": ASSIGNMENT, "item": "double_hidden", "message": ""}))
    assert ("<td>answered</td><td class=\"typed\">&lt;b&gt;2 points back&lt;/b&gt;</td>"
            "<td>yes</td>") in answered
    assert ('<p class="note" role="status">not asked: say what should be looked at again '
            "(the message is empty)</p>") in answered


def test_before_the_feedback_the_page_has_no_form_and_a_post_is_refused(settings, store):
    graded(settings, store, "cleo", feedback_out=False)
    first, after = asyncio.run(visit(settings, store, "cleo", {
        "assignment": ASSIGNMENT, "item": "double_hidden", "message": "look again"}))
    assert "Ask for a regrade" not in first and "<td>tiny</td><td>graded</td>" in first
    assert (f"not asked: your feedback of {ASSIGNMENT} is not out yet; ask once you have "
            "read it") in after
    assert requests_of(settings, "cleo") == []


def test_over_http_a_course_student_asks_and_a_hub_user_outside_the_group_is_refused(
        settings, store):
    graded(settings, store, "hugo")
    form = {"assignment": ASSIGNMENT, "item": "ones_values", "message": "ones are ones"}
    _, refused = asyncio.run(visit(settings, store, "hugo", form, groups=["course-students"],
                                   post_groups=["others"]))
    assert refused.startswith("403: ")
    assert "only the course&#x27;s students ask for a regrade; nothing was done" in refused
    assert requests_of(settings, "hugo") == []
    first, after = asyncio.run(visit(settings, store, "hugo", form, groups=["course-students"]))
    assert "Ask for a regrade (tiny)</button>" in first
    assert f"asked: your request about ones_values of {ASSIGNMENT} is with the staff" in after
    assert [r.item for r in requests_of(settings, "hugo")] == ["ones_values"]
