"""The sandbox's settings (`SandboxGrader`) and the sandbox's limits built from them.

`SandboxGrader` is a traitlets Configurable, as nbgrader's own settings are:
each setting's default, help text and type check is one line, and
``c.SandboxGrader.name = value`` in nbgrader_config.py sets it. `Limits` are
the numbers one sandbox runs under; `limits_from_config` is the one place they
are built from a configuration (the limit per cell is nbgrader's own
``c.Execute.timeout``).
"""

from dataclasses import dataclass
from typing import Any

from traitlets import Float, Integer, List, Unicode
from traitlets.config import Config, Configurable

BUDGET_CELLS = 3  # a notebook's default budget: this many times the limit per cell
STUDENT_SLACK = 300.0  # a student's default bound: the notebooks' budgets and this many seconds


class SandboxGrader(Configurable):
    """The sandbox's settings in nbgrader_config.py (``c.SandboxGrader.name = value``): its
    limits and the course package it stubs.

    The one home of their defaults: `Limits` and the command line's help read
    them from here (`default`). The grader's other settings are on the classes of
    what reads them (sections.py).
    """

    memory_mib = Integer(3072, min=64,
                         help="memory of each sandbox, its processes together, in MiB"
                         ).tag(config=True)
    tmpfs_mib = Integer(128, min=1,
                        help="size of each writable in-memory folder of a sandbox (/tmp, "
                        "/home, /dev/shm and the working folder), in MiB").tag(config=True)
    file_mib = Integer(64, min=1, help="largest file a sandbox may write, in MiB"
                       ).tag(config=True)
    max_processes = Integer(128, min=8, help="processes and threads of one sandbox, in all"
                            ).tag(config=True)
    notebook_budget = Float(0.0, min=0.0,
                            help="wall-clock seconds for one whole notebook, kernel restarts "
                            "and the replays after them included; the cells still waiting "
                            "when it runs out are not run (0: three times the limit per cell)"
                            ).tag(config=True)
    student_budget = Float(0.0, min=0.0,
                           help="wall-clock seconds for grading one student in all, the "
                           "checks' own code and their set-up included; a grading worker "
                           "still at it then is stopped, its stack written to the grader's "
                           "error output, and the student is not graded (0: the notebooks' "
                           f"budgets and {STUDENT_SLACK:g} seconds)").tag(config=True)
    course_package = Unicode("", help="the course package students import (import NAME): "
                             "its answers' functions are stubs in the sandbox, its own "
                             "functions earn no points in a check; grading needs it"
                             ).tag(config=True)
    also_blocked = List(Unicode(), help="functions of the course package that compute answers, "
                        "stubs in the sandbox besides the answers").tag(config=True)

    @classmethod
    def default(cls, name: str) -> Any:
        """The default of setting `name`."""
        return cls.class_traits()[name].default()


@dataclass
class Limits:
    """Resource limits for one sandboxed kernel (defaults: SandboxGrader's)."""

    timeout: float  # wall-clock seconds per cell (c.Execute.timeout)
    memory_mib: int = SandboxGrader.default("memory_mib")  # the sandbox's processes together
    file_mib: int = SandboxGrader.default("file_mib")  # largest file the kernel may write
    tmpfs_mib: int = SandboxGrader.default("tmpfs_mib")  # each writable in-memory folder
    max_processes: int = SandboxGrader.default("max_processes")  # processes and threads
    cpu_seconds: int = 0  # CPU seconds for the whole kernel; 0: derived from the cell count
    notebook_budget: float = SandboxGrader.default("notebook_budget")  # 0: BUDGET_CELLS x timeout
    student_budget: float = SandboxGrader.default("student_budget")  # 0: see student_seconds

    @property
    def notebook_seconds(self) -> float:
        """Wall-clock seconds for a whole notebook, restarts and replays included."""
        return self.notebook_budget or BUDGET_CELLS * self.timeout

    def student_seconds(self, notebooks: int) -> float:
        """Wall-clock seconds for grading one student's `notebooks` notebooks in all: the
        bound on what no budget of a notebook covers (a check's own code, its set-up)."""
        return self.student_budget or notebooks * self.notebook_seconds + STUDENT_SLACK


def limits_from_config(config: Config) -> Limits:
    """The sandbox's Limits that the configuration `config` sets."""
    from nbgrader.preprocessors import Execute  # nbgrader's preprocessors import slowly

    grader = SandboxGrader(config=config)
    return Limits(timeout=float(Execute(config=config).timeout), memory_mib=grader.memory_mib,
                  tmpfs_mib=grader.tmpfs_mib, file_mib=grader.file_mib,
                  max_processes=grader.max_processes, notebook_budget=grader.notebook_budget,
                  student_budget=grader.student_budget)
