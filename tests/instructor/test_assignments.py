"""The course's nbgrader assignments: how they are built, and that they grade right.

Every model student of the registry (``testsupport/assignments/``) is graded by the course's own
grader (``python -m grader autograde``, what `make autograde` runs) in a
temporary copy of the course, one run per assignment, and each test cell's
score is compared with what that student earned. Stock ``nbgrader autograde``
grades the same notebooks in another copy as a second check.
"""

import ast
import json
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest

from testsupport.assignments import ASSIGNMENTS
from testsupport.grading import (
    NOTEBOOKS,
    REPO,
    build_submission,
    grade_batch,
    grade_batch_with_stock_nbgrader,
    nbgrader,
    stock_failure_messages,
)
from testsupport.course import copy_course, released_course

HIDDEN = ("### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS")
SOLUTION = ("### BEGIN SOLUTION", "### END SOLUTION")


def read(folder, assignment):
    return nbformat.read(REPO / folder / assignment / NOTEBOOKS[assignment], as_version=4)


def nbgrader_meta(cell):
    return cell.metadata.get("nbgrader", {})


def graded_cells(nb):
    return [cell for cell in nb.cells if nbgrader_meta(cell).get("grade") and cell.cell_type == "code"]


def split_regions(source, markers):
    """(lines outside the marked regions, lines inside them), each stripped, blank lines dropped."""
    outside, inside, within = [], [], False
    for line in source.split("\n"):
        if markers[0] in line:
            within = True
        elif markers[1] in line:
            within = False
        elif line.strip():
            (inside if within else outside).append(line.strip())
    return outside, inside


# --- how the notebooks are built --------------------------------------------------


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_points_of_each_test_cell_add_up_to_ten(assignment):
    points = {nbgrader_meta(cell)["grade_id"]: nbgrader_meta(cell)["points"]
              for cell in graded_cells(read("solutions", assignment))}
    assert points == ASSIGNMENTS[assignment].points
    assert sum(points.values()) == 10


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_each_test_cell_starts_with_a_docstring_and_ends_in_a_statement(assignment):
    for cell in graded_cells(read("solutions", assignment)):
        grade_id = nbgrader_meta(cell)["grade_id"]
        assert re.fullmatch(r"[a-z0-9]+(_[a-z0-9]+)+", grade_id), grade_id
        body = ast.parse(cell.source).body
        first, last = body[0], body[-1]
        assert isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant), grade_id
        assert first.value.value.startswith("Check that "), grade_id
        assert not isinstance(last, ast.Expr), f"{grade_id} ends in a bare expression (read as partial credit)"
        assert "### BEGIN HIDDEN TESTS" in cell.source, f"{grade_id} has no hidden tests"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_cell_has_a_stored_id(assignment):
    # a cell without an id gets a random one when read, and every regeneration
    # of exercises/ would then differ
    raw = json.loads((REPO / "solutions" / assignment / NOTEBOOKS[assignment]).read_text(encoding="utf-8"))
    ids = [cell.get("id") for cell in raw["cells"]]
    assert all(ids) and len(set(ids)) == len(ids), ids


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_notebooks_import_from_the_package_only_what_students_may_use(assignment):
    imported = set()
    for cell in read("solutions", assignment).cells:
        if cell.cell_type != "code":
            continue
        for node in ast.walk(ast.parse(cell.source)):
            if isinstance(node, ast.Import):
                assert all(not alias.name.startswith("gptcourse") for alias in node.names), cell.id
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("gptcourse"):
                assert node.module == "gptcourse", cell.id
                imported |= {alias.name for alias in node.names}
    assert imported == ASSIGNMENTS[assignment].allowed_imports


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_student_notebooks_hold_no_solution_code_and_no_hidden_tests(assignment):
    solutions = {cell.id: cell for cell in read("solutions", assignment).cells}
    exercises = read("exercises", assignment)
    assert [cell.id for cell in exercises.cells] == list(solutions)
    text = (REPO / "exercises" / assignment / NOTEBOOKS[assignment]).read_text(encoding="utf-8")
    for marker in (*HIDDEN, *SOLUTION):
        assert marker not in text
    for hidden_values in ASSIGNMENTS[assignment].hidden_values.values():
        for value in hidden_values:
            assert value not in text, value
    for cell in exercises.cells:
        meta = nbgrader_meta(cell)
        if not (meta.get("solution") or meta.get("grade")):
            continue
        if cell.cell_type == "markdown":  # the explain cell: its model answer is all secret
            assert cell.source == "YOUR ANSWER HERE", cell.source
            continue
        markers = SOLUTION if meta.get("solution") else HIDDEN
        outside, inside = split_regions(solutions[cell.id].source, markers)
        secret = set(inside) - set(outside)
        assert secret, f"{cell.id} has nothing to hide"
        shown = {line.strip() for line in cell.source.split("\n")}
        assert not secret & shown, f"{cell.id} shows {sorted(secret & shown)}"
        if meta.get("solution"):
            assert "raise NotImplementedError()" in cell.source


def test_exercises_are_regenerated_byte_for_byte_from_solutions(tmp_path):
    course = Path(copy_course(str(tmp_path / "course")))
    for assignment in ASSIGNMENTS:
        done = nbgrader(course, "generate_assignment", assignment, "--force")
        assert done.returncode == 0, done.stdout[-3000:]
    committed = sorted(p.relative_to(REPO) for p in (REPO / "exercises").rglob("*") if p.is_file())
    regenerated = sorted(p.relative_to(course) for p in (course / "exercises").rglob("*") if p.is_file())
    assert regenerated == committed
    for path in committed:
        assert (course / path).read_bytes() == (REPO / path).read_bytes(), (
            f"{path} is out of date: run `make release` and commit exercises/"
        )


# --- grading ----------------------------------------------------------------------


def _submissions(assignment):
    students = ASSIGNMENTS[assignment].students
    return {name: build_submission(assignment, student.answers, student.fill_solutions)
            for name, student in students.items()}


@pytest.fixture(scope="session")
def graded(tmp_path_factory):
    """{assignment: ({student: {grade_id: score}}, {student: {grade_id: message}})} from the
    course's grader, the assignments graded side by side."""

    def grade(assignment):
        course = Path(released_course(str(tmp_path_factory.mktemp(assignment) / "course")))
        return grade_batch(course, assignment, _submissions(assignment))

    with ThreadPoolExecutor(max_workers=len(ASSIGNMENTS)) as pool:
        futures = {assignment: pool.submit(grade, assignment) for assignment in ASSIGNMENTS}
        return {assignment: future.result() for assignment, future in futures.items()}


@pytest.fixture(scope="session")
def stock_graded(tmp_path_factory):
    """{assignment: (course directory, {student: {grade_id: score}})} from stock nbgrader."""

    def grade(assignment):
        course = Path(released_course(str(tmp_path_factory.mktemp("stock-" + assignment)
                                          / "course")))
        return course, grade_batch_with_stock_nbgrader(course, assignment, _submissions(assignment))

    with ThreadPoolExecutor(max_workers=len(ASSIGNMENTS)) as pool:
        futures = {assignment: pool.submit(grade, assignment) for assignment in ASSIGNMENTS}
        return {assignment: future.result() for assignment, future in futures.items()}


def _check_messages(assignment, student, messages):
    """Exactly the expected checks failed, each message with its words and no hidden value."""
    row = ASSIGNMENTS[assignment]
    students, hidden_values = row.students, row.hidden_values
    expected = students[student]
    assert set(messages) == set(expected.failures)
    for grade_id, words in expected.failures.items():
        if words is not None:
            assert words in messages[grade_id], messages[grade_id]
        for value in hidden_values.get(grade_id, []):
            assert value not in messages[grade_id], f"{grade_id} reveals {value}: {messages[grade_id]}"


def _expected_scores(assignment, student):
    points, students = ASSIGNMENTS[assignment].points, ASSIGNMENTS[assignment].students
    failures = students[student].failures
    return {grade_id: 0.0 if grade_id in failures else float(value)
            for grade_id, value in points.items()}


STUDENT_CASES = [(assignment, name) for assignment, row in ASSIGNMENTS.items() for name in row.students]


@pytest.mark.parametrize(("assignment", "student"), STUDENT_CASES, ids=[f"{a}-{s}" for a, s in STUDENT_CASES])
def test_each_student_earns_exactly_the_points_of_the_checks_they_pass(graded, assignment, student):
    scores, _ = graded[assignment]
    assert scores[student] == _expected_scores(assignment, student)
    assert sum(scores[student].values()) == ASSIGNMENTS[assignment].students[student].total


@pytest.mark.parametrize(("assignment", "student"), STUDENT_CASES, ids=[f"{a}-{s}" for a, s in STUDENT_CASES])
def test_failure_messages_name_the_mistake_and_hide_the_expected_values(graded, assignment, student):
    _, all_messages = graded[assignment]
    _check_messages(assignment, student, all_messages[student])


# a second check: stock nbgrader gives the same points and its own messages agree
@pytest.mark.parametrize(("assignment", "student"), STUDENT_CASES, ids=[f"{a}-{s}" for a, s in STUDENT_CASES])
def test_stock_nbgrader_gives_each_student_the_same_points(stock_graded, assignment, student):
    _, scores = stock_graded[assignment]
    assert scores[student] == _expected_scores(assignment, student)


@pytest.mark.parametrize(("assignment", "student"), STUDENT_CASES, ids=[f"{a}-{s}" for a, s in STUDENT_CASES])
def test_stock_nbgrader_failure_messages_name_the_mistake_and_hide_the_expected_values(
        stock_graded, assignment, student):
    course, _ = stock_graded[assignment]
    _check_messages(assignment, student, stock_failure_messages(course, assignment, student))


# --- what students read -------------------------------------------------------------

# nbgrader's Validate cuts every line of a traceback at 87 characters, its own
# 4-space indent included; "AssertionError: " takes 16 more on the first line.
VALIDATE_LINE = 87 - 4
FIRST_LINE = VALIDATE_LINE - len("AssertionError: ")
PLACEHOLDER = "x" * 10  # an f-string field, at a typical width


def _static_text(node):
    """The text of a message node, f-string fields as placeholders; None if not a string."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(part.value if isinstance(part, ast.Constant) else PLACEHOLDER
                       for part in node.values)
    return None


def _messages(source):
    """Every assertion message of a test cell: assert messages and raised AssertionErrors."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assert) and node.msg is not None:
            yield node.lineno, node.msg
        elif (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)
              and getattr(node.exc.func, "id", None) == "AssertionError" and node.exc.args):
            yield node.lineno, node.exc.args[0]


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_each_failure_message_puts_its_hint_within_validates_line_width(assignment):
    for cell in graded_cells(read("solutions", assignment)):
        grade_id = nbgrader_meta(cell)["grade_id"]
        for line, node in _messages(cell.source):
            text = _static_text(node)
            if text is None:  # a computed message (shape_hint): checked where it is built
                continue
            lines = text.split("\n")
            assert len(lines[0]) <= FIRST_LINE, f"{grade_id} line {line}: {lines[0]!r} is cut by Validate"
            for rest in lines[1:]:
                assert len(rest) <= VALIDATE_LINE, f"{grade_id} line {line}: {rest!r} is cut by Validate"


def test_each_shape_hint_fits_validates_line_width():
    nb = read("solutions", "logits-to-text")
    source = next(cell.source for cell in graded_cells(nb)
                  if nbgrader_meta(cell)["grade_id"] == "next_token_ids_shape_and_dtype")
    hint = next(node for node in ast.walk(ast.parse(source))
                if isinstance(node, ast.FunctionDef) and node.name == "shape_hint")
    returned = [_static_text(node.value) for node in ast.walk(hint) if isinstance(node, ast.Return)]
    assert len(returned) == 5 and all(returned)
    assert all(len(text) <= FIRST_LINE for text in returned), returned


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_no_assertion_of_a_check_sits_inside_a_try_or_with_block(assignment):
    # a failing assertion inside try/finally or a with block shows the clean-up line
    # in Jupyter's traceback; the checks call answers inside those blocks and assert after
    for cell in graded_cells(read("solutions", assignment)):
        grade_id = nbgrader_meta(cell)["grade_id"]
        for node in ast.walk(ast.parse(cell.source)):
            if isinstance(node, (ast.Try, ast.With)):
                inner = [n for n in ast.walk(node) if isinstance(n, ast.Assert)]
                assert inner == [], f"{grade_id} line {inner[0].lineno} asserts inside a block"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_section_asking_for_a_package_function_says_that_using_it_earns_nothing(assignment):
    cells = read("exercises", assignment).cells
    for answer in ASSIGNMENTS[assignment].package_answers:
        index = next(i for i, cell in enumerate(cells) if nbgrader_meta(cell).get("grade_id") == answer)
        before = [cell.source for cell in cells[:index] if cell.cell_type == "markdown"]
        section = before[-1]
        for source in reversed(before):
            if source.startswith("## "):
                section = source
                break
        text = "\n".join(before[before.index(section):])
        assert "earns nothing" in text and "Write your own" in text, answer


def test_generation_checks_use_a_reference_greedy_step_and_restore_the_students():
    nb = read("solutions", "logits-to-text")
    for cell in graded_cells(nb):
        grade_id = nbgrader_meta(cell)["grade_id"]
        if not grade_id.startswith(("generate_text_simple", "generate_until")):
            continue
        source = cell.source
        assert source.count("student_next_token_ids = next_token_ids") == 2, grade_id  # visible, hidden
        assert source.count("next_token_ids = student_next_token_ids") == 2, grade_id
        assert source.count('"""The reference greedy step (used while this check runs)."""') == 2

