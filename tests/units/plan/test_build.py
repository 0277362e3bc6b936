"""Building the notebook to run from the instructor's copy: only the answers come from the
student, cells a student added run where they stand up to a limit, and a plan is built
from cells of any JSON shape."""

import json

import nbformat

from testsupport import tiny_course as fx
from grader.plan import build_plan, read_submission


def test_the_run_takes_only_answers_from_the_student():
    instructor = fx.instructor_notebook()
    submission = json.loads(nbformat.writes(instructor))
    for cell in submission["cells"]:
        meta = cell["metadata"]["nbgrader"]
        if meta["grade_id"] == "double_answer":
            cell["source"] = "def double(x):\n    return 'mine'\n"
        elif meta.get("grade"):
            cell["source"] = "pass  # my own test"
        elif meta["grade_id"] == "setup":
            cell["source"] = "import os"
    plan = build_plan(instructor, submission)
    by_id = {c.grade_id: c for c in plan.cells}
    assert by_id["double_answer"].source == "def double(x):\n    return 'mine'\n"
    assert by_id["setup"].source == instructor.cells[1].source
    assert fx.HIDDEN_MARK in by_id["double_hidden"].source
    assert [c.points for c in plan.cells if c.kind == "test"] == [1.0, 2.0, 2.0, 1.0]
    assert sum("was modified and restored" in n for n in plan.notes) == 4


def test_cells_a_student_added_run_where_they_stand_up_to_a_limit():
    from grader.plan import MAX_EXTRA_CELLS

    instructor = fx.instructor_notebook()
    submission = json.loads(nbformat.writes(instructor))
    position = next(i for i, c in enumerate(submission["cells"])
                    if c["metadata"]["nbgrader"]["grade_id"] == "ones_answer")
    added = [{"cell_type": "code", "metadata": {}, "outputs": [], "source": f"value_{i} = {i}"}
             for i in range(MAX_EXTRA_CELLS + 5)]
    submission["cells"][position + 1:position + 1] = added
    plan = build_plan(instructor, submission)
    kinds = [(c.kind, c.grade_id) for c in plan.cells]
    start = kinds.index(("solution", "ones_answer")) + 1
    assert kinds[start:start + MAX_EXTRA_CELLS] == [("extra", None)] * MAX_EXTRA_CELLS
    assert kinds[start + MAX_EXTRA_CELLS] == ("test", "ones_values")
    skipped = [n for n in plan.notes if "was not run (at most" in n]
    assert len(skipped) == 5
    assert skipped[0] == (f"cell {position + MAX_EXTRA_CELLS + 2} (added by the student) was not "
                          f"run (at most {MAX_EXTRA_CELLS} added code cells run)")


def test_a_plan_is_built_from_any_json_shape():
    instructor = fx.instructor_notebook()
    for cells in ([], [5, None], [{"metadata": 5}], [{"cell_type": "code", "source": [None]}]):
        plan = build_plan(instructor, {"cells": cells})
        assert [c.grade_id for c in plan.cells if c.kind == "test"] == list(fx.POINTS)
        assert all(c.source == "" for c in plan.cells if c.kind == "solution")


def test_read_submission_repairs_the_cells_and_keeps_the_file(tmp_path):
    path = tmp_path / "nb.ipynb"
    content = json.dumps({"cells": [1, {"metadata": {"nbgrader": {"grade_id": ["x"]}}}]})
    path.write_text(content)
    nb = read_submission(str(path))
    plan = build_plan(fx.instructor_notebook(), nb)
    assert "cell 1 is not a notebook cell (int); ignored" in plan.notes
    assert any("unreadable grade_id (['x'])" in n for n in plan.notes)
    assert path.read_text() == content
