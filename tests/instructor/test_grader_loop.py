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

from testsupport.assignment_students import PARTIAL, PARTIAL_SCORE
from testsupport.bad_submissions import leak_by_exception
from testsupport.course import (assignments, hidden_test_lines as hidden_lines, nbgrader_env,
                                released_course, solution_answers)

NOTEBOOKS = assignments()
TYPED = {
    "parameters": {
        "output_shape_answer": "output_shape = (2, 4, 50257)\n",
        "count_parameters_answer": "def count_parameters(model):\n    return 163009536\n",
        "values_answer": "total_params = 163009536\nout_head_params = 38597376\n"
                         "tied_params = 124412160\n",
        "count_tied_parameters_answer": "def count_tied_parameters(model):\n    return 124412160\n",
        "model_size_mib_answer": "def model_size_mib(model):\n    return 621.83\n",
        "gpt2_totals_answer": "gpt2_totals = {'gpt2-medium': 406212608, 'gpt2-large': 838220800,"
                              " 'gpt2-xl': 1637792000}\n",
    },
    "logits-to-text": {
        "next_token_ids_answer": "def next_token_ids(logits):\n"
                                 "    return torch.tensor([[257]])\n",
        "text_to_token_ids_answer": "def text_to_token_ids(text, tokenizer):\n"
                                    "    return torch.tensor([[15496, 11, 314, 716]])\n",
        "generated_text_answer": "generated_text = 'Hello, I am Featureiman Byeswickattribute argue'\n",
    },
}
# grade cells that check functions on inputs a typed-in value cannot know
FUNCTION_TESTS = {
    "parameters": ["count_parameters_unseen_configs", "count_parameters_shared_once",
                   "count_tied_parameters_unseen_configs", "count_tied_parameters_tied_models",
                   "model_size_mib_any_model"],
    "logits-to-text": ["next_token_ids_known_argmax", "text_to_token_ids_any_text",
                       "generate_text_simple_batches", "generate_text_simple_greedy_values",
                       "generate_text_simple_crops_context"],
}
# typed-in numbers earn only generated_text (1): the value questions of parameters are
# about each student's own model, not the 124M model whose numbers these are
TYPED_SCORE = {"parameters": 0.0, "logits-to-text": 1.0}
# Answers written against a grader that ran the checks in the student's process:
# reading the check's expected values from its frame, leaking the hidden check's
# source through an exception, borrowing a helper function a hidden check defined.
ORACLE = {
    "parameters": {
        "count_parameters_answer": (
            "import sys\nimport torch\n\n"
            "def count_parameters(model):\n"
            "    frame = sys._getframe(1)\n"
            "    while frame is not None:\n"
            "        if frame.f_globals.get('unseen_cfg') == getattr(model, 'cfg', None):\n"
            "            return frame.f_globals['unseen_count']\n"
            "        frame = frame.f_back\n"
            "    if isinstance(model, torch.nn.Sequential):\n"
            "        return 38\n"
            "    return 296 if model.out_head.weight is model.tok_emb.weight else 336\n"),
        "count_tied_parameters_answer": leak_by_exception("count_tied_parameters"),
    },
    "logits-to-text": {
        "generate_text_simple_answer": (
            "def generate_text_simple(model, idx, max_new_tokens, context_size):\n"
            "    helper = globals().get('greedy_reference')\n"
            "    if helper is not None:\n"
            "        return torch.tensor(helper(model, idx, max_new_tokens, context_size))\n"
            "    zeros = torch.zeros(idx.shape[0], max_new_tokens, dtype=torch.long)\n"
            "    return torch.cat([idx, zeros], dim=1)\n"),
    },
}
# what the honest rest of those notebooks earns: parameters keeps output_shape and
# out_head_params (0.5 each), and count_on_meta (1.5) and model_size_mib (1), whose
# checks put the reference count_parameters in place of the oracle; logits-to-text
# keeps next_token_ids (2.5), the two text functions (2), the shape check of
# generate_text_simple (1) and generate_until (1.5)
ORACLE_SCORE = {"parameters": 3.5, "logits-to-text": 7.0}


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
                            "partial": {k: answers[k] for k in PARTIAL[assignment]},
                            "typed": TYPED[assignment],
                            "oracle": {**answers, **ORACLE[assignment]}}[kind]}
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
        expected.update({("alice", assignment): 10.0, ("bob", assignment): 0.0,
                         ("carol", assignment): PARTIAL_SCORE[assignment],
                         ("dave", assignment): TYPED_SCORE[assignment],
                         ("eve", assignment): ORACLE_SCORE[assignment]})
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
    for assignment, tests in FUNCTION_TESTS.items():
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
    assert "alice\tparameters\tgraded\t10/10" in text
    assert "bob\tlogits_to_text\tgraded\t0/10" in text
    assert "parameters/output_shape\t0.5\t3/5 (60%)\t0.30" in text
