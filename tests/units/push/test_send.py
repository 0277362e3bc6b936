"""Does the push send each student's exported grade and summary once, and survive Canvas's errors?

Every test talks to a small Canvas REST API on 127.0.0.1 (testsupport.fake_canvas)
through canvasapi, exactly as the push talks to Canvas.
"""

import dataclasses
import datetime
import logging
import os
import re
import warnings

import pytest
from traitlets.config import Config

from grader.lms import connection_from
from grader.push import only_students, push_assignment
from grader.reports import AssignmentGrades, Person
from grader.reports.grades import Check, SubmissionGrades
from grader.settings import CourseError
from testsupport.fake_canvas import FakeCanvas, Served, Write

COURSE, TOKEN, ASSIGNMENT_ID = 4242, "a-secret-token-1234", 901
DUE = datetime.datetime(2026, 12, 1, 17, 0)


def grades_of(ada_raw=9.0):
    """parameters, 10 points: ada on time, bob a day late (2 points off), cy handed in but is
    not in the course, dee has no Canvas user id, eve handed nothing in."""
    checks = [Check("parameters", "count_parameters", 6.0), Check("parameters", "tied", 4.0)]

    def handed_in(student, raw, late=0.0, penalty=0.0):
        return SubmissionGrades(student, DUE, late, raw, penalty, 10.0,
                                points={("parameters", "count_parameters"): min(raw, 6.0),
                                        ("parameters", "tied"): max(raw - 6.0, 0.0)})

    return AssignmentGrades("parameters", DUE, 10.0, checks, {
        "ada": handed_in("ada", ada_raw), "bob": handed_in("bob", 10.0, 90000.0, 2.0),
        "cy": handed_in("cy", 5.0), "dee": handed_in("dee", 6.0)})


PEOPLE = {"ada": Person("ada", "Ada", "Adams", lms_user_id="101"),
          "bob": Person("bob", "Bob", "Brown", lms_user_id="102"),
          "cy": Person("cy", "Cy", "Cole", lms_user_id="777"),
          "dee": Person("dee", "Dee", "Dunn"),
          "eve": Person("eve", "Eve", "Evans", lms_user_id="105")}


@pytest.fixture
def canvas():
    fake = FakeCanvas(COURSE, TOKEN, {ASSIGNMENT_ID: {"name": "parameters",
                                                      "points_possible": 10.0},
                                      902: {"name": "logits-to-text", "points_possible": 8.0}},
                      students={"101", "102", "105"},
                      page_size=2)  # every list in two pages, as Canvas pages a long one
    served = Served(fake)
    yield served
    served.close()


@pytest.fixture
def connection(canvas, tmp_path):
    token_file = tmp_path / "canvas-token"
    token_file.write_text(TOKEN + "\n")
    token_file.chmod(0o600)
    config = Config()
    config.CanvasPush.backoff_seconds = 0.001  # short waits between retries, for the test
    environ = {"CANVAS_URL": canvas.url, "CANVAS_COURSE": str(COURSE),
               "CANVAS_TOKEN_FILE": str(token_file)}
    return connection_from(config, environ)


def push(connection, grades=None, dry_run=False, people=None):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Canvas may respond unexpectedly")  # http: on 127.0.0.1
        return push_assignment(connection, people or PEOPLE, grades or grades_of(), dry_run)


def grades_sent(canvas):
    return {w.user: w.posted_grade for w in canvas.canvas.writes if w.posted_grade is not None}


def test_a_dry_run_prints_each_students_grade_now_and_to_send_and_writes_nothing(canvas,
                                                                                 connection):
    canvas.canvas.scores[(ASSIGNMENT_ID, "101")] = 7.0
    lines, status = push(connection, dry_run=True)
    assert status == 0 and canvas.canvas.writes == []
    assert [m for m, _ in canvas.canvas.requests] == ["GET"] * len(canvas.canvas.requests)
    assert lines[0] == "parameters -> Canvas assignment 901 'parameters' (found by its name)"
    rows = [line.split() for line in lines[2:-1]]
    assert [r[:4] for r in rows] == [["ada", "101", "7", "9"], ["bob", "102", "-", "8"],
                                     ["cy", "777", "-", "5"], ["dee", "-", "-", "6"],
                                     ["eve", "105", "-", "0"]]
    assert lines[-1] == "dry run: nothing written (3 student(s) would be written)"


def test_a_push_sends_the_exported_grade_and_the_summary_and_lists_who_is_not_in_canvas(
        canvas, connection):
    lines, status = push(connection)
    assert status == 0
    assert grades_sent(canvas) == {"101": "9", "102": "8", "105": "0"}
    comments = {w.user: w.text_comment for w in canvas.canvas.writes}
    assert comments["101"] == ("parameters: 9/10 points\nparameters count_parameters: 6/6\n"
                               "parameters tied: 3/4")
    assert comments["102"].splitlines()[:2] == ["parameters: 8/10 points",
                                                "late 1 d 1 h: -2 points (20%)"]
    assert comments["105"] == "parameters: 0/10 points\nnothing handed in"
    assert any("cy" in line and "not in the Canvas course" in line for line in lines)
    assert any("dee" in line and "no Canvas user id in the roster" in line for line in lines)
    assert lines[-1] == ("3 student(s) written, 0 up to date, 2 not in Canvas or without a "
                         "user id, 0 failed")


def test_a_second_push_with_nothing_changed_writes_nothing(canvas, connection):
    push(connection)
    written = len(canvas.canvas.writes)
    lines, status = push(connection)
    assert status == 0 and len(canvas.canvas.writes) == written == 3
    assert lines[-1].startswith("0 student(s) written, 3 up to date")


def test_a_changed_grade_updates_that_one_student(canvas, connection):
    push(connection)
    before = len(canvas.canvas.writes)
    push(connection, grades_of(ada_raw=10.0))
    assert canvas.canvas.writes[before:] == [Write(
        ASSIGNMENT_ID, "101", "10",
        "parameters: 10/10 points\nparameters count_parameters: 6/6\nparameters tied: 4/4")]


def test_a_refused_token_stops_the_push_with_a_clear_message_and_nothing_written(canvas,
                                                                              connection):
    refused = dataclasses.replace(connection, token="an-expired-token")
    with pytest.raises(CourseError, match="refused the access token.*nothing was written"
                       ) as raised:
        push(refused)
    assert canvas.canvas.writes == [] and "an-expired-token" not in str(raised.value)


def test_a_401_mid_push_stops_there_and_says_who_was_not_sent(canvas, connection):
    canvas.canvas.fail("PUT", 401, user="102")  # the token's user lost the right to grade
    with pytest.raises(CourseError, match="does not let the token's user do this") as raised:
        push(connection)
    assert grades_sent(canvas) == {"101": "9"}
    assert re.search(r"^bob +102 +- +8 +not sent \(Canvas answered 401\)$", str(raised.value),
                     re.MULTILINE)


def test_429_and_500_answers_are_retried_until_canvas_answers(canvas, connection):
    canvas.canvas.fail("GET", 429, times=2)
    canvas.canvas.fail("PUT", 500, user="101")
    canvas.canvas.fail("PUT", 429, user="102")
    lines, status = push(connection)
    assert status == 0 and grades_sent(canvas) == {"101": "9", "102": "8", "105": "0"}
    assert len(canvas.canvas.writes) == 3


def test_a_comment_canvas_kept_before_a_500_is_not_posted_again(canvas, connection):
    canvas.canvas.fail("PUT", 502, user="101", applied=True)
    push(connection)
    assert [w.user for w in canvas.canvas.writes] == ["101", "102", "105"]
    assert len(canvas.canvas.comments[(ASSIGNMENT_ID, "101")]) == 1


def test_a_partial_failure_is_reported_per_student_and_running_again_finishes_the_rest(
        canvas, connection):
    canvas.canvas.fail("PUT", 503, user="102", times=100)
    lines, status = push(connection)
    assert status == 1 and grades_sent(canvas) == {"101": "9", "105": "0"}
    assert any(line.startswith("bob") and "failed:" in line and "503" in line
               for line in lines)
    assert lines[-1].endswith("1 failed: run the push again to finish them")
    canvas.canvas.failures.clear()
    before = len(canvas.canvas.writes)
    lines, status = push(connection)
    assert status == 0 and [w.user for w in canvas.canvas.writes[before:]] == ["102"]


def test_the_assignment_is_found_by_the_map_or_the_gradebook_exports_header(canvas, connection,
                                                                            tmp_path):
    canvas.canvas.assignments[903] = {"name": "Parameters (week 2)", "points_possible": 10.0}
    mapped = dataclasses.replace(connection, assignment_ids={"parameters": 903})
    assert push(mapped, dry_run=True)[0][0] == (
        "parameters -> Canvas assignment 903 'Parameters (week 2)' (found by "
        "c.CanvasPush.assignment_ids)")
    export = tmp_path / "export.csv"
    export.write_text("Student,ID,SIS User ID,SIS Login ID,Section,parameters (903)\n")
    exported = dataclasses.replace(connection, gradebook_export=str(export))
    assert "assignment 903" in push(exported, dry_run=True)[0][0]


def test_an_assignment_canvas_does_not_have_is_named_in_the_error(canvas, connection):
    with pytest.raises(CourseError, match="no Canvas assignment is named 'similarity'"):
        push(connection, dataclasses.replace(grades_of(), name="similarity"))


def test_a_token_file_others_can_read_is_refused(tmp_path):
    token_file = tmp_path / "open-token"
    token_file.write_text(TOKEN)
    token_file.chmod(0o644)
    with pytest.raises(Exception, match="can be read by others.*chmod 600") as raised:
        connection_from(Config(), {"CANVAS_URL": "https://canvas.example.edu",
                                   "CANVAS_COURSE": "1", "CANVAS_TOKEN_FILE": str(token_file)})
    assert TOKEN not in str(raised.value)


def test_missing_settings_are_named():
    with pytest.raises(Exception, match="set CANVAS_URL .*CANVAS_COURSE .*CANVAS_TOKEN_FILE"):
        connection_from(Config(), {})


def test_the_token_never_shows_in_the_connections_repr(connection):
    assert TOKEN not in repr(connection) and os.path.basename(connection.url)


def test_the_token_is_in_no_log_record_even_at_debug_level(canvas, connection, caplog):
    with caplog.at_level(logging.DEBUG):
        push(connection)
        with pytest.raises(CourseError):
            push(dataclasses.replace(connection, token=TOKEN + "-expired"), dry_run=True)
    assert len(canvas.canvas.writes) == 3 and caplog.records  # canvasapi logged every request
    assert not [r for r in caplog.records if TOKEN in r.getMessage()]


def test_canvas_s_client_and_the_course_in_memory_are_both_the_push_s_lms_api(connection):
    import inspect

    from grader.lms import LmsCourseApi
    from grader.lms.canvas_api import CanvasCourseApi
    from testsupport.fake_canvas import MemoryCourseApi

    methods = [name for name in vars(LmsCourseApi) if not name.startswith("_")]
    assert sorted(methods) == ["assignment", "assignments", "send", "submissions"]
    for api in (CanvasCourseApi, MemoryCourseApi):
        for name in methods:
            assert name in vars(api), (api, name)  # its own, not the Protocol's empty one
            assert (list(inspect.signature(getattr(api, name)).parameters)
                    == list(inspect.signature(getattr(LmsCourseApi, name)).parameters))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Canvas may respond unexpectedly")
        assert isinstance(CanvasCourseApi(connection), LmsCourseApi)
    assert isinstance(MemoryCourseApi(FakeCanvas(COURSE, TOKEN)), LmsCourseApi)


def test_a_push_through_the_course_in_memory_writes_what_it_writes_through_the_api(
        canvas, connection):
    from testsupport.fake_canvas import MemoryCourseApi

    canvas.canvas.scores[(ASSIGNMENT_ID, "101")] = 7.0
    in_memory = FakeCanvas(COURSE, TOKEN, dict(canvas.canvas.assignments),
                           students=set(canvas.canvas.students),
                           scores=dict(canvas.canvas.scores))
    through_http = push(connection)
    direct = push_assignment(connection, PEOPLE, grades_of(),
                             connect=lambda _: MemoryCourseApi(in_memory))
    assert direct == through_http
    assert in_memory.writes == canvas.canvas.writes and len(in_memory.writes) == 3


# the gradebook gave eve ada's Canvas user id: a real student's grade would be overwritten
SHARED = {**PEOPLE, "eve": dataclasses.replace(PEOPLE["eve"], lms_user_id="101")}


def test_two_students_with_one_canvas_user_id_get_nothing_sent_to_it(canvas, connection):
    lines, status = push(connection, people=SHARED)
    assert status == 1 and grades_sent(canvas) == {"102": "8"}
    for student, other in (("ada", "eve"), ("eve", "ada")):
        assert re.search(rf"^{student} +101 +- +\d+ +shares Canvas user id 101 with {other}: one "
                         r"LMS user, two students; correct the roster, then push again$",
                         "\n".join(lines), re.MULTILINE)
    assert lines[-1] == ("refused: ada and eve share Canvas user id 101; nothing was sent to "
                         "it")


def test_a_push_of_one_student_sees_the_classmate_holding_the_same_id(canvas, connection):
    """What the grading service pushes when ada's grade becomes final."""
    lines, status = push(connection, people=only_students(SHARED, ["ada"]))
    assert status == 1 and canvas.canvas.writes == []
    assert [line.split()[0] for line in lines[2:4]] == ["ada", "eve"]


@pytest.mark.parametrize("edit", [
    {"comments": {("parameters", "tied"): "See how the weights are shared."}},
    {"messages": {("parameters", "count_parameters"): "expected 163,009,536, got 124,439,808"}},
], ids=["an edited comment", "a changed check message"])
def test_an_edited_comment_or_check_message_is_sent_once_more_by_the_batch(canvas, connection,
                                                                         edit):
    before = grades_of()
    before.submissions["ada"] = dataclasses.replace(
        before.submissions["ada"], comments={("parameters", "tied"): "Good."},
        messages={("parameters", "count_parameters"): "expected 163,009,536, got 163,000,000"})
    push(connection, before)
    assert push(connection, before)[0][-1].startswith("0 student(s) written, 3 up to date")
    writes = len(canvas.canvas.writes)
    after = grades_of()
    after.submissions["ada"] = dataclasses.replace(before.submissions["ada"], **edit)
    assert after.submissions["ada"].score == before.submissions["ada"].score
    assert after.submissions["ada"].digest != before.submissions["ada"].digest
    push(connection, after)
    push(connection, after)
    new = canvas.canvas.writes[writes:]
    assert [w.user for w in new] == ["101"]  # one send, of ada's, and none at the second push
    text = next(iter(edit.values()))
    assert next(iter(text.values())) in new[0].text_comment
