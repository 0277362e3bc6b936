"""A third assignment added by following docs/adding-an-assignment.md, in a copy of the course.

The test writes the two files the document names, and nothing else: a small notebook
of its own in solutions/last-position/ (two answer cells, each checked by one test cell
with a visible and a hidden part, 6 + 4 points) and its row of the registry in
testsupport/assignments/last_position.py. Then it runs the document's commands in the
copy: `make release`, `make autograde` of a correct student and of one whose first
answer is wrong, and `make feedback`. The notebook keeps the contract, the registry
finds the row, the grades are the row's, and each feedback page shows every check
with its points and none of the hidden tests.
"""

import json
import os
import re

import nbformat
import pytest

from testsupport.assignments import load_rows, missing_rows, row_file, row_problems
from testsupport.course import (assignments, copy_course, make, notebook_file, read_notebook,
                                solution_answers)
from testsupport.gradebook import gradebook_scores
from testsupport.hand_in import hand_in
from testsupport.notebook_contract import contract_problems

NAME, NOTEBOOK = "last-position", "last_position"
HIDDEN_LINE = "unseen = torch.randn(4, 5, 7, generator=torch.Generator().manual_seed(7))"

# the row, as docs/adding-an-assignment.md says to write it
ROW_MODULE = '''"""The assignment `last-position`: the next token's probabilities."""

from testsupport.assignment_row import AssignmentRow, Student, source, untouched

POINTS = {"softmax_last_probabilities": 6, "vocab_size_value": 4}

STUDENTS = {
    "solution": Student(total=10),
    "untouched": untouched(POINTS),
    # the softmax taken over the batch, not over the vocabulary
    "softmax_over_the_batch": Student(total=4, answers={
        "softmax_last_answer": source("""
            def softmax_last(logits):
                return torch.softmax(logits[:, -1, :], dim=0)
            """),
    }, failures={"softmax_last_probabilities": "must sum to 1 over the vocabulary"}),
}

ROW = AssignmentRow(
    name="last-position",
    notebook="last_position",
    points=POINTS,
    students=STUDENTS,
    hidden_values={"vocab_size_value": ["50257", "50,257"]},
    allowed_imports=frozenset({"GPT_CONFIG_124M"}),
    package_answers=(),
    partial=("softmax_last_answer",),
    partial_score=6,
    typed={"vocab_size_answer": "vocab_size = 50_000\\n"},
    typed_score=0,
    function_tests=("softmax_last_probabilities",),
    oracle={"vocab_size_answer": "vocab_size = globals().get('expected_vocab_size', 0)\\n"},
    oracle_score=6,
)
'''


def _meta(grade_id, *, solution=False, grade=False, locked=True, points=0):
    meta = {"grade_id": grade_id, "solution": solution, "grade": grade, "locked": locked,
            "schema_version": 3}
    if grade:
        meta["points"] = points
    return {"nbgrader": meta}


def _markdown(grade_id, text):
    return nbformat.v4.new_markdown_cell(text, id=grade_id, metadata=_meta(grade_id))


def _code(grade_id, source, **meta):
    return nbformat.v4.new_code_cell(source, id=grade_id.replace("_", "-"),
                                     metadata=_meta(grade_id, **meta))


def third_notebook():
    """The instructor's notebook of the new assignment, keeping the contract: its intro's
    paragraphs on the install cell and the time, and its install cell, copied from an
    existing notebook as the document says."""
    existing = read_notebook("solutions", "parameters")
    intro = "".join(existing["cells"][0]["source"]).split("\n\n")
    borrowed = [p for p in intro if p.startswith(("**In Colab", "**Time."))]
    install = next("".join(c["source"]) for c in existing["cells"] if c["cell_type"] == "code")
    cells = [
        _markdown("intro", "\n\n".join([
            "# Homework: the last position",
            "The model's last position holds the scores of the next token. In this assignment "
            "you turn them into probabilities and read the size of the vocabulary. The "
            "assignment is worth 10 points.", *borrowed])),
        _code("install", install),
        _code("setup", "import torch\n\nfrom gptcourse import GPT_CONFIG_124M"),
        _markdown("softmax-intro", "## 1. The last position's probabilities (6 points)\n\n"
                                   "Write `softmax_last(logits)`: for logits of shape "
                                   "`[batch, num_tokens, vocab_size]`, the probabilities of "
                                   "the next token of every text, `[batch, vocab_size]`."),
        _code("softmax_last_answer",
              'def softmax_last(logits):\n'
              '    """The probabilities of the next token of every text."""\n'
              '    ### BEGIN SOLUTION\n'
              '    return torch.softmax(logits[:, -1, :], dim=-1)\n'
              '    ### END SOLUTION', solution=True, locked=False),
        _code("softmax_last_probabilities",
              '"""Check that softmax_last gives the next token\'s probabilities of every text."""\n'
              "logits = torch.tensor([[[0.0, 1.0, 2.0], [1.0, 1.0, 1.0]]])  # [1, 2, 3]\n"
              "probas = softmax_last(logits)\n"
              'assert tuple(probas.shape) == (1, 3), "softmax_last must give [batch, vocab_size]"\n'
              "assert torch.allclose(probas.sum(dim=-1), torch.ones(1)), (\n"
              '    "the probabilities of each text must sum to 1 over the vocabulary")\n'
              "### BEGIN HIDDEN TESTS\n"
              f"{HIDDEN_LINE}\n"
              "expected = torch.softmax(unseen[:, -1, :], dim=-1)\n"
              "assert torch.allclose(softmax_last(unseen), expected), (\n"
              '    "these are not the softmax of the last position\'s logits")\n'
              "### END HIDDEN TESTS", grade=True, points=6),
        _markdown("vocab-intro", "## 2. The vocabulary (4 points)\n\n"
                                 "Set `vocab_size` to the number of entries of the 124M "
                                 "model's vocabulary, read from `GPT_CONFIG_124M`."),
        _code("vocab_size_answer", "### BEGIN SOLUTION\n"
                                   'vocab_size = GPT_CONFIG_124M["vocab_size"]\n'
                                   "### END SOLUTION", solution=True, locked=False),
        _code("vocab_size_value",
              '"""Check that vocab_size is the size of the 124M model\'s vocabulary."""\n'
              'assert type(vocab_size) is int, "vocab_size must be an int"\n'
              "### BEGIN HIDDEN TESTS\n"
              'assert vocab_size == GPT_CONFIG_124M["vocab_size"], "not the 124M model\'s size"\n'
              "### END HIDDEN TESTS", grade=True, points=4),
    ]
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python",
                                 "name": "python3"}
    return nb


def submission(course, answers):
    """The released notebook of the course at `course` with its answers: the instructor's
    solutions, then `answers` ({grade_id: source}) in place of theirs."""
    nb = read_notebook("exercises", NAME, course)
    filled = {**solution_answers(NAME, course), **answers}
    for cell in nb["cells"]:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id in filled:
            cell["source"] = filled[grade_id]
    return {NOTEBOOK + ".ipynb": nb}


@pytest.fixture(scope="module")
def added(tmp_path_factory):
    """The course copied, the assignment added by the document's files and commands."""
    course = copy_course(str(tmp_path_factory.mktemp("third") / "course"),
                         ("testsupport/assignments",), for_make=True)
    # the two files
    os.makedirs(os.path.join(course, "solutions", NAME))
    nbformat.write(third_notebook(), os.path.join(course, "solutions", NAME, NOTEBOOK + ".ipynb"))
    missing = missing_rows(course)
    with open(row_file(NAME, course), "w", encoding="utf-8") as handle:
        handle.write(ROW_MODULE)
    rows = load_rows(course)
    # the commands
    done = {"release": make(course, "release", f"ASSIGNMENT={NAME}", timeout=900)}
    row = rows[NAME]
    students = ("solution", "softmax_over_the_batch")
    for student in students:
        hand_in(course, student, NAME, submission(course, row.students[student].answers))
    done["autograde"] = make(course, "autograde", f"ASSIGNMENT={NAME}", "JOBS=2", timeout=900)
    done["feedback"] = make(course, "feedback", f"ASSIGNMENT={NAME}", timeout=900)
    pages = {}
    for student in students:
        path = os.path.join(course, "course-data", "feedback", student, NAME, NOTEBOOK + ".html")
        with open(path, encoding="utf-8") as handle:
            pages[student] = handle.read()
    return {"course": course, "missing": missing, "rows": rows, "done": done, "pages": pages,
            "scores": gradebook_scores(course, NAME), "students": students}


def test_the_new_notebook_keeps_the_contract(added):
    from grader.settings import check_config, limits_from_config

    limits = limits_from_config(check_config(added["course"])[0])
    path = notebook_file("solutions", NAME, added["course"])
    problems = contract_problems(path, (limits.timeout, limits.notebook_seconds))
    assert problems == [], "\n".join(map(str, problems))


def test_the_registry_asks_for_the_row_and_then_finds_it(added):
    assert added["missing"] == [NAME]
    rows = added["rows"]
    assert sorted(rows) == sorted(assignments(added["course"])) == sorted([*assignments(), NAME])
    assert row_problems(rows[NAME], added["course"]) == []


def test_make_release_writes_the_student_version_without_solutions_or_hidden_tests(added):
    assert added["done"]["release"].returncode == 0, added["done"]["release"].stderr[-3000:]
    released = os.path.join(added["course"], "exercises", NAME, NOTEBOOK + ".ipynb")
    with open(released, encoding="utf-8") as handle:
        text = handle.read()
    for hidden in ("BEGIN SOLUTION", "BEGIN HIDDEN TESTS", HIDDEN_LINE, "torch.softmax(logits"):
        assert hidden not in text
    cells = json.loads(text)["cells"]
    assert [c["metadata"]["nbgrader"]["grade_id"] for c in cells] == [
        c.metadata["nbgrader"]["grade_id"] for c in third_notebook().cells]


def test_each_student_earns_the_points_the_row_gives(added):
    assert added["done"]["autograde"].returncode == 0, added["done"]["autograde"].stderr[-3000:]
    row = added["rows"][NAME]
    for student in added["students"]:
        expected = {check: 0.0 if check in row.students[student].failures else float(points)
                    for check, points in row.points.items()}
        assert added["scores"][student] == expected, student
        assert sum(expected.values()) == row.students[student].total
    assert [row.students[s].total for s in added["students"]] == [10, 4]


def test_the_feedback_shows_every_check_and_no_hidden_test(added):
    assert added["done"]["feedback"].returncode == 0, added["done"]["feedback"].stderr[-3000:]
    for student, page in added["pages"].items():
        text = re.sub(r"<[^>]+>", " ", page)
        assert "Check that softmax_last gives the next token" in text
        assert "Check that vocab_size is the size of the 124M model" in text
        assert HIDDEN_LINE not in page and "BEGIN HIDDEN TESTS" not in page
        assert "50257" not in text and "50,257" not in text
    assert "Score: <strong>10</strong> of 10 points" in added["pages"]["solution"]
    wrong = added["pages"]["softmax_over_the_batch"]
    assert "Score: <strong>4</strong> of 10 points" in wrong
    assert "must sum to 1 over the vocabulary" in wrong
