"""The worker wing: one student graded, from a `Job` of plain data to a `StudentResult`.

- ``assignment.py``: `Assignment`, what every worker knows of the assignment,
  prepared once per run (the instructor notebooks' texts, limits, package, its stubs).
- ``job.py``: `Job`, one student's files as data, read on the instructor's machine.
- ``grade.py``: `grade_student` and `grade_notebook`.
- ``execution.py``: `execute_plan`, a plan run in sandboxed kernels with its budget.
- ``caches.py``: what a worker keeps warm between students (templates, checkers),
  per assignment and release; one torch thread where the course's package uses torch.
- ``machine.py``: what a run starts once per machine, before its workers.
- ``autograded.py``: the autograded notebook written back for the student.
- ``tasks.py``: the tasks a local or Dask worker runs, and the run's private folders.
"""

from .assignment import (Assignment, blocked_functions, prepare_assignment,
                         read_instructor_notebooks)
from .caches import (adopt_templates, close_templates, prepare_checkers, refuse_templates,
                     templates_refused, warm_templates)
from .grade import grade_notebook, grade_student
from .job import Job, read_job
from .machine import prepare_machine
from .tasks import grade_on_worker, grade_safely, private_work_root, remove_left_overs

__all__ = ["Assignment", "Job", "adopt_templates", "blocked_functions", "close_templates",
           "grade_notebook", "grade_on_worker", "grade_safely", "grade_student",
           "prepare_assignment", "prepare_checkers", "prepare_machine", "private_work_root",
           "read_instructor_notebooks", "read_job", "refuse_templates", "remove_left_overs",
           "templates_refused", "warm_templates"]
