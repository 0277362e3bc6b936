"""`python -m grader` and every sandbox run the numeric libraries as grader/numerics.py says:
one OpenMP and one MKL thread, MKL's buffers from malloc. The process the grading workers
are forked from then holds no thread of a numeric library's pool."""

import os
import subprocess
import sys

import pytest

from grader.numerics import NUMERIC_ENVIRONMENT
from grader.sandbox.command import _environment

# what the grader's own start does before its workers fork: the checks' set-up imports the
# course's package (torch) in a thread of its own, sets one torch thread, and ends
# (a joined thread may still be leaving the system's list for a moment: up to SETTLE seconds
# are given for the count to fall to one)
SET_UP_THEN_COUNT = """
import os, threading, time
def set_up():
    import gptcourse, torch
    torch.set_num_threads(1)
thread = threading.Thread(target=set_up)
thread.start()
thread.join()
until = time.monotonic() + {settle}
while len(os.listdir("/proc/self/task")) > 1 and time.monotonic() < until:
    time.sleep(0.05)
print(os.environ.get("OMP_NUM_THREADS"), os.environ.get("MKL_NUM_THREADS"),
      os.environ.get("MKL_DISABLE_FAST_MM"), len(os.listdir("/proc/self/task")))
"""
SETTLE = 20


def run(prefix, settle):
    env = {**{k: v for k, v in os.environ.items() if k not in NUMERIC_ENVIRONMENT},
           "OMP_NUM_THREADS": "4", "MKL_NUM_THREADS": "4"}
    script = prefix + SET_UP_THEN_COUNT.replace("{settle}", str(settle))
    done = subprocess.run([sys.executable, "-c", script], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    omp, mkl, fast_mm, threads = done.stdout.split()
    return omp, mkl, fast_mm, int(threads)


@pytest.mark.slow  # two fresh interpreters import torch
def test_the_grader_forks_from_a_process_with_one_thread():
    assert run("import grader.__main__\n", SETTLE) == ("1", "1", "1", 1)
    # without it, the thread the set-up started for OpenMP outlives the set-up
    omp, mkl, fast_mm, threads = run("", 2)
    assert (omp, mkl, fast_mm) == ("4", "4", "None") and threads > 1


def test_every_sandbox_runs_them_so_too():
    """The kernels are forked from a warm template: the same settings inside."""
    inside = _environment(sys.executable)
    assert {k: inside[k] for k in NUMERIC_ENVIRONMENT} == {
        "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "MKL_DISABLE_FAST_MM": "1"}
