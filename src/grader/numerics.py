"""How the numeric libraries under torch (OpenMP, Intel MKL) run in the grader's processes
and in every sandbox: one thread each, and MKL without its own memory manager.

The grader forks: its grading workers from its main process, and each student's kernel
from a warm template. MKL's memory manager keeps its buffers by thread id; a forked
grading worker was seen spinning in it for ever (``mkl_serv_allocate`` ->
``mm_account_ptr_by_tid``) on its first matrix product of a check: in 2 of 8 runs of
one class graded under load, and in none of 14 with this setting. ``MKL_DISABLE_FAST_MM`` makes MKL take its buffers from
malloc instead. One thread each, as each worker is one core's work: the checks' set-up
importing torch in a thread of its own otherwise leaves an OpenMP pool thread alive in
the process the workers are then forked from. The libraries read these once, as they
load, so they are set before anything imports torch.
"""

import os

NUMERIC_ENVIRONMENT = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
                       "MKL_DISABLE_FAST_MM": "1"}


def fork_safe_numerics() -> None:
    """Set NUMERIC_ENVIRONMENT in this process's environment (before torch loads)."""
    os.environ.update(NUMERIC_ENVIRONMENT)
