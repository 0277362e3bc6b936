"""Grading one student: pure computation that returns a `StudentResult` (results.py).

Nothing here writes to the gradebook or to course-data: `read_job` reads one
student's submission and the instructor's notebooks into a `Job` (plain data),
`grade_student` runs its cells in sandboxed kernels and returns the result. The
single writer (record.py) records it. That split is what lets a run grade in
several worker processes or on a Dask cluster (run.py).
"""

import atexit
import concurrent.futures
import copy
import dataclasses
import multiprocessing
import multiprocessing.util
import os
import shutil
import sys
import time
from dataclasses import dataclass, field

import nbformat

from .notebooks import (MAX_COPIED_FILE_BYTES, Unreadable, build_plan, parse_submission,
                        read_submission_bytes, student_extra_files, without_controls)
from .checker import Checker
from .files import tagged_folder
from .results import NotebookResult, StudentResult, TestResult
from .sandbox import (CellOutcome, ForkedKernel, Kernel, Limits, SandboxError, Template,
                      sandbox_uid, sandboxed_package)

MAX_RESTARTS = 12  # kernel restarts per notebook before the remaining cells are given up
NOTEBOOK_BUDGET_FACTOR = 4  # a notebook may take this many times (timeout x code cells) in all


@dataclass
class Job:
    """Everything a worker needs to grade one student, as data; picklable.

    It holds no path of the course: the instructor's notebooks as JSON text, the
    submitted notebooks as bytes and the student's other files as bytes, read on
    the instructor's machine by `read_job`. A worker writes what it needs into a
    private temporary folder of its own, so workers need neither the course
    folder nor a shared file system.
    """

    student: str
    assignment: str
    instructor_notebooks: dict  # notebook name -> the instructor's notebook, JSON text
    limits: Limits
    submission: dict = field(default_factory=dict)  # notebook name -> the file's bytes
    unreadable: dict = field(default_factory=dict)  # notebook name -> why it was not read
    files: dict = field(default_factory=dict)  # relative path -> bytes, copied into the sandbox
    folder_notes: list = field(default_factory=list)  # what reading the folder noticed
    notebook_timeout: float = 0.0  # seconds for one notebook in all; 0: derived
    blocked: tuple = ()  # course-package functions that are stubs in the sandbox


def read_instructor_notebooks(paths):
    """{name: JSON text} of the instructor's notebooks {name: path}."""
    texts = {}
    for name, path in paths.items():
        with open(path, encoding="utf-8") as handle:
            texts[name] = handle.read()
    return texts


def read_job(student, assignment, submitted_dir, instructor_notebooks, limits,
             notebook_timeout=0.0, blocked=()):
    """The Job for submitted_dir (submitted/<student>/<assignment>), read here.

    `instructor_notebooks` is {name: JSON text} (read_instructor_notebooks).
    The submitted notebooks go through the checks on the file itself (no link,
    a regular file, at most MAX_NOTEBOOK_BYTES); one that fails them is kept
    as its reason, reported as today. The other files are those
    student_extra_files picks (no links, limited in number and size).
    """
    expected = {name + ".ipynb" for name in instructor_notebooks}
    files, folder_notes = student_extra_files(submitted_dir, expected)
    submission, unreadable = {}, {}
    for name in instructor_notebooks:
        try:
            submission[name] = read_submission_bytes(os.path.join(submitted_dir, name + ".ipynb"))
        except FileNotFoundError:
            pass
        except Unreadable as problem:
            unreadable[name] = str(problem)
    contents = {}
    for relative in files:
        fd = os.open(os.path.join(submitted_dir, relative),
                     os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as handle:
            contents[relative] = handle.read(MAX_COPIED_FILE_BYTES + 1)[:MAX_COPIED_FILE_BYTES]
    return Job(student, assignment, dict(instructor_notebooks), limits, submission, unreadable,
               contents, folder_notes, notebook_timeout, tuple(blocked))


def grade_student(job):
    """Grade every notebook of one student; returns a StudentResult."""
    started = time.monotonic()
    results = [grade_notebook(name, instructor_text, job)
               for name, instructor_text in sorted(job.instructor_notebooks.items())]
    missing = [r.notebook for r in results if r.status == "missing"]
    notes = list(job.folder_notes)
    for note in job.folder_notes:
        if note.startswith("extra notebook") and missing:
            notes.append(f"{missing[0]}.ipynb is missing; was it renamed? ({note})")
    return StudentResult(job.student, job.assignment, notes=notes, notebooks=results,
                         seconds=time.monotonic() - started)


def grade_notebook(name, instructor_text, job):
    started = time.monotonic()
    instructor = nbformat.reads(instructor_text, as_version=4)
    try:
        if name in job.unreadable:
            raise Unreadable(job.unreadable[name])
        if name not in job.submission:
            raise FileNotFoundError(name)
        submission = parse_submission(job.submission[name])
        status, message = "graded", ""
    except FileNotFoundError:
        submission, status, message = None, "missing", "notebook missing"
    except Unreadable as problem:
        submission, status, message = None, "unreadable", str(problem)
    plan = build_plan(instructor, submission)
    if status == "graded":
        outcomes, run_notes = run_plan(plan, job, job.files, instructor)
    else:
        outcomes, run_notes = {}, []
    tests = []
    for index, cell in enumerate(plan.cells):
        if cell.kind != "test":
            continue
        outcome = outcomes.get(index)
        if status != "graded":
            tests.append(TestResult(cell.grade_id, 0.0, cell.points, "not run", message))
        elif outcome is None:
            tests.append(TestResult(cell.grade_id, 0.0, cell.points, "not run",
                                    "not run: too many kernel restarts"))
        elif outcome.status == "passed":
            tests.append(TestResult(cell.grade_id, cell.points, cell.points, "passed"))
        else:
            tests.append(TestResult(cell.grade_id, 0.0, cell.points,
                                    outcome.status if outcome.status in ("timeout", "died")
                                    else "failed", describe(outcome, cell)))
    autograded = None
    if status != "missing":
        autograded = autograded_notebook(instructor, plan, outcomes, message)
    return NotebookResult(name, status, message, plan.notes + run_notes, tests,
                          time.monotonic() - started, autograded)


def describe(outcome, cell):
    """The reason a test did not pass, in plain words."""
    where = f"in {cell.grade_id}" if cell.grade_id else ""
    if outcome.status == "timeout":
        return f"timed out {where} ({outcome.message})".replace("  ", " ")
    if outcome.status == "died":
        return f"{outcome.message} {where}".strip()
    if outcome.status == "garbled":
        return outcome.message
    return outcome.message or "failed"


def run_plan(plan, job, files, instructor=None):
    """Run the plan: answer cells in sandboxed kernels, test cells in a Checker here.

    Returns ({cell index: CellOutcome}, notes).
    """
    workdir = tagged_folder("work")
    run = PlanRun(plan, job, workdir)
    try:
        copy_student_files(workdir, files)
        give_to_sandbox_user(workdir)
        run.start(instructor)
        for index in run.code_cells:
            if not run.run_cell(index):
                break
        return run.outcomes, run.notes
    finally:
        run.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def copy_student_files(workdir, files):
    """The student's other files {relative path: bytes}, written into `workdir`."""
    for relative, content in files.items():
        target = os.path.normpath(os.path.join(workdir, relative))
        if os.path.isabs(relative) or not target.startswith(os.path.normpath(workdir) + os.sep):
            raise ValueError(f"file outside the submission's folder: {relative!r}")
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "xb") as handle:
            handle.write(content)


class PlanRun:
    """One notebook's plan being run: its kernel, its checks, its outcomes and its budget.

    A kernel that dies, times out or is left dirty by a check is replaced by a
    new one, in which the cells that ran fine are run again first; at most
    MAX_RESTARTS times. The notebook's budget (NOTEBOOK_BUDGET_FACTOR x the
    timeout x its code cells, or the job's notebook_timeout) starts when the
    first kernel is ready: the grader's own start-up is not the student's time.
    """

    def __init__(self, plan, job, workdir):
        self.plan, self.job, self.workdir = plan, job, workdir
        self.code_cells = [i for i, c in enumerate(plan.cells)
                           if c.kind in ("setup", "solution", "extra", "test")]
        self.timeout = job.limits.timeout
        self.cpu_seconds = int(job.limits.cpu_seconds
                               or self.timeout * (len(self.code_cells) + 2) + 60)
        self.budget = job.notebook_timeout or (NOTEBOOK_BUDGET_FACTOR * self.timeout
                                               * max(len(self.code_cells), 1))
        self.prelude = leading_setup(plan, self.code_cells)
        self.package = self.template = self.checker = self.kernel = self.deadline = None
        self.outcomes, self.completed, self.notes = {}, [], []
        self.restarts, self.over_budget = 0, False

    def start(self, instructor):
        """The checks' set-up, built while this worker's warm template starts (or is found)."""
        plan = self.plan
        self.package = sandboxed_package(self.job.blocked) if self.job.blocked else None
        with concurrent.futures.ThreadPoolExecutor(1) as background:
            # the template is started from this thread: a sandbox ends with the thread
            # that started it
            checker = background.submit(make_checker, plan, instructor) if any(
                plan.cells[i].kind == "test" for i in self.code_cells) else None
            self.template = warm_template(self.job.limits, self.package,
                                          [(plan.cells[i].kind, plan.cells[i].source)
                                           for i in self.prelude])
            self.checker = checker.result() if checker else None
        if self.template is not None:  # the prelude has run in the template, once for everyone
            for index, outcome in zip(self.prelude, self.template.outcomes):
                self.outcomes[index] = dataclasses.replace(outcome)
                self.completed.append(index)
                if outcome.status != "ok":
                    self.notes.append(f"{cell_label(plan.cells[index], index)}: "
                                      f"{describe(outcome, plan.cells[index])}")
            self.code_cells = self.code_cells[len(self.prelude):]

    def run_cell(self, index):
        """Run one cell (a test cell: its check); False when no kernel may be started."""
        cell = self.plan.cells[index]
        if self.deadline is not None and time.monotonic() >= self.deadline:
            if not self.over_budget:
                self.over_budget = True
                self.notes.append(f"notebook took too long (more than {self.budget:g} seconds "
                                  "in all, restarts included); the cells after that were not run")
            if cell.kind == "test":
                self.outcomes[index] = CellOutcome("failed", "notebook took too long")
            return True
        if self.kernel is None:
            if self.restarts > MAX_RESTARTS:
                return False
            self._new_kernel()
        kernel, timeout = self.kernel, self.timeout
        left = min(timeout, self.deadline - time.monotonic())
        if cell.kind == "test":
            if not cell.source.strip():
                outcome = CellOutcome("failed", "the test cell is empty")
            else:
                status, message, output = self.checker.check(cell.source, kernel,
                                                             time.monotonic() + left, timeout)
                outcome = CellOutcome(status, message, output)
        else:
            outcome = kernel.run_cell(cell.kind, cell.source if cell.source.strip() else "pass",
                                      left)
            if outcome.status == "timeout":
                outcome.message = f"timed out after {timeout:g} seconds"
        self.outcomes[index] = outcome
        if outcome.status in ("ok", "error") and cell.kind != "test":
            self.completed.append(index)
        restart = (kernel.process is None or kernel.dirty
                   or outcome.status in ("timeout", "died", "garbled"))
        if restart:
            self.stop()
        if cell.kind != "test" and outcome.status != "ok":
            self.notes.append(f"{cell_label(cell, index)}: {describe(outcome, cell)}"
                              + ("; the kernel was restarted for the cells after it"
                                 if restart else ""))
        return True

    def _new_kernel(self):
        """A kernel forked from the template (or started from nothing), with the cells that
        ran fine run again in it."""
        if self.template is not None:
            self.kernel = ForkedKernel(self.template, self.workdir, self.job.limits)
        else:
            self.kernel = Kernel(self.workdir, self.job.limits, self.package)
        self.kernel.start(self.cpu_seconds)
        if self.deadline is None:
            self.deadline = time.monotonic() + self.budget
        for earlier in self.completed:
            if self.template is not None and earlier in self.prelude:
                continue  # already run in the template the kernel was forked from
            left = min(self.timeout, self.deadline - time.monotonic())
            cell = self.plan.cells[earlier]
            if left <= 0 or self.kernel.run_cell(cell.kind, cell.source,
                                                 left).status not in ("ok", "error"):
                break
        self.restarts += 1

    def stop(self):
        if self.kernel is not None:
            self.kernel.kill()
            self.kernel = None


def leading_setup(plan, code_cells):
    """Indices of the instructor's set-up cells that come before any cell of the student's."""
    prelude = []
    for index in code_cells:
        cell = plan.cells[index]
        if cell.kind != "setup" or cell.instructor_index is None:
            break
        prelude.append(index)
    return prelude


_TEMPLATES = {}  # warm templates of this worker, by limits, package copy and prelude
_NO_TEMPLATE = []  # why this machine cannot fork sandboxes, once found out
MAX_TEMPLATES = 2  # templates kept per worker (one per notebook of an assignment)


def warm_template(limits, package, prelude):
    """This worker's Template for the notebook (started on first use), or None.

    None where the machine does not allow a template's forks to make their own
    namespaces (no unprivileged user namespaces); then each student gets a
    kernel started from nothing, as safe and a few seconds slower.
    """
    if _NO_TEMPLATE:
        return None
    key = (dataclasses.astuple(limits), package, tuple(prelude))
    template = _TEMPLATES.get(key)
    if template is not None and template.alive() and (package is None or os.path.isdir(package)):
        return template
    if template is not None:
        _TEMPLATES.pop(key).close()
    while len(_TEMPLATES) >= MAX_TEMPLATES:
        _TEMPLATES.pop(next(iter(_TEMPLATES))).close()
    if not _TEMPLATES and multiprocessing.parent_process() is not None:
        # a pool's worker ends through multiprocessing, which skips atexit
        multiprocessing.util.Finalize(None, close_templates, exitpriority=10)
    try:
        _TEMPLATES[key] = Template(limits, package, prelude)
    except SandboxError as error:
        _NO_TEMPLATE.append(str(error))
        print(f"note: each student's sandbox starts from nothing, a few seconds slower: this "
              f"machine cannot fork a warm template's sandboxes ({error})", file=sys.stderr)
        return None
    return _TEMPLATES[key]


def close_templates():
    """Stop this worker's templates (at the end of a run; also registered at exit)."""
    while _TEMPLATES:
        _TEMPLATES.popitem()[1].close()


atexit.register(close_templates)

_CHECKERS = {}  # one per instructor notebook in this worker: set-up cells run once


def make_checker(plan, instructor):
    """A Checker with the instructor's set-up cells run and the answer names known.

    Its set-up namespace is only read by the instructor's tests (a submission gets
    copies of the objects it is passed), so one is reused for every student.
    """
    setup = [c.source for c in plan.cells if c.kind == "setup"]
    solutions = [instructor.cells[c.instructor_index].source for c in plan.cells
                 if c.kind == "solution" and c.instructor_index is not None and instructor]
    key = (tuple(setup), tuple(solutions))
    if key not in _CHECKERS:
        if len(_CHECKERS) >= 4:
            _CHECKERS.clear()
        _CHECKERS[key] = Checker(setup, solutions)
    return _CHECKERS[key]


def prepare_checkers(instructor_texts):
    """Build the checks' set-up of every notebook {name: JSON text} now, in this process,
    so that the worker processes forked from it start with them. One torch thread:
    each worker is one core's work, and a process that forks must not have started
    a pool of threads."""
    import torch

    torch.set_num_threads(1)
    for text in instructor_texts.values():
        instructor = nbformat.reads(text, as_version=4)
        make_checker(build_plan(instructor, None), instructor)


def give_to_sandbox_user(folder):
    """The student's copy belongs to the sandbox's unprivileged user (when we may chown)."""
    os.chmod(folder, 0o777)
    if os.geteuid() != 0:
        return
    uid = sandbox_uid()
    for directory, _, names in os.walk(folder):
        os.chown(directory, uid, uid)
        for name in names:
            os.chown(os.path.join(directory, name), uid, uid, follow_symlinks=False)


def cell_label(cell, index):
    if cell.kind == "solution":
        return f"answer cell '{cell.grade_id}'"
    if cell.kind == "setup":
        return f"set-up cell '{cell.grade_id}'" if cell.grade_id else f"set-up cell {index + 1}"
    if cell.student_position is not None:
        return f"cell {cell.student_position + 1} (added by the student)"
    return f"a cell the student added (after cell {index})"


def autograded_notebook(instructor, plan, outcomes, problem=""):
    """The instructor's notebook with the student's answers and the outputs the driver decided."""
    nb = copy.deepcopy(instructor)
    cells = []
    count = 0
    if problem:
        cells.append(nbformat.v4.new_markdown_cell(f"**Grading note:** {problem}. "
                                                   "The answers below are empty."))
    for index, cell in enumerate(plan.cells):
        if cell.instructor_index is not None:
            new = copy.deepcopy(instructor.cells[cell.instructor_index])
        elif cell.kind == "markdown":
            new = nbformat.v4.new_markdown_cell()
        else:
            new = nbformat.v4.new_code_cell()
        new.pop("id", None)
        if new.cell_type != "code":
            if cell.kind == "markdown":
                new.source = cell.source
            cells.append(new)
            continue
        new.source = cell.source
        new.outputs = []
        outcome = outcomes.get(index)
        if outcome is not None:
            count += 1
            new.execution_count = count
            new.outputs = cell_outputs(cell, outcome, count)
        else:
            new.execution_count = None
        cells.append(new)
    nb.cells = cells
    nb.metadata.pop("widgets", None)
    for position, cell in enumerate(nb.cells, 1):  # fresh unique ids (nbformat 4.5), the
        cell.id = f"cell-{position}"  # same in every run, so regrading gives identical files
    return nbformat.from_dict(nb)


def cell_outputs(cell, outcome, count):
    if cell.kind == "test":  # the checker's own printing and the short reason only
        outputs = []
        if outcome.stdout:
            outputs.append(nbformat.v4.new_output("stream", name="stdout",
                                                  text=without_controls(outcome.stdout)))
        if outcome.status != "passed":
            outputs.append(error_output(outcome.message or outcome.status))
        return outputs
    outputs = []
    for stream, text in (("stdout", outcome.stdout), ("stderr", outcome.stderr)):
        if text:
            outputs.append(nbformat.v4.new_output("stream", name=stream,
                                                  text=without_controls(text)))
    if outcome.result is not None:
        outputs.append(nbformat.v4.new_output("execute_result",
                                              data={"text/plain": without_controls(outcome.result)},
                                              execution_count=count))
    if outcome.status != "ok":
        outputs.append(error_output(outcome.message or outcome.status))
    return outputs


def error_output(message):
    message = without_controls(message)
    name, _, value = message.partition(": ")
    if not value or " " in name:
        name, value = "Error", message
    return nbformat.v4.new_output("error", ename=name, evalue=value, traceback=[message])
