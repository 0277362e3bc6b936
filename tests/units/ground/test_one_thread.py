"""`python -m grader` runs with one OpenMP and one MKL thread (grader/__main__.py), so the
process its workers are forked from holds no thread of a numeric library's pool."""

import os
import subprocess
import sys

import pytest

# what the grader's own start does before its workers fork: the checks' set-up imports the
# course's package (torch) in a thread of its own, sets one torch thread, and ends
SET_UP_THEN_COUNT = """
import os, threading
def set_up():
    import gptcourse, torch
    torch.set_num_threads(1)
thread = threading.Thread(target=set_up)
thread.start()
thread.join()
print(os.environ.get("OMP_NUM_THREADS"), os.environ.get("MKL_NUM_THREADS"),
      len(os.listdir("/proc/self/task")))
"""


def run(prefix):
    env = {**os.environ, "OMP_NUM_THREADS": "4", "MKL_NUM_THREADS": "4"}
    done = subprocess.run([sys.executable, "-c", prefix + SET_UP_THEN_COUNT], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    omp, mkl, threads = done.stdout.split()
    return omp, mkl, int(threads)


@pytest.mark.slow  # two fresh interpreters import torch
def test_the_grader_forks_from_a_process_with_one_thread():
    assert run("import grader.__main__\n") == ("1", "1", 1)
    # without it, the thread the set-up started for OpenMP outlives the set-up
    omp, mkl, threads = run("")
    assert (omp, mkl) == ("4", "4") and threads > 1
