"""Does one strange submission ever stop the batch, crash the writer or escape its limits?

One session-wide batch grades the tiny assignment for an honest student and a
set of submissions built to break the grader: text that cannot be written as
UTF-8, a file name that is not UTF-8, notebook JSON of the wrong shapes,
points too large for a float, folders that are symbolic links to the
instructor's solutions, and cells that try to fill every writable folder.
Each must get a clear reason in the report while everyone else is graded
normally, the batch must exit 0, and the submitted files must stay byte for
byte. Unit checks of the pieces follow (no sandbox needed).
"""

import json
import os
import subprocess
import sys
import time

import nbformat
import pytest

from testsupport import tiny_course as fx
from grader import files
from grader import record as record_module
from grader.files import owner_tag, remove_left_over_folders
from grader.notebooks import (build_plan, normalised_cells, read_submission,
                              submission_link_problem)
from grader.results import NotebookResult, StudentResult, TestResult
from grader.sandbox import SANDBOX_HOME, SANDBOX_WORK, sandbox_command

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

    fx.hand_in(root, "honest", {"tiny.ipynb": fx.correct(released)})
    expected["honest"] = fx.MAX_SCORE

    # a message holding a lone surrogate: the double tests fail, the rest pass
    fx.hand_in(root, "surrogate-message", {"tiny.ipynb": fx.correct(
        released, double_answer="def double(x):\n    raise ValueError('bad ' + chr(0xD800))\n")})
    expected["surrogate-message"] = fx.MAX_SCORE - 3

    # a lone surrogate in the JSON itself (a comment of an answer)
    nb = fx.correct(released, answer_answer="answer = 42  # \ud800 odd\n")
    fx.hand_in(root, "surrogate-source",
               {"tiny.ipynb": json.dumps(nb, ensure_ascii=True).encode("ascii")})
    expected["surrogate-source"] = fx.MAX_SCORE

    # an extra notebook whose name is Latin-1 (from an unpacked zip)
    folder = fx.hand_in(root, "latin1-name", {"tiny.ipynb": fx.correct(released)})
    with open(os.path.join(os.fsencode(folder), b"Kopie von tiny \xe9.ipynb"), "wb") as handle:
        handle.write(json.dumps(fx.correct(released)).encode())
    expected["latin1-name"] = fx.MAX_SCORE

    # an added cell whose grade_id is a list (unhashable)
    fx.hand_in(root, "grade-id-list", {"tiny.ipynb": _notebook_with(released, "double_answer", {
        "cell_type": "code", "id": "x1", "metadata": {"nbgrader": {"grade_id": ["oops"]}},
        "source": "print('extra')", "outputs": [], "execution_count": None})})
    expected["grade-id-list"] = fx.MAX_SCORE

    # a cell without an id whose metadata is a number, and other wrong shapes
    nb = fx.correct(released)
    nb["cells"] += [{"cell_type": "code", "metadata": 5, "source": "", "outputs": []},
                    5, "not a cell", None, [1, 2],
                    {"cell_type": 7, "metadata": {"nbgrader": [1]}, "source": [1, None]},
                    {"cell_type": "code", "metadata": {"nbgrader": "x"}, "source": {"a": 1}}]
    fx.hand_in(root, "wrong-shapes", {"tiny.ipynb": nb})
    expected["wrong-shapes"] = fx.MAX_SCORE

    # points with 400 digits on a test cell (too large for a float)
    nb = fx.correct(released)
    for cell in nb["cells"]:
        if fx.grade_id(cell) == "answer_value":
            cell["metadata"]["nbgrader"]["points"] = int("9" * 400)
    fx.hand_in(root, "points-overflow", {"tiny.ipynb": nb})
    expected["points-overflow"] = fx.MAX_SCORE

    # cells that are not a list: nothing to grade
    fx.hand_in(root, "cells-not-list", {"tiny.ipynb": {"cells": {"0": "x"}, "metadata": {},
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
    fx.hand_in(root, "disk-fill", {"tiny.ipynb": _notebook_with(released, "answer_answer", {
        "cell_type": "code", "metadata": {}, "source": FILL_CELL, "outputs": []})})
    expected["disk-fill"] = fx.MAX_SCORE
    return expected


def _all_files(folder):
    found = []
    for directory, _, names in os.walk(folder):
        found += [os.path.join(directory, name) for name in names]
    return found


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
    first_scores = fx.gradebook_scores(root)
    first_report = fx.report(root)
    again = subprocess.run(command + ["--students", "surrogate-message,honest"], cwd=root,
                           env=env, capture_output=True, text=True, timeout=300)
    return {"root": root, "expected": expected, "first": first, "again": again,
            "before": before, "after": fx.tree_hashes(submitted), "scores": first_scores,
            "report": first_report, "temp": temp, "stale": stale, "live": live,
            "scores_again": fx.gradebook_scores(root)}


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
    assert not [p for p in _all_files(autograded) if p.endswith(".ipynb")]


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
    assert not [p for p in _all_files(data) if p.endswith(".tmp")]
    assert not batch["stale"].exists()  # the killed grader's folder was removed
    assert batch["live"].exists()  # a running grader's folder was left alone
    left = sorted(p.name for p in batch["temp"].iterdir())
    assert left == [batch["live"].name]


# --- unit checks, no sandbox ------------------------------------------------


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


def test_the_sandbox_gives_no_host_folder_to_write_and_sizes_every_tmpfs(tmp_path):
    data = tmp_path / "data.txt"
    data.write_text("12345")
    fd = os.open(data, os.O_RDONLY)
    try:
        args = sandbox_command(str(tmp_path), 3, 4, files=[(fd, "sub/data.txt")], tmpfs_mib=5)
    finally:
        os.close(fd)
    assert "--bind" not in args and str(tmp_path) not in args
    tmpfs = [args[i + 1] for i, a in enumerate(args) if a == "--tmpfs"]
    sizes = [int(args[i - 1]) for i, a in enumerate(args) if a == "--tmpfs"]
    # folders inside the sandbox, not on the host: the two writable system folders,
    # the parent of the student's home, and the work folder in that home
    assert tmpfs == ["/dev/shm", "/tmp", os.path.dirname(SANDBOX_HOME), SANDBOX_WORK]
    assert sizes == [5 << 20] * 3 + [(5 << 20) + 5]
    assert args[args.index("--file") + 1:args.index("--file") + 3] == [
        str(fd), os.path.join(SANDBOX_WORK, "sub", "data.txt")]


def test_folders_of_dead_graders_are_removed_and_those_of_running_ones_kept(tmp_path):
    host = owner_tag().split("-")[0]
    dead = tmp_path / f"grader-run-{host}-999999999-7-x"
    reused = tmp_path / f"grader-work-{host}-{os.getpid()}-1-x"  # same pid, other start time
    alive = tmp_path / f"grader-work-{owner_tag()}-x"
    unrelated = tmp_path / "grader-unrelated"
    elsewhere_new = tmp_path / f"grader-run-{host}x-12-7-x"  # another machine's, maybe at work
    elsewhere_old = tmp_path / f"grader-run-{host}x-13-7-x"  # another machine's, long untouched
    for folder in (dead, reused, alive, unrelated, elsewhere_new, elsewhere_old):
        (folder / "inside").mkdir(parents=True)
    long_ago = time.time() - files.STALE_SECONDS - 60
    os.utime(elsewhere_old, (long_ago, long_ago))
    os.utime(unrelated, (long_ago, long_ago))
    removed = remove_left_over_folders(str(tmp_path))
    assert sorted(removed) == sorted([str(dead), str(reused), str(elsewhere_old)])
    assert alive.exists() and unrelated.exists() and elsewhere_new.exists()


def _record(student):
    tests = [TestResult(g, p, p, "passed") for g, p in fx.POINTS.items()]
    autograded = json.loads(nbformat.writes(fx.instructor_notebook()))
    return StudentResult(student, fx.ASSIGNMENT, notes=["\udce9 note"], seconds=1.0,
                         notebooks=[NotebookResult(fx.NOTEBOOK, "graded", tests=tests,
                                                   autograded=autograded)])


def test_a_failure_while_recording_one_student_is_reported_and_leaves_no_files(tmp_path,
                                                                           monkeypatch):
    from grader.run import Submission

    root = str(tmp_path)
    settings = type("S", (), {"autograded": os.path.join(root, "autograded"),
                              "reports": os.path.join(root, "reports"),
                              "db_url": "unused", "course_id": "tinycourse",
                              "late_penalties": lambda self: None})()
    recorded = []

    def fake_record(db_url, course_id, record, timestamp, late_penalties=None):
        if record.student == "broken":
            raise RuntimeError("database went away")
        recorded.append(record.student)

    monkeypatch.setattr(record_module, "record_in_gradebook", fake_record)
    writer = record_module.Writer(settings, fx.ASSIGNMENT)
    for student in ("broken", "fine"):
        job = Submission(student, fx.ASSIGNMENT, os.path.join(root, "submitted", student), {})
        writer.record(job, _record(student))
    assert writer.failures == [("broken", False)] and recorded == ["fine"]
    with open(os.path.join(root, "reports", fx.ASSIGNMENT, "broken.json")) as handle:
        assert "not recorded" in " ".join(json.load(handle)["notes"])
    assert not os.path.exists(os.path.join(root, "autograded", "broken", fx.ASSIGNMENT,
                                           fx.NOTEBOOK + ".ipynb"))
    assert os.path.exists(os.path.join(root, "autograded", "fine", fx.ASSIGNMENT,
                                       fx.NOTEBOOK + ".ipynb"))
    with open(os.path.join(root, "reports", fx.ASSIGNMENT, "fine.json"), encoding="utf-8") as f:
        assert json.load(f)["notes"] == ["\\udce9 note"]
    assert not [p for p in _all_files(root) if p.endswith(".tmp")]


def test_a_write_that_fails_leaves_no_temporary_file(tmp_path, monkeypatch):
    def failing_writes(nb, *args, **kwargs):
        raise OSError("disk full")

    record = _record("s")
    staged = files.StagedFiles()
    staged.write(str(tmp_path / "first.txt"), "one")
    monkeypatch.setattr(record_module.nbformat, "writes", failing_writes)
    with pytest.raises(OSError, match="disk full"):
        record_module.write_autograded(str(tmp_path), "s", "a", record,
                                       str(tmp_path / "none"), staged)
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == []


def _leftover(folder, target, tag):
    """A temporary as the writer names it, for `target`, left by the process `tag`."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f".{target}.{tag}.abc123.tmp"
    path.write_text("{")
    return path


def test_what_a_killed_writer_left_is_removed_and_a_running_writer_is_left_alone(tmp_path):
    host = owner_tag().split("-")[0]
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip() + "-1"
    running = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        reports = tmp_path / "reports"
        autograded = tmp_path / "autograded"
        killed = [_leftover(reports / "a", "s1.json", f"{host}-{gone}"),
                  _leftover(reports, "a.json", f"{host}-{gone}"),
                  _leftover(autograded / "s1" / "a", "tiny.ipynb", f"{host}-{gone}")]
        alive = _leftover(reports / "a", "s2.json", owner_tag(running.pid))
        elsewhere = _leftover(reports / "a", "s3.json", f"{host}x-{gone}")
        old = _leftover(reports / "a", "s4.json", f"{host}x-{gone}")
        stale = time.time() - files.STALE_SECONDS - 60
        os.utime(old, (stale, stale))
        other_assignment = _leftover(autograded / "s1" / "b", "tiny.ipynb", f"{host}-{gone}")

        removed = record_module.remove_assignment_leftovers(str(reports), str(autograded), "a")

        assert removed == 4
        assert [p.exists() for p in killed] == [False, False, False]
        assert not old.exists()
        assert alive.exists()  # its writer still runs
        assert elsewhere.exists()  # another machine's writer may still be writing it
        assert other_assignment.exists()  # not this run's to tidy
    finally:
        running.kill()
        running.wait()


def test_a_new_write_removes_the_leftover_of_its_killed_writer(tmp_path):
    host = owner_tag().split("-")[0]
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    leftover = _leftover(tmp_path, "s1.json", f"{host}-{gone}-1")
    files.write_atomically(str(tmp_path / "s1.json"), "{}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s1.json"]
    assert not leftover.exists()


def test_a_refused_or_failed_student_needs_attention_once_with_the_reason():
    from types import SimpleNamespace

    from grader.results import FAILED, REFUSED
    from grader.summary import attention

    why = "submission folder is a symbolic link; not graded"
    refused = StudentResult("eve", "a", REFUSED, [why], [
        NotebookResult("nb", "unreadable", why, tests=[TestResult("c", 0.0, 1.0, "not run", why)])])
    failed = StudentResult("fay", "a", FAILED, ["not graded: the grader failed (boom)"])
    needs = attention(["eve", "fay"], SimpleNamespace(submissions={}), [refused, failed])
    assert needs == [("eve", f"nb unreadable ({why})"),
                     ("fay", "not graded: the grader failed (boom)")]
