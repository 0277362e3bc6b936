"""The solutions policy (grader.publish.solutions_policy): an assignment's solutions go out
only once no student can still hand it in for points under the course's late policy (their
own due date, then their late days left, or the days until a percentage per day has taken
everything), or despite the students an instructor names; hidden tests never."""

import dataclasses
import datetime
import os

import nbformat
import pytest
from nbgrader.api import Gradebook

from grader.publish import SolutionsPermit, check_solutions_may_go_out, solution_notebooks
from grader.publish.solutions_policy import (RECORD_FILE, assignments_with_public_solutions,
                                             named_students, override_hint, some_windows)
from grader.recording import PointsWindow, apply_extensions, points_windows, set_due_date
from grader.recording.solutions_record import read_record, record_release
from grader.settings import CourseError, load
from testsupport.late_policy import DUE, EARLIER, UTC, ZERO, at, under
from testsupport.tiny_course import ASSIGNMENT, HIDDEN_MARK

BUDGET = {"AssignLatePenalties.plugin_class": "grader.plugins.late.LateDayBudget",
          "LateDayBudget.days": 5, "LateSubmissionPlugin.penalty_method": "zero"}
PERCENT = {"AssignLatePenalties.plugin_class": "grader.plugins.late.PercentPerDay",
           "PercentPerDay.percent": 25.0}
FLOOR = {**PERCENT, "PercentPerDay.floor_percent": 20.0}
BUDGET_WORDS = ("each student has 5 late days for the whole course, spent in due-date order, "
                "a whole day for each part of a day late; lateness they do not cover: a "
                "notebook handed in after its due date scores 0, a minute late or days late")


@pytest.fixture(scope="module")
def settings(tiny_course, tmp_path_factory):
    """The tiny course, due at DUE, with alice, bob and carol; bob has 48 hours more, carol
    30; alice spent 2 late days on EARLIER (due a week before, handed in 25 hours late)."""
    settings = load(tiny_course)
    set_due_date(settings, ASSIGNMENT, "2026-12-01 17:00:00 UTC")
    with Gradebook(settings.db_url, settings.course_id) as gb:
        for student in ("alice", "bob", "carol"):
            gb.update_or_create_student(student)
        gb.update_or_create_assignment(EARLIER, duedate=at(-7).replace(tzinfo=None))
        with gb.db.no_autoflush:  # nbgrader adds it in steps (SQLAlchemy warns otherwise)
            gb.add_submission(EARLIER, "alice", timestamp=at(-7, 25).replace(tzinfo=None))
    extensions = tmp_path_factory.mktemp("extensions") / "extensions.csv"
    extensions.write_text("student_id,assignment,extra_hours,new_due,note\n"
                          f"bob,{ASSIGNMENT},48,,\ncarol,{ASSIGNMENT},30,,\n")
    apply_extensions(settings, str(extensions))
    return settings


def refusal(settings, now, despite=None):
    with pytest.raises(CourseError) as error:
        check_solutions_may_go_out(settings, ASSIGNMENT, now, despite)
    return str(error.value)


def test_under_a_late_day_budget_each_student_has_their_own_window(settings):
    assert points_windows(under(settings, BUDGET), ASSIGNMENT) == [
        PointsWindow("bob", ASSIGNMENT, at(2), at(7), 5),
        PointsWindow("carol", ASSIGNMENT, at(1, 6), at(6, 6), 5),
        PointsWindow("alice", ASSIGNMENT, at(0), at(3), 3)]  # 2 of her 5 spent on tiny-0


def test_under_a_late_day_budget_the_solutions_wait_for_the_last_late_day(settings):
    """bob's own due date (the moment the solutions used to go out) is refused: he, carol and
    alice can still hand in for points with their late days, the latest first."""
    budget = under(settings, BUDGET)
    assert refusal(budget, at(2)) == (
        f"the solutions of {ASSIGNMENT} stay private until 2026-12-08 17:00:00 UTC, the last "
        f"moment anyone can earn points on it under the course's late policy ({BUDGET_WORDS}): "
        f"3 students can still hand it in for points: "
        f"bob until 2026-12-08 17:00:00 UTC (due 2026-12-03 17:00:00 UTC, 5 late days left); "
        f"carol until 2026-12-07 23:00:00 UTC (due 2026-12-02 23:00:00 UTC, 5 late days left); "
        f"alice until 2026-12-04 17:00:00 UTC (due 2026-12-01 17:00:00 UTC, 3 late days left); "
        f"nothing was released\nto release them all the same, while they can still hand in "
        f"for points, name every one: make release-solutions ASSIGNMENT={ASSIGNMENT} "
        f"DESPITE_OPEN_STUDENTS=alice,bob,carol")
    assert ": 2 students can still hand it in for points: bob until" in refusal(budget, at(4))
    assert check_solutions_may_go_out(budget, ASSIGNMENT, at(7)) == SolutionsPermit(
        ASSIGNMENT, at(7))


def test_a_percentage_per_day_keeps_them_private_until_it_has_taken_everything(settings):
    """25% a day: the fourth day late takes all, so points run out 3 days after each own
    due date."""
    percent = under(settings, PERCENT)
    message = refusal(percent, at(3, 12))
    assert message.startswith(f"the solutions of {ASSIGNMENT} stay private until 2026-12-06 "
                              f"17:00:00 UTC, the last moment anyone can earn points on it")
    assert ("2 students can still hand it in for points: bob until 2026-12-06 17:00:00 UTC "
            "(due 2026-12-03 17:00:00 UTC); carol until 2026-12-05 23:00:00 UTC (due "
            "2026-12-02 23:00:00 UTC); nothing was released") in message
    assert check_solutions_may_go_out(percent, ASSIGNMENT, at(5)).latest == at(5)


def test_a_floor_above_zero_keeps_them_private_for_ever_and_says_so(settings):
    message = refusal(under(settings, FLOOR), at(3650))
    assert message == (
        f"the solutions of {ASSIGNMENT} can never go out on their own: under the course's "
        f"late policy (25% of a late notebook's score is taken per day late, a part of a day "
        f"counting as a whole day, and it keeps at least 20% of its score) a hand-in keeps "
        f"points however late, and 3 students can still hand it in for points: "
        f"alice however late (due 2026-12-01 17:00:00 UTC); bob however late (due 2026-12-03 "
        f"17:00:00 UTC); carol however late (due 2026-12-02 23:00:00 UTC); nothing was "
        f"released\nto release them all the same, while they can still hand in for points, "
        f"name every one: make release-solutions ASSIGNMENT={ASSIGNMENT} "
        f"DESPITE_OPEN_STUDENTS=alice,bob,carol")


@pytest.mark.parametrize("now, refused", [
    (at(hours=-1), True),  # before the class's due date
    (at(hours=47), True),  # after it, before bob's
    (at(2), False),  # bob's due date: a hand-in after it earns nothing
    (at(30), False),
])
def test_under_zero_points_the_latest_own_due_date_is_the_moment(settings, now, refused):
    zero = under(settings, ZERO)
    if refused:
        assert refusal(zero, now).startswith(
            f"the solutions of {ASSIGNMENT} stay private until 2026-12-03 17:00:00 UTC")
        assert "bob until 2026-12-03 17:00:00 UTC (due 2026-12-03 17:00:00 UTC)" in refusal(
            zero, now)
    else:
        assert check_solutions_may_go_out(zero, ASSIGNMENT, now) == SolutionsPermit(
            ASSIGNMENT, at(2))


def test_the_override_must_name_exactly_those_who_can_still_hand_in(settings):
    floor, budget = under(settings, FLOOR), under(settings, BUDGET)
    assert refusal(floor, at(10), ["alice", "bob"]) == (
        f"DESPITE_OPEN_STUDENTS must name exactly the students who can still hand {ASSIGNMENT} "
        f"in for points, and 3 can: alice however late (due 2026-12-01 17:00:00 UTC); bob "
        f"however late (due 2026-12-03 17:00:00 UTC); carol however late (due 2026-12-02 "
        f"23:00:00 UTC); not named: carol; nothing was released")
    assert "; named, but not among them: alice; nothing" in refusal(budget, at(5),
                                                                    ["alice", "bob", "carol"])
    assert refusal(under(settings, ZERO), at(10), ["bob"]).startswith(
        f"DESPITE_OPEN_STUDENTS must name exactly the students who can still hand {ASSIGNMENT} "
        f"in for points, and nobody can: release it without DESPITE_OPEN_STUDENTS; named, but "
        f"not among them: bob")
    permit = check_solutions_may_go_out(budget, ASSIGNMENT, at(5), ["carol", "bob"])
    assert permit.latest == at(3)  # alice's window, the last of those not named
    assert permit.open_in_words() == (
        "bob until 2026-12-08 17:00:00 UTC (due 2026-12-03 17:00:00 UTC, 5 late days left); "
        "carol until 2026-12-07 23:00:00 UTC (due 2026-12-02 23:00:00 UTC, 5 late days left)")
    never = check_solutions_may_go_out(floor, ASSIGNMENT, at(10), ["alice", "bob", "carol"])
    assert never.latest == at(10) and [w.student for w in never.open] == ["alice", "bob",
                                                                         "carol"]


def test_the_override_names_students_by_comma_or_in_a_file(tmp_path):
    assert named_students(" bob, carol,,") == ["bob", "carol"]
    (tmp_path / "open.txt").write_text("bob\n\n carol \n")
    assert named_students(f"@{tmp_path / 'open.txt'}") == ["bob", "carol"]
    for value, said in ((" , ", "names no student"), (f"@{tmp_path / 'none.txt'}",
                                                      "the file cannot be read")):
        with pytest.raises(CourseError, match=said):
            named_students(value)


def test_a_refusal_names_a_handful_and_counts_the_rest():
    windows = [PointsWindow(f"s{n}", ASSIGNMENT, DUE, at(n), None) for n in range(7, 0, -1)]
    assert some_windows(windows) == (
        "s7 until 2026-12-08 17:00:00 UTC (due 2026-12-01 17:00:00 UTC); "
        "s6 until 2026-12-07 17:00:00 UTC (due 2026-12-01 17:00:00 UTC); "
        "s5 until 2026-12-06 17:00:00 UTC (due 2026-12-01 17:00:00 UTC); "
        "s4 until 2026-12-05 17:00:00 UTC (due 2026-12-01 17:00:00 UTC); "
        "s3 until 2026-12-04 17:00:00 UTC (due 2026-12-01 17:00:00 UTC); and 2 more")
    assert override_hint(ASSIGNMENT, windows).endswith(
        "DESPITE_OPEN_STUDENTS=@file (a file of all 7 ids, one per line)")


def test_with_no_student_in_the_gradebook_a_whole_budget_counts(settings, tmp_path):
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    with Gradebook(url, settings.course_id) as gb:
        gb.update_or_create_assignment(ASSIGNMENT, duedate=DUE.replace(tzinfo=None))
    empty = dataclasses.replace(under(settings, BUDGET), db_url=url,
                                submitted=str(tmp_path / "submitted"))
    message = refusal(empty, at(1))
    assert ("1 student can still hand it in for points: a student not in the gradebook until "
            "2026-12-06 17:00:00 UTC (due 2026-12-01 17:00:00 UTC, 5 late days left)") in message
    assert message.endswith("import the roster first (make roster)")
    assert refusal(empty, at(1), ["anyone"]).startswith("no student is in the gradebook yet")


def test_an_assignment_nobody_has_a_due_date_for_is_refused(settings, tmp_path):
    no_gradebook = dataclasses.replace(settings, db_url=f"sqlite:///{tmp_path / 'gradebook.db'}")
    with pytest.raises(CourseError) as error:
        points_windows(no_gradebook, ASSIGNMENT)
    assert "no gradebook at" in str(error.value) and "nothing was released" in str(error.value)
    assert not (tmp_path / "gradebook.db").exists()  # not made by asking
    with Gradebook(settings.db_url, settings.course_id) as gb:
        gb.update_or_create_assignment("tiny-2")  # released, no due date
    for assignment in ("tiny-2", "never-released"):
        with pytest.raises(CourseError) as error:
            check_solutions_may_go_out(settings, assignment)
        assert str(error.value).startswith(f"nobody has a due date for {assignment} in the "
                                           f"gradebook")
        assert f"make release ASSIGNMENT={assignment} DUEDATE=" in str(error.value)


def test_the_solution_notebooks_keep_the_solutions_and_lose_every_hidden_test(settings):
    [(name, text)] = solution_notebooks(settings, ASSIGNMENT).items()
    assert name == "tiny.ipynb"
    notebook = nbformat.reads(text, as_version=4)
    sources = "\n".join(cell.source for cell in notebook.cells)
    assert "    return 2 * x" in sources and "answer = 42" in sources
    assert HIDDEN_MARK not in text and "double gave a wrong value" not in text
    assert "BEGIN" not in text and "END SOLUTION" not in text
    assert '"""Check that double doubles numbers it has not seen"""' in sources  # its visible part
    assert all(not c.get("outputs") for c in notebook.cells if c.cell_type == "code")


def test_the_record_is_written_whole_read_back_and_refused_when_wrong(settings, tmp_path):
    course = dataclasses.replace(settings, root=str(tmp_path))
    assert assignments_with_public_solutions(course) == []
    released = datetime.datetime(2026, 12, 4, 9, 30, tzinfo=UTC)
    record_release(course, ASSIGNMENT, at(2), released)
    assert (tmp_path / RECORD_FILE).read_text() == (
        "assignment,latest_due_utc,released_utc,open_students\n"
        f"{ASSIGNMENT},2026-12-03 17:00:00,2026-12-04 09:30:00,\n")
    assert assignments_with_public_solutions(course, released) == [ASSIGNMENT]
    with pytest.raises(CourseError) as error:  # a due date edited into the future
        assignments_with_public_solutions(course, DUE)
    assert "whose latest due date, 2026-12-03 17:00:00 UTC, is still to come" in str(error.value)
    (tmp_path / RECORD_FILE).write_text("assignment,latest_due_utc,released_utc\n"
                                        "homework-9,2026-01-01 00:00:00,2026-01-02 00:00:00\n")
    with pytest.raises(CourseError) as error:
        assignments_with_public_solutions(course)
    assert "unknown assignment 'homework-9'" in str(error.value)
    assert sorted(os.listdir(tmp_path)) == [RECORD_FILE]  # no temporary file left
    assert read_record(course)["homework-9"] == {  # a record of three columns still reads
        "assignment": "homework-9", "latest_due_utc": "2026-01-01 00:00:00",
        "released_utc": "2026-01-02 00:00:00", "open_students": ""}


def test_the_record_keeps_the_students_an_override_named(settings, tmp_path):
    course = dataclasses.replace(under(settings, BUDGET), root=str(tmp_path))
    permit = check_solutions_may_go_out(course, ASSIGNMENT, at(5), ["bob", "carol"])
    record_release(course, ASSIGNMENT, permit.latest, at(5), permit.open_in_words())
    assert (tmp_path / RECORD_FILE).read_text() == (
        "assignment,latest_due_utc,released_utc,open_students\n"
        f"{ASSIGNMENT},2026-12-04 17:00:00,2026-12-06 17:00:00,\"bob until 2026-12-08 17:00:00 "
        f"UTC (due 2026-12-03 17:00:00 UTC, 5 late days left); carol until 2026-12-07 "
        f"23:00:00 UTC (due 2026-12-02 23:00:00 UTC, 5 late days left)\"\n")
    assert read_record(course)[ASSIGNMENT]["open_students"] == permit.open_in_words()
    assert assignments_with_public_solutions(course, at(5)) == [ASSIGNMENT]


def test_a_student_id_from_a_folder_name_is_shown_on_one_line():
    """submitted/'s folder names count as students: one holding a line break is written with
    escapes, so a refusal stays one line per student."""
    window = PointsWindow("eve\nbob until never", ASSIGNMENT, DUE, at(1), None)
    assert some_windows([window]) == ("'eve\\nbob until never' until 2026-12-02 17:00:00 UTC "
                                      "(due 2026-12-01 17:00:00 UTC)")
