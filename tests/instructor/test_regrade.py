"""After grading, a check made looser and released again: the regrade's dry run shows who
changes and writes nothing but its record; applied, it changes exactly those students
(gradebook, autograded notebook, report part, feedback page saying why) and no one else.
And the item analysis of the class graded for real."""

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from testsupport.accessibility import DESKTOP, PHONE, ROOT, axe_violations, violations_report
from testsupport.course import nbgrader_env, run_grader
from testsupport.gradebook import gradebook_rows, sqlite_url
from testsupport.hand_in import hand_in
from testsupport.tiny_course import (ASSIGNMENT, NOTEBOOK, correct, make_course, released,
                                     tree_hashes)

# alice answers everything; bob's double returns a float (the int checks fail); carol's
# answer is 41
STUDENTS = {"alice": {}, "bob": {"double_answer": "def double(x):\n    return 2.0 * x\n"},
            "carol": {"answer_answer": "answer = 41\n"}}
SCREENSHOTS = ROOT / "_build" / "screenshots"
REASON = "double_visible accepts a float: the question never asked for an int"


def grader(course, *args):
    return subprocess.run([sys.executable, "-m", "grader", *args], cwd=course,
                          env=nbgrader_env(), capture_output=True, text=True, timeout=600)


def nbgrader(course, *args):
    result = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course,
                            env=nbgrader_env(), capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def loosen_double_visible(course):
    """The instructor's fix: double_visible no longer asks for an int; released again."""
    path = os.path.join(course, "source", ASSIGNMENT, NOTEBOOK + ".ipynb")
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "double_visible":
            cell.source = ('"""Check that double(2) is 4"""\n'
                           'assert double(2) == 4, "double(2) should be 4"')
    nbformat.write(nb, path)
    nbgrader(course, "generate_assignment", ASSIGNMENT, "--force")


def everything(course):
    """{path: hash} of every file of the course's run-time data, the gradebook included."""
    return tree_hashes(os.path.join(course, "course-data"))


def of_student(hashes, student):
    return {path: digest for path, digest in hashes.items()
            if f"/{student}/" in f"/{path}" or path.endswith(f"/{student}.json")}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The tiny class handed in, graded, its feedback written, then a check loosened and
    released again, and two regrade requests filed."""
    course = make_course(str(tmp_path_factory.mktemp("regrade") / "course"))
    student_version = released(course)
    for student, answers in STUDENTS.items():
        hand_in(course, student, ASSIGNMENT,
                {NOTEBOOK + ".ipynb": correct(student_version, **answers)})
    run_grader(course, ASSIGNMENT, check=True)
    nbgrader(course, "generate_feedback", ASSIGNMENT, "--force")
    first = grader(course, "grades")
    assert first.returncode == 0, first.stderr
    items_before = open(os.path.join(course, "course-data", "reports",
                                     ASSIGNMENT + "-items.csv")).read()
    loosen_double_visible(course)
    with open(os.path.join(course, "regrade-requests.csv"), "w") as handle:
        handle.write("student,assignment,check,message\n"
                     'bob,tiny,double_visible,"2.0 * x doubles, the question says nothing of int"\n'
                     "carol,tiny,answer_value,41 is close\n"
                     "alice,other,x,another assignment's\n")
    return {"course": course, "items_before": items_before}


def test_the_item_analysis_of_the_graded_class(graded):
    rows = list(csv.DictReader(graded["items_before"].splitlines()))
    by_check = {r["check"]: r for r in rows}
    assert list(by_check) == ["double_visible", "double_hidden", "ones_values", "answer_value"]
    assert [by_check[c]["students"] for c in by_check] == ["3", "3", "3", "3"]
    # double: alice and carol earn it (2 of 3); ones: all; answer: alice and bob
    assert [by_check[c]["mean"] for c in by_check] == ["0.6667", "0.6667", "1.0000", "0.6667"]
    # double_visible: the rests are alice 5, bob 3, carol 4; earned by alice and carol
    # (mean 4.5), missed by bob (3); population s = sqrt(2/3), p = 2/3:
    # (4.5 - 3) / sqrt(2/3) * sqrt(2/9) = 0.866025
    assert by_check["double_visible"]["discrimination"] == "0.8660"
    assert by_check["ones_values"]["discrimination"] == ""  # all earn it: not defined
    assert by_check["ones_values"]["flags"] == "almost all pass"
    assert [(by_check[c]["top_failure"], by_check[c]["top_failure_students"])
            for c in ("double_visible", "answer_value")] == [
        ("AssertionError: double(2) should be 4", "1"),
        ("AssertionError: answer should be 42", "1")]


def test_the_dry_run_shows_who_changes_and_writes_only_its_record(graded):
    course = graded["course"]
    before = everything(course)
    run = grader(course, "regrade", ASSIGNMENT, "--reason", REASON)
    assert run.returncode == 0, run.stdout + run.stderr
    print(run.stdout)
    lines = run.stdout.splitlines()
    assert lines[0] == ("regrade of tiny (dry run: nothing changed): 3 student(s) graded "
                        "again against the current release; 1 change(s)")
    assert "  bob: 3 -> 4 of 6 autograded points" in lines
    assert "    tiny/double_visible: 0 -> 1 (failed -> passed)" in lines
    assert not any(line.startswith(("  alice:", "  carol:")) for line in lines)
    assert ('  bob, double_visible: "2.0 * x doubles, the question says nothing of int" -> '
            "answered: tiny/double_visible: 0 -> 1 (failed -> passed)") in lines
    assert ('  carol, answer_value: "41 is close" -> not answered: the check\'s result does '
            "not change") in lines
    assert "regrade requests (regrade-requests.csv): 2" in lines
    after = everything(course)
    added = sorted(set(after) - set(before))
    assert len(added) == 1 and added[0].startswith("regrades/tiny-")
    assert added[0].endswith("-dry-run.json")
    assert {p: h for p, h in after.items() if p not in added} == before  # gradebook too
    record = json.load(open(os.path.join(course, "course-data", added[0])))
    assert (record["applied"], record["reason"], record["regraded"]) == (
        False, REASON, ["alice", "bob", "carol"])
    assert [c["student"] for c in record["changes"]] == ["bob"]


def test_applied_it_changes_exactly_the_changed_students(graded):
    course = graded["course"]
    before = everything(course)
    rows_before = gradebook_rows(sqlite_url(course), ASSIGNMENT)
    run = grader(course, "regrade", ASSIGNMENT, "--reason", REASON, "--apply")
    assert run.returncode == 0, run.stdout + run.stderr
    print(run.stdout)
    assert ("  bob: gradebook score 3 -> 4; feedback regenerated in "
            "course-data/feedback/bob/tiny") in run.stdout.splitlines()
    after = everything(course)
    for student in ("alice", "carol"):  # byte for byte as they were
        assert of_student(before, student) and of_student(after, student) == of_student(
            before, student)
    changed = {p for p in set(before) | set(after) if before.get(p) != after.get(p)}
    assert {p for p in changed if not p.startswith("regrades/")} >= {
        "autograded/bob/tiny/tiny.ipynb", "reports/tiny/bob.json",
        "feedback/bob/tiny/tiny.html", "gradebook.db"}
    assert {p for p in changed if not p.startswith("regrades/")} <= {
        "autograded/bob/tiny/tiny.ipynb", "reports/tiny/bob.json", "feedback/bob/tiny/tiny.html",
        "gradebook.db", "reports/tiny.csv", "reports/tiny.json"}
    rows_after = gradebook_rows(sqlite_url(course), ASSIGNMENT)
    assert {k: v for k, v in rows_after["grades"].items() if k[0] != "bob"} == {
        k: v for k, v in rows_before["grades"].items() if k[0] != "bob"}
    assert rows_after["grades"][("bob", "tiny", "double_visible")] == (1.0, 1.0)
    assert rows_after["grade_rows"] == rows_before["grade_rows"]
    page = open(os.path.join(course, "course-data", "feedback", "bob", "tiny", "tiny.html")).read()
    assert "Regraded on " in page and REASON in page
    notebook = nbformat.read(os.path.join(course, "course-data", "autograded", "bob", "tiny",
                                          "tiny.ipynb"), as_version=4)
    assert notebook.metadata["regraded"]["reason"] == REASON
    record_name = next(p for p in changed if p.endswith("-applied.json"))
    record = json.load(open(os.path.join(course, "course-data", record_name)))
    assert record["applied"] is True and record["by"]
    assert record["gradebook_before"] == {"bob": 3.0} and record["gradebook_after"] == {
        "bob": 4.0}
    again = grader(course, "regrade", ASSIGNMENT)  # now nobody changes
    assert "; 0 change(s)" in again.stdout.splitlines()[0], again.stdout + again.stderr


def test_a_student_without_a_submission_is_refused_with_nothing_graded(graded):
    run = grader(graded["course"], "regrade", ASSIGNMENT, "--students", "alice,nobody")
    assert run.returncode == 2
    assert "no submission of tiny from: nobody (STUDENTS=...); nothing was regraded" in run.stderr


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_item_analysis_page_and_a_regraded_feedback_page_meet_wcag(graded, browser, size):
    """axe-core finds no WCAG 2.1 A or AA violation on the item analysis page (its chart
    inline SVG) nor on a feedback page that says it was regraded; nothing is wider than
    the screen and nothing is fetched but the file itself."""
    course = graded["course"]
    written = grader(course, "item-analysis", ASSIGNMENT)
    assert written.returncode == 0, written.stderr
    assert written.stdout.splitlines() == ["item analysis: course-data/reports/tiny-items.csv",
                                           "item analysis: course-data/reports/tiny-items.html"]
    pages = [os.path.join(course, "course-data", "reports", "tiny-items.html"),
             os.path.join(course, "course-data", "feedback", "bob", "tiny", "tiny.html")]
    for path in pages:
        page = browser.new_page()
        requested = []
        page.on("request", lambda request: requested.append(request.url))
        try:
            page.set_viewport_size({"desktop": DESKTOP, "phone": PHONE}[size])
            page.goto(Path(path).as_uri(), wait_until="load")
            violations = axe_violations(page)
            width = page.evaluate("document.documentElement.scrollWidth")
            if size == "desktop":
                SCREENSHOTS.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(SCREENSHOTS / f"regrade-{Path(path).stem}.png"),
                                full_page=True)
        finally:
            page.close()
        assert violations == [], f"{path}, {size}:\n{violations_report(violations)}"
        assert width <= {"desktop": DESKTOP, "phone": PHONE}[size]["width"], (path, width)
        assert [url for url in requested if not url.startswith(("file:", "data:"))] == []
