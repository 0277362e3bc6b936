"""Matching a submission's cells to the instructor's: a markdown cell moved anywhere changes
nothing about the run, and a notebook saved without its nbgrader metadata is matched to the
release or not graded, for one reason."""

import json

import nbformat
import pytest

from grader.plan import build_plan
from testsupport.assignments import ASSIGNMENTS


def run_order(plan):
    """(kind, grade_id, source) of every code cell of a plan, in the order they run."""
    return [(c.kind, c.grade_id, c.source) for c in plan.cells
            if c.kind in ("setup", "solution", "extra", "test")]


def moved(cells, grade_id, distance):
    """`cells` with the cell `grade_id` moved `distance` places (up when negative)."""
    cells = list(cells)
    at = next(i for i, c in enumerate(cells)
              if c["metadata"].get("nbgrader", {}).get("grade_id") == grade_id)
    cell = cells.pop(at)
    cells.insert(max(0, at + distance), cell)
    return cells


@pytest.mark.parametrize("grade_id, distance", [
    ("tied-intro", -3), ("tied-intro", -12), ("size-intro", -20), ("meta-task", -1),
    ("count-parameters-intro", 4), ("output-shape-task", 9), ("values-intro", 15),
    ("intro", 30), ("outro", -31)])
def test_a_markdown_cell_moved_anywhere_changes_nothing_about_the_run(grade_id, distance):
    from testsupport.honest_students import markdown, solved

    instructor = nbformat.reads(json.dumps(fx_read("solutions")), as_version=4)
    submission = solved("parameters")
    submission["cells"].insert(7, markdown("My own notes, added by me."))
    expected = run_order(build_plan(instructor, submission))
    submission["cells"] = moved(submission["cells"], grade_id, distance)
    plan = build_plan(instructor, submission)
    assert run_order(plan) == expected
    assert plan.notes == []
    # the graded notebook shows every cell in the instructor's order, answers below their text
    assert [c.grade_id for c in plan.cells if c.grade_id] == [
        c.metadata["nbgrader"]["grade_id"] for c in instructor.cells]
    texts = [c.source for c in plan.cells if c.kind == "markdown"]
    assert "My own notes, added by me." in texts  # the student's own text is kept


def fx_read(folder):
    from testsupport.course import read_notebook

    return read_notebook(folder, "parameters")


def released_cells_of(nb):
    """{grade_id: cell} of a notebook's cells that have nbgrader metadata."""
    return {c["metadata"]["nbgrader"]["grade_id"]: c for c in nb["cells"]
            if c.get("metadata", {}).get("nbgrader", {}).get("grade_id")}


@pytest.mark.parametrize("assignment", list(ASSIGNMENTS))
@pytest.mark.parametrize("editor", ["colab_saved", "vscode_saved"])
def test_a_notebook_saved_without_nbgrader_metadata_is_matched_to_the_release(editor,
                                                                               assignment):
    from testsupport import editors
    from testsupport.course import read_notebook
    from testsupport.honest_students import code, solved
    from grader.plan import parse_submission, with_metadata_restored
    from grader.plan.matching import METADATA_MATCHED

    instructor = nbformat.reads(json.dumps(read_notebook("solutions", assignment)),
                                as_version=4)
    nb = solved(assignment)
    expected = run_order(build_plan(instructor, nb))
    nb["cells"].insert(3, code("print('a scratch cell of my own')"))
    submission = parse_submission(getattr(editors, editor)(nb))
    assert not any(c["metadata"].get("nbgrader") for c in submission["cells"])
    restored = with_metadata_restored(instructor, submission)
    assert set(released_cells_of(restored)) == set(released_cells_of(nb))
    plan = build_plan(instructor, restored)
    order = [cell for cell in run_order(plan) if cell[0] != "extra"]
    assert order == expected
    assert plan.notes == [METADATA_MATCHED]
    assert not any("earns nothing" in note for note in plan.notes)


def test_a_notebook_without_metadata_that_cannot_be_matched_is_not_graded_for_one_reason():
    from testsupport import editors
    from testsupport.course import read_notebook
    from testsupport.honest_students import code, position, solved
    from grader.plan import Unreadable, parse_submission, with_metadata_restored

    instructor = nbformat.reads(json.dumps(read_notebook("solutions", "parameters")),
                                as_version=4)
    nb = solved("parameters")
    at = position(nb, "count_parameters_answer")
    nb["cells"].insert(at, code("def count_parameters(model):\n    return 0  # a first try\n"))
    with pytest.raises(Unreadable) as problem:
        with_metadata_restored(instructor, parse_submission(editors.colab_saved(nb)))
    assert str(problem.value) == (
        "not graded: its nbgrader metadata is gone (an editor such as Colab drops it) and "
        f"cells {at + 1}, {at + 2} could each be the answer 'count_parameters_answer': each "
        f"defines count_parameters between the released cell 'output_shape' (cell {at - 1}) and the "
        f"released cell 'count_parameters_unseen_configs' (cell {at + 3}); paste your answers "
        "into the answer cells of the released notebook and hand that in")
    stranger = {"cells": [code("print('my own notebook')")], "metadata": {}, "nbformat": 4,
                "nbformat_minor": 5}
    with pytest.raises(Unreadable, match="none of its cells is a cell of the released notebook"):
        with_metadata_restored(instructor, parse_submission(json.dumps(stranger).encode()))


def answer_sources(nb):
    """{grade_id: source} of a notebook's answer cells (nbgrader solution cells)."""
    return {c["metadata"]["nbgrader"]["grade_id"]: "".join(c["source"]) for c in nb["cells"]
            if c.get("metadata", {}).get("nbgrader", {}).get("solution")}


@pytest.mark.parametrize("assignment", list(ASSIGNMENTS))
def test_a_colab_notebook_on_the_per_student_release_has_each_answer_where_the_release_has_it(
        assignment):
    """Typed id, a look at the model, a helper binding the answer's own loop variable and a
    scratch cell binding the answer's intermediate name, beside the answers they help."""
    from testsupport.course import read_notebook
    from testsupport.honest_students import colab_notebook, colab_student, solved
    from grader.plan import parse_submission, with_metadata_restored
    from grader.plan.matching import METADATA_MATCHED

    instructor = nbformat.reads(json.dumps(read_notebook("solutions", assignment)),
                                as_version=4)
    student = f"colab-{assignment}"
    written = colab_notebook(assignment, student)
    restored = with_metadata_restored(instructor, parse_submission(
        colab_student(assignment, student)))
    assert answer_sources(restored) == answer_sources(written)
    added = [c["source"] for c in restored["cells"] if not c["metadata"].get("nbgrader")]
    # each cell the Colab student added or changed, answers aside, is left the student's
    released = {"".join(c["source"]) for c in solved(assignment)["cells"]}
    assert len(added) == len([c for c in written["cells"] if "".join(c["source"]) not in released
                              and not c["metadata"].get("nbgrader", {}).get("solution")])
    assert build_plan(instructor, restored).notes == [METADATA_MATCHED]


def test_a_check_dragged_to_the_end_of_a_notebook_without_metadata_anchors_nothing():
    from testsupport import editors
    from testsupport.honest_students import position, solved
    from grader.plan import parse_submission, with_metadata_restored

    instructor = nbformat.reads(json.dumps(fx_read("solutions")), as_version=4)
    nb = solved("parameters")
    nb["cells"].append(nb["cells"].pop(position(nb, "count_parameters_unseen_configs")))
    restored = with_metadata_restored(instructor, parse_submission(editors.colab_saved(nb)))
    assert answer_sources(restored) == answer_sources(nb)


def test_two_answers_out_of_the_released_order_are_refused_saying_where():
    from testsupport import editors
    from testsupport.honest_students import code, position, solved
    from grader.plan import Unreadable, parse_submission, with_metadata_restored

    instructor = nbformat.reads(json.dumps(fx_read("solutions")), as_version=4)
    nb = solved("parameters")
    del nb["cells"][position(nb, "output_shape")]  # the check between the two answers
    first = position(nb, "output_shape_answer")
    nb["cells"].insert(first, code("x = 1  # a scratch cell"))
    shape, count = nb["cells"][first + 1], nb["cells"][position(nb, "count_parameters_answer")]
    shape["source"], count["source"] = count["source"], shape["source"]
    with pytest.raises(Unreadable, match=r"its answers in cells \d+, \d+ are not in the "
                                         r"released order between the released cell "
                                         r"'output-shape-batch' \(cell \d+\) and"):
        with_metadata_restored(instructor, parse_submission(editors.colab_saved(nb)))


def test_checks_changed_on_the_way_to_colab_are_still_the_checks_their_docstrings_name():
    """Every check's text changed (an added print, a lost line): each is still found by its
    docstring, each answer still stands between them, and the instructor's checks run."""
    from testsupport import editors
    from testsupport.honest_students import solved
    from grader.plan import parse_submission, with_metadata_restored
    from grader.plan.matching import METADATA_MATCHED

    instructor = nbformat.reads(json.dumps(fx_read("solutions")), as_version=4)
    nb = solved("parameters")
    checks = [c for c in nb["cells"] if c["metadata"]["nbgrader"].get("grade")
              and not c["metadata"]["nbgrader"].get("solution")]  # not the explain answer
    for cell in checks:
        cell["source"] = "".join(cell["source"]).rstrip() + "\nprint('checked')\n"
    restored = with_metadata_restored(instructor, parse_submission(editors.colab_saved(nb)))
    assert answer_sources(restored) == answer_sources(nb)
    plan = build_plan(instructor, restored)
    grade_ids = [c["metadata"]["nbgrader"]["grade_id"] for c in checks]
    assert plan.notes == [METADATA_MATCHED] + [
        f"test cell '{g}' was modified and restored" for g in grade_ids]
    assert not [c for c in plan.cells if c.kind == "extra"]  # no edited check runs as code
