"""Does one strange submission ever stop the batch, crash the writer or escape its limits?

One session-wide batch grades the tiny assignment for an honest student and a
set of submissions built to break the grader: text that cannot be written as
UTF-8, a file name that is not UTF-8, notebook JSON of the wrong shapes,
points too large for a float, folders that are symbolic links to the
instructor's solutions, and cells that try to fill every writable folder.
Each must get a clear reason in the report while everyone else is graded
normally, the batch must exit 0, and the submitted files must stay byte for
byte. The unit checks of the pieces (no sandbox needed) are in tests/units/.
"""

import json
import os
import subprocess
import sys

import nbformat
import pytest

from testsupport import tiny_course as fx
from testsupport.gradebook import gradebook_scores
from testsupport.hand_in import hand_in
from grader.files import owner_tag

TMPFS_MIB = 8  # each writable folder of a sandbox in this batch
FILL_CELL = '''import json, os
written = {}
for place in ("/tmp", "/home/student", ".", "/dev/shm"):
    total, error = 0, "no error"
    try:
        for i in range(64):
            with open(f"{place}/fill{i}.bin", "wb") as handle:
                handle.write(b"\\0" * (1 << 20))
            total += 1
    except OSError as problem:
        error = problem.strerror
    written[place] = (total, error)
print("WRITTEN", json.dumps(written))
'''


def _notebook_with(released, position_id, new_cell):
    """`released` JSON with `new_cell` inserted right after the cell `position_id`."""
    nb = fx.correct(released)
    position = next(i for i, c in enumerate(nb["cells"]) if fx.grade_id(c) == position_id)
    nb["cells"].insert(position + 1, new_cell)
    return nb


def _submissions(root):
    """{student: expected score} after handing in every submission of the batch."""
    released = fx.released(root)
    submitted = os.path.join(root, "course-data", "submitted")
    expected = {}

    hand_in(root, "honest", fx.ASSIGNMENT, {"tiny.ipynb": fx.correct(released)})
    expected["honest"] = fx.MAX_SCORE

    # a message holding a lone surrogate: the double tests fail, the rest pass
    hand_in(root, "surrogate-message", fx.ASSIGNMENT, {"tiny.ipynb": fx.correct(
        released, double_answer="def double(x):\n    raise ValueError('bad ' + chr(0xD800))\n")})
    expected["surrogate-message"] = fx.MAX_SCORE - 3

    # a lone surrogate in the JSON itself (a comment of an answer)
    nb = fx.correct(released, answer_answer="answer = 42  # \ud800 odd\n")
    hand_in(root, "surrogate-source", fx.ASSIGNMENT,
               {"tiny.ipynb": json.dumps(nb, ensure_ascii=True).encode("ascii")})
    expected["surrogate-source"] = fx.MAX_SCORE

    # an extra notebook whose name is Latin-1 (from an unpacked zip)
    folder = hand_in(root, "latin1-name", fx.ASSIGNMENT, {"tiny.ipynb": fx.correct(released)})
    with open(os.path.join(os.fsencode(folder), b"Kopie von tiny \xe9.ipynb"), "wb") as handle:
        handle.write(json.dumps(fx.correct(released)).encode())
    expected["latin1-name"] = fx.MAX_SCORE

    # an added cell whose grade_id is a list (unhashable)
    hand_in(root, "grade-id-list", fx.ASSIGNMENT, {"tiny.ipynb": _notebook_with(released, "double_answer", {
        "cell_type": "code", "id": "x1", "metadata": {"nbgrader": {"grade_id": ["oops"]}},
        "source": "print('extra')", "outputs": [], "execution_count": None})})
    expected["grade-id-list"] = fx.MAX_SCORE

    # a cell without an id whose metadata is a number, and other wrong shapes
    nb = fx.correct(released)
    nb["cells"] += [{"cell_type": "code", "metadata": 5, "source": "", "outputs": []},
                    5, "not a cell", None, [1, 2],
                    {"cell_type": 7, "metadata": {"nbgrader": [1]}, "source": [1, None]},
                    {"cell_type": "code", "metadata": {"nbgrader": "x"}, "source": {"a": 1}}]
    hand_in(root, "wrong-shapes", fx.ASSIGNMENT, {"tiny.ipynb": nb})
    expected["wrong-shapes"] = fx.MAX_SCORE

    # points with 400 digits on a test cell (too large for a float)
    nb = fx.correct(released)
    for cell in nb["cells"]:
        if fx.grade_id(cell) == "answer_value":
            cell["metadata"]["nbgrader"]["points"] = int("9" * 400)
    hand_in(root, "points-overflow", fx.ASSIGNMENT, {"tiny.ipynb": nb})
    expected["points-overflow"] = fx.MAX_SCORE

    # cells that are not a list: nothing to grade
    hand_in(root, "cells-not-list", fx.ASSIGNMENT, {"tiny.ipynb": {"cells": {"0": "x"}, "metadata": {},
                                                       "nbformat": 4, "nbformat_minor": 5}})
    expected["cells-not-list"] = 0.0

    # the assignment folder is a link to the instructor's solutions
    os.makedirs(os.path.join(submitted, "linked-assignment"))
    os.symlink(os.path.join(root, "source", fx.ASSIGNMENT),
               os.path.join(submitted, "linked-assignment", fx.ASSIGNMENT))
    expected["linked-assignment"] = 0.0

    # the student folder is a link to another student's folder
    os.symlink(os.path.join(submitted, "honest"), os.path.join(submitted, "linked-student"))
    expected["linked-student"] = 0.0

    # a student folder whose name is not UTF-8: no gradebook id can hold it
    folder = os.path.join(os.fsencode(submitted), b"caf\xe9", fx.ASSIGNMENT.encode())
    os.makedirs(folder)
    with open(os.path.join(folder, b"tiny.ipynb"), "wb") as handle:
        handle.write(json.dumps(fx.correct(released)).encode())
    expected["caf\\udce9"] = 0.0  # reported under the escaped name

    # a cell that writes to every writable folder until it is full
    hand_in(root, "disk-fill", fx.ASSIGNMENT, {"tiny.ipynb": _notebook_with(released, "answer_answer", {
        "cell_type": "code", "metadata": {}, "source": FILL_CELL, "outputs": []})})
    expected["disk-fill"] = fx.MAX_SCORE
    return expected


@pytest.fixture(scope="session")
def batch(tmp_path_factory):
    """The course after grading every submission twice (the second time: two of them)."""
    base = tmp_path_factory.mktemp("robust")
    root = fx.make_course(str(base / "course"))
    expected = _submissions(root)
    submitted = os.path.join(root, "course-data", "submitted")
    before = fx.tree_hashes(submitted)
    temp = base / "tmp"  # the graders' temporary folder, to look for leftovers
    temp.mkdir()
    host = owner_tag().split("-")[0]
    stale = temp / f"grader-run-{host}-999999999-1-abc"  # left by a grader that was killed
    (stale / "grader-x").mkdir(parents=True)
    live = temp / f"grader-run-{owner_tag()}-abc"
    live.mkdir()  # a grader that is still running (this process)
    env = dict(fx.nbgrader_env(), TMPDIR=str(temp))
    command = [sys.executable, "-m", "grader", "autograde", fx.ASSIGNMENT,
               "--tmpfs-mib", str(TMPFS_MIB)]
    first = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True,
                           timeout=900)
    first_scores = gradebook_scores(root, fx.ASSIGNMENT)
    first_report = fx.report(root)
    again = subprocess.run(command + ["--students", "surrogate-message,honest"], cwd=root,
                           env=env, capture_output=True, text=True, timeout=300)
    return {"root": root, "expected": expected, "first": first, "again": again,
            "before": before, "after": fx.tree_hashes(submitted), "scores": first_scores,
            "report": first_report, "temp": temp, "stale": stale, "live": live,
            "scores_again": gradebook_scores(root, fx.ASSIGNMENT)}


def _notes(rows):
    return [row["message"] for row in rows if row["status"] == "note"]


def _total(rows):
    return sum(float(row["points"]) for row in rows if row["grade_id"])


def test_the_batch_exits_0_and_grades_every_student(batch):
    assert batch["first"].returncode == 0, batch["first"].stderr
    assert batch["again"].returncode == 0, batch["again"].stderr
    assert set(batch["report"]) == set(batch["expected"])


def test_every_student_gets_what_the_honest_work_earns_and_no_more(batch):
    for student, expected in batch["expected"].items():
        rows = batch["report"][student]
        assert _total(rows) == expected, (student, rows)
        assert _total(rows) <= fx.MAX_SCORE
    scores = batch["scores"]
    assert scores["honest"] == fx.POINTS
    for student in ("linked-assignment", "linked-student", "cells-not-list"):
        assert set(scores[student].values()) == {0.0}, student
    assert sum(scores["surrogate-message"].values()) == fx.MAX_SCORE - 3


def test_grading_again_gives_identical_scores(batch):
    for student in ("honest", "surrogate-message"):
        assert batch["scores_again"][student] == batch["scores"][student]


def test_submitted_files_are_unchanged_byte_for_byte(batch):
    assert batch["after"] == batch["before"]


def test_a_message_that_is_not_valid_unicode_is_written_escaped(batch):
    rows = batch["report"]["surrogate-message"]
    failed = [r for r in rows if r["grade_id"] in ("double_visible", "double_hidden")]
    assert all(r["status"] == "failed" and "bad \\ud800" in r["message"] for r in failed)
    path = os.path.join(batch["root"], "course-data", "autograded", "surrogate-message",
                        fx.ASSIGNMENT, fx.NOTEBOOK + ".ipynb")
    with open(path, encoding="utf-8") as handle:
        assert "bad \\\\ud800" in handle.read()  # the escape, itself escaped by JSON


def test_source_that_is_not_valid_unicode_is_run_and_written_escaped(batch):
    path = os.path.join(batch["root"], "course-data", "autograded", "surrogate-source",
                        fx.ASSIGNMENT, fx.NOTEBOOK + ".ipynb")
    nb = nbformat.read(path, as_version=4)
    assert any("answer = 42  # \\ud800 odd" in cell.source for cell in nb.cells)


def test_an_extra_notebook_with_a_latin1_name_is_reported(batch):
    notes = _notes(batch["report"]["latin1-name"])
    assert "extra notebook 'Kopie von tiny \\udce9.ipynb' was not graded" in notes


def test_garbled_cells_are_reported_and_the_rest_graded(batch):
    notes = _notes(batch["report"]["grade-id-list"])
    assert any("unreadable grade_id (['oops'])" in n for n in notes), notes
    notes = " | ".join(_notes(batch["report"]["wrong-shapes"]))
    for words in ("had unreadable metadata", "is not a notebook cell (int)",
                  "is not a notebook cell (str)", "is not a notebook cell (NoneType)",
                  "is not a notebook cell (list)", "no readable cell type",
                  "unreadable nbgrader metadata", "source is not text"):
        assert words in notes, words


def test_points_too_large_for_a_float_are_reported_not_used(batch):
    notes = _notes(batch["report"]["points-overflow"])
    assert any(n.startswith("points of 'answer_value' were changed to 999") and
               n.endswith("the instructor's 1 apply") for n in notes), notes


def test_a_student_folder_name_that_is_not_utf8_is_reported_not_recorded(batch):
    rows = batch["report"]["caf\\udce9"]
    assert "the student folder's name is not valid UTF-8 text; not graded" in _notes(rows)
    assert not [s for s in batch["scores"] if s.startswith("caf")]


def test_cells_that_are_not_a_list_are_reported(batch):
    rows = batch["report"]["cells-not-list"]
    assert {r["notebook_status"] for r in rows if r["grade_id"]} == {"unreadable"}
    assert all("no cells" in r["message"] for r in rows if r["grade_id"])


@pytest.mark.parametrize("student", ["linked-assignment", "linked-student"])
def test_a_submission_folder_that_is_a_link_is_not_graded(batch, student):
    rows = batch["report"][student]
    assert "submission folder is a symbolic link; not graded" in _notes(rows)
    assert all(r["status"] == "not run" for r in rows if r["grade_id"])
    autograded = os.path.join(batch["root"], "course-data", "autograded", student)
    assert not [p for p in fx.all_files(autograded) if p.endswith(".ipynb")]


def test_every_writable_folder_of_the_sandbox_is_limited_in_size(batch):
    path = os.path.join(batch["root"], "course-data", "autograded", "disk-fill",
                        fx.ASSIGNMENT, fx.NOTEBOOK + ".ipynb")
    nb = nbformat.read(path, as_version=4)
    text = "".join(output.get("text", "") for cell in nb.cells
                   for output in cell.get("outputs", []))
    line = next(line for line in text.splitlines() if line.startswith("WRITTEN "))
    written = json.loads(line[len("WRITTEN "):])  # the dict the cell printed
    assert set(written) == {"/tmp", "/home/student", ".", "/dev/shm"}
    for place, (mebibytes, error) in written.items():
        assert mebibytes <= TMPFS_MIB and error == "No space left on device", place


def test_no_temporary_file_or_folder_is_left(batch):
    data = os.path.join(batch["root"], "course-data")
    assert not [p for p in fx.all_files(data) if p.endswith(".tmp")]
    assert not batch["stale"].exists()  # the killed grader's folder was removed
    assert batch["live"].exists()  # a running grader's folder was left alone
    left = sorted(p.name for p in batch["temp"].iterdir())
    assert left == [batch["live"].name]
