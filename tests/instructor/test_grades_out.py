"""Grades out of the course: late penalties as stock nbgrader assigns them, the roster, manual
grades, grades.csv, the Canvas and roster exports, summary.txt and the grade report page.

One small class is graded once (module fixture) on the tiny assignment of
testsupport.tiny_course, with a due date: alice on time, bob partial (and given a
manual point in formgrader's place), dave late, erin's notebook unreadable,
frank on the roster but never submitting, and ids a spreadsheet would run.
"""

import csv
import os
import shutil
import sqlite3
import stat
import subprocess
import sys

import pytest

from testsupport.course import ROOT, nbgrader_env
from testsupport.hand_in import hand_in
from testsupport.tiny_course import (ANSWERS, ASSIGNMENT, MAX_SCORE, NOTEBOOK, correct, fill,
                                     make_course, released)

DUE = "2026-01-15 12:30:00 UTC"
LATE = "2026-01-15 13:00:00.000000 UTC"  # hand_in's own time stamp is 12:00, on time
PENALTY = 'c.LateSubmissionPlugin.penalty_method = "zero"\n'
ROSTER = ('id,first_name,last_name,email,section,lms_user_id\n'
          'alice,Alice,Liddell,alice@example.org,A,101\n'
          'bob,"=HYPERLINK(""http://evil.example/"")","Bob\r\nEvil",bob@example.org,@B,102\n'
          'frank,Frank,Never,frank@example.org,A,103\n')


def instructor(course, *args):
    return subprocess.run([sys.executable, "-m", "grader", *args], cwd=course,
                          env=nbgrader_env(), capture_output=True, text=True)


def hand_in_class(course, nb, late_partial=False):
    hand_in(course, "alice", ASSIGNMENT, {NOTEBOOK + ".ipynb": correct(nb)})
    hand_in(course, "dave", ASSIGNMENT, {NOTEBOOK + ".ipynb": correct(nb)}, timestamp=LATE)
    if late_partial:
        hand_in(course, "gina", ASSIGNMENT, {NOTEBOOK + ".ipynb": fill(nb, {
            "double_answer": ANSWERS["double_answer"]})}, timestamp=LATE)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    course = make_course(str(tmp_path_factory.mktemp("grades") / "course"))
    with open(os.path.join(course, "nbgrader_config.py"), "a", encoding="utf-8") as handle:
        handle.write(PENALTY)
    due = instructor(course, "due", ASSIGNMENT, DUE)
    assert due.returncode == 0, due.stderr
    nb = released(course)
    hand_in_class(course, nb)
    hand_in(course, "bob", ASSIGNMENT, {NOTEBOOK + ".ipynb": fill(nb, {
        k: ANSWERS[k] for k in ("double_answer", "answer_answer")})})
    hand_in(course, "erin", ASSIGNMENT, {NOTEBOOK + ".ipynb": b"not a notebook"})
    hand_in(course, "=1+2", ASSIGNMENT, {NOTEBOOK + ".ipynb": correct(nb)})
    hand_in(course, "José María", ASSIGNMENT, {NOTEBOOK + ".ipynb": correct(nb)})
    with open(os.path.join(course, "students.csv"), "w", encoding="utf-8", newline="") as handle:
        handle.write(ROSTER)
    roster = instructor(course, "roster", "students.csv")
    assert roster.returncode == 0, roster.stderr
    run = subprocess.run([sys.executable, "-m", "grader", "autograde", ASSIGNMENT, "--jobs", "2"],
                         cwd=course, env=nbgrader_env(), capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-3000:]
    # what an instructor does in formgrader: one more point for bob's ones_values
    from nbgrader.api import Gradebook

    with Gradebook("sqlite:///" + os.path.join(course, "course-data", "gradebook.db")) as gb:
        grade = gb.find_grade("ones_values", NOTEBOOK, ASSIGNMENT, "bob")
        grade.manual_score = 1.0
        gb.db.commit()
    grades = instructor(course, "grades")
    assert grades.returncode == 0, grades.stderr
    return {"course": course, "grades": grades}


def data(graded, *parts):
    return os.path.join(graded["course"], "course-data", *parts)


def read_csv(path, dicts=True):
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle)) if dicts else list(csv.reader(handle))


def gradebook_penalties(course):
    with sqlite3.connect(os.path.join(course, "course-data", "gradebook.db")) as db:
        rows = db.execute(
            "select s.student_id, n.late_submission_penalty from submitted_notebook n "
            "join submitted_assignment s on n.assignment_id = s.id").fetchall()
    return dict(rows)


def test_a_late_submission_gets_the_penalty_stock_nbgrader_gives(tmp_path):
    ours = make_course(str(tmp_path / "ours"))
    stock = str(tmp_path / "stock")
    shutil.copytree(ours, stock)
    for course in (ours, stock):
        with open(os.path.join(course, "nbgrader_config.py"), "a", encoding="utf-8") as handle:
            handle.write(PENALTY)
            if course == stock:  # stock nbgrader's kernel: no time limit tested here
                handle.write("c.Execute.timeout = 300\nc.Execute.iopub_timeout = 60\n")
        assert instructor(course, "due", ASSIGNMENT, DUE).returncode == 0
        hand_in_class(course, released(course), late_partial=True)
    run = subprocess.run([sys.executable, "-m", "grader", "autograde", ASSIGNMENT],
                         cwd=ours, env=nbgrader_env(), capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-3000:]
    run = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", ASSIGNMENT],
                         cwd=stock, env=nbgrader_env(), capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-3000:]
    assert gradebook_penalties(ours) == gradebook_penalties(stock)
    assert gradebook_penalties(ours) == {"alice": None, "dave": MAX_SCORE, "gina": 3.0}


def test_grades_csv_counts_manual_grades_late_penalties_and_the_roster(graded):
    rows = {r["student_id"]: r for r in read_csv(data(graded, "grades.csv"))}
    assert list(read_csv(data(graded, "grades.csv"))[0]) == [
        "assignment", "duedate", "timestamp", "student_id", "last_name", "first_name", "email",
        "raw_score", "late_submission_penalty", "score", "max_score"]
    assert (rows["alice"]["score"], rows["alice"]["first_name"], rows["alice"]["email"]) == (
        "6", "Alice", "alice@example.org")
    assert rows["bob"]["raw_score"] == "5" and rows["bob"]["score"] == "5"  # 4 auto + 1 manual
    assert (rows["dave"]["raw_score"], rows["dave"]["late_submission_penalty"],
            rows["dave"]["score"]) == ("6", "6", "0")
    assert rows["frank"]["score"] == "0" and rows["frank"]["timestamp"] == ""
    assert rows["José María"]["score"] == "6"
    assert rows["alice"]["duedate"].startswith("2026-01-15 12:30:00")


def test_student_text_cannot_run_as_a_formula_or_break_a_row(graded):
    for name in ("grades.csv", os.path.join("exports", "canvas.csv"),
                 os.path.join("exports", "grades-by-student.csv")):
        with open(data(graded, name), encoding="utf-8", newline="") as handle:
            text = handle.read()
        cells = [c for row in csv.reader(text.splitlines()) for c in row]
        assert not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")], (name, cells)
        assert "'=1+2" in cells, name
        assert not [c for c in cells if any(ord(ch) < 32 for ch in c)], name
    rows = {r["student_id"]: r for r in read_csv(data(graded, "grades.csv"))}
    assert rows["bob"]["first_name"] == "'=HYPERLINK(\"http://evil.example/\")"
    assert rows["bob"]["last_name"] == "BobEvil"
    summary = open(data(graded, "reports", "summary.txt"), encoding="utf-8").read()
    assert "\n'=1+2\t" in summary and "\n=1+2" not in summary and "\r" not in summary


def test_the_canvas_export_has_canvas_columns_and_points_possible(graded):
    rows = read_csv(data(graded, "exports", "canvas.csv"), dicts=False)
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", ASSIGNMENT]
    assert rows[1] == ["Points Possible", "", "", "", "", "6"]
    by_id = {r[3]: r for r in rows[2:]}  # SIS User ID: none, as the roster gave none
    assert by_id["alice"] == ["Liddell, Alice", "101", "", "alice", "A", "6"]
    assert by_id["bob"][4:] == ["'@B", "5"]
    assert by_id["frank"][5] == "0" and by_id["dave"][5] == "0"


def test_the_roster_export_lists_roster_columns_and_totals(graded):
    rows = {r["id"]: r for r in read_csv(data(graded, "exports", "grades-by-student.csv"))}
    assert rows["alice"] == {"id": "alice", "first_name": "Alice", "last_name": "Liddell",
                             "email": "alice@example.org", "section": "A", ASSIGNMENT: "6",
                             "total": "6", "max_total": "6"}
    assert rows["bob"]["total"] == "5"


def test_summary_agrees_with_grades_csv(graded):
    summary = open(data(graded, "reports", "summary.txt"), encoding="utf-8").read()
    totals = summary.split("student\ttotal (as in grades.csv)\n")[1].split("\n\n")[0]
    from_summary = {line.split("\t")[0]: line.split("\t")[1].split(" ")[0]
                    for line in totals.splitlines()}
    from_csv = {r["student_id"]: f"{r['score']}/{r['max_score']}"
                for r in read_csv(data(graded, "grades.csv")) if r["timestamp"]}
    assert from_summary == from_csv
    assert from_summary["bob"] == "5/6" and from_summary["dave"] == "0/6"
    assert "dave\t0/6 (6 less a late penalty of 6)" in summary
    assert "bob\ttiny\tgraded\t5/6" in summary


def test_summary_lists_checks_in_notebook_order_with_points_and_means(graded):
    summary = open(data(graded, "reports", "summary.txt"), encoding="utf-8").read()
    checks = summary.split("check\tpoints\tpassed\tmean points\n")[1].split("\n\n")[0]
    lines = checks.splitlines()
    assert [line.split("\t")[0] for line in lines] == [
        "tiny/double_visible", "tiny/double_hidden", "tiny/ones_values", "tiny/answer_value"]
    # six submissions: alice, bob, dave, =1+2, José María pass double; erin is unreadable
    assert lines[0] == "tiny/double_visible\t1\t5/6 (83%)\t0.83"
    # ones: four full marks, bob's manual 1 of 2, erin 0
    assert lines[2] == "tiny/ones_values\t2\t4/6 (67%)\t1.50"


def test_summary_names_the_students_who_need_attention(graded):
    summary = open(data(graded, "reports", "summary.txt"), encoding="utf-8").read()
    needs = summary.split("needs attention: ")[1]
    assert needs.startswith("3\n")
    assert "dave\t30 min late, late penalty 6 points" in needs
    assert "erin\ttiny unreadable (" in needs
    assert "frank\tmissing: nothing submitted" in needs


def test_exports_are_readable_by_the_course_team(graded):
    for name in ("grades.csv", "exports/canvas.csv", "reports/summary.txt",
                 f"reports/{ASSIGNMENT}.html"):
        mode = stat.S_IMODE(os.stat(data(graded, name)).st_mode)
        assert mode & 0o044 == 0o044, (name, oct(mode))
    leftovers = [n for d in ("", "exports", "reports") for n in os.listdir(data(graded, d))
                 if n.endswith(".tmp")]
    assert leftovers == []


def test_a_failed_export_keeps_the_last_grades(graded, tmp_path):
    course = str(tmp_path / "course")
    shutil.copytree(graded["course"], course)
    before = open(os.path.join(course, "course-data", "grades.csv"), encoding="utf-8").read()
    with open(os.path.join(course, "course-data", "gradebook.db"), "wb") as handle:
        handle.write(b"this is not a database")
    result = instructor(course, "grades")
    assert result.returncode == 2
    assert "cannot be read" in result.stderr and "Traceback" not in result.stderr
    assert open(os.path.join(course, "course-data", "grades.csv"),
                encoding="utf-8").read() == before


@pytest.mark.parametrize("problem, message", [
    ("first_name,last_name\nAda,Lovelace\n", "must name the columns, one of them 'id'"),
    ("id,name\nada,Ada\n", "unknown column(s) name"),
    ("id\nada\nada\n", "line 3: 'ada' is listed twice (first on line 2)"),
    ("id\n-rf\n", "line 2: the id starts with '-'"),
], ids=["no id column", "unknown column", "twice", "option-like id"])
def test_a_bad_roster_is_refused_with_the_line_and_changes_nothing(graded, tmp_path, problem,
                                                                   message):
    path = tmp_path / "roster.csv"
    path.write_text(problem, encoding="utf-8")
    before = open(data(graded, "roster.csv"), encoding="utf-8").read()
    result = instructor(graded["course"], "roster", str(path))
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert open(data(graded, "roster.csv"), encoding="utf-8").read() == before


def test_grading_refuses_while_solutions_differ_from_what_was_released(tmp_path):
    import nbformat

    course = make_course(str(tmp_path / "course"))
    path = os.path.join(course, "source", ASSIGNMENT, NOTEBOOK + ".ipynb")
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "answer_value":
            cell.metadata.nbgrader["points"] = 6
    nbformat.write(nb, path)
    hand_in(course, "alice", ASSIGNMENT, {NOTEBOOK + ".ipynb": correct(released(course))})
    run = subprocess.run([sys.executable, "-m", "grader", "autograde", ASSIGNMENT], cwd=course,
                         env=nbgrader_env(), capture_output=True, text=True)
    assert run.returncode == 2
    assert (f"solutions/{ASSIGNMENT} differs from what was released ({NOTEBOOK}: answer_value "
            f"worth 6 points, released with 1): run make release") in run.stderr
    assert not os.path.exists(os.path.join(course, "course-data", "reports", ASSIGNMENT))


def test_the_report_page_shows_figures_and_who_needs_attention(graded):
    from playwright.sync_api import sync_playwright

    page_path = data(graded, "reports", ASSIGNMENT + ".html")
    text = open(page_path, encoding="utf-8").read()
    assert "src=\"http" not in text and "<link" not in text and "<script" not in text
    shots = os.path.join(ROOT, "_build", "screenshots")
    os.makedirs(shots, exist_ok=True)
    requests = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", headless=True,
            args=["--headless", "--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 900})
            page.on("request", lambda request: requests.append(request.url))
            page.goto("file://" + page_path)
            widths = page.eval_on_selector_all("img", "imgs => imgs.map(i => i.naturalWidth)")
            headings = page.eval_on_selector_all("h2", "hs => hs.map(h => h.textContent)")
            rows = page.eval_on_selector_all(
                "h2:last-of-type + table tr", "rs => rs.map(r => r.innerText)")
            page.screenshot(path=os.path.join(shots, "grade-report.png"), full_page=True)
        finally:
            browser.close()
    assert len(widths) == 2 and min(widths) > 300
    assert headings == ["Scores", "Checks, in notebook order",
                        "Students who need attention (3)"]
    assert rows[1:] == ["dave\t30 min late, late penalty 6 points",
                        "erin\ttiny unreadable (notebook could not be read: not JSON "
                        "(Expecting value at line 1))",
                        "frank\tmissing: nothing submitted"]
    assert [r for r in requests if not r.startswith(("file:", "data:"))] == []
