"""The longest one hostile notebook holds a worker, at two limits per cell.

Hands in two notebooks of the grader's tiny assignment (testsupport/tiny_course.py)
built to hold a worker: 30 added cells that each sleep just under the limit per
cell, and the restart-replay amplifier (10 such sleepers, then 10 cells that
never end: each timeout restarts the kernel and replays the sleepers). It grades
them with ``python -m grader autograde tiny --timeout T --jobs 1`` for each T,
after an honest notebook whose time holds the worker's start-up (its warm
template), and prints each notebook's seconds (from the grade report) beside its budget
(c.SandboxGrader.notebook_budget, by default three times T); it never fails
because the machine is slow.

    .venv/bin/python benchmarks/notebook_budget.py [--timeouts 2,5]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)  # testsupport
sys.path.insert(0, os.path.join(ROOT, "src"))

from testsupport import tiny_course as fx  # noqa: E402
from testsupport.hand_in import hand_in  # noqa: E402


def hostile(released, timeout):
    """{student: notebook} of the two notebooks that hold a worker longest."""
    sleeper = f"import time\ntime.sleep({timeout * 0.9:.2f})\n"
    never = "while True:\n    pass\n"

    def with_cells(sources):
        nb = fx.correct(released)
        nb["cells"] += [{"cell_type": "code", "metadata": {}, "source": source, "outputs": [],
                         "execution_count": None} for source in sources]
        return nb

    return {"0-honest": fx.correct(released),  # graded first: its time holds the start-up
            "sleepers": with_cells([sleeper] * 30),
            "amplifier": with_cells([sleeper] * 10 + [never] * 10)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeouts", default="2,5", help="limits per cell to measure at")
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores, load average before {os.getloadavg()[0]:.2f}")
    print("limit per cell | budget | notebook | seconds in the report | run's wall seconds")
    for timeout in [float(t) for t in args.timeouts.split(",")]:
        with tempfile.TemporaryDirectory(prefix="budget-bench-") as work:
            root = fx.make_course(os.path.join(work, "course"))
            for student, nb in hostile(fx.released(root), timeout).items():
                hand_in(root, student, fx.ASSIGNMENT, {"tiny.ipynb": nb})
            started = time.perf_counter()
            result = subprocess.run([sys.executable, "-m", "grader", "autograde", fx.ASSIGNMENT,
                                     "--timeout", f"{timeout:g}", "--jobs", "1"], cwd=root,
                                    env=fx.nbgrader_env(), capture_output=True, text=True)
            wall = time.perf_counter() - started
            if result.returncode != 0:
                print(f"  (exit {result.returncode}) {result.stderr[-500:]}")
            folder = os.path.join(root, "course-data", "reports", fx.ASSIGNMENT)
            for name in sorted(os.listdir(folder)):
                with open(os.path.join(folder, name), encoding="utf-8") as handle:
                    record = json.load(handle)
                for notebook in record["notebooks"]:
                    print(f"{timeout:g} s | {3 * timeout:g} s | {record['student']} | "
                          f"{notebook['seconds']:.1f} | {wall:.1f}")


if __name__ == "__main__":
    main()
