"""Reading a submission and building the notebook to run from the instructor's copy.

Broken files are named in plain words; only the answers come from the student; cells
of any JSON shape are repaired or reported; links are never followed.
"""

import json

import nbformat
import pytest

from testsupport import tiny_course as fx
from grader.cells import released_source
from grader.plan import Unreadable, build_plan, read_submission
from grader.plan import submission_link_problem
from grader.plan.submission import normalised_cells


@pytest.mark.parametrize("content, words", [
    (b"", "empty file"),
    (b"   \n", "empty file"),
    (b"{\"cells\": [", "truncated"),
    (b"not json at all", "not JSON"),
    (b"<html><body>a page</body></html>", "HTML, not a notebook"),
    (b"[1, 2, 3]", "no cells"),
    (b"{\"cells\": 5}", "no cells"),
    (b"\xff\xfe\x00garbage", "not UTF-8"),
])
def test_unreadable_files_are_named_in_plain_words(tmp_path, content, words):
    path = tmp_path / "nb.ipynb"
    path.write_bytes(content)
    with pytest.raises(Unreadable, match=words):
        read_submission(str(path))
    assert path.read_bytes() == content


def test_a_symbolic_link_is_never_followed(tmp_path):
    target = tmp_path / "secret.ipynb"
    target.write_text(json.dumps({"cells": []}))
    link = tmp_path / "nb.ipynb"
    link.symlink_to(target)
    with pytest.raises(Unreadable, match="symbolic link"):
        read_submission(str(link))


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


def test_released_source_drops_the_hidden_block():
    source = fx.instructor_notebook().cells[4].source
    assert fx.HIDDEN_MARK not in released_source(source)
    assert released_source(source).startswith('"""Check that double doubles')


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


def test_normalised_cells_give_every_cell_the_shapes_the_grader_reads():
    cells, notes = normalised_cells([
        3, {"cell_type": "code", "metadata": [], "source": ["a", 1]},
        {"cell_type": "code", "id": 5, "metadata": {"nbgrader": {"grade_id": {"x": 1},
                                                                  "points": 1}},
         "source": ["x = ", "'\ud800'"]}])
    assert len(cells) == 2 and len(notes) == 4
    assert cells[0]["metadata"] == {} and cells[0]["source"] == ""
    assert "id" not in cells[1]
    assert cells[1]["metadata"] == {"nbgrader": {"points": 1}}
    assert cells[1]["source"] == "x = '\\ud800'"


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


def test_every_path_component_of_a_submission_is_checked_for_links(tmp_path):
    (tmp_path / "a" / "hw").mkdir(parents=True)
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "hw").symlink_to(tmp_path / "a" / "hw")
    (tmp_path / "c").symlink_to(tmp_path / "a")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "hw").write_text("a file")
    assert submission_link_problem(str(tmp_path), "a", "hw") is None
    assert "symbolic link" in submission_link_problem(str(tmp_path), "b", "hw")
    assert "symbolic link" in submission_link_problem(str(tmp_path), "c", "hw")
    assert "not a folder" in submission_link_problem(str(tmp_path), "d", "hw")


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


@pytest.mark.parametrize("assignment", ["parameters", "logits-to-text"])
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
        f"cells {at + 1}, {at + 2} could each be the answer 'count_parameters_answer'; paste "
        "your answers into the answer cells of the released notebook and hand that in")
    stranger = {"cells": [code("print('my own notebook')")], "metadata": {}, "nbformat": 4,
                "nbformat_minor": 5}
    with pytest.raises(Unreadable, match="none of its cells is a cell of the released notebook"):
        with_metadata_restored(instructor, parse_submission(json.dumps(stranger).encode()))
