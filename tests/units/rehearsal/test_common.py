"""What both rehearsals share (grader.rehearsal.common): the fake students' names, what a
student of each kind writes into the answer cells, and the environment of one command."""

import json
import os
import shutil
import sys

import pytest

from grader.rehearsal.common import (KINDS, RehearsalError, answers, environment, run_step,
                                     student_names, write_answers)
from testsupport.course import notebook_file, strip_solution_markers, cell_source

PARAMETERS = ["output_shape_answer", "count_parameters_answer", "values_answer",
              "count_tied_parameters_answer", "model_size_mib_answer", "count_on_meta_answer",
              "gpt2_totals_answer", "explain_tying"]  # the last: the explain question's answer


def test_the_class_is_named_people_first_then_numbered_students():
    assert student_names(4) == ["alice", "bob", "carol", "dave"]
    names = student_names(21)
    assert names[18:] == ["walter", "student20", "student21"] and len(set(names)) == 21


def test_the_students_take_turns_being_correct_partial_untouched_and_late():
    assert KINDS == ["correct", "partial", "untouched", "late"]
    assert [KINDS[i % len(KINDS)] for i, _ in enumerate(student_names(6))] == [
        "correct", "partial", "untouched", "late", "correct", "partial"]


def test_a_correct_student_writes_the_solutions_without_their_markers():
    solutions = notebook_file("solutions", "parameters")
    written = answers(solutions, "correct")
    assert list(written) == PARAMETERS
    with open(solutions, encoding="utf-8") as handle:
        cells = {c["metadata"]["nbgrader"]["grade_id"]: c for c in json.load(handle)["cells"]
                 if c.get("metadata", {}).get("nbgrader", {}).get("solution")}
    for grade_id, source in written.items():
        assert "### BEGIN SOLUTION" not in source and "### END SOLUTION" not in source
        assert source.strip() == strip_solution_markers(cell_source(cells[grade_id])).strip()
    assert answers(solutions, "late") == written  # late: correct, handed in after the due date


def test_a_partial_student_writes_the_first_half_and_an_untouched_one_nothing():
    solutions = notebook_file("solutions", "parameters")
    assert list(answers(solutions, "partial")) == PARAMETERS[:4]  # half of eight
    assert answers(solutions, "untouched") == {}
    logits = answers(notebook_file("solutions", "logits-to-text"), "partial")
    assert list(logits) == ["next_token_ids_answer", "text_to_token_ids_answer",
                            "token_ids_to_text_answer"]


def test_the_answers_go_into_their_cells_and_nothing_else_changes(tmp_path):
    path = str(tmp_path / "parameters.ipynb")
    shutil.copy(notebook_file("exercises", "parameters"), path)
    with open(path, encoding="utf-8") as handle:
        before = json.load(handle)["cells"]
    write_answers(path, {"values_answer": "values = 1\n"})
    with open(path, encoding="utf-8") as handle:
        after = json.load(handle)["cells"]
    changed = [i for i, (a, b) in enumerate(zip(before, after)) if a != b]
    assert len(after) == len(before) and len(changed) == 1
    assert after[changed[0]]["metadata"]["nbgrader"]["grade_id"] == "values_answer"
    assert after[changed[0]]["source"] == "values = 1\n"


def test_a_students_command_runs_in_their_own_home_and_never_the_shared_gradebook(monkeypatch):
    monkeypatch.setenv("GPTCOURSE_DB_URL", "postgresql://elsewhere")
    monkeypatch.setenv("JUPYTER_CONFIG_DIR", "/somewhere")
    env = environment("/homes/ada", "ada")
    assert env["PATH"].split(os.pathsep)[0] == os.path.dirname(sys.executable)
    assert (env["HOME"], env["USER"], env["LOGNAME"]) == ("/homes/ada", "ada", "ada")
    assert "GPTCOURSE_DB_URL" not in env and not any(k.startswith("JUPYTER") for k in env)
    assert environment().get("HOME") == os.environ.get("HOME")  # the instructor keeps theirs


def test_a_step_that_fails_stops_the_rehearsal_with_its_output(tmp_path, capsys):
    done = run_step([sys.executable, "-c", "print('made it')"], str(tmp_path), environment(),
                    "make something")
    assert done.stdout == "made it\n" and capsys.readouterr().out.startswith("  make something (")
    with pytest.raises(RehearsalError, match=r"^make nothing failed \(exit 3\):\nno luck\n$"):
        run_step([sys.executable, "-c", "import sys; print('no luck'); sys.exit(3)"],
                 str(tmp_path), environment(), "make nothing")
