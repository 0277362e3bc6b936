"""What a process keeps warm between students: sandbox templates and the checks' set-up.

Their lifetime is one release of one assignment. A `WarmAssignment` holds, for
the assignment as released (its instructor notebooks, the sandbox's limits, the
course package and its stubs: `release_key`), its instructor notebooks parsed
(once, not once per student: every student is graded against the same, which
the grading only reads), a template per notebook and a
`Checker` per notebook, each keyed on what makes it (limits, package copy and
set-up cells for a template; set-up and solution sources for a checker, at most
MAX_CHECKERS). When the same assignment comes back with another release (a
notebook edited, other limits), the old one is dropped whole and its templates
stopped. Every assignment a process grades is kept: a batch run grades one, the
grading service every released assignment, so the service keeps as many warm as
the course has released and switching between them rebuilds nothing. Only where
this machine's memory cannot hold another assignment's templates (each takes
what its largest warm one took, against the memory the machine has available) is
the one graded least recently dropped, and a note on stderr says why and what it
costs: its templates start again the next time it is graded.

Whether this machine can fork templates at all is found out once per process
(`templates_refused`).
"""

import atexit
import dataclasses
import importlib
import multiprocessing
import multiprocessing.util
import os
import sys
import threading
import time

import nbformat

from ..cells import CellKind
from ..checks import Checker
from ..plan import Plan, build_plan
from ..sandbox import SandboxError, Template
from ..settings import Limits
from .assignment import Assignment

# checkers kept per release (one per notebook, and those made for a notebook whose answer
# cell was turned into text); past it they are dropped and made again
MAX_CHECKERS = 4


@dataclasses.dataclass
class WarmAssignment:
    """The templates and checkers of one release of one assignment, by what makes each."""

    release: tuple  # release_key of the assignment they were made for
    notebooks: dict[str, nbformat.NotebookNode] = dataclasses.field(default_factory=dict)
    templates: dict[tuple, Template] = dataclasses.field(default_factory=dict)
    checkers: dict[tuple, Checker] = dataclasses.field(default_factory=dict)
    resident_mib: dict[tuple, float] = dataclasses.field(default_factory=dict)  # each template's
    start_seconds: dict[tuple, float] = dataclasses.field(default_factory=dict)  # memory, start

    def memory_mib(self) -> float:
        """What its templates took when they started, in MiB."""
        return sum(self.resident_mib.get(key, 0.0) for key in self.templates)

    def close(self) -> None:
        """Stop the templates this process started and let go of the others."""
        while self.templates:
            self.templates.popitem()[1].close()


_WARM: dict[str, WarmAssignment] = {}  # by assignment name, the most recently graded last
_WARM_LOCK = threading.Lock()  # a worker's checks' set-up is made in a thread of its own
_REFUSED: list[str] = []  # why this machine cannot fork sandboxes, once found out


def release_key(assignment: Assignment) -> tuple:
    """What the templates and checkers of `assignment` are made from: the instructor's
    notebooks, the limits (less the budgets, which make no template), the
    package and its stubs. Another key for the same assignment is another release."""
    return (tuple(sorted(assignment.instructor_texts.items())),
            dataclasses.astuple(template_limits(assignment.limits)), assignment.package,
            assignment.blocked)


def template_limits(limits: Limits) -> Limits:
    """`limits` less the budgets of a notebook and of a student, which make no template."""
    return dataclasses.replace(limits, notebook_budget=0.0, student_budget=0.0)


def warm_assignment(assignment: Assignment) -> WarmAssignment:
    """What this process keeps for `assignment` as released now (empty the first time).

    An older release of it is dropped. Another assignment is dropped only where the
    machine's memory cannot hold this one's templates too (`room_for`), the one graded
    least recently first.
    """
    release = release_key(assignment)
    dropped = []
    with _WARM_LOCK:
        warm = _WARM.pop(assignment.name, None)
        if warm is not None and warm.release != release:
            dropped.append(warm)
            warm = None
        if warm is None:
            dropped += room_for(assignment.name)
        _WARM[assignment.name] = warm = warm or WarmAssignment(release)
    for old in dropped:
        old.close()
    return warm


def room_for(name: str) -> list[WarmAssignment]:
    """The warm assignments to drop (least recently graded first) so that this machine's
    available memory holds the templates of assignment `name` as well, each assignment's
    taken to be as large as the largest kept; for each one with templates a note on
    stderr says why and what it costs. Called with _WARM_LOCK held; nothing is dropped
    where the memory is not known."""
    needed = max((warm.memory_mib() for warm in _WARM.values()), default=0.0)
    available = available_mib()
    if not needed or available is None or available >= needed:
        return []
    dropped = []
    while _WARM and available < needed:
        old_name, old = next(iter(_WARM.items()))
        dropped.append(_WARM.pop(old_name))
        if not old.templates:  # its checkers only: nothing to start again
            continue
        print(f"note: {name}'s templates need about {needed:,.0f} MiB and this machine has "
              f"{available:,.0f} MiB available, too little to keep {len(_WARM) + 2} "
              f"assignments warm: {old_name}'s templates are closed to make room; grading "
              f"{old_name} again starts its {len(old.templates)} template(s) again "
              f"({sum(old.start_seconds.values()):.1f} s the last time)",
              file=sys.stderr, flush=True)
        available += old.memory_mib()
    return dropped


def available_mib() -> float | None:
    """The memory this machine has available for new processes (MemAvailable), in MiB;
    None where /proc/meminfo does not say."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def resident_mib(template: Template) -> float:
    """The resident memory of `template`'s processes (its sandbox and what runs in it), in
    MiB; 0.0 where it cannot be read."""
    process = getattr(getattr(template, "kernel", None), "process", None)
    waiting = [process.pid] if process is not None else []
    total = 0  # kB
    while waiting:
        pid = waiting.pop()
        try:
            with open(f"/proc/{pid}/status", encoding="ascii") as handle:
                total += next((int(line.split()[1]) for line in handle
                               if line.startswith("VmRSS:")), 0)
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as handle:
                    waiting += [int(child) for child in handle.read().split()]
        except (OSError, ValueError):
            continue
    return total / 1024


def warm_templates() -> list[Template]:
    """The templates this process keeps now, of every assignment."""
    with _WARM_LOCK:
        return [t for warm in _WARM.values() for t in warm.templates.values()]


def templates_refused() -> str | None:
    """Why this machine cannot fork a warm template's sandboxes, or None (not found out
    so far): then each student gets a kernel started from nothing."""
    return _REFUSED[0] if _REFUSED else None


def refuse_templates(reason: str | None) -> None:
    """From now on start no template, for `reason` (each student's kernel starts from
    nothing); None: try templates again."""
    _REFUSED[:] = [reason] if reason is not None else []


def warm_template(assignment: Assignment, package_copy: str | None, prelude: list,
                  channels: int = 1) -> Template | None:
    """This process's Template for a notebook of `assignment` (started on first use), or None.

    None where the machine does not allow a template's forks to make their own
    namespaces (no unprivileged user namespaces); then each student gets a
    kernel started from nothing, as safe and a few seconds slower. A template
    started before the workers (worker/machine.py) is found here too, by the
    same key; `channels` is how many processes it serves when started here. One
    started with fewer channels (an earlier run of this process, with fewer
    workers) is stopped and started again with `channels`.
    """
    if _REFUSED:
        return None
    limits = assignment.limits
    key = (dataclasses.astuple(template_limits(limits)), assignment.package, package_copy,
           tuple(prelude))
    warm = warm_assignment(assignment)
    templates = warm.templates
    template = templates.get(key)
    if (template is not None and template.alive() and template.serves(channels)
            and (package_copy is None or os.path.isdir(package_copy))):
        return template
    if template is not None:
        templates.pop(key).close()
    if not warm_templates() and multiprocessing.parent_process() is not None:
        # a pool's worker ends through multiprocessing, which skips atexit
        multiprocessing.util.Finalize(None, close_templates, exitpriority=10)
    started = time.monotonic()
    try:
        templates[key] = Template(limits, assignment.package, package_copy, prelude, channels)
    except SandboxError as error:
        refuse_templates(str(error))
        print(f"note: each student's sandbox starts from nothing, a few seconds slower: this "
              f"machine cannot fork a warm template's sandboxes ({error})", file=sys.stderr)
        return None
    warm.start_seconds[key] = time.monotonic() - started
    warm.resident_mib[key] = resident_mib(templates[key])
    return templates[key]


def close_templates() -> None:
    """Stop the templates this process started and let go of the others (at the end of
    a run; also registered at exit). The checkers are kept with their release."""
    with _WARM_LOCK:
        warm = list(_WARM.values())
    for each in warm:
        each.close()


def adopt_templates(channel: int) -> None:
    """In a worker forked from the process that started the machine's templates: use
    control channel `channel` of each of them. One started for fewer workers (by an
    earlier grading in that process) is let go of here, not stopped: this worker starts
    its own if it grades that notebook."""
    with _WARM_LOCK:
        for warm in _WARM.values():
            for key, template in list(warm.templates.items()):
                if template.has_channel(channel):
                    template.adopt(channel)
                else:
                    warm.templates.pop(key).close()


atexit.register(close_templates)


def instructor_notebook(assignment: Assignment, name: str) -> nbformat.NotebookNode:
    """The instructor's notebook `name` of `assignment`, parsed from its JSON text once per
    release in this process (workers forked after `prepare_machine` inherit it parsed).
    Shared by every student of the release: whoever reads it copies what it changes."""
    notebooks = warm_assignment(assignment).notebooks
    if name not in notebooks:
        notebooks[name] = nbformat.reads(assignment.instructor_texts[name], as_version=4)
    return notebooks[name]


def make_checker(assignment: Assignment, plan: Plan,
                 instructor: nbformat.NotebookNode | None) -> Checker:
    """A Checker with the instructor's set-up cells run and the answer names known, for the
    notebook of `assignment` whose `plan` and instructor's notebook are given.

    Its set-up namespace is only read by the instructor's tests (a submission gets
    copies of the objects it is passed), so one is reused for every student.
    """
    setup = [c.source for c in plan.cells if c.kind == CellKind.SETUP]
    solutions = [instructor.cells[c.instructor_index].source for c in plan.cells
                 if c.kind == CellKind.SOLUTION and c.instructor_index is not None and instructor]
    key = (tuple(setup), tuple(solutions), assignment.package)
    checkers = warm_assignment(assignment).checkers
    if key not in checkers:
        if len(checkers) >= MAX_CHECKERS:
            checkers.clear()
        checkers[key] = Checker(setup, solutions, assignment.package)
    return checkers[key]


def one_torch_thread(package: str) -> None:
    """Import the course's `package`; where that loads torch, one torch thread in the
    calling thread (torch's setting is per thread), before anything of the checks runs:
    each worker is one core's work, and a process that forks must not have started a
    pool of threads. A course whose package does not use torch loads no torch here."""
    importlib.import_module(package)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def prepare_checkers(assignment: Assignment) -> None:
    """Build the checks' set-up of every notebook of `assignment` now, in this process,
    so that the worker processes forked from it start with them (one torch thread,
    where the course's package uses torch)."""
    one_torch_thread(assignment.package)
    for name in assignment.instructor_texts:
        instructor = instructor_notebook(assignment, name)
        make_checker(assignment, build_plan(instructor, None), instructor)
