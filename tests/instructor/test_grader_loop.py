"""The instructor's whole loop on the real assignments, with nbgrader's own commands.

generate -> release to a temporary exchange -> four students fetch (each with
a HOME of their own) -> fill answers programmatically -> submit -> collect ->
autograde (sandboxed, two workers) -> feedback -> export grades -> summary.
"""

import csv
import json
import os
import subprocess
import sys

import pytest

from testsupport.assignments import ASSIGNMENTS
from testsupport.course import (assignments, hidden_test_lines as hidden_lines, nbgrader_env,
                                released_course, solution_answers)

NOTEBOOKS = assignments()


def nbgrader(*args, cwd, env=None):
    result = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=cwd,
                            env=env or nbgrader_env(), capture_output=True, text=True)
    assert result.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{result.stderr[-3000:]}"
    return result


STUDENT_SCRIPT = """
import json, sys
from nbgrader.apps import FetchAssignmentApp, SubmitApp

exchange, student, work = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
common = ["--course", "gptcourse", "--Exchange.root=" + exchange]
fetched = {}
for assignment, spec in work.items():
    app = FetchAssignmentApp()
    app.initialize([assignment] + common)
    app.start()
    path = assignment + "/" + spec["notebook"] + ".ipynb"
    with open(path, encoding="utf-8") as handle:
        fetched[assignment] = handle.read()
    nb = json.loads(fetched[assignment])
    for cell in nb["cells"]:
        grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id")
        if grade_id in spec["answers"]:
            cell["source"] = spec["answers"][grade_id]
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(nb, handle)
    app = SubmitApp()
    app.initialize([assignment, "--student", student] + common)
    app.start()
with open("fetched.json", "w", encoding="utf-8") as handle:
    json.dump(fetched, handle)
"""


@pytest.fixture(scope="module")
def loop(tmp_path_factory):
    course = released_course(str(tmp_path_factory.mktemp("loop") / "course"))
    exchange = os.path.join(course, "course-data", "exchange")
    students = {"alice": "correct", "bob": "untouched", "carol": "partial", "dave": "typed",
                "eve": "oracle"}
    for assignment in NOTEBOOKS:
        nbgrader("release_assignment", assignment, "--force", cwd=course)
    fetched = {}
    for student, kind in students.items():
        home = os.path.join(course, "homes", student)
        os.makedirs(home)
        work = {}
        for assignment in NOTEBOOKS:
            answers = solution_answers(assignment)
            work[assignment] = {
                "notebook": NOTEBOOKS[assignment],
                "answers": {"correct": answers, "untouched": {},
                            "partial": {k: answers[k] for k in ASSIGNMENTS[assignment].partial},
                            "typed": ASSIGNMENTS[assignment].typed,
                            "oracle": {**answers, **ASSIGNMENTS[assignment].oracle}}[kind]}
        # the student's side, with nbgrader's own fetch and submit, in one process
        result = subprocess.run([sys.executable, "-c", STUDENT_SCRIPT, exchange, student,
                                 json.dumps(work)], cwd=home,
                                env={**nbgrader_env(), "HOME": home}, capture_output=True,
                                text=True)
        assert result.returncode == 0, result.stderr[-3000:]
        with open(os.path.join(home, "fetched.json"), encoding="utf-8") as handle:
            fetched.update({(student, a): t for a, t in json.load(handle).items()})
    for assignment in NOTEBOOKS:
        nbgrader("collect", assignment, cwd=course)
    runs = {}
    for assignment in NOTEBOOKS:
        runs[assignment] = subprocess.run(
            [sys.executable, "-m", "grader", "autograde", assignment, "--jobs", "2"],
            cwd=course, env=nbgrader_env(), capture_output=True, text=True)
        nbgrader("generate_feedback", assignment, "--force", cwd=course)
    nbgrader("export", "--to", "course-data/grades.csv", cwd=course)
    summary = subprocess.run([sys.executable, "-m", "grader", "summary"], cwd=course,
                             env=nbgrader_env(), capture_output=True, text=True)
    return {"course": course, "runs": runs, "fetched": fetched, "summary": summary,
            "students": students}


def grades(loop):
    with open(os.path.join(loop["course"], "course-data", "grades.csv"), encoding="utf-8") as f:
        return {(r["student_id"], r["assignment"]): float(r["score"]) for r in csv.DictReader(f)}


def report(loop, assignment):
    path = os.path.join(loop["course"], "course-data", "reports", assignment + ".json")
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)["rows"]


def test_autograde_exits_zero_for_every_assignment(loop):
    for assignment, run in loop["runs"].items():
        assert run.returncode == 0, run.stderr[-3000:]


def test_fetched_notebooks_hold_no_solutions_or_hidden_tests(loop):
    for (student, assignment), text in loop["fetched"].items():
        assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text
        for line in hidden_lines(assignment):
            assert line not in text


def test_exported_grades_are_exact(loop):
    expected = {}
    for assignment in NOTEBOOKS:
        expected.update({("alice", assignment): ASSIGNMENTS[assignment].max_score,
                         ("bob", assignment): 0.0,
                         ("carol", assignment): ASSIGNMENTS[assignment].partial_score,
                         ("dave", assignment): ASSIGNMENTS[assignment].typed_score,
                         ("eve", assignment): ASSIGNMENTS[assignment].oracle_score})
    assert grades(loop) == expected


def test_answers_written_against_the_grader_see_no_hidden_check(loop):
    for assignment, notebook in NOTEBOOKS.items():
        rows = [r for r in report(loop, assignment) if r["student"] == "eve"]
        path = os.path.join(loop["course"], "course-data", "autograded", "eve", assignment,
                            notebook + ".ipynb")
        with open(path, encoding="utf-8") as handle:
            outputs = json.dumps([c.get("outputs", []) for c in json.load(handle)["cells"]])
        for text in [str(r["message"]) for r in rows] + [outputs]:
            assert "HIDDEN" not in text
            for line in hidden_lines(assignment):
                assert line not in text


def test_typed_in_numbers_earn_nothing_on_function_tests(loop):
    for assignment, row in ASSIGNMENTS.items():
        tests = row.function_tests
        rows = {r["grade_id"]: r for r in report(loop, assignment) if r["student"] == "dave"}
        for grade_id in tests:
            assert rows[grade_id]["points"] == 0.0, rows[grade_id]
            assert rows[grade_id]["status"] == "failed"


def test_feedback_holds_no_hidden_test_code(loop):
    for assignment, notebook in NOTEBOOKS.items():
        lines = hidden_lines(assignment)
        assert lines, "the assignment has hidden tests"
        for student in loop["students"]:
            path = os.path.join(loop["course"], "course-data", "feedback", student, assignment,
                                notebook + ".html")
            with open(path, encoding="utf-8") as handle:
                page = handle.read()
            assert "Check that" in page  # the docstrings are there
            for line in lines:
                assert line not in page, (student, line)


def test_summary_reports_status_and_pass_rates(loop):
    assert loop["summary"].returncode == 0, loop["summary"].stderr
    text = loop["summary"].stdout
    assert "alice\tparameters\tgraded\t10/12" in text  # the explain cell waits for a person
    assert "bob\tlogits_to_text\tgraded\t0/12" in text
    assert "parameters/output_shape\t0.5\t3/5 (60%)\t0.30" in text
