"""`make extensions` after an assignment's solutions went out (grader.recording.after_solutions):
an extension that lets a student earn points after that moment is refused, the whole file with
it, naming the student, the assignment and the moment; told to, it is applied with a warning."""


import pytest
from nbgrader.api import Gradebook, SubmittedAssignment

from grader.cli import main
from grader.recording import apply_extensions, set_due_date
from grader.recording.solutions_record import record_release
from grader.settings import CourseError, load
from testsupport.late_policy import EARLIER, ZERO, at, under
from testsupport.tiny_course import ASSIGNMENT

BUDGET = {"AssignLatePenalties.plugin_class": "grader.plugins.late.LateDayBudget",
          "LateDayBudget.days": 2, "LateSubmissionPlugin.penalty_method": "zero"}
HEADER = "student_id,assignment,extra_hours,new_due,note\n"


@pytest.fixture(scope="module")
def settings(tiny_course):
    """The tiny course, due at DUE, with alice, bob and carol, and EARLIER."""
    settings = load(tiny_course)
    set_due_date(settings, ASSIGNMENT, "2026-12-01 17:00:00 UTC")
    with Gradebook(settings.db_url, settings.course_id) as gb:
        for student in ("alice", "bob", "carol"):
            gb.update_or_create_student(student)
        gb.update_or_create_assignment(EARLIER, duedate=at(-7).replace(tzinfo=None))
        with gb.db.no_autoflush:  # nbgrader adds it in steps (SQLAlchemy warns otherwise)
            gb.add_submission(EARLIER, "alice", timestamp=at(-7, 25).replace(tzinfo=None))
    return settings


@pytest.fixture
def course(settings, tmp_path):
    """The course with carol's 30 hours and no other extension, and the solutions of
    ASSIGNMENT public since DUE + 3 days; the path of the extensions file to write."""
    path = tmp_path / "extensions.csv"
    path.write_text(HEADER + f"carol,{ASSIGNMENT},30,,\n")
    apply_extensions(settings, str(path))
    record_release(settings, ASSIGNMENT, at(2), at(3))
    return path


def extensions(settings):
    """{(student, assignment): hours} of the gradebook."""
    with Gradebook(settings.db_url, settings.course_id) as gb:
        return {(s.student_id, s.assignment.name): s.extension.total_seconds() / 3600
                for s in gb.db.query(SubmittedAssignment)
                .filter(SubmittedAssignment.extension.isnot(None))}


def test_an_extension_past_the_solutions_is_refused_and_nothing_is_applied(settings, course):
    """bob's new due date falls after the solutions went out: the whole file is refused,
    alice's harmless 24 hours included, carol's 30 hours kept."""
    course.write_text(HEADER + f"alice,{ASSIGNMENT},24,,\nbob,{ASSIGNMENT},,2026-12-06 17:00 UTC,"
                               f"\ncarol,{ASSIGNMENT},30,,\n")
    with pytest.raises(CourseError) as error:
        apply_extensions(under(settings, ZERO), str(course))
    assert str(error.value) == (
        f"1 extension(s) would let a student earn points after the solutions went out, and "
        f"could hand in what they read; nothing was applied:\n"
        f"bob, {ASSIGNMENT}: the extensions let bob hand it in for points until 2026-12-06 "
        f"17:00:00 UTC (due 2026-12-06 17:00:00 UTC), after its solutions went out, 2026-12-04 "
        f"17:00:00 UTC ({course}, line 3)\n"
        f"to grant them all the same: make extensions DESPITE_PUBLIC_SOLUTIONS=1 (python -m "
        f"grader extensions --despite-public-solutions)")
    assert extensions(settings) == {("carol", ASSIGNMENT): 30.0}


def test_told_to_it_is_applied_with_a_warning_naming_them(settings, course):
    course.write_text(HEADER + f"alice,{ASSIGNMENT},24,,\nbob,{ASSIGNMENT},,2026-12-06 17:00 UTC,"
                               f"\ncarol,{ASSIGNMENT},30,,\n")
    lines = apply_extensions(under(settings, ZERO), str(course), despite_public_solutions=True)
    assert lines[0] == (
        f"warning: granted after the solutions went out, as --despite-public-solutions says: "
        f"bob, {ASSIGNMENT}: the extensions let bob hand it in for points until 2026-12-06 "
        f"17:00:00 UTC (due 2026-12-06 17:00:00 UTC), after its solutions went out, 2026-12-04 "
        f"17:00:00 UTC ({course}, line 3)")
    assert lines[1:] == [f"alice {ASSIGNMENT}: extension of 24 h, due 2026-12-02 17:00:00 UTC",
                         f"bob {ASSIGNMENT}: extension of 120 h, due 2026-12-06 17:00:00 UTC",
                         f"carol {ASSIGNMENT}: extension of 30 h, due 2026-12-02 23:00:00 UTC "
                         f"(unchanged)"]
    assert extensions(settings) == {("alice", ASSIGNMENT): 24.0, ("bob", ASSIGNMENT): 120.0,
                                    ("carol", ASSIGNMENT): 30.0}
    # granted, it is what the gradebook holds: applying the same file again is not refused
    assert not any(line.startswith("warning") for line in
                   apply_extensions(under(settings, ZERO), str(course)))


def test_an_extension_that_frees_late_days_for_an_assignment_with_public_solutions(settings,
                                                                                   course):
    """With 2 late days, alice spent both on EARLIER, so her window on ASSIGNMENT closed at its
    due date. 48 hours on EARLIER make that hand-in on time: her 2 days come back, to be spent
    on ASSIGNMENT after its solutions went out."""
    record_release(settings, ASSIGNMENT, at(0), at(1))
    course.write_text(HEADER + f"carol,{ASSIGNMENT},30,,\nalice,{EARLIER},48,,\n")
    with pytest.raises(CourseError) as error:
        apply_extensions(under(settings, BUDGET), str(course))
    assert (f"alice, {ASSIGNMENT}: the extensions let alice hand it in for points until "
            f"2026-12-03 17:00:00 UTC (due 2026-12-01 17:00:00 UTC, 2 late days left), after "
            f"its solutions went out, 2026-12-02 17:00:00 UTC ({course}, line 3)"
            ) in str(error.value)
    assert extensions(settings) == {("carol", ASSIGNMENT): 30.0}
    # carol's extension reaches past them too under the budget, but it was granted before
    # and is unchanged: only what the file changes is asked about
    assert "carol" not in str(error.value)


def test_under_no_late_penalty_a_due_date_moved_past_them_is_refused_too(settings, course,
                                                                          capsys):
    """The tiny course's own policy, nbgrader's "none", keeps points however late; an
    extension still moves the due date past the solutions, through the command line."""
    course.write_text(HEADER + f"bob,{ASSIGNMENT},96,,\ncarol,{ASSIGNMENT},30,,\n")
    assert main(["extensions", str(course), "--course", settings.root]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: 1 extension(s) would let a student earn points after the "
                          "solutions went out")
    assert (f"bob, {ASSIGNMENT}: the extensions let bob hand it in for points however late "
            f"(due 2026-12-05 17:00:00 UTC), after its solutions went out, 2026-12-04 17:00:00 "
            f"UTC") in err
    assert extensions(settings) == {("carol", ASSIGNMENT): 30.0}
    assert main(["extensions", str(course), "--course", settings.root,
                 "--despite-public-solutions"]) == 0
    out, err = capsys.readouterr()
    assert err.startswith(f"warning: granted after the solutions went out, as "
                          f"--despite-public-solutions says: bob, {ASSIGNMENT}")
    assert f"bob {ASSIGNMENT}: extension of 96 h, due 2026-12-05 17:00:00 UTC" in out
    assert extensions(settings) == {("bob", ASSIGNMENT): 96.0, ("carol", ASSIGNMENT): 30.0}
