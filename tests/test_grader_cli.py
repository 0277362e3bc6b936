"""Does `python -m grader` tell the instructor's mistakes (exit 2) from students' (exit 0)?

Also unit checks of the pieces that need no sandbox: reading broken files,
building the notebook to run from the instructor's copy, the runner's
snapshot, the feedback preprocessor and the one-transaction gradebook writer.
"""

import json
import os
import shutil
import subprocess
import sys

import nbformat
import pytest

import grader_fixtures as fx
from grader.feedback import HideTestCode
from grader.notebooks import Unreadable, build_plan, read_submission, released_source
from grader.sandbox import death_reason, Limits


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    return fx.make_course(str(tmp_path_factory.mktemp("cli") / "course"))


def grader(*args, cwd):
    return subprocess.run([sys.executable, "-m", "grader", *args], cwd=cwd,
                          env=fx.nbgrader_env(), capture_output=True, text=True, timeout=120)


def test_an_unknown_assignment_is_the_instructors_error(course):
    result = grader("autograde", "no-such-assignment", cwd=course)
    assert result.returncode == 2
    assert "unknown assignment 'no-such-assignment'" in result.stderr


def test_a_folder_without_nbgrader_config_is_the_instructors_error(tmp_path):
    result = grader("autograde", "tiny", cwd=str(tmp_path))
    assert result.returncode == 2
    assert "no nbgrader_config.py" in result.stderr


def test_an_assignment_not_released_into_the_gradebook_is_the_instructors_error(course, tmp_path):
    other = str(tmp_path / "course")
    shutil.copytree(os.path.join(course, "source"), os.path.join(other, "source"))
    shutil.copy(os.path.join(course, "nbgrader_config.py"), other)
    os.makedirs(os.path.join(other, "course-data"))
    result = grader("autograde", "tiny", cwd=other)
    assert result.returncode == 2
    assert "not in the gradebook" in result.stderr and "make release" in result.stderr


def test_a_broken_config_is_the_instructors_error(tmp_path):
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\nc.Execute.timeout = (\n")
    result = grader("autograde", "tiny", cwd=str(tmp_path))
    assert result.returncode == 2
    assert "nbgrader_config.py could not be loaded" in result.stderr


def test_a_bad_shard_is_refused(course):
    result = grader("autograde", "tiny", "--shard", "3/2", cwd=course)
    assert result.returncode == 2
    assert "K must be between 1 and N" in result.stderr


def test_no_submissions_is_not_an_error(course):
    result = grader("autograde", "tiny", cwd=course)
    assert result.returncode == 0, result.stderr
    assert "0 submission(s)" in result.stderr


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


def test_feedback_preprocessor_keeps_docstring_and_message_only():
    nb = fx.instructor_notebook()
    cell = nb.cells[4]
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="debug 84"),
                    nbformat.v4.new_output("error", ename="AssertionError",
                                           evalue="double gave a wrong value",
                                           traceback=["long", "traceback", fx.HIDDEN_MARK])]
    out, _ = HideTestCode().preprocess_cell(cell, {}, 4)
    assert out.source == '"""Check that double doubles numbers it has not seen"""'
    assert len(out.outputs) == 1
    assert out.outputs[0].traceback == ["AssertionError: double gave a wrong value"]


def test_death_reasons_are_plain_words():
    limits = Limits(memory_mib=1024)
    assert death_reason(-11, limits) == "kernel died (segmentation fault)"
    assert death_reason(128 + 9, limits).startswith("kernel died (killed")
    assert "1024 MiB" in death_reason(-9, limits)
    assert death_reason(0, limits).startswith("kernel exited (exit status 0)")


def test_a_failure_while_recording_leaves_the_gradebook_as_it_was(course):
    from grader.record import record_in_gradebook

    tests = [{"grade_id": g, "points": p, "max_points": p, "status": "passed", "message": ""}
             for g, p in fx.POINTS.items()]
    tests[-1]["points"] = "not a number"  # fails half way through the student's grades
    record = {"student": "halfway", "assignment": "tiny", "notes": [],
              "notebooks": [{"notebook": "tiny", "status": "graded", "tests": tests}]}
    url = "sqlite:///" + os.path.join(course, "course-data", "gradebook.db")
    with pytest.raises(ValueError):
        record_in_gradebook(url, "tinycourse", record, None)
    assert "halfway" not in fx.gradebook_scores(course)
    tests[-1]["points"] = 1.0
    record_in_gradebook(url, "tinycourse", record, None)
    record_in_gradebook(url, "tinycourse", record, None)  # again: overwritten, not doubled
    assert fx.gradebook_scores(course)["halfway"] == fx.POINTS
    from nbgrader.api import Gradebook

    with Gradebook(url) as gb:
        assert len(gb.find_submission("tiny", "halfway").notebooks[0].grades) == 4


def test_cells_a_student_added_run_after_their_answer_up_to_a_limit():
    from grader.notebooks import MAX_EXTRA_CELLS

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
    assert any("5 code cells added after 'ones_answer' were not run" in n for n in plan.notes)
