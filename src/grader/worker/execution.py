"""One notebook's plan executed: answer cells in sandboxed kernels, test cells in a Checker here.

`execute_plan` runs a plan for one student in a working folder of its own
and returns what each cell did; `NotebookExecution` holds its kernel, its
checks, its outcomes and its time budget.
"""

import concurrent.futures
import dataclasses
import os
import shutil
import time

import nbformat

from ..cells import STUDENT_ID_VARIABLE, CellKind, reads_student_id
from ..checks import Checker
from ..files import tagged_folder
from ..plan import Plan, PlanCell
from ..sandbox import (CellOutcome, CellStatus, ForkedKernel, GraderFault, Kernel, SandboxError,
                       Template, sandbox_uid)
from .caches import make_checker, one_torch_thread, warm_template
from .job import Job

MAX_RESTARTS = 12  # kernel restarts per notebook before the remaining cells are given up
STUDENT_FORK_TRIES = 3  # tries of a template's fork for the student that fails to start
FORGED_REPLY = "it wrote on the grader's channel a reply the grader did not ask for"


def failure_reason(outcome: CellOutcome, cell: PlanCell) -> str:
    """The reason a test did not pass, in plain words."""
    where = f"in {cell.grade_id}" if cell.grade_id else ""
    if outcome.status == CellStatus.TIMEOUT:
        return f"timed out {where} ({outcome.message})".replace("  ", " ")
    if outcome.status == CellStatus.DIED:
        return f"{outcome.message} {where}".strip()
    if outcome.status == CellStatus.GARBLED:
        return outcome.message
    return outcome.message or "failed"


def execute_plan(plan: Plan, job: Job, instructor: nbformat.NotebookNode | None = None
                 ) -> tuple[dict[int, CellOutcome], list[str]]:
    """Run the plan: answer cells in sandboxed kernels, test cells in a Checker here.

    `instructor` is the instructor's notebook (an nbformat NotebookNode).
    Returns ({cell index: CellOutcome}, notes).
    """
    workdir = tagged_folder("work")
    execution = NotebookExecution(plan, job, workdir)
    try:
        copy_student_files(workdir, job.files)
        give_to_sandbox_user(workdir)
        execution.start(instructor)
        for index in execution.code_cells:
            if not execution.advance(index):
                break
        return execution.outcomes, execution.notes
    finally:
        execution.stop()
        execution.finish()
        shutil.rmtree(workdir, ignore_errors=True)


def copy_student_files(workdir: str, files: dict[str, bytes]) -> None:
    """The student's other files {relative path: bytes}, written into `workdir`."""
    for relative, content in files.items():
        target = os.path.normpath(os.path.join(workdir, relative))
        if os.path.isabs(relative) or not target.startswith(os.path.normpath(workdir) + os.sep):
            raise ValueError(f"file outside the submission's folder: {relative!r}")
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "xb") as handle:
            handle.write(content)


class NotebookExecution:
    """One notebook's plan being executed: its kernel, its checks, its outcomes and its budget.

    A kernel that dies, times out or is left dirty by a check is replaced by a
    new one, in which the cells that ran fine are run again first; at most
    MAX_RESTARTS times. The notebook's budget (`Limits.notebook_seconds`, one
    for the whole notebook, however many cells it adds) starts when the first
    kernel is ready: the grader's own start-up is not the student's time. Every
    cell, check, restart and replay after that counts against it; past it, the
    cells still waiting are not run.
    """

    def __init__(self, plan: Plan, job: Job, workdir: str):
        self.plan, self.job, self.workdir = plan, job, workdir
        assignment = self.assignment = job.assignment
        self.code_cells = code_cell_indices(plan)
        self.timeout = assignment.limits.timeout
        self.cpu_seconds = int(assignment.limits.cpu_seconds
                               or self.timeout * (len(self.code_cells) + 2) + 60)
        self.budget = assignment.limits.notebook_seconds
        self.prelude = leading_setup(plan, self.code_cells)
        self.package_copy: str | None = None
        self.template: Template | None = None
        self.kernel: Kernel | None = None  # a ForkedKernel when there is a template
        self.deadline: float | None = None
        self.background: concurrent.futures.ThreadPoolExecutor | None = None
        self.checker_made: concurrent.futures.Future[Checker] | None = None
        self._checker: Checker | None = None
        self.outcomes: dict[int, CellOutcome] = {}
        self.completed: list[int] = []
        self.notes: list[str] = []
        self.restarts, self.over_budget = 0, False
        self.ran_last: int | None = None  # the cell whose request the kernel answered last

    def start(self, instructor: nbformat.NotebookNode | None) -> None:
        """The checks' set-up, built in a thread of this worker while the warm template
        starts (or is found) and the student's first cells run: only the first check
        waits for it."""
        plan, assignment = self.plan, self.assignment
        self.package_copy = assignment.package_copy()
        if any(plan.cells[i].kind == CellKind.TEST for i in self.code_cells):
            self.background = concurrent.futures.ThreadPoolExecutor(1, "checks' set-up")
            self.checker_made = self.background.submit(self._make_checker, instructor)
        # the template is started from this thread: a sandbox ends with the thread
        # that started it
        self.template = warm_template(assignment, self.package_copy,
                                      prelude_cells(plan, self.prelude))
        if self.template is not None:  # the prelude has run in the template, once for everyone
            for index, outcome in zip(self.prelude, self.template.outcomes):
                self.outcomes[index] = dataclasses.replace(outcome)
                self.completed.append(index)
                if outcome.status != CellStatus.OK:
                    self.notes.append(f"{cell_label(plan.cells[index], index)}: "
                                      f"{failure_reason(outcome, plan.cells[index])}")
            self.code_cells = self.code_cells[len(self.prelude):]

    def advance(self, index: int) -> bool:
        """Run the plan's cell `index` (a test cell: its check); False when no kernel may be
        started."""
        cell = self.plan.cells[index]
        if self.deadline is not None and time.monotonic() >= self.deadline:
            if not self.over_budget:
                self.over_budget = True
                self.notes.append(f"the notebook's time ran out ({self.budget:g} seconds in all, "
                                  "kernel restarts and the replays after them included); "
                                  f"the cells from {cell_label(cell, index)} on were not run")
            if cell.kind == CellKind.TEST:
                self.outcomes[index] = CellOutcome(CellStatus.NOT_RUN,
                                                   f"the notebook's time ({self.budget:g} "
                                                   "seconds in all) ran out before this check")
            return True
        if self.kernel is None and not self._new_kernel():
            return False
        kernel, timeout = self.kernel, self.timeout
        before, self.ran_last, first = self.ran_last, index, kernel.next_id + 1
        left = min(timeout, self.deadline - time.monotonic())
        if cell.kind == CellKind.TEST:
            if not cell.source.strip():
                outcome = CellOutcome(CellStatus.FAILED, "the test cell is empty")
            else:
                checker = self.checker()
                left = min(timeout, self.deadline - time.monotonic())
                status, message, output = checker.check(cell.source, kernel,
                                                        time.monotonic() + left, timeout)
                if kernel.fault:
                    raise GraderFault(f"{cell_label(cell, index)}: {kernel.fault}")
                outcome = CellOutcome(status, message, output)
        else:
            outcome = kernel.execute(cell.kind, cell.source if cell.source.strip() else "pass",
                                      left)
            if outcome.status == CellStatus.TIMEOUT:
                outcome.message = f"timed out after {timeout:g} seconds"
        if kernel.stale_at == first and self._blame(before, index):
            self.stop()
            return self.advance(index)  # in a new kernel, without the cell that forged it
        self.outcomes[index] = outcome
        if outcome.status in (CellStatus.OK, CellStatus.ERROR) and cell.kind != CellKind.TEST:
            self.completed.append(index)
        restart = (kernel.process is None or kernel.dirty
                   or outcome.status in (CellStatus.TIMEOUT, CellStatus.DIED, CellStatus.GARBLED))
        if restart:
            self.stop()
        if cell.kind != CellKind.TEST and outcome.status != CellStatus.OK:
            self.notes.append(f"{cell_label(cell, index)}: {failure_reason(outcome, cell)}"
                              + ("; the kernel was restarted for the cells after it"
                                 if restart else ""))
        return True

    def checker(self) -> Checker:
        """The Checker of this student's notebook, waiting for its set-up the first time;
        the wait does not count against the notebook's time."""
        if self._checker is None:
            waited = time.monotonic()
            self._checker = self.checker_made.result()
            if self.deadline is not None:
                self.deadline += time.monotonic() - waited
        return self._checker

    def _make_checker(self, instructor: nbformat.NotebookNode | None) -> Checker:
        one_torch_thread(self.assignment.package)  # the thread's own: one core's, as the worker's
        return make_checker(self.assignment, self.plan, instructor).for_student(
            self.job.student)

    def finish(self) -> None:
        """The set-up's thread ended (it runs no longer than the set-up itself)."""
        if self.background is not None:
            self.background.shutdown(wait=True)
            self.background = None

    def _new_kernel(self) -> bool:
        """A kernel forked from the template (or started from nothing), with the cells that
        ran fine run again in it; False when the notebook has had MAX_RESTARTS of them."""
        while self.restarts <= MAX_RESTARTS:
            if self.template is not None:
                self.kernel = self._forked_kernel()
            else:
                self.kernel = Kernel(self.workdir, self.assignment.limits,
                                     self.assignment.package, self.package_copy)
                self.kernel.start(self.cpu_seconds)
            # whose notebook this is, where its set-up looks (the typed id is never used)
            whose = f"__import__('os').environ[{STUDENT_ID_VARIABLE!r}] = {self.job.student!r}"
            self.kernel.execute(CellKind.SETUP, whose, self.timeout)
            if self.deadline is None:
                self.deadline = time.monotonic() + self.budget
            self.restarts += 1
            self.ran_last = None
            if not self._replay():
                return True
            self.stop()  # a replayed cell forged a reply: again, without it
        return False

    def _replay(self) -> bool:
        """Run the cells that ran fine again in the new kernel; True when a replayed cell
        was answered with the reply the cell before it forged (that cell is then dropped)."""
        for earlier in self.completed:
            if self.template is not None and earlier in self.prelude:
                continue  # already run in the template the kernel was forked from
            left = min(self.timeout, self.deadline - time.monotonic())
            cell = self.plan.cells[earlier]
            before, self.ran_last, first = self.ran_last, earlier, self.kernel.next_id + 1
            if left <= 0:
                return False
            if self.kernel.execute(cell.kind, cell.source, left).status not in (
                    CellStatus.OK, CellStatus.ERROR):
                return self.kernel.stale_at == first and self._blame(before, earlier)
        return False

    def _blame(self, culprit: int | None, index: int) -> bool:
        """The cell `culprit`, whose request came just before the first of `index`'s, wrote
        a reply on the grader's channel (its real reply came late, to `index`): it earns
        nothing, is said to have done it and is not run again. False when that is no cell
        the student wrote."""
        if culprit is None or culprit == index or self.plan.cells[culprit].kind not in (
                CellKind.SOLUTION, CellKind.EXTRA):
            return False
        cell = self.plan.cells[culprit]
        if culprit in self.completed:
            self.completed.remove(culprit)
        self.outcomes[culprit] = CellOutcome(CellStatus.GARBLED, FORGED_REPLY)
        self.notes.append(f"{cell_label(cell, culprit)}: {FORGED_REPLY}; the kernel was "
                          "restarted and the cell is not run again")
        return True

    def _forked_kernel(self) -> ForkedKernel:
        """A started fork of the template; tried STUDENT_FORK_TRIES times, since a busy machine
        or the last kernel's processes not yet reaped can refuse one for a moment."""
        for attempt in range(STUDENT_FORK_TRIES):
            kernel = ForkedKernel(self.template, self.workdir, self.assignment.limits)
            try:
                return kernel.start(self.cpu_seconds)
            except SandboxError as error:
                problem = error
                time.sleep(0.5 * (attempt + 1))
        raise GraderFault(f"the student's sandbox could not be forked ({problem})")

    def stop(self) -> None:
        if self.kernel is not None:
            self.kernel.kill()
            self.kernel = None


CODE_KINDS = (CellKind.SETUP, CellKind.SOLUTION, CellKind.EXTRA, CellKind.TEST)  # cells that run


def code_cell_indices(plan: Plan) -> list[int]:
    """Indices of the plan's cells that run: set-up, answers, the student's added cells, tests."""
    return [i for i, c in enumerate(plan.cells) if c.kind in CODE_KINDS]


def leading_setup(plan: Plan, code_cells: list[int]) -> list[int]:
    """Indices of the instructor's set-up cells that come before any cell of the student's
    and before any that reads the student's id: the same for every student."""
    prelude = []
    for index in code_cells:
        cell = plan.cells[index]
        if (cell.kind != CellKind.SETUP or cell.instructor_index is None
                or reads_student_id(cell.source)):
            break
        prelude.append(index)
    return prelude


def prelude_cells(plan: Plan, prelude: list[int]) -> list[tuple[CellKind, str]]:
    """(kind, source) of the prelude's cells: what a warm template runs, and part of the
    key it is found by (worker/caches.py)."""
    return [(plan.cells[i].kind, plan.cells[i].source) for i in prelude]


def give_to_sandbox_user(folder: str) -> None:
    """The student's copy belongs to the sandbox's unprivileged user (when we may chown)."""
    os.chmod(folder, 0o777)
    if os.geteuid() != 0:
        return
    uid = sandbox_uid()
    for directory, _, names in os.walk(folder):
        os.chown(directory, uid, uid)
        for name in names:
            os.chown(os.path.join(directory, name), uid, uid, follow_symlinks=False)


def cell_label(cell: PlanCell, index: int) -> str:
    if cell.kind == CellKind.TEST:
        return f"check '{cell.grade_id}'"
    if cell.kind == CellKind.SOLUTION:
        return f"answer cell '{cell.grade_id}'"
    if cell.kind == CellKind.SETUP:
        return f"set-up cell '{cell.grade_id}'" if cell.grade_id else f"set-up cell {index + 1}"
    if cell.student_position is not None:
        return f"cell {cell.student_position + 1} (added by the student)"
    return f"a cell the student added (after cell {index})"
