"""Regrade requests asked on the course page: each refusal says why and stores nothing, one
open request per item, the staff's answer kept, two asks at once both kept, and a file that
cannot be read named and left as it is."""

import json
import os
import threading

import pytest
from nbgrader.api import Gradebook

from grader.recording import (AskStatus, RequestState, answer_request, ask_regrade,
                              open_requests, request_items, requests_of)
from grader.recording.asked_regrades import MAX_MESSAGE, requests_file
from grader.settings import CourseError, load
from testsupport.tiny_course import ASSIGNMENT, NOTEBOOK, make_course

pytestmark = pytest.mark.usefixtures("no_regrade_requests")


@pytest.fixture(scope="module")
def settings(tiny_course):
    return load(tiny_course)


def ask(settings, student="ann", item="double_hidden", message="my double is right",
        feedback_out=True, **kwargs):
    return ask_regrade(settings, student, ASSIGNMENT, item, message, feedback_out=feedback_out,
                       **kwargs)


def test_the_items_are_the_assignments_grade_cells_in_the_gradebook(settings):
    assert request_items(settings, ASSIGNMENT) == {
        "double_visible": "check", "double_hidden": "check", "ones_values": "check",
        "answer_value": "check"}
    assert request_items(settings, "no-such") == {}


def test_the_explain_question_is_an_item_as_the_gradebook_holds_it(tmp_path):
    """An explain answer is a markdown grade cell, graded by a person: its grade_id is an
    item too, named as the question it is."""
    course = load(make_course(str(tmp_path / "course")))
    with Gradebook(course.db_url, course.course_id) as gb:
        gb.add_grade_cell("explain_double", NOTEBOOK, ASSIGNMENT, max_score=2.0,
                          cell_type="markdown")
        gb.db.commit()
    assert list(request_items(course, ASSIGNMENT).items())[-1] == (
        "explain_double", "explain question")
    asked = ask_regrade(course, "ann", ASSIGNMENT, "explain_double", "my reasoning holds",
                        feedback_out=True)
    assert (asked.status, asked.request.item) == (AskStatus.ASKED, "explain_double")


def test_a_request_is_stored_open_with_the_message_as_typed(settings):
    message = "<script>alert(1)</script>\n  two lines, as typed  "
    asked = ask(settings, message=message)
    assert asked.status == AskStatus.ASKED
    assert asked.sentence == (f"asked: your request about double_hidden of {ASSIGNMENT} is "
                              "with the staff; their answer shows here")
    request = asked.request
    assert (request.student, request.assignment, request.item, request.message, request.state,
            request.answer, request.changed, request.by, request.answered_at) == (
        "ann", ASSIGNMENT, "double_hidden", message, RequestState.OPEN, "", False, "", "")
    assert request.asked_at.endswith("+00:00") and len(request.id) >= 16
    with open(requests_file(settings, ASSIGNMENT), encoding="utf-8") as handle:
        stored = json.load(handle)["requests"]
    assert stored == [request.to_json()] and stored[0]["state"] == "open"
    assert open_requests(settings, ASSIGNMENT) == [request]
    assert requests_of(settings, "ann") == [request] and requests_of(settings, "bob") == []


REFUSED = [
    ("before the feedback is out", dict(feedback_out=False),
     f"not asked: your feedback of {ASSIGNMENT} is not out yet; ask once you have read it"),
    ("an item that is not the assignment's", dict(item="intro"),
     f"not asked: 'intro' is not a check or question of {ASSIGNMENT}"),
    ("an empty message", dict(message=" \n\t "),
     "not asked: say what should be looked at again (the message is empty)"),
    ("a message over the limit", dict(message="x" * (MAX_MESSAGE + 1)),
     "not asked: the message has 2,001 characters, more than the 2,000 a request may have; "
     "shorten it and ask again"),
    ("for another student", dict(student="bob", asker="ann"),
     "not asked: a student asks for a regrade of their own work only"),
]


@pytest.mark.parametrize("case, given, sentence", REFUSED, ids=[r[0] for r in REFUSED])
def test_a_refused_request_says_why_and_stores_nothing(settings, case, given, sentence):
    refused = ask(settings, **given)
    assert (refused.status, refused.sentence, refused.request) == (
        AskStatus.REFUSED, sentence, None)
    assert not os.path.exists(requests_file(settings, ASSIGNMENT))


def test_a_message_of_exactly_the_limit_is_kept_whole(settings):
    asked = ask(settings, message="y" * MAX_MESSAGE)
    assert asked.status == AskStatus.ASKED and asked.request.message == "y" * MAX_MESSAGE


def test_one_open_request_per_item_until_the_staff_answer_it(settings):
    first = ask(settings)
    again = ask(settings, message="and again")
    assert (again.status, again.sentence) == (
        AskStatus.REFUSED, f"not asked: your request about double_hidden of {ASSIGNMENT} is "
        "still open; the staff answer it first")
    other_item = ask(settings, item="ones_values")
    other_student = ask(settings, student="bob")
    assert (other_item.status, other_student.status) == (AskStatus.ASKED, AskStatus.ASKED)
    assert len(open_requests(settings, ASSIGNMENT)) == 3
    assert [r.id for r in open_requests(settings, student="ann")] == [
        first.request.id, other_item.request.id]
    answered = answer_request(settings, first.request.id, "tess", "Right: 2 points back.", True)
    assert (answered.status, answered.sentence) == (
        AskStatus.ANSWERED, f"answered: ann's request about double_hidden of {ASSIGNMENT}")
    assert ask(settings, message="one more").status == AskStatus.ASKED  # the item is free again


def test_the_answer_is_stored_with_who_when_and_whether_the_score_changed(settings):
    request = ask(settings).request
    done = answer_request(settings, request.id, "tess", "No change: the check is right.", False)
    assert done.status == AskStatus.ANSWERED
    [stored] = requests_of(settings, "ann")
    assert (stored.state, stored.answer, stored.changed, stored.by) == (
        RequestState.ANSWERED, "No change: the check is right.", False, "tess")
    assert stored.answered_at.endswith("+00:00") and stored.answered_at >= stored.asked_at
    assert open_requests(settings) == []
    twice = answer_request(settings, request.id, "ula", "again", True)
    assert (twice.status, twice.sentence) == (
        AskStatus.REFUSED, "not answered: the request was answered already by tess")
    assert requests_of(settings, "ann") == [stored]
    unknown = answer_request(settings, "nope", "tess", "x", False)
    assert (unknown.status, unknown.sentence) == (
        AskStatus.REFUSED, "not answered: there is no request 'nope'")
    empty = answer_request(settings, request.id, "tess", "  ", False)
    assert (empty.status, empty.sentence) == (AskStatus.REFUSED,
                                              "not answered: the answer is empty")


def test_two_students_asking_at_once_are_both_kept(settings):
    barrier = threading.Barrier(8)
    outcomes = []

    def asker(student):
        barrier.wait()
        outcomes.append(ask(settings, student=student))

    threads = [threading.Thread(target=asker, args=(f"s{n}",)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [o.status for o in outcomes] == [AskStatus.ASKED] * 8
    assert sorted(r.student for r in open_requests(settings, ASSIGNMENT)) == [
        f"s{n}" for n in range(8)]


def test_a_file_that_cannot_be_read_is_named_and_left_as_it_is(settings):
    path = requests_file(settings, ASSIGNMENT)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write('{"requests": [')
    with pytest.raises(CourseError, match=f"the regrade requests {path} cannot be read"):
        ask(settings)
    with pytest.raises(CourseError, match=f"the regrade requests {path} cannot be read"):
        open_requests(settings)
    with open(path, encoding="utf-8") as handle:
        assert handle.read() == '{"requests": ['
