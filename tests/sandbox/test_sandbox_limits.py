"""The limits of a sandbox: a notebook's wall-clock budget, memory and processes for the
sandbox as a whole."""

import dataclasses
import json
import os
import time

import pytest

from testsupport import tiny_course as fx
from grader.settings import Limits

# seconds a notebook may hold a worker beyond its budget: a warm template's fork starting,
# and the last cell's kernel being stopped
START_UP = 4


def graded_in_this_process(tiny_course, tmp_path, student, nb, limits):
    """The NotebookResult of `nb` graded here, as a worker grades it, under `limits`."""
    from grader.worker import Assignment, grade_student, read_instructor_notebooks, read_job

    folder = tmp_path / "submitted" / student / "tiny"
    folder.mkdir(parents=True)
    (folder / "tiny.ipynb").write_text(json.dumps(nb))
    assignment = Assignment("tiny", read_instructor_notebooks(
        {"tiny": os.path.join(tiny_course, "source", "tiny", "tiny.ipynb")}),
        limits, "gptcourse")
    return grade_student(read_job(assignment, student, str(folder))).notebooks[0]


CELL_SECONDS = 2  # the limit per cell of the budget tests: their budget is three times it
SLEEPER = "import time\ntime.sleep(1.5)\n"
NEVER_ENDS = "while True:\n    pass\n"


def with_added_cells(released, after_id, sources):
    """The correct notebook with code cells of `sources` added after the cell `after_id`."""
    nb = fx.correct(released)
    position = next(i for i, c in enumerate(nb["cells"]) if fx.grade_id(c) == after_id)
    nb["cells"][position + 1:position + 1] = [
        {"cell_type": "code", "metadata": {}, "source": source, "outputs": [],
         "execution_count": None} for source in sources]
    return nb


@pytest.fixture(scope="module")
def warm_budget(tiny_course, tmp_path_factory):
    """An honest notebook graded under the budget tests' limits: full marks, no note, and the
    template those tests fork from is warm (its start-up is not the notebook's time)."""
    limits = Limits(timeout=CELL_SECONDS, memory_mib=1536)
    notebook = graded_in_this_process(tiny_course, tmp_path_factory.mktemp("warm"), "honest",
                                      fx.correct(fx.released(tiny_course)), limits)
    assert sum(t.points for t in notebook.tests) == fx.MAX_SCORE, notebook.tests
    assert notebook.notes == []
    return limits


def test_a_budget_set_in_the_configuration_is_the_notebooks_time(warm_budget, tiny_course,
                                                                 tmp_path):
    slow = "import time\ntime.sleep(1.5)\n"
    nb = fx.correct(fx.released(tiny_course), double_answer=slow + fx.ANSWERS["double_answer"],
                    ones_answer=slow + fx.ANSWERS["ones_answer"],
                    answer_answer=slow + fx.ANSWERS["answer_answer"])
    limits = dataclasses.replace(warm_budget, notebook_budget=4)
    started = time.monotonic()
    notebook = graded_in_this_process(tiny_course, tmp_path, "slow", nb, limits)
    assert time.monotonic() - started < 4 + START_UP
    tests = {t.grade_id: t for t in notebook.tests}
    assert tests["double_visible"].status == "passed"
    assert tests["answer_value"].status == "not run"
    assert tests["answer_value"].message == ("the notebook's time (4 seconds in all) ran out "
                                             "before this check")
    assert tests["answer_value"].points == 0
    assert [n for n in notebook.notes if n.startswith("the notebook's time ran out (4 seconds "
                                                      "in all")], notebook.notes


def budget_notes(notebook):
    return [n for n in notebook.notes if "the notebook's time ran out" in n]


def test_the_default_budget_is_three_times_the_limit_per_cell():
    assert Limits(timeout=CELL_SECONDS).notebook_seconds == 3 * CELL_SECONDS
    assert Limits(timeout=CELL_SECONDS, notebook_budget=10).notebook_seconds == 10


def test_sleepers_in_thirty_added_cells_end_within_the_budget(warm_budget, tiny_course,
                                                              tmp_path):
    """30 added cells of 1.5 s each: the worker is held the budget, not 45 seconds."""
    nb = with_added_cells(fx.released(tiny_course), "answer_value", [SLEEPER] * 30)
    started = time.monotonic()
    notebook = graded_in_this_process(tiny_course, tmp_path, "sleepers", nb, warm_budget)
    held = time.monotonic() - started
    budget = warm_budget.notebook_seconds
    assert held < budget + START_UP, held
    assert sum(t.points for t in notebook.tests) == fx.MAX_SCORE  # the answers came first
    [note] = budget_notes(notebook)
    assert note.startswith(f"the notebook's time ran out ({budget:g} seconds in all")
    assert "(added by the student) on were not run" in note


def test_restarts_and_replays_count_against_the_same_budget(warm_budget, tiny_course, tmp_path):
    """10 sleepers, then 10 cells that never end: each timeout restarts the kernel and replays
    the sleepers, all within the one budget."""
    nb = with_added_cells(fx.released(tiny_course), "double_visible",
                          [SLEEPER] * 10 + [NEVER_ENDS] * 10)
    started = time.monotonic()
    notebook = graded_in_this_process(tiny_course, tmp_path, "amplifier", nb, warm_budget)
    held = time.monotonic() - started
    assert held < warm_budget.notebook_seconds + START_UP, held
    tests = {t.grade_id: t for t in notebook.tests}
    assert tests["double_visible"].status == "passed"
    for later in ("double_hidden", "ones_values", "answer_value"):
        assert tests[later].status == "not run" and tests[later].points == 0, tests[later]
        assert tests[later].message.endswith("ran out before this check")
    assert len(budget_notes(notebook)) == 1, notebook.notes


def run_in_a_sandbox(tmp_path, code, timeout, memory_mib):
    """The outcome of one cell in a fresh sandboxed kernel; it must run to its end."""
    from grader.sandbox import Kernel
    from grader.settings import Limits

    work = tmp_path / "work"
    work.mkdir()
    kernel = Kernel(str(work), Limits(timeout=timeout, memory_mib=memory_mib), "gptcourse")
    kernel.start(300)
    try:
        outcome = kernel.execute("extra", code, timeout)
    finally:
        kernel.kill()
    assert outcome.status == "ok", outcome
    return outcome


CHILDREN_HOARD = """import os, time
children = []
for _ in range(3):
    pid = os.fork()
    if pid == 0:
        try:
            block = bytearray(700 << 20)
            block[::4096] = b"x" * len(block[::4096])
            time.sleep(2)
            os._exit(0)
        except BaseException:
            os._exit(1)
    children.append(pid)
statuses = [os.waitpid(pid, 0)[1] for pid in children]
print("children that held 700 MiB at once:", sum(status == 0 for status in statuses))
"""


def test_memory_is_limited_for_the_sandbox_as_a_whole(tmp_path):
    """Three children of 700 MiB each stay under a 1536 MiB per-process limit but not together."""
    from grader.sandbox import SandboxCgroups

    assert SandboxCgroups.available()[0], SandboxCgroups.available()[1]
    outcome = run_in_a_sandbox(tmp_path, CHILDREN_HOARD, timeout=60, memory_mib=1536)
    held = int(outcome.stdout.split("children that held 700 MiB at once:")[1].split()[0])
    assert held < 3


FORK_UNTIL_REFUSED = """import os, time
started = 0
try:
    while started < 1000:
        if os.fork() == 0:
            time.sleep(20)
            os._exit(0)
        started += 1
except OSError as error:
    print("refused after", started, "with", type(error).__name__, error.strerror)
"""


def test_processes_are_limited_for_the_sandbox_as_a_whole(tmp_path):
    """A fork bomb stops at the sandbox's process limit, with time to spare."""
    outcome = run_in_a_sandbox(tmp_path, FORK_UNTIL_REFUSED, timeout=120, memory_mib=3072)
    words = outcome.stdout.split()
    limit = Limits(timeout=120).max_processes
    assert words[:2] == ["refused", "after"] and int(words[2]) < limit, outcome.stdout
    assert "Resource temporarily unavailable" in outcome.stdout


# ---------------------------------------------------------------- a grade never depends on load

FAULT_LIMITS = Limits(timeout=10, memory_mib=1536)  # room for every retry of a check's fork


def graded_safely(tiny_course, tmp_path, student, nb):
    """The StudentResult a worker gives for `nb` (the grader's own failures included)."""
    from grader.worker import Assignment, grade_safely, read_instructor_notebooks, read_job

    folder = tmp_path / "submitted" / student / "tiny"
    folder.mkdir(parents=True)
    (folder / "tiny.ipynb").write_text(json.dumps(nb))
    assignment = Assignment("tiny", read_instructor_notebooks(
        {"tiny": os.path.join(tiny_course, "source", "tiny", "tiny.ipynb")}),
        FAULT_LIMITS, "gptcourse")
    return grade_safely(read_job(assignment, student, str(folder)))


@pytest.fixture
def busy_machine(monkeypatch):
    """Make the sandboxes started from now on refuse their first N forks for a check's calls
    (`busy_machine(N)`); the warm templates started before and after are others."""
    from testsupport.busy_machine import refusing_check_forks
    from grader.sandbox import command
    from grader.worker.caches import close_templates

    def refusing(count):
        close_templates()
        monkeypatch.setattr(command, "START_INSIDE", refusing_check_forks(count))

    yield refusing
    close_templates()


def test_a_check_fork_the_system_refuses_for_a_moment_is_tried_again(tiny_course, tmp_path,
                                                                      busy_machine):
    busy_machine(3)  # each sandbox's first three check forks fail
    result = graded_safely(tiny_course, tmp_path, "busy-machine", fx.correct(fx.released(tiny_course)))
    assert result.status == "graded", result.error
    assert result.points == fx.MAX_SCORE, result.notebooks[0].tests
    assert result.notebooks[0].notes == []


def test_a_check_fork_the_system_keeps_refusing_is_grader_failed_not_zero(tiny_course, tmp_path,
                                                                          busy_machine):
    busy_machine(1000)
    result = graded_safely(tiny_course, tmp_path, "overloaded", fx.correct(fx.released(tiny_course)))
    assert result.status == "grader failed"
    assert result.notebooks == []  # nothing is recorded: no zero for the student
    assert result.error == ("tiny.ipynb: check 'double_visible': a check's fork failed 5 times: "
                            "the system refused it (Resource temporarily unavailable); not the "
                            "student's code: graded again on the next run")


def test_daemons_that_hold_the_process_limit_are_named_as_the_cause(tiny_course, tmp_path):
    from testsupport.bad_submissions import DAEMONS

    nb = fx.correct(fx.released(tiny_course), double_answer=DAEMONS + fx.ANSWERS["double_answer"])
    result = graded_safely(tiny_course, tmp_path, "daemons", nb)
    tests = {t.grade_id: t for t in result.notebooks[0].tests}
    for check in ("double_visible", "double_hidden"):
        assert tests[check].points == 0 and tests[check].status == "died"
        assert tests[check].message == (
            "the process limit (128 processes and threads) stopped the check's fork: the "
            f"code's own processes hold {tests[check].message.split('hold ')[1].split()[0]} of "
            f"them while running double in {check}"), tests[check].message
        assert "the code ended the process" not in tests[check].message
    assert tests["answer_value"].points == 1.0
