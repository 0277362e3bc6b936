"""Late policies and extensions through the instructor's make targets: `make release
DUEDATE=...`, `make extensions`, `make autograde` and `make grades`, on a table of cases
computed by hand.

Two assignments of the tiny course (testsupport.tiny_course): tiny, due Thursday 12:30,
and tiny2, a week later. Every notebook is answered fully (6 points) but day's (3 points):

    ontime         tiny on time; an extension of tiny2, not handed in
    minute         tiny 1 minute late
    day            tiny 25 hours late, half the answers
    extended       tiny 25 hours late, with an extension of 48 hours: on time
    extended_late  tiny 25 hours late, with a new due date 24 hours later: 1 hour late
    budget         tiny 25 hours late and tiny2 49 hours late: a 3-day budget spent over both

One copy of the class per policy, each graded tiny2 first, then tiny.
"""

import csv
import os
import shutil
import sqlite3

import pytest

from testsupport.course import make, ready_for_make
from testsupport.hand_in import hand_in
from testsupport.tiny_course import ANSWERS, NOTEBOOK, correct, fill, make_course
from testsupport.tiny_course import released as tiny_released

DUE = {"tiny": "2026-01-15 12:30:00 UTC", "tiny2": "2026-01-22 12:30:00 UTC"}
HANDED_IN = {  # (student, assignment): timestamp.txt
    ("ontime", "tiny"): "2026-01-15 12:00:00.000000 UTC",
    ("minute", "tiny"): "2026-01-15 12:31:00.000000 UTC",
    ("day", "tiny"): "2026-01-16 13:30:00.000000 UTC",
    ("extended", "tiny"): "2026-01-16 13:30:00.000000 UTC",
    ("extended_late", "tiny"): "2026-01-16 13:30:00.000000 UTC",
    ("budget", "tiny"): "2026-01-16 13:30:00.000000 UTC",
    ("budget", "tiny2"): "2026-01-24 13:30:00.000000 UTC",
}
RAW = {("day", "tiny"): 3.0}  # every other notebook earns 6
EXTENSIONS = ("student_id,assignment,extra_hours,new_due,note\n"
              "extended,tiny,48,,illness\n"
              "extended_late,tiny,,2026-01-16 13:30 +01:00,accommodation\n"
              "ontime,tiny2,24,,travel\n")
POLICIES = {
    "none": 'c.LateSubmissionPlugin.penalty_method = "none"\n',
    "zero": 'c.LateSubmissionPlugin.penalty_method = "zero"\n',
    "percent": ('c.AssignLatePenalties.plugin_class = "grader.plugins.late.PercentPerDay"\n'
                'c.PercentPerDay.percent = 10\nc.PercentPerDay.floor_percent = 50\n'),
    "budget": ('c.AssignLatePenalties.plugin_class = "grader.plugins.late.LateDayBudget"\n'
               'c.LateDayBudget.days = 3\n'
               'c.LateDayBudget.after = "grader.plugins.late.PercentPerDay"\n'
               'c.PercentPerDay.percent = 10\n'),
}
# the penalty of each late notebook by hand (None: no penalty, as nbgrader stores it)
BY_HAND = {
    "none": {},
    "zero": {("minute", "tiny"): 6.0, ("day", "tiny"): 3.0, ("extended_late", "tiny"): 6.0,
             ("budget", "tiny"): 6.0, ("budget", "tiny2"): 6.0},
    # 10% a day, a part of a day counting as a day: 1 min: 1 day, 25 h: 2 days, 49 h: 3
    "percent": {("minute", "tiny"): 6 * 0.10, ("day", "tiny"): 3 * 0.20,
                ("extended_late", "tiny"): 6 * 0.10, ("budget", "tiny"): 6 * 0.20,
                ("budget", "tiny2"): 6 * 0.30},
    # budget's tiny spends 2 of 3 days; tiny2 needs 3, spends the last: 25 h left, 20%
    "budget": {("budget", "tiny2"): 6 * 0.20},
}
LATE_DAYS = {"minute": "1 late day used, 2 left", "day": "2 late days used, 1 left",
             "extended_late": "1 late day used, 2 left"}


def gradebook_penalties(course):
    """{(student, assignment): late_submission_penalty} of every submitted notebook."""
    with sqlite3.connect(os.path.join(course, "course-data", "gradebook.db")) as db:
        rows = db.execute(
            "select s.student_id, a.name, n.late_submission_penalty from submitted_notebook n "
            "join submitted_assignment s on n.assignment_id = s.id "
            "join assignment a on s.assignment_id = a.id").fetchall()
    return {(student, assignment): penalty for student, assignment, penalty in rows}


def expected_penalties(policy):
    return {key: BY_HAND[policy].get(key) for key in HANDED_IN}


def read_csv(path):
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def succeeded(run):
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    return run


@pytest.fixture(scope="module")
def handed_in(tmp_path_factory):
    """The class released with due dates, every notebook handed in, the extensions applied."""
    course = make_course(str(tmp_path_factory.mktemp("late") / "course"))
    shutil.copytree(os.path.join(course, "source", "tiny"), os.path.join(course, "source",
                                                                         "tiny2"))
    ready_for_make(course)
    for assignment, due in DUE.items():
        succeeded(make(course, "release", f"ASSIGNMENT={assignment}", f"DUEDATE={due}"))
    released = tiny_released(course)
    for (student, assignment), timestamp in HANDED_IN.items():
        nb = (fill(released, {"double_answer": ANSWERS["double_answer"]})
              if (student, assignment) in RAW else correct(released))
        hand_in(course, student, assignment, {NOTEBOOK + ".ipynb": nb}, timestamp)
    with open(os.path.join(course, "extensions.csv"), "w", encoding="utf-8") as handle:
        handle.write(EXTENSIONS)
    applied = succeeded(make(course, "extensions"))
    return course, applied.stdout


def graded_under(policy, handed_in, folder):
    """A copy of the class under one policy, tiny2 graded first, then tiny, then make grades."""
    course = str(folder / "course")
    shutil.copytree(handed_in, course, symlinks=True)
    with open(os.path.join(course, "nbgrader_config.py"), "a", encoding="utf-8") as handle:
        handle.write(POLICIES[policy])
    succeeded(make(course, "autograde", "ASSIGNMENT=tiny2", "JOBS=1"))
    first = gradebook_penalties(course)
    succeeded(make(course, "autograde", "ASSIGNMENT=tiny", "JOBS=2"))
    succeeded(make(course, "grades"))
    return {"policy": policy, "course": course, "after_tiny2": first}


@pytest.fixture(scope="module")
def classes(handed_in, tmp_path_factory):
    """{policy: the class graded under it}."""
    return {policy: graded_under(policy, handed_in[0], tmp_path_factory.mktemp(policy))
            for policy in POLICIES}


@pytest.fixture(params=sorted(POLICIES))
def graded(request, classes):
    return classes[request.param]


def test_make_extensions_prints_each_extension_it_applied(handed_in):
    assert handed_in[1].splitlines()[-3:] == [
        "extended tiny: extension of 48 h, due 2026-01-17 12:30:00 UTC",
        "extended_late tiny: extension of 24 h, due 2026-01-16 12:30:00 UTC",
        "ontime tiny2: extension of 24 h, due 2026-01-23 12:30:00 UTC"]


def test_the_gradebook_holds_the_penalties_computed_by_hand(graded):
    assert gradebook_penalties(graded["course"]) == pytest.approx(
        expected_penalties(graded["policy"]), abs=1e-12)


def test_grades_csv_shows_raw_score_penalty_and_score_as_by_hand(graded):
    rows = {(r["student_id"], r["assignment"]): r
            for r in read_csv(os.path.join(graded["course"], "course-data", "grades.csv"))}
    for key in HANDED_IN:
        raw = RAW.get(key, 6.0)
        penalty = BY_HAND[graded["policy"]].get(key) or 0.0
        assert (rows[key]["raw_score"], rows[key]["late_submission_penalty"],
                rows[key]["score"]) == (f"{raw:g}", f"{penalty:g}", f"{raw - penalty:g}"), key
    # an extension alone is no hand-in: scored as nothing submitted
    assert (rows["ontime", "tiny2"]["timestamp"], rows["ontime", "tiny2"]["score"]) == ("", "0")


@pytest.mark.parametrize("policy", ["none", "zero"])
def test_none_and_zero_agree_with_stock_nbgraders_plugin(classes, policy):
    """Stock nbgrader's plugin, called directly on the gradebook's own lateness (extension
    included) and scores, gives the same penalties."""
    graded = classes[policy]
    from nbgrader.api import Gradebook
    from nbgrader.plugins import LateSubmissionPlugin

    plugin = LateSubmissionPlugin(penalty_method=graded["policy"])
    stock = {}
    url = "sqlite:///" + os.path.join(graded["course"], "course-data", "gradebook.db")
    with Gradebook(url) as gb:
        for assignment in DUE:
            for submission in gb.assignment_submissions(assignment):
                for notebook in submission.notebooks:
                    seconds = submission.total_seconds_late
                    stock[submission.student_id, assignment] = (
                        plugin.late_submission_penalty(submission.student_id, notebook.score,
                                                       seconds) if seconds > 0 else None)
    assert gradebook_penalties(graded["course"]) == stock


def test_a_budget_is_charged_again_when_an_earlier_assignment_is_graded(classes):
    """tiny2 graded first spends the whole budget on it; grading tiny, due earlier, spends two
    days there first, and tiny2 is charged for the day it no longer has."""
    graded = classes["budget"]
    assert graded["after_tiny2"] == {("budget", "tiny2"): None}
    assert gradebook_penalties(graded["course"])["budget", "tiny2"] == pytest.approx(1.2)


def test_summary_and_report_page_show_extensions_and_penalties(graded):
    reports = os.path.join(graded["course"], "course-data", "reports")
    with open(os.path.join(reports, "summary.txt"), encoding="utf-8") as handle:
        summary = handle.read()
    tiny, tiny2 = summary.split("# tiny2:")
    late = dict(line.split("\t") for line in
                tiny.split("late or with an extension: ")[1].split("\n\n")[0].splitlines()[1:])
    assert late["extended"] == "1 d 1 h after the class's due date, extension 48 h: on time"
    late2 = tiny2.split("late or with an extension: ")[1].split("\n\n")[0].splitlines()
    assert "ontime\textension 24 h (due 2026-01-23 12:30 UTC): nothing handed in yet" in late2
    if graded["policy"] == "percent":  # the other policies' figures: the gradebook test
        assert late["day"] == "late 1 d 1 h: -0.6 points (20%)"
        assert late["extended_late"] == "late 1 h after the extension 24 h: -0.6 points (10%)"
    if graded["policy"] == "budget":
        assert late["day"] == "late 1 d 1 h: 2 late days used, 1 left, no penalty"
        assert {s: late[s].split(": ")[1] for s in LATE_DAYS} == {
            s: f"{words}, no penalty" for s, words in LATE_DAYS.items()}
        assert ("budget\tlate 2 d 1 h: 1 late day used, 0 left, -1.2 points (20%)" in late2)
    with open(os.path.join(reports, "tiny.html"), encoding="utf-8") as handle:
        page = handle.read()
    assert ("<td>extended</td><td>1 d 1 h after the class&#x27;s due date, extension 48 h: "
            "on time</td>") in page
    # an accommodation is the instructor's: the note is kept nowhere, nor in the students' files
    for folder, _, names in os.walk(os.path.join(graded["course"], "course-data")):
        for name in names:
            with open(os.path.join(folder, name), "rb") as handle:
                assert b"illness" not in handle.read(), name


def test_the_same_file_again_changes_nothing_and_a_row_removed_removes_its_extension(classes):
    course = classes["zero"]["course"]
    before = gradebook_penalties(course)
    again = succeeded(make(course, "extensions"))
    assert again.stdout.count("(unchanged)") == 3 and gradebook_penalties(course) == before
    with open(os.path.join(course, "extensions.csv"), "w", encoding="utf-8") as handle:
        handle.write(EXTENSIONS.replace("extended,tiny,48,,illness\n", "")
                     .replace("ontime,tiny2,24,,travel\n", ""))
    removed = succeeded(make(course, "extensions"))
    assert "extended tiny: extension of 48 h removed (not in the file)" in removed.stdout
    assert "ontime tiny2: extension of 24 h removed (not in the file)" in removed.stdout
    # extended is now 25 hours late: zero, without grading again; ontime's tiny2 row is gone
    assert gradebook_penalties(course) == {**before, ("extended", "tiny"): 6.0}
    succeeded(make(course, "grades"))
    rows = read_csv(os.path.join(course, "course-data", "grades.csv"))
    assert [r["score"] for r in rows if r["student_id"] == "extended"] == ["0", "0"]



# A class graded under the course's "zero" before the policy changed to 10% a day (no
# sandbox needed: the grades are recorded as the writer records them, then charged)
MID_TERM = {"ontime": "2026-01-15 12:00:00", "minute": "2026-01-15 12:31:00",
            "day": "2026-01-16 13:30:00"}


def rounded(penalties):
    return {key: None if value is None else round(value, 9) for key, value in penalties.items()}


@pytest.fixture(scope="module")
def graded_under_zero(tmp_path_factory):
    import datetime

    from nbgrader.api import Gradebook

    from grader.recording import set_due_date
    from grader.recording.late_penalties import assign_late_penalties
    from grader.settings import load
    from testsupport.tiny_course import POINTS

    course = ready_for_make(make_course(str(tmp_path_factory.mktemp("mid-term") / "course")))
    with open(os.path.join(course, "nbgrader_config.py"), "a", encoding="utf-8") as handle:
        handle.write(POLICIES["zero"])
    settings = load(course)
    set_due_date(settings, "tiny", DUE["tiny"])
    with Gradebook(settings.db_url, settings.course_id) as gb:
        for student, timestamp in MID_TERM.items():
            gb.update_or_create_student(student)
            with gb.db.no_autoflush:
                gb.add_submission("tiny", student,
                                  timestamp=datetime.datetime.fromisoformat(timestamp))
            for grade_id, points in POINTS.items():
                gb.find_grade(grade_id, NOTEBOOK, "tiny", student).auto_score = points
            gb.db.flush()
            assign_late_penalties(gb.db, student, settings.late_penalties())
        gb.db.commit()
    return course


def test_a_policy_changed_mid_term_reaches_every_recorded_grade_with_make_late_policy(
        graded_under_zero):
    """The class graded under "zero", then nbgrader_config.py changed to 10% a day: make
    late-policy charges every grade again, as computed by hand, and names who changed."""
    course = graded_under_zero
    assert gradebook_penalties(course) == {("ontime", "tiny"): None, ("minute", "tiny"): 6.0,
                                           ("day", "tiny"): 6.0}
    with open(os.path.join(course, "nbgrader_config.py"), "a", encoding="utf-8") as handle:
        handle.write(POLICIES["percent"])
    run = succeeded(make(course, "late-policy"))
    # 10% a day, a part of a day counting as a day: 1 minute late 1 day, 25 hours 2 days
    by_hand = {("ontime", "tiny"): None, ("minute", "tiny"): 0.6, ("day", "tiny"): 1.2}
    assert rounded(gradebook_penalties(course)) == by_hand
    assert [line.strip() for line in run.stdout.splitlines() if ": late penalty " in line] == [
        "day tiny: late penalty 6 -> 1.2 point(s)", "minute tiny: late penalty 6 -> 0.6 point(s)"]
    assert "2 late penalties changed" in run.stdout
    again = succeeded(make(course, "late-policy", "ASSIGNMENT=tiny"))
    assert "0 late penalties changed" in again.stdout
    assert rounded(gradebook_penalties(course)) == by_hand
