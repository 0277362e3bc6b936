"""The limits of a sandbox: a notebook's wall-clock budget, memory and processes for the
sandbox as a whole."""

import json
import os

from testsupport import tiny_course as fx
from grader.settings import Limits


def test_a_notebook_has_a_wall_clock_budget_restarts_included(tiny_course, tmp_path):
    from grader.worker import Assignment, grade_student, read_instructor_notebooks, read_job

    slow = "import time\ntime.sleep(2.5)\n"
    nb = fx.correct(fx.released(tiny_course), double_answer=slow + fx.ANSWERS["double_answer"],
                    ones_answer=slow + fx.ANSWERS["ones_answer"],
                    answer_answer=slow + fx.ANSWERS["answer_answer"])
    folder = tmp_path / "submitted" / "slow" / "tiny"
    folder.mkdir(parents=True)
    (folder / "tiny.ipynb").write_text(json.dumps(nb))
    assignment = Assignment("tiny", read_instructor_notebooks(
        {"tiny": os.path.join(tiny_course, "source", "tiny", "tiny.ipynb")}),
        Limits(timeout=3, memory_mib=1536), "gptcourse", notebook_timeout=6)
    job = read_job(assignment, "slow", str(folder))
    record = grade_student(job)
    notebook = record.notebooks[0]
    tests = {t.grade_id: t for t in notebook.tests}
    assert tests["double_visible"].status == "passed"
    assert tests["answer_value"].message == "notebook took too long"
    assert tests["answer_value"].points == 0
    assert any(n.startswith("notebook took too long (more than 6 seconds") for n in notebook.notes)
    assert notebook.seconds < 15


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
