"""What a worker keeps between students: warm sandbox templates and the checks' set-up.

Both are kept per worker process and reused for every student it grades; both
are keyed on what makes them (limits, package copy and set-up cells for a
template; set-up and solution sources for a checker).
"""

import atexit
import dataclasses
import multiprocessing
import multiprocessing.util
import os
import sys

import nbformat

from ..cells import CellKind
from ..checks import Checker
from ..plan import Plan, build_plan
from ..sandbox import SandboxError, Template
from ..settings import Limits
from .assignment import Assignment

_TEMPLATES = {}  # warm templates of this worker, by limits, package copy and prelude
_NO_TEMPLATE = []  # why this machine cannot fork sandboxes, once found out
MAX_TEMPLATES = 2  # templates kept per worker (one per notebook of an assignment)


def warm_template(limits: Limits, package: str, package_copy: str | None,
                  prelude: list, channels: int = 1) -> Template | None:
    """This worker's Template for the notebook (started on first use), or None.

    None where the machine does not allow a template's forks to make their own
    namespaces (no unprivileged user namespaces); then each student gets a
    kernel started from nothing, as safe and a few seconds slower. A template
    started before the workers (worker/machine.py) is found here too, by the
    same key; `channels` is how many processes it serves when started here.
    """
    if _NO_TEMPLATE:
        return None
    made_by = dataclasses.replace(limits, notebook_budget=0.0)  # a budget makes no template
    key = (dataclasses.astuple(made_by), package, package_copy, tuple(prelude))
    template = _TEMPLATES.get(key)
    if template is not None and template.alive() and (package_copy is None
                                                      or os.path.isdir(package_copy)):
        return template
    if template is not None:
        _TEMPLATES.pop(key).close()
    while len(_TEMPLATES) >= MAX_TEMPLATES:
        _TEMPLATES.pop(next(iter(_TEMPLATES))).close()
    if not _TEMPLATES and multiprocessing.parent_process() is not None:
        # a pool's worker ends through multiprocessing, which skips atexit
        multiprocessing.util.Finalize(None, close_templates, exitpriority=10)
    try:
        _TEMPLATES[key] = Template(limits, package, package_copy, prelude, channels)
    except SandboxError as error:
        _NO_TEMPLATE.append(str(error))
        print(f"note: each student's sandbox starts from nothing, a few seconds slower: this "
              f"machine cannot fork a warm template's sandboxes ({error})", file=sys.stderr)
        return None
    return _TEMPLATES[key]


def close_templates() -> None:
    """Stop the templates this process started and let go of the others (at the end of
    a run; also registered at exit)."""
    while _TEMPLATES:
        _TEMPLATES.popitem()[1].close()


def adopt_templates(channel: int) -> None:
    """In a worker forked from the process that started the machine's templates: use
    control channel `channel` of each of them."""
    for template in _TEMPLATES.values():
        template.adopt(channel)


atexit.register(close_templates)

_CHECKERS = {}  # one per instructor notebook in this worker: set-up cells run once


def make_checker(plan: Plan, instructor: object, package: str) -> Checker:
    """A Checker with the instructor's set-up cells run and the answer names known.

    Its set-up namespace is only read by the instructor's tests (a submission gets
    copies of the objects it is passed), so one is reused for every student.
    """
    setup = [c.source for c in plan.cells if c.kind == CellKind.SETUP]
    solutions = [instructor.cells[c.instructor_index].source for c in plan.cells
                 if c.kind == CellKind.SOLUTION and c.instructor_index is not None and instructor]
    key = (tuple(setup), tuple(solutions), package)
    if key not in _CHECKERS:
        if len(_CHECKERS) >= 4:
            _CHECKERS.clear()
        _CHECKERS[key] = Checker(setup, solutions, package)
    return _CHECKERS[key]


def prepare_checkers(assignment: Assignment) -> None:
    """Build the checks' set-up of every notebook of `assignment` now, in this process,
    so that the worker processes forked from it start with them. One torch thread:
    each worker is one core's work, and a process that forks must not have started
    a pool of threads."""
    import torch

    torch.set_num_threads(1)
    for text in assignment.instructor_notebooks.values():
        instructor = nbformat.reads(text, as_version=4)
        make_checker(build_plan(instructor, None), instructor, assignment.package)
