"""How a notebook is run: the wait for the checker's set-up is not the student's time, and
the set-up that reads the student's id is never in the shared prelude."""

import os

import nbformat


def test_the_wait_for_the_checks_set_up_is_not_the_students_time(tmp_path):
    import time

    from grader.plan import build_plan
    from grader.settings import Limits
    from grader.worker import Assignment, Job
    from grader.worker.execution import NotebookExecution
    from testsupport import tiny_course as fx

    class SetUpStillRunning:  # a future whose result takes 0.3 s more to come
        def result(self):
            time.sleep(0.3)
            return "the checker"

    instructor = fx.instructor_notebook()
    assignment = Assignment(fx.ASSIGNMENT, {fx.NOTEBOOK: nbformat.writes(instructor)},
                            Limits(timeout=60), "gptcourse")
    execution = NotebookExecution(build_plan(instructor, None), Job("ada", assignment),
                                  str(tmp_path))
    execution.checker_made = SetUpStillRunning()  # what start() hands the checks' set-up to
    execution.deadline = before = time.monotonic() + 1
    started = time.monotonic()
    assert execution.checker() == "the checker"
    waited = time.monotonic() - started
    assert 0.3 <= execution.deadline - before <= waited  # the time waited is given back
    assert execution.checker() == "the checker" and execution.deadline - before <= waited


def test_the_set_up_that_reads_the_student_id_is_not_in_the_shared_prelude():
    from grader.plan import build_plan
    from grader.worker.execution import leading_setup
    from testsupport.course import ROOT

    instructor = nbformat.read(os.path.join(ROOT, "solutions", "parameters", "parameters.ipynb"),
                               as_version=4)
    plan = build_plan(instructor, None)
    code = [i for i, cell in enumerate(plan.cells) if cell.kind != "markdown"]
    prelude = [plan.cells[i].grade_id for i in leading_setup(plan, code)]
    assert prelude == ["install", "setup", "student_id"]
    assert plan.cells[code[len(prelude)]].grade_id == "own-model"
