"""The compute floor of a class (benchmarks/compute_floor.py) run on a course folder.

The benchmarks compare what the grader takes per notebook with it: the same cells
and checks of the notebooks in ``course-data/submitted/``, once each, in one warm,
unsandboxed shell.
"""

import json
import os
import subprocess
import sys

from testsupport.course import ROOT, nbgrader_env

SCRIPT = os.path.join(ROOT, "benchmarks", "compute_floor.py")


def floor_run(course, assignment, db_url=None, instructor="solutions"):
    """(seconds, notebooks, {student: points}) of the compute floor of ``assignment``'s
    hand-ins in ``course``; ``instructor`` is the course's folder of instructor
    notebooks (nbgrader's source directory). Raises SystemExit with the end of its
    output when the floor fails."""
    result = subprocess.run([sys.executable, SCRIPT, course, assignment,
                             "--instructor", instructor],
                            cwd=course, env=nbgrader_env(db_url), capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"the floor of {assignment} failed:\n{result.stderr[-3000:]}")
    floor = json.loads(result.stdout.strip().splitlines()[-1])
    return floor["seconds"], floor["notebooks"], floor["points"]
